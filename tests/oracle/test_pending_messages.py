"""The message Kueue leaves on a pending workload (its Workload's QuotaReserved=False condition, the
oracle's `pending.message`) against the reason kadmit's `admit` gives it. test_admit compares
outcomes only; these cases compare the words a user reads: kadmit's reasons, Kueue's own (KAD533's
words on which preemption policies evict nobody are kadmit's, left aside), must be Kueue's message,
or Kueue's message with kadmit's detail after it (`: …`, ` (…)`). A bounded sample of
bench/pending_messages.py, which runs every feature case (the agreement figure is in bench/README.md).
Known differences are strict xfails."""

from __future__ import annotations

import pytest

from oracle.harness import run_kadmit, run_oracle

F = "tests/oracle/features/"
CASES = {
    # newuser: Kueue nominated ns/gang on cycle 1's snapshot (b/big's 16 GPUs not yet counted) and its
    # topology refused it; the run's end state would give a quota message (`run_reasons`)
    F + "tas-reason-of-a-head-nominated-beside-a-borrower.yaml": ("ns/gang", ()),
    # the quota its last cycle met, before a later admission of its tree took more (`run_reasons`)
    F + "admitted-under-limit-range.yaml": ("other/big", ()),
    F + "pod-level-limits-default-a-pods-requests.yaml": ("team/big", ()),
    # nominated in its last cycle and then skipped: Kueue's setSkipped message (`Decision.skipped`)
    F + "fit-status-over-quota.yaml": ("team/wl", ()),
    F + "tas-transformed-resource-no-node-has-never-fits.yaml": ("team/b", ()),
    # a stopped LocalQueue: "LocalQueue held is inactive", kadmit's stopPolicy after it
    F + "strict-fifo-behind-a-stopped-local-queue.yaml": ("team/big", ()),
    # Kueue's counts of the nodes excluded end its topology messages (`placement.exclusions`)
    F + "tas-node-without-ready-condition.yaml": ("team/w2", ()),
    F + "tas-hostname-label-is-not-the-node-name.yaml": ("ns/big", ()),
    F + "admission-check-delayed-in-input-second-pass.yaml": ("ns/wb", ()),
}
OWN = {"KAD533"}


def kueue_words(reasons: list[dict]) -> str:
    """kadmit's reasons as Kueue writes one message: a pod set's flavors' reasons joined by ", " after one
    "couldn't assign flavors to pod set P: ", pod sets by "; " (bench/pending_messages.py `admit_message`)."""
    prefix = "couldn't assign flavors to pod set "
    parts: list[tuple[str | None, list[str]]] = []
    for r in reasons:
        if r["code"] in OWN:
            continue
        m = r["message"]
        head = m[:m.index(": ") + 2] if m.startswith(prefix) and ": " in m else None
        if head is not None and parts and parts[-1][0] == head:
            parts[-1][1].append(m[len(head):])
        else:
            parts.append((head, [m[len(head):] if head else m]))
    return "; ".join((head or "") + ", ".join(bodies) for head, bodies in parts)


@pytest.mark.parametrize("path,workload", [pytest.param(p, w, marks=m) for p, (w, m) in CASES.items()])
def test_pending_message_is_kueues(kueue_oracle, path: str, workload: str) -> None:
    kueue = run_oracle(kueue_oracle, [path], "--runs", "3")
    _, kadmit = run_kadmit([path])
    theirs = next(d for d in kueue["decisions"] if d["workload"] == workload)
    ours = next(d for d in kadmit["decisions"] if d["workload"] == workload)
    assert not theirs["admitted"] and not ours["admitted"]
    message, mine = theirs["pending"]["message"], kueue_words(ours["reasons"])
    assert mine == message or (mine.startswith(message) and mine[len(message):][:2] in (": ", " (")), mine
