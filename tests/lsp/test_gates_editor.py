"""Feature gates in the editor: completion of Kueue v0.17.0's gate names in a `.kad` scheduler's `feature_gates` (each
with its stage, default and what kadmit does with it: manifests.gates.describe) and of a gate's values, and hover over
a gate named there or in a Configuration's `featureGates`."""

from __future__ import annotations

import shutil
from pathlib import Path

from kadmit.editor.complete import complete
from kadmit.editor.hover import hover
from kadmit.editor.project import Project
from kadmit.featuregates import KUEUE

GOOD = Path(__file__).resolve().parents[1] / "corpus" / "syntax" / "good" / "scheduler.kad"
CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {SchedulingEquivalenceHashing: true, TASFailedNodeReplacement: false}
"""


def project(tmp_path: Path):
    path = tmp_path / "scheduler.kad"
    shutil.copy(GOOD, path)
    (tmp_path / "config.yaml").write_text(CONFIG)
    return Project([str(tmp_path)]).snapshot(), path, path.read_text()


def items(snap, text: str, where: str, new: str):
    edited = text.replace(where, where + new, 1)
    return [i for i in complete(snap, edited, edited.index(where + new) + len(where + new)).items if i.kind != "keyword"]


def at(text: str, needle: str, shift: int = 0) -> tuple[int, int]:
    i = text.index(needle) + shift
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def test_gate_names_and_values_complete(tmp_path: Path) -> None:
    snap, _, text = project(tmp_path)
    names = items(snap, text, "feature_gates         = { ", "")
    assert {i.label for i in names} == KUEUE | {"AllAlpha", "AllBeta"} and all(i.kind == "feature_gate" for i in names)
    detail = {i.label: i.detail for i in names}
    assert detail["PartialAdmission"] == "beta, on by default, modelled: kadmit decides as Kueue does at either value"
    assert detail["LendingLimit"].startswith("GA, locked on, `false` stops Kueue's manager")
    assert detail["TASFailedNodeReplacement"].startswith("beta, on by default, run time, not modelled")
    assert detail["LocalQueueMetrics"] == "beta, on by default, no decision kadmit makes: the LocalQueue metrics"
    assert [i.label for i in items(snap, text, "feature_gates         = { ", "Sched")] == [
        "SchedulerLongRequeueInterval", "SchedulerTimestampPreemptionBuffer", "SchedulingEquivalenceHashing"]
    # after another gate, and a gate's values (its other value first)
    assert "FlavorFungibility" in {i.label for i in items(snap, text, "PartialAdmission = false, ", "")}
    edited = text.replace("ReclaimablePods = true", "ReclaimablePods = ")
    got = complete(snap, edited, edited.index("ReclaimablePods = ") + len("ReclaimablePods = ")).items
    assert [(i.label, i.detail) for i in got if i.kind == "value"] == [("false", "its other value"),
                                                                       ("true", "its default")]


def test_hover_over_a_gate(tmp_path: Path) -> None:
    snap, path, text = project(tmp_path)
    shown = hover(snap, str(path), *at(text, "PartialAdmission", shift=3))
    assert shown is not None and "**feature gate `PartialAdmission`**" in shown.markdown
    assert "beta, on by default" in shown.markdown and "modelled" in shown.markdown
    config = (tmp_path / "config.yaml").read_text()
    yaml = hover(snap, str(tmp_path / "config.yaml"), *at(config, "TASFailedNodeReplacement", shift=5))
    assert yaml is not None and "run time, not modelled (KAD161 at its other value)" in yaml.markdown
    assert (yaml.span.line, yaml.span.column) == (3, config.splitlines()[2].index("TASFailed") + 1)
    assert hover(snap, str(tmp_path / "config.yaml"), *at(config, "Configuration", shift=2)) is None
