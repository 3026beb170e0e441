"""The API versions a cluster running Kueue v0.17 serves for the kinds kadmit reads: Kueue's CRDs
(`config/components/crd/bases`: v1beta1 and v1beta2; v1alpha1 Cohort and Topology were removed in
v0.15), the CRDs of the job operators Kueue v0.17's go.mod pins (each file's `served` versions), and
Kubernetes' built-in kinds (k8s.io/api v0.35). An object in another version is refused by the API
server on its own (KAD171): never read as if it were current."""

from __future__ import annotations

KUEUE = "kueue.x-k8s.io"

_K8S = "Kubernetes v1.35, whose API Kueue v0.17 builds with"
_KUEUE = "Kueue v0.17's CRDs"
_JOBS = {
    "jobset.x-k8s.io": "the CRD of sigs.k8s.io/jobset v0.11.1",
    "leaderworkerset.x-k8s.io": "the CRD of sigs.k8s.io/lws v0.8.0",
    "ray.io": "the CRDs of KubeRay's ray-operator v1.6.0",
    "kubeflow.org": "the CRDs of kubeflow/training-operator v1.9.3",
    "workload.codeflare.dev": "the CRD of project-codeflare/appwrapper v1.2.0",
    "trainer.kubeflow.org": "the CRDs of kubeflow/trainer v2.2.0",
}

# (group, kind) -> (the versions served, who serves them)
SERVED: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    **{(KUEUE, kind): (("v1beta1", "v1beta2"), _KUEUE)
       for kind in ("ResourceFlavor", "ClusterQueue", "Cohort", "LocalQueue", "WorkloadPriorityClass", "Topology",
                    "Workload")},
    **{("", kind): (("v1",), _K8S) for kind in ("Namespace", "Node", "Pod", "LimitRange", "ConfigMap")},
    ("batch", "Job"): (("v1",), _K8S),
    ("apps", "Deployment"): (("v1",), _K8S),
    ("apps", "StatefulSet"): (("v1",), _K8S),
    ("scheduling.k8s.io", "PriorityClass"): (("v1",), _K8S),
    ("node.k8s.io", "RuntimeClass"): (("v1",), _K8S),
    ("jobset.x-k8s.io", "JobSet"): (("v1alpha2",), _JOBS["jobset.x-k8s.io"]),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): (("v1",), _JOBS["leaderworkerset.x-k8s.io"]),
    **{("ray.io", kind): (("v1", "v1alpha1"), _JOBS["ray.io"]) for kind in ("RayJob", "RayCluster", "RayService")},
    **{("kubeflow.org", kind): (("v1",), _JOBS["kubeflow.org"])
       for kind in ("PyTorchJob", "TFJob", "JAXJob", "PaddleJob", "XGBoostJob")},
    ("kubeflow.org", "MPIJob"): (("v2beta1",), "the CRD of kubeflow/mpi-operator v0.8.0, whose MPIJob Kueue v0.17 reads"),
    ("workload.codeflare.dev", "AppWrapper"): (("v1beta2",), _JOBS["workload.codeflare.dev"]),
    **{("trainer.kubeflow.org", kind): (("v1alpha1",), _JOBS["trainer.kubeflow.org"])
       for kind in ("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime")},
}


# Kinds kadmit reads that a group no cluster serves any more once held: served in another group now
# (`extensions/v1beta1` Deployment, removed in Kubernetes v1.16).
MOVED = {("extensions", "Deployment"): "apps"}


def unserved(group: str, version: str, kind: str) -> tuple[str, str] | None:
    """(the served apiVersions, who serves them) when `group/version` `kind` is not served; None
    when it is, or when kadmit does not know what serves the kind."""
    if (group, kind) in MOVED:
        group, version = MOVED[(group, kind)], ""
    found = SERVED.get((group, kind))
    if found is None or version in found[0]:
        return None
    versions, source = found
    return ", ".join(f"`{group + '/' if group else ''}{v}`" for v in versions), source
