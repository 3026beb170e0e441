"""`why` of a workload admitted with a pod set on two topology-aware flavors (resource groups under TAS):
Kueue's onlyTASFlavor errs and the pod set is admitted unplaced (tests/oracle/features/
tas-pod-set-on-two-tas-flavors-admitted-unplaced.yaml, which kadmit and the oracle decide alike); `why`
says so where the engine's decision leaves it without nodes, and not where it places it."""

from __future__ import annotations

from pathlib import Path

from kadmit import api

CASE = Path(__file__).parents[1] / "oracle" / "features" / "tas-pod-set-on-two-tas-flavors-admitted-unplaced.yaml"
SAYS = "Kueue admits it with no topology assignment"


def _reasons(workload: str, path: Path) -> list[str]:
    got = api.why(workload, [str(path)], fixes=0)
    assert got.result is not None and got.result.admitted, got.diagnostics
    return [r.message for r in got.result.reasons]


def test_why_says_a_pod_set_on_two_tas_flavors_is_admitted_unplaced() -> None:
    (said,) = [r for r in _reasons("team/a", CASE) if SAYS in r]
    assert said.startswith("pod set main is on 2 topology-aware flavors (f0, m0)")
    assert '"more than one TAS flavor assigned: f0, m0"' in said
    assert not [r for r in _reasons("team/c", CASE) if SAYS in r]  # on f0 alone: placed


def test_why_says_nothing_of_it_where_the_pod_set_is_on_one_tas_flavor(tmp_path: Path) -> None:
    """cpu and memory in one resource group on f0: the engine places team/a on n0 (6 of its 8 cpu)."""
    two = ("  - coveredResources: [cpu]\n    flavors: [{name: f0, resources: [{name: cpu, nominalQuota: 16}]}]\n"
           "  - coveredResources: [memory]\n    flavors: [{name: m0, resources: [{name: memory, nominalQuota: 32Gi}]}]\n")
    one = ("  - coveredResources: [cpu, memory]\n    flavors: [{name: f0, resources: [{name: cpu, nominalQuota: 16}, "
           "{name: memory, nominalQuota: 32Gi}]}]\n")
    text = CASE.read_text(encoding="utf-8")
    assert two in text
    (tmp_path / "one.yaml").write_text(text.replace(two, one), encoding="utf-8")
    assert not [r for r in _reasons("team/a", tmp_path / "one.yaml") if SAYS in r]


def test_why_says_a_pod_set_is_admitted_with_fewer_pods_placed() -> None:
    """Kueue admits a pod set whose topology assignment holds fewer pods than its count: whole slices only
    (a count of 3 in slices of 2), or TASBalancedPlacement with slice layers (12 of 28, placement.balanced)."""
    features = CASE.parent
    (said,) = [r for r in _reasons("ns/w1", features / "tas-slices-a-count-the-size-does-not-divide.yaml")
               if "of them in its topology assignment" in r]
    assert said.startswith("pod set main has 3 pods, 2 of them in its topology assignment (whole slices of 2")
    (said,) = [r for r in _reasons("ns/w", features / "feature-gate-tas-balanced-placement-on-multi-layer.yaml")
               if "of them in its topology assignment" in r]
    assert "has 28 pods, 12 of them" in said and "Kueue's descent placed none there" in said
    assert not [r for r in _reasons("team/c", CASE) if "of them in its topology assignment" in r]


def test_admit_says_a_pod_set_is_admitted_with_fewer_pods_placed() -> None:
    """`admit`'s text and JSON say what `why` says: 3 pods in slices of 2, 2 placed (Kueue assigns it so)."""
    from kadmit.render.decisions import admit_dict, admit_human
    got = api.admit([str(CASE.parent / "tas-slices-a-count-the-size-does-not-divide.yaml")])
    assert "ns/w1 main: 2 pods in rack r0 (required example.com/rack) on n0:2; 1 of its 3 pods on no node (whole " \
           "slices of 2 pods only): Kueue assigns it so" in admit_human(got.result, [])
    topology = {d["workload"]: d["pod_sets"][0].get("topology", {}) for d in admit_dict(got.result)["decisions"]}
    assert topology["ns/w1"]["unplaced"] == {"pods": 1, "reason": "whole slices of 2 pods only"}
    assert "unplaced" not in topology["ns/w3"]


def test_why_of_a_reservation_waiting_for_its_topology_assignment_is_not_admitted() -> None:
    """Checks Ready, the topology assignment delayed for them not made (a second pass that placed no node): Kueue's
    Admitted condition waits (HasTopologyAssignmentsPending), as `admit` shows it `reserved`; `why` says so too
    (KAD539, exit 1), never "is admitted"."""
    from kadmit.render.why import _head
    case = CASE.parent / "tie-second-pass-pod-set-group-no-node-not-admitted.yaml"
    got = api.why("ns-cq1/w03", [str(case)], fixes=0)
    assert got.exit_code == 1 and got.result is not None
    assert got.result.reasons[0].code == "KAD539"
    assert "waiting for its topology assignment" in _head(got.result, None, None)[0]
    assert not [r for r in got.result.reasons if "is admitted" in r.message]
