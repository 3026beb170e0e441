"""LeaderWorkerSet -> one Workload per group replica, each a leader and its workers (Kueue's
pkg/controller/jobs/leaderworkerset)."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import DEFAULT_POD_SET, Builder, object_ref, run_state
from kadmit.model import Job

FRAMEWORK = "leaderworkerset.x-k8s.io/leaderworkerset"


def leader_worker_set(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"LeaderWorkerSet `{o.name}`")
    replicas = f.int(spec, "replicas", default=1, lo=0)
    lwt = f.map(spec, "leaderWorkerTemplate", required=True, what=f"the spec of LeaderWorkerSet `{o.name}`")
    size = f.int(lwt, "size", default=1, lo=1)
    leader = f.map(lwt, "leaderTemplate")
    worker = f.map(lwt, "workerTemplate", required=True, what="`leaderWorkerTemplate`")
    b = Builder(f, o, FRAMEWORK)
    ref = object_ref(o, f)
    workloads = []
    for i in range(replicas):
        b.pod_sets = []
        if leader is not None:
            b.template("leader", 1, leader, leader, origin=f"the leader of group {i}")
            b.template("worker", size - 1, worker, worker, count_node=f.field(lwt, "size"),
                       origin=f"the workers of group {i} (size {size} − the leader)")
        else:
            b.template(DEFAULT_POD_SET, size, worker, worker, count_node=f.field(lwt, "size"),
                       origin=f"group {i} ({size} pods from the worker template)")
        workloads.append(b.workload(ref, b.pod_sets, suffix=f"-{i}").model_copy(update={"part": f"group {i}"}))
    status = f.map(o.node, "status")
    started = bool(f.int(status, "replicas", default=0) or f.int(status, "readyReplicas", default=0))
    job = b.job(state=run_state(False, started, False), workloads=workloads)
    if not workloads:
        job = job.model_copy(update={"note": "it has no replicas"})
    return job
