"""Small fluent builders for model objects in validation tests (no parser involved)."""

from __future__ import annotations

from kadmit.model import (Node, Admission, Cohort, ClusterQueue, FairSharing, FlavorQuotas, LabelSelector,
                          LocalQueue, Model, Namespace, PodSet, PodSetAssignment, PriorityClass,
                          ResourceFlavor, ResourceGroup, ResourceQuota, Rule, SchedulerConfig, Topology,
                          Workload)
from kadmit.source import Span, Spans

GPU = "nvidia.com/gpu"
_ALIASES = {"gpu": GPU}


def span(line: int, column: int = 1, file: str = "t.kad") -> Span:
    return Span(file=file, line=line, column=column)


def _res(name: str) -> str:
    return _ALIASES.get(name, name)


def qty(units: int | float) -> int:
    """Whole or decimal units -> milli-units."""
    return round(units * 1000)


class _Grouped:
    """Resource groups shared by the cluster queue and cohort builders."""

    def __init__(self) -> None:
        self._groups: list[tuple[list[str], list[FlavorQuotas]]] = []

    def flavor(self, name: str, *, borrowing: dict | None = None, lending: dict | None = None,
               group: int | None = None, **quotas: float) -> "_Grouped":
        """Add a flavor; quotas in whole units (`gpu=8`), limits by resource name."""
        borrowing = {_res(k): v for k, v in (borrowing or {}).items()}
        lending = {_res(k): v for k, v in (lending or {}).items()}
        resources = tuple(
            ResourceQuota(resource=_res(r), nominal=qty(n),
                          borrowing_limit=qty(borrowing[_res(r)]) if _res(r) in borrowing else None,
                          lending_limit=qty(lending[_res(r)]) if _res(r) in lending else None)
            for r, n in quotas.items())
        fq = FlavorQuotas(flavor=name, resources=resources)
        covered = [rq.resource for rq in resources]
        if group is None:
            self._groups.append((covered, [fq]))
        else:
            self._groups[group][1].append(fq)
        return self

    def group(self, covered: list[str], *flavors: FlavorQuotas) -> "_Grouped":
        self._groups.append(([_res(c) for c in covered], list(flavors)))
        return self

    def _resource_groups(self) -> tuple[ResourceGroup, ...]:
        return tuple(ResourceGroup(covered_resources=tuple(c), flavors=tuple(f)) for c, f in self._groups)


class cq(_Grouped):
    def __init__(self, name: str, cohort: str | None = None, *, selector: LabelSelector | None = LabelSelector(),
                 at: Span | None = None, **extra) -> None:
        super().__init__()
        self.name, self.cohort, self.selector, self.at, self.extra = name, cohort, selector, at, extra

    def build(self) -> ClusterQueue:
        return ClusterQueue(name=self.name, cohort=self.cohort, namespace_selector=self.selector,
                            resource_groups=self._resource_groups(), span=self.at, **self.extra)


class cohort(_Grouped):
    def __init__(self, name: str, parent: str | None = None, *, at: Span | None = None, **extra) -> None:
        super().__init__()
        self.name, self.parent, self.at, self.extra = name, parent, at, extra

    def build(self) -> Cohort:
        return Cohort(name=self.name, parent=self.parent, resource_groups=self._resource_groups(),
                      span=self.at, **self.extra)


def fq(flavor: str, **quotas: float) -> FlavorQuotas:
    return FlavorQuotas(flavor=flavor, resources=tuple(
        ResourceQuota(resource=_res(r), nominal=qty(n)) for r, n in quotas.items()))


def flavor(name: str, **kw) -> ResourceFlavor:
    return ResourceFlavor(name=name, **kw)


def pod_set(name: str = "main", count: int = 1, *, min_count: int | None = None, **requests: float) -> PodSet:
    return PodSet(name=name, count=count, min_count=min_count,
                  requests={_res(r): qty(v) for r, v in requests.items()})


def workload(name: str, ns: str = "team-a", queue: str = "training", *pod_sets: PodSet, **kw) -> Workload:
    return Workload(namespace=ns, name=name, queue=queue, pod_sets=pod_sets or (pod_set(),), **kw)


def admitted(cluster_queue: str, *assignments: PodSetAssignment) -> Admission:
    return Admission(cluster_queue=cluster_queue, pod_sets=assignments)


def assign(name: str = "main", count: int = 1, **flavors: str) -> PodSetAssignment:
    return PodSetAssignment(name=name, count=count, flavors={_res(r): f for r, f in flavors.items()})


def model(*objects, **kw) -> Model:
    """A model from objects (builders are built), sorted into their kinds."""
    kinds = {ClusterQueue: "cluster_queues", Cohort: "cohorts", ResourceFlavor: "flavors",
             Topology: "topologies", LocalQueue: "local_queues", PriorityClass: "priority_classes",
             Namespace: "namespaces", Workload: "workloads", Rule: "rules", Node: "nodes",
             SchedulerConfig: "scheduler_configs"}
    out: dict[str, list] = {k: [] for k in kinds.values()}
    for obj in objects:
        if isinstance(obj, _Grouped):
            obj = obj.build()
        out[kinds[type(obj)]].append(obj)
    for k, v in kw.items():
        out.setdefault(k, []).extend(v)
    return Model(**{k: tuple(v) for k, v in out.items()})


def with_spans(obj, **items: Span):
    """A copy of `obj` with field spans (`resource_groups__0__flavors__1` -> dotted key)."""
    return obj.model_copy(update={"spans": Spans(items={k.replace("__", "."): v for k, v in items.items()})})


def base_objects() -> list:
    """A small clean cluster: one flavor, one queue, one namespace, one local queue, one workload."""
    return [
        flavor("h100"),
        cq("team-a", "research").flavor("h100", cpu=64, memory=256, gpu=8),
        Namespace(name="team-a", labels={"team": "a"}),
        LocalQueue(namespace="team-a", name="training", cluster_queue="team-a"),
        PriorityClass(name="research", value=100),
        workload("job", "team-a", "training", pod_set("main", 2, cpu=4, gpu=1), priority_class="research"),
    ]


__all__ = ["FairSharing", "GPU", "LabelSelector", "LocalQueue", "Namespace", "PriorityClass", "Topology",
           "admitted", "assign", "base_objects", "cohort", "cq", "flavor", "fq", "model", "pod_set",
           "qty", "span", "with_spans", "workload"]
