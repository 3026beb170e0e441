"""Kueue's adjustment of every Workload's requests before it counts them (pkg/workload/resources.go
`AdjustResources`, run by the queue manager on each Workload it holds): the pod's RuntimeClass
overhead, the namespace's LimitRange defaults, limits standing in for missing requests; and the
checks its scheduler makes of them before it tries a flavor (`ValidateResources`,
`ValidateLimitRange`). Applied once every file is read, since the LimitRanges and RuntimeClasses
may be in other files. And the API server's LimitRanger, which refuses a Pod being submitted outside
its namespace's LimitRanges before Kueue sees it (`limit_ranger`)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests.codes import KAD157, KAD184, KAD199
from kadmit.identity import subject
from kadmit.model import Job, LimitRange, Model, ObjectRef, PodSet, RuntimeClass, Workload
from kadmit.podresources import (INVALID_RESOURCES, OUTSIDE_LIMIT_RANGES, ContainerResources, PodResources, Quantities,
                                 adjust, aggregate, containers_total, first_formats, limit_range_violations, pod_requests, requests_above_limits)
from kadmit.quantity import format_quantity, quantity_string
from kadmit.source import Span, Spans


def apply_resources(model: Model, before: "Adjusted | None" = None) -> Model:
    """The model with each pod set's `requests` as Kueue counts them, and each workload Kueue
    finds inadmissible for its resources (`inadmissible`, Kueue's message; before any flavor is
    tried). Pod sets without their containers' resources (`.kad` workloads) are as written; with
    no LimitRange in a workload's namespace and no RuntimeClass overhead the requests stay the
    front end's (which already counts limits as missing requests). `before`: what an earlier call
    made (`apply_resources_kept`), reused for each workload that is the very object it adjusted then."""
    return apply_resources_kept(model, before)[0]


class Adjusted:
    """What `apply_resources` read and made, for a call on an edited model to reuse (`edited.with_edits`:
    a fix's model holds the very Workload objects of the loaded one but where edited, so only those are
    adjusted again). The answer for a workload reads only it, its namespace's LimitRanges and the
    RuntimeClasses: reused when the model's LimitRanges and RuntimeClasses are the very objects they were.
    The workloads adjusted are held, so that their ids name them while this lives."""

    def __init__(self, model: Model, made: dict[int, tuple[Workload, Workload]]) -> None:
        self.limit_ranges, self.runtime_classes = model.limit_ranges, model.runtime_classes
        self.made = made  # id(workload as given) -> (it, it adjusted)

    def serves(self, model: Model) -> bool:
        return _same(self.limit_ranges, model.limit_ranges) and _same(self.runtime_classes, model.runtime_classes)


def _same(a: tuple, b: tuple) -> bool:
    return a is b or (len(a) == len(b) and all(x is y for x, y in zip(a, b)))


def apply_resources_kept(model: Model, before: Adjusted | None = None) -> tuple[Model, Adjusted]:
    """`apply_resources(model, before)`, and what it read and made (`Adjusted`), for a later call to reuse."""
    reuse = before.made if before is not None and before.serves(model) else {}
    ranges: dict[str, list[LimitRange]] = {}
    for lr in model.limit_ranges:
        ranges.setdefault(lr.namespace, []).append(lr)
    classes: dict[str, RuntimeClass] = {}
    for rc in model.runtime_classes:
        classes.setdefault(rc.name, rc)  # the first of a name (the validator reports the others)
    changed = False
    workloads = []
    made: dict[int, tuple[Workload, Workload]] = {}
    for w in model.workloads:
        kept = reuse.get(id(w))
        if kept is not None and kept[0] is w:
            new = kept[1]
        # A workload holding quota counts what its admission records (Kueue's cache:
        # workload.totalRequestsFromAdmission), which the reader derives from the requests as read
        # where it leaves the recorded usage out; the queue manager adjusts requests only of the
        # workloads it queues: this one's adjusted pod sets are kept aside for when it gives its
        # quota back before the run (`effective.checked`, `effective.drained`). (One evicted during a
        # run is decided again with the requests as read: docs/KUEUE-DIFFERENCES.md §2.)
        elif w.admission is not None:
            queued = _adjusted(w.model_copy(update={"inadmissible": ""}), ranges.get(w.namespace, []), classes)
            new = w if queued.pod_sets is w.pod_sets and not queued.inadmissible else w.model_copy(update={
                "requeue_pod_sets": queued.pod_sets, "requeue_inadmissible": queued.inadmissible})
        else:
            new = _adjusted(w, ranges.get(w.namespace, []), classes)
        made[id(w)] = (w, new)
        changed |= new is not w
        workloads.append(new)
    return (model.model_copy(update={"workloads": tuple(workloads)}) if changed else model), Adjusted(model, made)


def _adjusted(w: Workload, ranges: list[LimitRange], classes: dict[str, RuntimeClass]) -> Workload:
    pod_sets = []
    above_limits: list[str] = []
    outside_ranges: list[str] = []
    for i, ps in enumerate(w.pod_sets):
        if ps.resources is None:
            pod_sets.append(ps)
            continue
        pod = adjust(ps.resources, ranges, classes) if ranges or classes else ps.resources
        path = f"spec.podSets[{i}].template.spec"
        above_limits += requests_above_limits(pod, path)
        if ranges:
            outside_ranges += limit_range_violations(pod, path, ranges)
        pod_sets.append(_with_requests(ps, pod_requests(pod), ranges, classes) if ranges or classes else ps)
    update: dict = {}
    if any(a is not b for a, b in zip(pod_sets, w.pod_sets)):
        update["pod_sets"] = tuple(pod_sets)
    # The scheduler's `nominate` (after the namespace check): resources first, then LimitRanges.
    if not w.inadmissible and above_limits:
        update["inadmissible"] = f"{INVALID_RESOURCES}: {aggregate(above_limits)}"
    elif not w.inadmissible and outside_ranges:
        update["inadmissible"] = f"{OUTSIDE_LIMIT_RANGES}: {aggregate(outside_ranges)}"
    return w.model_copy(update=update) if update else w




def _with_requests(ps: PodSet, requests: dict[str, int], ranges: list[LimitRange],
                   classes: dict[str, RuntimeClass]) -> PodSet:
    if requests == ps.requests:
        return ps
    spans = dict(ps.spans.items)
    for r, q in requests.items():
        if ps.requests.get(r) != q:
            at = _source(r, ps, ranges, classes)
            if at is not None:
                spans[f"requests.{r}"] = at
    return ps.model_copy(update={"requests": requests, "spans": Spans(spans)})


def _source(resource: str, ps: PodSet, ranges: list[LimitRange], classes: dict[str, RuntimeClass]) -> Span | None:
    """Where a changed request comes from: the LimitRange default that filled a container in, else
    the RuntimeClass's overhead."""
    for lr in sorted(ranges, key=lambda r: r.name):
        if lr.type == "Container":
            for key, values in (("defaultRequest", lr.default_request), ("default", lr.default)):
                if resource in values:
                    return lr.field_span(f"{key}.{resource}")
    pod = ps.resources
    if pod is not None and pod.runtime_class in classes:
        return classes[pod.runtime_class].field_span(f"overhead.{resource}")
    return None


# --- the API server's LimitRanger admission plugin (k8s plugin/pkg/admission/limitranger) -----------

def namespace_ranges(limit_ranges: tuple[LimitRange, ...]) -> dict[str, list[list[LimitRange]]]:
    """Each namespace's LimitRanges (each a list of its `spec.limits` items), in name order."""
    by_name: dict[str, dict[str, list[LimitRange]]] = {}
    for lr in limit_ranges:
        by_name.setdefault(lr.namespace, {}).setdefault(lr.name, []).append(lr)
    return {ns: [named[n] for n in sorted(named)] for ns, named in by_name.items()}


def limit_ranger(model: Model, diags: Diagnostics) -> Model:
    """The model without the Pods being submitted (no `metadata.uid`, no `status`) that the API
    server's LimitRanger refuses, each reported (KAD157) in the server's words: its namespace's
    LimitRanges (in name order) first fill each container's missing limits and requests from their
    Container `default`/`defaultRequest` (`PodMutateLimitFunc`), then each checks the containers and
    the pod against its `min`, `max` and `maxLimitRequestRatio` (`PodValidateLimitFunc`); the first
    LimitRange refusing names its errors. Kueue's own check (`ValidateLimitRange`, above) reads
    requests only, and the oracle runs no admission plugin.
    Run before Kueue's job framework (`jobs.manage`): a refused Pod is never created, so Kueue makes no
    Workload of it and a pod group it names is composed without it (tests/oracle/test_limit_ranger.py);
    it is kept as a broken object, refused alone (`scope.POD_REFUSED`), as the API server refuses it."""
    ranges = namespace_ranges(model.limit_ranges)
    if not ranges:
        return model
    for named in ranges.values():
        _ordered_defaults(named, diags)
    kept = []
    refused: list[ObjectRef] = []
    words: dict[tuple[str, str], str] = {}
    for p in model.pods:
        if p.submitted is not None and p.namespace in ranges:
            errors = limit_ranger_errors(p.submitted, ranges[p.namespace])
            if errors:
                words[(p.namespace, p.name)] = f"pods \"{p.name}\" is forbidden: {aggregate(errors)}"
                diags.emit(KAD157, f"the API server refuses the object: `{words[(p.namespace, p.name)]}`", p.span,
                           help="its namespace's LimitRange bounds every container's (and the pod's) limits "
                                "and requests once its defaults are filled in; keep the pod within them",
                           about=(Subject("Pod", p.namespace, p.name),))
                refused.append(ObjectRef(api_version="v1", kind="Pod", namespace=p.namespace, name=p.name, span=p.span))
                continue
        kept.append(p)
    if not refused:
        return model
    gone = {(r.namespace, r.name) for r in refused}
    def key(j: Job) -> tuple[str, str] | None:
        ref = (j.object.namespace or "default", j.object.name)
        return ref if j.framework == "pod" and j.object.kind == "Pod" and j.submitted and ref in gone else None

    short: dict[tuple[str, str], list[str]] = {}  # a pod group's refused members, which its skip reason names
    for j in model.jobs:
        if j.group and (ref := key(j)) is not None:
            short.setdefault((ref[0], j.group), []).append(f"Pod `{ref[1]}` (KAD157: `{words[ref]}`)")
    jobs = tuple(j.model_copy(update={"group_refused": tuple(short[(j.object.namespace or "default", j.group)])})
                 if j.group and (j.object.namespace or "default", j.group) in short else j
                 for j in model.jobs if key(j) is None)
    return model.model_copy(update={"pods": tuple(kept), "jobs": jobs, "broken": model.broken + tuple(refused)})


def _ordered_defaults(named: list[list[LimitRange]], diags: Diagnostics) -> None:
    """KAD184 where a namespace's LimitRanges (`named`: each one's items, in name order) give one resource
    different Container defaults: Kueue and the LimitRanger take whichever their Go-map-ordered list gives
    first, kadmit the first by name."""
    seen: dict[tuple[str, str], tuple[int, LimitRange]] = {}
    warned: set[str] = set()
    for items in named:
        for it in items:
            if it.type != "Container":
                continue
            for key, values in (("default", it.default), ("defaultRequest", it.default_request)):
                for r, q in sorted(values.items()):
                    first, by = seen.setdefault((key, r), (q, it))
                    if by.name != it.name and first != q and r not in warned:
                        warned.add(r)  # once per resource
                        diags.emit(KAD184, f"LimitRanges `{by.name}` and `{it.name}` of namespace `{it.namespace}` "
                                   f"give `{r}` different Container {key}s ({format_quantity(first, r)} and "
                                   f"{format_quantity(q, r)}): Kueue and the API server fill containers from "
                                   "whichever their lists (in Go map order) give first; kadmit takes "
                                   f"`{by.name}`'s, the first by name", it.span,
                                   help="keep one LimitRange per namespace, or give each resource its defaults in one",
                                   about=(Subject("LimitRange", by.namespace, by.name),
                                          Subject("LimitRange", it.namespace, it.name)))


def limit_ranger_templates(model: Model, diags: Diagnostics) -> None:
    """A Kueue-managed job's pod template that the API server would refuse every pod of (KAD199, a
    warning): one the LimitRanger refuses, or a custom resource's that nothing validated and the pod
    validation refuses (`PodSet.pod_refusals`, checked first as the API server validates a pod before its
    LimitRanger does). The API server creates the job, Kueue may admit it, but none of its pods is created."""
    ranges = namespace_ranges(model.limit_ranges)
    for w in model.workloads:
        if w.origin is None or w.origin.kind == "Pod":
            continue
        for ps in w.pod_sets:
            errors = list(ps.pod_refusals)
            if not errors and ps.resources is not None and w.namespace in ranges:
                errors = limit_ranger_errors(ps.resources, ranges[w.namespace])
            if errors:
                made = "pod" if ps.refused_object in ("", "Pod") else f"{ps.refused_object} made"
                diags.emit(KAD199, f"the API server refuses every {made} of pod set `{ps.name}` of "
                           f"{w.origin.kind} `{w.namespace}/{w.origin.name}`: `{aggregate(errors)}`: Kueue may "
                           "admit it, but none of those pods is created", w.span,
                           help="keep the pod template within its namespace's LimitRange (its defaults filled "
                                "in), or change the LimitRange" if not ps.pod_refusals else
                                "keep the template within what the API server takes in a Pod (its words above)",
                           about=(subject(w.origin),))


def limit_ranger_errors(pod: PodResources, ranges: list[list[LimitRange]]) -> list[str]:
    """The errors of the first LimitRange (a list of its `spec.limits` items) refusing `pod`, after
    every one filled its defaults in (each LimitRange item with the defaults the API server stores it
    with); none when all admit it. Each quantity is printed as the API server prints it: in the format
    it was written in (`1G`, `2Gi`), canonical (`1000M` is `1G`); a filled-in default in its LimitRange's."""
    def stored(c: ContainerResources) -> ContainerResources:  # SetDefaults_Pod: limits as missing requests
        copied = {f"requests.{r}": c.formats[f"limits.{r}"] for r in c.limits
                  if r not in c.requests and f"limits.{r}" in c.formats}
        return c._replace(requests={**c.limits, **c.requests}, formats={**copied, **c.formats})

    pod = pod._replace(containers=tuple(map(stored, pod.containers)),
                       init_containers=tuple(map(stored, pod.init_containers)))
    for items in ranges:
        default: Quantities = {}
        default_request: Quantities = {}
        formats: dict[str, str] = {}
        for it in items:  # defaultContainerResourceRequirements: a later item overwrites
            if it.type == "Container":  # as the API server stores it (the reader: cluster.limit_range)
                default.update(it.default)
                default_request.update(it.default_request)
                for key, values, into in (("default", it.default, "limits"),
                                          ("defaultRequest", it.default_request, "requests")):
                    for r in values:
                        formats[f"{into}.{r}"] = it.formats.get(f"{key}.{r}", "DecimalSI")

        def fill(c: ContainerResources, default: Quantities = default, default_request: Quantities = default_request,
                 formats: dict[str, str] = formats) -> ContainerResources:
            filled = {k: v for k, v in formats.items()
                      if k.partition(".")[2] not in (c.limits if k.startswith("limits.") else c.requests)}
            return c._replace(limits={**default, **c.limits}, requests={**default_request, **c.requests},
                              formats={**c.formats, **filled})

        pod = pod._replace(containers=tuple(map(fill, pod.containers)),
                           init_containers=tuple(map(fill, pod.init_containers)))
    for items in ranges:
        errors: list[str] = []
        for it in items:
            if it.type == "Container":
                for c in (*pod.containers, *pod.init_containers):
                    errors += _constraints(it, "Container", c.requests, c.limits, c.formats)
            elif it.type == "Pod":
                errors += _constraints(it, "Pod", _pod_total(pod, "requests"), _pod_total(pod, "limits"),
                                       {**_total_formats(pod, "requests"), **_total_formats(pod, "limits")})
        if errors:
            return errors
    return []


def _pod_total(pod: PodResources, what: str) -> Quantities:
    """The LimitRanger's `podRequests`/`podLimits`: the containers' as Kubernetes sums them
    (`containers_total`); the pod's own requests or limits win for cpu and memory (its
    `supportedPodLevelResources`; the PodLevelResources gate is on in Kubernetes v1.35)."""
    total = containers_total(pod, what)
    own = pod.pod_requests if what == "requests" else pod.pod_limits
    total.update({r: q for r, q in own.items() if r in ("cpu", "memory")})
    return total


def _total_formats(pod: PodResources, what: str) -> dict[str, str]:
    """The format of each `_pod_total`: the pod's own where it wins; else the first container's (init
    containers after) holding a non-zero amount, as Go's Quantity.Add keeps the format of the first
    non-zero one (an init container's need above the containers' sum is printed in that format too)."""
    out = first_formats((*pod.containers, *pod.init_containers), what)
    own = pod.pod_requests if what == "requests" else pod.pod_limits
    out.update({r: pod.formats.get(f"{what}.{r}", "DecimalSI") for r in own if r in ("cpu", "memory")})
    return {f"{what}.{r}": fmt for r, fmt in out.items()}


def _constraints(it: LimitRange, kind: str, requests: Quantities, limits: Quantities,
                 formats: dict[str, str]) -> list[str]:
    """`minConstraint`, `maxConstraint` and `limitRequestRatioConstraint` of one LimitRange item, in
    resource name order (Go ranges over a map: the API server's order varies); quantities printed in
    their formats (`formats`: `requests.cpu` -> format; the item's in `it.formats`)."""
    def req(r: str) -> str:
        return quantity_string(requests[r], formats.get(f"requests.{r}", "DecimalSI"))

    def lim(r: str) -> str:
        return quantity_string(limits[r], formats.get(f"limits.{r}", "DecimalSI"))

    def own(key: str, r: str, q: int) -> str:
        return quantity_string(q, it.formats.get(f"{key}.{r}", "DecimalSI"))

    out = []
    for r, lo in sorted(it.min.items()):
        e = own("min", r, lo)
        if r not in requests:
            out.append(f"minimum {r} usage per {kind} is {e}.  No request is specified")
        elif requests[r] < lo:
            out.append(f"minimum {r} usage per {kind} is {e}, but request is {req(r)}")
        elif r in limits and limits[r] < lo:
            out.append(f"minimum {r} usage per {kind} is {e}, but limit is {lim(r)}")
    for r, hi in sorted(it.max.items()):
        e = own("max", r, hi)
        if r not in limits:
            out.append(f"maximum {r} usage per {kind} is {e}.  No limit is specified")
        elif limits[r] > hi:
            out.append(f"maximum {r} usage per {kind} is {e}, but limit is {lim(r)}")
        elif r in requests and requests[r] > hi:
            out.append(f"maximum {r} usage per {kind} is {e}, but request is {req(r)}")
    for r, ratio in sorted(it.max_limit_request_ratio.items()):
        e = own("maxLimitRequestRatio", r, ratio)
        if not requests.get(r):
            out.append(f"{r} max limit to request ratio per {kind} is {e}, but no request is specified or request is 0")
        elif not limits.get(r):
            out.append(f"{r} max limit to request ratio per {kind} is {e}, but no limit is specified or limit is 0")
        elif limits[r] / requests[r] * 1000 > ratio:
            out.append(f"{r} max limit to request ratio per {kind} is {e}, but provided ratio is "
                       f"{limits[r] / requests[r]:f}")
    return out
