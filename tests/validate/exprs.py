"""Terse constructors for rule expressions in tests (no parser involved)."""

from __future__ import annotations

from kadmit.model import Binary, InSet, Literal_, Quantifier, Ref, Rule, Unary
from kadmit.source import Span


def R(text: str) -> Ref:
    """`pod_group.requests[cpu]` -> Ref(path=("pod_group", "requests", "cpu"))."""
    parts: list[str] = []
    for piece in text.replace("]", "").split("["):
        if not parts:
            parts.extend(piece.split("."))
        else:
            parts.append(piece)
    return Ref(path=tuple(parts), span=Span(file="r.kad", line=1, column=1))


def N(name: str) -> Literal_:
    return Literal_(kind="name", value=name, span=Span(file="r.kad", line=1, column=40))


def I(value: int) -> Literal_:  # noqa: E743
    return Literal_(kind="int", value=value)


def Q(milli: int) -> Literal_:
    return Literal_(kind="quantity", value=milli)


def S(text: str) -> Literal_:
    return Literal_(kind="string", value=text)


def T(value: bool = True) -> Literal_:
    return Literal_(kind="bool", value=value)


def B(left, op: str, right) -> Binary:
    return Binary(op=op, left=left, right=right)


def NOT(arg) -> Unary:
    return Unary(op="not", arg=arg)


def NEG(arg) -> Unary:
    return Unary(op="-", arg=arg)


def IN(elem, *items, negated: bool = False) -> InSet:
    return InSet(elem=elem, items=items, negated=negated)


def ALL(var: str, body, domain: str = "workload.pod_groups") -> Quantifier:
    return Quantifier(kind="all", var=var, domain=R(domain), body=body)


def ANY(var: str, body, domain: str = "workload.pod_groups") -> Quantifier:
    return Quantifier(kind="any", var=var, domain=R(domain), body=body)


def rule(expr, name: str = "r", kind: str = "require", weight: int = 0) -> Rule:
    return Rule(name=name, kind=kind, weight=weight, expr=expr, span=Span(file="r.kad", line=1, column=1))
