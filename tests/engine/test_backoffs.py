"""Backoffs that end during an `ordered` run (engine/admission/backoffs.py): a held workload whose requeueAt comes
k seconds into the run, beside a False Requeued condition Kueue's workload controller sets True then, is queued
before cycle k + 1 if the run gets there; Kueue's own answer is tests/oracle/features/requeue-at-backoff-ends-during-the-run.yaml
in tests/oracle/test_admit.py."""

from __future__ import annotations

from pathlib import Path

from kadmit import workspace
from kadmit.effective import effective
from kadmit.engine.decide import admit

CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / "requeue-at-backoff-ends-during-the-run.yaml"
SOON = {"team/check-soon", "team/pods-ready-soon", "team/reactivated-soon"}


def test_a_backoff_ending_a_second_in_queues_its_workload():
    model = workspace.load([str(CASE)]).model
    ends = {w.key: w.backoff_ends for w in effective(model).workloads if w.held}
    assert ends == {"team/check-soon": 1, "team/pods-ready-soon": 1, "team/reactivated-soon": 1,
                    "team/no-condition-soon": 0, "team/inadmissible-soon": 0, "team/pods-ready-later": 39}
    assert {d.key for d in admit(model).decisions if d.admitted} == SOON


def test_a_run_that_tries_no_head_ends_before_any_backoff(tmp_path):
    """Without `big`, no cycle tries a head: the run ends at once, as the oracle's (no cycle, the clock never moves)."""
    text = CASE.read_text()
    head, _, rest = text.partition("metadata: {name: big,")
    path = tmp_path / "no-head.yaml"
    path.write_text(head.rsplit("---\n", 1)[0] + "---\n" + rest.split("---\n", 1)[1])
    result = admit(workspace.load([str(path)]).model)
    assert "team/big" not in {d.key for d in result.decisions}
    assert not any(d.admitted for d in result.decisions)
