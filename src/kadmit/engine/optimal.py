"""`optimal` mode: one global model over every pending workload, optimised lexicographically with CP-SAT.

The model joins each pending workload's own problem (shape, gates, gang sizes, flavor filters and
hard rules; its folded quota bounds are dropped) with Kueue's quota invariants over the cohort tree
for the sum of everything chosen: usage U of a node is a cluster queue's admitted usage plus the
chosen workloads' requests, or a cohort's Σ max0(U_child - G_child); U <= S + borrowing limit at a
node with a parent and a borrowing limit, U <= S at a root. The max0 is relaxed to `e >= U - G,
e >= 0` (it is only bounded above). The invariants hold for a set of workloads exactly when
admitting them one by one, in any order, passes Kueue's available() check each time. A node that
the input already holds above its limit may not grow further (its bound is max(limit, usage now)).

Objective, lexicographic: for each effective priority, highest first, the admitted work at that
priority — the number of admitted workloads, then the number of admitted pods (two stages: one
weighted term makes CP-SAT's bound much weaker); then the total weight of satisfied `prefer` rules;
then flavor order (Σ over pod sets and resource groups of the chosen flavor's position, minimised).
Unlike `ordered`, queue order, StrictFIFO blocking and greedy flavor assignment play no part:
this is the best that quota, gates and rules allow.

Pod sets that topology-aware scheduling places get node-class counts and topology domains in the
same model (`optimal_place`); a stage after the admission stages keeps `preferred` pod sets in one
domain. Each solution is decoded onto nodes; a class that can't hold its counts gets a cut and the
model is solved again (at most `MAX_ROUNDS` times, then the lowest-priority workloads whose
placements don't decode are dropped and the result is reported as not proven optimal).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kadmit.diagnostics import register
from kadmit.engine import terms as T
from kadmit.engine.compile import Compiler, Problem
from kadmit.engine.decide import AdmitResult
from kadmit.engine.optimal_place import MAX_ROUNDS, PlacementModel
from kadmit.engine.ordered import Decision
from kadmit.engine.placing import NodePool
from kadmit.engine.quota import FR, Usage, node_id
from kadmit.engine.reasons import Reason
from kadmit.engine.session import Assignment
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import Model, Workload

KAD524 = register("KAD524", "optimal mode chose other work", "error",
                  "Kueue's order admits the workload, but the optimal assignment (most admitted "
                  "workloads, then pods, priority by priority from the highest) uses its quota for "
                  "other workloads.")


class OptimalUnavailable(RuntimeError):
    """OR-tools isn't installed (the `kadmit[optimal]` extra)."""


@dataclass(frozen=True)
class Objective:
    name: str
    sense: str  # "max" or "min"
    term: T.Term


@dataclass
class GlobalModel:
    """Every pending workload's problem, the global quota invariants, and the staged objective."""

    compiler: Compiler
    problems: list[Problem]  # sorted by workload key
    priority: dict[str, int]  # workload key -> effective priority
    base: Usage  # admitted usage from the input, milli-units
    hard: list[T.Term] = field(default_factory=list)
    objectives: list[Objective] = field(default_factory=list)
    pools: list[tuple[T.IntVar, T.Term, int]] = field(default_factory=list)  # e >= U - G
    splits: list[tuple[T.IntVar, T.BoolVar, T.IntVar]] = field(default_factory=list)  # nf, flavor, n


def pending_workloads(model: Model) -> list[Workload]:
    """Pending workloads (not admitted, not finished), first of each key, sorted by key."""
    seen: dict[str, Workload] = {}
    for wl in model.workloads:
        if wl.admission is None and not wl.finished:
            seen.setdefault(wl.key, wl)
    return [seen[k] for k in sorted(seen)]


def build_global(model: Model, workloads: list[Workload] | None = None,
                 index: ModelIndex | None = None) -> GlobalModel:
    """The solver-neutral global model over `workloads` (default: every pending one); workloads
    without a cluster queue are left out (they can't be admitted)."""
    ix = index or ModelIndex(model)
    compiler = Compiler(model, ix)
    base = Usage()
    for wl in sorted(model.workloads, key=lambda w: w.key):
        if wl.admitted and wl.admission is not None:
            base.add(wl.admission.cluster_queue, admitted_usage(wl))
    pending = pending_workloads(model) if workloads is None else sorted(workloads, key=lambda w: w.key)
    problems = []
    for wl in pending:
        prob = compiler.problem(wl, base, "folded")
        if prob.cluster_queue is not None:
            problems.append(prob)
    gm = GlobalModel(compiler, problems, {p.workload.key: ix.priority(p.workload) for p in problems}, base)
    for prob in problems:
        gm.hard.extend(prob.structure)
        gm.hard.extend(tr.term for tr in prob.tracked if tr.origin.kind != "quota")
        gm.hard.extend(T.not_(pv.skip) for pv in prob.pod_sets)
    _quota_invariants(gm)
    _objectives(gm)
    return gm


def _demand(gm: GlobalModel, prob: Problem) -> dict[FR, tuple[T.Term, int]]:
    """What `prob` takes per flavor-resource as a linear term in solver units, with its maximum.

    Equal in value to `prob.requested` (Σ ite(flavor, per_pod·n, 0)) but without products, which
    give CP-SAT a weak relaxation: a gang pod set takes per_pod·count·[flavor]; an elastic one
    splits its count into per-flavor parts nf <= count·[flavor], Σ nf = n."""
    compiler = gm.compiler
    parts: dict[FR, list[tuple[int, T.Term]]] = {}
    upper: dict[FR, int] = {}
    for pv in prob.pod_sets:
        ps = pv.pod_set
        count = max(ps.count, 0)
        gang = ps.min_count is None or ps.min_count >= ps.count
        for gi in sorted(pv.flavors):
            split: list[T.Term] = []
            for fname, v in pv.flavors[gi]:
                if gang:
                    amount: T.Term = T.lin((count, T.ite(v, 1, 0)))
                else:
                    amount = T.IntVar(f"nf|{prob.workload.key}|{ps.name}|{gi}|{fname}", 0, count)
                    gm.hard.append(T.le(amount, T.lin((count, T.ite(v, 1, 0)))))
                    gm.splits.append((amount, v, pv.count))  # type: ignore[arg-type]
                    split.append(amount)
                for res in sorted(r for r, g in pv.group_of.items() if g == gi):
                    per_pod = compiler.units(res, ps.requests[res])
                    parts.setdefault((fname, res), []).append((per_pod, amount))
                    upper[(fname, res)] = upper.get((fname, res), 0) + per_pod * count
            if split:
                gm.hard.append(T.eq(pv.count, T.add(*split)))
    return {fr: (T.lin(*parts[fr]), upper[fr]) for fr in sorted(parts)}


def _quota_invariants(gm: GlobalModel) -> None:
    compiler, tree = gm.compiler, gm.compiler.tree
    demand: dict[FR, dict[str, list[T.Term]]] = {}
    upper: dict[FR, dict[str, int]] = {}
    for prob in gm.problems:
        assert prob.cluster_queue is not None
        cq_nid = node_id(prob.cluster_queue.name, False)
        for fr, (term, most) in _demand(gm, prob).items():
            if tree.entry(cq_nid, fr).declared:  # undeclared ones are held at 0 by the problem
                demand.setdefault(fr, {}).setdefault(cq_nid, []).append(term)
                row = upper.setdefault(fr, {})
                row[cq_nid] = row.get(cq_nid, 0) + most
    for fr in sorted(demand):
        fname, res = fr
        u = lambda milli: compiler.units(res, milli)  # noqa: E731
        affected = {nid for cq in demand[fr] for nid in tree.path(cq)}
        memo: dict[str, tuple[T.Term, int]] = {}

        def usage(nid: str) -> tuple[T.Term, int]:
            """Usage of node `nid` as a term, and an upper bound of it."""
            if nid in memo:
                return memo[nid]
            node = tree.nodes[nid]
            if not node.is_cohort:
                now = u(gm.base.get(node.name, fr))
                out = (T.add(now, *demand[fr].get(nid, [])), now + upper[fr].get(nid, 0))
            else:
                parts: list[T.IntLike] = []
                hi = 0
                for ch in node.children:
                    g = u(tree.guaranteed(ch, fr))
                    if ch in affected:
                        uc, hc = usage(ch)
                        e = T.IntVar(f"pool|{ch}|{fname}|{res}", 0, max(0, hc - g))
                        gm.hard.append(T.cmp(">=", e, T.sub(uc, g)))
                        gm.pools.append((e, uc, g))
                        parts.append(e)
                        hi += max(0, hc - g)
                    else:
                        v = max(0, u(tree.usage(ch, fr, gm.base)) - g)
                        parts.append(v)
                        hi += v
                out = (T.add(*parts, 0), hi)
            memo[nid] = out
            return out

        for nid in sorted(affected):
            node = tree.nodes[nid]
            limit = u(tree.subtree(nid, fr))
            if node.parent is not None:
                borrow = tree.entry(nid, fr).borrowing_limit
                if borrow is None:
                    continue
                limit += u(borrow)
            now = u(tree.usage(nid, fr, gm.base))
            gm.hard.append(T.le(usage(nid)[0], max(limit, now)))


def _objectives(gm: GlobalModel) -> None:
    by_level: dict[int, list[Problem]] = {}
    for prob in gm.problems:
        by_level.setdefault(gm.priority[prob.workload.key], []).append(prob)
    for p in sorted(by_level, reverse=True):
        probs = by_level[p]
        gm.objectives.append(Objective(f"priority {p}: workloads", "max",
                                       T.lin(*((1, T.ite(prob.admitted, 1, 0)) for prob in probs))))
        gm.objectives.append(Objective(f"priority {p}: pods", "max",
                                       T.lin(*((1, pv.count) for prob in probs for pv in prob.pod_sets))))
    soft = [(weight, T.ite(term, 1, 0)) for prob in gm.problems for _, weight, term in prob.soft]
    if soft:
        gm.objectives.append(Objective("prefer rules", "max", T.lin(*soft)))
    order = [(j, T.ite(v, 1, 0)) for prob in gm.problems for pv in prob.pod_sets
             for gi in sorted(pv.flavors) for j, (_, v) in enumerate(pv.flavors[gi]) if j > 0]
    if order:
        gm.objectives.append(Objective("flavor order", "min", T.lin(*order)))


# --- from and to decisions --------------------------------------------------------------------------

def hint_from(gm: GlobalModel, decisions: list[Decision]) -> dict[str, int]:
    """A full assignment of the named variables that admits what `decisions` admit (a start point)."""
    chosen = {d.key: d for d in decisions if d.admitted and d.assignment is not None}
    env: dict[str, int] = {}
    for prob in gm.problems:
        d = chosen.get(prob.workload.key)
        a = d.assignment if d is not None else None
        env[prob.admitted.name] = int(a is not None)
        for pv in prob.pod_sets:
            env[pv.skip.name] = 0
            env[pv.count.name] = a.counts.get(pv.pod_set.name, 0) if a else 0  # type: ignore[union-attr]
            picked = a.flavors.get(pv.pod_set.name, {}) if a else {}
            for gi, choices in pv.flavors.items():
                res = sorted(r for r, g in pv.group_of.items() if g == gi)
                want = picked.get(res[0]) if res else None
                for fname, v in choices:
                    env[v.name] = int(fname == want)
    for nf, v, n in gm.splits:
        env[nf.name] = env[n.name] if env[v.name] else 0
    for e, uc, g in gm.pools:
        env[e.name] = max(0, int(T.evaluate(uc, env)) - g)
    return env


def decisions_from(gm: GlobalModel, values: dict[str, int]) -> list[Decision]:
    """Decisions for the problems of `gm` from solver values, sorted by workload key."""
    chosen: list[tuple[Problem, Assignment]] = []
    out: list[Decision] = []
    final = gm.base.copy()
    for prob in gm.problems:
        assert prob.cluster_queue is not None
        if not values.get(prob.admitted.name):
            out.append(Decision(prob.workload, False, prob.cluster_queue.name))
            continue
        counts: dict[str, int] = {}
        flavors: dict[str, dict[str, str]] = {}
        usage: dict[FR, int] = {}
        for pv in prob.pod_sets:
            n = values[pv.count.name]  # type: ignore[attr-defined]
            counts[pv.pod_set.name] = n
            flavors[pv.pod_set.name] = {}
            for res, gi in sorted(pv.group_of.items()):
                fname = next(f for f, v in pv.flavors[gi] if values.get(v.name))
                flavors[pv.pod_set.name][res] = fname
                usage[(fname, res)] = usage.get((fname, res), 0) + pv.pod_set.requests[res] * n
        a = Assignment(prob.cluster_queue.name, counts, flavors, False, usage)
        final.add(a.cluster_queue, usage)
        chosen.append((prob, a))
        out.append(Decision(prob.workload, True, a.cluster_queue, a))
    tree = gm.compiler.tree
    for _, a in chosen:
        nid = node_id(a.cluster_queue, False)
        # no order among admissions: a workload borrows when its queue ends above nominal where it takes quota
        a.borrowing = any(final.get(a.cluster_queue, fr) > tree.subtree(nid, fr) for fr in sorted(a.usage))
    return out


# --- the mode ---------------------------------------------------------------------------------------

def solve_optimal(model: Model, ordered: AdmitResult, time_budget: float = 10.0,
                  seed: int = 0, workers: int = 1) -> AdmitResult:
    """Decide every pending workload optimally (see the module docstring), starting from the
    `ordered` result; reasons are reused from it where it also leaves a workload out."""
    try:
        from kadmit.engine.cpsat import SolveParams, Stage, StageResult, solve_staged
    except ImportError as exc:
        raise OptimalUnavailable("optimal mode needs OR-tools: install `kadmit[optimal]`") from exc
    t0 = time.perf_counter()
    workloads = [d.workload for d in ordered.decisions if d.cluster_queue is not None]
    gm = build_global(model, workloads)
    pm = PlacementModel(NodePool(model, gm.compiler.index), gm.compiler.index, gm.problems)
    gm.hard.extend(pm.hard)
    stages = [Stage(o.name, o.sense, o.term) for o in gm.objectives]  # type: ignore[arg-type]
    topo = pm.objective()
    if topo is not None:  # after the admission stages, before prefer rules and flavor order
        at = next((i for i, st in enumerate(stages) if not st.name.startswith("priority ")), len(stages))
        stages.insert(at, Stage("preferred topology kept", "max", topo))
    hint = hint_from(gm, ordered.decisions)
    pm.hint(hint, {d.key: d.assignment.placement for d in ordered.decisions
                   if d.admitted and d.assignment is not None and d.assignment.placement is not None})
    cuts: list[T.Term] = []
    rounds = 0
    placements: dict = {}
    while True:
        rounds += 1
        left = max(0.0, time_budget - (time.perf_counter() - t0))
        staged = solve_staged(gm.hard + cuts, stages, left, hint, SolveParams(seed=seed, workers=workers))
        values = staged.values
        if values is None:
            break
        placements, more = pm.decode(values)
        if not more:
            break
        cuts.extend(more)
        if rounds >= MAX_ROUNDS or time.perf_counter() - t0 > time_budget:
            values, placements = _repair(gm, pm, values)
            staged.stages.append(StageResult("placement repair", "feasible", False, None, None, 0.0))
            break
    if values is None:
        status = "unknown"
        values = hint
        placements, more = pm.decode(values)
        if more:
            values, placements = _repair(gm, pm, values)
    else:
        status = "optimal" if staged.proven_optimal else "feasible"
    mine = {d.key: d for d in decisions_from(gm, values)}
    for d in mine.values():
        if d.admitted and d.assignment is not None:
            d.assignment.placement = placements.get(d.key)
    decisions = sorted((mine.get(d.key, d) for d in ordered.decisions), key=lambda d: d.key)
    was = {d.key for d in ordered.decisions if d.admitted}
    now = {d.key for d in decisions if d.admitted}
    reasons = {}
    for d in decisions:
        if d.admitted:
            continue
        if d.key in was:
            reasons[d.key] = [Reason(KAD524, "admitted in Kueue's order, but the optimal assignment gives "
                                     "its quota to other work (more workloads or pods at its priority "
                                     "or above, or an equal optimum that suits lower priorities better)")]
        else:
            reasons[d.key] = list(ordered.reasons.get(d.key, []))
    seconds = round(time.perf_counter() - t0, 3)
    optimal = {
        "status": status,
        "proven_optimal": status == "optimal",
        "stages": [s.as_dict() for s in staged.stages],
        "per_priority": _per_priority(gm, decisions, ordered.decisions),
        "admitted_beyond_ordered": sorted(now - was),
        "not_admitted_vs_ordered": sorted(was - now),
        "seconds": seconds,
        "placement": {"classes": len(pm.classes), "pod_set_options": len(pm.options), "rounds": rounds,
                      "cuts": len(cuts)},
    }
    solver = {"backend": "cp-sat", "mode": "optimal", "seed": seed, "workers": workers,
              "seconds": seconds, "ordered": ordered.solver}
    return AdmitResult("optimal", decisions, reasons, solver, status == "unknown", optimal)


def _repair(gm: GlobalModel, pm: PlacementModel, values: dict[str, int]):
    """Drop admitted workloads, lowest priority first, until every placement decodes onto nodes
    (dropping only frees capacity and quota, so the rest stays valid)."""
    values = dict(values)
    while True:
        placements, cuts = pm.decode(values)
        if not cuts:
            return values, placements
        involved = {o.key for o in pm.options if T.evaluate(o.chosen, values)
                    for cut in cuts for x in _vars(cut) if x in {v.name for v in o.xs.values()}}
        victim = min(sorted(involved), key=lambda k: gm.priority.get(k, 0))
        prob = next(p for p in gm.problems if p.workload.key == victim)
        values[prob.admitted.name] = 0


def _vars(t: T.Term) -> set[str]:
    if isinstance(t, (T.IntVar, T.BoolVar)):
        return {t.name}
    out: set[str] = set()
    for child in getattr(t, "args", ()) or ():
        out |= _vars(child)
    for attr in ("left", "right", "cond", "then", "other", "arg"):
        if hasattr(t, attr):
            out |= _vars(getattr(t, attr))
    if isinstance(t, T.Sum):
        for _, x in t.parts:
            out |= _vars(x)
    return out


def _per_priority(gm: GlobalModel, decisions: list[Decision], ordered: list[Decision]) -> list[dict]:
    rows: dict[int, dict] = {}
    for which, ds in (("", decisions), ("ordered_", ordered)):
        for d in ds:
            p = gm.priority.get(d.key)
            if p is None:
                continue
            row = rows.setdefault(p, {"priority": p, "admitted": 0, "pods": 0,
                                      "ordered_admitted": 0, "ordered_pods": 0})
            if d.admitted and d.assignment is not None:
                row[which + "admitted"] += 1
                row[which + "pods"] += sum(d.assignment.counts.values())
    return [rows[p] for p in sorted(rows, reverse=True)]
