"""Kueue's classical preemption: `classicalPreemptions` (preemption.go) over the candidate
iterator of `preemption/classical` (candidate_generator.go, hierarchical_preemption.go).

Candidates come in three lists: hierarchy candidates (the preemptor is closer to the quota they
use, so any priority goes), priority candidates (other queues, decided by priority and
borrowWithinCohort) and same-queue candidates. Each list is sorted by `CandidatesOrdering`;
the evicted ones of all three come first, then the others, list by list. One or two runs over
them, with and without borrowing allowed, take candidates until the preemptor fits.
"""

from __future__ import annotations

from kadmit.reference.common import (Preemptor, Target, as_targets, candidates_ordering, fill_back_workloads,
                                     restore_snapshot, satisfies_preemption_policy, workload_fits,
                                     workload_uses_resources)
from kadmit.reference.quota import (ResourceNode, is_within_nominal_in_resources, path_parent_to_root,
                                    quantities_fit_in_quota)
from kadmit.reference.snapshot import Admitted, Snapshot

# preemptionVariant values, and the reason each gives its target.
NEVER = None
WITHIN_CQ = "WithinCQ"
HIERARCHICAL_RECLAIM = "HierarchicalReclaim"
RECLAIM_WITHOUT_BORROWING = "ReclaimWithoutBorrowing"
RECLAIM_WHILE_BORROWING = "ReclaimWhileBorrowing"
VARIANT_REASON = {
    WITHIN_CQ: "InClusterQueue",
    HIERARCHICAL_RECLAIM: "InCohortReclamation",
    RECLAIM_WITHOUT_BORROWING: "InCohortReclamation",
    RECLAIM_WHILE_BORROWING: "InCohortReclaimWhileBorrowing",
}


def is_borrowing_within_cohort_forbidden(snap: Snapshot, cq: str):
    """`IsBorrowingWithinCohortForbidden`: (forbidden, maxPriorityThreshold)."""
    setting = snap.specs[cq].preemption.borrow_within_cohort
    if setting is None or setting.policy == "Never":
        return True, None
    return False, setting.max_priority_threshold


def classify_preemption_variant(snap: Snapshot, preemptor: Preemptor, candidate: Admitted,
                                hierarchical_advantage: bool):
    """`classifyPreemptionVariant`."""
    if not workload_uses_resources(candidate, preemptor.needs):
        return NEVER
    policies = snap.specs[preemptor.cluster_queue].preemption
    same_queue = candidate.cluster_queue == preemptor.cluster_queue
    policy = policies.within_cluster_queue if same_queue else policies.reclaim_within_cohort
    if not satisfies_preemption_policy(policy, preemptor, candidate):
        return NEVER
    if same_queue:
        return WITHIN_CQ
    if hierarchical_advantage:
        return HIERARCHICAL_RECLAIM
    forbidden, threshold = is_borrowing_within_cohort_forbidden(snap, preemptor.cluster_queue)
    if forbidden:
        return RECLAIM_WITHOUT_BORROWING
    # isAboveBorrowingThreshold
    if candidate.priority >= preemptor.priority:
        return RECLAIM_WITHOUT_BORROWING
    if threshold is not None and candidate.priority > threshold:
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


class CandidateIterator:
    """`candidateIterator`: the ordered candidates, each with the lowest common ancestor of its
    queue and the preemptor's (None for the preemptor's own queue) and its variant."""

    def __init__(self, snap: Snapshot, preemptor: Preemptor) -> None:
        self.snap = snap
        self.preemptor = preemptor
        self.cq = snap.tree.queues[preemptor.cluster_queue]
        same_queue = self.collect_same_queue_candidates()
        hierarchy, priority = self.collect_candidates_for_hierarchical_reclaim()
        order = candidates_ordering(preemptor.cluster_queue)
        lists = []
        for found in (hierarchy, priority, same_queue):
            lists.append(sorted(found, key=lambda elem: order(elem[0])))
        evicted = [elem for found in lists for elem in found if elem[0].evicted]
        others = [elem for found in lists for elem in found if not elem[0].evicted]
        self.candidates = evicted + others
        self.no_candidate_from_other_queues = not hierarchy and not priority
        self.no_candidate_for_hierarchical_reclaim = not hierarchy

    def candidates_from_cq(self, cq: str, lca: ResourceNode | None, advantage: bool) -> list:
        found = []
        for candidate in self.snap.admitted(cq):
            variant = classify_preemption_variant(self.snap, self.preemptor, candidate, advantage)
            if variant is not NEVER:
                found.append((candidate, lca, variant))
        return found

    def collect_same_queue_candidates(self) -> list:
        if self.snap.specs[self.cq.name].preemption.within_cluster_queue == "Never":
            return []
        return self.candidates_from_cq(self.cq.name, None, False)

    def collect_candidates_for_hierarchical_reclaim(self) -> tuple[list, list]:
        hierarchy: list = []
        priority: list = []
        if self.cq.parent is None or self.snap.specs[self.cq.name].preemption.reclaim_within_cohort == "Never":
            return hierarchy, priority
        previous_root = None
        advantage, remaining = quantities_fit_in_quota(self.cq, self.preemptor.usage)
        for subtree_root in path_parent_to_root(self.cq):
            into = hierarchy if advantage else priority
            self.collect_candidates_in_subtree(subtree_root, subtree_root, previous_root, advantage, into)
            fits, remaining = quantities_fit_in_quota(subtree_root, remaining)
            advantage = advantage or fits
            previous_root = subtree_root
        return hierarchy, priority

    def collect_candidates_in_subtree(self, cohort: ResourceNode, subtree_root: ResourceNode,
                                      skip: ResourceNode | None, advantage: bool, into: list) -> None:
        needs = self.preemptor.needs
        for child in cohort.child_cohorts:
            if child is skip or is_within_nominal_in_resources(child, needs):
                continue
            self.collect_candidates_in_subtree(child, subtree_root, skip, advantage, into)
        for child in cohort.child_cqs:
            if child is self.cq or is_within_nominal_in_resources(child, needs):
                continue
            into.extend(self.candidates_from_cq(child.name, subtree_root, advantage))

    def run(self, borrow: bool):
        """One run of `Next(borrow)` from the start (`Reset`)."""
        for candidate, lca, variant in self.candidates:
            if self.candidate_is_valid(candidate, lca, variant, borrow):
                yield candidate, VARIANT_REASON[variant]

    def candidate_is_valid(self, candidate: Admitted, lca, variant, borrow: bool) -> bool:
        """`candidateIsValid`, against the snapshot as it is when the candidate comes up."""
        if candidate.cluster_queue == self.cq.name:
            return True
        if borrow and variant == RECLAIM_WITHOUT_BORROWING:
            return False
        node = self.snap.tree.queues[candidate.cluster_queue]
        if is_within_nominal_in_resources(node, self.preemptor.needs):
            return False
        for cohort in path_parent_to_root(node):
            if cohort is lca:
                break
            if is_within_nominal_in_resources(cohort, self.preemptor.needs):
                return False
        return True


def queue_under_nominal_in_resources_needing_preemption(snap: Snapshot, preemptor: Preemptor) -> bool:
    """`queueUnderNominalInResourcesNeedingPreemption`: usage strictly below nominal in every
    flavor-resource that needs preemption."""
    node = snap.tree.queues[preemptor.cluster_queue]
    for fr in preemptor.needs:
        quota = node.quotas.get(fr)
        if quota is None or node.usage.get(fr, 0) >= quota.nominal:
            return False
    return True


def classical_targets(snap: Snapshot, preemptor: Preemptor) -> list[Target]:
    """`classicalPreemptions`: the targets, or [] when no run makes the preemptor fit; the
    snapshot is left as found."""
    candidates = CandidateIterator(snap, preemptor)
    forbidden, _ = is_borrowing_within_cohort_forbidden(snap, preemptor.cluster_queue)
    if candidates.no_candidate_from_other_queues or (
            forbidden and not queue_under_nominal_in_resources_needing_preemption(snap, preemptor)):
        attempts = [True]
    elif forbidden and candidates.no_candidate_for_hierarchical_reclaim:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for allow_borrowing in attempts:
        taken: list = []
        for candidate, reason in candidates.run(allow_borrowing):
            snap.remove(candidate)
            taken.append((candidate, reason))
            if workload_fits(snap, preemptor, allow_borrowing):
                kept = fill_back_workloads(snap, preemptor, taken, allow_borrowing)
                restore_snapshot(snap, kept)
                return as_targets(kept)
        restore_snapshot(snap, taken)
    return []
