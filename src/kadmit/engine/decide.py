"""The engine's front door: decide every pending workload, and explain one."""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Literal

from kadmit.effective import effective
from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain.cores import blame_cores, symbolic_problem
from kadmit.engine.explain.fixes import Fix, Inputs, Obstacles, fixes, own_obstacles
from kadmit.engine.explain.proposals import Ask, proven_fixes
from kadmit.engine.explain.prove import Proven, Prover
from kadmit.engine.explain.replay import Baseline, states
from kadmit.engine.explain.placement import PlacementExplanation, explain_placement
from kadmit.engine.admission.codes import KAD535, KAD536
from kadmit.engine.placing.codes import KAD540, KAD541
from kadmit.engine.placing.gangs import GangDecision, decide_gangs
from kadmit.engine.admission.loops import PreemptionLoop
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.parts import split
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                   Victim)
from kadmit.engine.admission.reasons import (KAD501, KAD502, KAD503, KAD510, KAD519, KAD520, KAD523, KAD531, KAD532, KAD534,
                                   Reason,
                                   flavor_reasons, gate_reasons, no_preemption_reasons, placement_reasons,
                                   preempted_reason)
from kadmit.engine.admission.session import Session, ShapeCache, SolverUnknown
from kadmit.engine.optimal.solve import solve_optimal
from kadmit.engine.result import AdmitResult
from kadmit.engine.quota import QuotaTree
from kadmit.engine.solver.z3backend import Limits, make_solver
from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.placement.tas import Profile

ModeName = Literal["ordered", "optimal"]


@dataclass
class WhyResult:
    workload: str
    admitted: bool
    decision: Decision | None
    reasons: list[Reason] = field(default_factory=list)
    blame: list[Origin] = field(default_factory=list)  # every group, flattened
    blame_groups: list[list[Origin]] = field(default_factory=list)  # independent obstacles
    blame_minimal: bool = True
    # what the blame is: "core" (minimal unsat sets), "placement", "preemption" (who evicted whom under
    # which policy), "loop" (the settings and workloads of a preemption loop)
    blame_kind: str = "core"
    blame_complete: bool = True  # every minimal core was found (False: the bound stopped the enumeration)
    fixes: list[Proven] = field(default_factory=list)  # each proven by deciding the cluster again
    candidates: list[Fix] = field(default_factory=list)  # one-workload starting points, never shown
    fixes_checked: int | None = None  # re-decisions made to prove fixes (None: fixes not searched)
    fixes_mode: str = "ordered"  # the mode fixes were proven in
    fixes_notes: list[str] = field(default_factory=list)  # obstacles no change of the input reaches, and why
    unknown: bool = False
    solver: dict = field(default_factory=dict)
    placement: PlacementExplanation | None = None  # quota fits, topology-aware placement doesn't
    gang: GangDecision | None = None  # `why` about a gang kube-scheduler places (not Kueue's)


def admit(model: Model, mode: ModeName = "ordered", limits: Limits | None = None,
          time_budget: float = 10.0, tas_profile: Profile = "Mixed", cache: ShapeCache | None = None) -> AdmitResult:
    """Decide every pending workload. `tas_profile` is the topology-aware placement algorithm of
    `ordered` mode (Kueue's profiles; `Mixed` is Kueue's default since v0.15). `cache` shares
    compiled shapes and answers with other runs over the same policy."""
    t0 = time.perf_counter()
    model = effective(model)  # optimal mode reads the model too
    session = Session(model, limits, tas_profile, cache)
    loops: list[PreemptionLoop] = []
    decisions = decide_ordered(session, loops=loops)
    reasons = {d.key: decision_reasons(session, d) for d in decisions if not d.admitted or d.loop}
    solver = {"backend": "z3", "mode": "ordered", **session.stats.as_dict(),
              "seconds": round(time.perf_counter() - t0, 3)}
    result = AdmitResult("ordered", decisions, reasons, solver, any(d.unknown for d in decisions), loops=loops)
    if model.gangs:
        result.gangs = decide_gangs(model, session.pool.free, {n.name: n for n in session.pool.inventory.nodes})
        result.unknown = result.unknown or any(g.unknown for g in result.gangs)
    if mode == "optimal":
        result = solve_optimal(model, result, time_budget=time_budget)
    return result


def decision_reasons(session: Session, d: Decision) -> list[Reason]:
    """Kueue-style reasons for a workload the run did not admit (against the run's final usage)."""
    wl = d.workload
    if d.loop:
        return [Reason(KAD535 if d.loop.settled else KAD536, d.loop.message())]
    if d.unknown:
        return [Reason(KAD503, "the solver could not decide within its limits")]
    if d.preempted_by:
        return [preempted_reason(session, d.cluster_queue or "", d.preempted_by, d.preemption_reason or "")]
    if d.preempted:
        victims = ", ".join(v.key for v in d.preempted)
        return [Reason(KAD532, f"Pending the preemption of {len(d.preempted)} workload(s): {victims}")]
    out = gate_reasons(session, wl)
    if out:
        return out
    if d.waiting_behind:
        return [Reason(KAD519, f"waiting behind {d.waiting_behind} (StrictFIFO)")]
    return list(session.situations.shared("reasons", wl, lambda: tuple(_quota_reasons(session, wl))))


def _quota_reasons(session: Session, wl) -> list[Reason]:
    """Why the flavors of `wl` don't fit now; the same for every workload in its situation."""
    out = flavor_reasons(session, wl) or placement_reasons(session, wl)
    if any(r.code == KAD510 for r in out):  # only a flavor short of unused quota can need preemption
        out += no_preemption_reasons(session, wl)
    if not out:
        out = _core_reasons(session, wl)
    if not out:
        out = [Reason(KAD523, "the workload fits on its own, but not after the workloads admitted "
                      "before it in Kueue's order")]
    return out


def _core_reasons(session: Session, wl) -> list[Reason]:
    """Where Kueue's own reasons are silent (a user rule, not quota, keeps it out): the first minimal
    core, as a reason naming its rules by name and line."""
    if not session.model.rules:
        return []
    try:
        loaded = session.load(symbolic_problem(session, wl), make_solver(session.limits))
        found = blame_cores(session, loaded, most=1)
    except SolverUnknown:
        return [Reason(KAD503, "the solver could not decide within its limits")]
    if not found.cores:
        return []
    core = found.cores[0].origins
    rules = [o for o in core if o.kind == "rule"]
    if not rules:
        return []
    named = [_rule_name(o) for o in rules]
    rest = [o.message for o in core if o.kind != "rule"]
    if len(rules) == 1 and not rest:
        text = f"{named[0]} forbids every assignment"
    elif not rest:
        text = "rules " + ", ".join(n.removeprefix("rule ") for n in named[:-1]) + " and " \
            + named[-1].removeprefix("rule ") + " together forbid every assignment"
    else:
        text = " and ".join(named) + " forbid" + ("s" if len(named) == 1 else "") \
            + " every assignment that is left: " + "; ".join(rest)
    return [Reason(KAD520, text)]


def _rule_name(o: Origin) -> str:
    """`rule `x` (rules.kad:13)`, from a rule origin."""
    name = o.message.partition("` ")[0] + "`"
    return name + (f" ({o.span.file}:{o.span.line})" if o.span else "")


def _rule_text(o: Origin) -> str:
    """`rule `x` forbids this` with the rule's line: `rule `x` (rules.kad:13) forbids this`."""
    where = f" ({o.span.file}:{o.span.line})" if o.span else ""
    name, _, verb = o.message.partition("` ")
    return f"{name}`{where} {verb}" if verb else o.message + where


def _explain_strict_fifo(session: Session, decisions: dict[str, Decision], d: Decision, result: WhyResult,
                         depth: int) -> None:
    """A workload behind a StrictFIFO head that can't be admitted: each of the head's own cores (found
    the same way, recursively) with the queue's strategy and the head's place ahead of it, and then
    the workload's own cores — what would still keep it out once the head is gone."""
    head = session.index.workloads[d.waiting_behind or ""]
    cq = session.index.cluster_queues[d.cluster_queue or ""]
    chain = [
        Origin(f"queue|strategy|{cq.name}", "queueing", f"cluster queue `{cq.name}` uses StrictFIFO: an older "
               "workload that can't be admitted blocks the ones behind it",
               cq.field_span("queueing_strategy") or cq.span),
        Origin(f"queue|head|{head.key}", "head", f"`{head.key}` is ahead of it in the queue (priority "
               f"{session.index.priority(head)}, created {head.created.isoformat()}) and can't be admitted",
               head.span),
    ]
    head_groups: list[list[Origin]] = []
    if depth < 4:
        inner = explain_decision(session, decisions, head.key, depth + 1)
        if inner.unknown:
            result.unknown = True
        for g in inner.blame_groups or ([inner.blame] if inner.blame else []):
            head_groups.append([replace(o, id=f"head|{head.key}|{o.id}", message=f"(`{head.key}`) {o.message}")
                                for o in g])
    groups = [chain + g for g in head_groups] or [chain]
    try:
        loaded = session.load(symbolic_problem(session, d.workload), make_solver(session.limits))
        own = blame_cores(session, loaded)
        groups += [list(c.origins) for c in own.cores]
        result.blame_complete = own.complete
    except SolverUnknown:
        result.unknown = True
    result.blame_groups = groups
    result.blame = _union(groups)
    result.blame_kind = "queue"



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
        mode: ModeName = "ordered", time_budget: float = 10.0, inputs: Inputs | None = None) -> WhyResult:
    """Decide the part of the state that holds workload `key` in `ordered` mode (its cohort tree, and
    every tree sharing nodes with it: `why_scope`), then explain it; with `mode` optimal, also say
    where the optimal assignment decides it differently (KAD534). A gang kube-scheduler places (not
    a Kueue workload) is explained as one (`why_gang`). With `inputs` (the texts and a way to read
    them again after edits), fixes are searched and each is proven by deciding the cluster again
    (the parts a change touches); without, none are offered."""
    if key not in {w.key for w in model.workloads} and key in gang_names(model):
        return why_gang(model, key, limits, tas_profile)
    if mode != "optimal":
        return _why_ordered(model, key, limits, tas_profile, inputs)
    opt = admit(model, "optimal", limits, time_budget, tas_profile)
    mine = next((d for d in opt.decisions if d.key == key), None)

    def redecide(m: Model) -> list[Decision]:  # fixes in optimal mode are proven in optimal mode
        return admit(m, "optimal", limits, time_budget, tas_profile).decisions
    proving = None if mine is None or mine.admitted else (redecide, {d.key: d for d in opt.decisions})
    result = _why_ordered(model, key, limits, tas_profile, inputs, proving)
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
                 inputs: Inputs | None = None, optimal: tuple | None = None) -> WhyResult:
    """Decide the part of the cluster that holds workload `key` in `ordered` mode (`why_scope`), then
    explain it; fixes are proven in ordered mode, or with `optimal` (a re-decider and the optimal
    run's decisions) in optimal mode."""
    scope = why_scope(model, key)
    session = Session(scope.model, limits, tas_profile)
    try:
        loops: list[PreemptionLoop] = []
        decisions = {d.key: d for d in decide_ordered(session, loops=loops)}
        if loops and scope.rest is not None:  # where a loop is caught, and its cycles, read the whole run
            scope = PartScope(model)
            session = Session(model, limits, tas_profile)
            decisions = {d.key: d for d in decide_ordered(session, loops=[])}
    except SolverUnknown:
        return WhyResult(key, False, None, [Reason(KAD503, "the solver could not decide within its limits")],
                         unknown=True, solver=session.stats.as_dict())
    target = session.index.workloads[key]
    if target.admission is not None and not target.finished and key not in decisions:
        return WhyResult(key, True, None, [Reason(KAD502, f"already admitted to ClusterQueue "
                                                  f"{target.admission.cluster_queue}")])
    result = explain_decision(session, decisions, key)
    if inputs is not None and not result.admitted and not result.unknown and result.decision is not None:
        whole = effective(model)
        if optimal is None:
            rest = None if scope.rest is None else partial(scope.decide_rest, limits, tas_profile)
            prove_fixes(session, decisions, result, inputs, tas_profile, whole=whole, rest=rest)
        else:
            prove_fixes(session, optimal[1], result, inputs, tas_profile, redecide=optimal[0], whole=whole)
    return result


@dataclass
class PartScope:
    """What `why` decides: the model of the part of the cluster that holds the workload
    (`engine.admission.parts`: its cohort tree, with every tree sharing nodes with it), and the rest
    of the cluster, decided only when proving a fix needs it (None: `model` is the whole cluster)."""

    model: Model
    rest: Model | None = None
    whole: Model | None = None

    def decide_rest(self, limits: Limits | None, tas_profile: Profile) -> dict[str, Decision]:
        """The rest's decisions; when a preemption loop shows there, the whole cluster's (a loop is
        caught, and the run stops, where the whole run's state repeats)."""
        assert self.rest is not None
        loops: list[PreemptionLoop] = []
        got = decide_ordered(Session(self.rest, limits, tas_profile), loops=loops)
        if loops:
            got = decide_ordered(Session(self.whole or self.model, limits, tas_profile), loops=[])
        return {d.key: d for d in got}


def why_scope(model: Model, key: str) -> PartScope:
    """The part `why` decides for workload `key` (the whole model with user rules, which may read
    anything in the cluster, or when there is nothing to leave out)."""
    index = ModelIndex(model)
    wl = index.workloads.get(key)
    if wl is None:
        raise KeyError(key)
    if model.rules:
        return PartScope(model)
    found = split(model, index, QuotaTree(index), holders=True)
    mine = found.part_of(wl)
    others = found.parts() - {mine}
    rest = found.slice(model, others)
    if not any(getattr(rest, name) for name in ("cluster_queues", "workloads")):
        return PartScope(model)
    return PartScope(found.slice(model, {mine}), rest, model)


def prove_fixes(session: Session, decisions: dict[str, Decision], result: WhyResult, inputs: Inputs,
                tas_profile: Profile = "Mixed", incremental: bool = True, redecide=None,
                whole: Model | None = None, rest=None) -> None:
    """Search fixes for a workload the run did not admit, each proven by deciding again (in ordered
    mode, re-deciding the touched cohort trees; with `redecide`, by calling it on the edited model).
    `whole`: the whole cluster (effective), when the session holds only the workload's part; `rest`:
    then a function deciding the rest (`decisions` are the part's alone)."""
    d = result.decision
    assert d is not None
    target = session.index.workloads[result.workload]
    model = whole if whole is not None else session.model
    base = Baseline(model, dict(decisions))
    if rest is not None:
        prover: Prover = PartProver(base, inputs.reload, target.key, session.limits, tas_profile,
                                    incremental=incremental, redecide=redecide, decided=frozenset(decisions),
                                    rest=rest)
    else:
        prover = Prover(base, inputs.reload, target.key, session.limits, tas_profile, incremental=incremental,
                        redecide=redecide)
    head = None
    own = Obstacles(list(result.blame), list(result.candidates), list(result.blame_groups),
                    result.placement.pod_set if result.placement is not None else None)
    if d.waiting_behind:
        head = own_obstacles(session, session.index.workloads[d.waiting_behind])
        own = own_obstacles(session, target)
    ask = Ask(target, own, head, d.cluster_queue)
    # The loaded model and the run live on through every re-decision: the cyclic garbage collector
    # leaves them out while proving (each full collection would walk them again), and takes them back after.
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    try:
        result.fixes = proven_fixes(prover, model, inputs.sources, ask, session.compiler.scale)
    except SolverUnknown:
        prover.unknown = True
    finally:
        if frozen:
            gc.unfreeze()
    result.fixes_checked = prover.tried
    result.fixes_notes = list(prover.notes)
    result.fixes_mode = "ordered" if redecide is None else "optimal"
    result.unknown = result.unknown or prover.unknown


@dataclass
class PartProver(Prover):
    """A prover whose baseline decided only the target's part (`decided`: those workloads; every
    other workload's baseline state is its input's). A re-decision that reaches outside the part
    (a change to something every part reads, or one joining parts) decides the rest once (`rest`)
    and puts its states in the baseline and in every re-decision made before, in place of the
    input's: then every comparison is the one the whole cluster's run gives."""

    decided: frozenset = frozenset()
    rest: Callable[[], dict[str, Decision]] | None = None

    def replay(self, changes):
        r = super().replay(changes)
        if r is not None and self.rest is not None and self._reaches_out(r):
            self._complete()
        return r

    def _reaches_out(self, r) -> bool:
        """Whether `r` re-decided a workload outside the part: outside it, a workload not re-decided
        keeps the baseline's very state object (`replay.decide_again`)."""
        if r.whole:
            return True
        before = self.base.states
        return any(s is not before.get(k) for k, s in r.states.items() if k not in self.decided)

    def _complete(self) -> None:
        assert self.rest is not None
        old = self.base.states
        for k, d in self.rest().items():  # a key in both is a duplicate (the validator reports it): the part's stands
            self.base.decisions.setdefault(k, d)
        self.base.states = new = states(self.base.model, self.base.decisions)
        self.rest = None
        for r in self.cache.values():
            if r is not None:
                for k, s in r.states.items():
                    if k not in self.decided and s is old.get(k) and k in new:
                        r.states[k] = new[k]


def explain_decision(session: Session, decisions: dict[str, Decision], key: str, depth: int = 0) -> WhyResult:
    """Explain one decision of a run in a warm session (the session is left as it was)."""
    target = session.index.workloads[key]
    d = decisions.get(key)
    if d is None:
        return WhyResult(key, False, None, [Reason(KAD501, "the workload is finished")])
    if d.loop:
        blame = [Origin(f"loop|{r.cluster_queue}|{r.field}", "preemption", r.text, r.span) for r in d.loop.rules]
        blame += [Origin(f"loop|{w}", "workload", f"`{w}` is evicted or preempts in the loop",
                         session.index.workloads[w].span) for w in d.loop.workloads]
        return WhyResult(key, d.admitted, d, decision_reasons(session, d), blame=blame, unknown=True,
                         solver=session.stats.as_dict(), blame_kind="loop")
    if d.admitted:
        assert d.assignment is not None
        session.finish(key)  # explain against the state without its own usage
        try:
            skipped = flavor_reasons(session, target, stop_at=d.assignment.flavors)
        finally:
            session.commit(target, d.assignment)
        flavors = ", ".join(f"{ps}: " + ", ".join(f"{r}={f}" for r, f in sorted(fl.items()))
                            for ps, fl in sorted(d.assignment.flavors.items()))
        head = Reason(KAD502, f"admitted to ClusterQueue {d.cluster_queue} with {flavors}"
                      + (" (borrowing)" if d.assignment.borrowing else ""))
        out = WhyResult(key, True, d, [head] + skipped, solver=session.stats.as_dict())
        if d.preempted:
            out.reasons += [Reason(KAD502, f"it preempted {v.key} (priority {v.priority}, ClusterQueue "
                                   f"{v.cluster_queue}): {_why_victim(session, target, v)}") for v in d.preempted]
            out.blame = _preemption_origins(session, target, d.preempted)
            out.blame_kind = "preemption"
        return out

    if d.preempted_by or d.preempted:
        result = WhyResult(key, False, d, decision_reasons(session, d), solver=session.stats.as_dict(),
                           blame_kind="preemption")
        if d.preempted_by:
            by = session.index.workloads.get(d.preempted_by)
            v = Victim(key, d.cluster_queue or "", d.preemption_reason or "", session.index.priority(target))
            if by is not None:
                result.reasons.append(Reason(KAD531, _why_victim(session, by, v)))
                result.blame = _preemption_origins(session, by, [v])
        else:
            result.blame = _preemption_origins(session, target, d.preempted)
        return result

    result = WhyResult(key, False, d, decision_reasons(session, d), unknown=d.unknown)
    if d.unknown:
        result.solver = session.stats.as_dict()
        return result
    if d.waiting_behind:
        _explain_strict_fifo(session, decisions, d, result, depth)
        result.solver = session.stats.as_dict()
        return result
    if not gate_reasons(session, target):
        try:
            placement = explain_placement(session, target)
        except SolverUnknown:
            result.unknown = True
            result.solver = session.stats.as_dict()
            return result
        if placement is not None:  # quota fits at the final state; the nodes don't
            result.reasons = decision_reasons(session, d)  # the failure as it stands now
            result.placement = placement
            result.blame_kind = "placement"
            result.blame = list(placement.blame)
            result.blame_groups = [list(c) for c in placement.cores]
            result.candidates = list(placement.fixes)
            result.solver = session.stats.as_dict()
            return result
    try:
        loaded = session.load(symbolic_problem(session, target), make_solver(session.limits))
        found = blame_cores(session, loaded)
        if found.cores:
            result.blame_groups = [list(c.origins) for c in found.cores]
            result.blame = _union(result.blame_groups)
            result.blame_complete = found.complete
            result.candidates = fixes(session, loaded, result.blame)
    except SolverUnknown:
        result.unknown = True
    if not result.blame and not result.unknown:
        result.reasons.append(Reason(KAD523, "with today's usage the workload fits on its own; it waited "
                                     "for workloads ahead of it in Kueue's order"))
    if any(o.kind == "rule" for o in result.blame) and not any(r.code == KAD520 for r in result.reasons):
        result.reasons += [Reason(KAD520, _rule_text(o)) for o in result.blame if o.kind == "rule"]
    result.solver = session.stats.as_dict()
    return result


def _union(groups: list[list[Origin]]) -> list[Origin]:
    """Every origin of the groups once, in order of first appearance."""
    seen: dict[str, Origin] = {}
    for g in groups:
        for o in g:
            seen.setdefault(o.id, o)
    return list(seen.values())


def _why_victim(session: Session, preemptor, v: Victim) -> str:
    """Which policy of the preemptor's queue let it evict `v`, in words, with the priorities."""
    cq = session.index.cluster_queue_of(preemptor)
    p = cq.preemption if cq is not None else None
    prio = session.index.priority(preemptor)
    if p is None:
        return v.reason
    if v.reason == IN_CLUSTER_QUEUE:
        return (f"same ClusterQueue, withinClusterQueue: {p.within_cluster_queue} "
                f"(priority {prio} over {v.priority})")
    if v.reason == IN_COHORT_FAIR_SHARING:
        return f"fair sharing in the cohort: ClusterQueue {v.cluster_queue} had the larger share of what it borrowed"
    if v.reason == IN_COHORT_RECLAIM_WHILE_BORROWING:
        bwc = p.borrow_within_cohort
        threshold = f", maxPriorityThreshold {bwc.max_priority_threshold}" if bwc and bwc.max_priority_threshold \
            is not None else ""
        return (f"ClusterQueue {v.cluster_queue} was borrowing; borrowWithinCohort: "
                f"{bwc.policy if bwc else 'Never'}{threshold} (priority {prio} over {v.priority})")
    return (f"ClusterQueue {v.cluster_queue} was borrowing quota that {cq.name} is owed; reclaimWithinCohort: "
            f"{p.reclaim_within_cohort} (priority {prio} over {v.priority})")


def _preemption_origins(session: Session, preemptor, victims: list[Victim]) -> list[Origin]:
    """The policy statement of the preemptor's queue and the victims, with their spans."""
    cq = session.index.cluster_queue_of(preemptor)
    out: list[Origin] = []
    if cq is not None:
        p = cq.preemption
        text = (f"cluster queue `{cq.name}` preemption: withinClusterQueue {p.within_cluster_queue}, "
                f"reclaimWithinCohort {p.reclaim_within_cohort}"
                + (f", borrowWithinCohort {p.borrow_within_cohort.policy}" if p.borrow_within_cohort else ""))
        out.append(Origin("preempt|policy", "preemption", text, cq.field_span("preemption") or cq.span))
    out.append(Origin("preempt|preemptor", "preemptor", f"`{preemptor.key}` (priority "
                      f"{session.index.priority(preemptor)}) needed the quota", preemptor.span))
    for v in victims:
        wl = session.index.workloads.get(v.key)
        span = wl.admission.span if wl is not None and wl.admission is not None and wl.admission.span else (
            wl.span if wl is not None else None)
        out.append(Origin(f"preempt|victim|{v.key}", "victim", f"`{v.key}` (priority {v.priority}) held quota in "
                          f"ClusterQueue {v.cluster_queue}: {v.reason}", span))
    return out
