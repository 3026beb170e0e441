"""A small solver-neutral term layer: integer and Boolean terms that lower to Z3 or CP-SAT, or evaluate.

Terms are immutable trees built with the helpers below. Integer terms are linear except for
`ite` and `max0`, which both backends support. Variables are named; names are unique per problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Union


@dataclass(frozen=True, eq=False)
class Term:
    """Base class; identity semantics so terms can be memo keys."""


@dataclass(frozen=True, eq=False)
class IntVar(Term):
    name: str
    lo: int
    hi: int


@dataclass(frozen=True, eq=False)
class BoolVar(Term):
    name: str


@dataclass(frozen=True, eq=False)
class Const(Term):
    value: int


@dataclass(frozen=True, eq=False)
class BoolConst(Term):
    value: bool


@dataclass(frozen=True, eq=False)
class Sum(Term):
    """Σ coef·term + constant."""

    parts: tuple[tuple[int, Term], ...]
    constant: int = 0


@dataclass(frozen=True, eq=False)
class Ite(Term):
    cond: Term
    then: Term
    other: Term


@dataclass(frozen=True, eq=False)
class Max0(Term):
    """max(0, arg)."""

    arg: Term


@dataclass(frozen=True, eq=False)
class Min(Term):
    args: tuple[Term, ...]


@dataclass(frozen=True, eq=False)
class Cmp(Term):
    op: str  # "<=", "<", ">=", ">", "==", "!="
    left: Term
    right: Term


@dataclass(frozen=True, eq=False)
class BoolOp(Term):
    op: str  # "and", "or", "not", "implies", "iff"
    args: tuple[Term, ...]


IntLike = Union[Term, int]

TRUE = BoolConst(True)
FALSE = BoolConst(False)


def const(v: IntLike) -> Term:
    return v if isinstance(v, Term) else Const(int(v))


def lin(*parts: tuple[int, IntLike], constant: int = 0) -> Term:
    """A linear sum; constants fold in."""
    out: list[tuple[int, Term]] = []
    c = constant
    for coef, t in parts:
        if coef == 0:
            continue
        if isinstance(t, int):
            c += coef * t
        elif isinstance(t, Const):
            c += coef * t.value
        elif isinstance(t, Sum):
            c += coef * t.constant
            out.extend((coef * k, x) for k, x in t.parts)
        else:
            out.append((coef, t))
    if not out:
        return Const(c)
    if len(out) == 1 and out[0][0] == 1 and c == 0:
        return out[0][1]
    return Sum(tuple(out), c)


def add(*terms: IntLike) -> Term:
    return lin(*((1, t) for t in terms))


def sub(a: IntLike, b: IntLike) -> Term:
    return lin((1, a), (-1, b))


def scale(k: int, t: IntLike) -> Term:
    return lin((k, t))


def le(a: IntLike, b: IntLike) -> Term:
    return Cmp("<=", const(a), const(b))


def cmp(op: str, a: IntLike, b: IntLike) -> Term:
    return Cmp(op, const(a), const(b))


def eq(a: IntLike, b: IntLike) -> Term:
    return Cmp("==", const(a), const(b))


def ite(c: Term, a: IntLike, b: IntLike) -> Term:
    return Ite(c, const(a), const(b))


def max0(a: IntLike) -> Term:
    a = const(a)
    if isinstance(a, Const):
        return Const(max(0, a.value))
    return Max0(a)


def and_(*args: Term) -> Term:
    xs = [a for a in args if not (isinstance(a, BoolConst) and a.value)]
    if any(isinstance(a, BoolConst) and not a.value for a in xs):
        return FALSE
    if not xs:
        return TRUE
    return xs[0] if len(xs) == 1 else BoolOp("and", tuple(xs))


def or_(*args: Term) -> Term:
    xs = [a for a in args if not (isinstance(a, BoolConst) and not a.value)]
    if any(isinstance(a, BoolConst) and a.value for a in xs):
        return TRUE
    if not xs:
        return FALSE
    return xs[0] if len(xs) == 1 else BoolOp("or", tuple(xs))


def not_(a: Term) -> Term:
    if isinstance(a, BoolConst):
        return BoolConst(not a.value)
    return BoolOp("not", (a,))


def implies(a: Term, b: Term) -> Term:
    return BoolOp("implies", (a, b))


def iff(a: Term, b: Term) -> Term:
    return BoolOp("iff", (a, b))


def exactly_one(xs: Iterable[Term]) -> Term:
    xs = list(xs)
    return eq(lin(*((1, ite(x, 1, 0)) for x in xs)), 1)


# --- evaluation ----------------------------------------------------------------------------------

def evaluate(t: Term, env: Mapping[str, int | bool], memo: dict | None = None) -> int | bool:
    """The value of `t` with variables from `env` (missing variables are an error). Shared subterms
    are evaluated once per call (pass `memo` to share it across calls with the same `env`)."""
    if memo is None:
        memo = {}
    return _eval(t, env, memo)


def _eval(t: Term, env: Mapping[str, int | bool], memo: dict) -> int | bool:
    if isinstance(t, (Const, BoolConst)):
        return t.value
    if isinstance(t, (IntVar, BoolVar)):
        return env[t.name]
    key = id(t)
    if key in memo:
        return memo[key]
    out = _eval_node(t, env, memo)
    memo[key] = out
    return out


def _eval_node(t: Term, env: Mapping[str, int | bool], memo: dict) -> int | bool:
    if isinstance(t, Sum):
        return t.constant + sum(k * _eval(x, env, memo) for k, x in t.parts)
    if isinstance(t, Ite):
        return _eval(t.then, env, memo) if _eval(t.cond, env, memo) else _eval(t.other, env, memo)
    if isinstance(t, Max0):
        return max(0, _eval(t.arg, env, memo))
    if isinstance(t, Min):
        return min(_eval(a, env, memo) for a in t.args)
    if isinstance(t, Cmp):
        a, b = _eval(t.left, env, memo), _eval(t.right, env, memo)
        return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "==": a == b, "!=": a != b}[t.op]
    if isinstance(t, BoolOp):
        vals = [_eval(a, env, memo) for a in t.args]
        if t.op == "and":
            return all(vals)
        if t.op == "or":
            return any(vals)
        if t.op == "not":
            return not vals[0]
        if t.op == "implies":
            return (not vals[0]) or vals[1]
        return vals[0] == vals[1]
    raise TypeError(f"unknown term {t!r}")
