"""Built-in kinds a cluster dump holds (`kubectl get all,pvc,... -o yaml`) that kadmit does not read, each with why:
what Kueue's admission makes of it (nothing, for most: Kueue v0.17 never lists them), or what kadmit leaves out
and so may make its answer differ (not modelled). An object of such a kind is listed as not read with this reason
(KAD159), never dropped unsaid."""

from __future__ import annotations

_STORAGE = ("Kueue counts no claimed storage: quota and topology-aware placement read a pod's container requests "
            "(with its overhead; `ephemeral-storage` among them), not the volumes it claims")
_NETWORK = "it is networking, which Kueue's admission does not read"
_RBAC = "it says who may create objects (RBAC), not how Kueue admits them"
_POD_SETTINGS = ("it holds what a pod mounts or runs as, which Kueue's admission does not read (it counts the pod's own "
                 "requests)")
_RECORD = "it is a record the cluster keeps, which nothing Kueue decides reads"

# (group, kind) -> why kadmit does not read it
WHY: dict[tuple[str, str], str] = {
    ("", "PersistentVolumeClaim"): _STORAGE,
    ("", "PersistentVolume"): _STORAGE,
    ("storage.k8s.io", "StorageClass"): _STORAGE,
    ("", "Secret"): _POD_SETTINGS,
    ("", "ServiceAccount"): _POD_SETTINGS,
    ("", "Service"): _NETWORK,
    ("", "Endpoints"): _NETWORK,
    ("discovery.k8s.io", "EndpointSlice"): _NETWORK,
    ("networking.k8s.io", "Ingress"): _NETWORK,
    ("networking.k8s.io", "NetworkPolicy"): _NETWORK,
    ("rbac.authorization.k8s.io", "Role"): _RBAC,
    ("rbac.authorization.k8s.io", "RoleBinding"): _RBAC,
    ("rbac.authorization.k8s.io", "ClusterRole"): _RBAC,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _RBAC,
    ("", "Event"): _RECORD,
    ("events.k8s.io", "Event"): _RECORD,
    ("coordination.k8s.io", "Lease"): _RECORD + " (leader election)",
    ("apps", "ControllerRevision"): _RECORD + " (a StatefulSet's or DaemonSet's revisions)",
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (
        "it is a kind's schema: kadmit checks the kinds it reads against the CRDs Kueue v0.17.0 pins, bundled"),
    ("policy", "PodDisruptionBudget"): "Kueue's preemption evicts without reading disruption budgets",
    # what may change an answer, said as such
    ("", "ResourceQuota"): (
        "not modelled: the API server's quota admission refuses a pod beyond it when the pod is created, after Kueue "
        "admitted its workload, which then does not start; Kueue does not read it"),
    ("batch", "CronJob"): (
        "not modelled: Kueue admits each Job it creates on its schedule (its job template's queue-name label), "
        "which kadmit reads as a Job once it exists"),
    ("apps", "DaemonSet"): (
        "not modelled: its pods, which Kueue does not manage, take node capacity topology-aware placement counts "
        "once they run: kadmit reads them as Pods"),
    ("autoscaling", "HorizontalPodAutoscaler"): (
        "not modelled: it scales a Deployment or StatefulSet over time; kadmit reads their replicas as written"),
}


def why(group: str, kind: str) -> str | None:
    """Why kadmit does not read a kind a cluster dump holds, or None where nothing more is known than that."""
    return WHY.get((group, kind))
