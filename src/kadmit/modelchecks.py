"""Admission checks as Kueue v0.17.0 keeps them: the AdmissionCheck objects and the objects their
built-in controllers read (re-exported by `kadmit.model`), whether a check is Active, why a
ClusterQueue is inactive because of its checks, and which checks a reserved workload waits on.

Who sets a check's `Active` condition (docs/KUEUE-FIELDS.md, "Admission checks"): Kueue's own
reconcilers for its two built-in controllers, from the objects — a provisioning-request check is
Active when its parameters name a ProvisioningRequestConfig that exists
(pkg/controller/admissionchecks/provisioning/admissioncheck_reconciler.go), a MultiKueue check when
its parameters name a MultiKueueConfig that exists and not every cluster it lists is missing or
inactive (multikueue/admissioncheck.go; a MultiKueueCluster's own `Active` is taken as given:
Kueue sets it by connecting to the worker, which no offline tool can). Any other controller's check
is Active only if its status says so (no status: not Active, as Kueue's cache reads it)."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

from datetime import datetime
from typing import Literal

from kadmit.modelbase import Obj

KUEUE_GROUP = "kueue.x-k8s.io"
PROVISIONING = "kueue.x-k8s.io/provisioning-request"
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
CheckStateName = Literal["Pending", "Ready", "Retry", "Rejected"]


class CheckRule(Obj):
    """One admission check a ClusterQueue requires (`admissionChecksStrategy.admissionChecks[]`, or
    a name of v1beta1's `admissionChecks`): for the workloads assigned one of `on_flavors`, or for
    every workload when it is empty."""

    name: str
    on_flavors: tuple[str, ...] = ()


class CheckParameters(Obj):
    """An AdmissionCheck's `spec.parameters`."""

    api_group: str = ""
    kind: str = ""
    name: str = ""


class AdmissionCheck(Obj):
    """A Kueue AdmissionCheck: its controller, parameters and the `Active` condition given in its
    status (None: no such condition)."""

    name: str
    controller: str
    parameters: CheckParameters | None = None
    status_active: bool | None = None
    status_reason: str = ""


class RetryStrategy(Obj):
    """A ProvisioningRequestConfig's `retryStrategy` (None fields: unset, Kueue's defaults 3, 60, 1800)."""

    backoff_limit_count: int | None = None
    backoff_base_seconds: int | None = None
    backoff_max_seconds: int | None = None


class CheckConfig(Obj):
    """An object a built-in check controller reads: a ProvisioningRequestConfig (its existence
    decides whether its check is Active; the rest is what the provisioning controller asks the
    autoscaler for), a MultiKueueConfig (the clusters it lists) or a MultiKueueCluster (its `Active`
    condition as given; where its kubeconfig is, which only the connection reads)."""

    kind: Literal["ProvisioningRequestConfig", "MultiKueueConfig", "MultiKueueCluster"]
    name: str
    clusters: tuple[str, ...] = ()
    status_active: bool | None = None
    # ProvisioningRequestConfig
    provisioning_class: str = ""
    parameters: dict[str, str] = {}
    managed_resources: tuple[str, ...] = ()
    retry_strategy: RetryStrategy | None = None
    pod_set_updates: tuple[tuple[str, str], ...] = ()  # nodeSelector: (key, valueFromProvisioningClassDetail)
    pod_set_merge_policy: str | None = None
    # MultiKueueCluster: its clusterSource, a kubeconfig (location, Secret or Path) or a ClusterProfile
    kubeconfig: str = ""
    kubeconfig_location_type: str = ""  # "" when not given (Kueue's default: Secret)
    cluster_profile: str = ""


class CheckState(Obj):
    """One entry of a Workload's `status.admissionChecks`."""

    name: str
    state: CheckStateName = "Pending"
    # a Retry state's lastTransitionTime + requeueAfterSeconds (workload.GetMaxRetryTime), None without either
    retry_at: datetime | None = None


def active_reason(active: bool) -> str:
    """The reason of an `Active` condition a `.kad` file gives without one (a condition has one)."""
    return "Active" if active else "Inactive"


# --- Kueue's rules ---------------------------------------------------------------------------------

class Activity:
    """Whether each AdmissionCheck is Active, and why not, over the input's checks and configs."""

    def __init__(self, checks, configs, multikueue: bool = True) -> None:
        # `multikueue`: the MultiKueue gate (on by default); off, Kueue runs no MultiKueue controller, and a
        # MultiKueue check keeps the Active condition its status gives, as another controller's does
        self.multikueue = multikueue
        self.checks: dict[str, AdmissionCheck] = {}
        for ac in checks:
            self.checks.setdefault(ac.name, ac)
        self.configs: dict[tuple[str, str], CheckConfig] = {}
        for c in configs:
            self.configs.setdefault((c.kind, c.name), c)
        self._why: dict[str, str] = {}

    def inactive_reason(self, name: str) -> str:
        """"" when the check is Active, else why not (Kueue's condition reason and message)."""
        got = self._why.get(name)
        if got is None:
            got = self._why[name] = self._reason(self.checks[name])
        return got

    def _reason(self, ac: AdmissionCheck) -> str:
        if ac.controller == PROVISIONING:
            bad = self._bad_ref(ac.parameters, "ProvisioningRequestConfig")
            return f"BadParametersRef: {bad}" if bad else ""
        if ac.controller == MULTIKUEUE and self.multikueue:
            bad = self._bad_ref(ac.parameters, "MultiKueueConfig")
            if bad:
                return f"BadConfig: Cannot load the AdmissionChecks parameters: {bad}"
            cfg = self.configs[("MultiKueueConfig", ac.parameters.name)]
            missing = [c for c in cfg.clusters if ("MultiKueueCluster", c) not in self.configs]
            inactive = [c for c in cfg.clusters if ("MultiKueueCluster", c) in self.configs
                        and not self.configs[("MultiKueueCluster", c)].status_active]
            if cfg.clusters and len(missing) + len(inactive) == len(cfg.clusters):
                parts = ([f"Missing clusters: [{' '.join(missing)}]"] if missing else []) + \
                    ([f"Inactive clusters: [{' '.join(inactive)}]"] if inactive else [])
                return "NoUsableClusters: " + ", ".join(parts)
            return ""
        if ac.status_active:
            return ""
        if ac.status_active is None:
            return f"no `Active` condition: its controller `{ac.controller}` has not set one"
        return f"{ac.status_reason or 'Active is False'} (its controller `{ac.controller}`)"

    def _bad_ref(self, ref: CheckParameters | None, kind: str) -> str:
        """Kueue's error for parameters that don't name an existing `kind` (admissioncheck.ConfigFromRef)."""
        if ref is None:
            return "missing parameters reference"
        if not ref.name:
            return "empty name: bad parameters reference"
        if ref.api_group != KUEUE_GROUP:
            return f"wrong group \"{ref.api_group}\", expecting \"{KUEUE_GROUP}\": bad parameters reference"
        if ref.kind != kind:
            return f"wrong kind \"{ref.kind}\", expecting \"{kind}\": bad parameters reference"
        if (kind, ref.name) not in self.configs:
            plural = "provisioningrequestconfigs" if kind == "ProvisioningRequestConfig" else "multikueueconfigs"
            return f"{plural}.{KUEUE_GROUP} \"{ref.name}\" not found"
        return ""

    def queue_problems(self, rules: tuple[CheckRule, ...], all_flavors: set[str]) -> list[str]:
        """Why Kueue keeps a ClusterQueue with these checks inactive, in its words and order
        (clusterQueue.inactiveReason): missing checks, inactive ones, more than one MultiKueue
        check, a MultiKueue check on some flavors only, MultiKueue with provisioning. Empty: active."""
        if not rules:
            return []
        missing, inactive, multikueue, per_flavor, provisioning = [], [], [], [], []
        for r in rules:
            ac = self.checks.get(r.name)
            if ac is None:
                missing.append(r.name)
                continue
            if self.inactive_reason(r.name):
                inactive.append(r.name)
            if ac.controller == PROVISIONING:
                provisioning.append(r.name)
            if ac.controller == MULTIKUEUE:
                multikueue.append(r.name)
                if set(r.on_flavors or all_flavors) != all_flavors:
                    per_flavor.append(r.name)
        out = []
        if missing:
            out.append("references missing AdmissionCheck(s): " + ",".join(sorted(missing)))
        if inactive:
            out.append("references inactive AdmissionCheck(s): " + ",".join(sorted(inactive)) + " ("
                       + "; ".join(f"{n}: {self.inactive_reason(n)}" for n in sorted(inactive)) + ")")
        if len(multikueue) > 1:
            out.append("Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, found: "
                       + ",".join(sorted(multikueue)))
        if per_flavor:
            out.append("Cannot specify MultiKueue AdmissionCheck per flavor, found: " + ",".join(sorted(per_flavor)))
        if multikueue and provisioning:
            out.append("Cannot use both MultiKueue and ProvisioningRequest AdmissionChecks together, found: "
                       + ",".join(sorted(multikueue)) + ", " + ",".join(sorted(provisioning)))
        return out


def checks_for(rules: tuple[CheckRule, ...], all_flavors: set[str], assigned: set[str] | None) -> tuple[str, ...]:
    """The checks a workload of the queue must pass (workload.AdmissionChecksForWorkload), sorted:
    all of them when every rule applies to every flavor; else, once quota is reserved on
    `assigned` flavors, those whose flavors include one of them (none before)."""
    if all(set(r.on_flavors or all_flavors) == all_flavors for r in rules):
        return tuple(sorted({r.name for r in rules}))
    if assigned is None:
        return ()
    return tuple(sorted({r.name for r in rules if set(r.on_flavors or all_flavors) & assigned}))


def states_on_reservation(rules: tuple[CheckRule, ...], all_flavors: set[str], assigned: set[str],
                          states: tuple[CheckState, ...]) -> tuple[tuple[str, str], ...]:
    """The checks that apply to a workload reserving quota on `assigned` flavors, each with its state:
    a state it had while pending is kept (the workload controller keeps those of the checks that
    apply to every flavor, SetAdmissionCheckState, and clears the rest), the others are Pending.
    Kueue admits it only when every one is Ready (SyncAdmittedCondition)."""
    before = set(checks_for(rules, all_flavors, None))
    had = {s.name: s.state for s in states if s.name in before}
    return tuple((c, had.get(c, "Pending")) for c in checks_for(rules, all_flavors, assigned))


def delayed_tas_flavors(activity: Activity, rules: tuple[CheckRule, ...], all_flavors: set[str]) -> set[str]:
    """The flavors on which Kueue delays a pending workload's topology assignment
    (flavorassigner.podSetTopologyRequest): every flavor of a queue with a MultiKueue check (the worker
    cluster places it), else those of its provisioning checks (placed once capacity is provisioned)."""
    out: set[str] = set()
    for r in rules:
        ac = activity.checks.get(r.name)
        if ac is None:
            continue
        if ac.controller == MULTIKUEUE:
            return set(all_flavors)
        if ac.controller == PROVISIONING:
            out |= set(r.on_flavors or all_flavors)
    return out
