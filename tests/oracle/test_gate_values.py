"""The feature gates a Configuration turns away from Kueue v0.17.0's defaults, as kadmit's model holds them
(`SchedulerConfig.feature_gates`, kadmit.featuregates.resolve) and as Kueue's own gate sets them: AllAlpha
and AllBeta set every gate of their stage that is not named, to their own value (`false` too)."""

from __future__ import annotations

import pytest

from kadmit import featuregates
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.workspace import load
from oracle.harness import run_oracle

CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {GATES}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
"""


def test_the_gates_set_are_kueues(kueue_oracle, tmp_path) -> None:
    gates = "{AllAlpha: true, AllBeta: false, PartialAdmission: true, PriorityBoost: false, APIResponseCompression: false}"
    path = tmp_path / "gates.yaml"
    path.write_text(CONFIG.replace("{GATES}", gates))
    (config,) = read_manifest_text(path.read_text(), str(path), Diagnostics()).scheduler_configs
    kueue = run_oracle(kueue_oracle, [path], "--runs", "1")["oracle"]["feature_gates"]
    assert config.feature_gates == {g: on for g, on in sorted(kueue.items()) if g in featuregates.KUEUE}
    assert not featuregates.enabled(config, "ReclaimablePods") and featuregates.enabled(config, "PartialAdmission")
    assert featuregates.enabled(config, "DynamicResourceAllocation") and not featuregates.enabled(config, "PriorityBoost")


MANAGER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: kueue-controller-manager, namespace: kueue-system}
spec:
  selector: {matchLabels: {app: kueue}}
  template:
    metadata: {labels: {app: kueue}}
    spec:
      containers:
      - {name: manager, image: registry.k8s.io/kueue/kueue:v0.17.0, args: [--zap-log-level=2, -feature-gates, FLAG]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
"""


def test_the_gates_of_kueues_managers_flag_are_kueues(kueue_oracle, tmp_path) -> None:
    """The manager Deployment's `--feature-gates` (cmd/kueue/main.go): the oracle sets it in place of the
    Configuration's `featureGates` as kadmit's model does (kadmit.manifests.managerflags), and with both it
    does not start, as kadmit says (KAD157, tests/manifests/test_manager_flags.py)."""
    path = tmp_path / "manager.yaml"
    path.write_text(MANAGER.replace("FLAG", '"AllBeta=false, PartialAdmission=true,PriorityBoost=t"'))
    (config,) = load([str(path)]).model.scheduler_configs
    kueue = run_oracle(kueue_oracle, [path], "--runs", "1")["oracle"]["feature_gates"]
    assert config.feature_gates == {g: on for g, on in sorted(kueue.items()) if g in featuregates.KUEUE}
    assert not featuregates.enabled(config, "ReclaimablePods") and featuregates.enabled(config, "PriorityBoost")
    path.write_text(MANAGER.replace("FLAG", "PartialAdmission=false") + "---\n" + CONFIG.split("---")[0].replace("{GATES}", "{}"))
    with pytest.raises(AssertionError, match="feature gates for CLI and configuration cannot both specified"):
        run_oracle(kueue_oracle, [path], "--runs", "1")
    assert [d.code for d in load([str(path)]).diagnostics.sorted() if d.severity.value == "error"] == ["KAD157"]
