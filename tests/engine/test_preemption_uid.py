"""Preemption's last tie-break is the Workload's UID (Kueue's CandidatesOrdering), also for an input
Workload admitted during the run: tests/oracle/features/preemption-tie-by-uid-after-admission-in-the-run.yaml
(team/a and team/b admitted in one cycle, equal in everything else; b's UID sorts first)."""

from __future__ import annotations

from kadmit import api
from kadmit import workspace as ws
from kadmit.reference import decide as reference_decide

CASE = "tests/oracle/features/preemption-tie-by-uid-after-admission-in-the-run.yaml"


def test_the_uid_breaks_the_tie_between_workloads_admitted_in_the_run():
    decisions = {d.workload.key: d for d in api.admit([CASE]).result.decisions}
    assert {k: d.admitted for k, d in decisions.items()} == {"team/a": True, "team/b": False, "team/p": True,
                                                            "team/q": True}
    assert [v.key for v in decisions["team/p"].preempted] == ["team/b"]


def test_the_reference_breaks_it_alike():
    got = {d.workload: d for d in reference_decide(ws.load([CASE]).model, preemption=True)}
    assert [t.key for t in got["team/p"].preempted] == ["team/b"] and got["team/b"].preempted_by == "team/p"
