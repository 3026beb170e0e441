"""Pod specs: effective requests as Kubernetes computes them, selectors, affinity, tolerations, taints."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kadmit.manifests.codes import KAD157, KAD166
from kadmit.manifests.fields import Fields
from kadmit.manifests.jobs.refusals import dns_subdomain_errors, go_quote, qualified_name_errors
from kadmit.manifests.podvalues import (container_requirements, hugepages_indivisible, nothing_to_refuse, overcommit_allowed,
                                        quantity_values, written_quantity)
from kadmit.manifests.specshape import spec_shape
from kadmit.manifests.yamltree import INT, Val
from kadmit.model import NodeSelectorTerm, Requirement, Taint, Toleration
from kadmit.modelscheduling import NODE_OPERATORS, label_key_errors, label_value_errors
from kadmit.podresources import ContainerResources, PodResources, containers_total, first_formats
from kadmit.quantity import go_format

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


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
    formats = written_formats(nodes, "requests", limit_nodes, "limits")
    if stored is not requests:  # a request copied from its limit keeps the limit's format
        formats.update({f"requests.{r}": formats[f"limits.{r}"] for r in limits
                        if r not in requests and f"limits.{r}" in formats})
    containers.append(ContainerResources(f.str(c, "name") or "", stored, limits, sidecar, formats))
    out = dict(requests)
    for res, qty in limits.items():
        if res not in out:
            out[res] = qty
            nodes[res] = limit_nodes[res]
    return out, nodes


def written_formats(*lists) -> dict[str, str]:
    """`key.resource` -> the format each quantity of the resource lists (node maps, each followed by
    its key) is written in, where not DecimalSI (`quantity.go_format`): `2Gi` BinarySI, `1e3`
    DecimalExponent."""
    out: dict[str, str] = {}
    for nodes, key in zip(lists[::2], lists[1::2]):
        for r, n in nodes.items():
            if isinstance(n.v, str) and (fmt := go_format(n.v)) != "DecimalSI":
                out[f"{key}.{r}"] = fmt
    return out


def _add(into: dict[str, int], other: dict[str, int]) -> None:
    for res, qty in other.items():
        into[res] = into.get(res, 0) + qty


def _pod_level_supported(resource: str) -> bool:
    """Kubernetes' IsSupportedPodLevelResource: what PodRequests takes from a pod's own requests."""
    return resource in ("cpu", "memory") or resource.startswith("hugepages-")


# Kubernetes' SupportedPodLevelResources, as validatePodResourceName lists them
POD_LEVEL_SUPPORTED = '"cpu", "hugepages-", "memory"'


def _aggregate(pod: PodResources, limits_too: bool, key: str = "requests") -> dict[str, int]:
    """Kubernetes' AggregateContainerRequests of the spec as stored (AggregateContainerLimits with
    `key` "limits"), of its containers as `pod_requests` read them (`pod`, read once: `containers_total`;
    `limits_too`: a Pod's containers, whose missing requests the API server defaulted to their limits)."""
    if limits_too and key == "requests":
        def stored(cs: tuple[ContainerResources, ...]) -> tuple[ContainerResources, ...]:
            return tuple(c._replace(requests={**c.limits, **c.requests}) if c.limits else c for c in cs)
        pod = pod._replace(containers=stored(pod.containers), init_containers=stored(pod.init_containers))
    return containers_total(pod, key)




def _api_refusals(f: Fields, spec: Val, api: str, aggregate: dict[str, int], pod: bool,
                  read: PodResources, refusals: list[str] | None = None) -> None:
    """What the API server's validatePodResources refuses in a pod spec's own `resources` (a Pod, or a
    built-in job kind's template; `api` the spec's field path): a resource other than cpu, memory
    and hugepages-*, a request above its limit (of a resource not overcommitable, hugepages or an
    extended one: other than its limit, or without one), hugepages without cpu or memory, a request
    below the containers' aggregate requests, a hugepages limit below their aggregate limits, a
    container's limit above it; and a hugepages quantity that is no multiple of its page size, there
    or in a container, and a container's extended resource that is not whole (`podvalues.quantity_values`). A Pod's (`pod`) requests are checked as the API server defaulted them
    (`_default_pod_level`). Each an error (KAD157) in the API server's words, all of them as it lists
    them: the object is refused. With `refusals` (a custom resource's template, which the API server stores
    unvalidated: `template_refusals`) the words go there instead (KAD199). Quantities are printed as
    it prints them (`written_quantity`): an aggregate in the format of its first non-zero addend in
    `read`'s containers (then init containers), which are the spec's as `pod_requests` read them."""
    # quantities already reported bad (KAD158, read as 0) are not checked again
    bad = {id(e.at) for e in (f.collected or []) if getattr(e, "at", None) is not None}
    quantity_values(f, spec, api, refusals)
    container_requirements(f, spec, api, refusals, pod)
    resources = f.map(spec, "resources")
    if resources is None:
        return

    def refuse(message: str, at: Val, *reading: Val | None, **kw) -> None:
        if refusals is not None:
            refusals.append(message)
        elif not any(n is not None and id(n) in bad for n in reading):
            f.invalid(KAD157, f"the API server refuses the object: `{message}`", at, uses=(), **kw)

    containers = (*read.containers, *read.init_containers)
    sums = {"requests": first_formats(containers, "requests"), "limits": first_formats(containers, "limits")}

    def q(qty: int, res: str, node: Val | None = None, key: str = "requests") -> str:  # a sum's without `node`
        return written_quantity(qty, node, sums[key].get(res, "DecimalSI"))

    path = f"{api}.resources"
    requests, req_nodes = f.resource_list(resources, "requests")
    limits, lim_nodes = f.resource_list(resources, "limits")
    for key, values, nodes in (("limits", limits, lim_nodes), ("requests", requests, req_nodes)):
        for res in values:
            if not _pod_level_supported(res):
                refuse(f'{path}.{key}[{res}]: Unsupported value: "{res}": supported values: {POD_LEVEL_SUPPORTED}',
                       nodes[res], help="request it in the containers' `resources`; at pod level only cpu, memory "
                                        "and hugepages-* may be set")
    if pod:  # validated after SetDefaults_Pod: a defaulted request is reported at the limit it came from
        written = set(requests)
        _default_pod_level(f, spec, aggregate, requests, req_nodes)
        for res in sorted(set(requests) - written):
            req_nodes[res] = lim_nodes.get(res, resources)
            if res.startswith("hugepages-") and hugepages_indivisible(res, requests[res]):
                refuse(f'{path}.requests[{res}]: Invalid value: "{q(requests[res], res, req_nodes[res])}": '
                       f"{q(requests[res], res, req_nodes[res])} "
                       f"is not positive integer multiple of {res}", req_nodes[res], lim_nodes.get(res))
    for res, qty in requests.items():
        node = req_nodes[res]
        if res in limits and qty != limits[res] and not overcommit_allowed(res):
            refuse(f'{path}.requests: Invalid value: "{q(qty, res, node)}": must be equal to {res} limit of '
                   f"{q(limits[res], res, lim_nodes[res])}", node, node, lim_nodes[res])
        elif res in limits and qty > limits[res]:
            refuse(f'{path}.requests: Invalid value: "{q(qty, res, node)}": must be less than or equal to {res} '
                   f"limit of "
                   f"{q(limits[res], res, lim_nodes[res])}", node, node, lim_nodes[res])
        elif res not in limits and not overcommit_allowed(res):
            refuse(f"{path}.limits: Required value: Limit must be set for non overcommitable resources", node, node,
                   help=f"set `limits: {{{res}: {q(qty, res, node)}}}` beside the request")
    if any(r.startswith("hugepages-") for r in (*requests, *limits)) and not {"cpu", "memory"} & {*requests, *limits}:
        refuse(f"{path}: Forbidden: HugePages require cpu or memory", resources,
               help="set a pod-level cpu or memory request or limit beside the hugepages")
    for res, qty in requests.items():
        if res in aggregate and aggregate[res] > qty:
            refuse(f'{path}.requests[{res}]: Invalid value: "{q(qty, res, req_nodes[res])}": must be greater than or '
                   f"equal to aggregate container requests of {q(aggregate[res], res)}", req_nodes[res], req_nodes[res],
                   help="a pod's own request covers its containers' requests: raise it or lower theirs")
    container_limits = _aggregate(read, False, "limits")
    for res, qty in limits.items():
        if res.startswith("hugepages-") and container_limits.get(res, 0) > qty:
            refuse(f'{path}.limits[{res}]: Invalid value: "{q(qty, res, lim_nodes[res])}": must be greater than or '
                   f"equal to aggregate container limits of {q(container_limits[res], res, key='limits')}",
                   lim_nodes[res], lim_nodes[res])
    for i, c in enumerate(f.maps(spec, "containers")):
        own, own_nodes = f.resource_list(f.map(c, "resources"), "limits")
        for res, qty in own.items():
            if res in limits and qty > limits[res]:
                refuse(f'{path}.containers[{i}][{res}].limits: Invalid value: "{q(qty, res, own_nodes[res])}": must be '
                       f"less than or equal to pod limits of {q(limits[res], res, lim_nodes[res])}", own_nodes[res],
                       own_nodes[res], lim_nodes[res])


def _default_pod_level(f: Fields, spec: Val, aggregate: dict[str, int], requests: dict[str, int],
                       nodes: dict[str, Val]) -> None:
    """The API server's defaulting of a Pod's own requests (SetDefaults_Pod, defaultPodRequests), when
    it sets pod-level limits: cpu and memory its containers request default to their aggregate, then
    each supported resource with a limit and still no request to that limit."""
    limits, lim_nodes = f.resource_list(f.map(spec, "resources"), "limits")
    if not limits:
        return
    for res in ("cpu", "memory"):
        if res in aggregate and res not in requests:
            requests[res] = aggregate[res]
    for res, qty in limits.items():
        if res not in requests and _pod_level_supported(res):
            requests[res] = qty
            nodes[res] = lim_nodes[res]


def pod_requests(f: Fields, spec: Val, *, pod: bool = False, api: str | None = None) -> PodRequests:
    """Kubernetes' PodRequests: containers summed; each init container's need (plus the sidecars
    started before it) taken by max; restartable (sidecar) init containers also added to the sum;
    pod-level `resources.requests` of cpu, memory and
    hugepages-* win where set (others are reported, KAD166, and not counted); `overhead` added last. Zeros are dropped.
    `pod`: the spec of a Pod object, which the API server has defaulted (`_container_requests`,
    `_default_pod_level`). `api`: the spec's field path when the API server validates it (a Pod's,
    a built-in job kind's template): its pod-level resources are checked as it checks them (where it does not,
    a custom resource's template, `template_refusals` says what it refuses of the objects made of it).

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
            if res not in init_max or qty > init_max[res]:
                init_max[res] = qty
                if res in need_nodes:
                    init_nodes[res] = need_nodes[res]
    for res, qty in init_max.items():
        if res not in reqs or qty > reqs[res]:
            reqs[res] = qty
            if res in init_nodes:
                nodes[res] = init_nodes[res]
    pod_level, pod_nodes = f.resource_list(f.map(spec, "resources"), "requests")
    read = PodResources(tuple(containers), tuple(init_containers))
    if api is not None and not nothing_to_refuse(f, spec, read):
        _api_refusals(f, spec, api, _aggregate(read, pod), pod, read)
    if pod:
        _default_pod_level(f, spec, reqs, pod_level, pod_nodes)
    for res in [r for r in pod_level if not _pod_level_supported(r) and api is None]:
        f.diags.emit(KAD166, f"a pod-level request of `{res}`, which Kubernetes takes only from containers: "
                     "Kueue counts the containers' requests of it, and so does kadmit", f.span(pod_nodes[res]),
                     help="request it in the containers' `resources.requests`; at pod level only cpu, memory "
                          "and hugepages-* count (the API server refuses others in a Pod or a built-in job's "
                          "template, KAD157)")
        del pod_level[res]
    for res, qty in pod_level.items():
        reqs[res] = qty
        if res in pod_nodes:  # else defaulted from the containers' aggregate: theirs stays
            nodes[res] = pod_nodes[res]
    overhead, overhead_nodes = f.resource_list(spec, "overhead")
    _add(reqs, overhead)
    for res, node in overhead_nodes.items():
        nodes.setdefault(res, node)
    # a zero request stays (Kubernetes' PodRequests keeps its key): Kueue assigns it a flavor of a
    # resource group that covers it, whose node labels must then match the pod (flavorassigner)
    reqs = dict(sorted(reqs.items()))
    own_limits, own_limit_nodes = f.resource_list(f.map(spec, "resources"), "limits")
    pod = PodResources(read.containers, read.init_containers, pod_level, overhead,
                       f.str(spec, "runtimeClassName") or None, own_limits,
                       written_formats(pod_nodes, "requests", own_limit_nodes, "limits"),
                       spec_shape(f, spec, pod=pod))  # the rest of what the scheduling hash takes
    return PodRequests(reqs, {r: nodes[r] for r in reqs if r in nodes}, pod)


def taints(f: Fields, m: Val | None, key: str) -> tuple[Taint, ...]:
    out = []
    for t in f.maps(m, key):
        out.append(Taint(key=f.str(t, "key", required=True, what="a taint"),
                         value=f.str(t, "value", default=""),
                         effect=f.enum(t, "effect", TAINT_EFFECTS, required=True),
                         span=f.span(t)))
    return tuple(out)


def tolerations(f: Fields, m: Val | None, key: str = "tolerations", *,
                validated: bool = True) -> tuple[Toleration, ...]:
    """The tolerations at `key` of `m`. Where they are `validated` (a Pod's, a built-in job kind's template,
    a ResourceFlavor's: the API server's ValidateTolerations, Kueue's webhook's copy of it) an empty `key`
    with operator Equal is refused; elsewhere (a custom resource's embedded template: an AppWrapper
    component's, a Workload's) it is kept as Kubernetes' ToleratesTaint reads it: any taint with an empty
    value (the API server refuses the objects made of the template: `toleration_refusals`)."""
    out = []
    for i, t in enumerate(f.maps(m, key)):
        operator = f.enum(t, "operator", ("Equal", "Exists"), "Equal")
        tkey = f.str(t, "key", default="")
        if not tkey and operator != "Exists" and validated:
            f.invalid(KAD157, "a toleration with an empty `key` must use operator `Exists`", t,
                      uses=(f.field(t, "key"), f.field(t, "operator")))
        out.append(Toleration(key=tkey, operator=operator, value=f.str(t, "value", default=""),
                              effect=f.enum(t, "effect", TAINT_EFFECTS, ""), span=f.span(t)))
    return tuple(out)


def toleration_refusals(f: Fields, spec: Val | None, path: str) -> list[str]:
    """The API server's words refusing the tolerations of a pod spec at field path `path` (ValidateTolerations):
    an empty `key` with an operator other than `Exists` (the operator as written, `""` when left out)."""
    out = []
    for i, t in enumerate(f.maps(spec, "tolerations")):
        key, written = f.field(t, "key"), f.field(t, "operator")
        operator = written.v if written is not None and isinstance(written.v, str) else ""
        if not (key.v if key is not None and isinstance(key.v, str) else "") and operator != "Exists":
            out.append(f'{path}.tolerations[{i}].operator: Invalid value: "{operator}": operator must be Exists '
                       'when `key` is empty, which means "match all values and all keys"')
    return out


# the built-in objects the API server validates a pod template in (at `spec.template.spec`, not defaulted as a
# Pod is), which a custom resource's controller makes of its template: a JobSet's Jobs, a LeaderWorkerSet's
# StatefulSets (`jobs.common.MADE`); the Pods those make come after
TEMPLATE_HOLDERS = ("Job", "StatefulSet", "Deployment")


# how the object a custom resource's controller makes of a pod template takes the template's `restartPolicy`
# (`template_refusals`): as the template has it, an unset one filled by the made object's maker's webhook (a
# JobSet's Jobs: the JobSet webhook's OnFailure; a LeaderWorkerSet's StatefulSets) ...
KEPT = "kept"
# ... as written, an unset one left for the API server to default (SetDefaults_PodSpec: Always): an AppWrapper's
# components (its controller creates them as written), a RayJob's submitter Job (KubeRay's GetSubmitterTemplate
# copies the `submitterPodTemplate`, createNewK8sJob fills no restartPolicy); None where the controller sets it
# itself (an MPIJob's launcher Job: mpi-operator's setRestartPolicy, from the replica spec)
WRITTEN = "written"


def restart_refusals(f: Fields, spec: Val | None, path: str, kind: str, job_spec: Val | None,
                      restart: str) -> list[str]:
    """What the made object's own validation refuses of its template's `restartPolicy`, after ValidatePodSpec's
    (ValidateJobSpec: a Job's pods end, OnFailure or Never, only Never with a `podFailurePolicy`; a StatefulSet's
    or a Deployment's, Always, the default). Only a written Always (a Job's; or an unset one the API server makes
    Always, `restart` WRITTEN) or Never/OnFailure (the others'): other values ValidatePodSpec refuses itself.
    `job_spec`: a JobSet's Job's own spec, whose unset restartPolicy the JobSet webhook makes OnFailure."""
    written = f.field(spec, "restartPolicy")
    policy = written.v if written is not None and isinstance(written.v, str) else ""
    if kind == "Job" and (policy == "Always" or (not policy and restart == WRITTEN)):
        return [f'{path}.restartPolicy: Required value: valid values: "OnFailure", "Never"']  # Always, as unset
    if kind == "Job" and job_spec is not None and (policy or "OnFailure") == "OnFailure" \
            and f.field(job_spec, "podFailurePolicy") is not None:
        return [f'{path}.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
                "podFailurePolicy is specified"]
    if kind != "Job" and policy in ("OnFailure", "Never"):
        return [f'{path}.restartPolicy: Unsupported value: "{policy}": supported values: "Always"']
    return []


def template_refusals(f: Fields, spec: Val | None, made: str, read: PodResources,
                      restart: str | None = KEPT, job_spec: Val | None = None,
                      job_words: tuple[str, ...] = ()) -> tuple[str, tuple[str, ...]]:
    """What the API server refuses of the objects made of a custom resource's pod template `spec`, which it
    stored without validating it (KAD199): the `made` object's (a Job, a StatefulSet: its template, as written,
    at `spec.template.spec`), then a Pod's made of it (at `spec`, as SetDefaults_Pod defaults it); the first
    refused, and its words in ValidatePodSpec's order: the containers', the init containers' and the pod's own
    resources (`_api_refusals`, where there is anything to check), the node affinity's `matchFields`
    (`node_field_refusals`) and pod affinity (`pod_affinity_refusals`), then the tolerations; the made object's `restartPolicy` last, where it keeps the
    template's (`restart`: how, KEPT or WRITTEN; None for an MPIJob's launcher, which takes its replica spec's;
    `job_spec`: `restart_refusals`). `job_words`: what the made Job's own spec is refused for, before its
    template's words (a JobSet's Job: `jobspec.job_spec_refusals`).
    ("", ()) where neither is
    refused. `read`: the template's containers and init containers as `pod_requests` read them (`PodRequests.pod`),
    whose formats an aggregate is printed in."""
    chain = ((made, "spec.template.spec", False),) if made in TEMPLATE_HOLDERS else ()
    checked = not nothing_to_refuse(f, spec, read)
    for kind, path, pod in (*chain, ("Pod", "spec", True)):
        words: list[str] = list(job_words) if kind == "Job" else []
        if checked:
            _api_refusals(f, spec, path, _aggregate(read, pod), pod, read, words)
        words += node_field_refusals(f, spec, path) + pod_affinity_refusals(f, spec, path)
        words += toleration_refusals(f, spec, path)
        if kind != "Pod" and restart is not None:
            words += restart_refusals(f, spec, path, kind, job_spec, restart)
        if words:
            return kind, tuple(words)
    return "", ()


def requirements(f: Fields, m: Val | None, key: str, operators: tuple[str, ...], *, node: bool = False,
                 stored: bool = False) -> tuple[Requirement, ...]:
    """The requirements at `key` of `m`, a label selector's expressions, each checked as the API server checks
    them (KAD157), or (`node`) a node selector term's expressions or fields, whose values are checked apart,
    where the API server validates them (`node_field_refusals`): a Workload's or a custom resource's template
    keeps what Kueue then reads as it is (validate: KAD246); `stored`: a Workload's, whose `values: []` Kueue reads
    as written (`Requirement.empty_list`)."""
    out = []
    for r in f.maps(m, key):
        # a node requirement's operator and key must be written; any text is stored (Kueue's parse refuses an
        # operator outside the six: Unsupported value), "" too (refused or parsed as any key)
        for required in ("operator", "key") if node else ():
            f.field(r, required, required=True, what="a requirement")
        operator = f.str(r, "operator", default="") if node else f.enum(r, "operator", operators, required=True)
        values, written = tuple(f.strs(r, "values")), f.field(r, "values")
        uses = (f.field(r, "operator"), written)
        if not node:
            if operator in ("In", "NotIn") and not values:
                f.invalid(KAD157, f"operator `{operator}` needs at least one value", r, uses=uses)
            if operator in ("Exists", "DoesNotExist") and values:
                f.invalid(KAD157, f"operator `{operator}` takes no values", r, uses=uses)
            if operator in ("Gt", "Lt") and len(values) != 1:
                f.invalid(KAD157, f"operator `{operator}` takes exactly one value", r, uses=uses)
        key = f.str(r, "key", default="") if node else f.str(r, "key", required=True, what="a requirement")
        out.append(Requirement(key=key, operator=operator, values=values, span=f.span(r), empty_list=stored and
                               written is not None and written.v == []))
    return tuple(out)


def required_node_affinity(f: Fields, spec: Val,
                           stored: bool = False) -> tuple[tuple[NodeSelectorTerm, ...], Val | None]:
    """The required node-affinity terms of a pod spec (ORed), and the node holding them (`stored`: `requirements`)."""
    affinity = f.map(f.map(spec, "affinity"), "nodeAffinity")
    required = f.map(affinity, "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return (), None
    terms = []
    for term in f.maps(required, "nodeSelectorTerms"):
        terms.append(NodeSelectorTerm(
            match_expressions=requirements(f, term, "matchExpressions", NODE_OPERATORS, node=True, stored=stored),
            match_fields=requirements(f, term, "matchFields", NODE_OPERATORS, node=True, stored=stored),
            span=f.span(term)))
    return tuple(terms), required


def node_field_refusals(f: Fields, spec: Val | None, path: str, refuse: bool = False) -> list[str]:
    """The API server's words refusing the node affinity of a pod spec at field path `path` (validateNodeAffinity:
    the required terms, then each preferred term's weight (ValidatePreferredSchedulingTerms: outside 1-100) and
    preference; in each term its `matchExpressions` as ValidateNodeSelectorRequirement checks their operator and
    values (In/NotIn with none, Exists/DoesNotExist with some, Gt/Lt with other than one; label keys and values
    are checked elsewhere or not), then its `matchFields` as ValidateNodeFieldSelectorRequirement: In or NotIn with
    other than exactly one value, any other operator, a key other than `metadata.name`, a value that is no node
    name (a DNS-1123 subdomain). With `refuse` (a Pod's, a built-in job kind's template) each is also an error
    (KAD157) at its requirement, or weight."""
    affinity = f.map(f.map(spec, "affinity"), "nodeAffinity")
    if affinity is None:
        return []
    at = f"{path}.affinity.nodeAffinity"
    terms = [(f"{at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]", t, None) for i, t in
             enumerate(f.maps(f.map(affinity, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms"))]
    terms += [(f"{at}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference", f.map(p, "preference"),
               f.field(p, "weight")) for i, p in enumerate(f.maps(affinity, "preferredDuringSchedulingIgnoredDuringExecution"))]
    out = []
    for term_path, term, weight in terms:
        if weight is not None and weight.kind == INT and not 1 <= weight.v <= 100:
            word = f"{term_path.removesuffix('.preference')}.weight: Invalid value: {weight.v}: must be in the range 1-100"
            if refuse:
                f.invalid(KAD157, f"the API server refuses the object: `{word}`", weight, uses=(weight,))
            out.append(word)
        for j, r in enumerate(f.maps(term, "matchExpressions")):
            words = _expression_refusals(f, r, f"{term_path}.matchExpressions[{j}]")
            if refuse:
                for w in words:
                    f.invalid(KAD157, f"the API server refuses the object: `{w}`", r,
                              uses=(f.field(r, "operator"), f.field(r, "values")))
            out += words
        for j, r in enumerate(f.maps(term, "matchFields")):
            req, words = f"{term_path}.matchFields[{j}]", []
            op, key = f.field(r, "operator"), f.field(r, "key")
            operator = op.v if op is not None and isinstance(op.v, str) else ""
            written = f.field(r, "values")
            values = [v.v for v in written.v] if written is not None and isinstance(written.v, list) else []
            if operator in ("In", "NotIn"):
                if len(values) != 1:
                    words.append(f"{req}.values: Required value: must be only one value when `operator` is 'In' "
                                 "or 'NotIn' for node field selector")
            else:
                words.append(f"{req}.operator: Invalid value: {go_quote(operator)}: not a valid selector operator")
            name = key.v if key is not None and isinstance(key.v, str) else ""
            if name != "metadata.name":
                words.append(f"{req}.key: Invalid value: {go_quote(name)}: not a valid field selector key")
            else:
                words += [f"{req}.values[{k}]: Invalid value: {go_quote(v)}: {msg}"
                          for k, v in enumerate(values) if isinstance(v, str) for msg in dns_subdomain_errors(v)]
            if refuse:
                for w in words:
                    f.invalid(KAD157, f"the API server refuses the object: `{w}`", r, uses=(op, key))
            out += words
    return out


def label_key_errors(key: str) -> list[str]:
    """ValidateLabelName's words on a label key (Kubernetes v1.35: IsQualifiedName's, lengths in bytes and a key of
    several `/` "a valid label key"; checked on the real server, tests/kube/test_preferred_weight.py)."""
    return [re.sub(r"(must be no more than \d+) characters$", r"\1 bytes", m).replace(
        "a qualified name ", "a valid label key ", 1) for m in qualified_name_errors(key)]


def pod_affinity_refusals(f: Fields, spec: Val | None, path: str, refuse: bool = False) -> list[str]:
    """The API server's words refusing the pod affinity and anti-affinity of a pod spec at field path `path`
    (validateAffinity, after the node affinity's: validatePodAffinity of each, its required terms, then its preferred
    terms, each a weight outside 1-100 first): a term's `topologyKey` empty ("can not be empty") or no qualified
    name (ValidateLabelName: `label_key_errors`). A term's label selector, namespaces and matchLabelKeys, which
    the server checks before its topologyKey, are not. With `refuse` (a Pod's, a built-in job kind's template)
    each is also an error (KAD157) at its term."""
    affinity = f.map(spec, "affinity")
    out: list[str] = []
    if affinity is None:
        return out
    for kind in ("podAffinity", "podAntiAffinity"):
        block, at = f.map(affinity, kind), f"{path}.affinity.{kind}"
        terms = [(f"{at}.requiredDuringSchedulingIgnoredDuringExecution[{i}]", t, None)
                 for i, t in enumerate(f.maps(block, "requiredDuringSchedulingIgnoredDuringExecution"))]
        terms += [(f"{at}.preferredDuringSchedulingIgnoredDuringExecution[{i}]", f.map(w, "podAffinityTerm"), w)
                  for i, w in enumerate(f.maps(block, "preferredDuringSchedulingIgnoredDuringExecution"))]
        for term_path, term, weighted in terms:
            words, weight = [], f.field(weighted, "weight") if weighted is not None else None
            if weight is not None and weight.kind == INT and not 1 <= weight.v <= 100:
                words.append(f"{term_path}.weight: Invalid value: {weight.v}: must be in the range 1-100")
            if weighted is not None:
                term_path += ".podAffinityTerm"
            key = f.field(term, "topologyKey")
            name = key.v if key is not None and isinstance(key.v, str) else ""
            if not name:
                words.append(f"{term_path}.topologyKey: Required value: can not be empty")
            words += [f"{term_path}.topologyKey: Invalid value: {go_quote(name)}: {msg}" for msg in label_key_errors(name)]
            if refuse:
                for w in words:
                    f.invalid(KAD157, f"the API server refuses the object: `{w}`", weighted or term,
                              uses=(key, weight))
            out += words
    return out


def _expression_refusals(f: Fields, r: Val, req: str) -> list[str]:
    """ValidateNodeSelectorRequirement's words on one `matchExpressions` requirement: its operator and values (an
    operator outside the six is "not a valid selector operator"), its key a label key, each value a label
    value (the same words as Kueue's parse, `modelscheduling.label_key_errors`, one error each)."""
    op, key, written = f.field(r, "operator"), f.field(r, "key"), f.field(r, "values")
    operator = op.v if op is not None and isinstance(op.v, str) else ""
    values = [v.v for v in written.v if isinstance(v.v, str)] if written is not None and isinstance(written.v, list) \
        else []
    n = len(written.v) if written is not None and isinstance(written.v, list) else 0
    out = []
    if operator in ("In", "NotIn") and n == 0:
        out.append(f"{req}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'")
    elif operator in ("Exists", "DoesNotExist") and n:
        out.append(f"{req}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif operator in ("Gt", "Lt") and n != 1:
        out.append(f"{req}.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")
    elif operator not in NODE_OPERATORS:
        out.append(f"{req}.operator: Invalid value: {go_quote(operator)}: not a valid selector operator")
    name = key.v if key is not None and isinstance(key.v, str) else ""
    out += [f"{req}.key: Invalid value: {go_quote(name)}: {e}" for e in label_key_errors(name)]
    return out + [f"{req}.values[{k}]: Invalid value: {go_quote(v)}: {e}"
                  for k, v in enumerate(values) for e in label_value_errors(v)]
