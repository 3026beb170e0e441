"""Kueue's pod webhook's walk up a pod's controllers (jobframework.FindAncestorJobManagedByKueue), for a pod
being submitted under a controller other than a ReplicaSet that no parent's webhook marked: the pod is its
controller's where an ancestor is a job Kueue manages, else a plain pod of its own (`Pod.IsTopLevel`)."""

from __future__ import annotations

from kadmit.manifests.jobs.external import ExternalObject, resource
from kadmit.manifests.jobs.kinds import INTEGRATIONS
from kadmit.manifests.jobs.settings import Integrations
from kadmit.model import Job, ObjectRef, Skipped

# Kueue's own controller kinds the walk knows besides the integrations' (`isKnownOwner`): a ReplicaSet, "an
# interim owner from Pod to Deployment", and a Pod (the pod integration's kind)
_KNOWN = {("apps/v1", "ReplicaSet"), ("v1", "Pod")} | {(f"{i.group}/{i.versions[0]}", i.kind) for i in INTEGRATIONS}


def ancestry(pod: Job, jobs: dict[tuple[str, str, str], Job], s: Integrations, queues: set[str]) -> Job | Skipped:
    """`pod` (a job of another kind: `unmanaged_owner`), or it as its controller's (no Workloads:
    `replicasets.owners_pod`) where Kueue's pod webhook finds an ancestor Kueue manages (`_walk`). A walk stopped
    at an unknown kind, or past the top, leaves the pod its own. An ancestor that is itself a pod (a
    LeaderWorkerSet's leader, owning its workers' StatefulSet) is a job Kueue manages whose Workload covers that
    pod alone: the webhook leaves this one ungated and unlabelled, and Kueue's pod reconciler skips it ("Skipping
    pod, not managed by Kueue"), so it runs outside any quota (`Skipped`)."""
    if pod.framework != "pod":
        return unmanaged_owner(pod, jobs, s, queues)
    if pod.parent_marked:  # a parent's webhook marked it: Kueue's webhook suspends it without walking
        return pod.model_copy(update={"workloads": ()})
    owned, ancestor = _walk(pod, jobs, s, queues)
    if not owned:
        return pod
    if isinstance(ancestor, (ExternalObject, ObjectRef)):
        return _external(pod, ancestor)
    if ancestor is not None and ancestor.framework == "pod":
        a = ancestor.object
        return Skipped(object=pod.object, span=pod.span, reason=(
            f"Kueue's pod webhook leaves it ungated: walking up its controllers (FindAncestorJobManagedByKueue) it "
            f"finds Pod `{a.key}`, a job Kueue manages ({_why_managed(ancestor, s, queues)}), so it neither gates nor "
            "labels this pod, and Kueue's pod reconciler skips it (\"Skipping pod, not managed by Kueue\"); that "
            f"pod's Workload covers `{a.name}` alone, so this pod runs ungated, outside any quota"))
    return pod.model_copy(update={"workloads": ()})


def unmanaged_owner(job: Job, jobs: dict[tuple[str, str, str], Job], s: Integrations,
                    queues: set[str]) -> Job | Skipped:
    """`job` (not a pod) as Kueue's webhook for its kind takes it where its controller, a job of the input of an
    integration's kind, is no job Kueue manages, nor any ancestor (WorkloadShouldBeSuspended:
    FindAncestorJobManagedByKueue finds none): by its own queue label, its owner dropped. Its owner's integration
    enabled, Kueue gives it no LocalQueue `default` (ApplyDefaultLocalQueue skips a job IsOwnerManagedByKueueForObject
    says an enabled integration's kind controls), so naming no queue of its own it is no work of Kueue's (`Skipped`).
    `job` as it is where an ancestor is Kueue's, or its controller is not in the input."""
    o = job.owner
    if o is not None and (o.api_version, o.kind) in s.external_kinds and job.framework != "pod":
        owned, ancestor = _walk(job, jobs, s, queues)
        if isinstance(ancestor, (ExternalObject, ObjectRef)):
            return _external(job, ancestor)
        if owned:
            return job
        ext = s.external[o.api_version, o.kind, job.object.namespace or "default", o.name]
        if not job.queue:
            return Skipped(object=job.object, span=job.span, reason=(
                f"its controller, {o.kind} `{ext.object.key}` (a kind `integrations.externalFrameworks` lists), names "
                f"no queue, nor does it: Kueue gives no LocalQueue `default` to a {job.object.kind} such a kind "
                "controls (IsOwnerManagedByKueueForObject), so Kueue's webhook leaves it alone"))
        return job.model_copy(update={"owner": None})
    parent = jobs.get((o.kind, job.object.namespace or "default", o.name)) if o is not None else None
    if parent is None or job.framework == "pod" or _walk(job, jobs, s, queues)[0]:
        return job
    if parent.framework in s.frameworks and not job.queue:
        p = parent.object
        return Skipped(object=job.object, span=job.span, reason=(
            f"its controller, {p.kind} `{p.key}`, is no job Kueue manages, and it names no queue itself (its own "
            f"`kueue.x-k8s.io/queue-name` label; Kueue gives no LocalQueue `default` to a {job.object.kind} an "
            f"enabled integration's kind controls): Kueue's {job.object.kind} webhook leaves it alone, and its pods "
            "are each Kueue's pod integration's to take or leave"))
    return job.model_copy(update={"owner": None})


def _external(job: Job, ancestor: ExternalObject | ObjectRef) -> Skipped:
    """`job` under an owner of a kind `integrations.externalFrameworks` lists (`_walk`'s ancestor): that
    owner's, whose Workload its own controller makes, or refused where the input does not hold it."""
    what = "pod" if job.framework == "pod" else job.object.kind
    if isinstance(ancestor, ObjectRef):  # FindAncestorJobManagedByKueue cannot read it
        return Skipped(object=job.object, span=job.span, reason=(
            f"Kueue's {what} webhook refuses it: walking up its controllers (FindAncestorJobManagedByKueue) it reads "
            f"{ancestor.kind} `{ancestor.name}`, of a kind `integrations.externalFrameworks` lists, which the input "
            f"does not hold: {resource(ancestor.api_version, ancestor.kind)} \"{ancestor.name}\" not found "
            "(ErrWorkloadOwnerNotFound)"))
    a = ancestor.object
    named = f"which names LocalQueue `{ancestor.queue}`" if ancestor.queue else "under `manageJobsWithoutQueueName`"
    then = ("Kueue's pod webhook neither gates nor labels it, and Kueue's pod reconciler skips it (\"Skipping pod, "
            "not managed by Kueue\")" if job.framework == "pod" else
            f"Kueue's {what} webhook does not suspend it and its reconciler makes it no Workload (suspended, it waits "
            "for that controller; not suspended, it runs outside any quota: the reconciler, listing the owner's "
            "Workloads to suspend it, finds no index of them for the kind and fails)")
    return Skipped(object=job.object, span=job.span, reason=(
        f"walking up its controllers (FindAncestorJobManagedByKueue) Kueue finds {a.kind} `{a.key}`, of a kind "
        f"`integrations.externalFrameworks` lists, {named}: the {what} is that object's, whose Workload its "
        f"own controller makes, not Kueue; {then}"))


def _why_managed(job: Job, s: Integrations, queues: set[str]) -> str:
    ns = job.object.namespace or "default"
    return (f"it names LocalQueue `{job.queue}`" if job.queue else
            f"namespace `{ns}` has a LocalQueue `default`" if job.submitted and f"{ns}/default" in queues else
            "`manageJobsWithoutQueueName` is on")


def _walk(job: Job, jobs: dict[tuple[str, str, str], Job], s: Integrations,
          queues: set[str]) -> tuple[bool, Job | ExternalObject | ObjectRef | None]:
    """Kueue's walk up `job`'s controllers while each is of a kind Kueue knows (`isKnownOwner`, by apiVersion and
    kind): whether `job` is an ancestor's, and that ancestor: one whose integration is enabled and that names a
    queue (its label, or its namespace's LocalQueue `default` its webhook gave it), or any under
    manageJobsWithoutQueueName. A known controller the input does not hold takes it too, not known (None): Kueue's
    webhook reads it to go on (refusing the pod where the cluster lacks it, ErrWorkloadOwnerNotFound); so does a
    cycle (ErrCyclicOwnership). An owner of a kind `integrations.externalFrameworks` lists is known and managed
    (its kind is registered, `getJobTypeForOwner`) without an integration: the ancestor where it names a queue (its
    label only: no webhook of Kueue's gives it LocalQueue `default`) or under manageJobsWithoutQueueName; one the
    input does not hold is Kueue's refusal, its reference returned (the input holds every object of such a kind
    the Configuration names: kadmit reads them all)."""
    ns = job.object.namespace or "default"
    ref: ObjectRef | None = job.owner
    seen: set[tuple[str, str, str]] = set()
    while ref is not None and ((ref.api_version, ref.kind) in _KNOWN or (ref.api_version, ref.kind) in s.external_kinds):
        key = (ref.kind, ns, ref.name)
        if (ref.api_version, ref.kind) in s.external_kinds:  # an external framework's: known, and Kueue's to manage
            ext = s.external.get((ref.api_version, ref.kind, ns, ref.name))
            if ext is None or key in seen:
                return True, ref if ext is None else None
            seen.add(key)
            if s.manage_without_queue_name or ext.queue:
                return True, ext
            ref = ext.owner
            continue
        parent = jobs.get(key)
        if parent is None or key in seen:
            return True, None
        seen.add(key)
        queued = parent.queue or (parent.submitted and f"{ns}/default" in queues)
        if parent.framework in s.frameworks and (s.manage_without_queue_name or queued):
            return True, parent
        ref = parent.owner
    return False, None
