"""Lowering terms to OR-tools CP-SAT, and staged (lexicographic) optimisation with a fixed seed.

Boolean terms become literals; a constraint asserted under guards is half-reified (`OnlyEnforceIf`),
so only terms used as values get a full reification. Integer terms become linear expressions;
`Ite` with constant branches stays linear, other `Ite`s, `Max0` and `Min` get an auxiliary variable
whose domain comes from interval bounds of the term.

Solving uses one worker and a fixed seed (a second worker measured slower on these models, and
parallel search isn't reproducible): results repeat exactly whenever every stage is proven optimal;
a stage cut short by its time limit keeps the best solution found, which may vary with load.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, Mapping

from ortools.sat.python import cp_model

from kadmit.engine.solver import terms as T

NEGATE = {"<=": ">", "<": ">=", ">=": "<", ">": "<=", "==": "!=", "!=": "=="}


def _compare(op: str, a, b):
    return {"<=": lambda: a <= b, "<": lambda: a < b, ">=": lambda: a >= b,
            ">": lambda: a > b, "==": lambda: a == b, "!=": lambda: a != b}[op]()


class CpLowering:
    """Memoised translation of terms into one CP-SAT model; variables by name."""

    def __init__(self, model: cp_model.CpModel | None = None) -> None:
        self.model = model or cp_model.CpModel()
        self.vars: dict[str, cp_model.IntVar] = {}
        self._int: dict[int, object] = {}
        self._lit: dict[int, object] = {}
        self._bounds: dict[int, tuple[int, int]] = {}
        self._keep: list[T.Term] = []  # keep terms alive so ids stay unique
        self._true = None

    # --- variables and constants -------------------------------------------------------------------

    def var(self, t: T.IntVar | T.BoolVar):
        v = self.vars.get(t.name)
        if v is None:
            if isinstance(t, T.BoolVar):
                v = self.model.new_bool_var(t.name)
            else:
                v = self.model.new_int_var(t.lo, t.hi, t.name)
            self.vars[t.name] = v
        return v

    def true(self):
        if self._true is None:
            self._true = self.model.new_bool_var("true")
            self.model.add_bool_or([self._true])
        return self._true

    def bounds(self, t: T.Term) -> tuple[int, int]:
        """Interval bounds of an integer (or Boolean, as 0/1) term."""
        key = id(t)
        got = self._bounds.get(key)
        if got is not None:
            return got
        if isinstance(t, T.Const):
            out = (t.value, t.value)
        elif isinstance(t, T.IntVar):
            out = (t.lo, t.hi)
        elif isinstance(t, T.Sum):
            lo = hi = t.constant
            for k, x in t.parts:
                a, b = self.bounds(x)
                lo += min(k * a, k * b)
                hi += max(k * a, k * b)
            out = (lo, hi)
        elif isinstance(t, T.Ite):
            (a, b), (c, d) = self.bounds(t.then), self.bounds(t.other)
            out = (min(a, c), max(b, d))
        elif isinstance(t, T.Max0):
            a, b = self.bounds(t.arg)
            out = (max(0, a), max(0, b))
        elif isinstance(t, T.Min):
            bs = [self.bounds(x) for x in t.args]
            out = (min(b[0] for b in bs), min(b[1] for b in bs))
        else:  # Boolean terms used as 0/1
            out = (0, 1)
        self._bounds[key] = out
        self._keep.append(t)
        return out

    # --- integer terms -----------------------------------------------------------------------------

    def int_(self, t: T.Term):
        """A linear expression (or constant) with the value of integer term `t`."""
        key = id(t)
        got = self._int.get(key)
        if got is not None:
            return got
        out = self._lower_int(t)
        self._int[key] = out
        self._keep.append(t)
        return out

    def _lower_int(self, t: T.Term):
        m = self.model
        if isinstance(t, T.Const):
            return t.value
        if isinstance(t, T.IntVar):
            return self.var(t)
        if isinstance(t, T.Sum):
            return sum((k * self.int_(x) for k, x in t.parts), t.constant)
        if isinstance(t, T.Ite):
            c = self.lit(t.cond)
            if isinstance(t.then, T.Const) and isinstance(t.other, T.Const):
                a, b = t.then.value, t.other.value
                return b + (a - b) * c
            lo, hi = self.bounds(t)
            y = m.new_int_var(lo, hi, "")
            m.add(y == self.int_(t.then)).only_enforce_if(c)
            m.add(y == self.int_(t.other)).only_enforce_if(~c)
            return y
        if isinstance(t, T.Max0):
            lo, hi = self.bounds(t)
            y = m.new_int_var(lo, hi, "")
            m.add_max_equality(y, [self.int_(t.arg), 0])
            return y
        if isinstance(t, T.Min):
            lo, hi = self.bounds(t)
            y = m.new_int_var(lo, hi, "")
            m.add_min_equality(y, [self.int_(x) for x in t.args])
            return y
        raise TypeError(f"not an integer term: {t!r}")

    # --- Boolean terms -----------------------------------------------------------------------------

    def lit(self, t: T.Term):
        """A literal equivalent to Boolean term `t` (fully reified)."""
        key = id(t)
        got = self._lit.get(key)
        if got is not None:
            return got
        out = self._lower_lit(t)
        self._lit[key] = out
        self._keep.append(t)
        return out

    def _lower_lit(self, t: T.Term):
        m = self.model
        if isinstance(t, T.BoolConst):
            return self.true() if t.value else ~self.true()
        if isinstance(t, T.BoolVar):
            return self.var(t)
        if isinstance(t, T.Cmp):
            b = m.new_bool_var("")
            a, c = self.int_(t.left), self.int_(t.right)
            m.add(_compare(t.op, a, c)).only_enforce_if(b)
            m.add(_compare(NEGATE[t.op], a, c)).only_enforce_if(~b)
            return b
        if isinstance(t, T.BoolOp):
            if t.op == "not":
                return ~self.lit(t.args[0])
            if t.op == "implies":
                return self.lit(T.or_(T.not_(t.args[0]), t.args[1]))
            args = [self.lit(a) for a in t.args]
            b = m.new_bool_var("")
            if t.op == "and":
                m.add_bool_and(args).only_enforce_if(b)
                m.add_bool_or([~a for a in args]).only_enforce_if(~b)
            elif t.op == "or":
                m.add_bool_or(args).only_enforce_if(b)
                m.add_bool_and([~a for a in args]).only_enforce_if(~b)
            else:  # iff
                m.add(args[0] == args[1]).only_enforce_if(b)
                m.add(args[0] != args[1]).only_enforce_if(~b)
            return b
        raise TypeError(f"not a Boolean term: {t!r}")

    # --- assertions --------------------------------------------------------------------------------

    def guards(self, t: T.Term) -> list:
        """Literals whose conjunction is `t`."""
        if isinstance(t, T.BoolOp) and t.op == "and":
            return [g for a in t.args for g in self.guards(a)]
        if isinstance(t, T.BoolConst) and t.value:
            return []
        return [self.lit(t)]

    def enforce(self, t: T.Term, guards: tuple = ()) -> None:
        """Assert `t` whenever every literal in `guards` holds (half-reified)."""
        m = self.model
        g = list(guards)
        if isinstance(t, T.BoolConst):
            if not t.value:
                m.add_bool_or([~x for x in g]) if g else m.add(self.true() == 0)
            return
        if isinstance(t, T.Cmp):
            m.add(_compare(t.op, self.int_(t.left), self.int_(t.right))).only_enforce_if(g)
            return
        if isinstance(t, T.BoolOp):
            if t.op == "and":
                for a in t.args:
                    self.enforce(a, guards)
                return
            if t.op == "implies":
                self.enforce(t.args[1], tuple(g) + tuple(self.guards(t.args[0])))
                return
            if t.op == "not" and isinstance(t.args[0], T.Cmp):
                c = t.args[0]
                self.enforce(T.Cmp(NEGATE[c.op], c.left, c.right), guards)
                return
            if t.op == "or":
                m.add_bool_or([self.lit(a) for a in t.args]).only_enforce_if(g)
                return
        m.add_bool_or([self.lit(t)]).only_enforce_if(g)


# --- staged optimisation ------------------------------------------------------------------------------

Sense = Literal["max", "min"]


@dataclass(frozen=True)
class Stage:
    """One level of a lexicographic objective."""

    name: str
    sense: Sense
    term: T.Term


@dataclass
class StageResult:
    name: str
    status: str  # "optimal", "feasible" (budget ran out), "unknown" (no solution, or the wall-clock net), "infeasible"
    proven_optimal: bool
    value: int | None
    bound: int | None
    seconds: float
    work: float = 0.0  # CP-SAT's deterministic time spent

    def as_dict(self) -> dict:
        return {"name": self.name, "status": self.status, "proven_optimal": self.proven_optimal,
                "value": self.value, "bound": self.bound, "seconds": round(self.seconds, 3),
                "deterministic_time": round(self.work, 3)}


@dataclass
class StagedResult:
    values: dict[str, int] | None  # every named variable, from the last solution found
    stages: list[StageResult] = field(default_factory=list)
    seconds: float = 0.0
    work: float = 0.0  # deterministic time over every stage
    wall_clock_hit: bool = False  # the wall-clock safety net stopped a stage: the answer is "unknown"

    @property
    def proven_optimal(self) -> bool:
        return self.values is not None and all(s.proven_optimal for s in self.stages)


@dataclass(frozen=True)
class SolveParams:
    """The budget is CP-SAT's deterministic time (work units of about a second each on a typical
    machine), so a busy machine takes longer but gives the same answer; with one worker the search
    is deterministic. The wall clock is only a safety net, at `wall_factor` x the budget plus
    `wall_floor` seconds: a stage it stops reports "unknown", never a timing-dependent answer."""

    seed: int = 0
    workers: int = 1
    min_stage_seconds: float = 0.05
    reserve: float = 0.05  # share of the budget kept for each later stage
    wall_factor: float = 20.0
    wall_floor: float = 30.0


_STATUS = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible"}


def _solver(params: SolveParams, work: float) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.random_seed = params.seed
    solver.parameters.num_workers = params.workers
    solver.parameters.interleave_search = params.workers > 1  # several workers, still deterministic
    solver.parameters.max_deterministic_time = work
    solver.parameters.max_time_in_seconds = params.wall_factor * work + params.wall_floor
    # the cuts of level 2 close knapsack-like quota gaps that level 1 leaves open for minutes
    solver.parameters.linearization_level = 2
    return solver


def solve_staged(hard: list[T.Term], stages: list[Stage], budget: float,
                 hint: Mapping[str, int] | None = None, params: SolveParams = SolveParams()) -> StagedResult:
    """Optimise `stages` one after the other under `hard`; each stage's value (optimal, or the best
    found in its share of the budget) is fixed before the next. A stage stops when proven optimal,
    so unused time carries over. `budget` is deterministic time (see `SolveParams`)."""
    t0 = time.perf_counter()
    low = CpLowering()
    m = low.model
    for t in hard:
        low.enforce(t)
    for name, v in sorted(low.vars.items()):
        if hint and name in hint:
            m.add_hint(v, int(hint[name]))
    objectives = [low.int_(s.term) for s in stages]
    out = StagedResult(None)
    for i, (stage, obj) in enumerate(zip(stages, objectives)):
        if isinstance(obj, int):  # nothing to choose at this stage
            out.stages.append(StageResult(stage.name, "optimal", True, obj, obj, 0.0))
            continue
        # earlier stages dominate later ones: each may use what is left but a small reserve per later stage
        left = budget - out.work
        reserve = max(params.min_stage_seconds, params.reserve * budget) * (len(stages) - i - 1)
        limit = max(params.min_stage_seconds, left - reserve)
        solver = _solver(params, limit)
        m.clear_objective()
        if stage.sense == "max":
            m.maximize(obj)
        else:
            m.minimize(obj)
        s0 = time.perf_counter()
        status = solver.solve(m)
        secs = time.perf_counter() - s0
        work = solver.deterministic_time
        out.work += work
        if status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE) \
                and solver.wall_time >= 0.99 * solver.parameters.max_time_in_seconds:
            out.wall_clock_hit = True  # stopped by the safety net, not the budget: no answer
            out.stages.append(StageResult(stage.name, "unknown", False, None, None, secs, work))
            out.values = None
            break
        if status not in _STATUS:
            why = "infeasible" if status == cp_model.INFEASIBLE else "unknown"
            out.stages.append(StageResult(stage.name, why, False, None, None, secs, work))
            break
        value = int(round(solver.objective_value))
        bound = int(round(solver.best_objective_bound))
        out.stages.append(StageResult(stage.name, _STATUS[status], status == cp_model.OPTIMAL,
                                      value, bound, secs, work))
        out.values = {name: int(solver.value(v)) for name, v in sorted(low.vars.items())}
        m.add(obj >= value if stage.sense == "max" else obj <= value)
        m.clear_hints()
        for name, v in sorted(low.vars.items()):
            m.add_hint(v, out.values[name])
    if out.values is None and all(s.proven_optimal for s in out.stages):
        # no stage had a choice to make: any solution will do
        m.clear_objective()
        solver = _solver(params, max(params.min_stage_seconds, budget - out.work))
        if solver.solve(m) in _STATUS:
            out.values = {name: int(solver.value(v)) for name, v in sorted(low.vars.items())}
        out.work += solver.deterministic_time
    out.seconds = time.perf_counter() - t0
    return out
