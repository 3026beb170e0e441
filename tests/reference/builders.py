"""Small builders of model objects for the reference tests (no parser involved).

Quantities are whole units (`8`) or Kubernetes strings (`"500m"`, `"64Gi"`); `gpu` stands for
`nvidia.com/gpu`. `build(...)` sorts objects into a `Model`, adds a plain flavor for every flavor
a queue names but nobody defined, and a LocalQueue named after each cluster queue in every
namespace a workload uses.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kadmit.model import (Admission, ClusterQueue, Cohort, FlavorFungibility, FlavorQuotas, LabelSelector,
                          LocalQueue, Model, Namespace, Node, NodeSelectorTerm, Pod, PodSet, PodSetAssignment,
                          PriorityClass, Requirement, ResourceFlavor, ResourceGroup, ResourceQuota,
                          Taint, Toleration, Topology, TopologyRequest, Workload)
from kadmit.quantity import parse_quantity

GPU = "nvidia.com/gpu"
ALIASES = {"gpu": GPU}
T0 = datetime(2026, 11, 20, 8, 0, tzinfo=timezone.utc)


def res(name: str) -> str:
    return ALIASES.get(name, name)


def qty(value) -> int:
    return parse_quantity(str(value)) if not isinstance(value, int) else value * 1000


def q(nominal, borrow=None, lend=None) -> tuple:
    """A quota with limits, for `fq(flavor, cpu=q(8, borrow=4))`."""
    return (nominal, borrow, lend)


def fq(flavor: str, **resources) -> FlavorQuotas:
    """Quotas of one flavor: `fq("h100", gpu=8, cpu=q(16, borrow=8, lend=4))`."""
    quotas = []
    for name, value in resources.items():
        nominal, borrow, lend = value if isinstance(value, tuple) else (value, None, None)
        quotas.append(ResourceQuota(
            resource=res(name), nominal=qty(nominal),
            borrowing_limit=None if borrow is None else qty(borrow),
            lending_limit=None if lend is None else qty(lend)))
    return FlavorQuotas(flavor=flavor, resources=tuple(quotas))


def group(*flavors: FlavorQuotas, covered: tuple[str, ...] | None = None) -> ResourceGroup:
    if covered is None:
        seen: list[str] = []
        for f in flavors:
            seen += [r.resource for r in f.resources if r.resource not in seen]
        covered = tuple(seen)
    return ResourceGroup(covered_resources=tuple(res(r) for r in covered), flavors=flavors)


def cluster_queue(name: str, *groups: ResourceGroup, cohort: str | None = None,
                  strategy: str = "BestEffortFIFO", selector: LabelSelector | None = LabelSelector(),
                  fungibility: str = "Borrow", stop: str = "None") -> ClusterQueue:
    return ClusterQueue(name=name, cohort=cohort, resource_groups=groups, queueing_strategy=strategy,
                        namespace_selector=selector, stop_policy=stop,
                        flavor_fungibility=FlavorFungibility(when_can_borrow=fungibility))


def cohort(name: str, *groups: ResourceGroup, parent: str | None = None) -> Cohort:
    return Cohort(name=name, parent=parent, resource_groups=groups)


def flavor(name: str, labels: dict[str, str] | None = None, taints: tuple[str, ...] = (),
           tolerations: tuple[Toleration, ...] = (), topology: str | None = None) -> ResourceFlavor:
    """Taints as `"key=value:Effect"` or `"key:Effect"`."""
    parsed = []
    for t in taints:
        kv, effect = t.rsplit(":", 1)
        key, _, value = kv.partition("=")
        parsed.append(Taint(key=key, value=value, effect=effect))
    return ResourceFlavor(name=name, node_labels=labels or {}, node_taints=tuple(parsed),
                          tolerations=tolerations, topology=topology)


def tolerate(key: str = "", value: str | None = None, effect: str = "") -> Toleration:
    if value is None:
        return Toleration(key=key, operator="Exists", effect=effect)
    return Toleration(key=key, operator="Equal", value=value, effect=effect)


def affinity(*terms: list[tuple[str, str, tuple[str, ...]]]) -> tuple[NodeSelectorTerm, ...]:
    """Required node affinity: each term a list of (key, operator, values)."""
    return tuple(NodeSelectorTerm(match_expressions=tuple(
        Requirement(key=k, operator=op, values=tuple(vals)) for k, op, vals in term)) for term in terms)


def pod_set(name: str = "main", count: int = 1, min_count: int | None = None,
            node_selector: dict[str, str] | None = None, node_affinity=(), tolerations=(),
            topology: tuple[str, str | None] | None = None, **requests) -> PodSet:
    return PodSet(name=name, count=count, min_count=min_count,
                  requests={res(k): qty(v) for k, v in requests.items()},
                  node_selector=node_selector or {}, node_affinity=node_affinity,
                  tolerations=tuple(tolerations),
                  topology=None if topology is None else TopologyRequest(mode=topology[0], level=topology[1]))


def workload(name: str, *pod_sets: PodSet, queue: str, ns: str = "default", priority: int | None = None,
             minute: int = 0, active: bool = True, priority_class: str | None = None) -> Workload:
    return Workload(namespace=ns, name=name, queue=queue, priority=priority, priority_class=priority_class,
                    created=T0 + timedelta(minutes=minute), pod_sets=pod_sets or (pod_set(),), active=active)


def admitted(wl: Workload, cq: str, flavors: dict[str, str], counts: dict[str, int] | None = None) -> Workload:
    """The workload, admitted to `cq` with the same resource->flavor map for every pod set."""
    counts = counts or {}
    psas = tuple(PodSetAssignment(name=ps.name, count=counts.get(ps.name, ps.count),
                                  flavors={res(k): v for k, v in flavors.items()})
                 for ps in wl.pod_sets)
    return wl.model_copy(update={"admission": Admission(cluster_queue=cq, pod_sets=psas)})


def build(*objects, namespaces: dict[str, dict[str, str]] | None = None, auto_queues: bool = True) -> Model:
    buckets: dict[type, list] = {}
    for obj in objects:
        buckets.setdefault(type(obj), []).append(obj)
    cqs = buckets.get(ClusterQueue, [])
    flavors = list(buckets.get(ResourceFlavor, []))
    known = {f.name for f in flavors}
    for cq in cqs:
        for rg in cq.resource_groups:
            for f in rg.flavors:
                if f.flavor not in known:
                    known.add(f.flavor)
                    flavors.append(ResourceFlavor(name=f.flavor))
    for c in buckets.get(Cohort, []):
        for rg in c.resource_groups:
            for f in rg.flavors:
                if f.flavor not in known:
                    known.add(f.flavor)
                    flavors.append(ResourceFlavor(name=f.flavor))
    lqs = list(buckets.get(LocalQueue, []))
    workloads = buckets.get(Workload, [])
    if auto_queues:
        used = sorted({w.namespace for w in workloads} | {"default"})
        lqs += [LocalQueue(namespace=ns, name=cq.name, cluster_queue=cq.name) for ns in used for cq in cqs]
    ns_objs = [Namespace(name=n, labels=labels) for n, labels in sorted((namespaces or {}).items())]
    return Model(flavors=tuple(flavors), cohorts=tuple(buckets.get(Cohort, [])), cluster_queues=tuple(cqs),
                 local_queues=tuple(lqs), namespaces=tuple(ns_objs), workloads=tuple(workloads),
                 priority_classes=tuple(buckets.get(PriorityClass, [])),
                 topologies=tuple(buckets.get(Topology, [])), nodes=tuple(buckets.get(Node, [])),
                 pods=tuple(buckets.get(Pod, [])))


def outcome(decisions) -> dict[str, object]:
    """A compact view for assertions: key -> {pod set: (count, flavors)} or the reason."""
    out: dict[str, object] = {}
    for d in decisions:
        if d.admitted:
            out[d.workload] = {p.name: (p.count, dict(p.flavors)) for p in d.pod_sets}
        else:
            out[d.workload] = d.reason
    return out
