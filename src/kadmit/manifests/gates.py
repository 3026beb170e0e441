"""The feature gates Kueue v0.17.0's manager knows, for its Configuration's `featureGates`.

Kueue's manager sets them with `SetFromMap` on the process's gate (cmd/kueue/main.go) and exits when
that fails: a name the process does not know (`unrecognized feature gate: NAME`), or a gate locked to
its default set to the other value (`cannot set feature gate NAME to false, feature is locked to true`).
The process's gate holds Kueue's own gates (pkg/features/kube_features.go) and those the API server
library registers in it (k8s.io/apiserver v0.35 pkg/features), with component-base's AllAlpha and AllBeta.
"""

from __future__ import annotations

KUEUE = frozenset({
    "AdmissionFairSharing", "AdmissionGatedBy", "AssignQueueLabelsForPods", "CustomMetricLabels",
    "DRAExtendedResources", "DynamicResourceAllocation", "ElasticJobsViaWorkloadSlices",
    "ElasticJobsViaWorkloadSlicesWithTAS", "FailureRecoveryPolicy", "FairSharingPreemptWithinNominal",
    "FairSharingPrioritizeNonBorrowing", "FastQuotaReleaseInPodIntegration", "FlavorFungibility",
    "HierarchicalCohorts", "LendingLimit", "LocalQueueDefaulting", "LocalQueueMetrics",
    "ManagedJobsNamespaceSelectorAlwaysRespected", "MultiKueue", "MultiKueueAdaptersForCustomJobs",
    "MultiKueueAllowInsecureKubeconfigs", "MultiKueueBatchJobWithManagedBy", "MultiKueueClusterProfile",
    "MultiKueueOrchestratedPreemption", "MultiKueueRedoAdmissionOnEvictionInWorker",
    "MultiKueueWaitForWorkloadAdmitted", "ObjectRetentionPolicies", "PartialAdmission", "PriorityBoost",
    "PrioritySortingWithinCohort", "PropagateBatchJobLabelsToWorkload", "ReclaimablePods",
    "RemoveFinalizersWithStrictPatch", "SanitizePodSets", "SchedulerLongRequeueInterval",
    "SchedulerTimestampPreemptionBuffer", "SchedulingEquivalenceHashing", "ShortWorkloadNames",
    "SkipFinalizersForPodsSuspendedByParent", "SparkApplicationIntegration", "TASBalancedPlacement",
    "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast", "TASMultiLayerTopology", "TASProfileMixed",
    "TASReplaceNodeOnNodeTaints", "TASReplaceNodeOnPodTermination", "TLSOptions", "TopologyAwareScheduling",
    "VisibilityOnDemand", "WorkloadRequestUseMergePatch",
})
APISERVER = frozenset({
    "APIResponseCompression", "APIServerIdentity", "APIServerTracing", "APIServingWithRoutine",
    "AggregatedDiscoveryRemoveBetaType", "AllowParsingUserUIDFromCertAuth",
    "AllowUnsafeMalformedObjectDeletion", "AnonymousAuthConfigurableEndpoints", "AuthorizeWithSelectors",
    "BtreeWatchCache", "CBORServingAndStorage", "ConcurrentWatchObjectDecode", "ConsistentListFromCache",
    "ConstrainedImpersonation", "CoordinatedLeaderElection", "DeclarativeValidation",
    "DeclarativeValidationTakeover", "DetectCacheInconsistency", "KMSv1", "ListFromCacheSnapshot",
    "MutatingAdmissionPolicy", "OpenAPIEnums", "RemoteRequestHeaderUID", "ResilientWatchCacheInitialization",
    "RetryGenerateName", "SeparateCacheWatchRPC", "SizeBasedListCostEstimate", "StorageVersionAPI",
    "StorageVersionHash", "StreamingCollectionEncodingToJSON", "StreamingCollectionEncodingToProtobuf",
    "StructuredAuthenticationConfiguration", "StructuredAuthenticationConfigurationEgressSelector",
    "StructuredAuthenticationConfigurationJWKSMetrics", "StructuredAuthorizationConfiguration",
    "TokenRequestServiceAccountUIDValidation", "UnauthenticatedHTTP2DOSMitigation",
    "UnknownVersionInteroperabilityProxy", "WatchCacheInitializationPostStartHook",
    "WatchFromStorageWithoutResourceVersion", "WatchList",
})
KNOWN = KUEUE | APISERVER | {"AllAlpha", "AllBeta"}
# Kueue's gates at GA with LockToDefault (each locked to true since v0.17)
LOCKED_ON = frozenset({"HierarchicalCohorts", "LendingLimit", "LocalQueueDefaulting", "MultiKueueBatchJobWithManagedBy",
                       "ObjectRetentionPolicies", "PropagateBatchJobLabelsToWorkload", "SanitizePodSets"})

# Kueue v0.17.0's own gates and their defaults (pkg/features/kube_features.go, the last version entry)
DEFAULT_ON = frozenset({
    "AdmissionFairSharing", "AssignQueueLabelsForPods", "FairSharingPreemptWithinNominal",
    "FairSharingPrioritizeNonBorrowing", "FlavorFungibility", "HierarchicalCohorts", "LendingLimit",
    "LocalQueueDefaulting", "LocalQueueMetrics", "ManagedJobsNamespaceSelectorAlwaysRespected", "MultiKueue",
    "MultiKueueAdaptersForCustomJobs", "MultiKueueBatchJobWithManagedBy", "MultiKueueRedoAdmissionOnEvictionInWorker",
    "MultiKueueWaitForWorkloadAdmitted", "ObjectRetentionPolicies", "PartialAdmission", "PrioritySortingWithinCohort",
    "PropagateBatchJobLabelsToWorkload", "ReclaimablePods", "RemoveFinalizersWithStrictPatch", "SanitizePodSets",
    "SkipFinalizersForPodsSuspendedByParent", "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast",
    "TASProfileMixed", "TASReplaceNodeOnNodeTaints", "TASReplaceNodeOnPodTermination", "TLSOptions",
    "TopologyAwareScheduling", "VisibilityOnDemand",
})
# Kueue's gates whose other value changes nothing kadmit decides (admission, preemption, the webhooks'
# defaults and refusals, which objects Kueue manages): docs/KUEUE-DIFFERENCES.md "Feature gates"
NO_DECISION = {
    "CustomMetricLabels": "extra labels on Kueue's metrics",
    "LocalQueueMetrics": "the LocalQueue metrics",
    "VisibilityOnDemand": "the visibility API server (pending workloads on demand)",
    "TLSOptions": "TLS settings of Kueue's servers",
    "RemoveFinalizersWithStrictPatch": "how the job reconcilers patch finalizers away",
    "WorkloadRequestUseMergePatch": "how Kueue patches a Workload's status (merge or apply)",
    "MultiKueueAdaptersForCustomJobs": "MultiKueue's dispatch of custom jobs to worker clusters",
    "MultiKueueAllowInsecureKubeconfigs": "MultiKueue's worker-cluster kubeconfigs",
    "MultiKueueClusterProfile": "MultiKueue's worker-cluster credentials (ClusterProfile)",
    "MultiKueueRedoAdmissionOnEvictionInWorker": "MultiKueue's reaction to an eviction in a worker cluster",
    "MultiKueueWaitForWorkloadAdmitted": "when MultiKueue dispatches to worker clusters",
}


def unmodelled(name: str, value: object) -> bool:
    """Whether Kueue's gate `name` set to `value` may change a decision kadmit makes under Kueue v0.17.0's
    defaults: not when set to its default, nor for a gate of NO_DECISION, nor for a gate of the API
    server library (it governs Kueue's servers: its visibility API server, never a decision).
    DynamicResourceAllocation is modelled (kadmit.manifests.config), so not asked here."""
    if name in APISERVER or name in NO_DECISION:
        return False
    if name in ("AllAlpha", "AllBeta"):  # off by default; on turns on every alpha (beta) gate not set
        return value is not False
    return value is not (name in DEFAULT_ON)
