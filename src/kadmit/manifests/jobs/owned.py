"""A job's own Workloads (those it controls, not a prebuilt one it names) as Kueue's job reconciler keeps them in
step with the job before anything else (jobframework reconciler.go, step 1: ensureOneWorkload,
FindMatchingWorkloads, EquivalentToWorkload, updateWorkloadToMatchJob; docs/INTEGRATIONS.md J13)."""

from __future__ import annotations

from kadmit.manifests.jobs.prebuilt import out_of_sync
from kadmit.model import Job, ResourceFlavor, Workload

# The generic reconcilers' kinds whose Workloads are checked here: not a pod's or a pod group's (Pod is a
# ComposableJob, with its own FindMatchingWorkloads), nor the kinds whose Workloads are prebuilt or made of pods.
_OWN_MATCHING = ("pod", "leaderworkerset.x-k8s.io/leaderworkerset", "statefulset", "deployment")


def in_step(job: Job, workloads: list[Workload], kept: list[int], flavors: dict[str, ResourceFlavor],
            queue: str) -> tuple[list[int], list[int]] | None:
    """Which of the job's Workloads (`kept`: their places in `workloads`, none being deleted, in input order)
    Kueue's reconciler keeps, and which it deletes (with their finalizers, so they go with their quota). The
    first equivalent to the job (`prebuilt.out_of_sync`: a Workload holding quota compared as it runs, and then,
    the job suspended, as its spec says) is the job's, the others are deleted. Without one, the first, where it
    holds no quota, is updated to the job's spec (its pod sets, queue and priority as the job makes them; its
    status kept) and kept, the others deleted; where it holds quota, all are deleted, and the job, suspended,
    gets a new Workload (the caller makes it, after the input's moment). None where kadmit keeps them as read:
    a kind with its own matching, a job not suspended (Kueue stops it and restores its templates from the
    Workload), finished, being deleted or naming a prebuilt Workload, or a Workload finished or inactive."""
    if job.framework in _OWN_MATCHING or job.prebuilt is not None or job.deleting or not job.suspended \
            or job.state != "pending" or len(job.workloads) != 1 or job.workloads[0].shapes is None:
        return None
    mine = [workloads[i] for i in kept]
    if any(w.finished or not w.active or w.shapes is None for w in mine):
        return None
    match = next((i for i in kept if not out_of_sync(job, workloads[i], flavors)), None)
    if match is not None:
        return [match], [i for i in kept if i != match]
    first = kept[0]
    if workloads[first].admission is not None:
        return [], kept
    new = job.workloads[0]
    workloads[first] = workloads[first].model_copy(update={
        "pod_sets": new.pod_sets, "shapes": new.shapes, "queue": queue, "priority_class": new.priority_class,
        "priority_class_kind": new.priority_class_kind, "priority": new.priority, "inadmissible": new.inadmissible,
        "duration_ms": new.duration_ms})
    return [first], kept[1:]
