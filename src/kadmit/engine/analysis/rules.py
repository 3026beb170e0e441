"""Rules analysed symbolically: contradictory, always holding, or implied by another rule.

Every hard rule (`require E` as E, `forbid E` as not E) is compiled over a symbolic admitted
workload with one pod group: any namespace and labels, any priority, counts and requests, admitted
to any cluster queue with a non-empty set of that queue's flavors, each resource's total within
what the queue can reach on an empty cluster (nominal plus borrowing). Quantifiers over pod groups
range over its one pod group. Then, with Z3:
- KAD757 the rules (with the quotas) admit no workload at all — a minimal core of rules says which;
- KAD758 a rule holds for every workload — it constrains nothing;
- KAD759 a rule follows from another — the other one is the witness;
- KAD761 the rules leave one cluster queue nothing it could admit — a minimal core of rules says which.
A rule using what this encoding doesn't cover is left out (a note says so).
"""

from __future__ import annotations

import z3

from kadmit.diagnostics import Diagnostic, Diagnostics, Label, Severity
from kadmit.engine.analysis.codes import KAD757, KAD758, KAD759, KAD760, KAD761
from kadmit.engine.quota import QuotaTree, node_id
from kadmit.engine.solver.codes import KAD410
from kadmit.engine.solver.z3backend import Limits
from kadmit.index import ModelIndex
from kadmit.model import Binary, InSet, Literal_, Model, Quantifier, Ref, Rule, Unary
from kadmit.quantity import MILLI


MODES = {"required": 0, "preferred": 1, "unconstrained": 2}


class Unsupported(Exception):
    pass


class _World:
    """The symbolic workload, its pod group and its admission."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.ix = ModelIndex(model)
        self.cqs = sorted(q.name for q in model.cluster_queues)
        self.flavors = sorted({f.name for f in model.flavors} | {fq.flavor for q in model.cluster_queues
                                                                 for g in q.resource_groups for fq in g.flavors})
        self.cohorts = sorted({q.cohort or "" for q in model.cluster_queues} | {c.name for c in model.cohorts} | {""})
        self.cq = z3.Int("cq")
        self.assigned = {f: z3.Bool(f"assigned|{f}") for f in self.flavors}
        self.vars: dict[str, z3.ExprRef] = {}
        self.domain: list[z3.BoolRef] = []

    def var(self, name: str, sort: str) -> z3.ExprRef:
        got = self.vars.get(name)
        if got is None:
            got = self.vars[name] = {"int": z3.Int, "str": z3.String}[sort](name)
            if name.startswith(("requests|", "flavor_r|")):
                self.domain.append(got >= 0)
        return got

    def count(self) -> z3.ArithRef:
        return self.var("count", "int")

    def total(self, res: str) -> z3.ArithRef:
        return self.var(f"requests|{res}", "int") * self.count()

    def flavor_of(self, res: str) -> z3.ArithRef:
        v = self.var(f"flavor_r|{res}", "int")
        return v

    def cohort(self) -> z3.ArithRef:
        expr = z3.IntVal(self.cohorts.index(""))
        for i, name in enumerate(self.cqs):
            c = self.ix.cluster_queues[name].cohort or ""
            expr = z3.If(self.cq == i, self.cohorts.index(c), expr)
        return expr

    def label(self, key: str) -> z3.ExprRef:
        """A namespace label's value ("" when absent, as rules read it)."""
        return self.var("namespace" if key == "kubernetes.io/metadata.name" else f"label|{key}", "str")

    def selected(self, sel) -> z3.BoolRef:
        """The namespace selector holds (match labels and In/NotIn exactly; other operators are left
        unconstrained, which only widens the workloads considered)."""
        if sel is None:
            return z3.BoolVal(False)
        out = [self.label(k) == z3.StringVal(v) for k, v in sorted(sel.match_labels.items())]
        for r in sel.match_expressions:
            if r.operator == "In":
                out.append(z3.Or([self.label(r.key) == z3.StringVal(v) for v in r.values]))
            elif r.operator == "NotIn":
                out += [self.label(r.key) != z3.StringVal(v) for v in r.values]
        return z3.And(out) if out else z3.BoolVal(True)

    def constraints(self) -> list[z3.BoolRef]:
        """What every admitted one-pod-group workload satisfies."""
        out = [self.cq >= 0, self.cq < len(self.cqs), self.count() >= 1]
        out += [self.var("min_count", "int") >= 1, self.var("min_count", "int") <= self.count(),
                self.var("max_count", "int") >= self.count(), self.var("topology", "int") >= 0,
                self.var("topology", "int") <= 2]
        tree = QuotaTree(self.ix)
        for i, name in enumerate(self.cqs):
            cq = self.ix.cluster_queues[name]
            mine = [fq.flavor for g in cq.resource_groups for fq in g.flavors]
            at = self.cq == i
            out.append(z3.Implies(at, self.selected(cq.namespace_selector)))
            out.append(z3.Implies(at, z3.Or([self.assigned[f] for f in mine]) if mine else z3.BoolVal(False)))
            out += [z3.Implies(at, z3.Not(self.assigned[f])) for f in self.flavors if f not in mine]
            covered = {r for g in cq.resource_groups for r in g.covered_resources}
            for key, v in list(self.vars.items()):
                if not key.startswith("requests|"):
                    continue
                res = key.split("|", 1)[1]
                if res not in covered:
                    out.append(z3.Implies(at, v == 0))
                    continue
                group = next(g for g in cq.resource_groups if res in g.covered_resources)
                fv = self.flavor_of(res)
                out.append(z3.Implies(at, z3.Or([fv == self.flavors.index(fq.flavor) for fq in group.flavors])))
                for fq in group.flavors:
                    cap = tree.available(node_id(name, False), (fq.flavor, res), None)
                    out.append(z3.Implies(z3.And(at, fv == self.flavors.index(fq.flavor)),
                                          z3.And(self.assigned[fq.flavor], self.total(res) <= cap)))
        return out + self.domain


class _Encoder:
    def __init__(self, world: _World) -> None:
        self.w = world

    def ref(self, path: tuple[str, ...], env: set[str]) -> tuple[str, object]:
        head, rest = path[0], path[1:]
        if head in env or head == "pod_group":
            return self.pod_group(rest)
        if head == "flavor":
            return self.pod_group(("flavor",) + rest)
        if head == "cluster_queue":
            return ("cq", self.w.cq)
        if head == "cohort":
            return ("cohort", self.w.cohort())
        if head == "namespace":
            if rest == ("name",):
                return ("str", self.w.var("namespace", "str"))
            if len(rest) == 2 and rest[0] == "labels":
                return ("str", self.w.label(rest[1]))
        if head == "workload":
            if rest in (("name",), ("namespace",), ("queue",)):
                return ("str", self.w.var(rest[0], "str"))
            if rest in (("cluster_queue",), ("cohort",)):
                return self.ref(rest, env)
            if rest == ("priority",):
                return ("priority", self.w.var("priority", "int"))
            if rest == ("pod_count",):
                return ("int", self.w.count())
            if len(rest) == 2 and rest[0] == "requests":
                return ("quantity", self.w.total(rest[1]))
        raise Unsupported(".".join(path))

    def pod_group(self, rest: tuple[str, ...]) -> tuple[str, object]:
        w = self.w
        if rest == ("name",):
            return ("str", w.var("pg_name", "str"))
        if rest == ("count",):
            return ("int", w.count())
        if rest in (("min_count",), ("max_count",)):
            return ("int", w.var(rest[0], "int"))
        if len(rest) == 2 and rest[0] == "requests":
            return ("quantity", w.var(f"requests|{rest[1]}", "int"))
        if len(rest) == 2 and rest[0] == "total":
            return ("quantity", w.total(rest[1]))
        if rest == ("topology",):
            return ("mode", w.var("topology", "int"))
        if rest == ("topology_level",):
            return ("str", w.var("topology_level", "str"))
        if len(rest) == 2 and rest[0] == "node_selector":
            return ("str", w.var(f"selector|{rest[1]}", "str"))
        if rest == ("flavor",):
            return ("flavors", None)
        if len(rest) == 2 and rest[0] == "flavor":
            return ("flavor", w.flavor_of(rest[1]))
        raise Unsupported("pod_group." + ".".join(rest))

    def lit(self, e: Literal_, kind: str) -> object:
        w = self.w
        if e.kind == "name":
            name = str(e.value)
            if kind in ("flavor", "flavors"):
                return name
            if kind == "cq":
                return w.cqs.index(name) if name in w.cqs else -1
            if kind == "cohort":
                return w.cohorts.index(name) if name in w.cohorts else -1
            if kind == "priority":
                pc = next((p for p in w.model.priority_classes if p.name == name), None)
                if pc is None:
                    raise Unsupported(name)
                return pc.value
            if kind == "mode":
                return MODES[name]
            raise Unsupported(name)
        if e.kind == "quantity":
            return int(e.value)
        if e.kind == "int":
            return int(e.value) * MILLI if kind == "quantity" else int(e.value)
        if e.kind == "string":
            if kind in ("cq", "cohort", "flavor", "flavors"):
                return self.lit(Literal_(kind="name", value=e.value), kind)
            return z3.StringVal(str(e.value))
        return z3.BoolVal(bool(e.value))

    def term(self, e, env: set[str], want: str = "") -> tuple[str, object]:
        if isinstance(e, Ref):
            return self.ref(e.path, env)
        if isinstance(e, Literal_):
            return (want or e.kind, self.lit(e, want))
        if isinstance(e, Unary):
            k, v = self.term(e.arg, env, want)
            return (k, -v) if e.op == "-" else ("bool", z3.Not(self.boolean(e.arg, env)))
        if isinstance(e, Binary) and e.op in ("+", "-", "*", "/"):
            kl, l = self.term(e.left, env, want if not isinstance(e.left, Literal_) else "")
            kr, r = self.term(e.right, env, kl if isinstance(e.right, Literal_) and e.op in "+-" else "")
            if isinstance(e.left, Literal_) and kr == "quantity" and e.op in "+-":
                kl, l = self.term(e.left, env, "quantity")
            kind = "quantity" if "quantity" in (kl, kr) else "int"
            return (kind, {"+": l + r, "-": l - r, "*": l * r, "/": l / r}[e.op])
        return ("bool", self.boolean(e, env))

    def boolean(self, e, env: set[str]) -> z3.BoolRef:
        if isinstance(e, Literal_) and e.kind == "bool":
            return z3.BoolVal(bool(e.value))
        if isinstance(e, Unary) and e.op == "not":
            return z3.Not(self.boolean(e.arg, env))
        if isinstance(e, Quantifier):
            return self.boolean(e.body, env | {e.var})
        if isinstance(e, InSet):
            k, v = self.term(e.elem, env)
            items = [self._eq(k, v, x, env) for x in e.items]
            got = z3.Or(items) if items else z3.BoolVal(False)
            return z3.Not(got) if e.negated else got
        if isinstance(e, Binary):
            if e.op in ("and", "or", "implies"):
                l, r = self.boolean(e.left, env), self.boolean(e.right, env)
                return {"and": z3.And, "or": z3.Or, "implies": z3.Implies}[e.op](l, r)
            if e.op in ("==", "!="):
                k, v = self.term(e.left, env)
                eq = self._eq(k, v, e.right, env)
                return eq if e.op == "==" else z3.Not(eq)
            if e.op in ("<", "<=", ">", ">="):
                kl, l = self.term(e.left, env)
                kr, r = self.term(e.right, env, kl)
                if isinstance(e.left, Literal_):
                    kl, l = self.term(e.left, env, kr)
                return {"<": l < r, "<=": l <= r, ">": l > r, ">=": l >= r}[e.op]
        if isinstance(e, Ref):
            k, v = self.ref(e.path, env)
            if isinstance(v, z3.BoolRef):
                return v
        raise Unsupported(type(e).__name__)

    def _eq(self, kind: str, v, other, env: set[str]) -> z3.BoolRef:
        if kind == "flavors":  # `flavor == X`: X among the assigned flavors
            ko, o = self.term(other, env, "flavors")
            if not isinstance(o, str):
                raise Unsupported("flavor compared with a non-literal")
            return self.w.assigned.get(o, z3.BoolVal(False))
        if kind == "flavor":
            ko, o = self.term(other, env, "flavor")
            return v == (self.w.flavors.index(o) if isinstance(o, str) and o in self.w.flavors else -1)
        ko, o = self.term(other, env, kind)
        if kind == "bool":
            return v == o
        return v == o


def rule_findings(model: Model, diags: Diagnostics, limits: Limits | None = None) -> None:
    hard = [r for r in model.rules if r.kind in ("require", "forbid")]
    if not hard or not model.cluster_queues:
        return
    limits = limits or Limits()
    world = _World(model)
    enc = _Encoder(world)
    encoded: list[tuple[Rule, z3.BoolRef]] = []
    for r in hard:
        try:
            e = enc.boolean(r.expr, set())
        except (Unsupported, ValueError, KeyError, z3.Z3Exception) as ex:
            diags.add(Diagnostic(KAD760, Severity.NOTE, f"rule `{r.name}` left out of the rule analyses: "
                                 f"`{ex}` isn't encoded", r.span))
            continue
        encoded.append((r, e if r.kind == "require" else z3.Not(e)))
    if not encoded:
        return
    base = world.constraints()

    def solver() -> z3.Solver:
        s = z3.Solver()
        s.set("rlimit", limits.rlimit)
        s.set("timeout", limits.timeout_ms)
        s.set("random_seed", limits.seed)
        s.add(*base)
        return s

    s = solver()
    lits = [z3.Bool(f"rule|{i}") for i in range(len(encoded))]
    for lit, (_, c) in zip(lits, encoded):
        s.add(z3.Implies(lit, c))
    shrunk = [True]  # every core shrink decided (else a core may not be minimal)

    def undecided(what: str, span) -> None:
        diags.add(Diagnostic(KAD410, Severity.ERROR, f"could not decide within the solver's limits {what}",
                             span, help="raise --rlimit or --timeout"))

    def core(extra: list[z3.BoolRef]) -> list[int]:
        """A minimal set of rules unsatisfiable with `extra` (after an unsat check with all of them)."""
        names = {str(c) for c in s.unsat_core()}
        out = [i for i, lit in enumerate(lits) if str(lit) in names] or list(range(len(lits)))
        for i in list(out):  # shrink by deletion: every member matters
            got = s.check(*extra, *[lits[j] for j in out if j != i])
            if got == z3.unsat:
                out.remove(i)
            elif got == z3.unknown:
                shrunk[0] = False
        return out

    def not_minimal() -> tuple[str, ...]:
        return () if shrunk[0] else ("the solver's limits stopped the shrinking: a smaller set may exist",)

    first = s.check(*lits)
    if first == z3.unknown:
        undecided("whether the rules contradict each other (KAD757); the other rule analyses "
                  "(KAD758, KAD759, KAD761) need that answer and were not run", encoded[0][0].span)
        return
    if first == z3.unsat:
        rules = [encoded[i][0] for i in core([])]
        names = ", ".join(f"`{r.name}`" for r in rules)
        what = f"rule {names} can never hold" if len(rules) == 1 else f"rules {names} contradict each other"
        diags.add(Diagnostic(KAD757, Severity.WARNING, f"{what}: no workload any cluster queue could admit "
                             "satisfies them", rules[0].span, help="witness: this minimal set of rules is "
                             "unsatisfiable together with the quotas; remove or relax one",
                             labels=tuple(Label(r.span, f"rule `{r.name}`") for r in rules[1:] if r.span),
                             notes=not_minimal()))
        return  # with contradictory rules every implication holds vacuously
    for i, name in enumerate(world.cqs):
        at = world.cq == i
        cq = world.ix.cluster_queues[name]
        shut = s.check(at, *lits)
        fits = s.check(at) if shut == z3.unsat else None
        if z3.unknown in (shut, fits):
            undecided(f"whether the rules leave cluster queue `{name}` nothing it could admit (KAD761)", cq.span)
            continue
        if shut != z3.unsat or fits != z3.sat:
            continue
        shrunk[0] = True
        rules = [encoded[j][0] for j in core([at])]
        diags.add(Diagnostic(KAD761, Severity.WARNING, f"rules {', '.join(f'`{r.name}`' for r in rules)} leave "
                             f"cluster queue `{name}` nothing it could admit", cq.span,
                             help="witness: without these rules a workload fits the queue's quotas; with them "
                             "no workload satisfies them there",
                             labels=tuple(Label(r.span, f"rule `{r.name}`") for r in rules if r.span),
                             notes=not_minimal()))
    always = set()
    for i, (r, c) in enumerate(encoded):
        got = s.check(z3.Not(c))
        if got == z3.unknown:
            undecided(f"whether rule `{r.name}` always holds (KAD758)", r.span)
        elif got == z3.unsat:
            always.add(i)
            verb = "every workload meets it" if r.kind == "require" else "no workload can trigger it"
            diags.add(Diagnostic(KAD758, Severity.WARNING, f"rule `{r.name}` always holds: {verb}", r.span,
                                 help="witness: its negation is unsatisfiable for every workload any cluster "
                                 "queue could admit"))
    for j, (rj, cj) in enumerate(encoded):
        if j in always:
            continue
        open_pairs = []
        for i, (ri, ci) in enumerate(encoded):
            if i == j or i in always:
                continue
            got = s.check(ci, z3.Not(cj))
            if got == z3.unknown:
                open_pairs.append(ri.name)
                continue
            if got != z3.unsat:
                continue
            back = s.check(cj, z3.Not(ci)) if i > j else None
            if back == z3.unknown:
                open_pairs.append(ri.name)
                continue
            if back == z3.unsat:
                continue  # equivalent: the later one is reported
            diags.add(Diagnostic(KAD759, Severity.WARNING, f"rule `{rj.name}` is implied by rule `{ri.name}`",
                                 rj.span, help=f"witness: every workload that satisfies `{ri.name}` satisfies "
                                 f"`{rj.name}`", labels=(Label(ri.span, f"`{ri.name}` implies it"),) if ri.span else ()))
            break
        else:
            if open_pairs:
                shown = ", ".join(f"`{n}`" for n in open_pairs[:5]) + (
                    f" and {len(open_pairs) - 5} more" if len(open_pairs) > 5 else "")
                undecided(f"whether rule `{rj.name}` is implied by rule {shown} (KAD759)", rj.span)
