"""The feature gates Kueue v0.17.0's manager knows, for its Configuration's `featureGates`.

Kueue's manager sets them with `SetFromMap` on the process's gate (cmd/kueue/main.go) and exits when
that fails: a name the process does not know (`unrecognized feature gate: NAME`), or a gate locked to
its default set to the other value (`cannot set feature gate NAME to false, feature is locked to true`).
The process's gate holds Kueue's own gates (pkg/features/kube_features.go) and those the API server
library registers in it (k8s.io/apiserver v0.35 pkg/features), with component-base's AllAlpha and AllBeta.
"""

from __future__ import annotations

from kadmit.featuregates import ALPHA, BETA, DEFAULT_ON, DEPRECATED, KUEUE, LOCKED_ON, resolve  # noqa: F401

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
    # pod_webhook.go: only whether a pod its parent suspends gets Kueue's pod finalizer (its deletion, at run time);
    # the oracle decides every case of tests/oracle/features and jobs alike at either value (gatesB)
    "SkipFinalizersForPodsSuspendedByParent": "the finalizer Kueue's pod webhook gives a pod its parent suspends",
}


# Kueue's gates whose other value changes what Kueue does at run time, after admission or when it retries,
# which no snapshot holds: warned (KAD161) in these words, never modelled
RUN_TIME = {
    "FailureRecoveryPolicy": "pods stuck terminating are force-terminated",
    "FastQuotaReleaseInPodIntegration": "a pod group's quota is released as its pods finish",
    "SchedulerLongRequeueInterval": "how long Kueue waits before it tries an inadmissible workload again",
    "TASFailedNodeReplacement": "a failed node of a topology-aware workload is replaced",
    "TASFailedNodeReplacementFailFast": "when a topology-aware workload with a failed node is evicted",
    "TASReplaceNodeOnNodeTaints": "a tainted node of a topology-aware workload is replaced",
    "TASReplaceNodeOnPodTermination": "a node whose pods terminate is replaced for a topology-aware workload",
}


def unmodelled_words(name: str) -> str:
    """What KAD161 says of Kueue's gate `name` set to its other value: that it is run time (RUN_TIME), or
    that kadmit keeps its default."""
    if name in RUN_TIME:
        return (f"it changes what Kueue does at run time ({RUN_TIME[name]}), which no snapshot holds; kadmit "
                "decides as Kueue does with its default")
    return "kadmit follows Kueue v0.17.0's default for it"


# Kueue's gates whose every value kadmit decides as Kueue does (SchedulerConfig.feature_gates): the scheduler's,
# then the integrations' and webhooks' (Job start, which namespaces' jobs Kueue manages, Workload names)
MODELLED = frozenset({"AdmissionFairSharing", "AdmissionGatedBy", "DRAExtendedResources",
                      "DynamicResourceAllocation", "ElasticJobsViaWorkloadSlices", "ElasticJobsViaWorkloadSlicesWithTAS",
                      "FairSharingPreemptWithinNominal", "FairSharingPrioritizeNonBorrowing",
                      "FlavorFungibility",
                      "MultiKueue", "MultiKueueOrchestratedPreemption", "PartialAdmission", "PriorityBoost",
                      "PrioritySortingWithinCohort", "ReclaimablePods", "SchedulerTimestampPreemptionBuffer",
                      "SchedulingEquivalenceHashing",
                      "TASBalancedPlacement", "TopologyAwareScheduling",
                      "AssignQueueLabelsForPods", "ManagedJobsNamespaceSelectorAlwaysRespected",
                      "ShortWorkloadNames", "SparkApplicationIntegration", "TASMultiLayerTopology", "TASProfileMixed"})


def unmodelled(name: str, value: object) -> bool:
    """Whether Kueue's gate `name` set to `value` may change a decision kadmit makes under Kueue v0.17.0's
    defaults: not when set to its default, nor for a gate of NO_DECISION or MODELLED, nor for a gate of the
    API server library (it governs Kueue's servers: its visibility API server, never a decision)."""
    if name in APISERVER or name in NO_DECISION or name in MODELLED:
        return False
    if name in ("AllAlpha", "AllBeta"):  # off by default; on turns on every alpha (beta) gate not set
        return value is not False
    return value is not (name in DEFAULT_ON)


def unmodelled_by_all(name: str, value: bool, written: dict[str, object]) -> list[str]:
    """The gates `AllAlpha`/`AllBeta` (`name`) set to `value` changes that kadmit does not model: those of
    its stage that `written` does not name, away from their defaults."""
    return sorted(g for g in (ALPHA if name == "AllAlpha" else BETA)
                  if g not in written and unmodelled(g, value))


def refused(error: str) -> str:
    """The message of a Configuration Kueue's validation refuses (pkg/config/validation.go), its error
    quoted: Kueue's manager does not start."""
    return f"Kueue refuses to start with this Configuration: `{error}`"


def refusal(name: str, value: object) -> tuple[str, str] | None:
    """Kueue's manager's error setting gate `name` to `value` (SetFromMap: it exits), and the help; None
    where it sets it. A Configuration's `featureGates` and a `.kad` scheduler's `feature_gates` alike."""
    if name not in KNOWN:  # a later Kueue's gate (KueueDRAIntegration), a misspelling
        return (f"unrecognized feature gate: {name}",
                "Kueue's manager sets the Configuration's gates and exits when one is unknown to it "
                "(Kueue v0.17.0's gates: pkg/features)")
    if name in LOCKED_ON and value is False:
        return (f"cannot set feature gate {name} to false, feature is locked to true",
                "the gate is GA and locked on in Kueue v0.17.0; remove it")
    return None


def unmodelled_warning(name: str, written: dict[str, bool]) -> str | None:
    """Why gate `name` as `written` sets it (KAD161's words after the gate's name) may change a decision
    kadmit does not model; None where it does not."""
    if name in ("AllAlpha", "AllBeta"):
        changed = unmodelled_by_all(name, written[name], written)
        return (f"it sets {', '.join(changed)} to {str(written[name]).lower()}, which kadmit does not model "
                "(it follows Kueue v0.17.0's default for them)") if changed else None
    return unmodelled_words(name) if unmodelled(name, written[name]) else None


def describe(name: str) -> list[str]:
    """What the editor says of gate `name` (completion's detail: the first line; hover: all): its stage and default
    in Kueue v0.17.0, and what kadmit does with its other value (docs/KUEUE-DIFFERENCES.md §7 has each gate's row)."""
    if name in ("AllAlpha", "AllBeta"):
        stage = "alpha" if name == "AllAlpha" else "beta"
        return [f"sets every {stage} gate not named to its value; off by default",
                f"kadmit warns (KAD161) of each {stage} gate it turns that kadmit does not model"]
    if name in APISERVER:
        return ["the API server library's gate in Kueue's process", "it governs Kueue's servers only: no decision"]
    if name not in KUEUE:
        return []
    default = "on" if name in DEFAULT_ON else "off"
    stage = ("GA, locked on" if name in LOCKED_ON else "deprecated" if name in DEPRECATED
             else "alpha" if name in ALPHA else "beta")
    head = f"{stage}, {default} by default" if name not in LOCKED_ON else stage
    if name in LOCKED_ON:
        how = "`false` stops Kueue's manager (KAD157)"
    elif name in MODELLED:
        how = "modelled: kadmit decides as Kueue does at either value"
    elif name in NO_DECISION:
        how = f"no decision kadmit makes: {NO_DECISION[name]}"
    elif name in RUN_TIME:
        how = f"run time, not modelled (KAD161 at its other value): {RUN_TIME[name]}"
    else:
        how = "not modelled: kadmit warns at its other value (KAD161) and follows the default"
    return [head, how]
