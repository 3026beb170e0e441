"""Kueue's classical preemption (`classicalPreemptionStrategy` over `classical.NewCandidateIterator`), replayed on a snapshot."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kadmit.model import ClusterQueue
from kadmit.reference.quota import Node, ancestors, fit_in_quota, within_nominal
from kadmit.reference.snapshot import (IN_CLUSTER_QUEUE, IN_COHORT_RECLAIM_WHILE_BORROWING, IN_COHORT_RECLAMATION,
                                       Admitted, Candidates, Preemptor, Snapshot, Target, candidate_key,
                                       satisfies_policy, select_targets, under_nominal, uses_needed)


# --- classical preemption ---------------------------------------------------------------------

WITHIN_CQ, HIERARCHICAL, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(1, 5)
_VARIANT_REASON = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHICAL: IN_COHORT_RECLAMATION,
                   RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
                   RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


@dataclass
class _Elem:
    wl: Admitted
    lca: Node | None
    variant: int


def _borrow_within_cohort(cq: ClusterQueue) -> tuple[bool, int | None]:
    """`IsBorrowingWithinCohortForbidden`: (forbidden, maxPriorityThreshold)."""
    bwc = cq.preemption.borrow_within_cohort
    if bwc is None or bwc.policy == "Never":
        return True, None
    return False, bwc.max_priority_threshold


def _classify(spec: ClusterQueue, p: Preemptor, wl: Admitted, advantage: bool) -> int | None:
    """`classifyPreemptionVariant`; None for a workload that can't be preempted."""
    if not uses_needed(wl, p.needs):
        return None
    same = wl.cluster_queue == p.cluster_queue
    policy = spec.preemption.within_cluster_queue if same else spec.preemption.reclaim_within_cohort
    if not satisfies_policy(policy, p, wl):
        return None
    if same:
        return WITHIN_CQ
    if advantage:
        return HIERARCHICAL
    forbidden, threshold = _borrow_within_cohort(spec)
    if forbidden:
        return RECLAIM_WITHOUT_BORROWING
    above = wl.priority >= p.priority or (threshold is not None and wl.priority > threshold)
    return RECLAIM_WITHOUT_BORROWING if above else RECLAIM_WHILE_BORROWING


def _collect(snap: Snapshot, p: Preemptor) -> tuple[list[_Elem], list[_Elem], list[_Elem]]:
    """(hierarchy, priority, same-queue) candidates (`collectSameQueueCandidates`,
    `collectCandidatesForHierarchicalReclaim`): walking up from the preemptor's queue, every
    over-nominal queue of each ancestor's subtree (not yet visited, skipping within-nominal
    cohorts) gives candidates, with the ancestor as their lowest common ancestor; once some
    subtree on the way fits the request, the preemptor has a hierarchical advantage over all
    candidates found from there on."""
    spec = snap.specs[p.cluster_queue]
    cq = snap.tree.queues[p.cluster_queue]

    def from_queue(name: str, lca: Node | None, advantage: bool) -> list[_Elem]:
        out = []
        for wl in snap.admitted(name):
            variant = _classify(spec, p, wl, advantage)
            if variant is not None:
                out.append(_Elem(wl, lca, variant))
        return out

    same: list[_Elem] = []
    if spec.preemption.within_cluster_queue != "Never":
        same = from_queue(p.cluster_queue, None, False)
    hierarchy: list[_Elem] = []
    priority: list[_Elem] = []
    if cq.parent is None or spec.preemption.reclaim_within_cohort == "Never":
        return hierarchy, priority, same

    def walk(cohort: Node, root: Node, skip: Node | None, advantage: bool) -> None:
        bucket = hierarchy if advantage else priority
        for child in sorted((c for c in cohort.children if not c.is_cluster_queue), key=lambda n: n.name):
            if child is skip or within_nominal(child, p.needs):
                continue
            walk(child, root, skip, advantage)
        for child in sorted((c for c in cohort.children if c.is_cluster_queue), key=lambda n: n.name):
            if child is cq or within_nominal(child, p.needs):
                continue
            bucket.extend(from_queue(child.name, root, advantage))

    advantage, remaining = fit_in_quota(cq, p.usage)
    previous: Node | None = None
    for ancestor in ancestors(cq):
        walk(ancestor, ancestor, previous, advantage)
        fits, remaining = fit_in_quota(ancestor, remaining)
        advantage = advantage or fits
        previous = ancestor
    return hierarchy, priority, same


def _valid(snap: Snapshot, p: Preemptor, elem: _Elem, allow_borrowing: bool) -> bool:
    """`candidateIsValid`, checked against the snapshot as targets are removed: a candidate from
    another queue is skipped once its queue, or a cohort between it and the lowest common
    ancestor, is back within nominal quota; candidates that may only go without borrowing are
    skipped in the attempt that borrows."""
    if elem.wl.cluster_queue == p.cluster_queue:
        return True
    if allow_borrowing and elem.variant == RECLAIM_WITHOUT_BORROWING:
        return False
    node = snap.tree.queues[elem.wl.cluster_queue]
    if within_nominal(node, p.needs):
        return False
    for anc in ancestors(node):
        if anc is elem.lca:
            break
        if within_nominal(anc, p.needs):
            return False
    return True


def classical_targets(snap: Snapshot, p: Preemptor) -> list[Target]:
    """Classical preemption: candidates ordered evicted first, then hierarchy / priority /
    same-queue candidates (each by `candidate_key`); one or two attempts, with and without
    borrowing, in the order Kueue tries them."""
    hierarchy, priority, same = _collect(snap, p)
    order = lambda e: candidate_key(e.wl, p.cluster_queue)
    for group in (hierarchy, priority, same):
        group.sort(key=order)
    split = lambda g: ([e for e in g if e.wl.evicted], [e for e in g if not e.wl.evicted])
    (eh, nh), (ep, np_), (es, ns) = split(hierarchy), split(priority), split(same)
    elems = eh + ep + es + nh + np_ + ns
    forbidden, _ = _borrow_within_cohort(snap.specs[p.cluster_queue])
    if (not hierarchy and not priority) or (forbidden and not under_nominal(snap, p)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]

    def make(allow_borrowing: bool) -> Callable[[], Candidates]:
        def gen() -> Candidates:
            for elem in elems:
                if _valid(snap, p, elem, allow_borrowing):
                    snap.remove(elem.wl)
                    yield elem.wl, _VARIANT_REASON[elem.variant]
        return gen

    return select_targets(snap, p, [(make(b), b) for b in attempts])
