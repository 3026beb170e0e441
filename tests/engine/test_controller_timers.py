"""The workload controller's timers during an `ordered` run (engine/admission/controller_timers.py): a held workload
whose requeueAt comes k seconds into the run, beside a False Requeued condition Kueue's workload controller sets True
then, is queued before cycle k + 1 if the run gets there; an Admitted workload whose maximum execution time runs out
is deactivated, and a KAD542 stall that ends so has dropped the heads its failed cycles took. Kueue's own answers are
the tests/oracle/features/ cases named below, in tests/oracle/test_admit.py."""

from __future__ import annotations

from pathlib import Path

from kadmit import workspace
from kadmit.effective import effective
from kadmit.engine.decide import admit

FEATURES = Path(__file__).resolve().parents[1] / "oracle" / "features"
CASE = FEATURES / "requeue-at-backoff-ends-during-the-run.yaml"
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


def _admitted(name: str) -> set[str]:
    return {d.key for d in admit(workspace.load([str(FEATURES / name)]).model).decisions if d.admitted}


def test_a_maximum_execution_time_run_out_gives_the_quota_back():
    """`expired` ran out before the run (deactivated as it starts: `waiting` fits); `runs-out-soon` 3 s in, when
    `after-it` was already found inadmissible (Kueue requeues none for a deactivation)."""
    model = workspace.load([str(FEATURES / "maximum-execution-time-of-admitted-workloads.yaml")]).model
    ends = {w.key: (w.active, w.exec_ends) for w in effective(model).workloads if w.max_exec}
    assert ends == {"team/expired": (False, 0), "team/runs-out-soon": (True, 3)}
    decisions = {d.key: d for d in admit(model).decisions}
    assert {k for k, d in decisions.items() if d.admitted} == {"team/waiting", "team/s1", "team/s2", "team/s3", "team/s4"}
    assert not decisions["team/runs-out-soon"].workload.active and decisions["team/runs-out-soon"].cycle == 4


def test_a_workload_admitted_in_the_run_times_out_and_the_next_head_takes_its_quota():
    assert _admitted("maximum-execution-time-runs-out-during-the-run.yaml") == {"team/b1", "team/b2", "team/b3", "team/c-big"}


def test_a_stall_that_ends_has_dropped_the_heads_its_cycles_took():
    result = admit(workspace.load([str(FEATURES / "admission-fair-sharing-stall-ends-heads-dropped.yaml")]).model)
    assert {d.key for d in result.decisions if d.admitted} == {"team/p3", "team/p4"}
    dropped = {d.key for d in result.decisions if d.stalled is not None}
    assert dropped == {"team/fits", "team/p1", "team/p2"}


def test_why_meets_the_timers_of_the_whole_run():
    """`why` decides its workload's part of the cluster; a timer fires if the whole run's clock gets there (cq3's
    admissions keep it going to runs-out-soon's), so the queues are decided together (`parts.split`)."""
    from kadmit.engine.decide import why

    model = workspace.load([str(FEATURES / "maximum-execution-time-of-admitted-workloads.yaml")]).model
    assert not why(model, "team/runs-out-soon").decision.admitted
