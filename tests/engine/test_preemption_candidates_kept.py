"""Preemption candidates kept queue by queue (`engine.preemption.candidates._cached`): a change of the admitted
set changes only the cluster queues whose holders changed (`Situations.queue_epochs`), by the holders their log
names (`Situations.queue_log`), and keeps the others' rows, ranked tuples, `ranked_using` lists and sums. Every
time the engine reads them, they must equal what a build of every queue from nothing gives: per queue the same
candidates with the same fields, the same ranked tuples, the same filtered lists and their sums. Checked while
deciding generated preempting models and while `why` proves fixes on a preempting GPU state (its re-decisions
suspend, commit, evict and replay).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.preemption import candidates as cands
from reference.test_preemption import cohort_models, preempting_models

FIELDS = ("key", "cluster_queue", "amounts", "priority", "created", "reserved", "evicted", "uid", "rank", "frs")


def _shown(c: cands.Candidate) -> tuple:
    return tuple(getattr(c, f) for f in FIELDS)


def _fresh(session) -> cands._Kept:
    got = cands._Kept(None, session.compiler.tree, {}, {})
    cands._fill(session, got, None)
    return got


class Checked:
    """`candidates._cached` wrapped: every answer compared with a build from nothing."""

    def __init__(self, monkeypatch) -> None:
        self.reads = self.kept = self.updated = 0  # reads; reads keeping queues; queues updated from the log
        real = cands._cached

        def cached(session):
            before = getattr(session, "_preemption_candidates", None)
            got = real(session)
            self.reads += 1
            self.kept += before is not None and got is not before and any(
                row is before.by_queue.get(cq) for cq, row in got.by_queue.items())
            want = _fresh(session)
            assert {cq: {k: _shown(c) for k, c in row.items()} for cq, row in got.by_queue.items()} == \
                   {cq: {k: _shown(c) for k, c in row.items()} for cq, row in want.by_queue.items()}
            if got.ranked is not None or got.kept_ranked:
                ranked = {cq: tuple(sorted(row.values(), key=cands._RANK)) for cq, row in want.by_queue.items()}
                for cq, t in {**got.kept_ranked, **(got.ranked or {})}.items():
                    if cq in got.by_queue:
                        assert [_shown(c) for c in t] == [_shown(c) for c in ranked[cq]], cq
                for cq, lists in got.using.items():
                    for (needs, below), t in lists.items():
                        assert [_shown(c) for c in t] == [
                            _shown(c) for c in ranked.get(cq, ())
                            if (below is None or c.priority < below) and not needs.isdisjoint(c.frs)], cq
                for cq, sums in got.sums.items():  # `using_sums`, kept with the lists
                    for (needs, below, frs, bound), (n, row) in sums.items():
                        using = [c for c in ranked.get(cq, ()) if (below is None or c.priority < below)
                                 and not needs.isdisjoint(c.frs) and (bound is None or c.priority < bound)]
                        assert (n, row) == (len(using), tuple(sum(c.amounts.get(fr, 0) for c in using)
                                                              for fr in frs)), cq
            return got

        monkeypatch.setattr(cands, "_cached", cached)
        update = cands._update

        def updated(*args):
            self.updated += 1
            return update(*args)

        monkeypatch.setattr(cands, "_update", updated)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(preempting_models())
def test_kept_candidates_equal_a_fresh_build_while_deciding(monkeypatch, model):
    checked = Checked(monkeypatch)
    decide_ordered(Session(model))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(cohort_models())
def test_kept_candidates_equal_a_fresh_build_in_cohorts(monkeypatch, model):
    Checked(monkeypatch)
    decide_ordered(Session(model))


def test_a_why_on_a_preempting_gpu_state_reads_kept_candidates_equal_to_fresh_ones(monkeypatch, tmp_path: Path):
    """bench/gpu_states.py's state of 300 Jobs: `why` of a pending Job (re-decisions with suspensions,
    commits, evictions); some answers keep queues from the set before (the check is not vacuous). 300 Jobs
    (4 pending) read 543 times, 25 keeping queues, 144 updated, in 2.1 s CPU; 400 (84 pending) read 6,148
    times in 15.1 s, and each size fails alike on a holder left in its row or on changed queues but the first
    updated (mutants of _update and _cached)."""
    import gpu_states
    from kadmit import api

    gpu_states.write_state(gpu_states.gpu_state(300, 0), tmp_path)
    pending = sorted(d.key for d in api.admit([str(tmp_path)]).result.decisions if not d.admitted)
    checked = Checked(monkeypatch)
    out = api.why(pending[len(pending) // 2], [str(tmp_path)])
    assert out.result is not None
    assert checked.reads > 100 and checked.kept > 10 and checked.updated > 10, (checked.reads, checked.kept,
                                                                                 checked.updated)
