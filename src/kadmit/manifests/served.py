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
    ("scheduling.k8s.io", "Workload"): (("v1alpha1",), _K8S),  # alpha (KEP-4671); v1.36 serves v1alpha2
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


# Kinds of the job operators' later releases than Kueue v0.17 pins, which Kueue v0.17 never names:
# (group, kind) -> why kadmit lists them as not read (KAD159).
LATER: dict[tuple[str, str], str] = {
    ("disaggregatedset.x-k8s.io", "DisaggregatedSet"): (
        "DisaggregatedSet came in LWS v0.9.0; Kueue v0.17.0 pins sigs.k8s.io/lws v0.8.0, which has no such CRD, "
        "and has no integration for it. With a later LWS, its controller creates LeaderWorkerSets, which Kueue "
        "admits: read those from the cluster"),
}


# Built-in kinds of a later Kubernetes than v1.35, which the v1.35 API server refuses in any version
# ("no matches for kind"): (group, kind) -> (the release and version that brought it, what v1.35 has
# for it). From k8s.io/api v0.35.3 and v0.36.0 (scheduling/v1alpha1 registers no PodGroup; v1alpha2 does).
LATER_K8S: dict[tuple[str, str], tuple[str, str]] = {
    ("scheduling.k8s.io", "PodGroup"): (
        "v1.36, in `scheduling.k8s.io/v1alpha2`",
        "a pod group of a `scheduling.k8s.io/v1alpha1` Workload, its pods naming it in `spec.workloadRef`"),
}


# Kinds kadmit reads that a group no cluster serves any more once held: served in another group now
# (`extensions/v1beta1` Deployment, removed in Kubernetes v1.16).
MOVED = {("extensions", "Deployment"): "apps"}


# Pre-release versions of built-in kinds kadmit does not read that Kubernetes v1.35 no longer
# serves: (group, version, kind) -> (the v1.N release that removed it, the version to use instead,
# if Kubernetes names one). From k8s.io/api v0.35.3's zz_generated.prerelease-lifecycle.go
# (APILifecycleRemoved, APILifecycleReplacement), the data the API server stops serving them by.
REMOVED: dict[tuple[str, str, str], tuple[int, str | None]] = {
    ("admissionregistration.k8s.io", "v1alpha1", "ValidatingAdmissionPolicy"): (32, None),
    ("admissionregistration.k8s.io", "v1alpha1", "ValidatingAdmissionPolicyBinding"): (32, None),
    ("admissionregistration.k8s.io", "v1beta1", "MutatingWebhookConfiguration"): (22, "admissionregistration.k8s.io/v1"),
    ("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy"): (34, None),
    ("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding"): (34, None),
    ("admissionregistration.k8s.io", "v1beta1", "ValidatingWebhookConfiguration"): (22, "admissionregistration.k8s.io/v1"),
    ("apps", "v1beta1", "ControllerRevision"): (16, "apps/v1"),
    ("apps", "v1beta1", "Deployment"): (16, "apps/v1"),
    ("apps", "v1beta1", "StatefulSet"): (16, "apps/v1"),
    ("apps", "v1beta2", "ControllerRevision"): (16, "apps/v1"),
    ("apps", "v1beta2", "DaemonSet"): (16, "apps/v1"),
    ("apps", "v1beta2", "Deployment"): (16, "apps/v1"),
    ("apps", "v1beta2", "ReplicaSet"): (16, "apps/v1"),
    ("apps", "v1beta2", "StatefulSet"): (16, "apps/v1"),
    ("autoscaling", "v2beta1", "HorizontalPodAutoscaler"): (25, "autoscaling/v2"),
    ("autoscaling", "v2beta2", "HorizontalPodAutoscaler"): (26, "autoscaling/v2"),
    ("batch", "v1beta1", "CronJob"): (25, "batch/v1"),
    ("certificates.k8s.io", "v1beta1", "CertificateSigningRequest"): (22, "certificates.k8s.io/v1"),
    ("coordination.k8s.io", "v1beta1", "Lease"): (22, "coordination.k8s.io/v1"),
    ("discovery.k8s.io", "v1beta1", "EndpointSlice"): (25, "discovery.k8s.io/v1"),
    ("events.k8s.io", "v1beta1", "Event"): (25, None),
    ("extensions", "v1beta1", "DaemonSet"): (16, "apps/v1"),
    ("extensions", "v1beta1", "Deployment"): (16, "apps/v1"),
    ("extensions", "v1beta1", "Ingress"): (22, "networking.k8s.io/v1"),
    ("extensions", "v1beta1", "NetworkPolicy"): (16, "networking.k8s.io/v1"),
    ("extensions", "v1beta1", "ReplicaSet"): (16, "apps/v1"),
    ("flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema"): (26, "flowcontrol.apiserver.k8s.io/v1beta3"),
    ("flowcontrol.apiserver.k8s.io", "v1beta1", "PriorityLevelConfiguration"): (26, "flowcontrol.apiserver.k8s.io/v1beta3"),
    ("flowcontrol.apiserver.k8s.io", "v1beta2", "FlowSchema"): (29, "flowcontrol.apiserver.k8s.io/v1beta3"),
    ("flowcontrol.apiserver.k8s.io", "v1beta2", "PriorityLevelConfiguration"): (29, "flowcontrol.apiserver.k8s.io/v1beta3"),
    ("flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema"): (32, "flowcontrol.apiserver.k8s.io/v1"),
    ("flowcontrol.apiserver.k8s.io", "v1beta3", "PriorityLevelConfiguration"): (32, "flowcontrol.apiserver.k8s.io/v1"),
    ("networking.k8s.io", "v1beta1", "Ingress"): (22, "networking.k8s.io/v1"),
    ("networking.k8s.io", "v1beta1", "IngressClass"): (22, "networking.k8s.io/v1"),
    ("node.k8s.io", "v1beta1", "RuntimeClass"): (25, None),
    ("policy", "v1beta1", "PodDisruptionBudget"): (25, "policy/v1"),
    ("rbac.authorization.k8s.io", "v1beta1", "ClusterRole"): (22, "rbac.authorization.k8s.io/v1"),
    ("rbac.authorization.k8s.io", "v1beta1", "ClusterRoleBinding"): (22, "rbac.authorization.k8s.io/v1"),
    ("rbac.authorization.k8s.io", "v1beta1", "Role"): (22, "rbac.authorization.k8s.io/v1"),
    ("rbac.authorization.k8s.io", "v1beta1", "RoleBinding"): (22, "rbac.authorization.k8s.io/v1"),
    ("scheduling.k8s.io", "v1beta1", "PriorityClass"): (22, "scheduling.k8s.io/v1"),
    ("storage.k8s.io", "v1alpha1", "CSIStorageCapacity"): (24, "storage.k8s.io/v1beta1"),
    ("storage.k8s.io", "v1alpha1", "VolumeAttachment"): (24, "storage.k8s.io/v1"),
    ("storage.k8s.io", "v1alpha1", "VolumeAttributesClass"): (35, "storage.k8s.io/v1"),
    ("storage.k8s.io", "v1beta1", "CSIDriver"): (22, "storage.k8s.io/v1"),
    ("storage.k8s.io", "v1beta1", "CSINode"): (22, "storage.k8s.io/v1"),
    ("storage.k8s.io", "v1beta1", "CSIStorageCapacity"): (27, "storage.k8s.io/v1"),
    ("storage.k8s.io", "v1beta1", "StorageClass"): (22, "storage.k8s.io/v1"),
    ("storage.k8s.io", "v1beta1", "VolumeAttachment"): (22, "storage.k8s.io/v1"),
}


def unserved(group: str, version: str, kind: str) -> tuple[str, str] | None:
    """(the served apiVersions, who serves them) when `group/version` `kind` is not served; None
    when it is, or when kadmit does not know what serves the kind. A kind of a later Kubernetes
    (`LATER_K8S`) is served in no version: `none`."""
    if (group, kind) in LATER_K8S:
        return "none", f"{_K8S}, has no `{kind}` in `{group}`: it came in {LATER_K8S[group, kind][0]}"
    if (group, version, kind) in REMOVED and (group, kind) not in SERVED and (group, kind) not in MOVED:
        minor, instead = REMOVED[group, version, kind]
        return f"`{instead}`" if instead else "another version", f"{_K8S}; removed in v1.{minor}"
    if (group, kind) in MOVED:
        group, version = MOVED[(group, kind)], ""
    found = SERVED.get((group, kind))
    if found is None or version in found[0]:
        return None
    versions, source = found
    return ", ".join(f"`{group + '/' if group else ''}{v}`" for v in versions), source
