"""Quota answered by arithmetic (`compile.split`, `Session._ask`) decides exactly as Z3 alone, and the
preemption search skips queues whose policies allow no candidate (`preemption.search.may_preempt`)."""

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.compile.split import Fixed, Pins, QuotaPart, python_function
from kadmit.engine.compile.tracked import Origin, Tracked
from kadmit.engine.preemption import candidates as C
from kadmit.engine.preemption.search import Preemptor, Snapshot, find_targets, oracle
from kadmit.engine.solver import terms as T
from kadmit.model import (Binary, FlavorQuotas, Literal_, Ref, ResourceFlavor, ResourceGroup, ResourceQuota, Rule,
                          SchedulerConfig, Taint)
from reference.strategies import UNIT, admission_models
from states import kueue_perf_state
from reference.test_preemption import cohort_models, preempting_models

FPGA = "example.com/fpga"
MORE_FLAVORS = (ResourceFlavor(name="h", node_labels={"model": "a"}),
                ResourceFlavor(name="k", node_labels={"model": "b"},
                               node_taints=(Taint(key="spot", value="true", effect="NoSchedule"),)))


@st.composite
def varied_models(draw):
    """Generated models (plain, with preemption policies, or cohorts with fair sharing) with some
    queues given a second resource group (`example.com/fpga` in flavors `h`/`k`) that some pending
    pod sets ask for, and sometimes a user rule: free flavor choices, several groups, partial
    admission and rules all meet the arithmetic."""
    model = draw(st.one_of(admission_models(), preempting_models(), cohort_models()))
    if draw(st.booleans()):
        model = model.model_copy(update={"scheduler_configs": (SchedulerConfig(fair_sharing=True),)})
    queues = []
    for cq in model.cluster_queues:
        if draw(st.integers(0, 3)):
            flavors = draw(st.sampled_from((("h",), ("k",), ("h", "k"), ("k", "h"), ("h", "k"))))
            group = ResourceGroup(covered_resources=(FPGA,), flavors=tuple(
                FlavorQuotas(flavor=f, resources=(ResourceQuota(
                    resource=FPGA, nominal=draw(st.integers(0, 4)) * UNIT,
                    borrowing_limit=draw(st.sampled_from((None, 0, 2 * UNIT)))),)) for f in flavors))
            cq = cq.model_copy(update={"resource_groups": cq.resource_groups + (group,)})
        queues.append(cq)
    workloads = []
    for wl in model.workloads:
        if not wl.admitted and draw(st.integers(0, 3)):
            wl = wl.model_copy(update={"pod_sets": tuple(
                ps.model_copy(update={"requests": {"cpu": UNIT, **ps.requests, FPGA: draw(st.integers(0, 3)) * UNIT}})
                if draw(st.integers(0, 3)) else ps for ps in wl.pod_sets)})
        workloads.append(wl)
    rules = ()
    if draw(st.integers(0, 3)) == 0:
        rules = (Rule(name="small", kind="forbid", expr=Binary(
            op=">", left=Ref(path=("workload", "pod_count")), right=Literal_(kind="int", value=draw(st.integers(1, 6))))),)
    return model.model_copy(update={"flavors": tuple(model.flavors) + MORE_FLAVORS, "cluster_queues": tuple(queues),
                                    "workloads": tuple(workloads), "rules": rules})


def decide(model, arithmetic: bool):
    session = Session(model)
    session.arithmetic_quota = arithmetic
    return decide_ordered(session), session


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(varied_models())
def test_arithmetic_quota_decides_as_z3_alone(model):
    fast, fast_session = decide(model, True)
    slow, slow_session = decide(model, False)
    assert fast == slow  # every decision, assignment, victim, note and reason
    # and every pending workload's nomination in the end state, with and without preemption
    for wl in model.workloads:
        if not wl.admitted:
            for preemption in (False, True):
                assert fast_session.nominate(wl, preemption)[0] == slow_session.nominate(wl, preemption)[0]


def test_the_perf_state_is_answered_without_z3_per_state():
    """The Kueue perf state's shape (one group, quota only) is separable: re-deciding under other
    usage asks Z3 nothing new, while Z3 alone asks it once per new state."""
    model = kueue_perf_state(6, 2, 300, 0)
    fast, session = decide(model, True)
    slow, z3_session = decide(model, False)
    assert fast == slow
    assert session.stats.checks * 10 < z3_session.stats.checks


# --- the split ------------------------------------------------------------------------------------

def _loaded(model):
    session = Session(model)
    wl = next(w for w in model.workloads if not w.admitted)
    return session, session._loaded_shape(wl)


@pytest.fixture
def perf():
    return kueue_perf_state(2, 1, 4, 0)


def test_quota_part_of_a_plain_problem(perf):
    _, loaded = _loaded(perf)
    part = loaded.quota_part()
    assert part is not None and part.ids == {"quota|default|cpu"}
    assert {v.name.split("|")[0] for v in part.numbers} == {"used", "cap"}


def test_no_split_when_the_numbers_are_read_elsewhere(perf):
    _, loaded = _loaded(perf)
    prob = loaded.problem
    cap = next(iter(prob.numbers.values()))[1]
    prob.tracked.append(Tracked(Origin("other", "rule", "reads the cap", None), T.le(cap, 5)))
    assert QuotaPart.of(prob) is None


def test_no_split_when_a_quota_statement_needs_another_origin(perf):
    _, loaded = _loaded(perf)
    prob = loaded.problem
    quota = next(t for t in prob.tracked if t.origin.id.startswith("quota|"))
    prob.tracked.append(Tracked(quota.origin, T.TRUE, also=(Origin("gate|x", "gate", "x", None),)))
    assert QuotaPart.of(prob) is None


def test_fixings_enumerate_free_groups_and_refuse_what_they_cannot_read():
    part = QuotaPart(frozenset(), (), (), ((0, ("a", "b")), (0, ("c", "d")), (1, ("e",))))
    got = part.fixings(Fixed(frozenset({"a"}), frozenset({0}), frozenset({1})))
    assert [picked for _, picked in got] == [("c",), ("d",)]
    assert got[1][0] == {"a": True, "b": False, "c": False, "d": True, "e": False}
    assert part.fixings(Fixed(frozenset({"a", "b"}), frozenset({0}), frozenset({1}))) is None  # two in a group
    assert part.fixings(Fixed(frozenset({"e"}), frozenset({0}), frozenset({1}))) is None  # skipped but chosen
    assert part.fixings(Fixed(frozenset({"a", "c"}), frozenset(), frozenset())) is None  # pod set 1: unknown


def test_numbers_out_of_their_bounds_are_unsat(perf):
    session, loaded = _loaded(perf)
    part = loaded.quota_part()
    zero = {v.name: 0 for v in part.numbers}
    assert Pins({**zero, "n": 1}).without_numbers(part).values == {"n": 1}
    cap = {v.name: -10**31 for v in part.numbers if v.name.startswith("cap")}  # below its domain
    used = {v.name: -1 for v in part.numbers if v.name.startswith("used")}  # read by no statement: no domain
    assert [v.name for v in part.bounded] == list(cap)
    assert Pins({**zero, **used}).without_numbers(part) is not None
    for arithmetic in (True, False):
        session.arithmetic_quota = arithmetic
        sizes = {pv.count.name: 1 for pv in loaded.problem.pod_sets}
        assert session._ask(loaded, Pins({**zero, **sizes}), loaded.goal()) == "sat"
        assert session._ask(loaded, Pins({**zero, **used, **sizes}), loaded.goal()) == "sat"
        assert session._ask(loaded, Pins({**zero, **cap, **sizes}), loaded.goal()) == "unsat"


INT_VARS = [T.IntVar(f"x{i}", -5, 5) for i in range(3)]
BOOL_VARS = [T.BoolVar(f"b{i}") for i in range(2)]


def _terms(depth: int):
    ints = st.one_of(st.sampled_from(INT_VARS), st.integers(-4, 4).map(T.Const))
    bools = st.one_of(st.sampled_from(BOOL_VARS), st.sampled_from((T.TRUE, T.FALSE)))
    if depth == 0:
        return ints, bools
    si, sb = _terms(depth - 1)
    ints = st.one_of(
        ints,
        st.lists(st.tuples(st.integers(-3, 3), si), min_size=1, max_size=3).flatmap(
            lambda ps: st.integers(-3, 3).map(lambda c: T.Sum(tuple(ps), c))),
        st.builds(T.Ite, sb, si, si), st.builds(T.Max0, si),
        st.lists(si, min_size=1, max_size=3).map(lambda xs: T.Min(tuple(xs))))
    bools = st.one_of(
        bools,
        st.builds(T.Cmp, st.sampled_from(("<=", "<", ">=", ">", "==", "!=")), si, si),
        st.lists(sb, min_size=1, max_size=3).flatmap(
            lambda xs: st.sampled_from(("and", "or")).map(lambda op: T.BoolOp(op, tuple(xs)))),
        sb.map(lambda x: T.BoolOp("not", (x,))),
        st.tuples(sb, sb).flatmap(lambda ab: st.sampled_from(("implies", "iff")).map(lambda op: T.BoolOp(op, ab))))
    return ints, bools


@settings(max_examples=200, deadline=None)
@given(st.lists(_terms(2)[1], min_size=0, max_size=3),
       st.fixed_dictionaries({**{v.name: st.integers(-5, 5) for v in INT_VARS},
                              **{v.name: st.booleans() for v in BOOL_VARS}}))
def test_python_function_evaluates_as_the_terms(terms, env):
    assert python_function(terms)(env) == all(T.evaluate(t, env) for t in terms)


# --- preemption: no candidates under Kueue's default policies -------------------------------------

def test_never_never_queues_skip_the_candidate_search(perf, monkeypatch):
    """Kueue's defaults (withinClusterQueue and reclaimWithinCohort Never) allow no candidate: the
    oracle says NoCandidates and find_targets finds none without listing the admitted workloads."""
    model = kueue_perf_state(2, 1, 40, 0)
    session = Session(model)
    decide_ordered(session)
    assert session.holders
    for builder in ("_fill", "_candidate"):  # the candidates kept queue by queue (1063280), and each one
        monkeypatch.setattr(C, builder, lambda *a, **k: pytest.fail("candidates listed"))
    cq = model.cluster_queues[0]
    wl = model.workloads[0]
    fr = ("default", "cpu")
    mode, height = oracle(session, cq.name, "new", 10_000, wl.created - timedelta(days=1), fr, 20 * UNIT)
    assert mode == "NoCandidates"
    assert height == Snapshot(session).lowest_subtree_that_fits(cq.name, fr, 20 * UNIT)[0]
    p = Preemptor("new", cq.name, 10_000, wl.created, {fr: 20 * UNIT}, frozenset({fr}))
    assert find_targets(session, p) == []


def test_a_reading_snapshot_refuses_changes(perf):
    session = Session(perf)
    snap = Snapshot.reading(session)
    assert snap.usage is session.usage
    with pytest.raises(RuntimeError):
        snap.plus("cq-0000", {("default", "cpu"): 1})
