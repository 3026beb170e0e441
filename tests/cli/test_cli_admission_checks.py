"""A workload that reserves quota in a cluster queue with admission checks is not called admitted:
`admit` says it waits for them (text and JSON, the JSON in the oracle's shape), `why` says so too
(KAD504, exit 1) and offers no fix, since no change of quota admits it sooner. The decisions
themselves are Kueue's (tests/oracle/features/admission-checks-reserve-quota.yaml in test_admit)."""

from __future__ import annotations

import json
from pathlib import Path

CASE = str(Path(__file__).resolve().parents[1] / "oracle" / "features" / "admission-checks-reserve-quota.yaml")


def test_admit_says_quota_reserved_waiting_for_checks(run):
    text = run("admit", CASE)
    assert text.exit_code == 0
    row = next(line for line in text.output.splitlines() if line.startswith("ns/checked "))
    assert row.split()[1] == "reserved"
    assert row.endswith("quota reserved, waiting for admission checks approval, capacity")
    assert "3 of 6 pending workloads admitted, 3 with quota reserved waiting for admission checks" in text.output
    # what the checks' controllers do next is run time: the summary says the answer may differ there
    assert ("the admission checks they wait for are decided by their controllers at run time, which kadmit "
            "does not model: Kueue's answer may differ from there on") in text.output
    plain = run("admit", str(Path(CASE).parent / "admission-check-ready-second-pass-places-it.yaml"))
    assert "waiting for admission checks" not in plain.output and "run time" not in plain.output
    data = json.loads(run("admit", "--format", "json", CASE).output)
    by = {d["workload"]: d for d in data["decisions"]}
    checked = by["ns/checked"]
    assert (checked["admitted"], checked["quota_reserved"], checked["cluster_queue"]) == (False, True, "cq-checks")
    assert checked["admission_checks"] == [{"name": "approval", "state": "Pending"},
                                           {"name": "capacity", "state": "Pending"}]
    # a check Ready before quota was reserved is kept: admitted as it reserves
    before = by["ns/approved-before"]
    assert (before["admitted"], before["admission_checks"]) == (True, [{"name": "approval", "state": "Ready"}])
    # `onFlavors`: the check applies only to the workload assigned its flavor
    assert (by["ns/on-f0"]["admitted"], by["ns/on-f0"]["admission_checks"]) == (True, [])
    assert by["ns/on-f1"]["admitted"] is False and by["ns/on-f1"]["quota_reserved"] is True


def test_why_names_the_checks_and_offers_no_fix(run):
    out = run("why", "ns/checked", CASE)
    assert out.exit_code == 1
    assert out.output.startswith("warning[KAD504]: workload `ns/checked` has quota reserved, waiting for admission "
                                 "checks")
    assert ("quota reserved in ClusterQueue cq-checks with main: cpu=f0; not admitted until admission checks "
            "approval (Pending), capacity (Pending) are Ready") in out.output
    assert "fixes" not in out.output
    data = json.loads(run("why", "ns/checked", "--format", "json", CASE).output)
    assert (data["admitted"], data["quota_reserved"], data["fixes"]) == (False, True, [])
    assert [r["code"] for r in data["reasons"]][:1] == ["KAD504"]


def test_simulate_keeps_workloads_waiting_for_checks_off_their_nodes(run):
    """A replay does not run a workload whose checks are not Ready (Kueue keeps its job suspended
    until it is Admitted): it holds its quota to the end, and the headline says the replay rests on
    what the checks' controllers do at run time."""
    out = run("simulate", CASE)
    assert out.exit_code == 0
    assert ("at the end 6 hold quota (3 running, 3 waiting for admission checks), 0 finished, 0 pending (their "
            "checks' controllers decide at run time, which kadmit does not model: Kueue's replay may differ from "
            "there on)") in out.output
    data = json.loads(run("simulate", "--format", "json", CASE).stdout)
    states = {w["workload"]: (w["state"], w.get("checks")) for w in data["workloads"]}
    assert states["ns/checked"] == ("checks", ["approval (Pending)", "capacity (Pending)"])
    assert states["ns/approved-before"] == ("running", None)
    assert data["summary"]["at_end"]["checks"] == 3


def test_a_second_pass_placing_its_pod_sets_is_no_loop(run):
    """A cycle whose only change is a second pass placing a workload's delayed pod sets leaves the
    holders as they were: the run's state includes the workloads waiting for a second pass, so it is
    not taken for a preemption loop (KAD535, exit 3) once the pass has evicted a workload that came
    back (tests/oracle/features/admission-check-second-pass-preempts.yaml, decided as Kueue does)."""
    out = run("admit", str(Path(CASE).parent / "admission-check-second-pass-preempts.yaml"))
    assert out.exit_code == 0
    assert "KAD535" not in out.output and "loop" not in out.output
    assert "ns/w1 main: 4 pods in host n0" in out.output
