"""An elastic job's Workloads as Kueue's job reconciler keeps them with the ElasticJobsViaWorkloadSlices gate on
(jobframework reconciler.go ensureWorkload -> workloadslicing.EnsureWorkloadSlices, before the out-of-step matching
of `owned.in_step`, which it stands in for while the job's pod sets keep their names): a job annotated
`kueue.x-k8s.io/elastic-job: "true"` scales by its pod counts alone. Its Workload not holding quota, or scaled down,
takes the job's counts (an admitted one then books its admission at the new counts, as Kueue's cache counts it:
totalRequestsFromAdmission); scaled up while its Workload holds quota, the job gets a new Workload, a slice naming
the old one in `kueue.x-k8s.io/workload-slice-replacement-for` (prepareWorkloadSlice), which the scheduler admits in
the old one's place (`engine.admission.slices`)."""

from __future__ import annotations

import hashlib

from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests.codes import KAD175
from kadmit.manifests.jobs.owned import _OWN_MATCHING
from kadmit.manifests.jobs.shortnames import HASH_LENGTH
from kadmit.model import Job, Refusal, Skipped, Workload

GATE = "ElasticJobsViaWorkloadSlices"
# Of the kinds with their own matching, a pod's and a pod group's Workloads go through the slices too (the generic
# reconciler's ensureOneWorkload, the group's reconciled pod its Object: its first member); a StatefulSet's and a
# LeaderWorkerSet's are prebuilt (ensureOneWorkload takes a prebuilt Workload before any slicing) and their own
# objects are no job of the generic reconciler (the annotation on them is read by nothing), and a Deployment's pods
# are single pods.
_NOT_SLICED = tuple(k for k in _OWN_MATCHING if k != "pod")
OUT_OF_SYNC = "OutOfSync: The workload slice is out of sync with its parent job"
# the SparkApplication webhook's refusals of a managed elastic job, and of dynamic allocation but in an elastic job
# (validateCreate; `spark.spark_application`)
SPARK_REFUSAL = "elastic job is not supported in SparkApplication"
SPARK_DYNAMIC = ("a kueue managed job can use dynamicAllocation only when the ElasticJobsViaWorkloadSlices feature gate "
                 "is on and the job is an elastic job")


def slice_name(job: Job, wl: Workload, clusters: dict[tuple[str, str], Job] | None = None) -> str:
    """Kueue's newWorkloadName for a job with slicing on: GenerateWorkloadNameWithExtra, the job's generation the
    extra (every slice of a job scaled gets a name of its own). A RayJob's or RayService's extra is
    raycluster.GetWorkloadNameExtraPart: `<generation>_<its RayCluster's>` where the RayCluster its status names
    (a RayService's `activeServiceStatus.rayClusterName`) is among `clusters` ((namespace, name) -> the
    RayCluster): the reconciler first annotates the job with that generation (GetWorkloadslicingRayClusterCustomAnnotations,
    "" where the RayCluster is not found: the job's generation alone)."""
    ref = job.object
    base = wl.name[: -HASH_LENGTH - 1]
    group = ref.api_version.rpartition("/")[0]
    extra = str(wl.elastic)
    if (cluster := _cluster_of(job, clusters)) is not None:
        extra += f"_{cluster.generation}"
    digest = hashlib.sha1("\n".join((ref.kind, group, ref.name, ref.uid or "", extra)).encode(
        "utf-8", "surrogatepass")).hexdigest()
    return f"{base}-{digest[:HASH_LENGTH]}"


def sliced(job: Job) -> bool:
    """Whether Kueue's reconciler takes `job` through workload slices (the caller checks the gate): annotated elastic,
    a kind of the generic reconciler's own Workloads. Such a job running without a Workload is not stopped, and gets
    one (handleJobWithNoWorkload waits for no active pods only where slicing is off). A pod's and a pod group's are
    `pod_sliced`: a pod running on a node is node usage to kadmit (KUEUE-DIFFERENCES §2), elastic or not."""
    return bool(job.workloads) and all(w.elastic is not None for w in job.workloads) and job.framework not in _OWN_MATCHING


def pod_sliced(job: Job) -> bool:
    """Whether Kueue's pod reconciler takes `job`, a single pod or a pod group (`groups.join_group`: its first
    member's annotation, the one Kueue's Pod.Load reads of the group), through workload slices: annotated elastic
    (the caller checks the gate)."""
    return job.framework == "pod" and bool(job.workloads) and all(w.elastic is not None for w in job.workloads)


def _cluster_of(job: Job, clusters: dict[tuple[str, str], Job] | None) -> Job | None:
    """The RayCluster a RayJob's or RayService's status names, where the input holds it."""
    return (clusters or {}).get((job.object.namespace or "default", job.ray_cluster)) if job.ray_cluster else None


def _autoscaled(job: Job, cluster: Job | None) -> Job:
    """raycluster.UpdatePodSets: an elastic RayJob's or RayService's pod sets with in-tree autoscaling, each worker
    group counted as the RayCluster its status names counts it (replicas × numOfHosts: that RayCluster's own pod
    sets), where the input holds it; a group of the RayCluster the job lacks is Kueue's error (its first, in the
    RayCluster's order), set as `Job.fails`: the job's reconciler changes nothing and makes no Workload (`manage`)."""
    if cluster is None or not cluster.workloads:
        return job
    counts = {ps.name: ps.count for ps in cluster.workloads[0].pod_sets if ps.name != "head"}
    mine = {ps.name for w in job.workloads for ps in w.pod_sets}
    if lacked := [g for g in counts if g not in mine]:
        return job.model_copy(update={"fails": f"PodSet name mismatch: RayCluster {cluster.object.name} has worker "
                                               f"group {lacked[0]} which is not found in Ray object "
                                               f"{job.object.name} spec"})
    said = f" (in-tree autoscaling: RayCluster `{cluster.object.name}` counts {{}})"
    return job.model_copy(update={"workloads": tuple(w.model_copy(update={"pod_sets": tuple(
        ps.model_copy(update={"count": counts[ps.name], "origin": (ps.origin or "") + said.format(counts[ps.name])})
        if ps.name in counts else ps for ps in w.pod_sets)}) for w in job.workloads)})


def failed(job: Job, diags: Diagnostics | None, skipped: list[Skipped], workloads: list[Workload]) -> None:
    """A job Kueue's reconciler errs on (`Job.fails`): its Workloads stay as read (a warning at each), and a job
    with none gets none (skipped, with Kueue's error)."""
    said = f"Kueue's job reconciler fails on {job.object.kind} `{job.object.key}` (\"{job.fails}\"): "
    for wl in workloads:
        _note(diags, job, wl, said + f"its Workload `{wl.key}` stays as it is, no new slice made")
    if not workloads:
        skipped.append(Skipped(object=job.object, reason=said + "it makes no Workload of it", span=job.span))


def named(job: Job, tas: bool, clusters: dict[tuple[str, str], Job] | None = None) -> Job:
    """An elastic job as Kueue takes it with the gate on: its Workloads named as Kueue names a slice
    (`slice_name`), a Ray cluster's in-tree autoscaling no longer refused (the RayCluster webhook's
    isAnElasticJob, raycluster.ValidateCreate's workloadslicing.Enabled), and a batch Job asking a required or
    preferred topology for its pods refused, where the TopologyAwareScheduling gate (`tas`) is on (the Job webhook's
    validateTopologyRequest, after ValidateTASPodSetRequest's own refusals, which leave the pod set no topology).
    A single elastic pod's Workload is named as a slice too (Pod.ConstructComposableWorkload: ConstructWorkload,
    newWorkloadName); a pod group's keeps the group's name (NewGroupWorkload). `clusters`: the RayClusters, whose
    generations name a RayJob's or RayService's slices (`slice_name`) and whose worker groups count them under
    in-tree autoscaling (`_autoscaled`)."""
    if pod_sliced(job) and job.group_total is None:
        return job.model_copy(update={"workloads": tuple(w.model_copy(update={"name": slice_name(job, w)})
                                                         for w in job.workloads)})
    if not sliced(job):
        return job
    from kadmit.manifests.jobs.ray import AUTOSCALING, SLICING
    refusals = tuple(r for r in job.refusals if not r.message.endswith((AUTOSCALING, SLICING)))
    if len(refusals) < len(job.refusals):  # in-tree autoscaling (refused but for an elastic job): its RayCluster's counts
        job = _autoscaled(job, _cluster_of(job, clusters))
    pod_sets = job.workloads[0].pod_sets
    mode = pod_sets[0].topology.mode if pod_sets and pod_sets[0].topology is not None else None
    if tas and job.framework == "batch/job" and mode in ("required", "preferred"):
        refusals += (Refusal(message=f"spec.template.metadata.annotations.kueue.x-k8s.io/podset-{mode}-topology: "
                                     f"Forbidden: {mode} topology is not supported with elastic jobs",
                             span=pod_sets[0].topology.span or job.span),)
    return job.model_copy(update={
        "workloads": tuple(w.model_copy(update={"name": slice_name(job, w, clusters)}) for w in job.workloads),
        "refusals": refusals})


def spark_gated(job: Job, on: bool) -> Job:
    """A SparkApplication's refusals as its webhook has them with the gate `on` or off: annotated elastic, with the
    gate on the annotation refused and dynamic allocation not; off, the annotation refused by nothing
    (workloadslicing.Enabled reads the gate before the annotation) and dynamic allocation refused."""
    if not any(r.message.endswith(SPARK_REFUSAL) for r in job.refusals):
        return job
    dropped = SPARK_DYNAMIC if on else SPARK_REFUSAL
    return job.model_copy(update={"refusals": tuple(r for r in job.refusals if not r.message.endswith(dropped))})


def counts(wl: Workload) -> dict[str, int]:
    """workload.ExtractPodSetCountsFromWorkload: each pod set's spec count."""
    return {ps.name: ps.count for ps in wl.pod_sets}


def _fewer(a: dict[str, int], b: dict[str, int]) -> bool:
    """PodSetsCounts.HasFewerReplicasThan: some pod set of `a` counts fewer than `b`'s."""
    return any(n < b[name] for name, n in a.items() if name in b)


def ensure(job: Job, workloads: list[Workload], kept: list[int], diags: Diagnostics | None,
           group_counts: dict[str, int] | None = None) -> tuple[list[int], Workload | None] | None:
    """EnsureWorkloadSlices for an elastic job (the caller checks the gate and the annotation): which of its
    Workloads (`kept`: places in `workloads`, none being deleted) stay the job's, updated in `workloads` where
    Kueue updates or finishes them, and the new slice the job gets (its name, `replaces` set; the caller queues it
    after the input's moment), or None. None as a whole where Kueue falls back to the out-of-step matching (the
    pod sets' names differ) or the job is not one the reconciler reaches with it.
    A pod group's counts are `group_counts` (`groups.sliced_counts`, None: the group kept as read); scaled up
    while its Workload holds quota, the group gets no new slice: Kueue names a group's Workload as the group, a name
    its old slice holds (the create fails, AlreadyExists)."""
    group = job.framework == "pod" and job.group_total is not None
    if job.prebuilt is not None or job.deleting or job.state == "finished" or len(job.workloads) != 1 \
            or job.framework in _NOT_SLICED or (group and group_counts is None):
        return None
    want = group_counts if group and group_counts is not None else counts(job.workloads[0])
    # FindNotFinishedWorkloads: oldest first, a slice after the one it replaces where created alike
    live = sorted((i for i in kept if not workloads[i].finished),
                  key=lambda i: (workloads[i].created, bool(workloads[i].replaces)))
    if len(live) == 1:
        i = live[0]
        wl = workloads[i]
        have = counts(wl)
        if have.keys() != want.keys():
            return None
        if have == want:
            return live, None
        if wl.admission is None or (_fewer(want, have) and not _fewer(have, want)):
            workloads[i] = scaled(wl, want)
            _note(diags, job, wl, f"Kueue's job reconciler sets the pod counts of Workload `{wl.key}` to its elastic "
                  f"{'pod group' if group else job.object.kind} `{job.object.key}`'s ({_said(have, want)}): "
                  + ("it holds no quota" if wl.admission is None else "scaled down, its admission is booked at the "
                     "new counts"))
            return live, None
        if group:
            _note(diags, job, wl, f"elastic pod group `{job.object.key}` is scaled up ({_said(have, want)}) while its "
                  f"Workload `{wl.key}` holds quota: Kueue's pod reconciler would make it a new Workload slice, named "
                  "as the group, which is the old slice's name: the create fails (AlreadyExists) and the group keeps "
                  "its Workload as it is")
            return live, None
        new = job.workloads[0]
        new = new.model_copy(update={"replaces": wl.key})
        _note(diags, job, wl, f"elastic {job.object.kind} `{job.object.key}` is scaled up ({_said(have, want)}) while "
              f"its Workload `{wl.key}` holds quota: Kueue's job reconciler makes it a new Workload slice "
              f"`{new.key}` to replace it, queued after the input's; admitted, it takes the old slice's place")
        return live, new
    if len(live) != 2:
        return live, None  # Kueue's reconciler fails (more than two slices) and changes nothing
    old, new = workloads[live[0]], workloads[live[1]]
    as_replacement = new.admission is not None and new.replaces == old.key
    stay = list(live)
    if old.admission is None or old.evicted or as_replacement:
        workloads[live[0]] = old.model_copy(update={"finished": True, "finished_reason": OUT_OF_SYNC})
        stay = [live[1]]
    if counts(new).keys() != want.keys():
        return None
    if new.admission is not None and not as_replacement:
        return stay, None  # an anomaly to Kueue (its reconciler fails): kept as read
    if counts(new) != want:
        workloads[live[1]] = scaled(new, want)
    return stay, None


def scaled(wl: Workload, want: dict[str, int]) -> Workload:
    """workload.ApplyPodSetCounts: the pod sets at the job's counts; an admission holding more pods than a pod set
    now counts is booked at its count (totalRequestsFromAdmission scales the recorded usage per pod)."""
    pod_sets = tuple(ps.model_copy(update={"count": want.get(ps.name, ps.count)}) for ps in wl.pod_sets)
    update: dict = {"pod_sets": pod_sets}
    if wl.admission is not None:
        booked = []
        for a in wl.admission.pod_sets:
            n = want.get(a.name, a.count)
            if n < a.count and a.count > 0:
                a = a.model_copy(update={"count": n, "usage": {r: q // a.count * n for r, q in a.usage.items()}})
            booked.append(a)
        update["admission"] = wl.admission.model_copy(update={"pod_sets": tuple(booked)})
    return wl.model_copy(update=update)


def _said(have: dict[str, int], want: dict[str, int]) -> str:
    return ", ".join(f"pod set {name}: {have[name]} -> {n}" for name, n in want.items() if have.get(name) != n)


def _note(diags: Diagnostics | None, job: Job, wl: Workload, message: str) -> None:
    if diags is not None:
        diags.emit(KAD175, message, wl.span, about=(Subject("Workload", wl.namespace, wl.name),
                                                    Subject(job.object.kind, job.object.namespace, job.object.name)))
