"""Printing rule expressions with the fewest parentheses their precedence needs."""

from __future__ import annotations

from kadmit.syntax.ast import EBin, EIn, ELit, EQuant, ERef, EUn, Expr

# Binding strength, loosest first; a quantifier (0) may stand only where a whole expression may.
_PREC = {"implies": 1, "or": 2, "and": 3, "==": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
         "+": 6, "-": 6, "*": 7, "/": 7}
_ATOM = 9


def prec(e: Expr) -> int:
    if isinstance(e, EBin):
        return _PREC[e.op]
    if isinstance(e, EUn):
        return 4 if e.op == "not" else 8
    if isinstance(e, EIn):
        return 5
    if isinstance(e, EQuant):
        return 0
    return _ATOM


def expr_text(e: Expr, need: int = 0) -> str:
    """`e` printed where the grammar needs binding strength `need` (0: a whole expression)."""
    text = _bare(e)
    return f"({text})" if prec(e) < need else text


def _bare(e: Expr) -> str:
    if isinstance(e, ELit):
        return e.text
    if isinstance(e, ERef):
        return e.name.text + "".join(f"[{i.text}]" for i in e.indexes)
    if isinstance(e, EUn):
        if e.op == "not":  # `not (a == b)`, never the correct but misleading `not a == b`
            return "not " + expr_text(e.arg, 4 if isinstance(e.arg, EUn) else _ATOM)
        return "-" + expr_text(e.arg, 8)
    if isinstance(e, EIn):
        items = ", ".join(expr_text(x, 6) for x in e.items)
        return f"{expr_text(e.elem, 6)} {'not in' if e.negated else 'in'} {{{items}}}"
    if isinstance(e, EQuant):
        return f"{e.kind} {e.var.text} in {_bare(e.domain)}: {expr_text(e.body, 0)}"
    p = _PREC[e.op]
    if e.op == "implies":
        return f"{expr_text(e.left, 2)} implies {expr_text(e.right, 0)}"
    if p == 5:
        return f"{expr_text(e.left, 6)} {e.op} {expr_text(e.right, 6)}"
    return f"{expr_text(e.left, p)} {e.op} {expr_text(e.right, p + 1)}"
