"""Plain Pods and Kueue pod groups (Kueue's pkg/controller/jobs/pod): a pod with Kueue's labels is
a one-pod Workload, or a member of the group named by `kueue.x-k8s.io/pod-group-name`, which
`manage` assembles once every file is read."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.groups import GROUP_NAME
from kadmit.manifests.jobs.common import (DEFAULT_POD_SET, PREBUILT_LABEL, QUEUE_LABEL, Builder, annotation_node,
                                          object_ref)
from kadmit.manifests.jobs.refusals import go_atoi, go_quote
from kadmit.manifests.jobs.rolehash import role_hash
from kadmit.manifests.jobs.replicasets import SUSPENDED_BY_PARENT, plain_pod
from kadmit.manifests.jobs.settings import MANAGED_PATH
from kadmit.manifests.owners import controller_owner
from kadmit.model import Job, Refusal

FRAMEWORK = "pod"
GATE = "kueue.x-k8s.io/admission"
GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
SERVING = "kueue.x-k8s.io/pod-group-serving"
MANAGED = "kueue.x-k8s.io/managed"
ROLE_HASH = "kueue.x-k8s.io/role-hash"
_BOTH = f"both the '{GROUP_TOTAL}' annotation and the '{GROUP_NAME}' label should be set"


def pod_job(f: Fields, o: Meta) -> Job | None:
    """The pod as Kueue's pod integration sees it, when it carries Kueue's marks (a queue name, a
    group name, Kueue's admission gate) or is about to be created (no UID, no status, no node):
    Kueue's pod webhook then gives it the queue `default` where its namespace has that LocalQueue,
    or manages it under `manageJobsWithoutQueueName` (`manage` decides which, and lists the others
    as not managed). None for other pods, which are read only as node usage. Pods another object
    controls (a StatefulSet, a Job...) are that object's, but a ReplicaSet's and one Kueue labelled
    `managed` (`replicasets.plain_pod`), and one being submitted whose controllers Kueue's webhook finds
    none it manages (`ancestors.ancestry`, which `manage` asks).
    A pod the input shows as already created (a UID or a status) is Kueue's only with the
    `kueue.x-k8s.io/managed: "true"` label its webhook adds; one being submitted gets it then."""
    spec = f.map(o.node, "spec")
    gates = [f.str(g, "name") for g in f.maps(spec, "schedulingGates")]
    group = o.labels.get(GROUP_NAME) or o.annotations.get(GROUP_NAME)
    status = f.map(o.node, "status")
    created = bool(f.str(o.metadata, "uid") or (status is not None and status.v))
    if not (o.labels.get(QUEUE_LABEL) or group or GATE in gates or o.labels.get(MANAGED) == "true"
            or not (created or f.str(spec, "nodeName"))):
        return None
    controller = controller_owner(f, o)
    if controller is not None and created and not plain_pod(controller, o.labels.get(MANAGED) == "true"):
        # its controller's: `manage` says so where that object is not in the input (replicasets.owners_pod); one
        # being submitted is read whole, and `manage` walks up its controllers as Kueue's webhook does (ancestors)
        return Job(object=object_ref(o, f), framework=FRAMEWORK, owner=controller, span=f.span(o.node))
    if created and o.labels.get(MANAGED) != "true":
        # a pod already in the cluster that Kueue's webhook never labelled: its reconciler skips it
        # (pod.Skip, "Skipping pod, not managed by Kueue"), so it is node usage only
        return None
    b = Builder(f, o, FRAMEWORK)
    if controller is not None and not created and plain_pod(controller, False):  # a ReplicaSet's
        # Kueue's pod webhook walks up from a pod its ReplicaSet submits (FindAncestorJobManagedByKueue): it reads
        # the ReplicaSet, and the Deployment controlling it, and refuses the pod where they are not there
        return b.job(workloads=[], note=(
            f"ReplicaSet `{controller.name}` controls it, and it is being submitted (no UID, no status): Kueue's pod "
            "webhook reads that ReplicaSet and the Deployment controlling it to decide whether the pod is Kueue's "
            "(FindAncestorJobManagedByKueue), and kadmit reads neither; give the pod as the cluster holds it (its "
            "UID, its status and Kueue's labels), or its Deployment"))
    b.template(DEFAULT_POD_SET, 1, o.node, o.node, origin=f"pod `{o.name}`", pod=True)
    total = None
    # the pod webhook's validateCommon, in its order: the managed label, the group's metadata, the topology
    # annotations (`b.template`'s), the prebuilt Workload's name
    first = [r for r in (_group_total_refusal(f, o) if group else _total_alone_refusal(f, o),) if r is not None]
    b.refusals[:0] = [r for r in (_managed_refusal(f, o),) if r is not None] + first
    if group:
        refusals = [r for r in (_prebuilt_refusal(f, o),) if r is not None]
        if refusals or first:  # Kueue's webhook refuses the pod: it is no member of its group
            b.refusals.extend(refusals)
            group = None
        else:
            total = int(o.annotations[GROUP_TOTAL])
    phase = f.str(status, "phase")
    note = None
    if phase in ("Succeeded", "Failed"):
        state = "finished"
    elif group and f.field(o.metadata, "deletionTimestamp") is not None and not f.str(spec, "nodeName"):
        # `isPodRunnableOrSucceeded`: a member being deleted on no node can't run: the group does
        # not count it among its pods, as a Failed one
        state = "finished"
    elif group:
        # `Pod.IsActive` reads the group's pods by phase alone: a Running member, gated or not,
        # keeps Kueue waiting for the group (`handleJobWithNoWorkload`); any other member, placed
        # on a node or not, leaves the group to be made (Kueue stops its ungated pods first)
        state = "running" if phase == "Running" else "pending"
    elif GATE not in gates and f.str(spec, "nodeName"):
        state = "running"  # a single pod on a node, ungated: node usage only (KUEUE-DIFFERENCES §2)
        note = (f"it is on node `{f.str(spec, 'nodeName')}`, ungated, and the input holds no Workload for it: "
                "kadmit reads it as that node's usage only (Kueue's pod reconciler would stop it and make it a "
                "Workload, pending work; a cluster holds such a pod with its Workload)")
    else:
        # gated, about to be created (Kueue's webhook gates it), or a single pod Running on no
        # node: `Pod.IsActive` reads the group's list, empty for a single pod, so Kueue never
        # waits for one; it stops the ungated pod and makes its Workload
        state = "pending"
    job = b.job(state=state, note=note)
    return job.model_copy(update={
        "group": group, "group_total": total, "group_fast": o.annotations.get(FAST_ADMISSION) == "true",
        "group_serving": group is not None and o.annotations.get(SERVING) == "true",
        # Kueue starts only a gated pod (`Pod.Run`: `isGated`; its webhook gates one being submitted)
        "templates": job.templates if GATE in gates or not created else None,
        "succeeded": phase == "Succeeded", "parent_marked": bool(o.annotations.get(SUSPENDED_BY_PARENT)),
        # `getRoleHash`: the role-hash annotation, else the hash Kueue's webhook gives the pod
        "role": o.annotations[ROLE_HASH] if ROLE_HASH in o.annotations else role_hash(spec) if group else None})


def _managed_refusal(f: Fields, o: Meta) -> Refusal | None:
    """What the pod webhook (`validateManagedLabel`) refuses: a `kueue.x-k8s.io/managed` label of any value but
    `true`, where its Default left it so. Default sets `true` on a pod it gates (a queue name, the namespace's
    LocalQueue `default`, `manageJobsWithoutQueueName`), so only a pod Kueue does not manage is refused
    (`manage._refused` drops it for the others, by its MANAGED_PATH)."""
    if MANAGED not in o.labels or o.labels[MANAGED] == "true":
        return None
    return Refusal(message=f"{MANAGED_PATH}: Forbidden: managed label value can only be 'true'", managed_only=False,
                   span=f.span(f.field(f.map(o.metadata, "labels"), MANAGED) or o.node))


def _prebuilt_refusal(f: Fields, o: Meta) -> Refusal | None:
    """What the pod webhook (`validatePrebuiltWorkloadName`) refuses: a group member (its group label) naming
    a prebuilt Workload other than its group. Kueue words the value as the JSON of the label's field path
    (`field.Invalid(path, path, ...)`): `{}`."""
    group, prebuilt = o.labels.get(GROUP_NAME), o.labels.get(PREBUILT_LABEL)
    if prebuilt is None or not group or prebuilt == group:
        return None
    return Refusal(message=f"metadata.labels[{PREBUILT_LABEL}]: Invalid value: {{}}: prebuilt workload and pod group "
                           "should be equal", managed_only=False,
                   span=f.span(f.field(f.map(o.metadata, "labels"), PREBUILT_LABEL) or o.node))


def group_metadata_words(group: str | None, total: str | None) -> str | None:
    """The pod webhook's words (`validatePodGroupMetadata`, `groupTotalCount`) refusing a pod's group name (its
    label, else its annotation) and `pod-group-total-count` (None: unset), as plain values: a total count without
    a group; a group's count missing, not an integer, or less than 1. None where it refuses neither."""
    path = f"metadata.annotations[{GROUP_TOTAL}]"
    if not group:
        return None if total is None else f"metadata.labels[{GROUP_NAME}]: Required value: {_BOTH}"
    if total is None:
        return f"{path}: Required value: {_BOTH}"
    value, error = go_atoi(total)
    if value is not None and value >= 1:
        return None
    return f"{path}: Invalid value: {go_quote(total)}: " + (error or (
        f"incorrect annotation value '{GROUP_TOTAL}={total}': group total count should be greater than zero"))


def _total_alone_refusal(f: Fields, o: Meta) -> Refusal | None:
    """What the pod webhook (`validatePodGroupMetadata`) refuses of a pod of no group: a total count."""
    message = group_metadata_words(None, o.annotations.get(GROUP_TOTAL))
    return None if message is None else Refusal(message=message, managed_only=False,
                                                span=f.span(annotation_node(f, o, GROUP_TOTAL) or o.node))


def _group_total_refusal(f: Fields, o: Meta) -> Refusal | None:
    """What the pod webhook refuses of a group member's `pod-group-total-count` (`group_metadata_words`)."""
    message = group_metadata_words(o.labels.get(GROUP_NAME) or o.annotations.get(GROUP_NAME),
                                   o.annotations.get(GROUP_TOTAL))
    span = f.span(annotation_node(f, o, GROUP_TOTAL) or f.field(f.map(o.metadata, "labels"), GROUP_NAME)
                  or annotation_node(f, o, GROUP_NAME) or o.node)
    return None if message is None else Refusal(message=message, managed_only=False, span=span)
