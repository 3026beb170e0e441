"""Rule expressions as text, for messages (`pod_group.requests[nvidia.com/gpu] > 0`)."""

from __future__ import annotations

from kadmit.model import Binary, Expr, InSet, Literal_, Quantifier, Ref, Unary
from kadmit.quantity import format_count

_INDEXED = {("workload", "requests"), ("namespace", "labels"), ("pod_group", "requests"),
            ("pod_group", "total"), ("pod_group", "node_selector"), ("pod_group", "flavor")}
_PRECEDENCE = {"implies": 1, "or": 2, "and": 3, "==": 5, "!=": 5, "<": 5, "<=": 5, ">": 5, ">=": 5,
               "+": 6, "-": 6, "*": 7, "/": 7}


def show(e: Expr) -> str:
    """Source-like text of an expression; binary operands are parenthesised where needed."""
    if isinstance(e, Literal_):
        if e.kind == "string":
            return f'"{e.value}"'
        if e.kind == "bool":
            return "true" if e.value else "false"
        if e.kind == "quantity" and isinstance(e.value, int):
            return format_count(e.value)
        return str(e.value)
    if isinstance(e, Ref):
        return show_path(tuple(e.path))
    if isinstance(e, Unary):
        return f"not {_wrap(e.arg, 4)}" if e.op == "not" else f"-{_wrap(e.arg, 8)}"
    if isinstance(e, Binary):
        p = _PRECEDENCE[e.op]
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, InSet):
        items = ", ".join(show(i) for i in e.items)
        return f"{_wrap(e.elem, 6)} {'not in' if e.negated else 'in'} {{{items}}}"
    if isinstance(e, Quantifier):
        return f"{e.kind} {e.var} in {show(e.domain)}: {show(e.body)}"
    return repr(e)


def show_path(path: tuple[str, ...]) -> str:
    """`pod_group.requests[cpu]`: parts after an indexed field are shown as `[key]`."""
    if not path:
        return ""
    head = path[0]
    if head == "flavor" and len(path) == 2:
        return f"flavor[{path[1]}]"
    out = head
    for i, part in enumerate(path[1:], 1):
        prev = ("pod_group" if path[0] not in ("workload", "namespace") else path[0], path[i - 1])
        if i >= 2 and prev in _INDEXED:
            out += f"[{part}]"
        else:
            out += f".{part}"
    return out


def _wrap(e: Expr, min_precedence: int) -> str:
    text = show(e)
    if isinstance(e, Binary) and _PRECEDENCE[e.op] < min_precedence:
        return f"({text})"
    if isinstance(e, Quantifier) and min_precedence > 0:
        return f"({text})"
    return text
