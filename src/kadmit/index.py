"""Lookups over a model: objects by name, the cohort tree, effective priorities, admitted usage."""

from __future__ import annotations

import re
from functools import cached_property

from kadmit.featuregates import enabled
from kadmit.modelchecks import MULTIKUEUE, Activity, delayed_tas_flavors
from kadmit.model import (ClusterQueue, Cohort, LocalQueue, Model, Namespace, PriorityClass,
                          ResourceFlavor, Topology, Workload)


# The PriorityClasses every API server creates at start-up (k8s.io/kubernetes pkg/apis/scheduling/v1
# SystemPriorityClasses, the scheduling storage's post-start hook): a job or pod may name them in any cluster.
BUILTIN_PRIORITY_CLASSES = (PriorityClass(name="system-node-critical", value=2000001000, kind="pod"),
                            PriorityClass(name="system-cluster-critical", value=2000000000, kind="pod"))


def _first_by(items, key) -> dict:
    out: dict = {}
    for it in items:
        out.setdefault(key(it), it)
    return out


class ModelIndex:
    """Read-only views of a model, by name; the first object of each name wins."""

    def __init__(self, model: Model) -> None:
        self.model = model

    @cached_property
    def flavors(self) -> dict[str, ResourceFlavor]:
        return _first_by(self.model.flavors, lambda f: f.name)

    @cached_property
    def topologies(self) -> dict[str, Topology]:
        return _first_by(self.model.topologies, lambda t: t.name)

    @cached_property
    def cluster_queues(self) -> dict[str, ClusterQueue]:
        return _first_by(self.model.cluster_queues, lambda c: c.name)

    @cached_property
    def local_queues(self) -> dict[str, LocalQueue]:
        return _first_by(self.model.local_queues, lambda q: q.key)

    @cached_property
    def namespaces(self) -> dict[str, Namespace]:
        return _first_by(self.model.namespaces, lambda n: n.name)

    @cached_property
    def workloads(self) -> dict[str, Workload]:
        return _first_by(self.model.workloads, lambda w: w.key)

    @cached_property
    def check_activity(self) -> Activity:
        """Whether each AdmissionCheck is Active (kadmit.modelchecks)."""
        return Activity(self.model.admission_checks, self.model.check_configs, enabled(self.model.config, "MultiKueue"))

    def check_problems(self, cq: ClusterQueue) -> list[str]:
        """Why Kueue keeps `cq` inactive because of its admission checks, in Kueue's words (none: active)."""
        if not cq.admission_checks:
            return []
        return self.check_activity.queue_problems(cq.admission_checks, self.queue_flavors(cq))

    def delayed_tas_flavors(self, cq: ClusterQueue) -> set[str]:
        """Flavors on which Kueue leaves a new admission's topology assignment for later (its checks)."""
        if not cq.admission_checks:
            return set()
        return delayed_tas_flavors(self.check_activity, cq.admission_checks, self.queue_flavors(cq))

    def multikueue(self, cq: ClusterQueue) -> bool:
        """The queue has a MultiKueue check: Kueue then skips its TAS checks (the workers place)."""
        return any(self.check_activity.checks.get(r.name) is not None
                   and self.check_activity.checks[r.name].controller == MULTIKUEUE for r in cq.admission_checks)

    def queue_flavors(self, cq: ClusterQueue) -> set[str]:
        return {fq.flavor for rg in cq.resource_groups for fq in rg.flavors}

    @cached_property
    def cohorts(self) -> dict[str, Cohort]:
        """Every cohort: declared ones, and implicit ones named by a queue or as a parent."""
        out: dict[str, Cohort] = _first_by(self.model.cohorts, lambda c: c.name)
        named = [cq.cohort for cq in self.model.cluster_queues if cq.cohort]
        named += [c.parent for c in self.model.cohorts if c.parent]
        for name in sorted(set(named)):
            out.setdefault(name, Cohort(name=name, explicit=False))
        return out

    @cached_property
    def broken(self) -> dict[str, set[str]]:
        """Kind -> keys of objects defined with errors (`Model.broken`)."""
        out: dict[str, set[str]] = {}
        for b in self.model.broken:
            out.setdefault(b.kind, set()).add(b.key)
        return out

    def broken_keys(self, kind: str) -> set[str]:
        return self.broken.get(kind, set())

    @cached_property
    def workload_priority_classes(self) -> dict[str, PriorityClass]:
        return _first_by((p for p in self.model.priority_classes if p.kind == "workload"), lambda p: p.name)

    @cached_property
    def pod_priority_classes(self) -> dict[str, PriorityClass]:
        return _first_by((p for p in self.model.priority_classes if p.kind == "pod"), lambda p: p.name)

    @cached_property
    def resolvable_pod_priority_classes(self) -> dict[str, PriorityClass]:
        """The input's PriorityClasses, and the two every API server creates where the input lacks them:
        what a pod's or job's `priorityClassName` resolves to in a cluster."""
        return {**{p.name: p for p in BUILTIN_PRIORITY_CLASSES}, **self.pod_priority_classes}

    @cached_property
    def default_priority(self) -> int:
        """The value of the class marked default (`.kad`) or globalDefault (PriorityClass), else 0."""
        for pc in sorted(self.model.priority_classes, key=lambda p: (p.kind != "workload", p.name)):
            if pc.global_default:
                return pc.value
        return 0

    def priority(self, wl: Workload) -> int:
        """A workload's effective priority: explicit value, else its class, else the default; with Kueue's
        PriorityBoost gate on, plus its `kueue.x-k8s.io/priority-boost` annotation (EffectivePriority: a
        value that is no 32-bit integer adds nothing)."""
        if wl.priority_boost is not None and enabled(self.model.config, "PriorityBoost"):
            # strconv.ParseInt(value, 10, 32)
            boost = int(wl.priority_boost) if re.fullmatch(r"[+-]?[0-9]+", wl.priority_boost) else 0
            return self._base_priority(wl) + (boost if -2 ** 31 <= boost < 2 ** 31 else 0)
        return self._base_priority(wl)

    def _base_priority(self, wl: Workload) -> int:
        if wl.priority is not None:
            return wl.priority
        if wl.priority_class:
            kinds = [wl.priority_class_kind] if wl.priority_class_kind else ["workload", "pod"]
            for kind in kinds:
                table = self.workload_priority_classes if kind == "workload" else self.resolvable_pod_priority_classes
                if wl.priority_class in table:
                    return table[wl.priority_class].value
        return self.default_priority

    def cluster_queue_of(self, wl: Workload) -> ClusterQueue | None:
        lq = self.local_queues.get(f"{wl.namespace}/{wl.queue}")
        if lq is None:
            return None
        return self.cluster_queues.get(lq.cluster_queue)

    @cached_property
    def cohort_children(self) -> dict[str, tuple[list[str], list[str]]]:
        """cohort -> (child cohorts, member cluster queues), each sorted by name."""
        out: dict[str, tuple[list[str], list[str]]] = {c: ([], []) for c in self.cohorts}
        for c in self.cohorts.values():
            if c.parent and c.parent in out:
                out[c.parent][0].append(c.name)
        for cq in self.cluster_queues.values():
            if cq.cohort and cq.cohort in out:
                out[cq.cohort][1].append(cq.name)
        for kids, cqs in out.values():
            kids.sort()
            cqs.sort()
        return out

    def cohort_path(self, cohort: str | None) -> list[str]:
        """The chain of cohorts from `cohort` up to its root; stops at a cycle."""
        path: list[str] = []
        seen: set[str] = set()
        while cohort and cohort not in seen and cohort in self.cohorts:
            path.append(cohort)
            seen.add(cohort)
            cohort = self.cohorts[cohort].parent
        return path

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        ns = self.namespaces.get(namespace)
        if ns is None:
            return {"kubernetes.io/metadata.name": namespace}
        return ns.effective_labels()


def admitted_usage(wl: Workload) -> dict[tuple[str, str], int]:
    """(flavor, resource) -> milli-units held by an admitted workload."""
    out: dict[tuple[str, str], int] = {}
    if wl.admission is None or wl.finished:
        return out
    by_name = {ps.name: ps for ps in wl.pod_sets}
    for psa in wl.admission.pod_sets:
        if psa.unrecorded:  # Kueue books an admission by its recorded usage: none (KAD169)
            continue
        if psa.usage:
            totals = dict(psa.usage)
        else:
            ps = by_name.get(psa.name)
            totals = {r: q * psa.count for r, q in (ps.requests if ps else {}).items()}
        for res, qty in totals.items():
            flavor = psa.flavors.get(res)
            if flavor is None:
                continue
            out[(flavor, res)] = out.get((flavor, res), 0) + qty
    return out


HOSTNAME_LABEL = "kubernetes.io/hostname"


def resolve_level(topology: "Topology", level: str | None) -> str | None:
    """The node-label key of a topology level named by its key or by the key's last segment
    (`rack` for `cloud.example.com/rack`; `host`/`hostname` for `kubernetes.io/hostname`)."""
    if level is None:
        return None
    if level in topology.levels:
        return level
    short = [k for k in topology.levels if k.rsplit("/", 1)[-1] == level]
    if len(short) == 1:
        return short[0]
    if level in ("host", "hostname") and HOSTNAME_LABEL in topology.levels:
        return HOSTNAME_LABEL
    return None
