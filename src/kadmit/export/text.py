"""A model rule as `.kad` text that reads back to the same rule: every binary operand and quantifier
parenthesised, quantity literals in milli-units (`1500m`, never a bare number that would read as an
integer), strings escaped, names quoted where they aren't plain names."""

from __future__ import annotations

import json
import re

from kadmit.model import Binary, Expr, InSet, Literal_, Quantifier, Ref, Rule, Unary

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:[-./][A-Za-z0-9_]+)*$")
_INDEXED = {"requests", "total", "labels", "node_selector", "flavor"}
_KEYWORDS = {"true", "false", "default", "require", "forbid", "prefer", "rule", "weight", "resources", "match",
             "borrow", "lend", "required", "preferred", "all", "any", "in", "not", "and", "or", "implies"}


def label(name: str) -> str:
    return name if NAME.match(name) and name not in _KEYWORDS else json.dumps(name)


def _index(key: str) -> str:
    return f"[{key}]" if NAME.match(key) and key not in _KEYWORDS else f"[{json.dumps(key)}]"


def path(p: tuple[str, ...]) -> str:
    if p[0] == "flavor" and len(p) == 2:
        return f"flavor{_index(p[1])}"
    out = p[0]
    for i, part in enumerate(p[1:], 1):
        out += _index(part) if i >= 2 and p[i - 1] in _INDEXED else f".{part}"
    return out


def expr(e: Expr) -> str:
    if isinstance(e, Literal_):
        if e.kind == "string":
            return json.dumps(str(e.value), ensure_ascii=False)
        if e.kind == "bool":
            return "true" if e.value else "false"
        if e.kind == "quantity":
            return f"{e.value}m"
        return str(e.value)
    if isinstance(e, Ref):
        return path(tuple(e.path))
    if isinstance(e, Unary):
        return f"(not {expr(e.arg)})" if e.op == "not" else f"(-{expr(e.arg)})"
    if isinstance(e, Binary):
        return f"({expr(e.left)} {e.op} {expr(e.right)})"
    if isinstance(e, InSet):
        return f"({expr(e.elem)} {'not in' if e.negated else 'in'} {{{', '.join(expr(i) for i in e.items)}}})"
    assert isinstance(e, Quantifier)
    return f"({e.kind} {e.var} in {path(tuple(e.domain.path))}: {expr(e.body)})"


def rule_text(rule: Rule) -> str:
    weight = f" weight {rule.weight}" if rule.kind == "prefer" else ""
    return f"{rule.kind} {label(rule.name)}{weight}: {expr(rule.expr)}"
