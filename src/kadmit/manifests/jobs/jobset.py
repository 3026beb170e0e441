"""JobSet -> a pod set per replicated job, replicas × pods per job (Kueue's pkg/controller/jobs/jobset)."""

from __future__ import annotations

from collections.abc import Iterator

from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests.codes import KAD161, KAD167, KAD170
from kadmit.manifests.fields import Fields, Invalid, Meta
from kadmit.manifests.jobs.batch import job as batch_job, pods_count
from kadmit.manifests.jobs.common import (COMPLETION_INDEX, JOB_INDEX, MAX_OBJECT_WORKLOADS, QUEUE_LABEL, Builder,
                                          condition_true, reclaimed, run_state, workload_name)
from kadmit.manifests.jobs.groups import GROUP_NAME
from kadmit.manifests.jobs.refusals import gate_on
from kadmit.manifests.jobs.templatepods import group_refusals
from kadmit.manifests.jobspec import job_spec_refusals
from kadmit.manifests.podspec import KEPT
from kadmit.manifests.yamltree import Val
from kadmit.model import Job

FRAMEWORK = "jobset.x-k8s.io/jobset"
NO_POD_SETS = ("it is never admitted: it has no replicated jobs, so the Workload Kueue makes of it has no pod sets, "
               "which the API server refuses (the Workload CRD's spec.podSets takes 1 to 8); the JobSet stays "
               "suspended")


def jobset(f: Fields, o: Meta) -> Job:
    # the CRD requires neither `spec` nor `replicatedJobs` (kubebuilder's sample has `spec:` null)
    spec = f.map(o.node, "spec")
    b = Builder(f, o, FRAMEWORK)
    paths: dict[str, str] = {}
    shape: dict[str, tuple[int, int]] = {}  # replicated job -> (replicas, pods per job)
    replicated = f.maps(spec, "replicatedJobs")
    for i, rj in enumerate(replicated):
        name = f.str(rj, "name", required=True, what="a replicated job")
        replicas = f.int(rj, "replicas", default=1, lo=0)
        job_template = f.map(rj, "template", required=True, what=f"replicated job `{name}`")
        job_spec = f.map(job_template, "spec", required=True, what=f"the template of replicated job `{name}`")
        template = f.map(job_spec, "template", required=True, what=f"the job spec of replicated job `{name}`")
        per_job = pods_count(f, job_spec)
        shape[name] = (replicas, per_job)
        paths[name] = f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations"
        b.template(name, replicas * per_job, template, rj, count_node=f.field(rj, "replicas"), job_spec=job_spec,
                   index=(COMPLETION_INDEX, JOB_INDEX, replicas),
                   job_words=tuple(job_spec_refusals(f, job_spec)),
                   origin=f"replicated job `{name}` ({replicas} × {per_job} pods)",
                   nodes={"parallelism": f.field(job_spec, "parallelism")})
        group_refusals(b, template)
    b.check_groups(paths)
    status = f.map(o.node, "status")
    # Kueue's JobSet.IsActive: a replicated job with active child Jobs (ready ones are counted among them)
    started = any(f.int(s, "active", default=0) > 0 for s in f.maps(status, "replicatedJobsStatus"))
    finished = condition_true(f, status, "Completed", "Failed")
    state = run_state(started, finished)
    if not replicated and not f.collected:
        at = f.field(spec, "replicatedJobs") or o.node.v.get("spec") or o.node
        f.diags.emit(KAD167, f"JobSet `{o.name}` has no replicated jobs: Kueue never admits it", f.span(at),
                     help="the Workload Kueue makes of it would have no pod sets, which the API server refuses "
                          "(spec.podSets takes 1 to 8); give it a replicated job",
                     about=(Subject("JobSet", o.namespace or "default", o.name),))
        return b.job(state=state, workloads=[], note=NO_POD_SETS)
    # Kueue's JobSet.ReclaimablePods: a replicated job's succeeded child Jobs (at most its replicas)
    # times the pods per job
    reclaim: dict[str, int] = {}
    for st in f.maps(status, "replicatedJobsStatus"):
        name = f.str(st, "name")
        succeeded = f.int(st, "succeeded", default=0, lo=0)
        if name in shape and 0 < succeeded <= shape[name][0]:
            reclaim[name] = succeeded * shape[name][1]
    job = reclaimed(b.job(state=state), reclaim)
    refusal = child_refusal(f, o, job, spec)
    if refusal is not None:
        f.diags.emit(KAD170, f"Kueue's Job webhook refuses the Jobs JobSet `{o.name}` makes: {refusal}",
                     f.span(o.node), help="Kubernetes stores the JobSet, but JobSet's controller cannot create its "
                     "Jobs; change the replicated job's template as the message says",
                     about=(Subject("JobSet", o.namespace or "default", o.name),))
        return job.model_copy(update={"workloads": (), "note": JOBS_REFUSED + refusal})
    return job.model_copy(update={"unsuspended": child_jobs(f, o, job, spec)})


JOBS_REFUSED = "Kueue's Job webhook refuses its child Jobs: "


def _made(f: Fields, o: Meta, spec: Val | None, suspended: bool) -> Iterator[tuple[str | None, int, Val | None,
                                                                                     Job | None]]:
    """The replicated jobs whose Jobs JobSet's controller makes now, in order (`child_jobs` says which): each
    its name, replicas, Job template and the Job Kueue's Job integration reads of it (None where unreadable)."""
    in_order = not suspended and f.str(f.map(spec, "startupPolicy"), "startupPolicyOrder") == "InOrder"
    quiet = Fields(f.file, Diagnostics(), f.text)  # the templates are read, and reported on, as the JobSet's
    replicated = f.maps(spec, "replicatedJobs")
    counted: dict[str, int] = {f.str(rj, "name") or "": 0 for rj in replicated}  # after this one: none counted yet
    for rj in replicated:
        name, replicas = f.str(rj, "name"), f.int(rj, "replicas", default=1, lo=0)
        counted[name or ""] = replicas
        if any(counted.get(f.str(d, "name") or "", 1) for d in f.maps(rj, "dependsOn")) or (in_order and not replicas):
            continue  # not made yet (none it depends on has its status), or (InOrder) started with no Jobs
        template = f.map(rj, "template")
        made = None
        if name is not None and template is not None:
            meta = f.map(template, "metadata")
            labels, _ = f.str_map(meta, "labels")
            annotations, _ = f.str_map(meta, "annotations")
            labels = {**labels, "jobset.sigs.k8s.io/jobset-name": o.name}  # labelAndAnnotateObject's (one of them)
            try:
                made = batch_job(quiet, Meta("batch/v1", "Job", template, meta or template, f"{o.name}-{name}-0",
                                             o.namespace, labels, annotations), restart=KEPT)
            except Invalid:
                pass
        yield name, replicas, template, made
        if in_order:
            return  # the controller waits for these to start before it makes the next replicated job's


def child_refusal(f: Fields, o: Meta, job: Job, spec: Val | None) -> str | None:
    """What Kueue's Job webhook refuses of the first Job JobSet's controller makes of a JobSet being submitted
    (ValidateCreate runs for every Job, owned or not; e.g. a template's slice size above the Job's own pod count,
    which the JobSet's pod set, replicas × pods, allows): JobSet's controller never creates it, and the oracle's
    harness lists the JobSet as skipped (internal/jobs/jobsetjobs.go). Which replicated jobs are made as in
    `child_jobs`; a JobSet naming a queue is suspended by Kueue's webhook first, so InOrder does not apply to it
    (one managed through its namespace's `default` LocalQueue or manageJobsWithoutQueueName is read as its own
    spec.suspend says)."""
    if not job.submitted or job.owner is not None:
        return None
    suspended = f.bool(spec, "suspend", default=False) or bool(o.labels.get(QUEUE_LABEL))
    for _, replicas, _, made in _made(f, o, spec, suspended):
        # (a template's topology words start at `annotations`: the Job's path to them, Kueue's replicaMetaPath)
        words = [("spec.template.metadata." if r.message.startswith("annotations") else "") + r.message
                 for r in gate_on(made.refusals) if not r.pods and (made.queue or not r.managed_only)] \
            if made is not None and replicas else []
        if words:
            return "; ".join(words)
    return None


def child_jobs(f: Fields, o: Meta, job: Job, spec: Val | None) -> Job | None:
    """The Jobs JobSet's controller makes of a JobSet being submitted that Kueue's JobSet webhook leaves alone
    (`templatepods.route` says where): JobSet v0.11.1's reconcileReplicatedJobs and constructJob, one Job
    `<jobset>-<replicated job>-<i>` per replica of each replicated job, with the template's labels (and JobSet's
    own), as Kueue's Job integration reads them: each a Workload of its own (pod set `main`), queued where the
    template names a queue (`queue`; route adds the LocalQueue `default`). None where it makes none Kueue could
    take: a JobSet already in the cluster (its Jobs are in the input, or not known), one another object controls (a
    TrainJob's), one whose Jobs Kueue's Job webhook refuses (never created), or above MAX_OBJECT_WORKLOADS of them.

    When they are made changes which exist now, not the Workloads Kueue makes of them, so none of it is warned of
    (the oracle's harness makes them alike, internal/jobs/jobsetjobs.go; tests/oracle/features/jobset-unmarked-
    depends-on-suspended-and-in-order.yaml): a replicated job that `dependsOn` another gets its Jobs once that one's
    reach the status (dependencyReachedStatus), which none has yet, so only where each it depends on has no
    replicas; under `startupPolicy: InOrder`, not suspended, the controller makes the first replicated job with
    replicas and waits for its Jobs to start (allReplicasStarted) before the next, so only that one's exist; the
    later ones' Workloads come when they are made, pending work then. A JobSet suspended by its own `spec.suspend`
    makes its Jobs suspended (constructJob): Kueue's Job webhook and reconciler take those naming a queue as any
    (their Workloads queued and admitted alike; JobSet's controller suspends again each Kueue starts, suspendJobs,
    a fight over when they run: docs/KUEUE-DIFFERENCES.md §2), and the others start no pods."""
    if not job.submitted or job.owner is not None:
        return None
    suspended = f.bool(spec, "suspend", default=False)
    ref = job.object
    workloads = []
    pods: Job | None = None  # the first Job's pods, with what Kueue's pod webhook refuses of any Job's
    for name, replicas, template, made in _made(f, o, spec, suspended):
        if name is None or template is None or made is None or len(workloads) + replicas > MAX_OBJECT_WORKLOADS:
            return None
        if gate_on(made.refusals) or not made.workloads:
            return None
        if made.unsuspended is not None and replicas:
            pods = made.unsuspended if pods is None else pods.model_copy(update={"refusals": pods.refusals + tuple(
                r for r in made.unsuspended.refusals if r.pods and r not in pods.refusals)})
        if made.queue is None and made.unsuspended is not None and made.unsuspended.queue and not suspended:
            pod_labels = f.map(f.map(f.map(f.map(template, "spec"), "template"), "metadata"), "labels")
            if pod_labels is not None and GROUP_NAME in pod_labels.v:  # a pod group across the Jobs: not modelled
                unmodelled(f, o, f.field(pod_labels, QUEUE_LABEL), name, made.unsuspended.queue)
            else:
                workloads.extend(_pod_workloads(o, ref, name, replicas, made.unsuspended))
                continue
        one = made.workloads[0]
        workloads.extend(one.model_copy(update={
            "name": workload_name("Job", "batch", f"{o.name}-{name}-{i}", ""), "origin": ref, "kueue_name": "",
            "part": f"Job {o.name}-{name}-{i}", "queue": made.queue or "", "pod_sets": tuple(
                ps.model_copy(update={"origin": f"Job `{o.name}-{name}-{i}` of replicated job `{name}`"})
                for ps in one.pod_sets)}) for i in range(replicas))
    if not workloads:
        return None
    # (their pods: `templatepods.refused_pods` warns where Kueue's pod webhook refuses every one, KAD199)
    return job.model_copy(update={"framework": "batch/job", "workloads": tuple(workloads), "queue": None,
                                  "unsuspended": pods, "reclaimable": (), "refusals": ()})


def _pod_workloads(o: Meta, ref, name: str, replicas: int, pods: Job) -> list:
    """The Workloads of the pods of a running JobSet's Jobs that name no queue while their pod template does: the
    Jobs run (Kueue's Job webhook suspends none), and Kueue's pod webhook gates each pod they start (their ancestors,
    the Job and the JobSet, name none: FindAncestorJobManagedByKueue finds none Kueue's), each a plain pod's
    Workload of that queue (oracle: the harness makes the Jobs' pods, internal/jobs/ownpods.go). Kept where Kueue's
    pod integration is on (`templatepods._child_jobs`: their `part` says they are pods)."""
    return [w.model_copy(update={
        "name": workload_name("Pod", "", f"{o.name}-{name}-{i}-{k}", ""), "origin": ref, "kueue_name": "",
        "part": f"pod {k} of Job {o.name}-{name}-{i}", "queue": pods.queue or "", "pod_sets": tuple(
            ps.model_copy(update={"origin": f"a pod of Job `{o.name}-{name}-{i}` of replicated job `{name}`"})
            for ps in w.pod_sets)}) for i in range(replicas) for k, w in enumerate(pods.workloads)]


def unmodelled(f: Fields, o: Meta, at: Val | None, name: str, queue: str) -> None:
    """KAD161 where the pod template of Jobs a running JobSet makes names a queue and a pod group while the Jobs
    name none: their pods are Kueue's, a group across the Jobs, as kadmit does not model (`_pod_workloads` where
    they name no group)."""
    if o.labels.get(QUEUE_LABEL):
        return
    f.diags.emit(KAD161, f"JobSet `{o.name}` names no queue, while the pod template of its Jobs names LocalQueue "
                 f"`{queue}`: where Kueue leaves the JobSet running (its namespace has no LocalQueue `default`, "
                 f"and manageJobsWithoutQueueName does not take it), its Jobs of replicated job `{name}` name none "
                 "and run, and Kueue's pod webhook gates the pods they start, each a plain pod's Workload of that "
                 "queue (their ancestors name none), which kadmit does not model (it lists the JobSet as not "
                 "managed, and no Workload of those Jobs)", f.span(at),
                 help="name the queue on the JobSet itself (`kueue.x-k8s.io/queue-name`): Kueue then admits it as "
                      "a whole")
