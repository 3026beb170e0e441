"""Pod specs: effective requests as Kubernetes computes them, selectors, affinity, tolerations, taints."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.manifests.codes import KAD157, KAD161, KAD166
from kadmit.manifests.fields import Fields
from kadmit.manifests.yamltree import Val
from kadmit.model import NodeSelectorTerm, Requirement, Taint, Toleration
from kadmit.podresources import ContainerResources, PodResources

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
NODE_SELECTOR_OPERATORS = SELECTOR_OPERATORS + ("Gt", "Lt")


@dataclass
class PodRequests:
    """Per-pod requests (milli-units) and, for each resource, the node that asked for it first;
    and the containers' own resources, which Kueue adjusts before it counts them
    (`kadmit.manifests.resources`)."""

    requests: dict[str, int] = field(default_factory=dict)
    nodes: dict[str, Val] = field(default_factory=dict)
    pod: PodResources | None = None


def _container_requests(f: Fields, c: Val, containers: list[ContainerResources], sidecar: bool = False,
                        pod: bool = False) -> tuple[dict[str, int], dict[str, Val]]:
    """A container's requests; a limit stands in for a missing request, as Kueue's adjustment
    does (`UseLimitsAsMissingRequestsInPod`). Its own requests and limits go to `containers`:
    of a Pod object (`pod`), requests with its limits copied into those missing, as the API
    server's `SetDefaults_Pod` stores them (never of a pod template), so that a LimitRange's
    `defaultRequest` fills in none of them."""
    resources = f.map(c, "resources")
    requests, nodes = f.resource_list(resources, "requests")
    limits, limit_nodes = f.resource_list(resources, "limits")
    stored = {**limits, **requests} if pod and limits else requests
    containers.append(ContainerResources(f.str(c, "name") or "", stored, limits, sidecar))
    out = dict(requests)
    for res, qty in limits.items():
        if res not in out:
            out[res] = qty
            nodes[res] = limit_nodes[res]
    return out, nodes


def _add(into: dict[str, int], other: dict[str, int]) -> None:
    for res, qty in other.items():
        into[res] = into.get(res, 0) + qty


def _pod_level_supported(resource: str) -> bool:
    """Kubernetes' IsSupportedPodLevelResource: what PodRequests takes from a pod's own requests."""
    return resource in ("cpu", "memory") or resource.startswith("hugepages-")


def pod_requests(f: Fields, spec: Val, *, pod: bool = False) -> PodRequests:
    """Kubernetes' PodRequests: containers summed; each init container's need (plus the sidecars
    started before it) taken by max; restartable (sidecar) init containers also added to the sum;
    pod-level `resources.requests` of cpu, memory and
    hugepages-* win where set (others are reported, KAD166, and not counted); `overhead` added last. Zeros are dropped.
    `pod`: the spec of a Pod object, which the API server has defaulted (`_container_requests`).

    Each resource's node is the request that decided it: the first container asking for it, or
    the init container whose need exceeds the containers' sum."""
    nodes: dict[str, Val] = {}
    reqs: dict[str, int] = {}
    containers: list[ContainerResources] = []
    init_containers: list[ContainerResources] = []
    for c in f.maps(spec, "containers"):
        need, need_nodes = _container_requests(f, c, containers, pod=pod)
        _add(reqs, need)
        for res, node in need_nodes.items():
            nodes.setdefault(res, node)
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    init_nodes: dict[str, Val] = {}
    for c in f.maps(spec, "initContainers"):
        sidecar = f.enum(c, "restartPolicy", ("Always",)) == "Always"
        need, need_nodes = _container_requests(f, c, init_containers, sidecar, pod)
        if sidecar:
            _add(reqs, need)
            _add(sidecars, need)
            for res, node in need_nodes.items():
                nodes.setdefault(res, node)
            step = dict(sidecars)
        else:
            step = dict(need)
            _add(step, sidecars)
        for res, qty in step.items():
            if qty > init_max.get(res, 0):
                init_max[res] = qty
                if res in need_nodes:
                    init_nodes[res] = need_nodes[res]
    for res, qty in init_max.items():
        if qty > reqs.get(res, 0):
            reqs[res] = qty
            if res in init_nodes:
                nodes[res] = init_nodes[res]
    pod_level, pod_nodes = f.resource_list(f.map(spec, "resources"), "requests")
    for res in [r for r in pod_level if not _pod_level_supported(r)]:
        f.diags.emit(KAD166, f"a pod-level request of `{res}`, which Kubernetes takes only from containers: "
                     "Kueue counts the containers' requests of it, and so does kadmit", f.span(pod_nodes[res]),
                     help="request it in the containers' `resources.requests`; at pod level only cpu, memory "
                          "and hugepages-* count (the API server refuses others in a Pod or a built-in job's "
                          "template)")
        del pod_level[res]
    for res, qty in pod_level.items():
        reqs[res] = qty
        nodes[res] = pod_nodes[res]
    overhead, overhead_nodes = f.resource_list(spec, "overhead")
    _add(reqs, overhead)
    for res, node in overhead_nodes.items():
        nodes.setdefault(res, node)
    reqs = {r: q for r, q in sorted(reqs.items()) if q}
    pod = PodResources(tuple(containers), tuple(init_containers), pod_level, overhead,
                       f.str(spec, "runtimeClassName") or None)
    return PodRequests(reqs, {r: nodes[r] for r in reqs if r in nodes}, pod)


def taints(f: Fields, m: Val | None, key: str) -> tuple[Taint, ...]:
    out = []
    for t in f.maps(m, key):
        out.append(Taint(key=f.str(t, "key", required=True, what="a taint"),
                         value=f.str(t, "value", default=""),
                         effect=f.enum(t, "effect", TAINT_EFFECTS, required=True),
                         span=f.span(t)))
    return tuple(out)


def tolerations(f: Fields, m: Val | None, key: str = "tolerations") -> tuple[Toleration, ...]:
    out = []
    for t in f.maps(m, key):
        operator = f.enum(t, "operator", ("Equal", "Exists"), "Equal")
        tkey = f.str(t, "key", default="")
        if not tkey and operator != "Exists":
            f.invalid(KAD157, "a toleration with an empty `key` must use operator `Exists`", t,
                      uses=(f.field(t, "key"), f.field(t, "operator")))
        out.append(Toleration(key=tkey, operator=operator, value=f.str(t, "value", default=""),
                              effect=f.enum(t, "effect", TAINT_EFFECTS, ""), span=f.span(t)))
    return tuple(out)


def requirements(f: Fields, m: Val | None, key: str, operators: tuple[str, ...]) -> tuple[Requirement, ...]:
    out = []
    for r in f.maps(m, key):
        operator = f.enum(r, "operator", operators, required=True)
        values = tuple(f.strs(r, "values"))
        uses = (f.field(r, "operator"), f.field(r, "values"))
        if operator in ("In", "NotIn") and not values:
            f.invalid(KAD157, f"operator `{operator}` needs at least one value", r, uses=uses)
        if operator in ("Exists", "DoesNotExist") and values:
            f.invalid(KAD157, f"operator `{operator}` takes no values", r, uses=uses)
        if operator in ("Gt", "Lt") and len(values) != 1:
            f.invalid(KAD157, f"operator `{operator}` takes exactly one value", r, uses=uses)
        out.append(Requirement(key=f.str(r, "key", required=True, what="a requirement"),
                               operator=operator, values=values, span=f.span(r)))
    return tuple(out)


def required_node_affinity(f: Fields, spec: Val) -> tuple[tuple[NodeSelectorTerm, ...], Val | None]:
    """The required node-affinity terms of a pod spec (ORed), and the node that holds them."""
    affinity = f.map(f.map(spec, "affinity"), "nodeAffinity")
    required = f.map(affinity, "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return (), None
    terms = []
    for term in f.maps(required, "nodeSelectorTerms"):
        if f.seq(term, "matchFields"):
            f.diags.emit(KAD161, "node affinity `matchFields` is not modelled; ignored",
                         f.span(f.field(term, "matchFields")))
        terms.append(NodeSelectorTerm(
            match_expressions=requirements(f, term, "matchExpressions", NODE_SELECTOR_OPERATORS),
            span=f.span(term)))
    return tuple(terms), required
