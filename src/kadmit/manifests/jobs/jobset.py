"""JobSet -> a pod set per replicated job, replicas × pods per job (Kueue's pkg/controller/jobs/jobset)."""

from __future__ import annotations

from kadmit.manifests.codes import KAD167
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.batch import pods_count
from kadmit.manifests.jobs.common import Builder, condition_true, reclaimed, run_state
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
        b.template(name, replicas * per_job, template, rj, count_node=f.field(rj, "replicas"),
                   origin=f"replicated job `{name}` ({replicas} × {per_job} pods)",
                   nodes={"parallelism": f.field(job_spec, "parallelism")})
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
                          "(spec.podSets takes 1 to 8); give it a replicated job")
        return b.job(state=state, workloads=[], note=NO_POD_SETS)
    # Kueue's JobSet.ReclaimablePods: a replicated job's succeeded child Jobs (at most its replicas)
    # times the pods per job
    reclaim: dict[str, int] = {}
    for st in f.maps(status, "replicatedJobsStatus"):
        name = f.str(st, "name")
        succeeded = f.int(st, "succeeded", default=0, lo=0)
        if name in shape and 0 < succeeded <= shape[name][0]:
            reclaim[name] = succeeded * shape[name][1]
    return reclaimed(b.job(state=state), reclaim)
