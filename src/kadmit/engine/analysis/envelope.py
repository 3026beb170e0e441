"""Envelopes: per cluster queue, flavor and resource, the largest gang admissible on an empty cluster.

A gang is `n` pods of `p` each, all or nothing (`min_count = n`), requesting only that resource,
tolerating every taint, in a namespace the queue selects. `p` is the solver's unit for the
resource (the gcd of every amount of it in the policy), so the gang's total can reach every quota
exactly. The queue is restricted to the one flavor (every queue keeps only that flavor in the
groups that list it), so the answer is that flavor's capacity for the queue — its own quota,
what it may borrow from its cohort tree, and, for flavors with nodes, what the nodes hold — and
not which flavor Kueue would try first. The largest `n` is found by binary search, each step a
Kueue flavor assignment by the engine (borrowing and topology-aware placement included).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kadmit.engine.admission.session import Session
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import (ClusterQueue, LocalQueue, Model, Namespace, PodSet, ResourceGroup,
                          Toleration, Workload)

PROBE_NS = "kadmit-envelope"
Key = tuple[str, str, str]  # cluster queue, flavor, resource


@dataclass(frozen=True)
class Gang:
    """`pods` pods of `per_pod` milli-units of `resource`, in `namespace`, queued in `queue`."""

    cluster_queue: str
    flavor: str
    resource: str
    pods: int
    per_pod: int
    namespace: str
    queue: str
    node_labels: tuple[tuple[str, str], ...] = ()  # the flavor's labels, to steer it there elsewhere
    tolerations: tuple[Toleration, ...] = ()  # the flavor's taints, each tolerated (Exists)
    made_up: tuple[tuple[str, str], ...] | None = None  # labels of a namespace and local queue made up for it

    @property
    def total(self) -> int:
        return self.pods * self.per_pod

    def workload(self, name: str) -> Workload:
        return Workload(namespace=self.namespace, name=name, queue=self.queue, pod_sets=(PodSet(
            name="gang", count=self.pods, min_count=self.pods, requests={self.resource: self.per_pod},
            node_selector=dict(self.node_labels), tolerations=self.tolerations),))


def keys_of(model: Model) -> list[Key]:
    """Every (cluster queue, flavor, resource) the policy gives quota structure to."""
    out = set()
    for cq in model.cluster_queues:
        for g in cq.resource_groups:
            for fq in g.flavors:
                out |= {(cq.name, fq.flavor, r) for r in g.covered_resources}
    return sorted(out)


def _restricted(model: Model, flavor: str) -> Model:
    """The policy without state, every queue keeping only `flavor` where it lists it."""
    def only(groups: tuple[ResourceGroup, ...]) -> tuple[ResourceGroup, ...]:
        return tuple(g.model_copy(update={"flavors": tuple(f for f in g.flavors if f.flavor == flavor)})
                     for g in groups if any(f.flavor == flavor for f in g.flavors))
    return model.model_copy(update={
        "workloads": (), "pods": (),
        "cluster_queues": tuple(cq.model_copy(update={"resource_groups": only(cq.resource_groups)})
                                for cq in model.cluster_queues)})


def _queues_for(model: Model) -> dict[str, tuple[str, str, list[Namespace], list[LocalQueue]]]:
    """Per cluster queue, a namespace and local queue feeding it: an existing pair when there is one,
    else made up (a namespace carrying the selector's labels), with the objects made up."""
    labels = {ns.name: ns.effective_labels() for ns in model.namespaces}
    feeding: dict[str, list[LocalQueue]] = {}
    for lq in sorted(model.local_queues, key=lambda q: q.key):
        feeding.setdefault(lq.cluster_queue, []).append(lq)
    out = {}
    for cq in model.cluster_queues:
        sel = cq.namespace_selector
        found = next((lq for lq in feeding.get(cq.name, []) if sel is not None and sel.matches(
            labels.get(lq.namespace, {"kubernetes.io/metadata.name": lq.namespace}))), None)
        if found is not None:
            out[cq.name] = (found.namespace, found.name, [], [])
            continue
        ns = f"{PROBE_NS}-{cq.name}"
        match = dict(sel.match_labels) if sel is not None else {}
        out[cq.name] = (ns, "envelope", [Namespace(name=ns, labels=match)],
                        [LocalQueue(namespace=ns, name="envelope", cluster_queue=cq.name)])
    return out


def _upper(model: Model, cq: ClusterQueue, flavor: str, resource: str) -> int:
    """No gang can take more than every nominal quota of the flavor-resource in the whole model."""
    total = 0
    for holder in (*model.cluster_queues, *model.cohorts):
        for g in holder.resource_groups:
            for fq in g.flavors:
                if fq.flavor == flavor:
                    total += sum(r.nominal for r in fq.resources if r.resource == resource)
    return total


class Prober:
    """One restricted empty-cluster session per flavor; asks whether gangs are admitted."""

    def __init__(self, model: Model, limits: Limits | None = None) -> None:
        self.model = model
        self.limits = limits
        self._sessions: dict[str, tuple[Session, dict[str, tuple[str, str]]]] = {}
        self._n = 0

    def _session(self, flavor: str) -> tuple[Session, dict[str, tuple[str, str]]]:
        got = self._sessions.get(flavor)
        if got is None:
            base = _restricted(self.model, flavor)
            extra_ns, extra_lq, queues = [], [], {}
            feeding = _queues_for(base)
            for cq in base.cluster_queues:
                ns, lq, nss, lqs = feeding[cq.name]
                queues[cq.name] = (ns, lq, tuple(sorted(nss[0].labels.items())) if nss else None)
                extra_ns += nss
                extra_lq += lqs
            base = base.model_copy(update={"namespaces": base.namespaces + tuple(extra_ns),
                                           "local_queues": base.local_queues + tuple(extra_lq)})
            got = self._sessions[flavor] = (Session(base, self.limits), queues)
        return got

    def unit(self, flavor: str, resource: str) -> int:
        session, _ = self._session(flavor)
        return session.compiler.scale.get(resource, 1)

    def gang(self, cq: str, flavor: str, resource: str, pods: int) -> Gang:
        session, queues = self._session(flavor)
        ns, lq, made_up = queues[cq]
        fl = session.index.flavors.get(flavor)
        labels = tuple(sorted(fl.node_labels.items())) if fl is not None else ()
        tols = tuple(Toleration(key=t.key, operator="Exists", effect=t.effect) for t in fl.node_taints) if fl else ()
        return Gang(cq, flavor, resource, pods, self.unit(flavor, resource), ns, lq, labels, tols, made_up)

    def requeue(self, gang: Gang) -> Gang:
        """The same gang in this side's namespace and local queue for its cluster queue."""
        _, queues = self._session(gang.flavor)
        ns, lq, made_up = queues.get(gang.cluster_queue, (gang.namespace, gang.queue, gang.made_up))
        return replace(gang, namespace=ns, queue=lq, made_up=made_up)

    def has_queue(self, cq: str) -> bool:
        return any(q.name == cq for q in self.model.cluster_queues)

    def admits(self, gang: Gang) -> bool:
        """Is the gang admitted, on its flavor, in its queue, on the empty cluster?"""
        if not self.has_queue(gang.cluster_queue):
            return False
        session, _ = self._session(gang.flavor)
        self._n += 1
        wl = gang.workload(f"probe-{self._n}")
        session.add_workload(wl)
        got, _ = session.try_admit(wl)
        return (got is not None and got.cluster_queue == gang.cluster_queue
                and got.flavors.get("gang", {}).get(gang.resource) == gang.flavor)

    def largest(self, cq: str, flavor: str, resource: str) -> Gang | None:
        """The largest admissible gang (None when not even one unit is)."""
        queue = next((q for q in self.model.cluster_queues if q.name == cq), None)
        if queue is None:
            return None
        unit = self.unit(flavor, resource)
        hi = _upper(self.model, queue, flavor, resource) // unit
        if hi < 1 or not self.admits(self.gang(cq, flavor, resource, 1)):
            return None
        lo = 1  # admissible; find the largest n in [lo, hi]
        if self.admits(self.gang(cq, flavor, resource, hi)):
            return self.gang(cq, flavor, resource, hi)
        while hi - lo > 1:  # lo admissible, hi not
            mid = (lo + hi) // 2
            if self.admits(self.gang(cq, flavor, resource, mid)):
                lo = mid
            else:
                hi = mid
        return self.gang(cq, flavor, resource, lo)


def envelopes(model: Model, keys: list[Key] | None = None, limits: Limits | None = None) -> dict[Key, Gang | None]:
    """The largest admissible gang per (cluster queue, flavor, resource) of `model` (or of `keys`)."""
    prober = Prober(model, limits)
    return {k: prober.largest(*k) for k in (keys if keys is not None else keys_of(model))}

