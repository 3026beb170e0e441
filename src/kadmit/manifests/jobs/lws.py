"""LeaderWorkerSet -> one Workload per group replica, each a leader and its workers (Kueue's
pkg/controller/jobs/leaderworkerset)."""

from __future__ import annotations

import re

from kadmit.manifests.codes import KAD161
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import (DEFAULT_POD_SET, QUEUE_LABEL, Builder, object_ref, replicas_made,
                                          replicas_read, workload_name)
from kadmit.manifests.yamltree import Val
from kadmit.model import Job, ObjectRef, Workload

FRAMEWORK = "leaderworkerset.x-k8s.io/leaderworkerset"
GROUP = "leaderworkerset.x-k8s.io"


def group_workloads(f: Fields, b: Builder, ref: ObjectRef, spec: Val, lws_name: str, what: str,
                    within: str = "", within_path: str = "spec.leaderWorkerTemplate",
                    status: Val | None = None) -> list[Workload]:
    """`podSets` for each group replica `i` of a LeaderWorkerSet spec: `leader` (1) and `worker`
    (size − 1) with a leader template, else `main` (size); named as Kueue names them
    (`GetWorkloadName(uid, "<lws>", i)`). The groups are `spec.replicas`, or `status.replicas`
    while a rolling update with a surge has more (Kueue's filterWorkloads)."""
    replicas = replicas_read(f, spec, f.int(spec, "replicas", default=1, lo=0), "its groups, one each,")
    replicas = max(replicas, replicas_read(f, status, _surge(f, spec, status, replicas),
                                           "its groups in the rolling update, one each,"))
    replicas_made(f, spec, replicas)
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


def _surge(f: Fields, spec: Val, status: Val | None, replicas: int) -> int:
    """`status.replicas` when Kueue's filterWorkloads counts groups by it: more than `replicas`, during
    a rolling update whose `maxSurge` (IntOrString.IntValue: an integer, or a string of one; else 0)
    is positive and `status.updatedReplicas` is below `replicas`; else 0."""
    shown = f.int(status, "replicas", default=0)
    if shown <= replicas:
        return 0
    rolling = f.map(f.map(spec, "rolloutStrategy"), "rollingUpdateConfiguration")
    surge = f.field(rolling, "maxSurge")
    value = surge.v if surge is not None else 0
    if isinstance(value, str):
        digits = re.fullmatch(r"([+-]?)0*([0-9]+)", value)  # only the sign matters (Atoi: out of range is the max)
        value = 0 if digits is None else int(digits.group(1) + digits.group(2)[:20])
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return 0
    return shown if f.int(status, "updatedReplicas", default=0) < replicas else 0


def leader_worker_set(f: Fields, o: Meta) -> Job:
    """Never suspended (its pods are gated) and never running in Kueue's sense: its reconciler makes
    each group's Workload whatever the status shows (createPrebuiltWorkload)."""
    spec = f.map(o.node, "spec", required=True, what=f"LeaderWorkerSet `{o.name}`")
    b = Builder(f, o, FRAMEWORK)
    ref = object_ref(o, f)
    workloads = group_workloads(f, b, ref, spec, ref.name, f"the spec of LeaderWorkerSet `{o.name}`",
                                status=f.map(o.node, "status"))
    job = b.job(workloads=workloads)
    if not workloads:
        job = job.model_copy(update={"note": "it has no replicas"})
    elif job.submitted and job.owner is None and not job.queue:
        _queue_in_templates(f, o, f.map(spec, "leaderWorkerTemplate"))
    return job


def _queue_in_templates(f: Fields, o: Meta, lwt: Val | None) -> None:
    """KAD161 where a LeaderWorkerSet being submitted names no queue while a template does: where Kueue's webhook
    leaves it alone (no LocalQueue `default` in its namespace, no manageJobsWithoutQueueName), LeaderWorkerSet's
    controller makes StatefulSets and pods of those templates, which Kueue's pod webhook meets as any pod (a
    leader pod of the template's queue gated, a plain pod's Workload; the workers' ancestor walk finding their
    leader pod, which names a queue, leaves them ungated): not modelled, kadmit lists it as not managed."""
    for part in ("leaderTemplate", "workerTemplate"):
        labels = f.map(f.map(f.map(lwt, part), "metadata"), "labels")
        queue = f.field(labels, QUEUE_LABEL)
        if queue is not None and isinstance(queue.v, str) and queue.v:
            f.diags.emit(KAD161, f"LeaderWorkerSet `{o.name}` names no queue, while its `{part}` names LocalQueue "
                         f"`{queue.v}`: where Kueue leaves the LeaderWorkerSet alone, the pods its controller makes "
                         "of that template reach Kueue's pod webhook with that label and may be Kueue's one by one "
                         "(a leader pod a Workload of its own; its workers, under a leader pod that names a queue, "
                         "left ungated), which kadmit does not model: it lists the LeaderWorkerSet as not managed",
                         f.span(queue), help="name the queue on the LeaderWorkerSet itself "
                                             "(`kueue.x-k8s.io/queue-name`): Kueue then admits each group as a whole")
            return
