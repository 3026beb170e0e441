"""The message Kueue leaves on a pending workload (its Workload's QuotaReserved=False condition, the
oracle's `pending.message`) against the reason kadmit's `admit` gives it. test_admit compares
outcomes only; these cases compare the words a user reads. Known differences are strict xfails."""

from __future__ import annotations

import pytest

from oracle.harness import run_kadmit, run_oracle

CASES = {
    # newuser: Kueue nominated ns/gang on cycle 1's snapshot (b/big's 16 GPUs not yet counted) and its
    # topology refused it; the run's end state would give a quota message (`run_reasons`)
    "tests/oracle/features/tas-reason-of-a-head-nominated-beside-a-borrower.yaml": ("ns/gang", ()),
}


@pytest.mark.parametrize("path,workload", [pytest.param(p, w, marks=m) for p, (w, m) in CASES.items()])
def test_pending_message_is_kueues(kueue_oracle, path: str, workload: str) -> None:
    kueue = run_oracle(kueue_oracle, [path], "--runs", "3")
    _, kadmit = run_kadmit([path])
    theirs = next(d for d in kueue["decisions"] if d["workload"] == workload)
    ours = next(d for d in kadmit["decisions"] if d["workload"] == workload)
    assert not theirs["admitted"] and not ours["admitted"]
    assert [r["message"] for r in ours["reasons"]] == [theirs["pending"]["message"]]
