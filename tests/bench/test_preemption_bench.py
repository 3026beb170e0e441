"""The preemption benchmark keeps working: its state has the intended shape (Kueue's queues and
policies, every cohort full, some queues borrowing, pending work asking for each queue's nominal
quota), its probe times a run without changing it, its comparison catches differing victims, and a
tiny run completes with the engine agreeing with the reference."""

from collections import Counter

import pytest

from kadmit.engine.admission import ordered
import preempt_states as ps
import preemption_bench as pb
from kadmit.diagnostics import Diagnostics
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.index import ModelIndex, admitted_usage
from kadmit.validate import validate

CPU = ("default", "cpu")


def _usage(model) -> Counter:
    used: Counter = Counter()
    for w in model.workloads:
        if w.admission is not None:
            used[w.admission.cluster_queue] += admitted_usage(w)[CPU] // 1000
    return used


@pytest.mark.parametrize("cqs, cohorts", [(30, 5), (7, 2), (1, 1)])
def test_the_state_is_full_valid_and_shaped_like_kueues(cqs, cohorts):
    model = ps.kueue_preempt_state(cqs, cohorts, seed=1)
    diags = Diagnostics()
    validate(model, diags)
    assert [d.message for d in diags.items] == []
    assert len(model.cluster_queues) == cqs and len(model.cohorts) == cohorts
    assert all(cq.preemption == ps.KUEUE_PREEMPTION for cq in model.cluster_queues)
    used = _usage(model)
    members: dict[str, list[str]] = {}
    for cq in model.cluster_queues:
        members.setdefault(cq.cohort, []).append(cq.name)
    for names in members.values():  # every cohort full: its queues use all their nominal quota together
        assert sum(used[n] for n in names) == ps.NOMINAL * len(names)
    if cqs > cohorts:
        assert any(used[cq.name] > ps.NOMINAL for cq in model.cluster_queues)  # some borrow
    index = ModelIndex(model)
    running = [w for w in model.workloads if w.admission is not None]
    pending = [w for w in model.workloads if w.admission is None]
    assert max(index.priority(w) for w in running) <= min(index.priority(w) for w in pending)
    assert max(w.created for w in running) < min(w.created for w in pending)
    asked: Counter = Counter()
    for w in pending:
        asked[index.cluster_queue_of(w).name] += w.pod_sets[0].requests["cpu"] // 1000
    assert set(asked.values()) == {ps.NOMINAL} and len(asked) == cqs
    empty = ps.kueue_preempt_state(cqs, cohorts, seed=1, empty=True)
    assert empty.workloads == tuple(pending)


def test_fill_targets_split_a_cohort_between_lenders_and_borrowers():
    assert ps.fill_targets(["a", "b", "c"]) == {"a": 10, "b": 40, "c": 10}
    assert ps.fill_targets(["a", "b", "c", "d"]) == {"a": 10, "b": 30, "c": 10, "d": 30}
    assert ps.fill_targets(["a"]) == {"a": 20}
    assert ps.fill_targets(["a", "b", "c", "d", "e", "f", "g"]) == {
        "a": 10, "b": 34, "c": 10, "d": 33, "e": 10, "f": 33, "g": 10}


def test_the_probe_times_every_head_and_changes_nothing():
    model = ps.kueue_preempt_state(6, 1, seed=2)
    plain = decide_ordered(Session(model))
    quota_fits = ordered._quota_fits
    seconds, decisions, records, session = pb.run(model)
    assert ordered._quota_fits is quota_fits and "nominate" not in vars(session)
    assert [(d.key, d.admitted, d.preempted_by) for d in decisions] == \
        [(d.key, d.admitted, d.preempted_by) for d in plain]
    assert seconds > 0 and all(r.seconds > 0 for r in records)
    preempting = [r for r in records if r.preempting]
    assert preempting and all(r.mode == "Preempt" and r.targets for r in preempting)
    admitted = {r.key for r in records if r.admitted}
    assert admitted == {d.key for d in decisions if d.admitted}


def test_compare_victims_reports_differences():
    class D:  # the fields compare_victims reads, for engine and reference decisions alike
        def __init__(self, key, victims=(), by=None):
            self.key = self.workload = key
            self.preempted = [type("V", (), {"key": v})() for v in victims]
            self.preempted_by = by

    same = pb.compare_victims([D("p", ["a", "b"]), D("a", by="p")], [D("p", ["a", "b"]), D("a", by="p")])
    assert same["differ"] == [] and same["equal_lists"] == 1 and same["engine_victims"] == 2
    other = pb.compare_victims([D("p", ["a"]), D("a", by="p")], [D("p", ["a", "b"]), D("a", by="q")])
    assert other["differ"] == ["p"] and other["evicted_by_differ"] == ["a"]


def test_quantiles_nearest_rank():
    assert pb.quantiles([3.0]) == (3.0, 3.0)
    assert pb.quantiles([float(i) for i in range(1, 101)]) == (50.5, 95.0)


def test_a_tiny_run_agrees_with_the_reference(capsys):
    assert pb.main(["--state", "6,2", "--optimal-budget", "0"]) == 0
    out = capsys.readouterr().out
    assert "decisions that differ: 0" in out and "different 0 (must be 0)" in out
    assert "per preempting decision" in out
