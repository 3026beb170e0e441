"""Explaining one decision of a run: Kueue's reasons (`explain.reasons`) with where the workload stands, and
blame as minimal cores (quota and rules), placement, preemption or the StrictFIFO head a workload waits behind."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from kadmit.engine.admission.checks import mark_one
from kadmit.engine.admission.codes import KAD504, KAD539
from kadmit.engine.admission.ordered import Decision
from kadmit.engine.admission.reasons import (KAD501, KAD502, KAD519, KAD520, KAD523, KAD531, Reason, flavor_reasons,
                                             gate_reasons, preempted_reason)
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.engine.admission.slices import GATE as SLICES_GATE
from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain.replacing import Replacing, as_replacement, replaced_slice
from kadmit.engine.explain.reasons import (QUOTA_REASONS, decision_reasons, fitted, queue_strategy,
                                           refused_by_fits, rule_text, waiting_behind)
from kadmit.engine.placing.gangs import GangDecision
from kadmit.engine.preemption.candidates import Victim
from kadmit.engine.solver.z3backend import make_solver
from kadmit.featuregates import enabled
from kadmit.identity import kueue_key

if TYPE_CHECKING:  # `admit` reads Kueue's reasons from here; blame, fixes, placement and standing load when asked
    from kadmit.engine.explain.digest import BlameSet
    from kadmit.engine.explain.fixes import Fix
    from kadmit.engine.explain.placement import PlacementExplanation
    from kadmit.engine.explain.prove import Proven
    from kadmit.engine.explain.standing import Standing
    from kadmit.model import Workload


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
    fixes_refused: int = 0  # changes refused by arithmetic (`bounds`), not decided again
    fixes_found: int = 0  # fixes proven (`fixes` shows the best of them)
    fixes_complete: bool = True  # every candidate was decided within the budget and every fix found is shown
    candidates_tried: int = 0  # candidate changes decided again (each a set of places in the input)
    fixes_mode: str = "ordered"  # the mode fixes were proven in
    fixes_notes: list[str] = field(default_factory=list)  # obstacles no change of the input reaches, and why
    unknown: bool = False
    solver: dict = field(default_factory=dict)
    placement: PlacementExplanation | None = None  # quota fits, topology-aware placement doesn't
    gang: GangDecision | None = None  # `why` about a gang kube-scheduler places (not Kueue's)
    standing: Standing | None = None  # what it needs and can reach, its place in line, who held its quota
    met: bool = False  # explained at the state it met when Kueue last tried it (else the run's end state)
    # behind a StrictFIFO head: the workload's own problem as loaded at the run's end state and its blame
    # cores there (`fixes.Obstacles` are built from them when fixes are searched, not found again)
    own_cores: tuple | None = field(default=None, compare=False, repr=False)
    # an admitted slice of an elastic job that Kueue finishes in the run, replaced by its job's new slice (this key):
    # not admitted, holding no quota after that (`replacing.finished_slice`)
    replaced_by: str | None = None

    @property
    def blame_sets(self) -> list[BlameSet]:
        """The blame's groups said in lines, groups that differ only by resource as one."""
        from kadmit.engine.explain.digest import merge
        return merge(self.blame_groups or ([self.blame] if self.blame else []))


def _explain_strict_fifo(session: Session, decisions: dict[str, Decision], d: Decision, result: WhyResult,
                         depth: int, ready: Callable[[WhyResult | None], None] | None = None) -> WhyResult | None:
    """A workload behind a StrictFIFO head that can't be admitted: each of the head's own cores (found
    the same way, recursively) with the queue's strategy and the head's place ahead of it, and then
    the workload's own cores — what would still keep it out once the head is gone. Returns the head's
    own explanation (None past the depth kadmit follows heads to). `ready`: handed the head's explanation
    by it when its standing is known (a pending head's), and once more (None past that depth) before the
    workload's own cores are searched, for a head whose decision hands over none (evicted, preempting)."""
    from kadmit.engine.explain.cores import blame_cores, symbolic_problem
    head = session.index.workloads[d.waiting_behind or ""]
    cq = session.index.cluster_queues[d.cluster_queue or ""]
    chain = [
        Origin(f"queue|strategy|{cq.name}", "queueing", f"cluster queue `{cq.name}` uses StrictFIFO: an older "
               "workload that can't be admitted blocks the ones behind it" if cq.queueing_strategy == "StrictFIFO"
               else f"cluster queue `{cq.name}` uses {cq.queueing_strategy}: a head whose admission write the API "
               "server refuses is requeued at once and stays ahead of the ones behind it" if d.head_refused
               else f"cluster queue `{cq.name}` uses {cq.queueing_strategy}: a head that can't be admitted "
               "but has flavors left to try is requeued at once and stays ahead of the ones behind it",
               cq.field_span("queueing_strategy") or cq.span),
        Origin(f"queue|head|{head.key}", "head", f"`{head.key}` is ahead of it in the queue (priority "
               f"{session.index.priority(head)}, created {head.created.isoformat()}) and can't be admitted",
               head.span),
    ]
    head_groups: list[list[Origin]] = []
    inner = None
    if depth < 4:
        inner = explain_decision(session, decisions, head.key, depth + 1, ready)
        if inner.unknown:
            result.unknown = True
    if ready is not None:
        ready(inner)
    if inner is not None:
        for g in inner.blame_groups or ([inner.blame] if inner.blame else []):
            head_groups.append([replace(o, id=f"head|{head.key}|{o.id}", message=f"(`{head.key}`) {o.message}")
                                for o in g])
    groups = [chain + g for g in head_groups] or [chain]
    try:
        loaded = session.load(symbolic_problem(session, d.workload), make_solver(session.limits))
        own = blame_cores(session, loaded)
        groups += [list(c.origins) for c in own.cores]
        result.blame_complete = own.complete
        result.own_cores = (loaded, own.cores)
    except SolverUnknown:
        result.unknown = True
    result.blame_groups = groups
    result.blame = union(groups)
    result.blame_kind = "queue"
    return inner


def _taken_back(session: Session, target) -> str:
    """What becomes of a reservation waiting for admission checks when the workload's LocalQueue is being
    deleted: Kueue's workload controller takes it back and the queue manager, which keeps the queue, has the
    scheduler reserve it again (`effective.drained`), so it is never admitted."""
    lq = session.index.local_queues.get(f"{target.namespace}/{target.queue}")
    if lq is None or not lq.deleting:
        return ""
    return (f", which it never is: its LocalQueue {lq.name} is being deleted, so Kueue's workload controller "
            f"takes the reservation back (\"LocalQueue {lq.name} is terminating or missing\") and its scheduler "
            "reserves the quota again, over and over; the other workloads meet it holding the quota")


def explain_decision(session: Session, decisions: dict[str, Decision], key: str, depth: int = 0,
                     ready: Callable[[WhyResult], None] | None = None) -> WhyResult:
    """Explain one decision of a run in a warm session (the session is left as it was). `ready` is
    handed the result once where it stands is known and before its blame is searched (a pending
    workload's: what it needs and can reach, its place in line), so that its first lines can be shown;
    not called where the blame would change them, nor for the other kinds of decision. Behind a
    StrictFIFO head: once the head's standing is known (before the head's blame), or where the head's
    decision has none to hand over (it was evicted, or preempts), once the head is explained and before
    the workload's own cores are searched."""
    from kadmit.engine.explain.evictions import preemption_origins, why_victim
    from kadmit.engine.explain.met import as_met
    from kadmit.engine.explain.standing import standing
    target = session.index.workloads[key]
    d = decisions.get(key)
    if d is None:
        why = target.finished_reason.partition(": ")  # as kadmit's reading of the input finished it
        return WhyResult(key, False, None, [Reason(KAD501, "the workload is finished" + (
            f" (Kueue's Finished condition: reason {why[0]}, message \"{why[2]}\"), so it holds no quota"
            if why[0] else ""))])
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
        mark_one(session.index, d)
        where = f"ClusterQueue {d.cluster_queue} with {flavors}" + (" (borrowing)" if d.assignment.borrowing else "")
        waiting = [f"{n} ({st})" for n, st in d.checks if st != "Ready"]
        if waiting:  # Kueue's Admitted waits on them: no change of quota admits it sooner
            head = Reason(KAD504, f"quota reserved in {where}; not admitted until admission check"
                          + ("s " if len(waiting) > 1 else " ") + ", ".join(waiting)
                          + (" are" if len(waiting) > 1 else " is") + " Ready" + _taken_back(session, target))
        elif d.topology_pending:  # checks Ready, the topology assignment delayed for them not made: not Admitted
            head = Reason(KAD539, f"quota reserved in {where}; not admitted until the topology assignment delayed "
                          "for its admission checks is made")
        else:
            head = Reason(KAD502, f"admitted to {where}")
        from kadmit.engine.explain.placement import unplaced
        out = WhyResult(key, True, d, [head] + unplaced(session, d) + skipped, solver=session.stats.as_dict())
        if d.replaced is not None:
            out.reasons.append(Reason(KAD502, f"it replaces its job's admitted slice {d.replaced} "
                                      "(ElasticJobsViaWorkloadSlices), on that slice's flavors: only its usage beyond "
                                      "that slice's was asked of the quota, and Kueue finishes the old slice on this "
                                      "admission (Finished: WorkloadSliceReplaced)"))
        elif (old := replaced_slice(session, target, d.cluster_queue)) is not None:
            out.reasons.append(Reason(KAD502, f"it was admitted afresh, not as the replacement of its job's slice {old} "
                                      "(ElasticJobsViaWorkloadSlices): Kueue had finished that slice in an earlier "
                                      "cycle, before the API server refused its admission write (replaceWorkloadSlice "
                                      "runs first), so its whole usage was asked of the quota and its pods placed anew"))
        if d.preempted:
            out.reasons += [Reason(KAD502, f"it preempted {v.key} (priority {v.priority}, ClusterQueue "
                                   f"{v.cluster_queue}): {why_victim(session, target, v)}") for v in d.preempted]
            out.blame = preemption_origins(session, target, d.preempted, d)
            out.blame_kind = "preemption"
        return out

    evicted = bool(d.preempted_by) and not d.tried_again  # its reason is the eviction's
    if evicted or d.preempting:
        result = WhyResult(key, False, d, decision_reasons(session, d), solver=session.stats.as_dict(),
                           blame_kind="preemption")
        if evicted:
            result.blame = _evicted(session, decisions, d, result)
        else:
            result.blame = preemption_origins(session, target, d.preempted, d)
            if d.preempted_by:  # evicted, tried again, and preempting in turn
                _evicted(session, decisions, d, result)
        return result

    result = WhyResult(key, False, d, decision_reasons(session, d), unknown=d.unknown)
    if d.unknown:
        result.solver = session.stats.as_dict()
        return result
    if d.equivalent_to:  # never tried (SchedulingEquivalenceHashing): nothing it met to explain, where it stands
        result.standing = standing(session, decisions, target)
        result.solver = session.stats.as_dict()
        return result
    if d.waiting_behind and d.tried is not None:  # its last try's reasons as that try met the cluster, then where it waits
        with as_met(session, d.tried.cycle) as met:
            result.reasons = decision_reasons(session, d)
        if met and fitted(result.reasons):
            result.reasons = decision_reasons(session, d)
        result.reasons.append(Reason(KAD519, waiting_behind(d.waiting_behind, queue_strategy(session, d),
                                                                 d.head_refused)))
    if d.waiting_behind:
        # where it stands first (the session is left as it was by explaining the head), then the head's
        # own, handed over with it before either blame is searched
        result.standing = standing(session, decisions, target)
        if result.standing is not None:
            result.standing.behind, result.standing.behind_strategy = d.waiting_behind, queue_strategy(session, d)
            result.standing.behind_refused = d.head_refused

        handed: list[bool] = []

        def head_ready(inner: WhyResult | None) -> None:
            """Once: by the head's explanation when it hands over its standing, else once the head is
            explained (its blame, not the workload's own cores, is all that comes before)."""
            if handed:
                return
            handed.append(True)
            if result.standing is not None:
                result.standing.head = inner.standing if inner is not None else None
                result.standing.head_met = inner is not None and inner.met
            if ready is not None:
                ready(result)
        inner = _explain_strict_fifo(session, decisions, d, result, depth, head_ready if ready is not None else None)
        if result.standing is not None:
            result.standing.head = inner.standing if inner is not None else None
            result.standing.head_met = inner is not None and inner.met
        result.solver = session.stats.as_dict()
        return result
    if d.preempted_by:  # evicted in the run, then tried again: that try's reasons, and its standing says by whom
        ready = _with_eviction(d, ready)
    with as_met(session, d.cycle) as met:  # as its nomination saw the cluster, the last time it was tried
        result.met = met
        _explain_waiting(session, decisions, d, result, ready)
    if met and not result.blame and not result.unknown and result.placement is None:
        # nothing kept it out then (another admission of that cycle took its room): the run's end state
        result = WhyResult(key, False, d, decision_reasons(session, d))
        _explain_waiting(session, decisions, d, result, ready)
    if not result.blame and not result.unknown and result.placement is None and not d.refused:
        result.reasons.append(refused_by_fits(session, d) or Reason(
            KAD523, "with today's usage the workload fits on its own; it waited for workloads ahead of it in "
                    "Kueue's order"))
    if any(o.kind == "rule" for o in result.blame) and not any(r.code == KAD520 for r in result.reasons):
        result.reasons += [Reason(KAD520, rule_text(o)) for o in result.blame if o.kind == "rule"]
    if d.preempted_by:
        _evicted(session, decisions, d, result)
    result.solver = session.stats.as_dict()
    return result


def _evicted(session: Session, decisions: dict[str, Decision], d: Decision, result: WhyResult) -> list[Origin]:
    """A workload preempted in the run: who evicted it under which policy (after its reasons: Kueue's
    Preempted message first where a later try's message is its pending reason, `Decision.tried_again`),
    and its standing says so; returns the preemption's blame (the policy, the preemptor, the victim)."""
    from kadmit.engine.explain.evictions import preemption_origins, why_victim
    from kadmit.engine.explain.standing import standing
    by = session.index.workloads.get(d.preempted_by or "")
    if not any(r.code == KAD531 for r in result.reasons):  # its reasons are a later word's: the eviction's after
        result.reasons.append(preempted_reason(session, d.cluster_queue or "", d.preempted_by or "",
                                               d.preemption_reason or ""))
    blame: list[Origin] = []
    if by is not None:
        v = Victim(d.key, d.cluster_queue or "", d.preemption_reason or "", session.index.priority(d.workload))
        blame = preemption_origins(session, by, [v], decisions.get(by.key))
        # tried again, its blame is what keeps it out now: what the preemptor needed goes with the policy
        needed = next((f"; {o.message}" for o in blame if o.kind == "preemptor"), "") if d.tried_again else ""
        result.reasons.append(Reason(KAD531, why_victim(session, by, v) + needed))
    if result.standing is None:  # requeued once evicted: where it stands among its ClusterQueue's pending
        result.standing = standing(session, decisions, d.workload)
    _eviction_standing(d, result)
    return blame


def _eviction_standing(d: Decision, result: WhyResult) -> None:
    if result.standing is not None:
        result.standing.evicted_by = d.preempted_by
        result.standing.evicted_reason = d.preemption_reason or None


def _with_eviction(d: Decision, ready: Callable[[WhyResult], None] | None) -> Callable[[WhyResult], None] | None:
    """`ready`, handed the result with its standing saying who evicted it."""
    if ready is None:
        return None
    inner = ready

    def handed(result: WhyResult) -> None:
        _eviction_standing(d, result)
        inner(result)
    return handed


def _explain_waiting(session: Session, decisions: dict[str, Decision], d: Decision, result: WhyResult,
                     ready: Callable[[WhyResult], None] | None = None) -> None:
    """Reasons, standing and blame (with one-workload starting points for fixes) for a workload the
    run left pending, at the session's state: placement's cores when quota lets it in and the nodes
    don't, else minimal cores over quota, rules and gates. `ready`: handed the result once its
    standing and placement are known, unless it fits on its own at the state it met (`result.met`:
    then `explain_decision` explains it again at the run's end state, standing included)."""
    result.reasons = decision_reasons(session, d)
    with as_replacement(session, d.workload) as replacing:  # a workload slice: as Kueue asks it, beyond its old slice
        _standing_and_blame(session, decisions, d, result, ready, replacing)


def _standing_and_blame(session: Session, decisions: dict[str, Decision], d: Decision, result: WhyResult,
                        ready: Callable[[WhyResult], None] | None = None, replacing: Replacing | None = None) -> None:
    """`_explain_waiting`'s standing, placement and blame, at the session's state (`replacing`: the old slice a
    workload slice replaces, whose quota that state counts as freed)."""
    from kadmit.engine.explain.cores import blame_cores, symbolic_problem
    from kadmit.engine.explain.fixes import fixes
    from kadmit.engine.explain.placement import explain_placement
    from kadmit.engine.explain.standing import standing
    target = d.workload
    result.standing = standing(session, decisions, target, quota=any(r.code in QUOTA_REASONS for r in result.reasons))
    if result.standing is not None:
        result.standing.replacing = replacing
    if not gate_reasons(session, target):
        try:
            placement = explain_placement(session, target)
        except SolverUnknown:
            result.unknown = True
            return
        if placement is not None:  # quota fits; the nodes don't
            result.placement = placement
            result.blame_kind = "placement"
            result.blame = list(placement.blame)
            result.blame_groups = [list(c) for c in placement.cores]
            result.candidates = list(placement.fixes)
            if ready is not None:
                ready(result)
            return
    try:
        loaded = session.load(symbolic_problem(session, target), make_solver(session.limits))
        whole = session.ask(loaded, sorted(loaded.lits))  # the first question `blame_cores` asks
        if ready is not None and not (result.met and whole == "sat"):
            ready(result)
        found = blame_cores(session, loaded, whole=whole)
        if found.cores:
            result.blame_groups = [list(c.origins) for c in found.cores]
            result.blame = union(result.blame_groups)
            result.blame_complete = found.complete
            result.candidates = fixes(session, loaded, result.blame)
    except SolverUnknown:
        result.unknown = True


def union(groups: list[list[Origin]]) -> list[Origin]:
    """Every origin of the groups once, in order of first appearance."""
    seen: dict[str, Origin] = {}
    for g in groups:
        for o in g:
            seen.setdefault(o.id, o)
    return list(seen.values())


def finished_slice(session: Session, decisions: dict[str, Decision], old: Workload) -> WhyResult | None:
    """`why` of an admitted slice that Kueue finishes in the run: its job's new slice replaced it (replaceWorkloadSlice
    sets its Finished condition, reason WorkloadSliceReplaced, and its quota passes to the new slice); None where the
    run leaves it holding its quota. The new slice's admission finishes it, or its first try whose admission write the
    API server refused (replaceWorkloadSlice runs before the write: `slices.admitted` on a refused write)."""
    if old.key in session.holders or not enabled(session.model.config, SLICES_GATE):
        return None
    new = next((w for w in session.index.workloads.values() if w.replaces == old.key), None)
    if new is None:
        return None
    name = kueue_key(new) or new.key  # a job's slice: the Workload Kueue makes, named as the job's (`ns/job-e-1a2b3`)
    d = decisions.get(new.key)
    cq = old.admission.cluster_queue if old.admission is not None else None
    if d is not None and d.admitted and d.replaced == old.key:
        how = (f"admitted to ClusterQueue {d.cluster_queue} in cycle {d.cycle}; the quota it held in ClusterQueue {cq} "
               "passes to the new slice")
    else:
        how = ("tried in a cycle where the API server refused its admission write: Kueue had finished this slice "
               f"before that write (replaceWorkloadSlice runs first), and the quota it held in ClusterQueue {cq} is free")
    return WhyResult(old.key, False, None, [Reason(KAD502, (
        f"no longer admitted: Kueue finishes it (Finished: WorkloadSliceReplaced) as its job's new slice {name} "
        f"replaces it, {how} (ElasticJobsViaWorkloadSlices)"))], replaced_by=name)
