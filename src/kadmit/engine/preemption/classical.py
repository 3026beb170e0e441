"""Kueue's classical preemption (§3 of docs/PREEMPTION.md): candidates by variant, taken until the preemptor fits."""

from __future__ import annotations

from operator import itemgetter

from kadmit.engine.afs import candidate_rank
from kadmit.engine.quota import node_id
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                                 IN_COHORT_RECLAMATION, Candidate, Preemptor, Victim,
                                                 satisfies_policy)
from kadmit.engine.preemption.snapshot import Snapshot, fill_back, victims_of
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


def _collect(snap: Snapshot, p: Preemptor, spec: ClusterQueue,
             fits: list[bool] | None = None) -> tuple[list[_Elem], list[_Elem], list[_Elem]]:
    """C2: (hierarchy, priority, same-queue) candidates, with C1 + C3 (`classifyPreemptionVariant`):
    a candidate that uses a flavor-resource needing preemption and that the queue's policy allows.
    `fits`: `_fits_up` of this state, when the caller has it already."""
    me = node_id(p.cluster_queue, False)
    needs, prio = p.needs, p.priority
    within, reclaim = spec.preemption.within_cluster_queue, spec.preemption.reclaim_within_cohort

    def allowed(cq: str, policy: str):
        if policy == "LowerPriority":
            return snap.ranked_using(cq, needs, prio)
        if policy == "Any":
            return snap.ranked_using(cq, needs)
        return [c for c in snap.ranked(cq) if not needs.isdisjoint(c.frs) and satisfies_policy(policy, p, c)]

    same: list[_Elem] = []
    if within != "Never":
        same = [(c.rank, c, None, WITHIN_CQ) for c in allowed(p.cluster_queue, within)]
    hierarchy: list[_Elem] = []
    priority: list[_Elem] = []
    if snap.parent(me) is None or reclaim == "Never":
        return hierarchy, priority, same
    forbidden, threshold = _borrowing_forbidden(spec)

    def take(cq: str, lca: str, into: list[_Elem]) -> None:
        if into is hierarchy:
            into.extend((c.rank, c, lca, HIERARCHY) for c in allowed(cq, reclaim))
            return
        for c in allowed(cq, reclaim):
            if forbidden or c.priority >= prio or (threshold is not None and c.priority > threshold):
                into.append((c.rank, c, lca, RECLAIM_WITHOUT_BORROWING))
            else:
                into.append((c.rank, c, lca, RECLAIM_WHILE_BORROWING))

    def visit(top: str, lca: str, skip: str | None, into: list[_Elem]) -> None:
        """Depth first from `top`, children in name order (an explicit stack: trees of any depth)."""
        stack: list[tuple[bool, str]] = [(True, top)]  # (expand a cohort, node id)
        while stack:
            expand, nid = stack.pop()
            if not expand:
                take(snap.tree.nodes[nid].name, lca, into)
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
        visit(anc, anc, previous, hierarchy if advantage else priority)
        previous = anc
    return hierarchy, priority, same


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


def _gone(p: Preemptor, sequence: list[_Elem], allow_borrowing: bool,
          frs: tuple) -> list[tuple[str, dict]]:
    """Per cluster queue, in first-seen order, the usage in `frs` of the candidates of `sequence`
    that the attempt may take (the others' non-zero sums only)."""
    gone: dict[str, list[int]] = {}
    mine = p.cluster_queue
    for e in sequence:
        c = e[1]
        if allow_borrowing and e[3] == RECLAIM_WITHOUT_BORROWING and c.cluster_queue != mine:
            continue  # `_valid` refuses it in this attempt
        row = gone.get(c.cluster_queue)
        if row is None:
            row = gone[c.cluster_queue] = [0] * len(frs)
        amounts = c.amounts
        for i, fr in enumerate(frs):
            row[i] += amounts.get(fr, 0)
    return [(cq, {fr: v for fr, v in zip(frs, row) if v}) for cq, row in gone.items()]


def _fits_without_all(snap: Snapshot, p: Preemptor, sequence: list[_Elem], allow_borrowing: bool,
                      sums: dict | None = None) -> bool:
    """Whether the preemptor fits with every candidate of `sequence` that the attempt may take
    gone at once (a necessary condition for the attempt to find targets). The attempt removes a
    subset of these (those `_valid` as it goes, up to the first that makes it fit), and `fits` is
    monotone in what is removed: every queue's `available` only grows as usage anywhere in the
    tree goes down (a cohort's usage sums its children's excess over their guarantee; each level
    adds its local room and the least of its parent's room and its borrowing limit's), and
    `borrowing_with` reads the preemptor's own usage, which only goes down. So when even all of
    them gone doesn't fit, no prefix does and the attempt ends with nothing taken, as the loop
    would. Only without topology-aware placement (`placeable`: placing is not monotone).
    `sums`: where the sums of a kept sequence are kept (by the usage's flavor-resources and the
    attempt; the sequence is the same object with the same candidates while it is kept)."""
    if snap.placeable is not None:
        return True
    frs = tuple(p.usage)  # all `fits` reads of the usage
    if sums is None:
        gone = _gone(p, sequence, allow_borrowing, frs)
    else:
        gone = sums.get((frs, allow_borrowing))
        if gone is None:
            gone = sums[(frs, allow_borrowing)] = _gone(p, sequence, allow_borrowing, frs)
    if not gone:
        return False
    for cq, amounts in gone:
        snap.plus(cq, {fr: -v for fr, v in amounts.items()})
    try:
        return snap.fits(p, allow_borrowing)
    finally:
        for cq, amounts in gone:
            snap.plus(cq, amounts)


def _sequence(snap: Snapshot, p: Preemptor, spec: ClusterQueue,
              fits: list[bool] | None = None) -> tuple[bool, bool, list[_Elem]]:
    """C2–C4: whether any hierarchy candidate, whether any other queue's candidate, and every
    candidate in Kueue's sequence (evicted first, then by group, each group in its order)."""
    hierarchy, priority, same = _collect(snap, p, spec, fits)
    # Kueue's CandidatesOrdering within the group (ranks differ: keys do), with admission fair sharing's part
    key = _RANK if not snap.session.afs.queues else (lambda e: candidate_rank(snap, e[1]))
    for group in (hierarchy, priority, same):
        group.sort(key=key)
    evicted = [e for g in (hierarchy, priority, same) for e in g if e[1].evicted]
    rest = [e for g in (hierarchy, priority, same) for e in g if not e[1].evicted]
    return bool(hierarchy), bool(priority), evicted + rest


def _kept_sequence(snap: Snapshot, p: Preemptor,
                   spec: ClusterQueue) -> tuple[bool, bool, list[_Elem], dict | None]:
    """`_sequence`, kept per state of the session for a snapshot that has not changed yet: a
    cycle's searches (the oracle's per flavor-resource, then the victims' of the nomination it
    answered, the next heads' of the same queue and priority) ask the same one. The sequence reads
    the admitted workloads (`session.version`), the usage (its object and version), the quota
    numbers (the tree and its `epoch`, which `what_if` moves), the preemptor's queue, needs and
    priority, its creation time only where the queue's policies compare it, and its usage only
    through which of the queue and its ancestors it fits within (`advantage`, computed here); the
    candidates' order under admission fair sharing reads more: not kept there. The fourth item keeps
    `_fits_without_all`'s sums of the kept sequence (None when the sequence is not kept)."""
    session = snap.session
    version = getattr(session, "version", None)
    if (version is None or session.afs.queues or snap.reading_only or snap.usage.version or snap.live
            or snap.removed or snap.usage is session.usage):
        return (*_sequence(snap, p, spec), None)
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
        got = kept[1][key] = (*_sequence(snap, p, spec, fits), {})
    return got


def classical_targets(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> list[Victim]:
    """§3: candidates in Kueue's sequence, one or two attempts (with / without borrowing), the
    first that makes the preemptor fit is filled back. The snapshot is left with the targets
    removed (or as found, when there are none)."""
    hierarchy, priority, sequence, sums = _kept_sequence(snap, p, spec)
    forbidden, _ = _borrowing_forbidden(spec)
    if (not hierarchy and not priority) or (forbidden and not _under_nominal(snap, p)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for allow in attempts:
        if not _fits_without_all(snap, p, sequence, allow, sums):
            continue  # no prefix of the sequence can make it fit: the attempt finds nothing
        taken: list[tuple[Candidate, str]] = []
        for e in sequence:
            if not _valid(snap, p, e, allow):
                continue
            snap.remove(e[1])
            taken.append((e[1], _REASON[e[3]]))
            if snap.fits(p, allow):
                return victims_of(fill_back(snap, p, taken, allow))
        for c, _ in taken:
            snap.add(c)
    return []
