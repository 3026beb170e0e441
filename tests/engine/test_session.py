"""Sessions answer incrementally: arrivals, finishes and what-if quota changes."""

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from reference.builders import build, cluster_queue, fq, group, pod_set, workload


def state():
    return build(cluster_queue("a", group(fq("f", cpu=4))),
                 workload("w1", pod_set(cpu=3), queue="a"))


def test_arrival_then_finish_frees_quota():
    s = Session(state())
    decisions = decide_ordered(s)
    assert [d.admitted for d in decisions] == [True]
    late = workload("late", pod_set(cpu=2), queue="a", minute=5)
    s.add_workload(late)
    got, _ = s.try_admit(late)
    assert got is None  # 3 of 4 cpu are taken
    s.finish("default/w1")
    got, _ = s.try_admit(late)
    assert got is not None and got.counts == {"main": 1}


def test_what_if_changes_numbers_and_restores_them():
    s = Session(state())
    decide_ordered(s)
    late = workload("late", pod_set(cpu=2), queue="a", minute=5)
    s.add_workload(late)
    with s.what_if([("cq", "a", "f", "cpu", "nominal", 8000)]):
        assert s.try_admit(late)[0] is not None
    assert s.try_admit(late)[0] is None


def test_finer_requests_rescale_without_losing_answers():
    s = Session(state())
    decide_ordered(s)
    tiny = workload("tiny", pod_set(cpu="500m"), queue="a", minute=5)
    s.add_workload(tiny)
    got, _ = s.try_admit(tiny)
    assert got is not None and got.usage == {("f", "cpu"): 500}
