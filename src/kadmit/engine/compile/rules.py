"""Compile user rules (`require`, `forbid`, `prefer`) over one workload's choices into tracked terms.

Everything about a workload is known except its choices (admitted, counts, flavors), so most of a
rule folds to constants here; what is left mentions only the problem's own variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kadmit.engine.compile.tracked import Origin, PodSetVars, Problem, Tracked
from kadmit.engine.solver import terms as T
from kadmit.model import Binary, InSet, Literal_, Quantifier, Ref, Rule, Unary
from kadmit.quantity import MILLI
from kadmit.validate import rule_scope



class RuleError(Exception):
    """A rule the engine can't compile (the validator should have reported it)."""


@dataclass(frozen=True)
class Val:
    kind: str  # int, quantity, string, bool, flavor, name, priority, mode
    value: Any  # python constant, a Term, or for flavor: list[(flavor, BoolVar)]
    literal: bool = False

    @property
    def const(self) -> bool:
        return not isinstance(self.value, T.Term) and self.kind != "flavor"


def rule_applies_per_pod_group(rule: Rule) -> bool:
    return rule_scope(rule) == "pod_group"


class RuleCompiler:
    def __init__(self, compiler, prob: Problem) -> None:
        self.c = compiler
        self.p = prob
        self.wl = prob.workload
        self.ix = compiler.index

    # --- references -------------------------------------------------------------------------------

    def ref(self, path: tuple[str, ...], env: dict[str, PodSetVars]) -> Val:
        head, rest = path[0], path[1:]
        if head in env:
            return self.pod_group_ref(env[head], rest)
        if head == "pod_group":
            raise RuleError("`pod_group` used outside a pod-group rule")
        if head == "flavor":
            return self.pod_group_ref(env["pod_group"], ("flavor",) + rest) if "pod_group" in env else self._no_pg()
        if head == "cluster_queue":
            return Val("string", self.p.cluster_queue.name if self.p.cluster_queue else "")
        if head == "cohort":
            return Val("string", (self.p.cluster_queue.cohort or "") if self.p.cluster_queue else "")
        if head == "namespace":
            if rest == ("name",):
                return Val("string", self.wl.namespace)
            if len(rest) == 2 and rest[0] == "labels":
                return Val("string", self.ix.namespace_labels(self.wl.namespace).get(rest[1], ""))
        if head == "workload":
            if rest in (("name",), ("namespace",), ("queue",)):
                return Val("string", getattr(self.wl, rest[0]))
            if rest in (("cluster_queue",), ("cohort",)):
                return self.ref(rest, env)
            if rest == ("priority",):
                return Val("priority", self.ix.priority(self.wl))
            if rest == ("pod_count",):
                return Val("int", T.add(*(pv.count for pv in self.p.pod_sets), 0))
            if len(rest) == 2 and rest[0] == "requests":
                return Val("quantity", T.lin(*((pv.pod_set.requests.get(rest[1], 0), pv.count)
                                               for pv in self.p.pod_sets)))
        raise RuleError(f"unknown reference `{'.'.join(path)}`")

    def _no_pg(self) -> Val:
        raise RuleError("`flavor` used outside a pod-group rule")

    def pod_group_ref(self, pv: PodSetVars, rest: tuple[str, ...]) -> Val:
        ps = pv.pod_set
        if rest == ("name",):
            return Val("string", ps.name)
        if rest == ("count",):
            return Val("int", pv.count)
        if rest == ("max_count",):
            return Val("int", ps.count)
        if rest == ("min_count",):
            return Val("int", ps.min_count if ps.min_count is not None else ps.count)
        if len(rest) == 2 and rest[0] == "requests":
            return Val("quantity", ps.requests.get(rest[1], 0))
        if len(rest) == 2 and rest[0] == "total":
            return Val("quantity", T.scale(ps.requests.get(rest[1], 0), pv.count))
        if rest == ("topology",):
            return Val("mode", ps.topology.mode if ps.topology else "unconstrained")
        if rest == ("topology_level",):
            return Val("string", (ps.topology.level or "") if ps.topology else "")
        if len(rest) == 2 and rest[0] == "node_selector":
            return Val("string", ps.node_selector.get(rest[1], ""))
        if rest == ("flavor",):
            return Val("flavor", [fv for gi in sorted(pv.flavors) for fv in pv.flavors[gi]])
        if len(rest) == 2 and rest[0] == "flavor":
            gi = pv.group_of.get(rest[1])
            return Val("flavor", list(pv.flavors.get(gi, [])) if gi is not None else [])
        raise RuleError(f"unknown pod group field `{'.'.join(rest)}`")

    # --- expressions ------------------------------------------------------------------------------

    def expr(self, e, env: dict) -> Val:
        if isinstance(e, Literal_):
            kind = {"int": "int", "quantity": "quantity", "string": "string", "bool": "bool", "name": "name"}[e.kind]
            return Val(kind, e.value, literal=True)
        if isinstance(e, Ref):
            return self.ref(e.path, env)
        if isinstance(e, Unary):
            a = self.expr(e.arg, env)
            if e.op == "not":
                return Val("bool", not a.value if a.const else T.not_(self.boolean(a)))
            return Val(a.kind, -a.value if a.const else T.scale(-1, a.value), a.literal)
        if isinstance(e, Binary):
            if e.op in ("and", "or", "implies"):
                a, b = self.boolean(self.expr(e.left, env)), self.boolean(self.expr(e.right, env))
                t = {"and": T.and_(a, b), "or": T.or_(a, b), "implies": T.or_(T.not_(a), b)}[e.op]
                return Val("bool", t)
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op in ("+", "-", "*", "/"):
                return self.arith(e.op, a, b)
            return Val("bool", self.compare(e.op, a, b))
        if isinstance(e, InSet):
            a = self.expr(e.elem, env)
            t = T.or_(*(self.compare("==", a, self.expr(i, env)) for i in e.items))
            return Val("bool", T.not_(t) if e.negated else t)
        if isinstance(e, Quantifier):
            if e.domain.path != ("workload", "pod_groups"):
                raise RuleError("quantifiers range over `workload.pod_groups`")
            parts = [self.boolean(self.expr(e.body, {**env, e.var: pv})) for pv in self.p.pod_sets]
            return Val("bool", T.and_(*parts) if e.kind == "all" else T.or_(*parts))
        raise RuleError(f"unsupported expression {type(e).__name__}")

    def boolean(self, v: Val) -> T.Term:
        if v.kind != "bool":
            raise RuleError(f"expected a condition, found a {v.kind}")
        return T.BoolConst(bool(v.value)) if not isinstance(v.value, T.Term) else v.value

    def number(self, v: Val, as_quantity: bool) -> T.IntLike:
        if v.kind == "priority" or v.kind == "int":
            x = v.value
            return x * MILLI if (as_quantity and v.literal) else x
        if v.kind == "quantity":
            return v.value
        if v.kind == "name" and v.literal:
            pc = self.ix.workload_priority_classes.get(v.value) or self.ix.pod_priority_classes.get(v.value)
            if pc is not None:
                return pc.value
        raise RuleError(f"expected a number, found a {v.kind} `{v.value}`")

    def arith(self, op: str, a: Val, b: Val) -> Val:
        q = "quantity" in (a.kind, b.kind)
        x, y = self.number(a, q and a.kind != "quantity" and op in "+-"), self.number(b, q and b.kind != "quantity" and op in "+-")
        kind = "quantity" if q else "int"
        lit = a.literal and b.literal
        if op == "+":
            return Val(kind, x + y if isinstance(x, int) and isinstance(y, int) else T.add(x, y), lit)
        if op == "-":
            return Val(kind, x - y if isinstance(x, int) and isinstance(y, int) else T.sub(x, y), lit)
        if op == "*":
            if isinstance(x, int) and isinstance(y, int):
                if a.kind == "quantity" and b.kind == "quantity":
                    raise RuleError("can't multiply two quantities")
                return Val(kind, x * y, lit)
            if isinstance(x, int):
                return Val(kind, T.scale(x, y))
            if isinstance(y, int):
                return Val(kind, T.scale(y, x))
            raise RuleError("can't multiply two unknowns")
        if isinstance(x, int) and isinstance(y, int) and y != 0:
            return Val(kind if b.kind != "quantity" else "int", x // y, lit)
        raise RuleError("division needs known numbers and a non-zero divisor")

    def compare(self, op: str, a: Val, b: Val) -> T.Term:
        if a.kind == "flavor" or b.kind == "flavor":
            fl, other = (a, b) if a.kind == "flavor" else (b, a)
            if other.kind == "flavor":
                t = T.or_(*(T.and_(v, w) for n1, v in fl.value for n2, w in other.value if n1 == n2))
            else:
                name = str(other.value)
                t = T.or_(*(v for n, v in fl.value if n == name))
            if op == "==":
                return t
            if op == "!=":
                return T.not_(t)
            raise RuleError("flavors compare only with == and !=")
        numeric = {"int", "quantity", "priority"}
        if a.kind in numeric or b.kind in numeric:
            q = "quantity" in (a.kind, b.kind)
            x = self.number(a, q and a.kind != "quantity")
            y = self.number(b, q and b.kind != "quantity")
            if isinstance(x, int) and isinstance(y, int):
                return T.BoolConst(T.evaluate(T.Cmp(op, T.Const(x), T.Const(y)), {}))
            return T.cmp(op, x, y)
        if a.kind == "bool" and b.kind == "bool" and op in ("==", "!="):
            t = T.iff(self.boolean(a), self.boolean(b))
            return t if op == "==" else T.not_(t)
        x, y = str(a.value), str(b.value)
        if op == "==":
            return T.BoolConst(x == y)
        if op == "!=":
            return T.BoolConst(x != y)
        raise RuleError(f"`{op}` compares numbers, not {a.kind} values")


def compile_rules(compiler, prob: Problem) -> list[Tracked]:
    """Hard rules as tracked constraints on `adm`; soft ones are added to `prob.soft`."""

    out: list[Tracked] = []
    rc = RuleCompiler(compiler, prob)
    for rule in compiler.model.rules:
        try:
            negate = rule.kind == "forbid"
            if rule_applies_per_pod_group(rule):
                # checked for each pod set as soon as it takes part in the decision
                parts = []
                for pv in prob.pod_sets:
                    b = rc.boolean(rc.expr(rule.expr, {"pod_group": pv}))
                    parts.append(T.implies(T.not_(pv.skip), T.not_(b) if negate else b))
                body = T.and_(*parts)
            else:
                # checked once the whole workload is decided (no pod set skipped)
                b = rc.boolean(rc.expr(rule.expr, {}))
                whole = T.and_(*(T.not_(pv.skip) for pv in prob.pod_sets))
                body = T.implies(whole, T.not_(b) if negate else b)
        except RuleError:
            continue  # reported by the validator; an ill-typed rule constrains nothing
        verb = {"require": "requires", "forbid": "forbids", "prefer": "prefers"}[rule.kind]
        origin = Origin(f"rule|{rule.name}", "rule", f"rule `{rule.name}` {verb} this", rule.span)
        if rule.kind == "prefer":
            prob.soft.append((origin, rule.weight, T.implies(prob.admitted, body)))
            continue
        out.append(Tracked(origin, T.implies(prob.admitted, body)))
    return out
