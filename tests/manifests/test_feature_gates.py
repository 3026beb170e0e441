"""Which of a Configuration's (or Kueue manager's flag's) feature gates kadmit warns it does not model
(KAD161): only a gate set to a value other than Kueue v0.17.0's default that may change a decision."""

from __future__ import annotations

import re
from pathlib import Path

from test_schema import read
from test_served import _module_cache

from kadmit.manifests import gates

CONFIG = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n"


def warned(settings: dict[str, str]) -> list[str]:
    text = CONFIG + "".join(f"  {name}: {value}\n" for name, value in settings.items())
    _, diags = read(text)
    assert [d.code for d in diags.sorted() if d.severity.value == "error"] == []
    return [d.message.split("`")[1].removeprefix("featureGates.") for d in diags.sorted() if d.code == "KAD161"]


def test_a_gate_at_its_default_warns_of_nothing() -> None:
    defaults = {name: str(name in gates.DEFAULT_ON).lower() for name in sorted(gates.KUEUE)}
    assert warned({**defaults, "AllAlpha": "false", "AllBeta": "false"}) == []


def test_a_gate_of_no_decision_warns_of_nothing_at_either_value() -> None:
    flipped = {name: str(name not in gates.DEFAULT_ON).lower() for name in sorted(gates.NO_DECISION)}
    assert warned(flipped) == []
    assert warned({"APIResponseCompression": "false", "WatchList": "true"}) == []  # the API server library's


def test_a_decision_gate_at_its_other_value_warns() -> None:
    settings = {"TASBalancedPlacement": "true", "SchedulerLongRequeueInterval": "true",
                "AllAlpha": "true", "AllBeta": "true", "DynamicResourceAllocation": "true"}
    # TASBalancedPlacement: modelled; AllBeta turns on the one beta gate off by default, SchedulingEquivalenceHashing,
    # which is modelled too
    assert sorted(warned(settings)) == ["AllAlpha", "SchedulerLongRequeueInterval"]


def test_a_modelled_gate_warns_at_neither_value() -> None:
    for value in ("true", "false"):
        assert warned({name: value for name in sorted(gates.MODELLED)}) == []


def test_all_alpha_warns_of_the_gates_it_turns_that_are_not_modelled() -> None:
    text = CONFIG + "  AllAlpha: true\n  AdmissionGatedBy: false\n  DynamicResourceAllocation: false\n"
    _, diags = read(text)
    (d,) = [d for d in diags.sorted() if d.code == "KAD161"]
    assert "`featureGates.AllAlpha`" in d.message and "SchedulerLongRequeueInterval" in d.message
    assert "AdmissionGatedBy" not in d.message and "DynamicResourceAllocation" not in d.message
    assert "PriorityBoost" not in d.message  # modelled
    assert "CustomMetricLabels" not in d.message  # of no decision


def test_the_gates_set_are_exported_as_read() -> None:
    from kadmit.diagnostics import Diagnostics
    from kadmit.export.policy import configuration

    fragment, _ = read(CONFIG + "  AllBeta: false\n  PartialAdmission: true\n  DynamicResourceAllocation: true\n")
    (config,) = fragment.scheduler_configs
    assert config.feature_gates["DynamicResourceAllocation"] and not config.feature_gates["ReclaimablePods"]
    assert "PartialAdmission" not in config.feature_gates  # at its default
    assert configuration(config, Diagnostics())["featureGates"] == config.feature_gates


def test_a_run_time_gate_says_it_is_run_time() -> None:
    flipped = {name: str(name not in gates.DEFAULT_ON).lower() for name in sorted(gates.RUN_TIME)}
    text = CONFIG + "".join(f"  {name}: {value}\n" for name, value in flipped.items())
    _, diags = read(text)
    said = [d.message for d in diags.sorted() if d.code == "KAD161"]
    assert len(said) == len(gates.RUN_TIME) and all("changes what Kueue does at run time" in m for m in said)
    assert not set(gates.RUN_TIME) & (gates.MODELLED | set(gates.NO_DECISION))


def test_the_defaults_are_kueues() -> None:
    """DEFAULT_ON against pkg/features/kube_features.go of the pinned Kueue: each gate's last entry."""
    source = (_module_cache() / "sigs.k8s.io/kueue@v0.17.0/pkg/features/kube_features.go").read_text()
    table = source[source.index("defaultVersionedFeatureGates"):]
    last: dict[str, bool] = {}
    for name, body in re.findall(r"\n\t(\w+): \{(.*?)\n\t\}", table, re.S):
        last[name] = re.findall(r"Default: (true|false)", body)[-1] == "true"
    assert set(last) == gates.KUEUE
    assert {name for name, on in last.items() if on} == gates.DEFAULT_ON
    stage = {name: re.findall(r"PreRelease: featuregate.(\w+)", body)[-1] for name, body in
             re.findall(r"\n\t(\w+): \{(.*?)\n\t\}", table, re.S)}
    assert {name for name, s in stage.items() if s == "Alpha"} == gates.ALPHA
    assert {name for name, s in stage.items() if s == "Beta"} == gates.BETA


def test_the_doc_lists_every_gate_as_kadmit_treats_it() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "KUEUE-DIFFERENCES.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\w+) \| (?:on|off) \| ([a-z ]+) \|", doc.split("## 7. Feature gates")[1], re.M))
    assert set(rows) == gates.KUEUE
    for name, said in rows.items():
        treated = ("locked" if name in gates.LOCKED_ON else "modelled" if name in gates.MODELLED
                   else "warns" if gates.unmodelled(name, name not in gates.DEFAULT_ON) else "no decision")
        assert said == treated, name
    run_time = {name for name, what in re.findall(r"^\| (\w+) \| (?:on|off) \| [a-z ]+ \| (.*) \|$",
                                                 doc.split("## 7. Feature gates")[1], re.M) if "(run time)" in what}
    assert run_time == set(gates.RUN_TIME)
