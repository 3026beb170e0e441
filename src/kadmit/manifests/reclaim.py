"""Reclaimable pods (Kueue's ReclaimablePods feature gate, on by default in v0.17): the pods of a pod set that
need no quota any more (finished). A Workload's `status.reclaimablePods` lists them; the job integrations that
implement JobWithReclaimablePods (batch Job, JobSet, TrainJob, a pod group) write them there through Kueue's
job reconciler (step 4, on any Workload the job keeps); the scheduler counts each pod set less them
(`podSetsCountsAfterReclaim`) and the cache books an admission's usage per pod, times the pods left
(`totalRequestsFromAdmission`). No manifest reader here: `jobs.manage` applies a job's to its Workload for
`.kad` inputs too (whose Workloads carry no `shapes`, so are left as they are)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmit.model import PodSet, Quantities, Workload

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
           reclaim: dict[str, int]) -> tuple[int, Quantities]:
    """The count and usage Kueue's cache books of one pod set assignment recording `count` pods and `usage`
    (`totalRequestsFromAdmission`): with reclaimable pods leaving fewer pods than admitted, the usage per pod
    (Requests.Divide, integer division), times the pods left, and that count (zeros kept, as an empty usage
    would read as count x requests); else as recorded, an empty usage where it is count x the pod set's
    requests (what the model derives anyway). `declared` is the spec's pod set, its count before reclaim."""
    after = max((declared.count if declared else 0) - reclaim.get(name, 0), 0)
    if name in reclaim and usage and 0 < count and after < count:
        return after, {r: _go_div(q, count) * after for r, q in usage.items()}
    if declared is not None and usage == {r: q * count for r, q in declared.requests.items()}:
        return count, {}
    return count, usage


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
    theirs, recorded = shapes[3]
    merged = {**theirs, **dict(entries)}
    if merged == theirs:
        return wl
    spec = tuple(ps.model_copy(update={"count": shape[0], "min_count": shape[1], "origin": None})
                 for ps, shape in zip(wl.pod_sets, shapes[1]))
    update: dict = {"pod_sets": tuple(after_reclaim(ps, merged.get(ps.name, 0)) for ps in spec)}
    if wl.admission is not None and recorded is not None:
        by_name = {ps.name: ps for ps in spec}
        assignments = []
        for a in wl.admission.pod_sets:
            if a.name in recorded:
                count, usage = booked(a.name, *recorded[a.name], by_name.get(a.name), merged)
                a = a.model_copy(update={"count": count, "usage": usage})
            assignments.append(a)
        update["admission"] = wl.admission.model_copy(update={"pod_sets": tuple(assignments)})
    return wl.model_copy(update=update)
