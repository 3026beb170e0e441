"""The comparison takes a workload's two states apart: quota reserved (Kueue's QuotaReserved, each side's
`quota_reserved`) and Admitted (Kueue's Admitted condition: reserved and every admission check Ready, each
side's `admitted`). A workload holding quota while its checks are pending is not Admitted: where one side
says it is and the other not, the answers differ, even with the same checks listed (before, the harness read
`quota_reserved` alone)."""

from __future__ import annotations

from oracle.harness import compare, from_kadmit, from_oracle


def _answer(reserved: bool, admitted: bool, checks: list[dict]) -> dict:
    d = {"workload": "team/w", "object": {"kind": "Workload", "namespace": "team", "name": "w"},
         "admitted": admitted, "quota_reserved": reserved, "admission_checks": checks,
         "cluster_queue": "cq" if reserved else None,
         "pod_sets": [{"name": "main", "count": 1, "flavors": {"cpu": "f"}}] if reserved else [],
         "preempted": [], "preempted_by": None, "reasons": [], "pending": None}
    return {"decisions": [d], "skipped": [], "oracle": {"stop": "settled"}}


PENDING = [{"name": "prov", "state": "Pending"}]
READY = [{"name": "prov", "state": "Ready"}]


def test_reserved_but_not_admitted_differs_from_admitted():
    kadmit = from_kadmit(_answer(True, True, READY))
    kueue = from_oracle(_answer(True, False, READY))
    result = compare(kadmit, kueue)
    assert not result.agree
    assert result.report(kadmit, kueue) == (
        "team/w:\n  kadmit: admitted to cq: main 1x{'cpu': 'f'}\n"
        "  Kueue:  quota reserved in cq, not Admitted: main 1x{'cpu': 'f'}")
    assert not compare(from_kadmit(_answer(True, False, PENDING)), from_oracle(_answer(True, True, PENDING))).agree


def test_the_same_states_agree():
    for reserved, admitted, checks in ((True, False, PENDING), (True, True, READY), (True, True, []), (False, False, [])):
        assert compare(from_kadmit(_answer(reserved, admitted, checks)),
                       from_oracle(_answer(reserved, admitted, checks))).agree, (reserved, admitted, checks)
    waiting = from_kadmit(_answer(True, False, PENDING)).outcomes["team/w"]
    assert waiting.text() == "quota reserved in cq, not Admitted, waiting for admission checks prov: main 1x{'cpu': 'f'}"
