"""LeaderWorkerSet -> one Workload per group replica, each a leader and its workers (Kueue's
pkg/controller/jobs/leaderworkerset)."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import DEFAULT_POD_SET, Builder, object_ref, run_state, workload_name
from kadmit.manifests.yamltree import Val
from kadmit.model import Job, ObjectRef, Workload

FRAMEWORK = "leaderworkerset.x-k8s.io/leaderworkerset"
GROUP = "leaderworkerset.x-k8s.io"


def group_workloads(f: Fields, b: Builder, ref: ObjectRef, spec: Val, lws_name: str, what: str,
                    within: str = "", within_path: str = "spec.leaderWorkerTemplate") -> list[Workload]:
    """`podSets` for each group replica `i` of a LeaderWorkerSet spec: `leader` (1) and `worker`
    (size − 1) with a leader template, else `main` (size); named as Kueue names them
    (`GetWorkloadName(uid, "<lws>", i)`)."""
    replicas = f.int(spec, "replicas", default=1, lo=0)
    lwt = f.map(spec, "leaderWorkerTemplate", required=True, what=what)
    size = f.int(lwt, "size", default=1, lo=1)
    leader = f.map(lwt, "leaderTemplate")
    worker = f.map(lwt, "workerTemplate", required=True, what="`leaderWorkerTemplate`")
    out = []
    for i in range(replicas):
        b.pod_sets = []
        group = f"{within}group {i}"
        if leader is not None:
            b.template("leader", 1, leader, leader, origin=f"the leader of {group}")
            b.template("worker", size - 1, worker, worker, count_node=f.field(lwt, "size"),
                       origin=f"the workers of {group} (size {size} − the leader)")
        else:
            b.template(DEFAULT_POD_SET, size, worker, worker, count_node=f.field(lwt, "size"),
                       origin=f"{group} ({size} pods from the worker template)")
        if i == 0:  # Kueue's webhook checks the groups of the object's pod sets, the same for every replica
            b.check_groups({"leader": f"{within_path}.leaderTemplate.metadata.annotations",
                            "worker": f"{within_path}.workerTemplate.metadata.annotations",
                            DEFAULT_POD_SET: f"{within_path}.workerTemplate.metadata.annotations"})
        wl = b.workload(ref, b.pod_sets)
        out.append(wl.model_copy(update={"name": workload_name("LeaderWorkerSet", GROUP, f"{lws_name}-{i}", ref.uid),
                                         "part": group}))
    return out


def leader_worker_set(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"LeaderWorkerSet `{o.name}`")
    b = Builder(f, o, FRAMEWORK)
    ref = object_ref(o, f)
    workloads = group_workloads(f, b, ref, spec, ref.name, f"the spec of LeaderWorkerSet `{o.name}`")
    status = f.map(o.node, "status")
    started = bool(f.int(status, "replicas", default=0) or f.int(status, "readyReplicas", default=0))
    job = b.job(state=run_state(False, started, False), workloads=workloads)
    if not workloads:
        job = job.model_copy(update={"note": "it has no replicas"})
    return job
