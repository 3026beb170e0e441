"""Type checking of rule expressions: references, operand types, bare names, quantifiers."""

from __future__ import annotations

import weakref
from typing import Literal

from kadmit.diagnostics import Diagnostics, did_you_mean
from kadmit.identity import about
from kadmit.index import ModelIndex
from kadmit.model import Binary, Expr, InSet, Literal_, Quantifier, Ref, Rule, Unary
from kadmit.source import Span
from kadmit.validate.codes import (BAD_ARITHMETIC, BAD_INDEX, BAD_QUANTIFIER_DOMAIN, BAD_QUANTIFIER_VARIABLE,
                                   BAD_WEIGHT, INCOMPATIBLE_TYPES, NOT_BOOLEAN, UNKNOWN_NAME,
                                   UNKNOWN_REFERENCE, UNKNOWN_RESOURCE)
from kadmit.validate.show import show

# Types: the value types of docs/ARCHITECTURE.md, plus literal types that adapt to what they
# meet: `number` (an integer literal: int, quantity or priority), `quantity_lit`, `string_lit`
# (a string, or a name of the type it is compared with) and `name` (a bare name).
NAMED = ("flavor", "cluster_queue", "cohort", "priority", "topology_mode")
ORDERED = ("int", "quantity", "priority", "number", "quantity_lit")
TOPOLOGY_MODES = ("required", "preferred", "unconstrained")
RESERVED = ("workload", "namespace", "pod_group", "flavor", "cluster_queue", "cohort")
POD_GROUPS = ("workload", "pod_groups")

_MAP = "map"
WORKLOAD_FIELDS: dict[str, object] = {
    "name": "string", "namespace": "string", "queue": "string", "cluster_queue": "cluster_queue",
    "cohort": "cohort", "priority": "priority", "requests": (_MAP, "quantity", "resource"),
    "pod_count": "int", "pod_groups": "domain"}
NAMESPACE_FIELDS: dict[str, object] = {"name": "string", "labels": (_MAP, "string", "label")}
POD_GROUP_FIELDS: dict[str, object] = {
    "name": "string", "count": "int", "max_count": "int", "min_count": "int",
    "requests": (_MAP, "quantity", "resource"), "total": (_MAP, "quantity", "resource"),
    "topology": "topology_mode", "topology_level": "string", "node_selector": (_MAP, "string", "label"),
    "flavor": "flavor?"}  # `flavor` alone, or `flavor[RES]`

Scope = Literal["workload", "pod_group"]
_LABELS = {"number": "a number", "quantity_lit": "a quantity", "string_lit": "a string", "name": "a bare name",
           "int": "an int", "quantity": "a quantity", "string": "a string", "bool": "a condition",
           "flavor": "a flavor", "cluster_queue": "a cluster queue", "cohort": "a cohort",
           "priority": "a priority", "topology_mode": "a topology mode", "domain": "a domain"}


def rule_scope(rule: Rule) -> Scope:
    """`pod_group` when the rule mentions `pod_group` or `flavor` other than through a quantifier's
    variable (so once per pod group), else `workload` (once per workload)."""
    return "pod_group" if _mentions_pod_group(rule.expr, frozenset()) else "workload"


def _mentions_pod_group(e: Expr, bound: frozenset[str]) -> bool:
    if isinstance(e, Ref):
        return e.path[0] in ("pod_group", "flavor") and e.path[0] not in bound
    if isinstance(e, Unary):
        return _mentions_pod_group(e.arg, bound)
    if isinstance(e, Binary):
        return _mentions_pod_group(e.left, bound) or _mentions_pod_group(e.right, bound)
    if isinstance(e, InSet):
        return _mentions_pod_group(e.elem, bound) or any(_mentions_pod_group(i, bound) for i in e.items)
    if isinstance(e, Quantifier):
        return _mentions_pod_group(e.body, bound | {e.var})
    return False


_RESOURCES: "weakref.WeakKeyDictionary[ModelIndex, frozenset[str]]" = weakref.WeakKeyDictionary()


def known_resources(index: ModelIndex) -> frozenset[str]:
    """Every resource name a queue, cohort, pod set, node or pod mentions."""
    cached = _RESOURCES.get(index)
    if cached is None:
        m = index.model
        names = {r for o in (*m.cluster_queues, *m.cohorts) for g in o.resource_groups for r in g.covered_resources}
        names |= {r for w in m.workloads for ps in w.pod_sets for r in ps.requests}
        names |= {r for n in m.nodes for r in n.allocatable} | {r for p in m.pods for r in p.requests}
        cached = _RESOURCES[index] = frozenset(names)
    return cached


def typecheck_rule(rule: Rule, index: ModelIndex, diags: Diagnostics) -> bool:
    """Check one rule; report problems to `diags`; True when the rule has no errors."""
    return _Checker(rule, index, diags).run()


def rule_names(rule: Rule, index: ModelIndex) -> list[tuple[Literal_, str]]:
    """The names `rule` compares (bare, or strings compared with a named type) that type checking
    resolves to an object of `index`, each with what it names: `flavor`, `cluster_queue`,
    `cohort` or `priority` (editors go from one to its definition)."""
    checker = _Checker(rule, index, Diagnostics())
    checker.names = []
    checker.run()
    return [(lit, t) for lit, t in checker.names if t != "topology_mode"]


class _Checker:
    def __init__(self, rule: Rule, index: ModelIndex, diags: Diagnostics) -> None:
        self.rule, self.index, self.diags = rule, index, diags
        self.vars: list[str] = []
        self.ok = True
        self.names: list[tuple[Literal_, str]] | None = None  # resolved names, when asked (`rule_names`)

    def error(self, code: str, message: str, span: Span | None, **kw) -> None:
        self.ok = False
        self.diags.emit(code, message, span or self.rule.span, about=about(self.rule), **kw)

    def run(self) -> bool:
        r = self.rule
        if r.kind == "prefer" and r.weight <= 0:
            self.error(BAD_WEIGHT, f"`prefer` rule `{r.name}` needs a positive weight (has {r.weight})",
                       r.field_span("weight"), help=f"write `prefer {r.name} weight 1: …`")
        elif r.kind != "prefer" and r.weight != 0:
            self.error(BAD_WEIGHT, f"`{r.kind}` rule `{r.name}` has a weight; only `prefer` rules take one",
                       r.field_span("weight"), help="remove the weight, or make the rule `prefer`")
        t = self.expr(r.expr)
        self.need_bool(r.expr, t, f"the body of rule `{r.name}`")
        return self.ok

    def need_bool(self, e: Expr, t: str | None, what: str) -> None:
        if t is not None and t != "bool":
            self.error(NOT_BOOLEAN, f"{what} must be a condition, but `{show(e)}` is {_LABELS.get(t, t)}",
                       e.span, help=_bool_help(e, t))

    # --- expressions ------------------------------------------------------------------------
    def expr(self, e: Expr) -> str | None:
        if isinstance(e, Literal_):
            if e.kind == "name" and "." in str(e.value) and not self.names_object(str(e.value)):
                # the `.kad` front end lowers a dotted path with an unknown root to a bare name
                self.ref(Ref(path=tuple(str(e.value).split(".")), span=e.span))
                return None
            return {"int": "number", "quantity": "quantity_lit", "string": "string_lit",
                    "bool": "bool", "name": "name"}[e.kind]
        if isinstance(e, Ref):
            t = self.ref(e)
            if t == "domain":
                self.error(BAD_QUANTIFIER_DOMAIN, f"`{show(e)}` can only be a quantifier domain",
                           e.span, help=f"write `all g in {show(e)}: …` or `any g in {show(e)}: …`")
                return None
            return t
        if isinstance(e, Unary):
            t = self.expr(e.arg)
            if t is None:
                return None
            if e.op == "not":
                self.need_bool(e.arg, t, "the operand of `not`")
                return "bool"
            if t in ("int", "quantity", "number", "quantity_lit", "priority"):
                return "int" if t == "priority" else t
            self.error(BAD_ARITHMETIC, f"can't negate `{show(e.arg)}`, which is {_LABELS.get(t, t)}", e.span)
            return None
        if isinstance(e, Binary):
            return self.binary(e)
        if isinstance(e, InSet):
            return self.in_set(e)
        return self.quantifier(e)

    def binary(self, e: Binary) -> str | None:
        lt, rt = self.expr(e.left), self.expr(e.right)
        if e.op in ("and", "or", "implies"):
            self.need_bool(e.left, lt, f"the left operand of `{e.op}`")
            self.need_bool(e.right, rt, f"the right operand of `{e.op}`")
            return "bool"
        if lt is None or rt is None:
            return None
        if e.op in ("+", "-", "*", "/"):
            return self.arithmetic(e, lt, rt)
        t = self.unify(e.left, lt, e.right, rt, e)
        if t is None:
            return None
        if e.op in ("<", "<=", ">", ">=") and t not in ORDERED:
            self.error(INCOMPATIBLE_TYPES, f"`{e.op}` needs numbers, but `{show(e.left)}` is {_LABELS.get(t, t)}",
                       e.span, help="use `==`, `!=` or `in {…}`" if t != "bool" else None)
            return None
        return "bool"

    def arithmetic(self, e: Binary, lt: str, rt: str) -> str | None:
        def norm(t: str) -> str | None:
            return {"int": "int", "priority": "int", "number": "number", "quantity": "quantity",
                    "quantity_lit": "quantity", "name": "int"}.get(t)
        a, b = norm(lt), norm(rt)
        for side, t, n in ((e.left, lt, a), (e.right, rt, b)):
            if t == "name" and not self.resolve(side, "priority"):  # a priority class, as its value
                return None
            if n is None:
                self.error(BAD_ARITHMETIC, f"`{e.op}` needs ints or quantities, but `{show(side)}` is "
                           f"{_LABELS.get(t, t)}", side.span or e.span)
                return None
        if a == b == "quantity" and e.op == "*":
            self.error(BAD_ARITHMETIC, f"can't multiply two quantities in `{show(e)}`", e.span,
                       help="multiply a quantity by an int, e.g. `pod_group.requests[cpu] * pod_group.count`")
            return None
        if a == b:
            return "int" if e.op == "/" and a == "quantity" else a
        if "number" in (a, b):
            return b if a == "number" else a
        # one int, one quantity
        if e.op == "*" or (e.op == "/" and a == "quantity"):
            return "quantity"
        self.error(BAD_ARITHMETIC, f"can't {_VERB[e.op]} an int and a quantity in `{show(e)}`", e.span,
                   help="a quantity can be multiplied or divided by an int only")
        return None

    def in_set(self, e: InSet) -> str | None:
        t = self.expr(e.elem)
        its = [self.expr(i) for i in e.items]
        if t is None:
            return "bool"
        for item, it in zip(e.items, its):
            if it is not None:
                self.unify(e.elem, t, item, it, item if item.span else e)
        return "bool"

    def quantifier(self, q: Quantifier) -> str | None:
        if tuple(q.domain.path) != POD_GROUPS:
            self.error(BAD_QUANTIFIER_DOMAIN, f"quantifiers range over `workload.pod_groups`, not `{show(q.domain)}`",
                       q.domain.span or q.span)
        if q.var in RESERVED or q.var in self.vars:
            what = "a reserved name" if q.var in RESERVED else "the variable of an enclosing quantifier"
            self.error(BAD_QUANTIFIER_VARIABLE, f"quantifier variable `{q.var}` reuses {what}",
                       q.field_span("var"), help="pick another name, e.g. `g`")
        self.vars.append(q.var)
        try:
            t = self.expr(q.body)
        finally:
            self.vars.pop()
        self.need_bool(q.body, t, f"the body of `{q.kind} {q.var} in …`")
        return "bool"

    # --- references ---------------------------------------------------------------------------
    def ref(self, r: Ref) -> str | None:
        path = tuple(r.path)
        root = path[0]
        text = show(r)
        if root in ("cluster_queue", "cohort"):
            if len(path) > 1:
                self.error(BAD_INDEX, f"`{root}` is {_LABELS[root]}, not a map: `{text}`", r.span)
                return None
            return root
        if root == "flavor":
            return self.field(r, ("pod_group",) + path, POD_GROUP_FIELDS, "pod_group")
        if root in ("pod_group", *self.vars):
            return self.field(r, path, POD_GROUP_FIELDS, root)
        if root == "workload":
            return self.field(r, path, WORKLOAD_FIELDS, root)
        if root == "namespace":
            return self.field(r, path, NAMESPACE_FIELDS, root)
        close = did_you_mean(root, RESERVED + tuple(self.vars))
        if not close and len(path) > 1 and path[1] in POD_GROUP_FIELDS:
            self.error(BAD_QUANTIFIER_VARIABLE, f"`{root}` is not bound by a quantifier", r.span,
                       help=did_you_mean(root, self.vars) or f"write `all {root} in workload.pod_groups: …`")
            return None
        self.error(UNKNOWN_REFERENCE, f"unknown reference `{text}`", r.span, help=close)
        return None

    def field(self, r: Ref, path: tuple[str, ...], fields: dict[str, object], root: str) -> str | None:
        text = show(r)
        if len(path) == 1:
            self.error(UNKNOWN_REFERENCE, f"`{root}` is not a value; name one of its fields", r.span,
                       help="fields: " + ", ".join(f"`{root}.{f}`" for f in sorted(fields)))
            return None
        name, rest = path[1], path[2:]
        spec = fields.get(name)
        if spec is None:
            self.error(UNKNOWN_REFERENCE, f"`{root}` has no field `{name}`", r.span,
                       help=did_you_mean(name, fields) or "fields: " + ", ".join(f"`{f}`" for f in sorted(fields)))
            return None
        if spec == "flavor?":
            if len(rest) > 1:
                self.error(BAD_INDEX, f"`{text}` takes one resource index", r.span)
                return None
            if rest:
                self.resource(rest[0], r)
            return "flavor"
        if isinstance(spec, tuple):
            _, value, key = spec
            if len(rest) != 1:
                msg = f"`{text}` needs one index" if not rest else f"`{text}` takes one index"
                example = f"{root}.{name}[{'cpu' if key == 'resource' else 'team'}]"
                self.error(BAD_INDEX, msg, r.span, help=f"e.g. `{example}`")
                return None
            if key == "resource":
                self.resource(rest[0], r)
            return value
        if rest:
            self.error(BAD_INDEX, f"`{root}.{name}` is {_LABELS.get(str(spec), spec)}, not a map", r.span)
            return None
        return str(spec)

    def resource(self, name: str, r: Ref) -> None:
        known = known_resources(self.index)
        if known and name not in known:
            self.diags.emit(UNKNOWN_RESOURCE, f"resource `{name}` is not used by any queue, pod set or node",
                            r.span or self.rule.span, help=did_you_mean(name, known), about=about(self.rule))

    # --- comparisons -----------------------------------------------------------------------------
    def unify(self, le: Expr, lt: str, re_: Expr, rt: str, at: Expr) -> str | None:
        """The common type of two compared operands, resolving names against the other side."""
        if lt in ("name", "string_lit") and rt not in ("name", "string_lit"):
            le, lt, re_, rt = re_, rt, le, lt
        if rt == "name":
            if lt == "name":
                hint = did_you_mean(str(getattr(le, "value", "")), RESERVED) or did_you_mean(
                    str(getattr(re_, "value", "")), RESERVED)
                self.error(UNKNOWN_NAME, f"can't tell what `{show(le)}` and `{show(re_)}` name", at.span,
                           help=hint or "compare a reference with a name, e.g. `flavor == h100`")
                return None
            if lt in NAMED:
                return lt if self.resolve(re_, lt) else None
            if lt in ("int", "number"):  # a priority class compares as its value
                return "int" if self.resolve(re_, "priority") else None
            quote = f'; for a string, quote it: `"{show(re_)}"`' if lt in ("string", "string_lit") else ""
            self.error(UNKNOWN_NAME, f"bare name `{show(re_)}` can't be compared with `{show(le)}`, which is "
                       f"{_LABELS.get(lt, lt)}{quote}", re_.span or at.span)
            return None
        if rt == "string_lit":
            if lt in ("string", "string_lit"):
                return "string"
            if lt in NAMED:
                return lt if self.resolve(re_, lt) else None
        if lt == rt:
            return lt
        pair = {lt, rt}
        if pair <= {"int", "priority", "number"}:
            return "int"
        if pair <= {"quantity", "number", "quantity_lit"}:
            return "quantity"
        hint = None
        if "quantity_lit" in pair and pair - {"quantity_lit"} <= {"int", "priority"}:
            hint = "counts and priorities are plain integers; write one without a unit or decimals"
        self.error(INCOMPATIBLE_TYPES, f"can't compare `{show(le)}` ({_LABELS.get(lt, lt)}) with `{show(re_)}` "
                   f"({_LABELS.get(rt, rt)})", at.span, help=hint)
        return None

    def names_object(self, name: str) -> bool:
        idx = self.index
        return any(name in table for table in (idx.flavors, idx.cluster_queues, idx.cohorts,
                                               idx.workload_priority_classes, idx.pod_priority_classes))

    def resolve(self, lit: Expr, t: str) -> bool:
        assert isinstance(lit, Literal_)
        name = str(lit.value)
        idx = self.index
        table: dict | tuple
        if t == "flavor":
            table = idx.flavors
        elif t == "cluster_queue":
            table = idx.cluster_queues
        elif t == "cohort":
            if name == "":
                return True
            table = idx.cohorts
        elif t == "priority":
            table = {**idx.pod_priority_classes, **idx.workload_priority_classes}
        else:
            table = TOPOLOGY_MODES
        if name in table:
            if self.names is not None:
                self.names.append((lit, t))
            return True
        if any(name in idx.broken_keys(kind) for kind in _BROKEN_KINDS.get(t, ())):
            return True  # defined by a statement with errors, reported where it is
        self.error(UNKNOWN_NAME, f"`{name}` is not {_NOUNS[t]}", lit.span,
                   help=did_you_mean(name, table) or _known(t, table))
        return False


# Kinds of objects left out for their errors (`Model.broken`) a bare name of each type may name.
_BROKEN_KINDS = {"flavor": ("ResourceFlavor",), "cluster_queue": ("ClusterQueue",), "cohort": ("Cohort",),
                 "priority": ("WorkloadPriorityClass", "PriorityClass")}
_NOUNS = {"flavor": "a flavor", "cluster_queue": "a cluster queue", "cohort": "a cohort",
          "priority": "a priority class", "topology_mode": "a topology mode"}
_VERB = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


def _known(t: str, table) -> str | None:
    names = sorted(table)
    if not names:
        return f"no {_NOUNS[t][2:]} is defined"
    shown = ", ".join(f"`{n}`" for n in names[:8]) + (", …" if len(names) > 8 else "")
    return f"known: {shown}"


def _bool_help(e: Expr, t: str) -> str | None:
    if t in ("int", "quantity", "number", "quantity_lit"):
        return f"compare it, e.g. `{show(e)} > 0`"
    if t in NAMED or t in ("string", "string_lit"):
        return f"compare it, e.g. `{show(e)} == …`"
    return None
