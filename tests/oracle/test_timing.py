"""Kueue's outcomes that depend on when its controllers answer the scheduler (docs/KUEUE-DIFFERENCES.md §1):
the oracle runs each timing (`kueue-oracle admit --reconcile-jobs-every N`), and kadmit's answer must be one of
them."""

from __future__ import annotations

from kadmit import api
from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, run_oracle

START_FAILS = "tests/oracle/features/tie-job-start-fails-reconcile-timing.yaml"


def _flavors(answer, name: str) -> str:
    (ps,) = answer.outcomes[name].pod_sets
    return dict(ps[2])["cpu"]


def test_a_failed_start_frees_quota_when_the_reconciler_answers(kueue_oracle):
    """A Job whose admitted Workload Kueue cannot start (its template's `kueue.x-k8s.io/podset` label): the job
    reconciler finishes the Workload (FailedToStart) and frees its f0 whenever it answers. Answering before the
    next cycle, a cycle late, or after the scheduler's run (the oracle's default, reconciling before the first
    cycle only, gives that last) gives the two workloads behind it three different flavor pairs; kadmit, which
    starts only the jobs the input shows admitted and warns (KAD161), gives the last, one of Kueue's."""
    kueue = {n: from_oracle(run_oracle(kueue_oracle, [START_FAILS], "--reconcile-jobs-every", str(n)))
             for n in (1, 2, 100)}
    pairs = {n: (_flavors(a, "ns/w1"), _flavors(a, "ns/w2")) for n, a in kueue.items()}
    assert pairs == {1: ("f0", "f0"), 2: ("f1", "f0"), 100: ("f1", "f1")}
    code, kadmit = run_kadmit([START_FAILS])
    k = from_kadmit(kadmit)
    assert code == 0 and compare(k, kueue[100]).agree, compare(k, kueue[100]).report(k, kueue[100])
    assert not compare(k, kueue[1]).agree and not compare(k, kueue[2]).agree
    assert [d.code for d in api.admit([str(ROOT / START_FAILS)]).loaded.diagnostics] == ["KAD161"]
