"""Solving `optimal` mode: CP-SAT stage by stage from Kueue's order as a hint, decoding onto nodes,
cuts and repair, and the reasons where the optimal assignment decides otherwise than Kueue's order."""

from __future__ import annotations

import time
from dataclasses import dataclass

from kadmit.engine.optimal.codes import KAD524, OptimalUnavailable  # noqa: F401 (raised here, caught by callers)
from kadmit.engine.admission.ordered import Decision
from kadmit.engine.admission.reasons import Reason, preempted_reason
from kadmit.engine.optimal.model import (GlobalModel, build_global, decisions_from, empty_hint, hint_from, is_pending,
                                         satisfies, set_pools, victim_decisions)
from kadmit.engine.optimal.greedy import better, greedy_hint
from kadmit.engine.optimal.packing import Decoded, decode, release
from kadmit.engine.optimal.placement import MAX_ROUNDS, PlacementModel
from kadmit.engine.placing.pool import NodePool
from kadmit.engine.result import AdmitResult
from kadmit.engine.solver import terms as T
from kadmit.identity import repeat_order
from kadmit.index import ModelIndex
from kadmit.model import Model


def solve_optimal(model: Model, ordered: AdmitResult, time_budget: float = 10.0,
                  seed: int = 0, workers: int = 1) -> AdmitResult:
    """Decide every pending workload optimally (see the module docstring), starting from the
    `ordered` result; reasons are reused from it where it also leaves a workload out."""
    try:
        from kadmit.engine.solver.cpsat import SolveParams, Stage, StageResult, solve_staged
    except ImportError as exc:
        raise OptimalUnavailable("optimal mode needs OR-tools: install `kadmit[optimal]`") from exc
    t0 = time.perf_counter()
    # ordered mode also decides the admitted workloads it evicts: only the pending ones are ours
    pending = {d.key for d in ordered.decisions if is_pending(d.workload)}
    workloads = [d.workload for d in ordered.decisions if d.key in pending and d.cluster_queue is not None]
    gm = build_global(model, workloads)
    pool = NodePool(model, gm.compiler.index)
    for wl in sorted(model.workloads, key=lambda w: w.key):
        if wl.admitted and wl.evicted:
            pool.release(wl.key)  # being evicted: its nodes are freed, as in `ordered` mode
    pm = PlacementModel(pool, gm.compiler.index, gm.problems)
    gm.hard.extend(pm.hard)
    stages = [Stage(o.name, o.sense, o.term) for o in gm.objectives]  # type: ignore[arg-type]
    at = next((i for i, st in enumerate(stages) if not st.name.startswith(("priority ", "victims"))),
              len(stages))  # after the admission and victim stages, before prefer rules and flavor order
    topo, used = pm.objective(), pm.nodes_used()
    if topo is not None:
        stages.insert(at, Stage("preferred topology kept", "max", topo))
    if used is not None:
        stages.insert(at, Stage("nodes used", "min", used))
    hint = hint_from(gm, ordered.decisions)
    pm.hint(hint, {(d.key, p.request.pod_set, p.request.flavor): dict(p.nodes) for d in ordered.decisions
                   if d.admitted and d.assignment is not None and d.assignment.placement is not None
                   for p in d.assignment.placement.pod_sets})
    start = "ordered"
    if pm.groups:
        greedy = greedy_hint(gm, pm)
        if greedy is not None and better(stages, greedy, hint):
            hint, start = greedy, "greedy first fit"
    cuts: list[T.Term] = []
    rounds = 0
    placements: dict = {}
    work = 0.0  # CP-SAT's deterministic time so far: the budget is counted in it, not in seconds
    while True:
        rounds += 1
        left = max(0.0, time_budget - work)
        staged = solve_staged(gm.hard + cuts, stages, left, hint, SolveParams(seed=seed, workers=workers))
        work += staged.work
        values = staged.values
        if values is None:
            break
        decoded = decode(pm, values)
        placements = decoded.placements
        if not decoded.cuts and not decoded.short:
            break
        cuts.extend(decoded.cuts)
        if rounds >= MAX_ROUNDS or work > time_budget or not decoded.cuts:
            values, placements = _repair(gm, pm, values)
            staged.stages.append(StageResult("placement repair", "feasible", False, None, None, 0.0))
            break
    if values is None:
        status = "unknown"
        values = _fallback(gm, pm, hint)
        decoded = decode(pm, values)
        placements = decoded.placements
        if decoded.cuts or decoded.short:
            values, placements = _repair(gm, pm, values)
    else:
        status = "optimal" if staged.proven_optimal else "feasible"
    mine = {d.key: d for d in decisions_from(gm, values)}
    for d in mine.values():
        if d.admitted and d.assignment is not None:
            d.assignment.placement = placements.get(d.key)
    evicted = victim_decisions(gm, values, mine)
    decisions = sorted([mine.get(d.key, d) for d in ordered.decisions if d.key in pending] + evicted,
                       key=lambda d: repeat_order(d.key))
    was = {d.key for d in ordered.decisions if d.admitted and d.key in pending}
    now = {d.key for d in decisions if d.admitted}
    reasons = {}
    shim = _IndexView(gm.compiler.index)
    theirs = {d.key: d for d in ordered.decisions}
    for d in decisions:
        if d.admitted:
            continue
        if d.key in theirs and theirs[d.key].unknown:  # its reasons are the ordered run's, which stayed undecided
            d.unknown = True
        if d.preempted_by is not None:
            reasons[d.key] = [preempted_reason(shim, d.cluster_queue or "", d.preempted_by,  # type: ignore[arg-type]
                                               d.preemption_reason or "")]
        else:
            reasons[d.key] = _reasons_vs_ordered(d.key, theirs.get(d.key), ordered.reasons)
    seconds = round(time.perf_counter() - t0, 3)
    victims = sorted(d.key for d in evicted)
    victims_ordered = ordered_victims(ordered.decisions)
    optimal = {
        "status": status,
        "proven_optimal": status == "optimal",
        "stages": [s.as_dict() for s in staged.stages],
        "per_priority": _per_priority(gm, decisions, ordered.decisions),
        "admitted_beyond_ordered": sorted(now - was),
        "not_admitted_vs_ordered": sorted(was - now),
        "victims": victims,
        "victims_ordered": victims_ordered,
        "victims_beyond_ordered": sorted(set(victims) - set(victims_ordered)),
        "victims_spared_vs_ordered": sorted(set(victims_ordered) - set(victims)),
        "ordered_undecided": sorted(d.key for d in ordered.decisions if d.unknown),
        "evictable": len(gm.evictables),
        "seconds": seconds,
        "deterministic_time": round(work, 3),
        "placement": {"classes": len(pm.classes), "pod_set_options": len(pm.options), "pools": len(pm.groups),
                      "start": start, "rounds": rounds, "cuts": len(cuts)},
    }
    solver = {"backend": "cp-sat", "mode": "optimal", "seed": seed, "workers": workers,
              "seconds": seconds, "ordered": ordered.solver}
    # the comparison with ordered mode and the reasons of what waits rest on the ordered run: undecided there, undecided here
    return AdmitResult("optimal", decisions, reasons, solver, status == "unknown" or ordered.unknown, optimal)


OTHER_WORK = ("the optimal assignment gives its quota to other work (more workloads or pods at its "
              "priority or above, admitted ones it keeps instead of preempting them included, or an equal "
              "optimum that suits lower priorities better)")


def _reasons_vs_ordered(key: str, theirs: Decision | None, reasons: dict[str, list[Reason]]) -> list[Reason]:
    """Why a pending workload is left out, next to what the ordered run did with it: its reasons
    where it left it out too, else what optimal mode chose instead."""
    if theirs is None:
        return []
    if theirs.admitted:
        return [Reason(KAD524, f"admitted in Kueue's order, but {OTHER_WORK}")]
    if theirs.preempted_by:
        return [Reason(KAD524, f"admitted in Kueue's order and then preempted by {theirs.preempted_by}; "
                       f"{OTHER_WORK}")]
    if theirs.preempted:
        return [Reason(KAD524, f"Kueue's order preempts {len(theirs.preempted)} workload(s) for it; {OTHER_WORK}")]
    return list(reasons.get(key, []))


def ordered_victims(decisions: list[Decision]) -> list[str]:
    """Workloads the ordered run evicted (named in some preemptor's `preempted`, or evicted by
    someone), whether or not it admitted them again later, sorted."""
    out = {v.key for d in decisions for v in d.preempted}
    out |= {d.key for d in decisions if d.preempted_by}
    return sorted(out)


@dataclass(frozen=True)
class _IndexView:
    """What `reasons.preempted_reason` reads of a session: its index."""

    index: ModelIndex


def _fallback(gm: GlobalModel, pm: PlacementModel, hint: dict[str, int]) -> dict[str, int]:
    """What to report when the solver found nothing in time: the ordered run's admissions and
    evictions (the hint) when they satisfy this model — its victims may have been admitted again
    elsewhere, or evicted under a rule this model is stricter about — else nothing admitted and
    nothing evicted."""
    if satisfies(gm.hard, hint):
        return hint
    empty = empty_hint(gm)
    pm.hint(empty, {})
    return empty


def _repair(gm: GlobalModel, pm: PlacementModel, values: dict[str, int]):
    """Drop admitted workloads, lowest priority first, until every placement decodes onto nodes
    (dropping only frees capacity and quota). A victim whose every preemptor was dropped is kept
    again, and if that breaks a quota invariant the next lowest-priority admission goes too."""
    values = dict(values)
    while True:
        decoded = decode(pm, values)
        placements = decoded.placements
        involved = decoded.involved(pm)
        if involved:
            _drop(gm, pm, values, min(involved, key=lambda k: gm.priority.get(k, 0)), decoded)
            continue
        pre = gm.preemption
        for ev in pre.victims(values) if pre is not None else []:
            if not T.evaluate(pre.link(ev, gm.fixed, gm.cq_usage), values):
                values[ev.keep.name] = 1
        set_pools(gm, values)
        admitted = sorted((p.workload.key for p in gm.problems if values.get(p.admitted.name)),
                          key=lambda k: (gm.priority.get(k, 0), k))
        if not admitted or satisfies(gm.hard, values):
            return values, placements
        _drop(gm, pm, values, admitted[0], decoded)


def _drop(gm: GlobalModel, pm: PlacementModel, values: dict[str, int], key: str, decoded: Decoded) -> None:
    """Leave workload `key` out: every variable of its choice back to nothing, its pods out of its pools."""
    release(pm, decoded, values, key)
    prob = next(p for p in gm.problems if p.workload.key == key)
    values[prob.admitted.name] = 0
    for pv in prob.pod_sets:
        values[pv.count.name] = 0  # type: ignore[attr-defined]
        for choices in pv.flavors.values():
            for _, v in choices:
                values[v.name] = 0
    for nf, v, n in gm.splits:
        values[nf.name] = values.get(n.name, 0) if values.get(v.name) else 0
    set_pools(gm, values)


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
