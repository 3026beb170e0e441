"""A workload whose quota is reserved and whose delayed topology assignment is not made is not called admitted in
`admit`'s text (Kueue's HasTopologyAssignmentsPending keeps it from Admitted), as the JSON's `admitted` already
says (tests/oracle/test_admit.py compares it with Kueue's on this case)."""

from __future__ import annotations

from pathlib import Path

CASE = str(Path(__file__).resolve().parents[1] / "oracle" / "features"
           / "tie-second-pass-pod-set-group-no-node-not-admitted.yaml")


def test_admit_says_quota_reserved_waiting_for_the_topology_assignment(run):
    text = run("admit", CASE)
    row = next(line for line in text.output.splitlines() if line.startswith("ns-cq1/w03 "))
    assert row.split()[1] == "reserved"
    assert "quota reserved, waiting for the topology assignment; preempted ns-cq0/w06" in row
    assert ("1 of 6 pending workloads admitted, 2 with quota reserved waiting for the topology assignment"
            in text.output)
