"""Lowering terms to Z3, and a Z3 solver configured for determinism and bounded work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import z3

from kadmit.engine import terms as T

Outcome = Literal["sat", "unsat", "unknown"]


@dataclass(frozen=True)
class Limits:
    """Solver limits: a deterministic resource limit per check, and a wall-clock safety net."""

    rlimit: int = 5_000_000
    timeout_ms: int = 10_000
    seed: int = 0


def make_solver(limits: Limits) -> z3.Solver:
    s = z3.SolverFor("QF_LIA")
    s.set("random_seed", limits.seed)
    s.set("rlimit", limits.rlimit)
    s.set("timeout", limits.timeout_ms)
    return s


class Lowering:
    """Memoised translation of terms into one Z3 context; variables by name."""

    def __init__(self) -> None:
        self.vars: dict[str, z3.ExprRef] = {}
        self._memo: dict[int, z3.ExprRef] = {}
        self._keep: list[T.Term] = []  # keep terms alive so ids stay unique
        self.bounds: list[z3.BoolRef] = []  # domain constraints of new integer variables

    def var(self, t: T.IntVar | T.BoolVar) -> z3.ExprRef:
        v = self.vars.get(t.name)
        if v is None:
            if isinstance(t, T.BoolVar):
                v = z3.Bool(t.name)
            else:
                v = z3.Int(t.name)
                self.bounds.append(z3.And(v >= t.lo, v <= t.hi))
            self.vars[t.name] = v
        return v

    def __call__(self, t: T.Term) -> z3.ExprRef:
        key = id(t)
        got = self._memo.get(key)
        if got is not None:
            return got
        out = self._lower(t)
        self._memo[key] = out
        self._keep.append(t)
        return out

    def _lower(self, t: T.Term) -> z3.ExprRef:
        if isinstance(t, T.Const):
            return z3.IntVal(t.value)
        if isinstance(t, T.BoolConst):
            return z3.BoolVal(t.value)
        if isinstance(t, (T.IntVar, T.BoolVar)):
            return self.var(t)
        if isinstance(t, T.Sum):
            parts = [self(x) if k == 1 else k * self(x) for k, x in t.parts]
            if t.constant:
                parts.append(z3.IntVal(t.constant))
            return z3.Sum(parts) if len(parts) > 1 else parts[0]
        if isinstance(t, T.Ite):
            return z3.If(self(t.cond), self(t.then), self(t.other))
        if isinstance(t, T.Max0):
            a = self(t.arg)
            return z3.If(a > 0, a, 0)
        if isinstance(t, T.Min):
            out = self(t.args[0])
            for x in t.args[1:]:
                y = self(x)
                out = z3.If(out <= y, out, y)
            return out
        if isinstance(t, T.Cmp):
            a, b = self(t.left), self(t.right)
            return {"<=": lambda: a <= b, "<": lambda: a < b, ">=": lambda: a >= b,
                    ">": lambda: a > b, "==": lambda: a == b, "!=": lambda: a != b}[t.op]()
        if isinstance(t, T.BoolOp):
            args = [self(a) for a in t.args]
            if t.op == "and":
                return z3.And(args)
            if t.op == "or":
                return z3.Or(args)
            if t.op == "not":
                return z3.Not(args[0])
            if t.op == "implies":
                return z3.Implies(args[0], args[1])
            return args[0] == args[1]
        raise TypeError(f"unknown term {t!r}")

    def take_bounds(self) -> list[z3.BoolRef]:
        out, self.bounds = self.bounds, []
        return out


def outcome(r: z3.CheckSatResult) -> Outcome:
    if r == z3.sat:
        return "sat"
    if r == z3.unsat:
        return "unsat"
    return "unknown"
