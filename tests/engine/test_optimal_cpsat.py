"""The CP-SAT lowering agrees with `terms.evaluate` on every term, and staged solving is lexicographic."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st
from ortools.sat.python import cp_model

from kadmit.engine.solver import terms as T
from kadmit.engine.solver.cpsat import CpLowering, Stage, solve_staged

X = T.IntVar("x", -3, 3)
Y = T.IntVar("y", 0, 4)
P = T.BoolVar("p")
Q = T.BoolVar("q")


def int_terms(bools):
    leaves = st.one_of(st.builds(T.Const, st.integers(-5, 5)), st.sampled_from([X, Y]))

    def grow(inner):
        return st.one_of(
            st.builds(lambda a, b, k: T.lin((k, a), (1, b), constant=1), inner, inner, st.integers(-2, 2)),
            st.builds(T.Ite, bools, inner, inner),
            st.builds(T.Max0, inner),
            st.builds(lambda a, b: T.Min((a, b)), inner, inner),
        )
    return st.recursive(leaves, grow, max_leaves=6)


def bool_terms():
    leaves = st.one_of(st.sampled_from([P, Q, T.TRUE, T.FALSE]))
    ints = int_terms(leaves)

    def grow(inner):
        return st.one_of(
            st.builds(T.Cmp, st.sampled_from(["<=", "<", ">=", ">", "==", "!="]), ints, ints),
            st.builds(lambda op, a, b: T.BoolOp(op, (a, b)), st.sampled_from(["and", "or", "implies", "iff"]),
                      inner, inner),
            st.builds(lambda a: T.BoolOp("not", (a,)), inner),
        )
    return st.recursive(leaves, grow, max_leaves=6)


envs = st.fixed_dictionaries({"x": st.integers(-3, 3), "y": st.integers(0, 4),
                              "p": st.booleans(), "q": st.booleans()})


def pinned(env) -> CpLowering:
    low = CpLowering()
    for v in (X, Y, P, Q):
        low.model.add(low.var(v) == int(env[v.name]))
    return low


def solve(low: CpLowering):
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    return s, s.solve(low.model)


@settings(max_examples=150, deadline=None)
@given(bool_terms(), envs)
def test_literal_has_the_evaluated_value(t, env):
    low = pinned(env)
    lit = low.lit(t)
    s, status = solve(low)
    assert status == cp_model.OPTIMAL
    assert s.boolean_value(lit) == T.evaluate(t, env)


@settings(max_examples=150, deadline=None)
@given(int_terms(st.sampled_from([P, Q, T.TRUE])), envs)
def test_integer_expression_has_the_evaluated_value(t, env):
    low = pinned(env)
    e = low.int_(t)
    s, status = solve(low)
    assert status == cp_model.OPTIMAL
    assert (e if isinstance(e, int) else s.value(e)) == T.evaluate(t, env)


@settings(max_examples=150, deadline=None)
@given(bool_terms(), envs)
def test_enforced_term_is_feasible_exactly_when_it_holds(t, env):
    low = pinned(env)
    low.enforce(t)
    _, status = solve(low)
    assert (status == cp_model.OPTIMAL) == T.evaluate(t, env)


def test_stages_are_lexicographic():
    a, b = T.IntVar("a", 0, 10), T.IntVar("b", 0, 10)
    hard = [T.le(T.add(a, b), 10), T.le(T.lin((2, a), (-1, b)), 5)]
    got = solve_staged(hard, [Stage("a", "max", a), Stage("b", "min", b)], budget=5.0)
    assert got.values is not None and got.proven_optimal
    assert (got.values["a"], got.values["b"]) == (5, 5)
    assert [s.value for s in got.stages] == [5, 5]
    assert all(s.bound == s.value for s in got.stages)


def test_constant_stage_is_optimal_at_once():
    a = T.IntVar("a", 0, 3)
    got = solve_staged([], [Stage("none", "max", T.Const(0)), Stage("a", "max", a)], budget=1.0)
    assert [(s.status, s.value) for s in got.stages] == [("optimal", 0), ("optimal", 3)]
    alone = solve_staged([T.eq(a, 2)], [], budget=1.0)
    assert alone.values == {"a": 2} and alone.proven_optimal


def test_infeasible_model_has_no_values():
    a = T.IntVar("a", 0, 3)
    got = solve_staged([T.cmp(">", a, 5)], [Stage("a", "max", a)], budget=1.0)
    assert got.values is None
    assert got.stages[0].status == "infeasible" and not got.proven_optimal


def knapsack(n: int = 60):
    """A knapsack CP-SAT doesn't close at once: items of pseudo-random weights and values."""
    xs = [T.BoolVar(f"x{i}") for i in range(n)]
    w = [(i * 37) % 23 + 5 for i in range(n)]
    v = [(i * 53) % 29 + 3 for i in range(n)]
    hard = [T.le(T.lin(*[(wi, T.Ite(x, T.Const(1), T.Const(0))) for wi, x in zip(w, xs)]), sum(w) // 3)]
    return hard, [Stage("value", "max", T.lin(*[(vi, T.Ite(x, T.Const(1), T.Const(0))) for vi, x in zip(v, xs)]))]


def test_a_deterministic_budget_gives_the_same_answer_every_time():
    hard, stages = knapsack()
    runs = [solve_staged(hard, stages, budget=0.02) for _ in range(2)]
    assert runs[0].values == runs[1].values
    assert [(s.status, s.value, s.bound) for s in runs[0].stages] == \
        [(s.status, s.value, s.bound) for s in runs[1].stages]
    assert runs[0].work == runs[1].work


def test_the_wall_clock_net_answers_unknown_not_a_timed_guess():
    from kadmit.engine.solver.cpsat import SolveParams
    hard, stages = knapsack()
    got = solve_staged(hard, stages, budget=5.0, params=SolveParams(wall_factor=0.0, wall_floor=1e-6))
    assert got.wall_clock_hit and got.values is None
    assert got.stages[0].status == "unknown" and not got.proven_optimal
