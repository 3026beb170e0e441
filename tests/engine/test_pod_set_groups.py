"""Pod-set groups (Kueue's podSetGroupName): one flavor per group on its summed requests, placed as
one by topology-aware scheduling, and `why` naming the group. The manifests are the oracle cases
of tests/oracle/features/ (checked against Kueue's own scheduler in tests/oracle/test_admit.py);
these tests pin kadmit's answers where no Go toolchain runs."""

from __future__ import annotations

import json
from pathlib import Path

from kadmit import api
from kadmit.render.decisions import admit_json
from kadmit.render.why import why_human

ROOT = Path(__file__).resolve().parents[2]
FEATURES = ROOT / "tests" / "oracle" / "features"


def decided(name: str) -> dict[str, dict]:
    out = api.admit([str(FEATURES / name)])
    got = json.loads(admit_json(out.result, ()))["decisions"]
    return {d["workload"]: d for d in got}


def placed(d: dict) -> dict[str, tuple[dict, dict]]:
    return {p["name"]: (p["flavors"], p.get("placement")) for p in d["pod_sets"]}


def test_a_group_takes_one_flavor_on_its_summed_requests():
    got = decided("pod-set-group-tas-flavors.yaml")
    gpu = "nvidia.com/gpu"
    assert placed(got["team/group"]) == {"leader": ({gpu: "big"}, {"b1": 1}),
                                         "workers": ({gpu: "big"}, {"b1": 1, "b2": 2})}
    assert placed(got["team/alone"])["leader"][0] == {gpu: "small"}


def test_a_group_is_placed_as_one_and_waits_when_no_rack_holds_it():
    assert placed(decided("pod-set-group-tas-one-rack.yaml")["team/group"])["leader"][1] == {"n2": 1}
    d = decided("pod-set-group-tas.yaml")["team/group"]
    assert not d["admitted"]


def test_why_names_the_group():
    out = api.why("team/group", [str(FEATURES / "pod-set-group-tas.yaml")], fixes=0)
    assert out.exit_code == 1 and out.result.placement is not None
    assert out.result.placement.pod_set == "workers"
    assert out.result.placement.group.startswith("group g: leader placed with workers as one")
    text = why_human(out.result, out.loaded.sources, None)
    assert "   = group g: leader placed with workers as one" in text


def test_optimal_mode_places_a_group_as_one():
    """Optimal mode keeps the leader in its workers' rack: no rack holds both, so it does not admit
    the group (as Kueue does; it admitted it when it placed each pod set on its own), and warns of
    nothing (KAD526 is for a leader of no pods, as a LeaderWorkerSet of size 1 has)."""
    opt = api.admit([str(FEATURES / "pod-set-group-tas.yaml")], mode="optimal", time_budget=2.0)
    assert not [d for d in opt.diagnostics if d.code == "KAD526"]
    assert [(d.key, d.admitted) for d in opt.result.decisions] == [("team/group", False)]
    solo = api.admit([str(FEATURES / "pod-set-group-tas-lws-size-one.yaml")], mode="optimal", time_budget=2.0)
    warned = [d for d in solo.diagnostics if d.code == "KAD526"]
    assert len(warned) == 2 and all("pod set `worker`" in d.message and "no pods" in d.message for d in warned)
    ordered = api.admit([str(FEATURES / "pod-set-group-tas-lws-size-one.yaml")])
    assert not [d for d in ordered.diagnostics if d.code == "KAD526"]
