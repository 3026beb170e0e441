"""Kueue v0.17.0's own feature gates (pkg/features/kube_features.go, each gate's last entry): their
defaults and stages, and which of them a policy's Configuration turns to its other value.

Kueue's manager sets the Configuration's `featureGates` with component-base's `SetFromMap`: a gate
named is set to its value; `AllAlpha` (`AllBeta`) sets every alpha (beta) gate not named to its own
value (featuregate.setUnsetAlphaGates: only gates not already set, so a gate named wins whatever the
map's order). `SchedulerConfig.feature_gates` holds the result for Kueue's gates that differ from
their defaults; each stage asks `enabled(model.config, NAME)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from kadmit.modelbase import Obj

ALPHA = frozenset({
    "AdmissionGatedBy", "CustomMetricLabels", "DRAExtendedResources", "DynamicResourceAllocation",
    "ElasticJobsViaWorkloadSlices", "ElasticJobsViaWorkloadSlicesWithTAS", "FailureRecoveryPolicy",
    "FastQuotaReleaseInPodIntegration", "MultiKueueClusterProfile", "MultiKueueOrchestratedPreemption",
    "PriorityBoost", "SchedulerLongRequeueInterval", "SchedulerTimestampPreemptionBuffer", "ShortWorkloadNames",
    "SparkApplicationIntegration", "TASBalancedPlacement", "TASMultiLayerTopology", "WorkloadRequestUseMergePatch",
})
BETA = frozenset({
    "AdmissionFairSharing", "AssignQueueLabelsForPods", "FairSharingPreemptWithinNominal",
    "FairSharingPrioritizeNonBorrowing", "FlavorFungibility", "LocalQueueMetrics",
    "ManagedJobsNamespaceSelectorAlwaysRespected", "MultiKueue", "MultiKueueAdaptersForCustomJobs",
    "MultiKueueRedoAdmissionOnEvictionInWorker", "MultiKueueWaitForWorkloadAdmitted", "PartialAdmission",
    "PrioritySortingWithinCohort", "ReclaimablePods", "RemoveFinalizersWithStrictPatch", "SchedulingEquivalenceHashing",
    "SkipFinalizersForPodsSuspendedByParent", "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast",
    "TASProfileMixed", "TASReplaceNodeOnNodeTaints", "TASReplaceNodeOnPodTermination", "TLSOptions",
    "TopologyAwareScheduling", "VisibilityOnDemand",
})
# GA, locked to true since v0.17 (a `false` stops Kueue's manager)
LOCKED_ON = frozenset({"HierarchicalCohorts", "LendingLimit", "LocalQueueDefaulting", "MultiKueueBatchJobWithManagedBy",
                       "ObjectRetentionPolicies", "PropagateBatchJobLabelsToWorkload", "SanitizePodSets"})
DEPRECATED = frozenset({"MultiKueueAllowInsecureKubeconfigs"})
KUEUE = ALPHA | BETA | LOCKED_ON | DEPRECATED

DEFAULT_ON = frozenset({
    "AdmissionFairSharing", "AssignQueueLabelsForPods", "FairSharingPreemptWithinNominal",
    "FairSharingPrioritizeNonBorrowing", "FlavorFungibility", "LocalQueueMetrics",
    "ManagedJobsNamespaceSelectorAlwaysRespected", "MultiKueue", "MultiKueueAdaptersForCustomJobs",
    "MultiKueueRedoAdmissionOnEvictionInWorker", "MultiKueueWaitForWorkloadAdmitted", "PartialAdmission",
    "PrioritySortingWithinCohort", "ReclaimablePods", "RemoveFinalizersWithStrictPatch",
    "SkipFinalizersForPodsSuspendedByParent", "TASFailedNodeReplacement", "TASFailedNodeReplacementFailFast",
    "TASProfileMixed", "TASReplaceNodeOnNodeTaints", "TASReplaceNodeOnPodTermination", "TLSOptions",
    "TopologyAwareScheduling", "VisibilityOnDemand",
}) | LOCKED_ON


class Gated(Protocol):  # kadmit.model.SchedulerConfig (which imports this module)
    feature_gates: Mapping[str, bool]


def resolve(written: Mapping[str, bool]) -> dict[str, bool]:
    """Kueue's gates away from their defaults once `written` (a Configuration's `featureGates`, every value
    a bool, every name known) is set as SetFromMap sets it; in name order, for a deterministic model."""
    values: dict[str, bool] = {name: on for name, on in written.items() if name in KUEUE}
    for special, stage in (("AllAlpha", ALPHA), ("AllBeta", BETA)):
        if special in written:
            for name in stage:
                values.setdefault(name, written[special])
    return {name: on for name, on in sorted(values.items()) if on is not (name in DEFAULT_ON)}


def enabled(config: Gated | None, name: str) -> bool:
    """Whether Kueue's gate `name` is on under `config` (Kueue v0.17.0's default where no Configuration
    is given or it does not change the gate)."""
    return on(config.feature_gates if config is not None else {}, name)


def on(gates: Mapping[str, bool], name: str) -> bool:
    """Whether Kueue's gate `name` is on where `gates` (resolve's answer) are set."""
    assert name in KUEUE, name
    return gates.get(name, name in DEFAULT_ON)


class ManagerFlag(Obj):
    """The `--feature-gates` flag of Kueue's manager Deployment: its gates as written (every name known, every
    value a bool); Kueue sets them in place of the Configuration's `featureGates` (kadmit.manifests.managerflags)."""

    gates: dict[str, bool] = {}
    namespace: str = ""  # the Deployment's
    name: str = ""
