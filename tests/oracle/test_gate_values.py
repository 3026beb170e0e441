"""The feature gates a Configuration turns away from Kueue v0.17.0's defaults, as kadmit's model holds them
(`SchedulerConfig.feature_gates`, kadmit.featuregates.resolve) and as Kueue's own gate sets them: AllAlpha
and AllBeta set every gate of their stage that is not named, to their own value (`false` too)."""

from __future__ import annotations

from kadmit import featuregates
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
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
