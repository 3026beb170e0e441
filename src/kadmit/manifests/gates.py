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
