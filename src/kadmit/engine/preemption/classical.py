"""Kueue's classical preemption (§3 of docs/PREEMPTION.md): candidates by variant, taken until the preemptor fits."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.engine.quota import node_id
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                                 IN_COHORT_RECLAMATION, Candidate, Preemptor, Victim,
                                                 satisfies_policy)
from kadmit.engine.preemption.snapshot import Snapshot, fill_back, victims_of
from kadmit.model import ClusterQueue


# --- classical preemption (§3) ----------------------------------------------------------------------

WITHIN_CQ, HIERARCHY, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = "within", "hierarchy", "rwob", "rwb"
_REASON = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHY: IN_COHORT_RECLAMATION,
           RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
           RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


@dataclass
class _Elem:
    c: Candidate
    lca: str | None  # the lowest common ancestor it was found under (other queues only)
    variant: str


def _borrowing_forbidden(spec: ClusterQueue) -> tuple[bool, int | None]:
    """`IsBorrowingWithinCohortForbidden`: (forbidden, maxPriorityThreshold)."""
    bwc = spec.preemption.borrow_within_cohort
    if bwc is None or bwc.policy == "Never":
        return True, None
    return False, bwc.max_priority_threshold


def _variant(spec: ClusterQueue, p: Preemptor, c: Candidate, advantage: bool) -> str | None:
    """C1 + C3 (`classifyPreemptionVariant`); None when `c` may not be preempted."""
    if not c.uses(p.needs):
        return None
    same = c.cluster_queue == p.cluster_queue
    policy = spec.preemption.within_cluster_queue if same else spec.preemption.reclaim_within_cohort
    if not satisfies_policy(policy, p, c):
        return None
    if same:
        return WITHIN_CQ
    if advantage:
        return HIERARCHY
    forbidden, threshold = _borrowing_forbidden(spec)
    if forbidden or c.priority >= p.priority or (threshold is not None and c.priority > threshold):
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


def _collect(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> tuple[list[_Elem], list[_Elem], list[_Elem]]:
    """C2: (hierarchy, priority, same-queue) candidates."""
    me = node_id(p.cluster_queue, False)

    def take(cq: str, lca: str | None, advantage: bool, into: list[_Elem]) -> None:
        for c in snap.admitted(cq):
            v = _variant(spec, p, c, advantage)
            if v is not None:
                into.append(_Elem(c, lca, v))

    same: list[_Elem] = []
    if spec.preemption.within_cluster_queue != "Never":
        take(p.cluster_queue, None, False, same)
    hierarchy: list[_Elem] = []
    priority: list[_Elem] = []
    if snap.parent(me) is None or spec.preemption.reclaim_within_cohort == "Never":
        return hierarchy, priority, same

    def visit(top: str, lca: str, skip: str | None, into: list[_Elem]) -> None:
        """Depth first from `top`, children in name order (an explicit stack: trees of any depth)."""
        stack: list[tuple[bool, str]] = [(True, top)]  # (expand a cohort, node id)
        while stack:
            expand, nid = stack.pop()
            if not expand:
                take(snap.tree.nodes[nid].name, lca, into is hierarchy, into)
                continue
            for ch in sorted(snap.tree.nodes[nid].children, reverse=True):
                if ch == skip or ch == me or snap.within_nominal(ch, p.needs):
                    continue
                stack.append((snap.tree.nodes[ch].is_cohort, ch))

    advantage, remaining = snap.fit_in_quota(me, p.usage)
    previous: str | None = None
    for anc in snap.ancestors(me):
        visit(anc, anc, previous, hierarchy if advantage else priority)
        fits, remaining = snap.fit_in_quota(anc, remaining)
        advantage = advantage or fits
        previous = anc
    return hierarchy, priority, same


def _valid(snap: Snapshot, p: Preemptor, e: _Elem, allow_borrowing: bool) -> bool:
    """C6 (`candidateIsValid`), against the simulated state as victims are removed."""
    if e.c.cluster_queue == p.cluster_queue:
        return True
    if allow_borrowing and e.variant == RECLAIM_WITHOUT_BORROWING:
        return False
    nid = node_id(e.c.cluster_queue, False)
    if snap.within_nominal(nid, p.needs):
        return False
    for anc in snap.ancestors(nid):
        if anc == e.lca:
            break
        if snap.within_nominal(anc, p.needs):
            return False
    return True


def _under_nominal(snap: Snapshot, p: Preemptor) -> bool:
    """`queueUnderNominalInResourcesNeedingPreemption`: usage strictly below nominal in every need."""
    nid = node_id(p.cluster_queue, False)
    for fr in p.needs:
        entry = snap.tree.entry(nid, fr)
        if not entry.declared or entry.nominal <= snap.used(nid, fr):
            return False
    return True


def classical_targets(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> list[Victim]:
    """§3: candidates in Kueue's sequence, one or two attempts (with / without borrowing), the
    first that makes the preemptor fit is filled back. The snapshot is left with the targets
    removed (or as found, when there are none)."""
    hierarchy, priority, same = _collect(snap, p, spec)
    for group in (hierarchy, priority, same):
        group.sort(key=lambda e: e.c.order(p.cluster_queue))
    evicted = [e for g in (hierarchy, priority, same) for e in g if e.c.evicted]
    rest = [e for g in (hierarchy, priority, same) for e in g if not e.c.evicted]
    sequence = evicted + rest
    forbidden, _ = _borrowing_forbidden(spec)
    if (not hierarchy and not priority) or (forbidden and not _under_nominal(snap, p)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for allow in attempts:
        taken: list[tuple[Candidate, str]] = []
        for e in sequence:
            if not _valid(snap, p, e, allow):
                continue
            snap.remove(e.c)
            taken.append((e.c, _REASON[e.variant]))
            if snap.fits(p, allow):
                return victims_of(fill_back(snap, p, taken, allow))
        for c, _ in taken:
            snap.add(c)
    return []
