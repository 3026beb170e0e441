"""Lowering terms to Z3, and a Z3 solver configured for determinism and bounded work."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Literal

import z3

from kadmit.engine.solver import terms as T

Outcome = Literal["sat", "unsat", "unknown"]


@dataclass(frozen=True)
class Limits:
    """Solver limits: a deterministic resource limit per check, and a wall-clock safety net.

    The resource limit is the one that decides: Z3 counts it in steps of its own search, so a check
    runs out of it at the same point on any machine and under any load. 5,000,000 steps took 11.7 s
    of CPU on an 11-pigeon pigeonhole problem on a busy 2-core machine. The wall clock is only a net
    for work Z3 does not count, set well above that: at 10 s it ran out first on a busy machine, and
    the same question then got "unknown" on one run and an answer on the next."""

    rlimit: int = 5_000_000
    timeout_ms: int = 60_000
    seed: int = 0


_inside = [0]  # how many `fresh_context` blocks are open (only the outermost makes a context)


@contextmanager
def fresh_context() -> Iterator[None]:
    """Z3's default context made anew for one question (a verb of the API), and set back after it.

    Z3 numbers the terms it holds in its context, reusing the numbers of freed ones, and its search
    (decisions, cores, models) follows those numbers: a second question asked in the same process met
    the first one's leftovers and could return another, equally minimal, blame set (`why` twice on the
    bundled example's team-vision/llm-pretrain). A fresh context gives every question the numbering a
    new process gives it: same input, same answer, in the CLI, the API and the language server alike.
    Reentrant: a question asked inside another (why's proofs deciding again) shares its context, so
    terms never meet a context they were not made in. Not for threads asking at the same time."""
    if _inside[0]:
        yield
        return
    saved = z3.z3._main_ctx  # what z3.main_ctx() hands out; None until first asked
    z3.z3._main_ctx = z3.Context()
    _inside[0] += 1
    try:
        yield
    finally:
        _inside[0] -= 1
        z3.z3._main_ctx = saved


def make_solver(limits: Limits) -> z3.Solver:
    """A solver for questions whose cores or models are read (blame, fixes): Z3's solver for QF_LIA."""
    s = z3.SolverFor("QF_LIA")
    s.set("random_seed", limits.seed)
    s.set("rlimit", limits.rlimit)
    s.set("timeout", limits.timeout_ms)
    return s


def make_answer_solver(limits: Limits) -> z3.Solver:
    """A solver for questions of which only sat or unsat is read (deciding: the compiled shapes of
    `admission.session`), with the same limits. Z3's plain SMT solver: `SolverFor("QF_LIA")` also
    builds the QF_LIA tactic for every solver (~7 M instructions each, against ~3 M for the whole of
    a plain one), which a check under assumptions never runs; `why` on the bundled example makes 33."""
    s = z3.SimpleSolver()
    s.set("random_seed", limits.seed)
    s.set("rlimit", limits.rlimit)
    s.set("timeout", limits.timeout_ms)
    return s


class Lowering:
    """Translation of terms into one Z3 context. Variables get short SMT symbols (names may hold any
    text); whole problems are sent as one SMT-LIB script, which Z3 parses far faster than the same
    formulas built call by call through its Python API."""

    def __init__(self) -> None:
        self._consts: dict[str, z3.ExprRef] = {}
        self._symbol: dict[str, str] = {}
        self._decls: list[str] = []
        self._memo: dict[int, str] = {}
        self._keep: list[T.Term] = []  # keep terms alive so ids stay unique
        self._bounds: list[str] = []  # domain constraints of new integer variables

    # --- constants ---------------------------------------------------------------------------------

    def named(self, name: str, sort: str = "Bool") -> z3.ExprRef:
        """The Z3 constant for a variable or literal name (declared on first use)."""
        c = self._consts.get(name)
        if c is None:
            sym = f"k{len(self._consts)}"
            c = z3.Bool(sym) if sort == "Bool" else z3.Int(sym)
            self._consts[name] = c
            self._symbol[name] = sym
            self._decls.append(f"(declare-const {sym} {sort})")
        return c

    def var(self, t: T.IntVar | T.BoolVar) -> z3.ExprRef:
        if t.name not in self._consts and isinstance(t, T.IntVar):
            self.named(t.name, "Int")
            sym = self._symbol[t.name]
            self._bounds.append(f"(and (>= {sym} {_num(t.lo)}) (<= {sym} {_num(t.hi)}))")
        return self.named(t.name, "Bool" if isinstance(t, T.BoolVar) else "Int")

    def __call__(self, t: T.Term) -> z3.ExprRef:
        """A variable's constant (terms in general go through `smt`)."""
        if isinstance(t, (T.IntVar, T.BoolVar)):
            return self.var(t)
        raise TypeError("only variables lower to Z3 objects; send formulas with `script`")

    # --- SMT-LIB text --------------------------------------------------------------------------------

    def smt(self, t: T.Term) -> str:
        key = id(t)
        got = self._memo.get(key)
        if got is None:
            got = self._smt(t)
            self._memo[key] = got
            self._keep.append(t)
        return got

    def _smt(self, t: T.Term) -> str:
        if isinstance(t, T.Const):
            return _num(t.value)
        if isinstance(t, T.BoolConst):
            return "true" if t.value else "false"
        if isinstance(t, (T.IntVar, T.BoolVar)):
            self.var(t)
            return self._symbol[t.name]
        if isinstance(t, T.Sum):
            parts = [self.smt(x) if k == 1 else f"(* {_num(k)} {self.smt(x)})" for k, x in t.parts]
            if t.constant:
                parts.append(_num(t.constant))
            return parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"
        if isinstance(t, T.Ite):
            return f"(ite {self.smt(t.cond)} {self.smt(t.then)} {self.smt(t.other)})"
        if isinstance(t, T.Max0):
            a = self.smt(t.arg)
            return f"(ite (> {a} 0) {a} 0)"
        if isinstance(t, T.Min):
            out = self.smt(t.args[0])
            for x in t.args[1:]:
                y = self.smt(x)
                out = f"(ite (<= {out} {y}) {out} {y})"
            return out
        if isinstance(t, T.Cmp):
            a, b = self.smt(t.left), self.smt(t.right)
            if t.op == "!=":
                return f"(not (= {a} {b}))"
            return f"({'=' if t.op == '==' else t.op} {a} {b})"
        if isinstance(t, T.BoolOp):
            args = " ".join(self.smt(a) for a in t.args)
            op = {"and": "and", "or": "or", "not": "not", "implies": "=>", "iff": "="}[t.op]
            return f"({op} {args})"
        raise TypeError(f"unknown term {t!r}")

    def guarded(self, guards: list[str], t: T.Term) -> str:
        """`(=> (and guards) t)` with guards given by name (tracking literals)."""
        syms = [self._symbol[g] if g in self._symbol else self._sym_of(g) for g in guards]
        guard = syms[0] if len(syms) == 1 else f"(and {' '.join(syms)})"
        return f"(=> {guard} {self.smt(t)})"

    def _sym_of(self, name: str) -> str:
        self.named(name, "Bool")
        return self._symbol[name]

    def script(self, assertions: list[str]) -> str:
        """Declarations made so far and not yet sent, then the assertions and variable bounds."""
        decls, self._decls = self._decls, []
        bounds, self._bounds = self._bounds, []
        return "\n".join(decls + [f"(assert {a})" for a in assertions + bounds])


    def extra_scripts(self, terms: list[T.Term]) -> tuple[str, str]:
        """Terms for a temporary scope, as (declarations to send first, outside the scope;
        assertions to send inside it). The solver remembers declarations from earlier scripts."""
        body = [self.smt(t) for t in terms]
        decls, self._decls = self._decls, []
        bounds, self._bounds = self._bounds, []
        return "\n".join(decls), "\n".join(f"(assert {a})" for a in body + bounds)


def _num(v: int) -> str:
    return str(v) if v >= 0 else f"(- {-v})"


def check(solver: z3.Solver, assumptions) -> z3.CheckSatResult:
    """`solver.check(*assumptions)` without z3.py's per-assumption casting, which cost more than
    solving on small problems; every assumption here is already a Boolean constant or its negation."""
    n = len(assumptions)
    arr = (z3.Ast * n)()
    for i, a in enumerate(assumptions):
        arr[i] = a.as_ast()
    r = z3.Z3_solver_check_assumptions(solver.ctx.ref(), solver.solver, n, arr)
    return z3.CheckSatResult(r)


def outcome(r: z3.CheckSatResult) -> Outcome:
    if r == z3.sat:
        return "sat"
    if r == z3.unsat:
        return "unsat"
    return "unknown"
