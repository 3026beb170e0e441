"""`optimal` mode: one global model over every pending workload, optimised lexicographically with CP-SAT.

The model joins each pending workload's own problem (shape, gates, gang sizes, flavor filters and
hard rules; its folded quota bounds are dropped) with Kueue's quota invariants over the cohort tree
for the sum of everything chosen: usage U of a node is a cluster queue's admitted usage plus the
chosen workloads' requests, or a cohort's Σ max0(U_child - G_child); U <= S + borrowing limit at a
node with a parent and a borrowing limit, U <= S at a root. The max0 is relaxed to `e >= U - G,
e >= 0` (it is only bounded above). The invariants hold for a set of workloads exactly when
admitting them one by one, in any order, passes Kueue's available() check each time. A node that
the input already holds above its limit may not grow further: it ends within its limit, or no higher
than with this solution's evictions alone.

Preemption (`optimal_preempt`): an admitted workload that some pending workload may preempt under
Kueue's policies becomes a Boolean `keep` and counts in the invariants only while kept; an eviction
must be matched by a preemptor admitted in the same solution (the module docstring says who may
preempt whom, and where that is looser or stricter than Kueue). Workloads the input marks evicted
release their quota and are pending again, as in `ordered` mode.

Objective, lexicographic: for each effective priority, highest first, the admitted work at that
priority — the number of admitted workloads, then the number of admitted pods (two stages: one
weighted term makes CP-SAT's bound much weaker), counting the kept evictable workloads at their
own priority too, so evicting a priority-10 workload to admit a priority-100 one wins at 100 and is
paid for at 10; then, when anything is evictable, the fewest victims, then the fewest victims at
each priority from the highest, then the fewest evicted pods; then the fewest nodes that placements use
(so the most stay whole); then `preferred` topology pod sets kept in one domain; then the total weight of satisfied `prefer` rules; then flavor order (Σ over pod
sets and resource groups of the chosen flavor's position, minimised).
Unlike `ordered`, queue order, StrictFIFO blocking and greedy flavor assignment play no part:
this is the best that quota, gates and rules allow.

Pod sets that topology-aware scheduling places get pooled node-class counts and topology domains in
the same model (`optimal_place`); stages after the admission and victim stages keep the most nodes
whole and `preferred` pod sets in one domain. Workloads admitted with a recorded placement are never
evicted. The solver starts from the better (by these stages) of Kueue's order (`ordered`, BestFit)
and a greedy first fit in Kueue's order (`greedy`), so its answer is never worse than either. Each
solution is decoded onto nodes (`packing`); a class that can't hold its counts gets a cut and the
model is solved again (at most `MAX_ROUNDS` times, then the lowest-priority workloads whose
placements don't decode are dropped and the result is reported as not proven optimal).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.admission.ordered import Decision
from kadmit.engine.quota import FR, Usage, node_id
from kadmit.engine.admission.session import Assignment
from kadmit.engine.compile.problem import (Compiler, Problem, group_label_keys, selector_conflicts, tas_only,
                                           topology_mismatch, untolerated_taints)
from kadmit.engine.optimal.preemption import Evictable, PreemptionModel
from kadmit.engine.solver import terms as T
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import Model, Workload


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
    base: Usage  # admitted usage from the input (workloads marked evicted left out), milli-units
    hard: list[T.Term] = field(default_factory=list)
    objectives: list[Objective] = field(default_factory=list)
    pools: list[tuple[T.IntVar, T.Term, int]] = field(default_factory=list)  # e >= U - G
    splits: list[tuple[T.IntVar, T.BoolVar, T.IntVar]] = field(default_factory=list)  # nf, flavor, n
    preemption: PreemptionModel | None = None  # the evictable admitted workloads
    fixed: Usage = field(default_factory=Usage)  # `base` less the evictable workloads' usage
    cq_usage: dict[tuple[str, FR], T.Term] = field(default_factory=dict)  # final usage of queues with demand
    own: dict[str, list[T.Term]] = field(default_factory=dict)  # workload key -> its problem's terms
    shared: list[T.Term] = field(default_factory=list)  # quota invariants and preemption links

    @property
    def evictables(self) -> list[Evictable]:
        return self.preemption.evictables if self.preemption is not None else []


def pending_workloads(model: Model) -> list[Workload]:
    """Pending workloads (not admitted, or admitted but marked evicted; not finished), first of each
    key, sorted by key."""
    seen: dict[str, Workload] = {}
    for wl in model.workloads:
        if is_pending(wl):
            seen.setdefault(wl.key, wl)
    return [seen[k] for k in sorted(seen)]


def is_pending(wl: Workload) -> bool:
    """Waiting for admission in this run: not admitted, or admitted but being evicted (its quota is
    released first, as `ordered` mode does)."""
    return not wl.finished and (wl.admission is None or wl.evicted)


def build_global(model: Model, workloads: list[Workload] | None = None,
                 index: ModelIndex | None = None, preemption: bool = True) -> GlobalModel:
    """The solver-neutral global model over `workloads` (default: every pending one); workloads
    without a cluster queue are left out (they can't be admitted). With `preemption`, admitted
    workloads that some of them may preempt become evictable (`optimal_preempt`)."""
    ix = index or ModelIndex(model)
    compiler = Compiler(model, ix)
    base = Usage()
    for wl in sorted(model.workloads, key=lambda w: w.key):
        if wl.admitted and wl.admission is not None and not wl.evicted:
            base.add(wl.admission.cluster_queue, admitted_usage(wl))
    pending = pending_workloads(model) if workloads is None else sorted(workloads, key=lambda w: w.key)
    problems = []
    for wl in pending:
        prob = compiler.problem(wl, base, "folded")
        if prob.cluster_queue is not None:
            problems.append(prob)
    gm = GlobalModel(compiler, problems, {p.workload.key: ix.priority(p.workload) for p in problems}, base)
    for prob in problems:
        own = gm.own[prob.workload.key] = [*prob.structure, *(tr.term for tr in prob.tracked if tr.origin.kind != "quota"),
                                           *(T.not_(pv.skip) for pv in prob.pod_sets)]
        gm.hard.extend(own)
        same = _group_flavors(prob, ix)
        own.extend(same)
        gm.hard.extend(same)
    first_shared = len(gm.hard)
    gm.fixed = base.copy()
    if preemption:
        gm.preemption = PreemptionModel(model, compiler, problems)
        for ev in gm.evictables:
            gm.fixed.add(ev.cluster_queue, {fr: -v for fr, v in ev.amounts.items()})
    _quota_invariants(gm)
    if gm.preemption is not None:
        gm.hard.extend(gm.preemption.links(gm.fixed, gm.cq_usage))
    gm.shared = gm.hard[first_shared:]
    _objectives(gm)
    return gm


def _group_flavors(prob: Problem, ix: ModelIndex) -> list[T.Term]:
    """The pod sets of one pod-set group (Kueue's podSetGroupName) take one flavor per resource group
    they request from (flavorassigner.go: a group is one unit, its flavor chosen on the summed
    requests), and a flavor must suit the group's pod sets that request nothing of its resource group
    too (checkFlavorForPodSets over the group: taints, node selector, the topology-aware match)."""
    members: dict[str, list] = {}
    for pv in prob.pod_sets:
        if pv.pod_set.flavor_group:
            members.setdefault(pv.pod_set.flavor_group, []).append(pv)
    cq = prob.cluster_queue
    out: list[T.Term] = []
    for name in sorted(members):
        pvs = members[name]
        for gi in sorted({gi for pv in pvs for gi in pv.flavors}):
            having = [pv for pv in pvs if gi in pv.flavors]
            first = having[0]
            for pv in having[1:]:
                for (fa, va), (fb, vb) in zip(first.flavors[gi], pv.flavors[gi]):
                    assert fa == fb  # one resource group's flavors, in its order
                    out.append(T.iff(va, vb))
            others = [pv.pod_set for pv in pvs if gi not in pv.flavors]
            if not others or cq is None:
                continue
            covered = cq.resource_groups[gi].covered_resources
            keys = group_label_keys(ix, cq.resource_groups[gi])
            for fname, v in first.flavors[gi]:
                fl = ix.flavors.get(fname)
                if fl is not None and any(untolerated_taints(ps, fl) or selector_conflicts(ps, fl, keys)
                                          or topology_mismatch(ps, fl, ix, tas_only(cq, ix), covered)
                                          for ps in others):
                    out.append(T.not_(v))
    return out


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
    tree = gm.compiler.tree
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
    held: dict[FR, dict[str, list[Evictable]]] = {}  # evictable usage, by queue
    for ev in gm.evictables:
        for fr in ev.amounts:
            held.setdefault(fr, {}).setdefault(node_id(ev.cluster_queue, False), []).append(ev)
    for fr in sorted(demand):
        _invariants_of(gm, fr, demand[fr], upper[fr], held.get(fr, {}))


def _invariants_of(gm: GlobalModel, fr: FR, demand: dict[str, list[T.Term]], upper: dict[str, int],
                   held: dict[str, list[Evictable]]) -> None:
    """The invariants of one flavor-resource at every node above a queue with demand for it (or
    holding evictable usage of it in the same tree)."""
    compiler, tree = gm.compiler, gm.compiler.tree
    fname, res = fr
    u = lambda milli: compiler.units(res, milli)  # noqa: E731
    roots = {tree.root(cq) for cq in demand}
    held = {cq: evs for cq, evs in held.items() if tree.root(cq) in roots}
    affected = {nid for cq in list(demand) + list(held) for nid in tree.path(cq)}
    with_held = {nid for cq in held for nid in tree.path(cq)}
    memo: dict[tuple[str, bool], tuple[T.Term, int]] = {}

    def usage(nid: str, admissions: bool = True) -> tuple[T.Term, int]:
        """Usage of node `nid` as a term, and an upper bound of it; without this solution's
        admissions (evictions only) when `admissions` is off, with an exact max0 at cohorts."""
        if (nid, admissions) in memo:
            return memo[(nid, admissions)]
        node = tree.nodes[nid]
        if not node.is_cohort:
            now = u(gm.fixed.get(node.name, fr))
            kept = [T.ite(ev.keep, u(ev.amounts[fr]), 0) for ev in held.get(nid, [])]
            most = now + sum(u(ev.amounts[fr]) for ev in held.get(nid, []))
            mine = demand.get(nid, []) if admissions else []
            out = (T.add(now, *kept, *mine), most + (upper.get(nid, 0) if admissions else 0))
            if admissions and nid in demand:
                gm.cq_usage[(node.name, fr)] = out[0]
        else:
            parts: list[T.IntLike] = []
            hi = 0
            for ch in node.children:
                g = u(tree.guaranteed(ch, fr))
                if ch in affected:
                    uc, hc = usage(ch, admissions)
                    if admissions:
                        e = T.IntVar(f"pool|{ch}|{fname}|{res}", 0, max(0, hc - g))
                        gm.hard.append(T.cmp(">=", e, T.sub(uc, g)))
                        gm.pools.append((e, uc, g))
                        parts.append(e)
                    else:
                        parts.append(T.max0(T.sub(uc, g)))
                    hi += max(0, hc - g)
                else:
                    v = max(0, u(tree.usage(ch, fr, gm.base)) - g)
                    parts.append(v)
                    hi += v
            out = (T.add(*parts, 0), hi)
        memo[(nid, admissions)] = out
        return out

    for nid in sorted(affected):  # children first, so that `usage` never recurses deeply
        for cur in tree.bottom_up(nid, lambda n: (n, True) in memo):
            if cur in affected and (cur, True) not in memo:
                usage(cur)
    for nid in sorted(affected):
        node = tree.nodes[nid]
        limit = u(tree.subtree(nid, fr))
        if node.parent is not None:
            borrow = tree.entry(nid, fr).borrowing_limit
            if borrow is None:
                continue
            limit += u(borrow)
        now = u(tree.usage(nid, fr, gm.base))
        total = usage(nid)[0]
        if now <= limit:
            gm.hard.append(T.le(total, limit))
        elif nid in with_held:  # over its limit today: within it at the end, or grown by nothing
            for cur in tree.bottom_up(nid, lambda n: (n, False) in memo):
                if cur in affected and (cur, False) not in memo:
                    usage(cur, False)
            gm.hard.append(T.or_(T.le(total, limit), T.le(total, usage(nid, False)[0])))
        else:
            gm.hard.append(T.le(total, now))


def _objectives(gm: GlobalModel) -> None:
    by_level: dict[int, list[Problem]] = {}
    for prob in gm.problems:
        by_level.setdefault(gm.priority[prob.workload.key], []).append(prob)
    pre = gm.preemption
    levels = set(by_level) | set(pre.levels() if pre is not None else [])
    for p in sorted(levels, reverse=True):
        probs = by_level.get(p, [])
        kept = pre.kept_workloads(p) if pre is not None else []
        kept_pods = pre.kept_pods(p) if pre is not None else []
        gm.objectives.append(Objective(f"priority {p}: workloads", "max",
                                       T.lin(*((1, T.ite(prob.admitted, 1, 0)) for prob in probs), *kept)))
        gm.objectives.append(Objective(f"priority {p}: pods", "max",
                                       T.lin(*((1, pv.count) for prob in probs for pv in prob.pod_sets),
                                             *kept_pods)))
    for name, term in (pre.stages() if pre is not None else []):
        gm.objectives.append(Objective(name, "min", term))
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
    gone = {d.key for d in decisions if d.preempted_by and not d.admitted}
    for ev in gm.evictables:
        env[ev.keep.name] = int(ev.key not in gone)
    for nf, v, n in gm.splits:
        env[nf.name] = env[n.name] if env[v.name] else 0
    set_pools(gm, env)
    return env


def empty_hint(gm: GlobalModel) -> dict[str, int]:
    """The assignment that admits nothing and evicts nothing (always feasible)."""
    return hint_from(gm, [])


def set_pools(gm: GlobalModel, env: dict[str, int]) -> None:
    """Set the pool variables to what their usage makes them (in order: inner pools come first)."""
    for e, uc, g in gm.pools:
        env[e.name] = max(0, int(T.evaluate(uc, env)) - g)


def satisfies(terms: list[T.Term], env: dict[str, int]) -> bool:
    """Whether `env` (complete for these terms) satisfies every term."""
    try:
        memo: dict = {}  # the terms are alive throughout: shared subterms are evaluated once
        return all(T.evaluate(t, env, memo) for t in terms)
    except KeyError:
        return False


def decisions_from(gm: GlobalModel, values: dict[str, int]) -> list[Decision]:
    """Decisions for the problems of `gm` from solver values, sorted by workload key (victims are
    `victim_decisions`' to add)."""
    chosen: list[tuple[Problem, Assignment]] = []
    out: list[Decision] = []
    final = gm.base.copy()
    for ev in gm.preemption.victims(values) if gm.preemption is not None else []:
        final.add(ev.cluster_queue, {fr: -v for fr, v in ev.amounts.items()})
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


def victim_decisions(gm: GlobalModel, values: dict[str, int], decisions: dict[str, Decision]) -> list[Decision]:
    """A decision per evicted workload (not admitted, by whom, Kueue's reason), and each victim added
    to its preemptor's `preempted` (sorted by key); `decisions` are the problems' decisions by key."""
    pre = gm.preemption
    out: list[Decision] = []
    if pre is None:
        return out
    memo: dict = {}
    keep: list = []  # terms evaluated with the shared memo stay alive, so their ids stay theirs
    for ev in pre.victims(values):
        got = pre.preemptor(ev, values, gm.fixed, gm.cq_usage, memo, keep)
        by, reason = (got[0].workload.key, got[1]) if got is not None else (None, None)
        out.append(Decision(ev.workload, False, ev.cluster_queue, preempted_by=by, preemption_reason=reason))
        if by is not None and reason is not None:
            decisions[by].preempted.append(pre.victim(ev, reason))
    for d in decisions.values():
        d.preempted.sort(key=lambda v: v.key)
    return out
