"""Deployment and StatefulSet under Kueue (pkg/controller/jobs/deployment, statefulset): a
Deployment's pods are each a one-pod Workload (one template naming a pod group: the group's one); a StatefulSet's pods
are one pod group."""

from __future__ import annotations

from kadmit.manifests.builtinspec import selector_refusals
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import (DEFAULT_POD_SET, PRIORITY_LABEL, QUEUE_LABEL, Builder,
                                          object_ref, replicas_made, replicas_read, run_state, workload_name)
from kadmit.manifests.jobs.groups import GROUP_NAME
from kadmit.manifests.jobs.pods import MANAGED
from kadmit.manifests.jobs.templatepods import set_pods, template_pods, template_refusals
from kadmit.manifests.managerflags import manager_flag
from kadmit.model import Job

DEPLOYMENT = "deployment"
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"
STATEFULSET = "statefulset"


def _started(f: Fields, o: Meta) -> bool:
    status = f.map(o.node, "status")
    return bool(f.int(status, "replicas", default=0) or f.int(status, "readyReplicas", default=0))


def deployment(f: Fields, o: Meta) -> Job | list:
    """A Deployment as a job, and where it runs Kueue's manager, its `--feature-gates` (`managerflags`)."""
    job = _deployment(f, o)
    flag = manager_flag(f, o)
    return job if flag is None else [job, flag]


def _deployment(f: Fields, o: Meta) -> Job:
    """Each replica is a plain pod Kueue admits on its own ("every Pod from a Deployment is
    represented as a single independent Plain Pod", site/content/en/docs/tasks/run/deployment.md)."""
    spec = f.map(o.node, "spec", required=True, what=f"Deployment `{o.name}`")
    replicas = replicas_read(f, spec, f.int(spec, "replicas", default=1, lo=0), "its pods, one each,")
    replicas_made(f, spec, replicas)
    template = f.map(spec, "template", required=True, what=f"the spec of Deployment `{o.name}`")
    selector_refusals(f, spec)
    b = Builder(f, o, DEPLOYMENT)
    ref = object_ref(o, f)
    workloads = []
    for i in range(replicas):
        b.pod_sets = []
        b.template(DEFAULT_POD_SET, 1, template, template, origin=f"replica {i} (one pod)", pod=True)
        wl = b.workload(ref, b.pod_sets)
        workloads.append(wl.model_copy(update={"name": workload_name("Pod", "", f"{ref.name}-{i}", ref.uid),
                                               "part": f"replica {i}", "job_uid": "",  # the pod's UID: none yet
                                               "kueue_name": ""}))
    job = b.job(state=run_state(_started(f, o), False), workloads=workloads)
    labels, _ = f.str_map(f.map(template, "metadata"), "labels")
    # Its pods as Kueue's pod webhook meets them where Kueue's Deployment webhook left the Deployment unmarked:
    # it names no queue (nor its namespace's LocalQueue `default`) and manageJobsWithoutQueueName does not take
    # it, or its integration is not enabled (a no-op webhook, and FindAncestorJobManagedByKueue walks past the
    # ReplicaSet to a Deployment Kueue does not manage, already in the cluster or not): plain pods of the
    # template's queue (`templatepods.route` takes the one that applies)
    # (none where it has rolled out: its pods are in the input, or not known, D3)
    meta_labels = f.map(f.map(template, "metadata"), "labels")
    if not _started(f, o):
        # what Kueue's pod webhook refuses of its template's pods, whoever manages the Deployment (a UID or none, a
        # queue or none): the Deployment is stored, its ReplicaSet creates no pod (`manage._refused`, KAD170)
        job = job.model_copy(update={"refusals": job.refusals + template_refusals(f, o, template)})
    own = _pods_own(job.model_copy(update={"framework": "pod", "submitted": True}), b, labels)
    pods = None if _started(f, o) else own.model_copy(update={"workloads": tuple(
        w.model_copy(update={"spans": f.spans({**w.spans.items, "queue": f.field(meta_labels, QUEUE_LABEL),
                                               "priority_class": f.field(meta_labels, PRIORITY_LABEL)})})
        for w in own.workloads)})
    if pods is not None and labels.get(GROUP_NAME):  # the template's pod group's members: one Workload, the group's
        pods = template_pods(f, o, own, template, replicas)
    if not f.str(o.metadata, "uid"):
        if pods is not None and labels.get(GROUP_NAME):
            job = _group_own(job, pods)
        # Kueue's Deployment webhook copies the Deployment's queue (its label, else its namespace's LocalQueue
        # `default`) into the pod template and marks it; naming none, it leaves the template alone unless
        # manageJobsWithoutQueueName (WorkloadShouldBeSuspended)
        return job.model_copy(update={"unsuspended": pods})
    # Already in the cluster (a UID): it never passed Kueue's Deployment webhook, which marks its pod
    # template (`pod-suspending-parent`) and copies the Deployment's queue name and WorkloadPriorityClass
    # label into it. Its pods, made from the template as stored, pass Kueue's pod webhook: unmarked pods
    # of a Deployment that names a queue are left alone (FindAncestorJobManagedByKueue: their owner is
    # Kueue's), so its pod reconciler skips them; otherwise the pods' own labels decide (the template's
    # queue name; ExtractPriority: the template's class label, else the pods' priorityClassName).
    annotations, _ = f.str_map(f.map(template, "metadata"), "annotations")
    if SUSPENDED_BY_PARENT not in annotations and o.labels.get(QUEUE_LABEL):
        return job.model_copy(update={"workloads": (), "unsuspended": pods, "note": (
            "already in the cluster (a UID), it never passed Kueue's Deployment webhook, which marks its pod "
            f"template (`{SUSPENDED_BY_PARENT}`): its pods belong to a Deployment that names a queue, so Kueue's "
            "pod webhook leaves them alone and Kueue skips them (\"Skipping pod, not managed by Kueue\")")})
    if SUSPENDED_BY_PARENT in annotations and labels.get(MANAGED) != "true":
        return job.model_copy(update={"workloads": (), "unsuspended": pods, "parent_marked": True, "note": (
            f"its pod template carries the mark of Kueue's Deployment webhook (`{SUSPENDED_BY_PARENT}`) without the "
            f"`{MANAGED}: \"true\"` label that webhook adds with it: Kueue's pod webhook gates its pods for the mark "
            "without labelling them, and Kueue's pod reconciler skips them (\"Skipping pod, not managed by Kueue\"), "
            "so they stay gated, never admitted")})
    own = _pods_own(job, b, labels)
    if pods is not None and labels.get(GROUP_NAME):  # its template's pod group: one Workload (oracle), not one a pod
        own = own.model_copy(update={"workloads": pods.workloads, "note": pods.note})
    # its template's mark: Kueue's pod webhook gates its pods without walking up to it, and the pod integration a
    # parent's turns on takes them (`manage._not_managed` says what becomes of unmarked ones)
    return own.model_copy(update={"unsuspended": pods, "parent_marked": SUSPENDED_BY_PARENT in annotations})


def _group_own(job: Job, group: Job) -> Job:
    """A Deployment being submitted whose template names a pod group, where Kueue manages it (it names a queue, or
    takes its namespace's LocalQueue `default`): its Deployment webhook copies that queue (and its
    WorkloadPriorityClass label) into the template and marks it, so Kueue's pod webhook gates the replicas as the
    group's members and its pod group reconciler makes one Workload of them, named as the group, all or nothing
    (`group`: `templatepods.template_pods`), not one a replica."""
    own = job.workloads[0] if job.workloads else None
    marked = job.priority_class_label and own is not None  # the Deployment's class label, copied to its pods
    return job.model_copy(update={"note": group.note, "workloads": tuple(w.model_copy(update={
        "queue": "", "spans": own.spans if own is not None else w.spans,
        **({"priority_class": own.priority_class, "priority_class_kind": own.priority_class_kind} if marked else {})})
        for w in group.workloads)})


def _pods_own(job: Job, b: Builder, labels: dict[str, str]) -> Job:
    """`job` with the queue and priority its pods' own labels give (the template's queue name;
    ExtractPriority: the template's class label, else the pods' priorityClassName)."""
    klass = labels.get(PRIORITY_LABEL) or None
    kind = "workload" if klass else None
    if klass is None and b.priority_class_names:
        klass, kind = b.priority_class_names[0], "pod"
    return job.model_copy(update={
        "queue": labels.get(QUEUE_LABEL) or None, "priority_class_label": bool(labels.get(PRIORITY_LABEL)),
        "workloads": tuple(w.model_copy(update={"priority_class": klass, "priority_class_kind": kind})
                           for w in job.workloads)})


def stateful_set(f: Fields, o: Meta) -> Job:
    """One pod group of `replicas` pods, pod set `main` (statefulset_pod_reconciler.go sets the
    group name, total count = replicas, role `main`)."""
    spec = f.map(o.node, "spec", required=True, what=f"StatefulSet `{o.name}`")
    replicas = f.int(spec, "replicas", default=1, lo=0)
    template = f.map(spec, "template", required=True, what=f"the spec of StatefulSet `{o.name}`")
    selector_refusals(f, spec)
    b = Builder(f, o, STATEFULSET)
    if replicas:
        b.template(DEFAULT_POD_SET, replicas, template, template, count_node=f.field(spec, "replicas"),
                   origin=f"its {replicas} replicas")
        # pending whatever its status shows: Kueue's reconciler makes its pod group's Workload
        # (createPrebuiltWorkload) whenever it has replicas and none exists; its pods are Kueue's plain pods
        # where Kueue's webhook leaves it unmarked (templatepods.route)
        job = b.job()  # with what Kueue's pod webhook refuses of each pod made of it (`lws.stateful_pods`)
        return job.model_copy(update={"unsuspended": set_pods(f, o, job, spec, template, replicas),
                                      "refusals": job.refusals + template_refusals(f, o, template)})
    return b.job(workloads=[], note="it has no replicas")
