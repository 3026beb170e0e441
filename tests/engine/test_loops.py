"""Honest loops: a Kueue configuration whose preemption rules evict the same workloads forever is
stopped, reported with the workloads and the settings that make it loop, and exits 3."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kadmit.engine.admission.loops import PreemptionLoop, States
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.decide import admit, why
from reference.builders import build, cohort, fq, group, pod_set, workload
from reference.test_preemption import cqp


def looping_model():
    """q0 borrows the whole cohort for `big0`; `small` (q1, within its nominal quota) reclaims it;
    `big1` (q1, older than `small`, beyond q1's nominal quota, so only with borrowWithinCohort) evicts
    `small` under LowerOrNewerEqualPriority and then loses the
    race for the freed quota to `big0`, which is older still: and round again."""
    return build(cohort("root"), cqp("q0", group(fq("f", cpu=1)), cohort="root"),
                 cqp("q1", group(fq("f", cpu=3)), cohort="root", within="LowerOrNewerEqualPriority", reclaim="Any",
                     bwc="LowerPriority"),
                 workload("big0", pod_set(cpu=4), queue="q0", minute=1),
                 workload("big1", pod_set(cpu=4), queue="q1", minute=10),
                 workload("small", pod_set(cpu=1), queue="q1", minute=11))


def test_loop_is_detected_stopped_and_named():
    s = Session(looping_model())
    loops: list[PreemptionLoop] = []
    decisions = {d.key: d for d in decide_ordered(s, loops=loops)}
    assert len(loops) == 1 and loops[0].settled
    lp = loops[0]
    assert set(lp.workloads) == {"default/big0", "default/big1", "default/small"}
    assert {(r.cluster_queue, r.field, r.value) for r in lp.rules} == {
        ("q1", "preemption.reclaimWithinCohort", "Any"),
        ("q1", "preemption.withinClusterQueue", "LowerOrNewerEqualPriority")}
    assert all(decisions[k].unknown and decisions[k].loop is lp for k in lp.workloads)
    # each victim listed once, not once per turn of the loop
    assert all(len(d.preempted) == len({v.key for v in d.preempted}) for d in decisions.values())
    assert lp.last - lp.first < 20  # stopped at the first repeat, not at a cap


def test_admit_and_why_report_the_loop_as_undecided():
    r = admit(looping_model())
    assert r.unknown and len(r.loops) == 1
    assert all(r.reasons[k][0].code == "KAD535" for k in r.loops[0].workloads)
    w = why(looping_model(), "default/small")
    assert w.unknown and w.blame_kind == "loop"
    assert any("withinClusterQueue" in o.message for o in w.blame)


def test_no_loop_where_runs_settle():
    model = build(cohort("root"), cqp("q0", group(fq("f", cpu=2)), cohort="root", reclaim="Any"),
                  cqp("q1", group(fq("f", cpu=2)), cohort="root", reclaim="Any"),
                  workload("a", pod_set(cpu=4), queue="q0"), workload("b", pod_set(cpu=2), queue="q1", minute=1))
    r = admit(model)
    assert not r.loops and not r.unknown


LOOP_YAML = """
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: q0}
spec:
  cohort: root
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 1}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: q1}
spec:
  cohort: root
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerOrNewerEqualPriority
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 3}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq0, namespace: default}
spec: {clusterQueue: q0}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq1, namespace: default}
spec: {clusterQueue: q1}
"""


def _wl(name, queue, cpu, minute):
    return f"""---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: {name}, namespace: default, creationTimestamp: "2026-11-20T08:{minute:02d}:00Z"}}
spec:
  queueName: {queue}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources: {{requests: {{cpu: "{cpu}"}}}}
"""


class _Colliding(States):
    """Every state hashes alike: the exact check alone tells them apart."""

    @staticmethod
    def token(i, place) -> int:
        return 0


@pytest.mark.parametrize("kind", [States, _Colliding])
@given(steps=st.lists(st.one_of(st.tuples(st.integers(0, 5), st.sampled_from([None, ("queued", "a"), ("queued", "b"),
                                                                       ("aside", "a")])),
                          st.tuples(st.just("record"), st.integers(0, 2))), max_size=60))
def test_states_find_the_first_repeat_as_full_states_would(kind, steps):
    """`States` (a hash of where each waiting workload is, checked exactly by the moves since) finds
    the same first repeated state as keeping every cycle's full state does."""
    workloads = [object() for _ in range(6)]
    states, where, full = kind(), {}, {}
    cycle = 0
    for step in steps:
        if step[0] == "record":
            cycle += 1
            rest = (step[1],)  # stands for the holders, sticky preemptors and evictions in flight
            state = (tuple(sorted(where.items())), rest)
            assert states.repeat(cycle, rest) == full.get(state)
            if state in full:
                return
            full[state] = cycle
        else:
            i, place = step
            states.move(workloads[i], place)
            if place is None:
                where.pop(i, None)
            else:
                where[i] = place
