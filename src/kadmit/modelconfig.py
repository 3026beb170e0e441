"""Kueue's `Configuration` as the model holds it: the settings that change decisions (`SchedulerConfig`), with its
resource transformations, DRA device-class mappings and admission fair sharing (re-exported by `kadmit.model`)."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import

from typing import Literal

from kadmit import featuregates
from kadmit.modelbase import Obj
from kadmit.modelscheduling import LabelSelector

Quantities = dict[str, int]  # resource name -> milli-units


# The integrations that turn Kueue's pod integration on when the Configuration does not list it (their
# ImplicitlyEnabledFrameworkNames): its webhook and reconciler run, for their pods only.
POD_PARENTS = ("deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")


def reconciles(frameworks: tuple[str, ...], framework: str, parent_marked: bool) -> bool:
    """Whether a reconciler of Kueue's takes a job of `framework` where `frameworks` are enabled: its integration
    enabled, or for a pod a parent's webhook marked, the pod integration a parent turns on (`Pod.Skip` skips the
    unmarked ones). Kueue sets up no reconciler of a disabled integration, so none touches such a job's Workloads."""
    return framework in frameworks or (framework == "pod" and parent_marked and any(p in frameworks for p in POD_PARENTS))


# Kueue's fair-sharing preemption strategies, in the order its defaulting lists them.
FAIR_SHARING_STRATEGIES = ("LessThanOrEqualToFinalShare", "LessThanInitialShare")


class ResourceTransformation(Obj):
    """`resources.transformations`: `input` -> `outputs` per unit (times `multiply_by`); Retain keeps it."""
    input: str
    strategy: Literal["Retain", "Replace"] = "Retain"
    multiply_by: str = ""
    outputs: Quantities = {}
    # an output factor finer than a milli-unit (`100u`), as written: Kueue multiplies the exact factor
    # and rounds the product, where `outputs` holds it rounded up to a milli-unit
    fine_outputs: dict[str, str] = {}


class DeviceClassMapping(Obj):  # `resources.deviceClassMappings`: these classes' devices count as `name`
    name: str
    device_class_names: tuple[str, ...] = ()


class AdmissionFairSharing(Obj):
    """The Configuration's `admissionFairSharing` (Kueue's defaults: sampling every 5 minutes,
    every resource weighing 1)."""

    usage_half_life_ms: int = 0
    usage_sampling_interval_ms: int = 300_000
    resource_weights: dict[str, float] = {}


class SchedulerConfig(Obj):
    """Kueue's `Configuration` settings that change decisions. `preemption_strategies` keeps what was
    written (unknown names too, for the validator); `strategies` is what Kueue applies."""

    fair_sharing: bool = False
    preemption_strategies: tuple[str, ...] = ()
    # Which jobs Kueue manages (its integrations); None where the configuration does not say, so Kueue's installed defaults apply (`kadmit.manifests.jobs.manage`).
    manage_jobs_without_queue_name: bool | None = None
    managed_jobs_namespace_selector: LabelSelector | None = None
    frameworks: tuple[str, ...] | None = None
    external_frameworks: tuple[tuple[str, str], ...] = ()  # `integrations.externalFrameworks`: (apiVersion, kind)
    exclude_resource_prefixes: tuple[str, ...] = ()  # `resources` (kadmit.effective applies them)
    transformations: tuple[ResourceTransformation, ...] = ()
    device_class_mappings: tuple[DeviceClassMapping, ...] = ()
    # `featureGates`: Kueue's gates away from their defaults, AllAlpha/AllBeta applied (kadmit.featuregates.resolve);
    # ask `featuregates.enabled(config, NAME)`
    feature_gates: dict[str, bool] = {}
    admission_fair_sharing: AdmissionFairSharing | None = None
    # `waitForPodsReady.requeuingStrategy.timestamp` (Kueue's default, whatever the section: Eviction):
    # which time a workload evicted for its pods' readiness is queued by
    pods_ready_requeuing_timestamp: Literal["Eviction", "Creation"] = "Eviction"

    @property
    def dynamic_resource_allocation(self) -> bool:
        """Off by default in Kueue v0.17.0, and then Kueue counts no resourceClaims (kadmit.effective)."""
        return featuregates.enabled(self, "DynamicResourceAllocation")

    @property
    def strategies(self) -> tuple[str, ...]:
        """None while fair sharing is off; else the known names as given, or Kueue's default pair
        when none are (its configuration defaulting and its preemptor both fill them in). Unknown
        names, which Kueue refuses to start with, are left out."""
        if not self.fair_sharing:
            return ()
        known = tuple(s for s in self.preemption_strategies if s in FAIR_SHARING_STRATEGIES)
        return known or FAIR_SHARING_STRATEGIES
