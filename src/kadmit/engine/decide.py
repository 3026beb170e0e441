"""The engine's front door: decide every pending workload, and explain one."""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Literal

from kadmit.effective import effective
from kadmit.engine.admission.checks import held_waiting, mark_checks
from kadmit.engine.admission.loops import PreemptionLoop
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.reasons import KAD503, KAD502, KAD504, KAD534, Reason
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.explain.decision import (WhyResult, explain_decision, finished_slice,  # noqa: F401 (the front door)
                                           union as _union)
from kadmit.engine.explain.reasons import decision_reasons, run_reasons  # noqa: F401 (the front door)
from kadmit.engine.placing.codes import KAD540, KAD541
from kadmit.engine.placing.gangs import decide_gangs
from kadmit.engine.progress import Report
from kadmit.engine.result import AdmitResult
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Model
from kadmit.validate.codes import QUEUE_ORDER_UNKNOWN
from kadmit.placement.tas import Profile

if TYPE_CHECKING:
    from kadmit.engine.explain.fixes import Inputs
    from kadmit.engine.explain.prove import Proving

ModeName = Literal["ordered", "optimal"]
_FRONT_DOOR = {"PartScope", "prove_fixes", "why_scope"}  # kadmit.engine.explain.part's, loaded when first asked


def __getattr__(name: str):
    """The front door's names from the modules only `why` needs: `admit` imports none of them (start-up)."""
    if name in _FRONT_DOOR:
        from kadmit.engine.explain import part
        return getattr(part, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def admit(model: Model, mode: ModeName = "ordered", limits: Limits | None = None,
          time_budget: float = 10.0, tas_profile: Profile = "Mixed", cache: ShapeCache | None = None,
          progress: Report | None = None) -> AdmitResult:
    """Decide every pending workload. `tas_profile` is the topology-aware placement algorithm of
    `ordered` mode (Kueue's profiles; `Mixed` is Kueue's default since v0.15). `cache` shares
    compiled shapes and answers with other runs over the same policy; `progress` is told of every
    scheduling cycle."""
    t0 = time.perf_counter()
    model = effective(model)  # optimal mode reads the model too
    session = Session(model, limits, tas_profile, cache)
    session.progress = progress
    session.keep_journal()  # a pending workload's reasons are those of the state it last met (`run_reasons`)
    loops: list[PreemptionLoop] = []
    decisions = decide_ordered(session, loops=loops)
    reasons = run_reasons(session, decisions)
    solver = {"backend": "z3", "mode": "ordered", **session.stats.as_dict(),
              "seconds": round(time.perf_counter() - t0, 3)}
    result = AdmitResult("ordered", decisions, reasons, solver, any(d.unknown for d in decisions), loops=loops)
    if model.gangs:
        result.gangs = decide_gangs(model, session.pool.free, {n.name: n for n in session.pool.inventory.nodes})
        result.unknown = result.unknown or any(g.unknown for g in result.gangs)
    if mode == "optimal":
        from kadmit.engine.optimal.solve import solve_optimal
        result = solve_optimal(model, result, time_budget=time_budget)
    mark_checks(session.index, result.decisions, session.pool)
    return result


def tie_reasons(session: Session, key: str) -> list[Reason]:
    """Where workload `key` ties with others of its queue on priority and creation time and a job's
    Workload among them is Kueue's to make (KAD260): the order kadmit took them in, which Kueue
    draws at random (the Workloads' UIDs)."""
    from kadmit.validate.ties import tie_of

    t = tie_of(session.index, key)
    if t is None:
        return []
    place = next(i for i, w in enumerate(t.members) if w.key == key) + 1
    others = len(t.members) - 1
    return [Reason(QUEUE_ORDER_UNKNOWN, (
        f"it ties with {others} other pending workload{'' if others == 1 else 's'} of {t.where} on priority "
        f"{t.priority} and creation time {t.stamp()}, and Kueue has yet to make the Workload of "
        f"{'every one' if len(t.made) == len(t.members) else f'{len(t.made)} of them'}: Kueue orders them by "
        f"the Workloads' random UIDs; kadmit took them {t.how} ({t.order(3)}; this one {_ordinal(place)}), one "
        f"of Kueue's orders (KAD260)"))]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def gang_names(model: Model) -> list[str]:
    """The names `why` answers to for gangs kube-scheduler places (not Kueue's workloads)."""
    from kadmit.engine.placing.gangs import instances
    return [(f"{g.namespace}/{g.name}" + (f"#{k.split('#', 1)[1]}" if "#" in k else "")) for k, g, _ in instances(model)]


def why_gang(model: Model, name: str, limits: Limits | None = None, tas_profile: Profile = "Mixed") -> WhyResult:
    """Decide the state (Kueue's admissions take their nodes first), place the gangs in
    kube-scheduler's order, and explain gang `name` with minimal cores over the nodes' capacity."""
    from kadmit.engine.explain.gangs import gang_blame
    session = Session(model, limits, tas_profile)
    try:
        decide_ordered(session, loops=[])
    except SolverUnknown:
        return WhyResult(name, False, None, [Reason(KAD503, "the solver could not decide within its limits")],
                         unknown=True)
    nodes = {n.name: n for n in session.pool.inventory.nodes}
    gangs = decide_gangs(model, session.pool.free, nodes)
    i = next(i for i, g in enumerate(gangs) if g.name == name)
    d = gangs[i]
    where = ", ".join(f"{n}:{k}" for n, k in sorted(d.nodes.items()))
    head = Reason(KAD541 if d.placed else KAD540, f"{d.gang.kind} `{d.name}` ({d.gang.api_version}, minCount "
                  f"{d.min_count}): {d.reason}" + (f" on {where}" if where else ""))
    result = WhyResult(name, d.placed, None, [head], unknown=d.unknown, blame_kind="gang", gang=d)
    if not d.placed and not d.unknown:
        cores, unsat = gang_blame(model, d, nodes, session.pool.placed, gangs[:i])
        result.blame_groups = cores
        result.blame = _union(cores)
    result.solver = session.stats.as_dict()
    return result


def why(model: Model, key: str, limits: Limits | None = None, tas_profile: Profile = "Mixed",
        mode: ModeName = "ordered", time_budget: float = 10.0, inputs: Inputs | None = None,
        proving: Proving | None = None) -> WhyResult:
    """Decide the part of the state that holds workload `key` in `ordered` mode (its cohort tree, and
    every tree sharing nodes with it: `why_scope`), then explain it; with `mode` optimal, also say
    where the optimal assignment decides it differently (KAD534). A gang kube-scheduler places (not
    a Kueue workload) is explained as one (`why_gang`). With `inputs` (the texts and a way to read
    them again after edits), fixes are searched and each is proven by deciding the cluster again
    (the parts a change touches); without, none are offered. `proving`: how many fixes to show (0:
    none searched), the budget of re-decisions, and who to tell of progress (cycles, re-decisions)."""
    if key not in {w.key for w in model.workloads} and key in gang_names(model):
        return why_gang(model, key, limits, tas_profile)
    if mode != "optimal":
        return _why_ordered(model, key, limits, tas_profile, inputs, proving=proving)
    opt = admit(model, "optimal", limits, time_budget, tas_profile)
    mine = next((d for d in opt.decisions if d.key == key), None)

    def redecide(m: Model) -> list[Decision]:  # fixes in optimal mode are proven in optimal mode
        return admit(m, "optimal", limits, time_budget, tas_profile).decisions
    optimal_run = None if mine is None or mine.admitted else (redecide, {d.key: d for d in opt.decisions})
    result = _why_ordered(model, key, limits, tas_profile, inputs, optimal_run, proving)
    if not result.unknown:
        target = next((w for w in model.workloads if w.key == key), None)
        running = bool(target is not None and target.admitted)
        result.reasons.append(Reason(KAD534, compare_modes(result.decision, mine, opt.optimal or {}, running)))
    return result


def compare_modes(ordered: Decision | None, optimal: Decision | None, info: dict, running: bool = False) -> str:
    """One sentence: how the optimal assignment decides the workload, against Kueue's order. A
    workload admitted in the input that a mode leaves alone has no decision there: it stays admitted."""
    def state(d: Decision | None, other: Decision | None) -> tuple[bool, str | None, list[str]]:
        if d is None:  # untouched: as the input has it (`running`: admitted there)
            return running, None, []
        by = d.preempted_by if not d.admitted else None
        return d.admitted, by, sorted(v.key for v in d.preempted) if d.admitted else []

    was, o_by, o_victims = state(ordered, optimal)
    now, p_by, p_victims = state(optimal, ordered)
    proof = "proven optimal" if info.get("proven_optimal") else f"best found, {info.get('status', '?')}"
    if p_by and o_by:
        head = f"evicts it too, for {p_by} (ordered mode: for {o_by})"
    elif p_by:
        head = f"evicts it for {p_by}; ordered mode {'keeps it' if was else 'does not admit it'}"
    elif o_by:
        head = f"{'keeps it' if now else 'does not admit it'}; ordered mode evicts it for {o_by}"
    elif was == now:
        head = ("keeps it admitted too" if running and now else "admits it too" if now
                else "does not admit it either")
    else:
        head = ("admits it (ordered mode does not)" if now else
                "does not admit it (ordered mode does): its quota goes to other work")
    tail = ""
    if o_victims != p_victims:
        tail = f"; its victims: optimal {', '.join(p_victims) or 'none'}, ordered {', '.join(o_victims) or 'none'}"
    return f"optimal mode ({proof}) {head}{tail}"


def _why_ordered(model: Model, key: str, limits: Limits | None, tas_profile: Profile,
                 inputs: Inputs | None = None, optimal: tuple | None = None,
                 proving: Proving | None = None) -> WhyResult:
    """Decide the part of the cluster that holds workload `key` in `ordered` mode (`why_scope`), then
    explain it; fixes are proven in ordered mode, or with `optimal` (a re-decider and the optimal
    run's decisions) in optimal mode."""
    from kadmit.engine.explain.part import PartScope, prove_fixes, why_scope
    from kadmit.engine.explain.prove import Proving

    proving = proving or Proving()
    scope = why_scope(model, key)
    session = Session(scope.model, limits, tas_profile, ShapeCache())  # its shapes serve the fixes' proofs too
    session.progress = proving.progress
    session.keep_journal()  # the state the workload met when it was decided (`explain.met`)
    try:
        loops: list[PreemptionLoop] = []
        decisions = {d.key: d for d in decide_ordered(session, loops=loops)}
        if loops and scope.rest is not None:  # where a loop is caught, and its cycles, read the whole run
            scope = PartScope(model)
            session = Session(model, limits, tas_profile)
            session.progress = proving.progress
            session.keep_journal()
            decisions = {d.key: d for d in decide_ordered(session, loops=[])}
    except SolverUnknown:
        return WhyResult(key, False, None, [Reason(KAD503, "the solver could not decide within its limits")],
                         unknown=True, solver=session.stats.as_dict())
    # a reservation behind admission checks waits for them, as admit marks it: the fixes' side effects
    # compare each workload's state with this run's (`replay.State.waiting`)
    mark_checks(session.index, decisions.values(), session.pool)
    target = session.index.workloads[key]
    if target.admission is not None and not target.finished and key not in decisions \
            and (finished := finished_slice(session, decisions, target)) is not None:
        return finished
    if target.admission is not None and not target.finished and key not in decisions:
        waiting = held_waiting(session.index, target)
        if waiting:
            return WhyResult(key, False, None, [Reason(KAD504, f"quota reserved in ClusterQueue "
                                                       f"{target.admission.cluster_queue} already; not admitted until "
                                                       f"admission check{'s' if len(waiting) > 1 else ''} "
                                                       f"{', '.join(waiting)} {'are' if len(waiting) > 1 else 'is'} "
                                                       "Ready")])
        return WhyResult(key, True, None, [Reason(KAD502, f"already admitted to ClusterQueue "
                                                  f"{target.admission.cluster_queue}")])
    stages = proving.stages
    result = explain_decision(session, decisions, key,
                              ready=None if stages is None else (lambda r: stages("standing", r)))
    result.reasons.extend(tie_reasons(session, key))
    if stages is not None:
        stages("explained", result)
    if inputs is not None and proving.shown > 0 and not result.admitted and not result.unknown \
            and result.decision is not None:
        whole = effective(model)
        if optimal is None:
            rest = None if scope.rest is None else partial(scope.decide_rest, limits, tas_profile)
            prove_fixes(session, decisions, result, inputs, tas_profile, whole=whole, rest=rest, proving=proving)
        else:
            prove_fixes(session, optimal[1], result, inputs, tas_profile, redecide=optimal[0], whole=whole,
                        proving=proving)
    return result
