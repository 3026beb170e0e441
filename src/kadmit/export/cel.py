"""Rules as CEL: a `require`/`forbid` rule over what a workload and its namespace say, translated to
one standard-CEL expression over the `variables` of a ValidatingAdmissionPolicy (`export.rules`
computes those per kind). Values are kadmit's: quantities as integers of milli-units, priorities
as values, strings as strings; the expression is true when the rule holds.

What a rule reads decides whether the API server can judge it (`needs`): flavors, the cluster queue
and the cohort are known only at admission; the admitted count only for workloads without partial
admission. Semantics follow the engine's rule compiler (`engine.compile.rules`): every part of a
rule is evaluated (no short circuit), a division by zero anywhere leaves the rule unchecked for that
workload, `/` is floor division, a literal integer beside a quantity counts whole units.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from kadmit.index import ModelIndex
from kadmit.model import Binary, Expr, InSet, Literal_, Quantifier, Ref, Rule, Unary
from kadmit.quantity import MILLI

ADMISSION = "admission"  # reads flavors, the cluster queue or the cohort
COUNT = "count"  # reads the count partial admission chooses
_COUNTED = {"count", "total"}


def needs(rule: Rule) -> set[str]:
    """What of the admission a rule reads: ADMISSION, COUNT, or nothing (judged at creation)."""
    out: set[str] = set()

    def walk(e: Expr, bound: frozenset[str]) -> None:
        if isinstance(e, Ref):
            p = tuple(e.path)
            if p[0] in ("cluster_queue", "cohort", "flavor") or p[:2] in (
                    ("workload", "cluster_queue"), ("workload", "cohort")):
                out.add(ADMISSION)
            elif (p[0] == "pod_group" or p[0] in bound) and len(p) > 1:
                if p[1] == "flavor":
                    out.add(ADMISSION)
                elif p[1] in _COUNTED:
                    out.add(COUNT)
            elif p[:2] in (("workload", "pod_count"), ("workload", "requests")):
                out.add(COUNT)
        elif isinstance(e, Unary):
            walk(e.arg, bound)
        elif isinstance(e, Binary):
            walk(e.left, bound)
            walk(e.right, bound)
        elif isinstance(e, InSet):
            walk(e.elem, bound)
            for i in e.items:
                walk(i, bound)
        elif isinstance(e, Quantifier):
            walk(e.body, bound | {e.var})

    walk(rule.expr, frozenset())
    return out


def resources(rule: Rule) -> list[str]:
    """Every resource the rule reads a request of, sorted."""
    out: set[str] = set()

    def walk(e) -> None:
        if isinstance(e, Ref) and len(e.path) == 3 and e.path[1] in ("requests", "total"):
            out.add(e.path[2])
        for child in (getattr(e, "arg", None), getattr(e, "left", None), getattr(e, "right", None),
                      getattr(e, "elem", None), getattr(e, "body", None), *getattr(e, "items", ())):
            if child is not None:
                walk(child)

    walk(rule.expr)
    return sorted(out)


def string(s: str) -> str:
    """A CEL string literal (JSON's escapes are CEL's)."""
    return json.dumps(s)


@dataclass(frozen=True)
class V:
    """A translated operand: CEL text, kadmit's kind, whether it is a literal, its value if constant."""

    text: str
    kind: str  # int, quantity, priority, string, bool, name, mode
    literal: bool = False
    const: object = None
    counted: bool = False  # depends on the admitted count: a variable for the engine


class Vacuous(Exception):
    """A rule the engine's compiler gives up on for every workload (it divides a number that depends on
    the admitted count, or multiplies two such): it constrains nothing."""


class CelError(Exception):
    """A rule that reads something no admission policy can see."""


_IDENT = re.compile(r"[^A-Za-z0-9_]")


class Translator:
    """One rule's CEL. Pod groups are the maps of `variables.podGroups` (`name`, `count`, `minCount`,
    `requests`, `topology`, `topologyLevel`, `nodeSelector`)."""

    def __init__(self, ix: ModelIndex) -> None:
        self.ix = ix
        self.guards: list[str] = []  # CEL conditions under which a division by zero happens

    def var(self, name: str) -> str:
        return "q_" + _IDENT.sub("_", name)

    def rule(self, rule: Rule) -> str:
        """True when `rule` holds for the workload (or is left unchecked by a division by zero)."""
        from kadmit.validate import rule_scope

        self.guards = []
        if rule_scope(rule) == "pod_group":
            body = self.boolean(self.expr(rule.expr, {"pod_group": "pg"}, ["pg"]))
            body = f"variables.podGroups.all(pg, {self._negate(body, rule)})"
        else:
            body = self._negate(self.boolean(self.expr(rule.expr, {}, [])), rule)
        if self.guards:
            return f"({' || '.join(self.guards)}) || {body}"
        return body

    @staticmethod
    def _negate(body: str, rule: Rule) -> str:
        return f"!({body})" if rule.kind == "forbid" else body

    # --- references ---------------------------------------------------------------------------------

    def ref(self, path: tuple[str, ...], env: dict[str, str]) -> V:
        head, rest = path[0], path[1:]
        if head in env:
            return self.pod_group(env[head], rest)
        if head == "namespace":
            if rest == ("name",):
                return V("request.namespace", "string")
            if len(rest) == 2 and rest[0] == "labels":
                key = string(rest[1])
                return V(f"({key} in variables.namespaceLabels ? variables.namespaceLabels[{key}] : \"\")",
                         "string")
        if head == "workload":
            if rest == ("name",):
                return V("variables.name", "string")
            if rest == ("namespace",):
                return V("request.namespace", "string")
            if rest == ("queue",):
                return V("variables.queue", "string")
            if rest == ("priority",):
                return V("variables.priority", "priority")
            if rest == ("pod_count",):
                return V("variables.podCount", "int", counted=True)
            if len(rest) == 2 and rest[0] == "requests":
                return V(f"variables.totalRequests[{string(rest[1])}]", "quantity", counted=True)
        raise CelError(f"`{'.'.join(path)}` is known only at admission")

    def pod_group(self, g: str, rest: tuple[str, ...]) -> V:
        if rest == ("name",):
            return V(f"{g}.name", "string")
        if rest == ("count",):
            return V(f"{g}.count", "int", counted=True)
        if rest == ("max_count",):
            return V(f"{g}.count", "int")
        if rest == ("min_count",):
            return V(f"{g}.minCount", "int")
        if len(rest) == 2 and rest[0] == "requests":
            return V(f"{g}.requests[{string(rest[1])}]", "quantity")
        if len(rest) == 2 and rest[0] == "total":
            return V(f"({g}.requests[{string(rest[1])}] * {g}.count)", "quantity", counted=True)
        if rest == ("topology",):
            return V(f"{g}.topology", "mode")
        if rest == ("topology_level",):
            return V(f"{g}.topologyLevel", "string")
        if len(rest) == 2 and rest[0] == "node_selector":
            key = string(rest[1])
            return V(f"({key} in {g}.nodeSelector ? {g}.nodeSelector[{key}] : \"\")", "string")
        raise CelError(f"`pod_group.{'.'.join(rest)}` is known only at admission")

    # --- expressions ---------------------------------------------------------------------------------

    def expr(self, e: Expr, env: dict[str, str], scope: list[str]) -> V:
        if isinstance(e, Literal_):
            if e.kind == "string":
                return V(string(str(e.value)), "string", True, e.value)
            if e.kind == "bool":
                return V("true" if e.value else "false", "bool", True, e.value)
            if e.kind == "name":
                return V(string(str(e.value)), "name", True, e.value)
            return V(str(e.value), e.kind, True, e.value)
        if isinstance(e, Ref):
            return self.ref(tuple(e.path), env)
        if isinstance(e, Unary):
            a = self.expr(e.arg, env, scope)
            if e.op == "not":
                return V(f"!({self.boolean(a)})", "bool")
            const = -a.const if isinstance(a.const, int) and not isinstance(a.const, bool) else None
            return V(f"(-{a.text})" if const is None else str(const), a.kind, a.literal, const, a.counted)
        if isinstance(e, Binary):
            if e.op in ("and", "or", "implies"):
                a = self.boolean(self.expr(e.left, env, scope))
                b = self.boolean(self.expr(e.right, env, scope))
                return V({"and": f"({a} && {b})", "or": f"({a} || {b})", "implies": f"(!({a}) || {b})"}[e.op],
                         "bool")
            a, b = self.expr(e.left, env, scope), self.expr(e.right, env, scope)
            if e.op in ("+", "-", "*", "/"):
                return self.arith(e.op, a, b, scope)
            return V(self.compare(e.op, a, b), "bool")
        if isinstance(e, InSet):
            a = self.expr(e.elem, env, scope)
            parts = [self.compare("==", a, self.expr(i, env, scope)) for i in e.items]
            t = "(" + " || ".join(parts) + ")" if parts else "false"
            return V(f"!{t}" if e.negated else t, "bool")
        if isinstance(e, Quantifier):
            v = self.var(e.var)
            body = self.boolean(self.expr(e.body, {**env, e.var: v}, scope + [v]))
            return V(f"variables.podGroups.{'all' if e.kind == 'all' else 'exists'}({v}, {body})", "bool")
        raise CelError(f"unsupported expression {type(e).__name__}")

    @staticmethod
    def boolean(v: V) -> str:
        if v.kind != "bool":
            raise CelError(f"expected a condition, found a {v.kind}")
        return v.text

    def number(self, v: V, as_quantity: bool) -> str:
        if v.kind in ("int", "priority"):
            if as_quantity and v.literal:
                return str(v.const * MILLI) if isinstance(v.const, int) else f"({v.text} * {MILLI})"
            return v.text
        if v.kind == "quantity":
            return v.text
        if v.kind == "name" and v.literal:
            pc = self.ix.workload_priority_classes.get(v.const) or self.ix.pod_priority_classes.get(v.const)
            if pc is not None:
                return str(pc.value)
        raise CelError(f"expected a number, found a {v.kind}")

    def arith(self, op: str, a: V, b: V, scope: list[str]) -> V:
        if (op == "/" and (a.counted or b.counted)) or (op == "*" and a.counted and b.counted):
            raise Vacuous
        counted = a.counted or b.counted
        q = "quantity" in (a.kind, b.kind)
        x = self.number(a, q and a.kind != "quantity" and op in "+-")
        y = self.number(b, q and b.kind != "quantity" and op in "+-")
        kind = "quantity" if q else "int"
        lit = a.literal and b.literal
        const = None
        if isinstance(a.const, int) and isinstance(b.const, int) and x.lstrip("-").isdigit() and y.lstrip("-").isdigit():
            xi, yi = int(x), int(y)
            const = {"+": xi + yi, "-": xi - yi, "*": xi * yi}.get(op)
            if op == "/" and yi != 0:
                const = xi // yi
        if op == "/":
            kind = kind if b.kind != "quantity" else "int"
        if const is not None:
            return V(str(const), kind, lit, const)
        if op == "/":
            self._guard(f"{y} == 0", scope)
            text = f"({x} / {y} - (({x} % {y} != 0 && (({x} < 0) != ({y} < 0))) ? 1 : 0))"
            return V(text, kind, lit)
        return V(f"({x} {op} {y})", kind, lit, counted=counted)

    def _guard(self, cond: str, scope: list[str]) -> None:
        """A division by zero anywhere leaves the rule unchecked: the condition, over every pod group
        the enclosing quantifiers (and a pod-group rule) range over."""
        for v in reversed(scope):
            cond = f"variables.podGroups.exists({v}, {cond})"
        self.guards.append(cond)

    def compare(self, op: str, a: V, b: V) -> str:
        numeric = {"int", "quantity", "priority"}
        if a.kind in numeric or b.kind in numeric:
            q = "quantity" in (a.kind, b.kind)
            x = self.number(a, q and a.kind != "quantity")
            y = self.number(b, q and b.kind != "quantity")
            return f"({x} {op} {y})"
        if a.kind == "bool" and b.kind == "bool":
            if op not in ("==", "!="):
                raise CelError("booleans compare only with == and !=")
            return f"({a.text} {op} {b.text})"
        if op not in ("==", "!="):
            raise CelError(f"`{op}` compares numbers, not {a.kind} values")
        return f"({a.text} {op} {b.text})"
