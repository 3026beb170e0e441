"""Who evicted whom in a run and why: the policy that let a preemptor evict its victims, what it
needed of them (checked at the state of the cycle it evicted them in), and the blame that says so."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.engine.admission.ordered import Decision
from kadmit.engine.admission.session import Session
from kadmit.engine.compile.problem import Origin
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING,
                                                 IN_COHORT_RECLAIM_WHILE_BORROWING, Victim)


def why_victim(session: Session, preemptor, v: Victim) -> str:
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


def _needed(session: Session, preemptor, decision: Decision | None, victims: list[Victim]) -> str:
    """What the preemptor needed of its victims, checked at the start of the cycle they were evicted in
    (`_at_eviction`): the quota (its assignment's usage over what its queue had free then), the room
    on the topology's nodes (its pods placed with the victims holding theirs fail, and fit with them
    gone), or both. Without a topology-aware flavor in its assignment, the quota: Kueue's preemption
    needs nothing else then."""
    flavors = session.index.flavors
    a = decision.assignment if decision is not None else None
    assigned = {f for fl in a.flavors.values() for f in fl.values()} if a is not None else set()
    if not any(flavors[f].topology for f in assigned if f in flavors):
        return "needed the quota"
    seen = _at_eviction(session, preemptor, [v.key for v in victims], a) if a is not None else None
    if seen is None or not (seen.short or seen.nodes):  # no record of the state it met, or it shows neither
        return "needed the quota or the room on topology nodes"
    mine = set(session.pool.placed.get(preemptor.key) or ())
    shared = sorted(seen.leaves & mine)
    room = (f"the room its victims' pods took on {_listed(shared)}" if shared else
            f"room on the topology's nodes (its victims' pods were on {_listed(sorted(seen.leaves))})"
            if seen.leaves else "room on the topology's nodes")
    if seen.short:
        return f"needed the quota ({_quota(seen.short)})" + (f" and {room}" if seen.nodes else "")
    if seen.held:
        return f"held its quota already{' (a second pass placing its pods)' if seen.second else ''} and needed {room}"
    return f"needed {room}: its quota fitted ({_quota(seen.fitted)})"


def _quota(checked: list) -> str:
    from kadmit.quantity import format_quantity
    return "; ".join(f"{format_quantity(q, fr[1])} {fr[1]} in {fr[0]} with {format_quantity(free, fr[1])} free"
                     for fr, q, free in checked)


@dataclass
class _Eviction:
    held: bool  # the preemptor held its quota already
    second: bool  # ... with pods of it still to place (Kueue's second pass)
    short: list  # its flavor-resources over what its queue had free: (flavor-resource, amount, free)
    fitted: list  # those within it
    nodes: bool  # its pods didn't fit the nodes with the victims holding theirs, and did with them gone
    leaves: set  # the topology leaves (nodes) the victims' pods were on


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"{'node' if len(names) == 1 else 'nodes'} {shown}"


def _at_eviction(session: Session, preemptor, victims: list[str], a) -> _Eviction | None:
    """What the preemptor met at the start of the cycle the first of `victims` was evicted in (the
    snapshot Kueue's preemptor read); None without a record of the run (`Session.journal`)."""
    from kadmit.engine.explain.met import as_met
    journal = session.journal
    if journal is None:
        return None
    gone = set(victims)
    at = next((i for i, (admitted, h, _) in enumerate(journal.changes) if not admitted and h.workload in gone), None)
    cycle = next((c for c, n in reversed(journal.marks) if n <= at), None) if at is not None else None
    if cycle is None:
        return None
    pool = session.pool
    with as_met(session, cycle) as ok:
        if not ok:
            return None
        held = preemptor.key in session.holders
        second = held and not pool.placed.get(preemptor.key)
        nid, tree = f"cq:{a.cluster_queue}", session.compiler.tree
        checked = [(fr, q, tree.available(nid, fr, session.usage)) for fr, q in sorted(a.usage.items()) if q > 0]
        cq = session.index.cluster_queues.get(a.cluster_queue)
        requests = pool.requests(preemptor, cq, a.counts, a.flavors, delayed_only=second) \
            if cq is not None and (not held or second) else []
        nodes = bool(requests) and pool.place(requests).failure is not None and \
            pool.place(requests, free=pool.free_without(victims)).failure is None
        leaves = {leaf for v in victims for leaf in pool.placed.get(v) or ()}
    short = [c for c in checked if c[1] > c[2]] if not held else []
    return _Eviction(held, second, short, [c for c in checked if c[1] <= c[2]], nodes, leaves)


def preemption_origins(session: Session, preemptor, victims: list[Victim],
                        decision: Decision | None = None) -> list[Origin]:
    """The policy statement of the preemptor's queue and the victims, with their spans."""
    cq = session.index.cluster_queue_of(preemptor)
    out: list[Origin] = []
    if cq is not None:
        p = cq.preemption
        text = (f"cluster queue `{cq.name}` preemption: withinClusterQueue {p.within_cluster_queue}, "
                f"reclaimWithinCohort {p.reclaim_within_cohort}"
                + (f", borrowWithinCohort {p.borrow_within_cohort.policy}" if p.borrow_within_cohort else ""))
        out.append(Origin("preempt|policy", "preemption", text, cq.field_span("preemption") or cq.span))
    needed = _needed(session, preemptor, decision, victims)
    out.append(Origin("preempt|preemptor", "preemptor", f"`{preemptor.key}` (priority "
                      f"{session.index.priority(preemptor)}) {needed}", preemptor.span))
    for v in victims:
        wl = session.index.workloads.get(v.key)
        span = wl.admission.span if wl is not None and wl.admission is not None and wl.admission.span else (
            wl.span if wl is not None else None)
        out.append(Origin(f"preempt|victim|{v.key}", "victim", f"`{v.key}` (priority {v.priority}) held quota in "
                          f"ClusterQueue {v.cluster_queue}: {v.reason}", span))
    return out
