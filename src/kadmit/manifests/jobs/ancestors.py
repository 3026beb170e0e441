"""Kueue's pod webhook's walk up a pod's controllers (jobframework.FindAncestorJobManagedByKueue), for a pod
being submitted under a controller other than a ReplicaSet that no parent's webhook marked: the pod is its
controller's where an ancestor is a job Kueue manages, else a plain pod of its own (`Pod.IsTopLevel`)."""

from __future__ import annotations

from kadmit.manifests.jobs.kinds import INTEGRATIONS
from kadmit.manifests.jobs.settings import Integrations
from kadmit.model import Job, ObjectRef

# Kueue's own controller kinds the walk knows besides the integrations' (`isKnownOwner`): a ReplicaSet, "an
# interim owner from Pod to Deployment", and a Pod (the pod integration's kind)
_KNOWN = {("apps/v1", "ReplicaSet"), ("v1", "Pod")} | {(f"{i.group}/{i.versions[0]}", i.kind) for i in INTEGRATIONS}


def ancestry(pod: Job, jobs: dict[tuple[str, str, str], Job], s: Integrations, queues: set[str]) -> Job:
    """`pod`, or it as its controller's (no Workloads: `replicasets.owners_pod`) where Kueue's pod webhook finds an
    ancestor Kueue manages: walking up controllers while each is of a kind Kueue knows (`isKnownOwner`, by
    apiVersion and kind), one whose integration is enabled and that names a queue (its label, or its namespace's
    LocalQueue `default` its webhook gave it), or any under manageJobsWithoutQueueName, is the pod's. A known
    controller the input does not hold leaves the pod to it too: Kueue's webhook reads it to go on (the pod is
    refused where the cluster lacks it, ErrWorkloadOwnerNotFound). A walk stopped at an unknown kind, or past the
    top, leaves the pod its own."""
    if pod.parent_marked:  # a parent's webhook marked it: Kueue's webhook suspends it without walking
        return pod.model_copy(update={"workloads": ()})
    ns = pod.object.namespace or "default"
    ref: ObjectRef | None = pod.owner
    seen: set[tuple[str, str, str]] = set()
    while ref is not None and (ref.api_version, ref.kind) in _KNOWN:
        key = (ref.kind, ns, ref.name)
        parent = jobs.get(key)
        if parent is None or key in seen:  # not in the input, or a cycle (ErrCyclicOwnership): not the pod's own
            return pod.model_copy(update={"workloads": ()})
        seen.add(key)
        enabled = parent.framework in s.frameworks
        queued = parent.queue or (parent.submitted and f"{ns}/default" in queues)
        if enabled and (s.manage_without_queue_name or queued):
            return pod.model_copy(update={"workloads": ()})
        ref = parent.owner
    return pod
