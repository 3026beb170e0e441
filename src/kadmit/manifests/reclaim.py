"""Reclaimable pods (Kueue's ReclaimablePods feature gate, on by default in v0.17; off: `unreclaimed`): the pods of a pod set that
need no quota any more (finished). A Workload's `status.reclaimablePods` lists them; the job integrations that
implement JobWithReclaimablePods (batch Job, JobSet, TrainJob, a pod group) write them there through Kueue's
job reconciler (step 4, on any Workload the job keeps); the scheduler counts each pod set less them
(`podSetsCountsAfterReclaim`) and the cache books an admission's usage per pod, times the pods left
(`totalRequestsFromAdmission`). No manifest reader here: `jobs.manage` applies a job's to its Workload for
`.kad` inputs too (whose Workloads carry no `shapes`, so are left as they are)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kadmit.featuregates import enabled
from kadmit.model import Job, Model, PodSet, Quantities, Workload

if TYPE_CHECKING:
    from kadmit.manifests.fields import Fields
    from kadmit.manifests.yamltree import Val


def status_reclaimable(f: Fields, status: Val | None) -> dict[str, int]:
    """`status.reclaimablePods`: per pod set, the pods that need no quota any more."""
    out: dict[str, int] = {}
    for rp in f.maps(status, "reclaimablePods"):
        name = f.str(rp, "name")
        if name:
            out[name] = out.get(name, 0) + f.int(rp, "count", lo=0, default=0)
    return out


def after_reclaim(ps: PodSet, reclaimed: int) -> PodSet:
    """The pod set as Kueue's scheduler counts it (`podSetsCountsAfterReclaim`): its count less its
    reclaimable pods."""
    if not reclaimed:
        return ps
    count = max(0, ps.count - reclaimed)
    min_count = ps.min_count if ps.min_count is None or ps.min_count <= count else (count or None)
    shown = f"{count} of its {ps.count} pods: {reclaimed} reclaimable (status.reclaimablePods)"
    return ps.model_copy(update={"count": count, "min_count": min_count,
                                 "origin": f"{ps.origin}; {shown}" if ps.origin else shown})


def _go_div(q: int, n: int) -> int:
    """Go's integer division (truncated toward 0, also for a negative usage)."""
    return q // n if q >= 0 else -(-q // n)


def booked(name: str, count: int, usage: Quantities, declared: PodSet | None,
           reclaim: dict[str, int]) -> tuple[int, Quantities, Quantities | None]:
    """The count and usage Kueue's cache books of one pod set assignment recording `count` pods and `usage`
    (`totalRequestsFromAdmission`): with reclaimable pods leaving fewer pods than admitted, the usage per pod
    (Requests.Divide, integer division), times the pods left, and that count (zeros kept, as an empty usage
    would read as count x requests); else as recorded, an empty usage where it is count x the pod set's
    requests (what the model derives anyway). `declared` is the spec's pod set, its count before reclaim.
    The third value, where reclaimable pods took some off: one pod's usage, which Kueue's TAS cache still
    counts on each pod of the topology assignment (its DomainRequests keep their counts)."""
    after = max((declared.count if declared else 0) - reclaim.get(name, 0), 0)
    if name in reclaim and usage and 0 < count and after < count:
        per_pod = {r: _go_div(q, count) for r, q in usage.items()}
        return after, {r: q * after for r, q in per_pod.items()}, per_pod
    if declared is not None and usage == {r: q * count for r, q in declared.requests.items()}:
        return count, {}, None
    return count, usage, None


def reclaim_applied(wl: Workload, entries: tuple[tuple[str, int], ...]) -> Workload:
    """`wl` once Kueue's job reconciler has applied its job's ReclaimablePods (`entries`) to its
    `status.reclaimablePods` (jobframework reconciler step 4: `workload.UpdateReclaimablePods`, a server-side apply
    of Kueue's own field manager on a list map keyed by name): an entry replaces the input's of that name and the
    input's others stay (no manager of Kueue's owns them: KUEUE-DIFFERENCES §2). Each pod set is then counted less
    its reclaimable pods, and an admission it holds is booked again from what it records (`booked`), so the
    quota the finished pods held is free. A finished Workload (the reconciler stops before step 4), or one read
    from no manifest (no `shapes`), is left as it is."""
    shapes = wl.shapes
    if not entries or wl.finished or shapes is None or len(shapes) < 4:
        return wl
    theirs, _ = shapes[3]
    merged = {**theirs, **dict(entries)}
    return wl if merged == theirs else _reclaimed(wl, merged)


def _reclaimed(wl: Workload, merged: dict[str, int]) -> Workload:
    """`wl` (read from a manifest: `shapes` of 4) with its pod sets counted less `merged`'s pods, and its
    admission booked again from what it records."""
    shapes = wl.shapes
    assert shapes is not None
    _, recorded = shapes[3]
    spec = tuple(ps.model_copy(update={"count": shape[0], "min_count": shape[1], "origin": None})
                 for ps, shape in zip(wl.pod_sets, shapes[1]))
    update: dict = {"pod_sets": tuple(after_reclaim(ps, merged.get(ps.name, 0)) for ps in spec)}
    if wl.admission is not None and recorded is not None:
        by_name = {ps.name: ps for ps in spec}
        assignments = []
        for a in wl.admission.pod_sets:
            if a.name in recorded:
                count, usage, tas_pod = booked(a.name, *recorded[a.name], by_name.get(a.name), merged)
                a = a.model_copy(update={"count": count, "usage": usage, "tas_pod": tas_pod})
            assignments.append(a)
        update["admission"] = wl.admission.model_copy(update={"pod_sets": tuple(assignments)})
    return wl.model_copy(update=update)


_SHOWN = re.compile(r"(?:; )?\d+ of its \d+ pods: \d+ reclaimable \((?:finished|status\.reclaimablePods)\)$"
                    r"| \(\d+ Succeeded, its quota reclaimed\)$")


def unreclaimed(model: Model) -> Model:
    """ReclaimablePods off (Kueue v0.17.0's default: on): the scheduler counts every pod set whole
    (podSetsCountsAfterReclaim returns the spec's counts) and the cache books an admission as it records it
    (totalRequestsFromAdmission), and the job reconciler writes no reclaimable pods (reconciler.go step 4
    needs the gate). So a Workload's `status.reclaimablePods` takes nothing off, nor do the finished pods a
    job reports (`Job.reclaimable`, taken off its Workloads as they were made: `jobs.common.reclaimed`, a pod
    group's roles). The model itself with the gate on, or when nothing was reclaimed."""
    if enabled(model.config, "ReclaimablePods"):
        return model
    workloads = tuple(_reclaimed(wl, {}) if wl.shapes is not None and len(wl.shapes) >= 4 and wl.shapes[3][0]
                      else wl for wl in model.workloads)
    if all(a is b for a, b in zip(workloads, model.workloads)):
        return model
    return model.model_copy(update={"workloads": workloads})


def whole_jobs(config, jobs: list[Job]) -> list[Job]:
    """`unreclaimed` for the jobs as `jobs.manage` has them (pod groups joined, TrainJobs built on their
    runtimes): each one's Workloads with the pods it reported reclaimable given back (`_whole`)."""
    if enabled(config, "ReclaimablePods"):
        return jobs
    return [_whole(job) if job.reclaimable else job for job in jobs]


def _whole(job: Job) -> Job:
    """The job's Workloads with the pods its integration reported reclaimable given back to each pod set."""
    taken = dict(job.reclaimable)

    def pod_set(ps: PodSet, shape) -> PodSet:
        n = taken.get(ps.name, 0)
        if not n:
            return ps
        count, min_count = (shape[0], shape[1]) if shape is not None else (ps.count + n, ps.min_count)
        origin = _SHOWN.sub("", ps.origin) if ps.origin else None
        return ps.model_copy(update={"count": count, "min_count": min_count, "origin": origin or None})

    wls = []
    for wl in job.workloads:
        # a Workload made by `jobs.common` keeps each pod set's spec shape (count, minCount) before the reclaim
        # (a pod group's are its first pod's: its roles are counted from its pods, less their Succeeded ones)
        shapes = wl.shapes[1] if wl.shapes is not None and len(wl.shapes) >= 2 and job.framework != "pod" \
            and len(wl.shapes[1]) == len(wl.pod_sets) else None
        sets = tuple(pod_set(ps, shapes[i] if shapes is not None else None) for i, ps in enumerate(wl.pod_sets))
        wls.append(wl.model_copy(update={"pod_sets": sets}))
    return job.model_copy(update={"workloads": tuple(wls), "reclaimable": ()})
