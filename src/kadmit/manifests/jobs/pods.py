"""Plain Pods and Kueue pod groups (Kueue's pkg/controller/jobs/pod): a pod with Kueue's labels is
a one-pod Workload, or a member of the group named by `kueue.x-k8s.io/pod-group-name`, which
`manage` assembles once every file is read."""

from __future__ import annotations

from kadmit.manifests.codes import KAD157
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import DEFAULT_POD_SET, QUEUE_LABEL, Builder, annotation_node
from kadmit.model import Job

FRAMEWORK = "pod"
GATE = "kueue.x-k8s.io/admission"
GROUP_NAME = "kueue.x-k8s.io/pod-group-name"
GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
MANAGED = "kueue.x-k8s.io/managed"
ROLE_HASH = "kueue.x-k8s.io/role-hash"


def pod_job(f: Fields, o: Meta) -> Job | None:
    """The pod as Kueue's pod integration sees it, when it carries Kueue's marks (a queue name, a
    group name, Kueue's admission gate); None for other pods, which are read only as node usage.
    Pods another object controls (a ReplicaSet, a StatefulSet, a Job...) are that object's."""
    spec = f.map(o.node, "spec")
    gates = [f.str(g, "name") for g in f.maps(spec, "schedulingGates")]
    group = o.labels.get(GROUP_NAME) or o.annotations.get(GROUP_NAME)
    if not (o.labels.get(QUEUE_LABEL) or group or GATE in gates or o.labels.get(MANAGED) == "true"):
        return None
    if any(f.bool(ref, "controller", default=False) for ref in f.maps(o.metadata, "ownerReferences")):
        return None
    b = Builder(f, o, FRAMEWORK)
    b.template(DEFAULT_POD_SET, 1, o.node, o.node, origin=f"pod `{o.name}`")
    total = None
    if group:
        text = o.annotations.get(GROUP_TOTAL)
        if text is None or not text.isdigit() or int(text) < 1:
            raise f.fail(KAD157, f"pod `{o.name}` of group `{group}` needs annotation `{GROUP_TOTAL}` "
                         "with the group's number of pods (1 or more)",
                         annotation_node(f, o, GROUP_TOTAL) or o.node)
        total = int(text)
    status = f.map(o.node, "status")
    phase = f.str(status, "phase")
    if phase in ("Succeeded", "Failed"):
        state = "finished"
    elif GATE not in gates and (f.str(spec, "nodeName") or phase == "Running"):
        state = "running"
    else:
        state = "pending"  # gated, or about to be created (Kueue's webhook gates it)
    return b.job(state=state).model_copy(update={
        "group": group, "group_total": total, "group_fast": o.annotations.get(FAST_ADMISSION) == "true",
        "role": o.annotations.get(ROLE_HASH) or None})
