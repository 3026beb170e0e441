"""A Deployment's ReplicaSets and their pods under Kueue: a ReplicaSet's pod is a plain pod of Kueue's pod
integration (`pods.pod_job`), of whichever revision, as is any pod Kueue labelled `managed` but a StatefulSet's or
a LeaderWorkerSet's; the Deployment that made them, once rolled out, is no work
of its own (`manage`)."""

from __future__ import annotations

from collections import Counter

from kadmit.model import Job, ObjectRef, Workload


# The annotation the Deployment, StatefulSet and LeaderWorkerSet webhooks put on their pod templates: Kueue's pod
# reconciler, implicitly enabled by them, takes only the pods carrying it (`Pod.Skip`)
SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"
# The controllers whose pods their own integration decides (pod groups the StatefulSet's and LeaderWorkerSet's
# reconcilers make and name: `manage`), labelled `managed` as they are
OWN_PODS = (("apps", "StatefulSet"), ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"))


def plain_pod(controller: ObjectRef, managed: bool) -> bool:
    """Whether a pod that `controller` controls is a plain pod of Kueue's pod integration: its pod reconciler takes
    every pod as a job of its own (`Pod.IsTopLevel`), skipping only one without Kueue's `managed` label
    (`Pod.Skip`). A ReplicaSet's pod (a Deployment's) is: Kueue's pod webhook walks past a ReplicaSet
    (`isKnownOwner`: "an interim owner from Pod to Deployment") and labels the pod unless a Deployment it manages
    never marked the template (apps.py). So is a pod already created with the label under another controller (a
    Job Kueue does not manage whose template names a queue: the webhook, finding no managed ancestor
    (FindAncestorJobManagedByKueue), labelled and gated it), but a StatefulSet's or LeaderWorkerSet's, which their
    own integrations decide. Other controllers' pods are their job's."""
    if controller.kind == "ReplicaSet" and controller.api_version == "apps/v1":
        return True
    return managed and (controller.group, controller.kind) not in OWN_PODS


def replica_set_pod(job: Job) -> bool:
    """A Kueue pod an `apps/v1` ReplicaSet controls: one Kueue's pod reconciler deletes, its ReplicaSet makes
    another in its place (`replaced`), pod-template-hash label or not (a bare ReplicaSet's)."""
    o = job.owner
    return job.framework == "pod" and o is not None and o.kind == "ReplicaSet" and o.api_version == "apps/v1"


def owners_pod(job: Job) -> bool:
    """A Kueue-marked pod its controller's job decides (`pods.pod_job` makes it no Workload): its controller is
    not a ReplicaSet, and Kueue's pod integration does not take it as a plain pod (`plain_pod`)."""
    return job.framework == "pod" and job.owner is not None and not job.workloads and not replica_set_pod(job)


def owner_absent(pods: list[Job]) -> str:
    """Why the pods of one controller (`owners_pod`) are decided nowhere when it is not in the input: said once,
    at its first pod, naming the others."""
    o = pods[0].owner
    assert o is not None
    more = pods[1:]
    others = (f" (so are its {len(more)} other pod{'s' if len(more) > 1 else ''} of the input: "
              + ", ".join(f"`{p.object.name}`" for p in more[:3]) + (", …" if len(more) > 3 else "") + ")") if more else ""
    return (f"{o.kind} `{o.name}` controls it, and the input does not hold that object: Kueue decides the pod with it "
            f"(its {o.kind}'s Workload covers its pods), so kadmit reads the pod as node usage only{others}; give "
            f"the {o.kind}, or its Workload")


def rolled_out(deployment: Job, jobs: list[Job]) -> str:
    """Why a Deployment whose status shows replicas is no work of its own, and which of its pods the input
    holds: the Kueue pods whose controller is a ReplicaSet the Deployment controller named for it
    (`<deployment>-<pod-template-hash>`), of every revision, each decided as a plain pod (`plain_pod`)."""
    ns = deployment.object.namespace or "default"
    sets = Counter(j.owner.name for j in jobs if j.framework == "pod" and j.owner is not None
                   and j.owner.kind == "ReplicaSet" and (j.object.namespace or "default") == ns
                   and j.owner.name.rsplit("-", 1)[0] == deployment.object.name)
    held = (f"the input holds {sum(sets.values())} of its pods, of ReplicaSet"
            f"{'s' if len(sets) > 1 else ''} {', '.join(f'`{n}` ({c})' for n, c in sorted(sets.items()))}, each decided "
            "as a plain pod" if sets else
            "the input holds none of its pods: give them, or their Workloads, in the input")
    return ("it has rolled out (its status shows replicas): Kueue makes no Workload of a Deployment, only of its "
            f"pods, each a plain pod with its own Workload (pkg/controller/jobs/deployment); {held}")


# The label a Deployment's ReplicaSet gives its pods (apps/v1 DefaultDeploymentUniqueLabelKey): such a pod's
# controller is its ReplicaSet, which makes another in its place when Kueue deletes it.
REPLICA_SET_HASH = "pod-template-hash"


def replaced(wl: Workload, replicas: set[tuple[str, str]]) -> bool:
    """A Workload being deleted whose owner is a ReplicaSet's pod of the input: Kueue's pod reconciler deletes
    the pod (`Pod.Stop`) and drops the Workload's finalizer, so the Workload goes with its quota, and the
    ReplicaSet makes a new pod from its template, which Kueue gates and makes a Workload of, queued afresh."""
    o = wl.origin
    return wl.deleting and o is not None and o.kind == "Pod" and (o.namespace or "default", o.name) in replicas


def replacement(wl: Workload) -> Workload:
    """The Workload of the pod a ReplicaSet makes in place of `wl`'s (its template is the old pod's: the
    same pod sets, as Kueue's workload controller adjusts them), pending, standing for the same pod; its
    creation time is set with the other Workloads made again (`manage.apply_jobs`)."""
    return Workload(namespace=wl.namespace, name=wl.origin.name if wl.origin is not None else wl.name, queue=wl.queue,
                    priority_class=wl.priority_class, priority_class_kind=wl.priority_class_kind, priority=wl.priority,
                    pod_sets=wl.requeue_pod_sets if wl.requeue_pod_sets is not None else wl.pod_sets,
                    inadmissible=wl.requeue_inadmissible, active=wl.active, duration_ms=wl.duration_ms,
                    origin=wl.origin, span=wl.span, kueue_name="")  # the new pod's name and UID: the cluster's
