"""Kueue's fair sharing: dominant resource shares (`pkg/cache/scheduler/fair_sharing.go`),
fair-sharing preemption (`fairPreemptions` in preemption.go over `preemption/fairsharing`:
the target ClusterQueue ordering, almost-LCAs and strategies S2-a / S2-b), and the admission
tournament of `pkg/scheduler/fair_sharing_iterator.go`.
"""

from __future__ import annotations

from fractions import Fraction

from kadmit.reference.common import (S2A, S2B, FairSharing, Preemptor, Target, as_targets, candidates_ordering,
                                     fill_back_workloads, restore_snapshot, satisfies_preemption_policy,
                                     workload_fits, workload_uses_resources)
from kadmit.reference.quota import (FR, ResourceNode, borrowing_with, path_parent_to_root,
                                    potential_available, root_of)
from kadmit.reference.snapshot import Admitted, Snapshot

INF = float("inf")


class DRS:
    """A dominant resource share: the unweighted ratio (per mille of what the parent could lend,
    for the dominant resource), the node's fair weight and the flavor-resources it borrows."""

    def __init__(self, weight: float, ratio: float = 0.0, resource: str = "",
                 borrowing: frozenset[FR] = frozenset()) -> None:
        self.weight = weight
        self.ratio = ratio
        self.resource = resource
        self.borrowing = borrowing

    @property
    def is_borrowing(self) -> bool:
        """`IsBorrowing`: over the subtree quota in some flavor-resource (a queue or cohort that
        isn't is pruned from the target ordering)."""
        return len(self.borrowing) > 0

    @property
    def is_zero(self) -> bool:
        """`IsZero`: no ratio (also when borrowing only what the parent has nothing to lend of)."""
        return self.ratio == 0

    @property
    def zero_weight_borrows(self) -> bool:
        """`zeroWeightBorrows`: a zero weight with a non-zero ratio."""
        return self.weight == 0 and not self.is_zero

    @property
    def share(self) -> float:
        """`PreciseWeightedShare`: 0 without a ratio, +inf for a zero weight, else ratio / weight."""
        if self.is_zero:
            return 0.0
        if self.weight == 0:
            return INF
        return self.ratio / self.weight

    def borrows_on(self, requests: dict[FR, int]) -> bool:
        """`IsBorrowingOn`: borrowing in a flavor-resource the entry requests a positive amount of."""
        return any(requests.get(fr, 0) > 0 for fr in self.borrowing)


def compare_drs(a: DRS, b: DRS) -> int:
    """`CompareDRS`: zero-weight borrowers above all others (by ratio among themselves), the
    others by weighted share."""
    if a.zero_weight_borrows and b.zero_weight_borrows:
        x, y = a.ratio, b.ratio
    elif a.zero_weight_borrows or b.zero_weight_borrows:
        return 1 if a.zero_weight_borrows else -1
    else:
        x, y = a.share, b.share
    if x == y:
        return 0
    return 1 if x > y else -1


def drs_order(drs: DRS) -> tuple:
    """A sort key that orders shares as `compare_drs` does."""
    if drs.zero_weight_borrows:
        return (1, drs.ratio)
    return (0, drs.share)


def dominant_resource_share(snap: Snapshot, node: ResourceNode, extra: dict[FR, int] | None = None) -> DRS:
    """`dominantResourceShare` of a node with `extra` requests on top of its usage: per resource
    name, what it uses beyond its subtree quota (summed over flavors), over what its parent could
    lend of that resource (`potentialAvailable` of the parent, summed over every flavor of the
    root's subtree quota), times 1000; the largest wins, the first resource name among equals.
    A node without a parent has share 0."""
    weight = snap.fair_weight(node)
    if node.parent is None:
        return DRS(weight)
    extra = extra or {}
    borrowed_by_resource: dict[str, int] = {}
    borrowed_frs = []
    for fr in node.subtree_quota:
        beyond = extra.get(fr, 0) + node.usage.get(fr, 0) - node.subtree_quota[fr]
        if beyond > 0:
            borrowed_by_resource[fr[1]] = borrowed_by_resource.get(fr[1], 0) + beyond
            borrowed_frs.append(fr)
    if not borrowed_by_resource:
        return DRS(weight)
    lendable: dict[str, int] = {}
    for fr in root_of(node).subtree_quota:
        lendable[fr[1]] = lendable.get(fr[1], 0) + potential_available(node.parent, fr)
    best_ratio, best_resource = 0.0, ""
    for resource in sorted(borrowed_by_resource):
        can_lend = lendable.get(resource, 0)
        if can_lend <= 0:
            continue
        ratio = float(Fraction(borrowed_by_resource[resource] * 1000, can_lend))
        if ratio > best_ratio:
            best_ratio, best_resource = ratio, resource
    return DRS(weight, best_ratio, best_resource, frozenset(borrowed_frs))


# --- preemption ---------------------------------------------------------------------------------

def cq_is_borrowing(node: ResourceNode, frs) -> bool:
    """`cqIsBorrowing`: in a cohort and over its quota in some flavor-resource of `frs`."""
    if node.parent is None:
        return False
    return any(borrowing_with(node, fr, 0) for fr in frs)


def find_candidates(snap: Snapshot, preemptor: Preemptor) -> list[Admitted]:
    """`findCandidates`: the preemptor queue's workloads allowed by withinClusterQueue, then
    those of every borrowing queue of the cohort tree allowed by reclaimWithinCohort; only
    workloads using a flavor-resource that needs preemption."""
    policies = snap.specs[preemptor.cluster_queue].preemption
    cq = snap.tree.queues[preemptor.cluster_queue]
    found = []
    if policies.within_cluster_queue != "Never":
        for candidate in snap.admitted(cq.name):
            if (satisfies_preemption_policy(policies.within_cluster_queue, preemptor, candidate)
                    and workload_uses_resources(candidate, preemptor.needs)):
                found.append(candidate)
    if cq.parent is not None and policies.reclaim_within_cohort != "Never":
        for other in queues_under(root_of(cq)):
            if other is cq or not cq_is_borrowing(other, preemptor.needs):
                continue
            for candidate in snap.admitted(other.name):
                if (satisfies_preemption_policy(policies.reclaim_within_cohort, preemptor, candidate)
                        and workload_uses_resources(candidate, preemptor.needs)):
                    found.append(candidate)
    return found


def queues_under(cohort: ResourceNode) -> list[ResourceNode]:
    """The ClusterQueues of a cohort's subtree, each cohort's own queues after its sub-cohorts'."""
    out = []
    for child in cohort.child_cohorts:
        out.extend(queues_under(child))
    out.extend(cohort.child_cqs)
    return out


class TargetClusterQueueOrdering:
    """`TargetClusterQueueOrdering`: from the root, descend into the child with the highest share
    (a cohort wins a tie with a queue; among queues with equal shares, the one whose next candidate
    comes first), pruning queues without candidates or that stopped borrowing (the preemptor's own
    queue only when out of candidates) and cohorts that stopped borrowing off the preemptor's path."""

    def __init__(self, snap: Snapshot, preemptor: Preemptor, candidates: list[Admitted]) -> None:
        self.snap = snap
        self.preemptor_cq = snap.tree.queues[preemptor.cluster_queue]
        self.ancestors = path_parent_to_root(self.preemptor_cq)
        self.order = candidates_ordering(preemptor.cluster_queue)
        self.targets_of: dict[str, list[Admitted]] = {}
        for candidate in candidates:
            self.targets_of.setdefault(candidate.cluster_queue, []).append(candidate)
        self.pruned_cqs: list[ResourceNode] = []
        self.pruned_cohorts: list[ResourceNode] = []

    def has_workload(self, cq: ResourceNode) -> bool:
        return len(self.targets_of.get(cq.name, [])) > 0

    def pop_workload(self, cq: ResourceNode) -> Admitted:
        return self.targets_of[cq.name].pop(0)

    def drop_queue(self, cq: ResourceNode) -> None:
        self.pruned_cqs.append(cq)

    def iter(self):
        if self.preemptor_cq.parent is None:
            while self.preemptor_cq not in self.pruned_cqs and self.has_workload(self.preemptor_cq):
                yield self.preemptor_cq
            return
        root = self.ancestors[-1]
        while root not in self.pruned_cohorts:
            target = self.next_target(root)
            if target is not None:
                yield target

    def next_target(self, cohort: ResourceNode) -> ResourceNode | None:
        highest_cq, highest_cq_drs = None, None
        for cq in cohort.child_cqs:
            if cq in self.pruned_cqs:
                continue
            drs = dominant_resource_share(self.snap, cq)
            if (not drs.is_borrowing and cq is not self.preemptor_cq) or not self.has_workload(cq):
                self.pruned_cqs.append(cq)
            elif highest_cq is None or compare_drs(drs, highest_cq_drs) == 1:
                highest_cq, highest_cq_drs = cq, drs
            elif compare_drs(drs, highest_cq_drs) == 0:
                new = self.order(self.targets_of[cq.name][0])
                current = self.order(self.targets_of[highest_cq.name][0])
                if new < current:
                    highest_cq = cq
        highest_cohort, highest_cohort_drs = None, None
        for child in cohort.child_cohorts:
            if child in self.pruned_cohorts:
                continue
            drs = dominant_resource_share(self.snap, child)
            if not drs.is_borrowing and child not in self.ancestors:
                self.pruned_cohorts.append(child)
            elif highest_cohort is None or compare_drs(drs, highest_cohort_drs) >= 0:
                highest_cohort, highest_cohort_drs = child, drs
        if highest_cohort is None and highest_cq is None:
            self.pruned_cohorts.append(cohort)
            return None
        if highest_cohort is not None and (highest_cq is None or compare_drs(highest_cohort_drs, highest_cq_drs) >= 0):
            return self.next_target(highest_cohort)
        return highest_cq


def almost_lcas(preemptor_cq: ResourceNode, target_cq: ResourceNode) -> tuple[ResourceNode, ResourceNode]:
    """`getAlmostLCAs`: the children of the two queues' lowest common ancestor on the way down
    to each of them."""
    preemptor_path = [preemptor_cq] + path_parent_to_root(preemptor_cq)
    target_path = [target_cq] + path_parent_to_root(target_cq)
    for i in range(1, len(target_path)):
        if target_path[i] in preemptor_path[1:]:
            lca_in_preemptor_path = preemptor_path.index(target_path[i])
            return preemptor_path[lca_in_preemptor_path - 1], target_path[i - 1]
    raise ValueError("the two queues share no cohort")


def fair_targets(snap: Snapshot, preemptor: Preemptor, fair: FairSharing) -> list[Target]:
    """`fairPreemptions`: the shares count the preemptor's usage (added to its queue while the
    strategies run), the fit checks don't (`workloadFitsForFairSharing`)."""
    candidates = find_candidates(snap, preemptor)
    if not candidates:
        return []
    candidates.sort(key=candidates_ordering(preemptor.cluster_queue))
    strategies = fair.strategies or (S2A, S2B)
    tree = snap.tree
    tree.add_usage(preemptor.cluster_queue, preemptor.usage)
    targets: list = []
    fits, retry = run_first_strategy(snap, preemptor, fair, candidates, strategies[0], targets)
    if not fits and len(strategies) > 1:
        fits = run_second_strategy(snap, preemptor, retry, targets)
    tree.remove_usage(preemptor.cluster_queue, preemptor.usage)
    if not fits:
        restore_snapshot(snap, targets)
        return []
    kept = fill_back_workloads(snap, preemptor, targets, True)
    restore_snapshot(snap, kept)
    return as_targets(kept)


def fits_for_fair_sharing(snap: Snapshot, preemptor: Preemptor) -> bool:
    snap.tree.remove_usage(preemptor.cluster_queue, preemptor.usage)
    fits = workload_fits(snap, preemptor, True)
    snap.tree.add_usage(preemptor.cluster_queue, preemptor.usage)
    return fits


def strategy_passes(strategy: str, preemptor_new: DRS, target_old: DRS, target_new: DRS | None) -> bool:
    """S2-a (`LessThanOrEqualToFinalShare`) or S2-b (`LessThanInitialShare`)."""
    if strategy == S2A:
        return compare_drs(preemptor_new, target_new) <= 0
    return compare_drs(preemptor_new, target_old) < 0


def compute_shares(snap: Snapshot, preemptor_cq: ResourceNode, target_cq: ResourceNode) -> tuple[DRS, DRS]:
    """`ComputeShares`: (preemptor's new share, target's old share) at their almost-LCAs."""
    mine, theirs = almost_lcas(preemptor_cq, target_cq)
    return dominant_resource_share(snap, mine), dominant_resource_share(snap, theirs)


def run_first_strategy(snap: Snapshot, preemptor: Preemptor, fair: FairSharing, candidates: list[Admitted],
                       strategy: str, targets: list) -> tuple[bool, list[Admitted]]:
    """`runFirstFsStrategy`: (fits, the candidates left for rule S2-b)."""
    ordering = TargetClusterQueueOrdering(snap, preemptor, candidates)
    pcq = ordering.preemptor_cq
    within_nominal = fair.preempt_within_nominal and not any(borrowing_with(pcq, fr, 0) for fr in preemptor.needs)
    retry: list[Admitted] = []
    for cand_cq in ordering.iter():
        if cand_cq is pcq or within_nominal:
            victim = ordering.pop_workload(cand_cq)
            snap.remove(victim)
            targets.append((victim, "InClusterQueue" if cand_cq is pcq else "InCohortReclamation"))
            if fits_for_fair_sharing(snap, preemptor):
                return True, []
            continue
        preemptor_new, target_old = compute_shares(snap, pcq, cand_cq)
        if preemptor_new.share == INF and target_old.share != INF:  # fsStrategyUnsatisfiable
            while ordering.has_workload(cand_cq):
                retry.append(ordering.pop_workload(cand_cq))
            continue
        while ordering.has_workload(cand_cq):
            victim = ordering.pop_workload(cand_cq)
            tree_node = snap.tree.queues[victim.cluster_queue]
            snap.tree.remove_usage(victim.cluster_queue, victim.usage)  # ComputeTargetShareAfterRemoval
            target_new = dominant_resource_share(snap, almost_lcas(pcq, tree_node)[1])
            snap.tree.add_usage(victim.cluster_queue, victim.usage)
            if not strategy_passes(strategy, preemptor_new, target_old, target_new):
                retry.append(victim)
                continue
            snap.remove(victim)
            targets.append((victim, "InCohortFairSharing"))
            if fits_for_fair_sharing(snap, preemptor):
                return True, []
            break  # the shares changed: consult the ordering again
    return False, retry


def run_second_strategy(snap: Snapshot, preemptor: Preemptor, retry: list[Admitted], targets: list) -> bool:
    """`runSecondFsStrategy`: per queue in the ordering, its first candidate goes if the
    preemptor's new share is below the target's current one; the queue is dropped either way."""
    ordering = TargetClusterQueueOrdering(snap, preemptor, retry)
    for cand_cq in ordering.iter():
        preemptor_new, target_old = compute_shares(snap, ordering.preemptor_cq, cand_cq)
        victim = ordering.pop_workload(cand_cq)
        if strategy_passes(S2B, preemptor_new, target_old, None):
            snap.remove(victim)
            targets.append((victim, "InCohortFairSharing"))
            if fits_for_fair_sharing(snap, preemptor):
                return True
        ordering.drop_queue(cand_cq)
    return False
