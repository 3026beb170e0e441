"""A Deployment's ReplicaSets and their pods under Kueue: a ReplicaSet's pod is a plain pod of Kueue's pod
integration (`pods.pod_job`), of whichever revision; the Deployment that made them, once rolled out, is no work
of its own (`manage`)."""

from __future__ import annotations

from collections import Counter

from kadmit.model import Job, ObjectRef


def replica_set_pod(controller: ObjectRef) -> bool:
    """A ReplicaSet's pod (a Deployment's) is Kueue's as any plain pod: its pod reconciler takes every
    pod as a job of its own (`Pod.IsTopLevel`), and Kueue's pod webhook walks past a ReplicaSet
    (`isKnownOwner`: "an interim owner from Pod to Deployment") only to leave alone the pods of a
    Deployment it manages that never got the Deployment webhook's mark (apps.py). Other controllers'
    pods are their job's."""
    return controller.kind == "ReplicaSet" and controller.api_version == "apps/v1"


def rolled_out(deployment: Job, jobs: list[Job]) -> str:
    """Why a Deployment whose status shows replicas is no work of its own, and which of its pods the input
    holds: the Kueue pods whose controller is a ReplicaSet the Deployment controller named for it
    (`<deployment>-<pod-template-hash>`), of every revision, each decided as a plain pod (`replica_set_pod`)."""
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
