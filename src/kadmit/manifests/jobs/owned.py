"""A job's own Workloads (those it controls, not a prebuilt one it names) as Kueue's job reconciler keeps them in
step with the job before anything else (jobframework reconciler.go, step 1: ensureOneWorkload,
FindMatchingWorkloads, EquivalentToWorkload, updateWorkloadToMatchJob; docs/INTEGRATIONS.md J13)."""

from __future__ import annotations

from kadmit.manifests.jobs.prebuilt import out_of_sync
from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests.codes import KAD161, KAD175
from kadmit.model import Job, ObjectRef, ResourceFlavor, Skipped, Workload

# The generic reconcilers' kinds whose Workloads are checked here: not a pod's or a pod group's (Pod is a
# ComposableJob, with its own FindMatchingWorkloads), nor the kinds whose Workloads are prebuilt or made of pods.
_OWN_MATCHING = ("pod", "leaderworkerset.x-k8s.io/leaderworkerset", "statefulset", "deployment")


def in_step(job: Job, workloads: list[Workload], kept: list[int], flavors: dict[str, ResourceFlavor],
            queue: str, diags: Diagnostics | None, skipped: list[Skipped], queued: bool = True, sliced: bool = False
            ) -> tuple[list[int], list[int], Job] | None:
    """Which of the job's Workloads (`kept`: their places in `workloads`, none being deleted, in input order)
    Kueue's reconciler keeps, and which it deletes (with their finalizers, so they go with their quota). The
    first equivalent to the job (`prebuilt.out_of_sync`: a Workload holding quota compared as it runs, and then,
    the job suspended, as its spec says) is the job's, the others are deleted. Without one, the first, where it
    holds no quota, is updated to the job's spec (its pod sets, queue and priority as the job makes them; its
    status kept) and kept, the others deleted; where it holds quota, all are deleted, and the job, suspended,
    gets a new Workload (the caller makes it, after the input's moment). A job not suspended (running) with
    none in step is stopped and all are deleted, holding quota or not (no update: the reconciler updates only
    for a suspended job); the caller makes it a new Workload after the input's moment where its status shows no
    pods active, and else lists it as skipped (`STOPPED`: Kueue makes none while its pods are ending); the job
    comes back as Kueue restores it from the Workload (`_restored`), to make that Workload of. None
    where kadmit keeps them as read: a kind with its own matching, a job suspended with pods still active,
    finished, being deleted or naming a prebuilt Workload, or a Workload finished or inactive.
    Each Workload updated or deleted gets a note (KAD175) saying what Kueue does and why, and each deleted one
    is listed in `skipped`, so that `why` on its name answers with it."""
    if job.framework in _OWN_MATCHING or job.prebuilt is not None or job.deleting \
            or job.state not in (("pending",) if job.suspended else ("pending", "running")) \
            or len(job.workloads) != 1:
        return None
    if job.workloads[0].shapes is None:
        if job.train is not None:
            _unbuilt(job, workloads, kept, diags)
        return None
    mine = [workloads[i] for i in kept]
    if any(w.finished or not w.active or w.shapes is None for w in mine):
        return None
    differs: dict[int, str] = {}
    match = next((i for i in kept if not differs.setdefault(i, out_of_sync(job, workloads[i], flavors, queued))), None)
    said = _Said(job, workloads, diags, skipped)
    if match is not None:
        others = [i for i in kept if i != match]
        for i in others:
            said.deleted(i, f"the job owns more than one Workload and keeps `{workloads[match].key}`, the first "
                            "in step with it")
        return [match], others, job
    first = kept[0]
    if not job.suspended:
        for i in kept:
            said.deleted(i, f"it is out of step with the job ({said.what(differs[i])})" + (
                _stopped(job, len(kept), sliced) if i == first else ""))
        return [], kept, _restored(job, workloads[first]) if len(kept) == 1 else job
    if workloads[first].admission is not None:
        for i in kept:
            said.deleted(i, f"it is out of step with the job ({said.what(differs[i])})" + (
                ", none in step and the first holding quota: every one is deleted, and the job gets a new Workload, "
                "queued after the input's" if i == first else ""))
        return [], kept, job
    said.note(first, f"Kueue's job reconciler updates Workload `{workloads[first].key}` to the spec of "
                     f"{job.object.kind} `{job.object.key}` (its status kept: it holds no quota): it is out of step "
                     f"with the job ({said.what(differs[first])})")
    new = job.workloads[0]
    workloads[first] = workloads[first].model_copy(update={
        "pod_sets": new.pod_sets, "shapes": new.shapes, "queue": queue, "priority_class": new.priority_class,
        "priority_class_kind": new.priority_class_kind, "priority": new.priority, "inadmissible": new.inadmissible,
        "duration_ms": new.duration_ms})
    for i in kept[1:]:
        said.deleted(i, f"the job owns more than one Workload and keeps `{workloads[first].key}`, the first, "
                        "updated to its spec")
    return [first], kept[1:], job


def _unbuilt(job: Job, workloads: list[Workload], kept: list[int], diags: Diagnostics | None) -> None:
    """A TrainJob's Workloads kept as read where an mlPolicy plugin writes into the JobSet Kueue builds what kadmit
    does not build (`trainjobpods.unbuilt`: a flux runtime's TrainJob without `trainer`, a quantity or GPU resource a
    plugin reads that kadmit cannot tell), which Kueue's EquivalentToWorkload compares (KAD161)."""
    what = job.train.unbuilt if job.train is not None else ""
    if diags is None or not what:
        return
    for i in kept:
        wl = workloads[i]
        diags.emit(KAD161, f"Workload `{wl.key}` of TrainJob `{job.object.key}` is kept as read: Kueue compares it "
                   "with the pod sets of the JobSet it builds of the TrainJob and its runtime (getChildJobSet, "
                   f"EquivalentToWorkload), into which the Trainer writes what kadmit does not build: {what}. They "
                   "may differ: out of step, Kueue deletes the Workload (its quota freed) and stops a running "
                   "TrainJob", wl.span,
                   about=(Subject("Workload", wl.namespace, wl.name),
                          Subject(job.object.kind, job.object.namespace, job.object.name)))


STOPPED = ("it runs and its Workload `{wl}` is out of step with it: Kueue's job reconciler stops it "
           "(StopReasonNoMatchingWorkload) and deletes the Workload with its quota, and while its pods are still "
           "ending (its status shows them active) makes no new Workload, so it is not pending work for Kueue: it "
           "makes one once they have ended, a moment of pod timing the input does not hold")


def _stopped(job: Job, workloads: int, sliced: bool) -> str:
    """What Kueue does to a running job none of whose Workloads is in step (ensureOneWorkload, match nil); `sliced`:
    an elastic job with ElasticJobsViaWorkloadSlices on, whose pods handleJobWithNoWorkload does not wait for."""
    restored = "from that Workload" if workloads == 1 else "from none (it owns more than one)"
    then = ("it is an elastic job, so Kueue makes it a new Workload at once (handleJobWithNoWorkload waits for no "
            "pods to end), queued after the input's" if sliced else
            "its status shows its pods active, so Kueue makes it no new Workload until they have ended (a moment "
            "of pod timing the input does not hold)" if job.state == "running" else
            "its status shows no pod active, so Kueue makes it a new Workload, queued after the input's")
    return (f", none in step and the job running: Kueue stops the job (StopReasonNoMatchingWorkload), restores its "
            f"pod templates {restored} and deletes every one; {then}")


def _restored(job: Job, wl: Workload) -> Job:
    """The job as Kueue's stopJob leaves it, its templates restored from its one Workload (GetPodSetsInfoFromWorkload:
    the Workload's spec), for a batch Job (Job.RestorePodSetsInfo, the first pod set's: podset.RestorePodSpec sets the
    template's node selector and tolerations, with its labels, annotations and scheduling gates, to the Workload's;
    a Job that may be partially admitted takes its count as its parallelism). Other kinds come back as read."""
    if job.framework != "batch/job" or not wl.pod_sets or len(job.workloads) != 1 or not job.workloads[0].pod_sets:
        return job
    new, old = job.workloads[0], wl.pod_sets[0]
    ps = new.pod_sets[0]
    update: dict = {"node_selector": old.node_selector, "tolerations": old.tolerations}
    if ps.min_count is not None:  # minPodsCount: the job-min-parallelism annotation
        update["count"] = wl.shapes[1][0][0] if wl.shapes and wl.shapes[1] else old.count
    restored = new.model_copy(update={"pod_sets": (ps.model_copy(update=update), *new.pod_sets[1:])})
    return job.model_copy(update={"workloads": (restored,)})


class _Said:
    """The notes (KAD175) of one job's Workloads updated or deleted, and the deleted ones listed as skipped."""

    def __init__(self, job: Job, workloads: list[Workload], diags: Diagnostics | None, skipped: list[Skipped]):
        self.job, self.workloads, self.diags, self.skipped = job, workloads, diags, skipped

    @staticmethod
    def what(differs: str) -> str:
        return f"what differs, the job's against the Workload's: {differs}"

    def note(self, i: int, message: str) -> None:
        """The warning at Workload `i`, about it and the job (`api.out_of_step` picks it by them)."""
        if self.diags is not None:
            wl, job = self.workloads[i], self.job.object
            self.diags.emit(KAD175, message, wl.span, about=(Subject("Workload", wl.namespace, wl.name),
                                                             Subject(job.kind, job.namespace, job.name)))

    def deleted(self, i: int, why: str) -> None:
        wl = self.workloads[i]
        freed = "; its quota is freed" if wl.admission is not None else ""
        message = (f"Kueue's job reconciler deletes Workload `{wl.key}` of {self.job.object.kind} "
                   f"`{self.job.object.key}`: {why}{freed}")
        self.note(i, message)
        self.skipped.append(Skipped(object=ObjectRef(api_version="kueue.x-k8s.io/v1beta2", kind="Workload",
                                                     namespace=wl.namespace, name=wl.name),
                                    reason=message, span=wl.span))
