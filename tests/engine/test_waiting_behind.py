"""KAD519: what a workload left behind its queue's head is told names the queue's real strategy."""

from __future__ import annotations

from kadmit import api
from kadmit import workspace as ws
from kadmit.reference import decide as reference_decide

# BestEffortFIFO: team/big keeps flavors left to try, so Kueue pushes it back at the head at once
# (requeueIfNotPresent: PendingFlavors) and never tries team/small behind it
BEST_EFFORT = "tests/oracle/features/uncovered-resource-in-a-later-pod-set.yaml"
SAID = "waiting behind team/big, which keeps its place at the head while it has flavors left to try (BestEffortFIFO)"


def test_behind_a_best_effort_head_is_not_called_strict_fifo():
    outcome = api.admit([BEST_EFFORT])
    assert [r.message for r in outcome.result.reasons["team/small"]] == [SAID]
    reference = {d.workload: d.reason for d in reference_decide(ws.load([BEST_EFFORT]).model)}
    assert reference["team/small"] == SAID


def test_why_names_the_strategy_and_what_keeps_the_head():
    result = api.why("team/small", [BEST_EFFORT], fixes=0).result
    assert result.standing.behind == "team/big" and result.standing.behind_strategy == "BestEffortFIFO"
    assert [o.message for o in result.blame if o.kind == "queueing"] == [
        "cluster queue `cq` uses BestEffortFIFO: a head that can't be admitted but has flavors left to try is "
        "requeued at once and stays ahead of the ones behind it"]
