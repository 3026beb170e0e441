"""`raises.ahead_in_tree`, the hint of a quota raise (what the pending workloads of the cohort tree ahead
of a workload need): its workloads ahead are found once per model, workload and baseline, and found again
when the baseline's states change (a part's prover completing them with the rest's)."""

from __future__ import annotations

from kadmit.engine.explain.prove import Prover
from kadmit.engine.explain.raises import ahead_in_tree
from kadmit.engine.explain.replay import Baseline, State
from reference.builders import build, cluster_queue, fq, group, pod_set, workload


def test_the_workloads_ahead_are_kept_per_model_workload_and_states():
    a = workload("a", pod_set(count=2, cpu=3), queue="q1", priority=10)
    b = workload("b", pod_set(cpu=5), queue="q2", minute=1)
    late = workload("late", pod_set(cpu=1), queue="q1", minute=2)
    other = workload("other", pod_set(cpu=7), queue="q3", priority=10)  # another cohort tree
    model = build(cluster_queue("q1", group(fq("f", cpu=4)), cohort="c"),
                  cluster_queue("q2", group(fq("f", cpu=4)), cohort="c"),
                  cluster_queue("q3", group(fq("f", cpu=4))), a, b, late, other)
    pending = {w.key: State(False) for w in model.workloads}
    prover = Prover(Baseline(model, {}, states=dict(pending)), lambda edits: None, late.key)
    assert ahead_in_tree(prover, model, late, "cpu") == 1000 + 6000 + 5000
    kept = prover.ahead[late.key]
    assert ahead_in_tree(prover, model, late, "memory") == 0 and prover.ahead[late.key] is kept
    prover.base.states = {**pending, a.key: State(True, "q1")}  # `a` admitted in the baseline now
    assert ahead_in_tree(prover, model, late, "cpu") == 1000 + 5000
    assert prover.ahead[late.key] is not kept
