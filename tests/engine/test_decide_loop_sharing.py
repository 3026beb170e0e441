"""The scheduling loop's shortcuts decide exactly as the plain cycle-by-cycle run:
- what a workload brings to its situation (`situations.workload_facts`) is computed once per workload
  object and read by every session that sees the object: a re-decision over a changed model (another
  priority class value, a local queue pointing elsewhere) must not get a stale answer from it;
- cycles that only set heads aside (every StrictFIFO head blocking again) are done at once
  (`asides.repeat_set_asides`), before the run's first eviction and after it (each state then
  recorded for the loop check as the cycle would record it)."""

import gc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission import ordered
from kadmit.engine.admission.loops import States
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.searches import Searches
from kadmit.engine.admission.session import Session
from kadmit.engine.admission.situations import _FACTS, Situations, workload_facts
from kadmit.model import LocalQueue, Preemption, PriorityClass
from reference.builders import build, cluster_queue, cohort, fq, group, pod_set, q, workload
from reference.test_preemption import running


class Alone(Situations):
    def key(self, wl, cq, preemption):
        return None


class Unshared(Session):
    """Shares nothing among workloads, and so never skips a cycle either."""

    def __init__(self, model):
        super().__init__(model)
        self.situations = Alone(self)


def run(session: Session) -> dict:
    out = {}
    for d in decide_ordered(session):
        a = d.assignment
        out[d.key] = (d.admitted, d.cluster_queue, d.cycle, d.waiting_behind, d.unknown, d.notes,
                      d.preempted_by, d.preemption_reason, tuple((v.key, v.reason) for v in d.preempted),
                      (a.counts, a.flavors, a.usage, a.mode, a.height, a.borrowing) if a else None,
                      d.loop.workloads if d.loop else None)
    return out


@st.composite
def busy_trees(draw):
    """A cohort of two or three queues and, per queue, a stream of pending workloads of few sizes and
    priorities: most of them find the tree full and are set aside cycle after cycle."""
    n = draw(st.integers(2, 3))
    objs = [cohort("c")]
    workloads = []
    for i in range(n):
        cq = cluster_queue(f"q{i}", group(fq("f", cpu=q(draw(st.integers(1, 4)),
                                                      borrow=draw(st.sampled_from((None, 0, 2)))))),
                           cohort="c", strategy=draw(st.sampled_from(("BestEffortFIFO", "BestEffortFIFO",
                                                                      "StrictFIFO"))))
        within, reclaim = draw(st.sampled_from((("Never", "Never"), ("Never", "Any"), ("LowerPriority", "Never"),
                                                ("Never", "LowerPriority"), ("LowerPriority", "Any"))))
        objs.append(cq.model_copy(update={"preemption": Preemption(within_cluster_queue=within,
                                                                   reclaim_within_cohort=reclaim)}))
        for j in range(draw(st.integers(1, 12))):
            workloads.append(workload(f"w{i}-{j:02d}", pod_set(cpu=draw(st.sampled_from((1, 1, 2, 8)))),
                                      queue=f"q{i}", priority=draw(st.sampled_from((0, 0, 5))),
                                      minute=draw(st.integers(0, 40))))
    return build(*objs, *workloads)


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(busy_trees())
def test_cycles_that_only_set_aside_are_done_at_once_as_one_by_one(model):
    assert run(Session(model)) == run(Unshared(model))


@st.composite
def evicting_trees(draw):
    """`busy_trees` with two flavors, running workloads holding quota (some to be preempted or
    reclaimed) and a StrictFIFO queue more often: cycles that only set heads aside, with blocking
    StrictFIFO heads, come after the run's evictions, and the run may loop."""
    n = draw(st.integers(2, 3))
    objs = [cohort("c")]
    workloads = []
    flavors = draw(st.sampled_from((("f",), ("f", "g"))))
    for i in range(n):
        fqs = [fq(f, cpu=q(draw(st.integers(1, 4)), borrow=draw(st.sampled_from((None, 0, 2))),
                         lend=draw(st.sampled_from((None, None, 1))))) for f in flavors]
        cq = cluster_queue(f"q{i}", group(*fqs), cohort="c",
                           strategy=draw(st.sampled_from(("BestEffortFIFO", "StrictFIFO"))))
        within, reclaim = draw(st.sampled_from((("Never", "Any"), ("LowerPriority", "Never"),
                                                ("LowerPriority", "Any"), ("LowerOrNewerEqualPriority", "Any"),
                                                ("Never", "LowerPriority"))))
        objs.append(cq.model_copy(update={"preemption": Preemption(within_cluster_queue=within,
                                                                   reclaim_within_cohort=reclaim)}))
        for j in range(draw(st.integers(0, 3))):
            workloads.append(running(f"r{i}-{j}", f"q{i}", draw(st.integers(1, 3)), priority=draw(st.integers(0, 3)),
                                     at=draw(st.integers(0, 9)), flavor=draw(st.sampled_from(flavors))))
        for j in range(draw(st.integers(1, 12))):
            workloads.append(workload(f"w{i}-{j:02d}", pod_set(cpu=draw(st.sampled_from((1, 1, 2, 8)))),
                                      queue=f"q{i}", priority=draw(st.sampled_from((0, 0, 2, 5))),
                                      minute=draw(st.integers(10, 40))))
    return build(*objs, *workloads)


def traced(session: Session) -> tuple[dict, list, dict]:
    """`run`, with the states the loop check recorded (cycle and state, in order) and where every
    search stood at the end (each workload's last Pending message and flavor start)."""
    recorded, searches = [], {}
    repeat, done = States.repeat, Searches.done

    def recording(self, cycle, rest):
        recorded.append((cycle, self.hash, len(self.place), rest))
        return repeat(self, cycle, rest)

    def finishing(self):
        searches.update({k: (m, self.session.last_tried.get(k)) for k, m in self.said.items()})
        return done(self)
    States.repeat, Searches.done = recording, finishing
    try:
        return run(session), recorded, searches
    finally:
        States.repeat, Searches.done = repeat, done


@SETTINGS
@given(evicting_trees())
def test_set_aside_cycles_after_evictions_and_behind_strict_heads_are_done_as_one_by_one(model):
    assert traced(Session(model)) == traced(Unshared(model))


def test_set_aside_cycles_after_an_eviction_behind_a_blocking_strict_head_are_skipped(monkeypatch):
    """A high-priority workload reclaims what `q0` lent, then `q1`'s StrictFIFO head blocks while
    `q0`'s many too-big workloads are set aside one per cycle: those cycles are done at once."""
    objs = [cohort("c"), cluster_queue("q0", group(fq("f", cpu=4)), cohort="c"),
            cluster_queue("q1", group(fq("f", cpu=2)), cohort="c", strategy="StrictFIFO")]
    objs = [o.model_copy(update={"preemption": Preemption(within_cluster_queue="LowerPriority",
                                                          reclaim_within_cohort="Any")})
            if o.__class__.__name__ == "ClusterQueue" else o for o in objs]
    wls = [running("lent", "q1", 3, priority=0, at=0),
           workload("urgent", pod_set(cpu=4), queue="q0", priority=9, minute=1),
           workload("big", pod_set(cpu=5), queue="q1", priority=5, minute=2),
           workload("behind", pod_set(cpu=1), queue="q1", priority=0, minute=3)]
    wls += [workload(f"w{j:02d}", pod_set(cpu=3 + j % 2), queue="q0", priority=1, minute=10 + j) for j in range(30)]
    model = build(*objs, *wls)
    skipped = []
    real = ordered.repeat_set_asides

    def counting(*args, **kw):
        cycle, before = real(*args, **kw)
        skipped.append((cycle - args[4], len(args) > 9))
        return cycle, before

    monkeypatch.setattr(ordered, "repeat_set_asides", counting)
    got = run(Session(model))
    assert got == run(Unshared(model))
    assert got["default/lent"][6] == "default/urgent"  # reclaimed: the run has an eviction
    assert got["default/behind"][3] == "default/big"  # behind the blocking StrictFIFO head
    assert sum(n for n, after in skipped if after) > 20  # the set-aside cycles after it, at once


def perf_like(priority_value: int = 100, queue_of_ns1: str = "q1"):
    """Two queues of 4 cpu in a cohort, 60 pending 1/2/3-cpu workloads at two priority classes."""
    objs = [cohort("c"), cluster_queue("q0", group(fq("f", cpu=4)), cohort="c"),
            cluster_queue("q1", group(fq("f", cpu=4)), cohort="c"),
            PriorityClass(name="low", value=10), PriorityClass(name="high", value=priority_value),
            LocalQueue(namespace="ns0", name="lq", cluster_queue="q0"),
            LocalQueue(namespace="ns1", name="lq", cluster_queue=queue_of_ns1)]
    return build(*objs, auto_queues=False)


WORKLOADS = tuple(workload(f"w{j:03d}", pod_set(cpu=1 + j % 3), queue="lq", ns=f"ns{j % 2}",
                           priority_class="high" if j % 5 == 0 else "low", minute=j) for j in range(60))


def with_workloads(model, workloads=WORKLOADS):
    return model.model_copy(update={"workloads": tuple(workloads)})


def fresh(workloads):
    """Equal workloads as new objects: nothing computed for the old ones applies to them."""
    return tuple(w.model_copy(deep=True) for w in workloads)


def test_the_set_aside_cycles_are_skipped_and_decide_the_same(monkeypatch):
    model = with_workloads(perf_like())
    skipped = []
    real = ordered.repeat_set_asides

    def counting(*args):
        cycle, before = real(*args)
        skipped.append(cycle - args[4])
        return cycle, before

    monkeypatch.setattr(ordered, "repeat_set_asides", counting)
    got = run(Session(model))
    assert sum(skipped) > 20  # most of the 52 workloads that never fit are set aside in skipped cycles
    assert got == run(Unshared(model))
    assert max(v[2] for v in got.values()) > 25  # the cycles are numbered as if run one by one


def test_a_changed_priority_class_value_is_read_anew_by_a_session_over_the_same_workloads():
    before = with_workloads(perf_like(priority_value=100))
    run(Session(before))  # computes and keeps what the workload objects bring
    assert all(workload_facts(w) for w in WORKLOADS) and id(WORKLOADS[0]) in _FACTS
    after = with_workloads(perf_like(priority_value=1))  # the same workload objects, "high" now below "low"
    shared, alone = run(Session(after)), run(Session(with_workloads(perf_like(priority_value=1), fresh(WORKLOADS))))
    assert shared == alone
    assert shared != run(Session(before))  # the change matters: a stale priority would show


def test_a_local_queue_pointing_elsewhere_is_read_anew_by_a_session_over_the_same_workloads():
    before = with_workloads(perf_like())
    run(Session(before))
    after = with_workloads(perf_like(queue_of_ns1="q0"))  # every workload now queues in q0
    shared = run(Session(after))
    assert shared == run(Session(with_workloads(perf_like(queue_of_ns1="q0"), fresh(WORKLOADS))))
    assert {v[1] for v in shared.values()} == {"q0"}


def test_a_changed_workload_is_a_new_object_with_its_own_facts():
    wl = WORKLOADS[1]
    bigger = wl.model_copy(update={"pod_sets": (pod_set(cpu=3, count=2),)})
    assert workload_facts(wl)[1] != workload_facts(bigger)[1]
    assert workload_facts(bigger)[1] == ((2, None, (("cpu", 3000),)),)
    ident = id(bigger)
    del bigger
    gc.collect()
    assert ident not in _FACTS  # dropped with the workload: an id used again can't find them
