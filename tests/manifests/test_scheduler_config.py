"""Kueue's Configuration (alone or in its ConfigMap), workload conditions preemption reads, and
the preemption inputs read alike from both front ends."""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.manifests.jobs.external import say_unread
from kadmit.model import FAIR_SHARING_STRATEGIES, AdmissionFairSharing, Fragment, SchedulerConfig, merge
from kadmit.syntax import parse_text
from kadmit.validate import validate

FINAL, INITIAL = FAIR_SHARING_STRATEGIES


def read(text: str) -> tuple[Fragment, Diagnostics]:
    """The file read, and what a load of it alone says (KAD159 once the input is merged: `say_unread`)."""
    diags = Diagnostics()
    frag = read_manifest_text(textwrap.dedent(text), "m.yaml", diags)
    say_unread(frag.unread_kinds, frag.scheduler_configs[0] if frag.scheduler_configs else None, diags)
    return frag, diags


def kad(text: str) -> Fragment:
    diags = Diagnostics()
    frag = parse_text(textwrap.dedent(text), "p.kad", diags)
    assert not diags.items, [(d.code, d.message) for d in diags]
    return frag


def codes(diags: Diagnostics) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in diags.sorted()]


def only(frag: Fragment) -> SchedulerConfig:
    (cfg,) = frag.scheduler_configs
    return cfg


# --- the Configuration document -------------------------------------------------------------------

def test_v1beta1_configuration_without_metadata() -> None:
    frag, diags = read("""\
        apiVersion: config.kueue.x-k8s.io/v1beta1
        kind: Configuration
        namespace: kueue-system
        fairSharing:
          enable: true
          preemptionStrategies: [LessThanOrEqualToFinalShare]
        """)
    assert list(diags) == []
    cfg = only(frag)
    assert (cfg.fair_sharing, cfg.preemption_strategies) == (True, (FINAL,))
    assert (cfg.span.line, cfg.field_span("fair_sharing").line) == (1, 5)
    assert (cfg.field_span("preemption_strategies.0").line, cfg.field_span("preemption_strategies.0").column) == (6, 26)


@pytest.mark.parametrize("body, on, names", [
    ("", False, ()),
    ("fairSharing: {enable: true}", True, ()),
    ("fairSharing: {enable: false, preemptionStrategies: [LessThanInitialShare]}", False, (INITIAL,)),
    ("fairSharing: {preemptionStrategies: [LessThanInitialShare]}", False, (INITIAL,)),
])
def test_v1beta1_turns_fair_sharing_on_with_enable(body, on, names) -> None:
    frag, diags = read(f"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n{body}\n")
    assert list(diags) == []
    assert (only(frag).fair_sharing, only(frag).preemption_strategies) == (on, names)


def test_enabled_without_strategies_uses_kueues_defaults() -> None:
    frag, _ = read("apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing: {enable: true}\n")
    assert only(frag).strategies == (FINAL, INITIAL)


def test_v1beta2_turns_fair_sharing_on_with_the_section() -> None:
    frag, diags = read("""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        fairSharing:
          preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
        ---
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        """)
    assert list(diags) == []
    on, off = frag.scheduler_configs
    assert (on.fair_sharing, on.preemption_strategies) == (True, (FINAL, INITIAL))
    assert (off.fair_sharing, off.preemption_strategies) == (False, ())


def test_v1beta2_enable_is_a_field_of_the_other_version() -> None:
    frag, diags = read("""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        fairSharing:
          enable: false
        """)
    # and without strategies Kueue's validation refuses the section (it never gets there: strict decoding)
    assert codes(diags) == [("KAD157", 4, 3), ("KAD162", 4, 3)]
    assert "v1beta1" in diags.sorted()[1].message
    assert not frag.scheduler_configs  # refused, as Kueue refuses to start with it


def test_other_versions_are_reported_and_admission_fair_sharing_is_read() -> None:
    frag, diags = read("""\
        apiVersion: config.kueue.x-k8s.io/v1alpha1
        kind: Configuration
        ---
        apiVersion: config.kueue.x-k8s.io/v1beta1
        kind: Configuration
        admissionFairSharing: {usageHalfLifeTime: 1h}
        """)
    assert codes(diags) == [("KAD160", 1, 13)]
    assert only(frag) == SchedulerConfig(  # Kueue's default frameworks; its default sampling interval
        frameworks=("batch/job",), admission_fair_sharing=AdmissionFairSharing(usage_half_life_ms=3_600_000))


def test_strategies_of_the_wrong_type() -> None:
    frag, diags = read("""\
        apiVersion: config.kueue.x-k8s.io/v1beta1
        kind: Configuration
        fairSharing: {enable: true, preemptionStrategies: LessThanInitialShare}
        """)
    assert frag.scheduler_configs == [] and codes(diags) == [("KAD156", 3, 51)]


# --- the ConfigMap Kueue ships it in -----------------------------------------------------------------

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta1
    kind: Configuration
    health:
      healthProbeBindAddress: :8081

    fairSharing:
      enable: true
      preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitalShare]
"""


def test_config_map_is_read_with_positions_in_the_file() -> None:
    frag, diags = read(CONFIG_MAP)
    assert list(diags) == []
    cfg = only(frag)
    assert (cfg.fair_sharing, cfg.preemption_strategies) == (True, (FINAL, "LessThanInitalShare"))
    assert (cfg.span.line, cfg.span.column) == (8, 5)
    second = cfg.field_span("preemption_strategies.1")
    assert (second.line, second.column, second.end_column) == (15, 59, 78)
    assert CONFIG_MAP.splitlines()[14][58:77] == "LessThanInitalShare"
    checked = Diagnostics()
    validate(merge([frag]), checked)
    assert codes(checked) == [("KAD292", 15, 59)]
    assert checked.items[0].help == "did you mean `LessThanInitialShare`?"


def test_problems_of_the_embedded_text_are_located_in_the_file() -> None:
    text = CONFIG_MAP.replace("      healthProbeBindAddress: :8081\n",
                              "      healthProbeBindAddress: :8081\n      healthProbeBindAddress: :8082\n")
    frag, diags = read(text)
    assert codes(diags) == [("KAD151", 12, 7)]
    assert only(frag).fair_sharing is True


def test_crlf_and_chomping_keep_positions() -> None:
    text = CONFIG_MAP.replace("yaml: |", "yaml: |-  # kept").replace("\n", "\r\n")
    frag, diags = read(text)
    assert list(diags) == []
    assert only(frag).field_span("preemption_strategies.1").line == 15


def test_a_quoted_value_is_located_at_the_data_field() -> None:
    frag, diags = read("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config}
        data:
          controller_manager_config.yaml: "apiVersion: config.kueue.x-k8s.io/v1beta1\\nkind: Configuration\\nfairSharing: {enable: true, preemptionStrategies: [Bogus]}\\nx: [\\n"
        """)
    (d,) = diags.items
    assert (d.code, d.span.line, d.span.column) == ("KAD150", 5, 35)
    assert "of `controller_manager_config.yaml`)" in d.message
    assert frag.scheduler_configs == []


def test_a_quoted_value_that_parses_points_every_field_at_the_data_field() -> None:
    frag, diags = read("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config}
        data: {controller_manager_config.yaml: "apiVersion: config.kueue.x-k8s.io/v1beta1\\nkind: Configuration\\nfairSharing: {enable: true, preemptionStrategies: [Bogus]}\\n"}
        """)
    assert list(diags) == []
    cfg = only(frag)
    assert cfg.preemption_strategies == ("Bogus",)
    assert all((s.line, s.column) == (4, 40) for s in (cfg.span, cfg.field_span("preemption_strategies.0")))


def test_the_embedded_text_must_be_a_configuration() -> None:
    frag, diags = read("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config}
        data:
          controller_manager_config.yaml: |
            apiVersion: kueue.x-k8s.io/v1beta1
            kind: ClusterQueue
            metadata: {name: sneaky}
        """)
    assert frag == Fragment() and codes(diags) == [("KAD157", 7, 11)]


def test_the_embedded_text_must_be_a_string() -> None:
    frag, diags = read("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: kueue-manager-config}
        data:
          controller_manager_config.yaml: {fairSharing: {enable: true}}
        """)
    assert frag.model_copy(update={"broken": []}) == Fragment() and codes(diags) == [("KAD156", 5, 35)]
    assert [b.qualified for b in frag.broken] == ["ConfigMap/default/kueue-manager-config"]  # kept by name


def test_other_config_maps_are_skipped_like_unread_kinds() -> None:
    frag, diags = read("""\
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: coredns}
        data: {Corefile: ".:53 {}"}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: no-data}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: binary}
        data: [1, 2]
        """)
    assert frag.model_copy(update={"skipped": [], "unread_kinds": []}) == Fragment() and len(frag.skipped) >= 1
    refused, d = sorted(diags.items, key=lambda x: x.code)
    assert (d.code, d.severity.value, d.span.line) == ("KAD159", "warning", 1)
    assert "other than Kueue's configuration" in d.message and "3 objects" in d.message
    # a list for `data` (map[string]string): the API server can't decode the ConfigMap
    assert (refused.code, refused.span.line, refused.message) == ("KAD156", 13, "`data` should be a mapping, found a list")


def test_two_configurations_are_kept_for_the_validator() -> None:
    frag, _ = read(CONFIG_MAP + "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n")
    assert len(frag.scheduler_configs) == 2
    checked = Diagnostics()
    validate(merge([frag]), checked)
    assert "KAD293" in [d.code for d in checked]


# --- workload conditions that preemption reads -------------------------------------------------------

WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: job, namespace: team-a, creationTimestamp: "2026-11-20T08:00:00Z"}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{resources: {requests: {cpu: "1"}}}]}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: "1"}}]
  conditions:
  - {type: QuotaReserved, status: "{reserved}", lastTransitionTime: "2026-11-20T09:00:00Z", reason: QuotaReserved, message: m}
  - {type: Evicted, status: "{evicted}", reason: Preempted, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}
"""


def workload(reserved: str = "True", evicted: str = "False"):
    frag, diags = read(WORKLOAD.replace("{reserved}", reserved).replace("{evicted}", evicted))
    assert list(diags) == []
    (wl,) = frag.workloads
    return wl


def test_quota_reserved_time_and_eviction_are_read() -> None:
    wl = workload(evicted="True")
    assert wl.admission.admitted_at == datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    assert wl.evicted is True
    assert (wl.admission.field_span("admitted_at").line, wl.field_span("evicted").line) == (12, 13)


def test_not_evicted_and_not_reserved() -> None:
    assert workload().evicted is False
    assert workload(reserved="False").admission is None


def test_admitted_at_needs_a_reserved_condition_with_a_time() -> None:
    # the Workload CRD's status schema requires the condition's time: the API server refuses it (schema.status)
    frag, diags = read(WORKLOAD.replace(", lastTransitionTime: \"2026-11-20T09:00:00Z\"", "")
                       .replace("{reserved}", "True").replace("{evicted}", "False"))
    assert frag.workloads == [] and [(d.code, d.message.split(": ")[-1]) for d in diags] == [
        ("KAD157", "Required value`")]
    # Kueue's cache counts quota only while QuotaReserved is True (workload.HasQuotaReservation):
    # an Admitted condition alone holds none, and kadmit says the admission is stale (KAD181)
    frag, diags = read(WORKLOAD.replace("QuotaReserved", "Admitted").replace("{reserved}", "True")
                       .replace("{evicted}", "False"))
    assert frag.workloads[0].admission is None and [d.code for d in diags] == ["KAD181"]
    assert diags.items[0].message.endswith("Kueue holds no quota for it and queues it again")
    frag, diags = read(WORKLOAD.replace("QuotaReserved", "Admitted").replace("{reserved}", "True")
                       .replace("{evicted}", "False").replace("  queueName: q\n", "  queueName: q\n  active: false\n"))
    assert diags.items[0].message.endswith("Kueue holds no quota for it and does not queue it (it is inactive: "
                                           "`spec.active: false`)")


def test_a_bad_transition_time_is_reported() -> None:
    frag, diags = read(WORKLOAD.replace("2026-11-20T09:00:00Z", "yesterday").replace("{reserved}", "True")
                       .replace("{evicted}", "False"))
    assert frag.workloads == [] and [d.code for d in diags] == ["KAD163"]


# --- both front ends, one model ----------------------------------------------------------------------

KAD = """\
scheduler {
  fair_sharing          = true
  preemption_strategies = [less_than_or_equal_to_final_share, less_than_initial_share]
}

cohort org {}
cohort research { parent = org  fair_sharing { weight = 2 } }

cluster_queue team-a {
  cohort = research
  preemption {
    within_cluster_queue  = lower_or_newer_equal_priority
    reclaim_within_cohort = any
    borrow_within_cohort { policy = lower_priority  max_priority_threshold = 100 }
  }
  flavor_fungibility { when_can_borrow = try_next_flavor  when_can_preempt = preempt }
  fair_sharing { weight = 0.5 }
}

workload team-a/job {
  queue   = q
  priority = 0   # a Workload object's is its spec.priority, 0 where unset (a `.kad` one's the default class's)
  created = "2026-11-20T08:00:00Z"
  evicted = true
  pod_group main { count = 1  requests = { cpu = 1 } }
  admitted {
    cluster_queue = cq
    admitted_at   = "2026-11-20T09:00:00Z"
    pod_group main { flavor = f }
  }
}
"""

MANIFESTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/{version}
    kind: Configuration
    fairSharing:
      {enable}
      preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
---
apiVersion: kueue.x-k8s.io/{version}
kind: Cohort
metadata: {name: org}
---
apiVersion: kueue.x-k8s.io/{version}
kind: Cohort
metadata: {name: research}
spec: {{parent}: org, fairSharing: {weight: "2"}}
---
apiVersion: kueue.x-k8s.io/{version}
kind: ClusterQueue
metadata: {name: team-a}
spec:
  {cohort}: research
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerOrNewerEqualPriority
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: {stop}}
  fairSharing: {weight: 500m}
---
apiVersion: kueue.x-k8s.io/{version}
kind: Workload
metadata: {name: job, namespace: team-a, creationTimestamp: "2026-11-20T08:00:00Z"}
spec:
  queueName: q
  podSets: [{name: main, count: 1, template: {spec: {containers: [{resources: {requests: {cpu: "1"}}}]}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: "1"}}]
  conditions:
  - {type: QuotaReserved, status: "True", lastTransitionTime: "2026-11-20T09:00:00Z", reason: QuotaReserved, message: m}
  - {type: Evicted, status: "True", reason: Preempted, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}
"""

VERSIONS = {"v1beta1": {"{enable}": "enable: true", "{parent}": "parentName", "{cohort}": "cohort",
                        "{stop}": "Preempt"},
            "v1beta2": {"{enable}": "# on: the section is there", "{parent}": "parentName",
                        "{cohort}": "cohortName", "{stop}": "MayStopSearch"}}


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_kad_and_manifests_of_one_cluster_load_equal(version) -> None:
    text = MANIFESTS.replace("{version}", version)
    for key, value in VERSIONS[version].items():
        text = text.replace(key, value)
    diags = Diagnostics()
    from_manifests = merge([read_manifest_text(text, "m.yaml", diags)])
    assert list(diags) == [], [(d.code, d.message) for d in diags]
    from_kad = merge([kad(KAD)])
    # A Configuration replaces Kueue's installed one, frameworks included (batch/job alone when
    # it lists none); `.kad` has no job kinds, and its `scheduler` leaves them unsaid.
    assert from_manifests.config.frameworks == ("batch/job",)
    configs = tuple(c.model_copy(update={"frameworks": None}) for c in from_manifests.scheduler_configs)
    # `.kad` writes no creationTimestamp: the manifests' creation times move only the run's clock (`run_start`)
    assert from_kad == from_manifests.model_copy(update={"scheduler_configs": configs, "creation_times": ()})
    assert from_kad.config.strategies == (FINAL, INITIAL)
    cq = from_manifests.cluster_queues[0]
    assert cq.preemption.borrow_within_cohort.max_priority_threshold == 100
    assert cq.preemption.field_span("borrow_within_cohort").line == 30
    assert cq.flavor_fungibility.when_can_preempt == "Preempt"
    assert from_manifests.workloads[0].evicted and from_manifests.workloads[0].admission.admitted_at
