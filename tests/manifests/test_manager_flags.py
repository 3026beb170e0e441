"""Kueue's manager Deployment's `--feature-gates` flag (cmd/kueue/main.go of Kueue v0.17.0): its gates are
set in place of the Configuration's `featureGates` (kadmit.manifests.managerflags); both given, or a flag
component-base's `Set` refuses, and Kueue's manager does not start (KAD157). The oracle reads the flag
alike: tests/oracle/test_gate_values.py, tests/oracle/features/feature-gate-flag-of-kueues-manager.yaml."""

from __future__ import annotations

import pytest

from kadmit import featuregates
from kadmit.manifests.managerflags import parse
from kadmit.workspace import load

MANAGER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: kueue-controller-manager, namespace: kueue-system}}
spec:
  selector: {{matchLabels: {{app: kueue}}}}
  template:
    metadata: {{labels: {{app: kueue}}}}
    spec:
      containers:
      - name: sidecar
        image: example.com/kueue-helper:v1
        args: [--feature-gates=Other=true]
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.17.0
        args: [{ARGS}]
"""
CONFIG = "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"


def loaded(tmp_path, args: str, config: str = ""):
    path = tmp_path / "in.yaml"
    path.write_text(MANAGER.format(ARGS=args) + config)
    ws = load([str(path)])
    return ws.model.config, [(d.code, d.message) for d in ws.diagnostics.sorted() if d.code in ("KAD157", "KAD161")]


def test_the_flags_gates_are_the_models_the_last_flag_given_counting(tmp_path) -> None:
    """Either form of the flag; Go's flag package keeps the last given; another image's container runs
    another program. Without a Configuration the model's is Kueue's defaults with the flag's gates."""
    config, said = loaded(tmp_path, '--feature-gates=PartialAdmission=false, -feature-gates, '
                                    '" AllAlpha = true ,PriorityBoost=F,,TASBalancedPlacement=false"')
    assert [(code, m.split("`")[3]) for code, m in said] == [("KAD161", "AllAlpha")]  # the alpha gates kadmit does not model
    assert config.feature_gates == featuregates.resolve({"AllAlpha": True, "PriorityBoost": False,
                                                         "TASBalancedPlacement": False})
    assert featuregates.enabled(config, "PartialAdmission") and not featuregates.enabled(config, "PriorityBoost")
    assert featuregates.enabled(config, "AdmissionGatedBy") and config.frameworks is None


def test_the_flag_replaces_the_configurations_gates_and_keeps_the_rest(tmp_path) -> None:
    """admissionfairsharing.Enabled: the Configuration's section counts with the gate on only."""
    section = "admissionFairSharing: {usageHalfLifeTime: 1h}\nfairSharing: {preemptionStrategies: [LessThanInitialShare]}\n"
    config, said = loaded(tmp_path, '"--feature-gates=AdmissionFairSharing=false"', CONFIG + section)
    assert said == [] and config.fair_sharing and config.admission_fair_sharing is None
    assert config.feature_gates == {"AdmissionFairSharing": False}
    config, _ = loaded(tmp_path, '"--feature-gates=FlavorFungibility=false"', CONFIG + section)
    assert config.admission_fair_sharing is not None and config.feature_gates == {"FlavorFungibility": False}


@pytest.mark.parametrize("gates", ["featureGates: {}", "featureGates: {PartialAdmission: false}"])
def test_the_flag_and_the_configurations_gates_stop_kueues_manager(tmp_path, gates: str) -> None:
    """config.ValidateFeatureGates: a flag not empty beside a map not nil (`{}` too)."""
    config, said = loaded(tmp_path, '"--feature-gates=PartialAdmission=false"', CONFIG + gates + "\n")
    assert [code for code, _ in said] == ["KAD157"] and "cannot both specified" in said[0][1]
    assert config.feature_gates == featuregates.resolve({"PartialAdmission": False} if "Partial" in gates else {})


def test_an_empty_flag_is_no_flag(tmp_path) -> None:
    config, said = loaded(tmp_path, '"--feature-gates=", --zap-log-level=2', CONFIG + "featureGates: {PriorityBoost: true}\n")
    assert said == [] and config.feature_gates == {"PriorityBoost": True}


@pytest.mark.parametrize("text, error", [
    ("PartialAdmission", "missing bool value for PartialAdmission"),
    ("PartialAdmission=yes", 'invalid value of PartialAdmission=yes, err: strconv.ParseBool: parsing "yes": '
                             "invalid syntax"),
    ("KueueDRAIntegration=true", "unrecognized feature gate: KueueDRAIntegration"),
    ("HierarchicalCohorts=false", "cannot set feature gate HierarchicalCohorts to false, feature is locked to true"),
])
def test_a_flag_component_base_refuses_stops_kueues_manager(tmp_path, text: str, error: str) -> None:
    assert parse(text) == ({}, error)
    config, said = loaded(tmp_path, f'"--feature-gates={text}"')
    assert said == [("KAD157", "Kueue's manager does not start with this flag: `Unable to set flag gates for known "
                                f"features: {error}`")] and config is None


def test_a_gate_kadmit_does_not_model_is_warned_where_the_flag_sets_it(tmp_path) -> None:
    config, said = loaded(tmp_path, '"--feature-gates=SchedulerLongRequeueInterval=true,PartialAdmission=false"')
    assert said == [("KAD161", "`--feature-gates` of Kueue's manager sets `SchedulerLongRequeueInterval`, which kadmit "
                               "does not model: it changes what Kueue does at run time (how long Kueue waits before "
                               "it tries an inadmissible workload again), which no snapshot holds; kadmit decides as "
                               "Kueue does with its default; kadmit's decision may differ from Kueue's")]
    assert config.feature_gates == {"PartialAdmission": False, "SchedulerLongRequeueInterval": True}
