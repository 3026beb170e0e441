"""Kueue's fair sharing, replayed: dominant resource shares and `fairPreemptionStrategy` (rules S2-a / S2-b)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from kadmit.reference.quota import FR, Node, ancestors
from kadmit.reference.snapshot import (DEFAULT_STRATEGIES, IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING,
                                       IN_COHORT_RECLAMATION, LESS_THAN_INITIAL_SHARE,
                                       LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, Admitted, Candidates, FairSharing,
                                       Preemptor, Snapshot, Target, candidate_key, is_borrowing,
                                       satisfies_policy, select_targets, uses_needed, within_nominal_now)


# --- fair sharing -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DRS:
    """A dominant resource share: the unweighted ratio (per mille of what the cohort can lend),
    the node's weight, and the flavor-resources it borrows."""

    weight: float
    ratio: float = 0.0
    resource: str = ""
    borrowing: frozenset[FR] = frozenset()

    @property
    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and bool(self.borrowing)

    @property
    def is_zero(self) -> bool:
        """Not borrowing at all (such nodes are pruned from preemption)."""
        return not self.borrowing

    @property
    def share(self) -> float:
        """`PreciseWeightedShare`: 0 when not borrowing, +inf for a zero weight that borrows."""
        if self.ratio == 0 and not self.zero_weight_borrows:
            return 0.0
        if self.weight == 0:
            return float("inf")
        return self.ratio / self.weight

    def key(self) -> tuple:
        """Sorts as `CompareDRS`: zero-weight borrowers above everything, by ratio among them."""
        return (1, self.ratio) if self.zero_weight_borrows else (0, self.share)

    def borrows_on(self, frs) -> bool:
        """`IsBorrowingOn`: borrowing in one of the given flavor-resources."""
        return any(fr in self.borrowing for fr in frs)


def compare_drs(a: DRS, b: DRS) -> int:
    ka, kb = a.key(), b.key()
    return (ka > kb) - (ka < kb)


def dominant_resource_share(snap: Snapshot, node: Node, extra: dict[FR, int] | None = None) -> DRS:
    """`dominantResourceShare`: for a node with a parent, per resource name the usage beyond the
    node's subtree quota (summed over flavors, with `extra` added), divided by what the parent
    could lend of that resource (`potentialAvailable` of the parent, summed over the flavors of
    the whole tree), times 1000; the largest ratio wins (the first resource name among equals).
    A root node has share 0."""
    weight = snap.weight(node)
    if node.parent is None:
        return DRS(weight)
    extra = extra or {}
    borrowed: dict[str, int] = {}
    frs: set[FR] = set()
    for fr, quota in node.subtree.items():
        amount = extra.get(fr, 0) + node.usage.get(fr, 0) - quota
        if amount > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + amount
            frs.add(fr)
    if not borrowed:
        return DRS(weight)
    root = node
    while root.parent is not None:
        root = root.parent
    lendable: dict[str, int] = {}
    for fr in root.subtree:
        lendable[fr[1]] = lendable.get(fr[1], 0) + snap.tree.node_potential(node.parent, fr)
    ratio, resource = 0.0, ""
    for res in sorted(borrowed):
        if lendable.get(res, 0) > 0:
            value = float(Fraction(borrowed[res] * 1000, lendable[res]))
            if value > ratio:
                ratio, resource = value, res
    return DRS(weight, ratio, resource, frozenset(frs))


def strategy_passes(name: str, preemptor_new: DRS, target_old: DRS, target_new: DRS | None) -> bool:
    """Rule S2-a (`LessThanOrEqualToFinalShare`) or S2-b (`LessThanInitialShare`)."""
    if name == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        return compare_drs(preemptor_new, target_new) <= 0
    return compare_drs(preemptor_new, target_old) < 0


def _almost_lcas(snap: Snapshot, preemptor_cq: str, target_cq: str) -> tuple[Node, Node]:
    """The children of the lowest common ancestor on the way to each queue (`getAlmostLCAs`)."""
    pnode, tnode = snap.tree.queues[preemptor_cq], snap.tree.queues[target_cq]
    p_path = [pnode] + ancestors(pnode)
    t_path = [tnode] + ancestors(tnode)
    lca = next(n for n in t_path[1:] if any(n is m for m in p_path[1:]))
    below = lambda path: path[next(i for i, n in enumerate(path) if n is lca) - 1]
    return below(p_path), below(t_path)


class _TargetOrdering:
    """`TargetClusterQueueOrdering`: from the root, repeatedly descend into the child with the
    highest share (a cohort wins ties against queues; among queues with equal shares, the one
    whose next candidate comes first by `candidate_key`), pruning queues that have no candidates
    left or stopped borrowing (the preemptor's own queue only when out of candidates) and
    cohorts that stopped borrowing and are not above the preemptor."""

    def __init__(self, snap: Snapshot, p: Preemptor, candidates: list[Admitted]) -> None:
        self.snap, self.p = snap, p
        self.by_cq: dict[str, list[Admitted]] = {}
        for wl in candidates:
            self.by_cq.setdefault(wl.cluster_queue, []).append(wl)
        self.pnode = snap.tree.queues[p.cluster_queue]
        self.above = ancestors(self.pnode)
        self.pruned: set[int] = set()

    def pop(self, cq: str) -> Admitted:
        return self.by_cq[cq].pop(0)

    def has(self, cq: str) -> bool:
        return bool(self.by_cq.get(cq))

    def drop(self, cq: str) -> None:
        self.pruned.add(id(self.snap.tree.queues[cq]))

    def __iter__(self) -> Iterator[str]:
        if self.pnode.parent is None:
            while self.has(self.p.cluster_queue):
                yield self.p.cluster_queue
            return
        root = self.above[-1]
        while id(root) not in self.pruned:
            cq = self._next(root)
            if cq is not None:
                yield cq

    def _next(self, cohort: Node) -> str | None:
        best_cq: Node | None = None
        best_cq_drs: DRS | None = None
        for child in sorted((c for c in cohort.children if c.is_cluster_queue), key=lambda n: n.name):
            if id(child) in self.pruned:
                continue
            drs = dominant_resource_share(self.snap, child)
            if (drs.is_zero and child is not self.pnode) or not self.has(child.name):
                self.pruned.add(id(child))
            elif best_cq is None or compare_drs(drs, best_cq_drs) > 0:
                best_cq, best_cq_drs = child, drs
            elif compare_drs(drs, best_cq_drs) == 0:
                mine = candidate_key(self.by_cq[child.name][0], self.p.cluster_queue)
                theirs = candidate_key(self.by_cq[best_cq.name][0], self.p.cluster_queue)
                if mine < theirs:
                    best_cq = child
        best_cohort: Node | None = None
        best_cohort_drs: DRS | None = None
        for child in sorted((c for c in cohort.children if not c.is_cluster_queue), key=lambda n: n.name):
            if id(child) in self.pruned:
                continue
            drs = dominant_resource_share(self.snap, child)
            if drs.is_zero and not any(child is a for a in self.above):
                self.pruned.add(id(child))
            elif best_cohort is None or compare_drs(drs, best_cohort_drs) >= 0:
                best_cohort, best_cohort_drs = child, drs
        if best_cohort is None and best_cq is None:
            self.pruned.add(id(cohort))
            return None
        if best_cohort is not None and (best_cq is None or compare_drs(best_cohort_drs, best_cq_drs) >= 0):
            return self._next(best_cohort)
        return best_cq.name


def _fair_candidates(snap: Snapshot, p: Preemptor) -> list[Admitted]:
    """`findCandidates`: the preemptor queue's workloads allowed by withinClusterQueue, and
    those of every borrowing queue of the whole cohort tree allowed by reclaimWithinCohort; only
    workloads holding a needed flavor-resource; sorted by `candidate_key`."""
    spec = snap.specs[p.cluster_queue]
    cq = snap.tree.queues[p.cluster_queue]
    out: list[Admitted] = []
    if spec.preemption.within_cluster_queue != "Never":
        out += [wl for wl in snap.admitted(p.cluster_queue)
                if satisfies_policy(spec.preemption.within_cluster_queue, p, wl) and uses_needed(wl, p.needs)]
    if cq.parent is not None and spec.preemption.reclaim_within_cohort != "Never":
        root = ancestors(cq)[-1]
        for other in _subtree_queues(root):
            if other is cq or not is_borrowing(other, p.needs):
                continue
            out += [wl for wl in snap.admitted(other.name)
                    if satisfies_policy(spec.preemption.reclaim_within_cohort, p, wl) and uses_needed(wl, p.needs)]
    out.sort(key=lambda wl: candidate_key(wl, p.cluster_queue))
    return out


def _subtree_queues(node: Node) -> list[Node]:
    out: list[Node] = []
    for child in sorted(node.children, key=lambda n: (not n.is_cluster_queue, n.name)):
        out += [child] if child.is_cluster_queue else _subtree_queues(child)
    return out


def fair_targets(snap: Snapshot, p: Preemptor, fair: FairSharing) -> list[Target]:
    """Fair-sharing preemption (`fairPreemptionStrategy`), one strategy run over:

    1. the first configured rule: walk the target-queue ordering; the preemptor's own queue
       gives its next candidate (InClusterQueue); while the preemptor's queue stays within
       nominal quota in the needed resources (preemptor admitted), any other queue gives its
       next candidate (InCohortReclamation); otherwise the queue's candidates are tried in order
       against the rule with the almost-LCA shares, the first that passes is taken
       (InCohortFairSharing) and the ordering is consulted again, those that fail wait for rule 2;
    2. with a second rule (S2-b), the candidates that failed, per queue in the same ordering:
       the first candidate is taken if the preemptor's new share is below the target's current
       one, and the queue is dropped either way.

    Shares are computed with the preemptor's usage added to its queue; the fit checks without it.
    """
    candidates = _fair_candidates(snap, p)
    if not candidates:
        return []
    strategies = fair.strategies or DEFAULT_STRATEGIES

    def gen() -> Candidates:
        tree = snap.tree
        tree.add_usage(p.cluster_queue, p.usage)
        added = True

        def give(wl: Admitted, reason: str):
            nonlocal added
            snap.remove(wl)
            tree.remove_usage(p.cluster_queue, p.usage)
            added = False
            yield wl, reason
            tree.add_usage(p.cluster_queue, p.usage)
            added = True

        try:
            ordering = _TargetOrdering(snap, p, candidates)
            within = fair.preempt_within_nominal and within_nominal_now(snap, p)
            retry: list[Admitted] = []
            for cq in ordering:
                if cq == p.cluster_queue:
                    yield from give(ordering.pop(cq), IN_CLUSTER_QUEUE)
                    continue
                if within:
                    yield from give(ordering.pop(cq), IN_COHORT_RECLAMATION)
                    continue
                pa, ta = _almost_lcas(snap, p.cluster_queue, cq)
                p_new, t_old = dominant_resource_share(snap, pa), dominant_resource_share(snap, ta)
                if p_new.zero_weight_borrows and not t_old.zero_weight_borrows:
                    while ordering.has(cq):
                        retry.append(ordering.pop(cq))
                    continue
                while ordering.has(cq):
                    wl = ordering.pop(cq)
                    tree.remove_usage(wl.cluster_queue, wl.usage)
                    t_new = dominant_resource_share(snap, ta)
                    tree.add_usage(wl.cluster_queue, wl.usage)
                    if strategy_passes(strategies[0], p_new, t_old, t_new):
                        yield from give(wl, IN_COHORT_FAIR_SHARING)
                        break
                    retry.append(wl)
            if len(strategies) > 1 and retry:
                second = _TargetOrdering(snap, p, retry)
                for cq in second:
                    pa, ta = _almost_lcas(snap, p.cluster_queue, cq)
                    passed = strategy_passes(LESS_THAN_INITIAL_SHARE, dominant_resource_share(snap, pa),
                                             dominant_resource_share(snap, ta), None)
                    wl = second.pop(cq)
                    if passed:
                        yield from give(wl, IN_COHORT_FAIR_SHARING)
                    second.drop(cq)
        finally:
            if added:
                tree.remove_usage(p.cluster_queue, p.usage)

    return select_targets(snap, p, [(gen, True)])
