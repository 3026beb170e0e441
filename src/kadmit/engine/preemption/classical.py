"""Kueue's classical preemption (§3 of docs/PREEMPTION.md): candidates by variant, taken until the preemptor fits."""

from __future__ import annotations

from collections.abc import Iterator
from heapq import merge
from itertools import islice
from operator import itemgetter

from kadmit.engine.afs import candidate_rank
from kadmit.engine.quota import node_id
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                                 IN_COHORT_RECLAMATION, Candidate, Preemptor, Victim,
                                                 satisfies_policy)
from kadmit.engine.preemption.snapshot import Snapshot, fill_back, sums_of, victims_of
from kadmit.model import ClusterQueue


# --- classical preemption (§3) ----------------------------------------------------------------------

WITHIN_CQ, HIERARCHY, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = "within", "hierarchy", "rwob", "rwb"
_RANK = itemgetter(0)
_REASON = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHY: IN_COHORT_RECLAMATION,
           RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
           RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


# A candidate as the search holds it: (its rank, it, the lowest common ancestor it was found under
# for other queues' candidates, its variant). Within a group of candidates (hierarchy, priority, same
# queue) the queue's part of Kueue's ordering is constant, so the rank alone sorts them.
_Elem = tuple[tuple, Candidate, "str | None", str]

# The groups of Kueue's candidate sequence, in its order (C2).
_HIERARCHY, _PRIORITY, _SAME = 0, 1, 2


class _Part:
    """One cluster queue's candidates in a group of the search, in `Candidate.rank` order: the queue,
    the lowest common ancestor they were found under (None for the preemptor's own queue), the
    group, and the key of the session's shared list they are (`ranked_using`'s (needs, below), whose
    sums the candidates keep per queue), or None for a list made for this search."""

    __slots__ = ("cq", "lca", "group", "cands", "shared")

    def __init__(self, cq: str, lca: str | None, group: int, cands, shared: tuple | None) -> None:
        self.cq, self.lca, self.group, self.cands, self.shared = cq, lca, group, cands, shared


class _Plan:
    """A search's candidates (C2–C4) as per-queue ranked lists (`_Part`s) of the three groups, with
    what classifies the priority group's variants (C3): Kueue's sequence is read from it element by
    element (`_elements`) or whole (`_flat`), and `_fits_without_all` sums its queues' lists. `sums`
    keeps those sums per (the usage's flavor-resources, the attempt) while the plan is kept."""

    __slots__ = ("groups", "prio", "forbidden", "threshold", "sums")

    def __init__(self, groups: tuple[list[_Part], list[_Part], list[_Part]], prio: int, forbidden: bool,
                 threshold: int | None) -> None:
        self.groups = groups
        self.prio, self.forbidden, self.threshold = prio, forbidden, threshold
        self.sums: dict[tuple, list[tuple[str, dict]]] = {}

    @property
    def hierarchy(self) -> bool:
        """Whether any candidate was found in the hierarchy group."""
        return bool(self.groups[_HIERARCHY])

    @property
    def priority(self) -> bool:
        """Whether any candidate was found in the priority group."""
        return bool(self.groups[_PRIORITY])

    def borrowing_bound(self) -> int | None:
        """The priority group's candidates an attempt with borrowing may take
        (RECLAIM_WHILE_BORROWING): those of priority below this; None when it may take none."""
        if self.forbidden:
            return None
        return self.prio if self.threshold is None else min(self.prio, self.threshold + 1)

    def element(self, part: _Part, c: Candidate) -> _Elem:
        if part.group == _SAME:
            return (c.rank, c, None, WITHIN_CQ)
        if part.group == _HIERARCHY:
            return (c.rank, c, part.lca, HIERARCHY)
        if self.forbidden or c.priority >= self.prio or (self.threshold is not None and c.priority > self.threshold):
            return (c.rank, c, part.lca, RECLAIM_WITHOUT_BORROWING)
        return (c.rank, c, part.lca, RECLAIM_WHILE_BORROWING)


def _borrowing_forbidden(spec: ClusterQueue) -> tuple[bool, int | None]:
    """`IsBorrowingWithinCohortForbidden`: (forbidden, maxPriorityThreshold)."""
    bwc = spec.preemption.borrow_within_cohort
    if bwc is None or bwc.policy == "Never":
        return True, None
    return False, bwc.max_priority_threshold


def _fits_up(snap: Snapshot, p: Preemptor) -> list[bool]:
    """Whether the preemptor's usage fits within its queue's quota, then, what remains, within each
    ancestor's but the root's (`fit_in_quota` up the tree): what `_collect` reads of the usage."""
    me = node_id(p.cluster_queue, False)
    fits, remaining = snap.fit_in_quota(me, p.usage)
    out = [fits]
    for anc in snap.ancestors(me)[:-1]:
        fits, remaining = snap.fit_in_quota(anc, remaining)
        out.append(fits)
    return out


def _collect(snap: Snapshot, p: Preemptor, spec: ClusterQueue, fits: list[bool] | None = None) -> _Plan:
    """C2: the (hierarchy, priority, same-queue) candidates, per queue, with C1 + C3
    (`classifyPreemptionVariant`): a candidate that uses a flavor-resource needing preemption and
    that the queue's policy allows. `fits`: `_fits_up` of this state, when the caller has it already."""
    me = node_id(p.cluster_queue, False)
    needs, prio = p.needs, p.priority
    within, reclaim = spec.preemption.within_cluster_queue, spec.preemption.reclaim_within_cohort
    forbidden, threshold = _borrowing_forbidden(spec)
    plan = _Plan(([], [], []), prio, forbidden, threshold)

    def take(cq: str, lca: str | None, group: int, policy: str) -> None:
        shared = cq not in snap.live
        if policy == "LowerPriority":
            cands, key = snap.ranked_using(cq, needs, prio), (needs, prio)
        elif policy == "Any":
            cands, key = snap.ranked_using(cq, needs), (needs, None)
        else:
            cands, shared = [c for c in snap.ranked(cq) if not needs.isdisjoint(c.frs)
                             and satisfies_policy(policy, p, c)], False
        if cands:
            plan.groups[group].append(_Part(cq, lca, group, cands, key if shared else None))

    if within != "Never":
        take(p.cluster_queue, None, _SAME, within)
    if snap.parent(me) is None or reclaim == "Never":
        return plan

    def visit(top: str, lca: str, skip: str | None, group: int) -> None:
        """Depth first from `top`, children in name order (an explicit stack: trees of any depth)."""
        stack: list[tuple[bool, str]] = [(True, top)]  # (expand a cohort, node id)
        while stack:
            expand, nid = stack.pop()
            if not expand:
                take(snap.tree.nodes[nid].name, lca, group, reclaim)
                continue
            for ch in sorted(snap.tree.nodes[nid].children, reverse=True):
                if ch == skip or ch == me or snap.within_nominal(ch, needs):
                    continue
                stack.append((snap.tree.nodes[ch].is_cohort, ch))

    if fits is None:
        fits = _fits_up(snap, p)
    advantage = False
    previous: str | None = None
    for anc, ok in zip(snap.ancestors(me), fits):  # the root's own fit is never read
        advantage = advantage or ok
        visit(anc, anc, previous, _HIERARCHY if advantage else _PRIORITY)
        previous = anc
    return plan


def _valid(snap: Snapshot, p: Preemptor, e: _Elem, allow_borrowing: bool) -> bool:
    """C6 (`candidateIsValid`), against the simulated state as victims are removed."""
    _, c, lca, variant = e
    if c.cluster_queue == p.cluster_queue:
        return True
    if allow_borrowing and variant == RECLAIM_WITHOUT_BORROWING:
        return False
    nid = node_id(c.cluster_queue, False)
    if snap.within_nominal(nid, p.needs):
        return False
    for anc in snap.ancestors(nid):
        if anc == lca:
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


def _gone(snap: Snapshot, plan: _Plan, allow_borrowing: bool, frs: tuple) -> list[tuple[str, dict]]:
    """Per cluster queue holding one, the usage in `frs` of the candidates of the plan that the
    attempt may take (the others' non-zero sums only): with borrowing, not the priority group's
    RECLAIM_WITHOUT_BORROWING ones, which `_valid` refuses (a queue's list, kept with the candidates,
    keeps these sums: `Snapshot.using_sums`)."""
    out = []
    bound = plan.borrowing_bound() if allow_borrowing else None
    for group in plan.groups:
        for part in group:
            if group is plan.groups[_PRIORITY] and allow_borrowing:
                if bound is None:
                    continue  # every one RECLAIM_WITHOUT_BORROWING
                below = bound
            else:
                below = None
            if part.shared is not None:
                n, row = snap.using_sums(part.cq, part.shared[0], part.shared[1], frs, below)
            else:
                n, row = sums_of(part.cands, frs, below)
            if n:
                out.append((part.cq, {fr: v for fr, v in zip(frs, row) if v}))
    return out


def _fits_without_all(snap: Snapshot, p: Preemptor, plan: _Plan, allow_borrowing: bool) -> bool:
    """Whether the preemptor fits with every candidate of `plan` that the attempt may take
    gone at once (a necessary condition for the attempt to find targets). The attempt removes a
    subset of these (those `_valid` as it goes, up to the first that makes it fit), and `fits` is
    monotone in what is removed: every queue's `available` only grows as usage anywhere in the
    tree goes down (a cohort's usage sums its children's excess over their guarantee; each level
    adds its local room and the least of its parent's room and its borrowing limit's), and
    `borrowing_with` reads the preemptor's own usage, which only goes down. So when even all of
    them gone doesn't fit, no prefix does and the attempt ends with nothing taken, as the loop
    would. Only without topology-aware placement (`placeable`: placing is not monotone). The
    sums are kept with the plan, by the usage's flavor-resources and the attempt (a plan kept by
    `_kept_plan` is read again with the same candidates)."""
    if snap.placeable is not None:
        return True
    frs = tuple(p.usage)  # all `fits` reads of the usage
    gone = plan.sums.get((frs, allow_borrowing))
    if gone is None:
        gone = plan.sums[(frs, allow_borrowing)] = _gone(snap, plan, allow_borrowing, frs)
    if not gone:
        return False
    for cq, amounts in gone:
        snap.plus(cq, {fr: -v for fr, v in amounts.items()})
    try:
        return snap.fits(p, allow_borrowing)
    finally:
        for cq, amounts in gone:
            snap.plus(cq, amounts)


def _flat(snap: Snapshot, plan: _Plan) -> list[_Elem]:
    """Kueue's candidate sequence (C4), whole: evicted first, then by group, each group in its order
    (`CandidatesOrdering`, with admission fair sharing's part)."""
    key = _RANK if not snap.session.afs.queues else (lambda e: candidate_rank(snap, e[1]))
    groups = []
    for parts in plan.groups:
        group = [plan.element(part, c) for part in parts for c in part.cands]
        group.sort(key=key)
        groups.append(group)
    return [e for g in groups for e in g if e[1].evicted] + [e for g in groups for e in g if not e[1].evicted]


def _elements(snap: Snapshot, plan: _Plan) -> Iterator[_Elem]:
    """`_flat`'s sequence element by element, made only as far as the search reads it: each queue's
    list is in rank order with its evicted candidates first (`Candidate.rank` starts with it), so a
    group in its order is its queues' lists merged by rank (ranks differ: keys do), its evicted ones
    first. Admission fair sharing orders by more than the rank: `_flat` then."""
    if snap.session.afs.queues:
        yield from _flat(snap, plan)
        return
    rests = []
    for parts in plan.groups:
        evicted, rest = [], []
        for part in parts:
            cands = part.cands
            n = 0
            while n < len(cands) and cands[n].evicted:
                n += 1
            if n:
                evicted.append([plan.element(part, c) for c in cands[:n]])
            if n < len(cands):
                rest.append((part, n))
        if len(evicted) == 1:
            yield from evicted[0]
        elif evicted:
            yield from merge(*evicted, key=_RANK)
        rests.append(rest)
    for rest in rests:
        if len(rest) == 1:
            yield from _part_elements(plan, *rest[0])
        elif rest:
            yield from merge(*(_part_elements(plan, part, n) for part, n in rest), key=_RANK)


def _part_elements(plan: _Plan, part: _Part, start: int) -> Iterator[_Elem]:
    element = plan.element
    for c in islice(part.cands, start, None):
        yield element(part, c)


def _sequence(snap: Snapshot, p: Preemptor, spec: ClusterQueue,
              fits: list[bool] | None = None) -> tuple[bool, bool, list[_Elem]]:
    """C2–C4: whether any hierarchy candidate, whether any other queue's candidate, and every
    candidate in Kueue's sequence (evicted first, then by group, each group in its order)."""
    plan = _collect(snap, p, spec, fits)
    return plan.hierarchy, plan.priority, _flat(snap, plan)


def _kept_plan(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> _Plan:
    """`_collect`, kept per state of the session for a snapshot that has not changed yet: a
    cycle's searches (the oracle's per flavor-resource, then the victims' of the nomination it
    answered, the next heads' of the same queue and priority) ask the same one. The plan reads
    the admitted workloads (`session.version`), the usage (its object and version), the quota
    numbers (the tree and its `epoch`, which `what_if` moves), the preemptor's queue, needs and
    priority, its creation time only where the queue's policies compare it, and its usage only
    through which of the queue and its ancestors it fits within (`advantage`, computed here); the
    candidates' order under admission fair sharing reads more: not kept there (nor its sums)."""
    session = snap.session
    version = getattr(session, "version", None)
    if (version is None or session.afs.queues or snap.reading_only or snap.usage.version or snap.live
            or snap.removed or snap.usage is session.usage):
        return _collect(snap, p, spec)
    pre = spec.preemption
    created = p.created if "LowerOrNewerEqualPriority" in (pre.within_cluster_queue, pre.reclaim_within_cohort) \
        else None
    fits = _fits_up(snap, p)
    tree = snap.tree
    state = (version, session.usage, session.usage.version, tree, tree.epoch)
    kept = session.__dict__.get("_sequences")
    if kept is None or kept[0] != state:  # only the state's own: a run's states don't come back
        kept = session.__dict__["_sequences"] = (state, {})
    key = (p.cluster_queue, p.needs, p.priority, created, tuple(fits))
    got = kept[1].get(key)
    if got is None:
        got = kept[1][key] = _collect(snap, p, spec, fits)
    return got


def classical_targets(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> list[Victim]:
    """§3: candidates in Kueue's sequence, one or two attempts (with / without borrowing), the
    first that makes the preemptor fit is filled back. The snapshot is left with the targets
    removed (or as found, when there are none)."""
    plan = _kept_plan(snap, p, spec)
    hierarchy, priority = plan.hierarchy, plan.priority
    forbidden = plan.forbidden
    if (not hierarchy and not priority) or (forbidden and not _under_nominal(snap, p)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for allow in attempts:
        if not _fits_without_all(snap, p, plan, allow):
            continue  # no prefix of the sequence can make it fit: the attempt finds nothing
        taken: list[tuple[Candidate, str]] = []
        for e in _elements(snap, plan):
            if not _valid(snap, p, e, allow):
                continue
            snap.remove(e[1])
            taken.append((e[1], _REASON[e[3]]))
            if snap.fits(p, allow):
                return victims_of(fill_back(snap, p, taken, allow))
        for c, _ in taken:
            snap.add(c)
    return []
