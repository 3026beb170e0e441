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


PRIORITY = "tests/oracle/features/workload-priority-class-without-priority.yaml"


def test_a_workload_priority_class_reaches_hand_written_workloads_when_kueue_starts(kueue_oracle):
    """Workload objects naming a class with a `spec.priority` other than its value (0; the CRD refuses none at
    all): Kueue's scheduler reads spec.priority only. On a running Kueue they keep it: the oracle's default, and
    kadmit's answer. A Kueue starting over them runs its WorkloadPriorityClass controller, which writes each
    WorkloadPriorityClass's value into the Workloads naming it (not a PriorityClass's): whether that lands before
    the scheduler's first cycle is the manager's timing, and `--reconcile-priority-classes` shows that side."""
    running = from_oracle(run_oracle(kueue_oracle, [PRIORITY]))
    started = from_oracle(run_oracle(kueue_oracle, [PRIORITY], "--reconcile-priority-classes"))

    def admitted(answer):
        return sorted(n for n, o in answer.outcomes.items() if o.admitted)
    assert admitted(running) == ["ns/p-early", "ns/v-early-two", "ns/w-early"]
    assert admitted(started) == ["ns/p-early", "ns/v-low-value", "ns/w-classed"]
    code, kadmit = run_kadmit([PRIORITY])
    k = from_kadmit(kadmit)
    assert code == 0 and compare(k, running).agree, compare(k, running).report(k, running)
