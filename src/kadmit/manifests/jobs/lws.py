"""LeaderWorkerSet -> one Workload per group replica, each a leader and its workers (Kueue's
pkg/controller/jobs/leaderworkerset)."""

from __future__ import annotations

import re

from kadmit.diagnostics import Diagnostics
from kadmit.identity import subject
from kadmit.manifests.codes import KAD161, KAD188, KAD199
from kadmit.manifests.fields import Fields, Invalid, Meta
from kadmit.manifests.jobs.common import DEFAULT_POD_SET, Builder, object_ref, replicas_made, replicas_read, workload_name
from kadmit.manifests.yamltree import Val
from kadmit.model import Job, ObjectRef, Workload
from kadmit.modelbase import Shapes

STATEFULSET = "statefulset"
# the worker pod set's topologyRequest index label (leaderworkerset_reconciler.go PodIndexLabel; the leader has none)
WORKER_INDEX = ("leaderworkerset.sigs.k8s.io/worker-index", None, None)

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
            b.template("leader", 1, leader, leader, origin=f"the leader of {group}", index=())
            b.template("worker", size - 1, worker, worker, count_node=f.field(lwt, "size"), index=WORKER_INDEX,
                       origin=f"the workers of {group} (size {size} − the leader)")
        else:
            b.template(DEFAULT_POD_SET, size, worker, worker, count_node=f.field(lwt, "size"), index=WORKER_INDEX,
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
    elif job.submitted and job.owner is None:
        # naming a queue itself, it is Kueue's where its integration is enabled; disabled, its webhook is a no-op and
        # its controllers make the same StatefulSets and pods as of one naming none (`templatepods.route` says which)
        quiet = Fields(f.file, Diagnostics(), f.text) if job.queue else f
        job = job.model_copy(update={"unsuspended": _pods(quiet, o, job, spec), "leader_set": _leader_set(f, o, job, spec)})
    return job


def _leader_set(f: Fields, o: Meta, job: Job, spec: Val) -> Job | None:
    """The Workload Kueue's StatefulSet reconciler makes of the leader StatefulSet `<lws>` LeaderWorkerSet v0.8.0's
    controller makes of a LeaderWorkerSet being submitted (constructLeaderStatefulSetApplyConfiguration: `replicas`
    pods of the leader template, else the worker template; labels its own, none of the LeaderWorkerSet's), where
    Kueue's StatefulSet webhook takes that StatefulSet (`templatepods.route`): createPrebuiltWorkload's one pod set
    `main` of `replicas` leaders, as of any StatefulSet (`apps.stateful_set`), with its queue once route gives it.
    The leader pods are that Workload's (the webhook marks their template: suspended by their parent); the workers
    run ungated, outside any quota (their walk finds the leader StatefulSet, Kueue's). None without replicas, or
    where the API server refuses the leader template in a StatefulSet (not modelled: no leader is then made)."""
    lwt = f.map(spec, "leaderWorkerTemplate")
    worker = f.map(lwt, "workerTemplate")
    leader = f.map(lwt, "leaderTemplate") or worker
    replicas = f.int(spec, "replicas", default=1, lo=0)
    if leader is None or replicas <= 0:
        return None
    quiet = Fields(f.file, Diagnostics(), f.text)  # the template is read, and reported on, as the LeaderWorkerSet's
    b = Builder(quiet, Meta("apps/v1", "StatefulSet", o.node, o.metadata, o.name, o.namespace, {}, o.annotations),
                STATEFULSET)
    try:
        b.template(DEFAULT_POD_SET, replicas, leader, leader, origin=f"the {replicas} leaders (its leader StatefulSet's pods)")
    except Invalid:  # a template the API server refuses in a StatefulSet (KAD199 says so where Kueue takes the LWS)
        return None
    ref = job.object
    wl = b.workload(ref, b.pod_sets).model_copy(update={"part": f"leader StatefulSet {o.name}"})
    from kadmit.manifests.jobs.templatepods import template_refusals
    from kadmit.manifests.workloads import template_maps

    return job.model_copy(update={"framework": STATEFULSET, "queue": None, "workloads": (wl,), "unsuspended": None,
                                  "refusals": template_refusals(quiet, b.o, leader), "priority_class_label": False,
                                  "templates": Shapes([(0, *template_maps(quiet, leader))])})


def stateful_pods(job: Job, diags: Diagnostics | None, multi_layer: bool = False) -> Job:
    """`job`, the Workload Kueue's StatefulSet reconciler makes of a StatefulSet it takes (one of the input, or a
    LeaderWorkerSet's leader StatefulSet: `_leader_set`, as `templatepods.route` takes it), without the refusals
    of Kueue's pod webhook, which refuses every pod that StatefulSet makes (ValidateCreate runs for every pod, the
    suspended-by-parent mark or not: `validateCommon`, e.g. a pod group name without `pod-group-total-count`,
    which Kueue's StatefulSet pod reconciler would set only on a pod once created): the StatefulSet is stored,
    and its reconciler makes its Workload all the same, which Kueue admits (oracle:
    leaderworkerset-without-its-integration-statefulset-leader-pods-refused.yaml, statefulset-template-naming-a-
    pod-group.yaml), holding its quota while no pod is ever created. Said as KAD199 (a pod template whose pods
    are refused; admit's summary counts it), not KAD170: the StatefulSet is stored, not refused. Where none
    refuses them and the template names a pod group of its own with its count, the pods are created gated and
    stay so (KAD188, `_gated_for_good`). `multi_layer`: the gate TASMultiLayerTopology, which the slice layers
    annotation's refusals depend on (`Refusal.multi_layer`)."""
    name, lws = job.object.name, job.object.kind == "LeaderWorkerSet"
    whose = (f"leader pod of LeaderWorkerSet `{name}` (the pods of its leader StatefulSet `{name}`, which Kueue's "
             "StatefulSet integration takes, its own not enabled)") if lws else f"pod of StatefulSet `{job.object.key}`"
    refused = [r for r in job.refusals if r.multi_layer in (None, multi_layer)]
    for r in refused if diags is not None else ():
        diags.emit(KAD199, f"Kueue's pod webhook refuses every {whose}: {r.message}; Kueue's StatefulSet "
                   "reconciler makes the StatefulSet's Workload all the same, and once admitted it holds its quota "
                   "while no pod of it is created", r.span or job.span,
                   help=f"drop the pod group from the {'leader' if lws else 'pod'} template: Kueue's StatefulSet pod "
                        "reconciler puts its pods in the StatefulSet's own group (with its count, they would be "
                        "created but stay gated: that reconciler cannot rename a group, docs/KUEUE-DIFFERENCES.md)",
                   about=(subject(job.object),))
    if not refused and diags is not None:
        _gated_for_good(job, whose, lws, diags)
    return job.model_copy(update={"refusals": ()})


def _gated_for_good(job: Job, whose: str, lws: bool, diags: Diagnostics) -> None:
    """KAD188 where the StatefulSet's pod template names a pod group of its own, with its count: Kueue's pod
    webhook creates its pods gated (suspended by their parent); its StatefulSet pod reconciler's setDefault then
    sets their group label to the Workload's name, which the pod webhook's ValidateUpdate refuses (the group
    name is immutable), so they keep their group, lack the `kueue.x-k8s.io/managed` label, and nothing ungates
    them (read from Kueue v0.17.0's source; the oracle's harness runs no pod reconciler for them)."""
    from kadmit.manifests.jobs.groups import GROUP_NAME
    from kadmit.manifests.jobs.pods import GROUP_TOTAL

    _, _, labels, annotations = (job.templates or ((0, {}, {}, {}),))[0]
    group = labels.get(GROUP_NAME)
    if not group or GROUP_TOTAL not in annotations or any(group == w.kueue_name for w in job.workloads):
        return
    diags.emit(KAD188, f"every {whose} is created gated in its own pod group `{group}` and stays gated: Kueue's "
               "StatefulSet pod reconciler sets each pod's `kueue.x-k8s.io/pod-group-name` to the StatefulSet's "
               "Workload's name, which Kueue's pod webhook refuses (a pod group's name is immutable), so nothing "
               "ungates them; the Workload, once admitted, holds its quota while no pod of it runs", job.span,
               help=f"drop `kueue.x-k8s.io/pod-group-name` and its count from the {'leader' if lws else 'pod'} "
                    "template: Kueue's StatefulSet pod reconciler puts the pods in the StatefulSet's own group",
               about=(subject(job.object),))


def _pods(f: Fields, o: Meta, job: Job, spec: Val) -> Job | None:
    """The pods LeaderWorkerSet v0.8.0's controllers make of a LeaderWorkerSet being submitted that Kueue's webhook
    leaves unmarked (`templatepods.route` says where), as Kueue's pod webhook takes them: its leader StatefulSet's
    pods `<lws>-<i>` (the leader template, else the worker template), each gated where it names a queue (its
    ancestors, the StatefulSet and the LeaderWorkerSet, name none), a plain pod's Workload; each leader's worker
    StatefulSet's pods `<lws>-<i>-<j>` (j from 1; none with `size` 1, nor under `startupPolicy: LeaderReady`, as a
    gated leader is never Ready), gated where the worker template names a queue and the leader none (else their
    walk finds the leader pod, a managed ancestor, and leaves them ungated, outside any quota). None where no pod
    is gated. Where the gated pods' template names a pod group (`kueue.x-k8s.io/pod-group-name`), they are its
    members, one Workload (`template_pods`), the ungated pods too where they carry the same group (KAD161). Where the
    leaders' template names neither a queue nor a pod group, the leaders of no queue, for `route` to give the
    LocalQueue `default` where the namespace has one (Kueue's pod webhook, ApplyDefaultLocalQueue: their owner, the
    leader StatefulSet, no enabled integration's), with the pods gated by their templates' queues alone (`_gated`,
    for a namespace without one) as their `unsuspended`."""
    from kadmit.manifests.jobs.templatepods import template_pods

    lwt = f.map(spec, "leaderWorkerTemplate")
    worker = f.map(lwt, "workerTemplate")
    leader = f.map(lwt, "leaderTemplate") or worker
    replicas, size = f.int(spec, "replicas", default=1, lo=0), f.int(lwt, "size", default=1, lo=1)
    if worker is None or replicas <= 0:
        return None
    leaders = template_pods(f, o, job, leader, 1)
    workers = size > 1 and f.str(spec, "startupPolicy") != "LeaderReady"
    gated_leaders = leaders is not None and bool(leaders.queue)
    if leaders is not None and not gated_leaders and not leaders.group and len(leaders.workloads) == 1:
        # naming no queue, the leaders take the LocalQueue `default` where there is one (`route`), the workers
        # then left ungated (their walk finds their leader pod, Kueue's); else the pods as below
        defaulted = _per_pod(leaders, job, [f"{o.name}-{i}" for i in range(replicas)])
        return defaulted.model_copy(update={"unsuspended": _gated(f, o, job, leader, worker, workers, replicas,
                                                                  size, leaders)})
    return _gated(f, o, job, leader, worker, workers, replicas, size, leaders)


def _gated(f: Fields, o: Meta, job: Job, leader: Val, worker: Val, workers: bool, replicas: int, size: int,
           leaders: Job | None) -> Job | None:
    """The pods Kueue's pod webhook gates by their templates' queues alone (`_pods`), or None."""
    from kadmit.manifests.jobs.templatepods import template_pods

    gated_leaders = leaders is not None and bool(leaders.queue)
    if gated_leaders:
        names, template, others = [f"{o.name}-{i}" for i in range(replicas)], leader, worker if workers else None
    elif workers:
        names = [f"{o.name}-{i}-{j}" for i in range(replicas) for j in range(1, size)]
        template, others = worker, leader
    else:
        return None
    pods = leaders if gated_leaders else template_pods(f, o, job, worker, 1)
    if pods is not None and pods.queue and (group := _group(f, template)):
        if others is not None and _group(f, others) == group:
            _ungated_members(f, o, group, gated_leaders)
            ungated = [f"{o.name}-{i}-{j}" for i in range(replicas) for j in range(1, size)] if gated_leaders else \
                [f"{o.name}-{i}" for i in range(replicas)]
            return template_pods(f, o, job, template, len(names), more=((others, ungated),), names=names)
        return template_pods(f, o, job, template, len(names), names=names)  # the group's members: one Workload
    if pods is None or not pods.queue or len(pods.workloads) != 1:
        return None
    return _per_pod(pods, job, names)


def _per_pod(pods: Job, job: Job, names: list[str]) -> Job:
    """`pods` (one plain pod's Workload) as the pods `names`, each with its own Workload, named as Kueue names it."""
    one, ref = pods.workloads[0], job.object
    return pods.model_copy(update={"workloads": tuple(one.model_copy(update={
        "name": workload_name("Pod", "", name, ref.uid), "part": f"pod {name}", "queue": pods.queue,
        "kueue_name": ""})  # a pod the leader StatefulSet makes: no UID yet
        for name in names)})


def _group(f: Fields, template: Val | None) -> str | None:
    """The pod group a template's pods are members of (`kueue.x-k8s.io/pod-group-name`), or None."""
    from kadmit.manifests.jobs.groups import GROUP_NAME

    return f.str_map(f.map(template, "metadata"), "labels")[0].get(GROUP_NAME) or None


def _ungated_members(f: Fields, o: Meta, group: str, leaders: bool) -> None:
    """KAD161 where the pods Kueue's pod webhook leaves ungated carry the gated pods' pod group: Kueue's pod group
    reconciler lists the group's pods by that label alone, so it counts them too, while they run outside any
    quota; a Running one keeps it from making the group's Workload (`Pod.IsActive`), so what Kueue does depends
    on whether they run before it reconciles the group. kadmit counts them as members not yet running, as the
    oracle, whose pods never run, does (`_gated`; leaderworkerset-ungated-pods-carrying-the-gated-pods-group.yaml)."""
    gated, ungated = ("leaders", "workers, under a leader naming a queue,") if leaders else \
        ("workers", "leaders, naming no queue,")
    f.diags.emit(KAD161, f"LeaderWorkerSet `{o.name}` names no queue: where Kueue leaves it unmarked (its namespace "
                 "has no LocalQueue `default`, and manageJobsWithoutQueueName does not take it), its "
                 f"{gated} are gated as pod group `{group}` and its {ungated} run ungated carrying the same group: "
                 "Kueue's pod group reconciler counts them among the group's pods by the label, and a running one "
                 "keeps it from making the group's Workload, so Kueue's outcome depends on when they run, which "
                 "kadmit does not model (it counts them as members not yet running, as when the reconciler meets "
                 "them first)", f.span(o.node),
                 help="name the queue on the LeaderWorkerSet itself (`kueue.x-k8s.io/queue-name`): Kueue then "
                      "admits each group as a whole")
