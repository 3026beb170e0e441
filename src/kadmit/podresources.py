"""A pod's resources as Kueue counts them: the containers' own requests and limits, and Kueue's
adjustment of a Workload's pod sets before it counts them (pkg/workload/resources.go
`AdjustResources`: the RuntimeClass's overhead, the namespace's LimitRange defaults, limits as
missing requests), then Kubernetes' `PodRequests` (k8s.io/component-helpers/resource).

The manifest front end keeps each pod set's `PodResources`; once every file is read,
`kadmit.manifests.resources` applies the cluster's LimitRanges and RuntimeClasses to them."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

from typing import Any, Literal, NamedTuple

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from kadmit.modelbase import Obj

Quantities = dict[str, int]  # resource name -> milli-units

# Why the scheduler's nominate finds a workload's resources inadmissible (after failed checks and the namespace)
INVALID_RESOURCES = "resources validation failed"  # scheduler.go errInvalidWLResources
OUTSIDE_LIMIT_RANGES = "resources didn't satisfy LimitRange constraints"  # errLimitRangeConstraintsUnsatisfiedResources


class ContainerResources(NamedTuple):
    """One container's `resources` (requests and limits as written), and whether it is a sidecar
    (an init container with `restartPolicy: Always`). A tuple, not a model: a large input has one
    per container, and reading them must cost next to nothing."""

    name: str = ""
    requests: Quantities = {}
    limits: Quantities = {}
    sidecar: bool = False
    # the format each quantity was written in (`requests.cpu` -> "BinarySI"), where not "DecimalSI":
    # the API server's messages print a quantity in it (quantity.go_format)
    formats: dict[str, str] = {}


class PodResources(NamedTuple):
    """What of a pod spec decides its requests: containers, init containers in order, pod-level
    `resources.requests`, `overhead`, the RuntimeClass named, and pod-level `resources.limits` (which
    only the API server's LimitRanger reads: a pod's limits for its Pod items).

    Like a span, it takes no part in the equality of the pod set that holds it (`==` is true
    between any two): a pod set is what it asks (`PodSet.requests`, adjusted once the cluster's
    LimitRanges and RuntimeClasses are known), however its containers split it. `same` compares."""

    containers: tuple[ContainerResources, ...] = ()
    init_containers: tuple[ContainerResources, ...] = ()
    pod_requests: Quantities = {}
    overhead: Quantities = {}
    runtime_class: str | None = None
    pod_limits: Quantities = {}
    formats: dict[str, str] = {}  # of the pod's own requests and limits, as ContainerResources.formats
    # what else of the spec Kueue's scheduling hash takes (ports, affinity, topologySpreadConstraints,
    # priority, resourceClaims): `manifests.specshape`'s digest, "" for none (`engine.admission.equivalence`)
    shape: str = ""

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, PodResources)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return 0

    def same(self, other: "PodResources | None") -> bool:
        """Equal field by field (what `==` does not compare)."""
        return other is not None and tuple(self) == tuple(other)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        # taken as it is (the front end builds it), dumped as a plain dict
        return core_schema.is_instance_schema(
            cls, serialization=core_schema.plain_serializer_function_ser_schema(_dump))


def _dump(pod: PodResources) -> dict:
    return {**pod._asdict(), "containers": [c._asdict() for c in pod.containers],
            "init_containers": [c._asdict() for c in pod.init_containers]}


class LimitRange(Obj):
    """A v1 LimitRange item of type Container or Pod, in a namespace. Kueue reads the Container
    items' `default` and `defaultRequest` (to fill containers in) and, when it nominates, every
    item's `min` and `max` (a workload outside them is inadmissible)."""

    namespace: str
    name: str
    type: Literal["Container", "Pod", "PersistentVolumeClaim"] = "Container"
    default: Quantities = {}
    default_request: Quantities = {}
    min: Quantities = {}
    max: Quantities = {}
    max_limit_request_ratio: Quantities = {}
    formats: dict[str, str] = {}  # `max.memory` -> "DecimalSI" etc., as ContainerResources.formats


class RuntimeClass(Obj):
    """A node.k8s.io/v1 RuntimeClass: the fixed overhead of its pods (`overhead.podFixed`)."""

    name: str
    overhead: Quantities = {}


def _first(*lists: Quantities) -> Quantities:
    """`MergeResourceListKeepFirst`: every resource of the lists, the first list that has it wins."""
    out: Quantities = {}
    for lst in lists:
        for r, q in lst.items():
            out.setdefault(r, q)
    return out


def container_defaults(ranges: list[LimitRange]) -> tuple[Quantities, Quantities]:
    """`limitrange.Summarize` of a namespace's LimitRanges (in name order, as the API server lists
    them): the first `default` and `defaultRequest` of each resource among Container items."""
    default: Quantities = {}
    default_request: Quantities = {}
    for lr in sorted(ranges, key=lambda r: r.name):
        if lr.type == "Container":
            default = _first(default, lr.default)
            default_request = _first(default_request, lr.default_request)
    return default, default_request


def adjust(pod: PodResources, ranges: list[LimitRange], classes: dict[str, RuntimeClass]) -> PodResources:
    """`AdjustResources` on one pod: the RuntimeClass's overhead when the pod names one and has no
    overhead of its own (a RuntimeClass not in the input adds none, as Kueue logs and goes on);
    each container's limits and requests filled in from the namespace's Container defaults; a
    limit standing in for a missing request."""
    overhead = pod.overhead
    if pod.runtime_class and not overhead and pod.runtime_class in classes:
        overhead = classes[pod.runtime_class].overhead
    default, default_request = container_defaults(ranges)

    def fill(c: ContainerResources) -> ContainerResources:
        limits = _first(c.limits, default)
        return c._replace(limits=limits, requests=_first(c.requests, default_request, limits))

    return pod._replace(overhead=overhead, containers=tuple(map(fill, pod.containers)),
                        init_containers=tuple(map(fill, pod.init_containers)))


def first_formats(containers, what: str) -> dict[str, str]:
    """resource -> the format (`quantity.go_format`) of the first of `containers` holding a non-zero amount
    of it in `what` ("requests" or "limits"): Go's Quantity.Add keeps the format of the first non-zero
    addend, so a sum of the containers' is printed in it (an init container's need winning the max too)."""
    out: dict[str, str] = {}
    for c in containers:
        for r, q in getattr(c, what).items():
            if q and r not in out:
                out[r] = c.formats.get(f"{what}.{r}", "DecimalSI")
    return out


def containers_total(pod: PodResources, what: str = "requests") -> Quantities:
    """The containers' `what` ("requests" or "limits") as Kubernetes sums them for a pod: the containers
    summed; each init container's plus the sidecars started before it taken by max, sidecars also added
    to the sum. Zeros kept, as Kubernetes keeps their keys."""
    total: Quantities = {}
    for c in pod.containers:
        for r, q in getattr(c, what).items():
            total[r] = total.get(r, 0) + q
    sidecars: Quantities = {}
    init_max: Quantities = {}
    for c in pod.init_containers:
        own = getattr(c, what)
        if c.sidecar:
            for r, q in own.items():
                total[r] = total.get(r, 0) + q
                sidecars[r] = sidecars.get(r, 0) + q
            step = dict(sidecars)
        else:
            step = dict(own)
            for r, q in sidecars.items():
                step[r] = step.get(r, 0) + q
        for r, q in step.items():
            init_max[r] = max(init_max.get(r, 0), q)
    for r, q in init_max.items():
        total[r] = max(total.get(r, 0), q)
    return total


def pod_requests(pod: PodResources) -> Quantities:
    """Kubernetes' `PodRequests` (no options): the containers' (`containers_total`); pod-level requests
    in place of the containers' where set; `overhead` added."""
    reqs = containers_total(pod)
    reqs.update(pod.pod_requests)
    for r, q in pod.overhead.items():
        reqs[r] = reqs.get(r, 0) + q
    return dict(sorted(reqs.items()))


# --- what Kueue checks before it assigns flavors (scheduler `nominate`) ----------------------------

REQUESTS_ABOVE_LIMITS = "requests must not exceed its limits"
ABOVE_MAX = "requests must not be above the limitRange max"
BELOW_MIN = "requests must not be below the limitRange min"


def _greater(a: Quantities, b: Quantities) -> list[str]:
    """`Requests.GreaterKeys`: the resources of `a` above `b` where `b` has them (sorted: Kueue's
    order is Go's map order)."""
    return sorted(r for r, q in a.items() if r in b and q > b[r]) if a and b else []


def _invalid(path: str, names: list[str], message: str) -> str:
    return f"{path}: Invalid value: [{','.join(f'{chr(34)}{n}{chr(34)}' for n in names)}]: {message}"


def requests_above_limits(pod: PodResources, path: str) -> list[str]:
    """`workload.ValidateResources` of one adjusted pod: a container asking for more than its limit."""
    out = []
    for field, cs in (("initContainers", pod.init_containers), ("containers", pod.containers)):
        for i, c in enumerate(cs):
            if names := _greater(c.requests, c.limits):
                out.append(_invalid(f"{path}.{field}[{i}]", names, REQUESTS_ABOVE_LIMITS))
    return out


def limit_range_violations(pod: PodResources, path: str, ranges: list[LimitRange]) -> list[str]:
    """`workload.ValidateLimitRange` of one adjusted pod: each container's requests and limits
    within the namespace's Container `min` and `max`, the pod's requests within its Pod ones
    (`limitrange.Summarize`: the lowest max and the highest min over the LimitRanges)."""
    def summary(kind: str) -> tuple[Quantities, Quantities, bool]:
        lo: Quantities = {}
        hi: Quantities = {}
        found = False
        for lr in ranges:
            if lr.type == kind:
                found = True
                for r, q in lr.max.items():
                    hi[r] = min(hi.get(r, q), q)
                for r, q in lr.min.items():
                    lo[r] = max(lo.get(r, q), q)
        return lo, hi, found

    out = []
    lo, hi, found = summary("Container")
    if found:
        for field, cs in (("initContainers", pod.init_containers), ("containers", pod.containers)):
            for i, c in enumerate(cs):
                c_min = {r: min(c.requests.get(r, q), c.limits.get(r, q)) for r, q in {**c.limits, **c.requests}.items()}
                c_max = {r: max(c.requests.get(r, q), c.limits.get(r, q)) for r, q in {**c.limits, **c.requests}.items()}
                if names := _greater(c_max, hi):
                    out.append(_invalid(f"{path}.{field}[{i}]", names, ABOVE_MAX))
                if names := _greater(lo, c_min):
                    out.append(_invalid(f"{path}.{field}[{i}]", names, BELOW_MIN))
    lo, hi, found = summary("Pod")
    if found:
        total = pod_requests(pod)
        if names := _greater(total, hi):
            out.append(_invalid(path, names, ABOVE_MAX))
        if names := _greater(lo, total):
            out.append(_invalid(path, names, BELOW_MIN))
    return out


def aggregate(errors: list[str]) -> str:
    """`field.ErrorList.ToAggregate().Error()`: one error as it is, several in brackets."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
