"""Kueue's adjustment of every Workload's requests before it counts them (pkg/workload/resources.go
`AdjustResources`, run by the queue manager on each Workload it holds): the pod's RuntimeClass
overhead, the namespace's LimitRange defaults, limits standing in for missing requests; and the
checks its scheduler makes of them before it tries a flavor (`ValidateResources`,
`ValidateLimitRange`). Applied once every file is read, since the LimitRanges and RuntimeClasses
may be in other files."""

from __future__ import annotations

from kadmit.model import LimitRange, Model, PodSet, RuntimeClass, Workload
from kadmit.podresources import adjust, aggregate, limit_range_violations, pod_requests, requests_above_limits
from kadmit.source import Span, Spans


def apply_resources(model: Model) -> Model:
    """The model with each pod set's `requests` as Kueue counts them, and each workload Kueue
    finds inadmissible for its resources (`inadmissible`, Kueue's message; before any flavor is
    tried). Pod sets without their containers' resources (`.kad` workloads) are as written; with
    no LimitRange in a workload's namespace and no RuntimeClass overhead the requests stay the
    front end's (which already counts limits as missing requests)."""
    ranges: dict[str, list[LimitRange]] = {}
    for lr in model.limit_ranges:
        ranges.setdefault(lr.namespace, []).append(lr)
    classes: dict[str, RuntimeClass] = {}
    for rc in model.runtime_classes:
        classes.setdefault(rc.name, rc)  # the first of a name (the validator reports the others)
    changed = False
    workloads = []
    for w in model.workloads:
        # A workload holding quota counts what its admission records (Kueue's cache:
        # workload.totalRequestsFromAdmission), which the reader derives from the requests as read
        # where it leaves the recorded usage out; the queue manager adjusts requests only of the
        # workloads it queues: this one's adjusted pod sets are kept aside for when it gives its
        # quota back before the run (`effective.checked`, `effective.drained`). (One evicted during a
        # run is decided again with the requests as read: docs/KUEUE-DIFFERENCES.md §2.)
        if w.admission is not None:
            queued = _adjusted(w.model_copy(update={"inadmissible": ""}), ranges.get(w.namespace, []), classes)
            new = w if queued.pod_sets is w.pod_sets and not queued.inadmissible else w.model_copy(update={
                "requeue_pod_sets": queued.pod_sets, "requeue_inadmissible": queued.inadmissible})
        else:
            new = _adjusted(w, ranges.get(w.namespace, []), classes)
        changed |= new is not w
        workloads.append(new)
    return model.model_copy(update={"workloads": tuple(workloads)}) if changed else model


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


INVALID_RESOURCES = "resources validation failed"  # scheduler.go errInvalidWLResources
OUTSIDE_LIMIT_RANGES = "resources didn't satisfy LimitRange constraints"  # errLimitRangeConstraintsUnsatisfiedResources


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
