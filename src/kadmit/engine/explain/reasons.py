"""Kueue's reasons for each decision of a run, as Kueue leaves them on the Workload (its QuotaReserved=False
condition's message), in the state the workload met when Kueue last tried it: the words `admit` reports and
`why` starts from (`explain.decision` explains one decision with them)."""

from __future__ import annotations

from kadmit.engine.admission.codes import KAD535, KAD536, KAD537, KAD538, KAD542
from kadmit.engine.admission.decisions import NO_LONGER_FITS
from kadmit.engine.admission.ordered import Decision
from kadmit.engine.admission.reasons import (KAD503, KAD510, KAD511, KAD514, KAD516, KAD517, KAD518, KAD519,
                                             KAD520, KAD523, KAD530, KAD532, KAD533, Reason, flavor_reasons,
                                             gate_reasons, no_preemption_reasons, placement_reasons,
                                             preempted_reason)
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.engine.compile.problem import Origin
from kadmit.engine.solver.z3backend import make_solver


def decision_reasons(session: Session, d: Decision) -> list[Reason]:
    """Kueue-style reasons for a workload the run did not admit (against the run's final usage)."""
    wl = d.workload
    if d.loop:
        return [Reason(KAD535 if d.loop.settled else KAD536, d.loop.message())]
    if d.unknown:
        return [Reason(KAD503, "the solver could not decide within its limits")]
    if d.stalled:  # never nominated: Kueue writes no condition
        return [Reason(KAD542, d.stalled.message)]
    if d.preempted_by and not d.tried_again:  # (tried again once requeued: Kueue's message is that try's)
        # not queued again: the workload controller's word on its queues, written after the eviction's
        return [r for r in gate_reasons(session, wl) if r.code in QUEUE_GATES] or \
            [preempted_reason(session, d.cluster_queue or "", d.preempted_by, d.preemption_reason or "")]
    if d.preempting:
        return preempting_reasons(session, d)
    out = gate_reasons(session, wl)
    if out:
        return out
    if d.equivalent_to:  # moved to the inadmissible list untried (SchedulingEquivalenceHashing)
        return [Reason(KAD538, f"set aside with {d.equivalent_to}, found inadmissible with the same scheduling "
                               "hash (SchedulingEquivalenceHashing): not tried until quota is released in its "
                               "cohort tree")]
    if d.waiting_behind:  # tried before it came to wait there: Kueue's message is that try's
        return decision_reasons(session, d.tried) if d.tried is not None else \
            [Reason(KAD519, waiting_behind(d.waiting_behind, queue_strategy(session, d), d.head_refused))]
    if d.skipped:  # nominated in its last cycle, then skipped: Kueue's message is the skip's
        return [Reason(KAD523, d.skipped)]
    if d.refused:  # Kueue's admission write refused: it writes no condition, the API server's error is in its log
        return [Reason(KAD537, "Kueue's admission status write is refused by the API server (the scheduler logs "
                               f"\"Could not admit Workload and assign flavors in apiserver\", forgets the quota and "
                               f"requeues it, so it is never admitted): {d.refused}")]
    if session.tried_from.get(wl.key):  # its last search started past a first flavor: its own message
        return _quota_reasons(session, wl)
    return list(session.situations.shared("reasons", wl, lambda: tuple(_quota_reasons(session, wl))))


def preempting_reasons(session: Session, d: Decision) -> list[Reason]:
    """A preemptor waiting for the victims its last try chose: Kueue's message is that nomination's
    assignment message with ". Pending the preemption of N workload(s)" after it (scheduler.go, where
    `IssuePreemptions` succeeds: `e.inadmissibleMsg += ...`), so its flavors' reasons as that cycle met
    the cluster (victims still holding), searched from where that try started, then KAD532, whose
    victims after ": " are kadmit's."""
    from kadmit.engine.explain.met import as_met
    with as_met(session, d.cycle):
        out = flavor_reasons(session, d.workload, start=session.tried_from.get(d.workload.key))
    victims = ", ".join(v.key for v in d.preempted)
    return out + [Reason(KAD532, f"Pending the preemption of {len(d.preempted)} workload(s): {victims}")]


def run_reasons(session: Session, decisions: list[Decision], met_only: bool = False) -> dict[str, list[Reason]]:
    """Kueue-style reasons for every workload the run did not admit (and every one in a loop), each
    in the state it met when Kueue last tried it, as Kueue leaves the message of that nomination on
    the Workload (its QuotaReserved=False condition) and `explain_decision` explains it: the run's
    state at the start of its last cycle (`as_met`, from the session's journal), where nothing
    kept it out then (another admission of that cycle took its room) the run's end state. Only the
    workloads that depend on quota or nodes changed since their cycle are looked at again (a holder
    of their cohort tree, or one placed on nodes, admitted or released since); the others' end-state
    reasons are the same. One `as_met` per cycle that is revisited. `met_only`: only those looked at
    again (the others' are the end state's, for the caller to take when it needs them)."""
    from kadmit.engine.explain.met import as_met
    out: dict[str, list[Reason]] = {}
    then: dict[int, list[Decision]] = {}
    since = _Since(session)
    for d in decisions:
        if d.admitted and not d.loop:
            continue
        e = d.tried if d.waiting_behind and d.tried is not None else d  # the try whose message Kueue keeps
        if since.matters(e):
            then.setdefault(e.cycle, []).append(d)
        elif not met_only:
            out[d.key] = decision_reasons(session, d)
    late: list[Decision] = []  # fitted on their own at their cycle's start: the end state's reasons
    for cycle in sorted(then):
        with as_met(session, cycle) as met:
            for d in then[cycle]:
                got = decision_reasons(session, d)
                if met and fitted(got):
                    late.append(d)
                else:
                    out[d.key] = got
    for d in late:
        out[d.key] = decision_reasons(session, d)
    return {k: out[k] for k in sorted(out)}


def fitted(reasons: list[Reason]) -> bool:
    """The reasons say the workload fits on its own (`_quota_reasons`' last resort)."""
    return len(reasons) == 1 and reasons[0].code == KAD523


class _Since:
    """What changed after each cycle started, from the session's journal: the cohort trees whose
    holders changed, and whether nodes did (a holder placed on them)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._after: dict[int, tuple[frozenset[str], bool]] = {}  # journal position -> (roots, nodes)

    def _changed(self, start: int) -> tuple[frozenset[str], bool]:
        got = self._after.get(start)
        if got is None:
            tree = self.session.compiler.tree
            changes = self.session.journal.changes[start:]  # type: ignore[union-attr]
            roots = frozenset(tree.root(f"cq:{h.cluster_queue}") for _, h, _ in changes
                              if f"cq:{h.cluster_queue}" in tree.nodes)
            got = self._after[start] = (roots, any(placed for _, _, placed in changes))
        return got

    def matters(self, d: Decision) -> bool:
        """Whether `d`'s reasons may differ between the state it met and the run's end: a plain pending
        decision (explained in the state it met, `explain_decision`) whose gates let it through, with a
        change since its cycle started to quota of its cohort tree or to the nodes."""
        session = self.session
        journal = session.journal
        if journal is None or d.loop or d.unknown or (d.preempted_by and not d.tried_again) or d.preempting \
                or d.waiting_behind or d.skipped or d.refused or d.equivalent_to:
            return False
        start = journal.start_of(d.cycle)
        if start >= len(journal.changes):
            return False
        cq = session.index.cluster_queue_of(d.workload)
        nid = f"cq:{cq.name}" if cq is not None else ""
        if cq is None or nid not in session.compiler.tree.nodes or gate_reasons(session, d.workload):
            return False
        roots, nodes = self._changed(start)
        return nodes or session.compiler.tree.root(nid) in roots


def waiting_behind(head: str, strategy: str, refused: bool = False) -> str:
    """KAD519: what keeps a workload behind its queue's head. StrictFIFO keeps a head that can't be
    admitted at the head; BestEffortFIFO moves it aside unless it has flavors left to try, when Kueue
    pushes it back into the heap at once (`requeueIfNotPresent`: `PendingFlavors`) and the ones behind
    it are not tried; so does a head whose admission write the API server refuses (`refused`: requeued
    at once, FailedAfterNomination)."""
    if refused:
        return (f"waiting behind {head}, which keeps its place at the head: the API server refuses Kueue's "
                f"admission write of it, and Kueue requeues it at once ({strategy})")
    if strategy == "StrictFIFO":
        return f"waiting behind {head} (StrictFIFO)"
    return f"waiting behind {head}, which keeps its place at the head while it has flavors left to try ({strategy})"


def queue_strategy(session: Session, d: Decision) -> str:
    cq = session.index.cluster_queues.get(d.cluster_queue or "")
    return cq.queueing_strategy if cq is not None else "StrictFIFO"


def _quota_reasons(session: Session, wl) -> list[Reason]:
    """Why the flavors of `wl` don't fit now; the same for every workload in its situation."""
    out = flavor_reasons(session, wl, start=session.tried_from.get(wl.key)) or placement_reasons(session, wl)
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
    from kadmit.engine.explain.cores import blame_cores, symbolic_problem
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


def rule_text(o: Origin) -> str:
    """`rule `x` forbids this` with the rule's line: `rule `x` (rules.kad:13) forbids this`."""
    where = f" ({o.span.file}:{o.span.line})" if o.span else ""
    name, _, verb = o.message.partition("` ")
    return f"{name}`{where} {verb}" if verb else o.message + where


QUOTA_REASONS = (KAD510, KAD511, KAD514, KAD533)  # Kueue's reasons that are about quota
# the workload controller's on a workload holding no quota whose queues are missing or inactive
# (workload_controller.go Reconcile: "LocalQueue X doesn't exist", "... is inactive", "ClusterQueue X ...")
QUEUE_GATES = (KAD516, KAD517, KAD518)


def refused_by_fits(session: Session, d: Decision) -> Reason | None:
    """A workload Kueue skipped as no longer fitting whose own nomination, at the session's state, Kueue's
    scheduler's fits check refuses whatever the workloads ahead of it: a Fit assignment over the queue's
    quota (a flavor whose status is Fit while a resource of it needs preemption: no victims are looked for),
    or a placement that gives a domain more pods than it holds (TASFlavorSnapshot.Fits: a negative
    podSetSliceSize; a transformation's output no node has)."""
    from kadmit.engine.admission.ordered import _fits_available
    if d.skipped != NO_LONGER_FITS:
        return None
    got = session.nomination(d.workload)
    if got is None or got.mode != "Fit":
        return None
    if got.needs and not _fits_available(session, got.cluster_queue, got.usage):
        short = ", ".join(f"{r} in flavor {f}" for f, r in sorted(got.needs))
        return Reason(KAD510, f"Kueue's flavor assigner gives it a Fit assignment although {short} fits only by "
                              f"preempting: its scheduler looks for victims only for a Preempt assignment, and its "
                              f"fits check finds the unused quota short")
    over = session.pool.over_full(got.placement) if got.placement is not None else None
    if over is None:
        return None
    pod_set, domain, pods, holds = over
    return Reason(KAD530, f"Kueue's topology placement gives pod set {pod_set} {pods} pod(s) on {domain or 'no domain'}, "
                          f"which holds {holds} of them at today's usage (its pods' requests as quota counts them): "
                          f"Kueue nominates the workload, then its scheduler's fits check (TASFlavorSnapshot.Fits) "
                          f"skips it", pod_set)
