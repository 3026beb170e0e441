"""Kueue's adjustment of every Workload's requests before it counts them (pkg/workload/resources.go
`AdjustResources`, run by the queue manager on each Workload it holds): the pod's RuntimeClass
overhead, the namespace's LimitRange defaults, limits standing in for missing requests. Applied
once every file is read, since the LimitRanges and RuntimeClasses may be in other files."""

from __future__ import annotations

from kadmit.model import LimitRange, Model, PodSet, RuntimeClass, Workload
from kadmit.podresources import adjust, pod_requests
from kadmit.source import Span, Spans


def apply_resources(model: Model) -> Model:
    """The model with each pod set's `requests` as Kueue counts them. Pod sets without their
    containers' resources (`.kad` workloads) are as written; with no LimitRange in a workload's
    namespace and no RuntimeClass overhead, nothing changes (the front end already counts limits
    as missing requests)."""
    if not model.limit_ranges and not model.runtime_classes:
        return model
    ranges: dict[str, list[LimitRange]] = {}
    for lr in model.limit_ranges:
        ranges.setdefault(lr.namespace, []).append(lr)
    classes: dict[str, RuntimeClass] = {}
    for rc in model.runtime_classes:
        classes.setdefault(rc.name, rc)  # the first of a name (the validator reports the others)
    changed = False
    workloads = []
    for w in model.workloads:
        new = _adjusted(w, ranges.get(w.namespace, []), classes)
        changed |= new is not w
        workloads.append(new)
    return model.model_copy(update={"workloads": tuple(workloads)}) if changed else model


def _adjusted(w: Workload, ranges: list[LimitRange], classes: dict[str, RuntimeClass]) -> Workload:
    pod_sets = []
    for ps in w.pod_sets:
        pod_sets.append(_adjusted_pod_set(ps, ranges, classes) if ps.resources is not None else ps)
    if all(a is b for a, b in zip(pod_sets, w.pod_sets)):
        return w
    return w.model_copy(update={"pod_sets": tuple(pod_sets)})


def _adjusted_pod_set(ps: PodSet, ranges: list[LimitRange], classes: dict[str, RuntimeClass]) -> PodSet:
    assert ps.resources is not None
    requests = pod_requests(adjust(ps.resources, ranges, classes))
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
