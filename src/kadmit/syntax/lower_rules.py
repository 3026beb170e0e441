"""Lowering rules and their expressions to the model's expression tree."""

from __future__ import annotations

import re

from kadmit.diagnostics import Diagnostics
from kadmit.model import Binary, InSet, Literal_, Quantifier, Ref, Rule, Unary
from kadmit.quantity import MAX_MILLI, QuantityError, parse_quantity
from kadmit.source import Spans
from kadmit.syntax import codes
from kadmit.syntax.ast import EBin, EIn, ELit, EQuant, ERef, EUn, Expr, RuleStmt
from kadmit.syntax.values import int_text

# First words of a path that read something of the workload being checked; any other bare
# name is a literal (a flavor, queue, cohort, priority class or topology mode).
ROOTS = frozenset({"workload", "namespace", "pod_group", "flavor", "cluster_queue", "cohort"})
_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Invalid(Exception):
    """An expression that can't be lowered; already reported."""


def rule(s: RuleStmt, diags: Diagnostics) -> Rule | None:
    spans = {"name": s.name.span, "kind": s.span, "expr": s.expr.span}
    weight = 0
    if s.weight is not None:
        spans["weight"] = s.weight.span
        w = int_text(s.weight.text, s.weight.span, f"the weight of `{s.name.value}`", diags, low=0)
        if w is None:
            return None
        weight = w
    try:
        expr = lower_expr(s.expr, frozenset(), diags)
    except _Invalid:
        return None
    return Rule(name=s.name.value, kind=s.kind, weight=weight, expr=expr, span=s.span,
                spans=Spans(items=spans))


def lower_expr(e: Expr, bound: frozenset[str], diags: Diagnostics):
    if isinstance(e, ELit):
        return _literal(e, diags)
    if isinstance(e, ERef):
        return _ref(e, bound)
    if isinstance(e, EUn):
        return Unary(op=e.op, arg=lower_expr(e.arg, bound, diags), span=e.span)
    if isinstance(e, EBin):
        return Binary(op=e.op, left=lower_expr(e.left, bound, diags),
                      right=lower_expr(e.right, bound, diags), span=e.span)
    if isinstance(e, EIn):
        return InSet(elem=lower_expr(e.elem, bound, diags),
                     items=tuple(lower_expr(x, bound, diags) for x in e.items), negated=e.negated,
                     span=e.span)
    return _quantifier(e, bound, diags)


def _literal(e: ELit, diags: Diagnostics) -> Literal_:
    if e.kind == "bool":
        return Literal_(kind="bool", value=e.text == "true", span=e.span)
    if e.kind == "string":
        return Literal_(kind="string", value=e.value, span=e.span)
    if e.text.isdigit():
        n = int_text(e.text, e.span, "a number", diags, low=0, high=MAX_MILLI // 1000)
        if n is None:
            raise _Invalid
        return Literal_(kind="int", value=n, span=e.span)
    try:
        return Literal_(kind="quantity", value=parse_quantity(e.text), span=e.span)
    except QuantityError as err:
        diags.emit(codes.BAD_QUANTITY, str(err), e.span)
        raise _Invalid from None


def _ref(e: ERef, bound: frozenset[str]) -> Ref | Literal_:
    parts = tuple(e.name.value.split("."))
    if parts[0] in ROOTS or parts[0] in bound or e.indexes:
        return Ref(path=parts + tuple(i.value for i in e.indexes), span=e.span,
                   spans=Spans(items={f"index.{n}": i.span for n, i in enumerate(e.indexes)}))
    return Literal_(kind="name", value=e.name.value, span=e.span)


def _quantifier(e: EQuant, bound: frozenset[str], diags: Diagnostics) -> Quantifier:
    var = e.var.value
    if not _VAR.match(var) or var in ROOTS:
        diags.emit(codes.BAD_EXPR, f"`{var}` can't name a quantifier's variable", e.var.span,
                   help="use a plain word that isn't `workload`, `pod_group`, `flavor`, … e.g. `g`")
        raise _Invalid
    domain = _ref(e.domain, bound)
    if not isinstance(domain, Ref):
        diags.emit(codes.BAD_EXPR, f"a quantifier ranges over a reference such as `workload.pod_groups`, "
                   f"not `{e.domain.name.value}`", e.domain.span)
        raise _Invalid
    return Quantifier(kind=e.kind, var=var, domain=domain, body=lower_expr(e.body, bound | {var}, diags),
                      span=e.span, spans=Spans(items={"var": e.var.span, "domain": e.domain.span}))
