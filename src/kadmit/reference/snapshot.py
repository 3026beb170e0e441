"""The preemption replay's state: admitted workloads on the reference quota tree, the preemptor, Kueue's reasons and policies, and the generic first-fit-then-fill-back search."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

from kadmit.model import ClusterQueue, Cohort
from kadmit.reference.quota import (
    FR,
    Node,
    QuotaTree,
    ancestors,
    borrowing_with,
)


# Preempted-condition reasons (kueue.InClusterQueueReason and friends).
IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

HUMAN_REASONS = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
    IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
    IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
}

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)

# What the preemption oracle tells the flavor assigner (preemptioncommon.PreemptionPossibility).
NO_CANDIDATES = "NoCandidates"
PREEMPT = "Preempt"
RECLAIM = "Reclaim"


def preempted_message(reason: str, preemptor_path: str, preemptee_path: str,
                      uid: str = "", job_uid: str = "") -> str:
    """The message of the victim's `Evicted` and `Preempted` conditions (`preemptionMessage`);
    Kueue writes UNKNOWN for a missing UID, job UID or path."""
    return (f"Preempted to accommodate a workload (UID: {uid or 'UNKNOWN'}, JobUID: {job_uid or 'UNKNOWN'}) "
            f"due to {HUMAN_REASONS.get(reason, 'UNKNOWN')}; preemptor path: {preemptor_path or 'UNKNOWN'}; "
            f"preemptee path: {preemptee_path or 'UNKNOWN'}")


def pending_preemption_message(assignment_message: str, count: int) -> str:
    """The preemptor's QuotaReserved message after it issued preemptions (`markPreemptionOutcome`)."""
    return f"{assignment_message}. Pending the preemption of {count} workload(s)"


@dataclass(frozen=True)
class Admitted:
    """An admitted workload as preemption sees it."""

    key: str
    cluster_queue: str
    priority: int
    created: datetime  # queue-order timestamp (LowerOrNewerEqualPriority compares it)
    admitted_at: datetime  # quota reservation time ("most recently admitted first")
    usage: dict[FR, int]
    evicted: bool = False  # already being evicted: preferred as a victim, not evicted twice


@dataclass(frozen=True)
class Preemptor:
    """The pending workload, its cluster queue and the usage of its flavor assignment; `needs`
    are the flavor-resources whose flavor was assigned in Preempt mode."""

    key: str
    cluster_queue: str
    priority: int
    created: datetime
    usage: dict[FR, int]
    needs: frozenset[FR]


@dataclass(frozen=True)
class Target:
    key: str
    cluster_queue: str
    reason: str


@dataclass(frozen=True)
class FairSharing:
    """Kueue's fair-sharing configuration; the two booleans are its v0.20 feature gates."""

    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    preempt_within_nominal: bool = True  # FairSharingPreemptWithinNominal (Beta, on)
    prioritize_non_borrowing: bool = True  # FairSharingPrioritizeNonBorrowing (Beta, on)


class Snapshot:
    """The quota tree and the admitted workloads of each cluster queue, mutable for simulation."""

    def __init__(self, tree: QuotaTree, specs: dict[str, ClusterQueue], cohorts: dict[str, Cohort],
                 admitted: list[Admitted] = ()) -> None:
        self.tree = tree
        self.specs = specs
        self.cohort_specs = cohorts
        self.workloads: dict[str, dict[str, Admitted]] = {name: {} for name in tree.queues}
        for wl in admitted:
            self.workloads.setdefault(wl.cluster_queue, {})[wl.key] = wl

    def add(self, wl: Admitted, with_usage: bool = True) -> None:
        self.workloads.setdefault(wl.cluster_queue, {})[wl.key] = wl
        if with_usage:
            self.tree.add_usage(wl.cluster_queue, wl.usage)

    def remove(self, wl: Admitted) -> None:
        del self.workloads[wl.cluster_queue][wl.key]
        self.tree.remove_usage(wl.cluster_queue, wl.usage)

    def admitted(self, cq: str) -> list[Admitted]:
        return [self.workloads[cq][k] for k in sorted(self.workloads.get(cq, {}))]

    def find(self, key: str) -> Admitted | None:
        for wls in self.workloads.values():
            if key in wls:
                return wls[key]
        return None

    def weight(self, node: Node) -> float:
        """A node's fair-sharing weight (Kueue's default is 1; a weight of 0 is allowed)."""
        spec = self.specs.get(node.name) if node.is_cluster_queue else self.cohort_specs.get(node.name)
        fs = getattr(spec, "fair_sharing", None)
        return 1.0 if fs is None else fs.weight / 1000

    def path(self, cq: str) -> str:
        """`buildCQPath`: `/root/…/parent/cq`."""
        node = self.tree.queues[cq]
        return "/" + "/".join([n.name for n in reversed(ancestors(node))] + [cq])


# --- ordering and policies ----------------------------------------------------------------------

def candidate_key(wl: Admitted, preemptor_cq: str) -> tuple:
    """`CandidatesOrdering`: already evicted first, other queues before the preemptor's own,
    lower priority first, most recently admitted first, then the UID (here: the key)."""
    return (not wl.evicted, wl.cluster_queue == preemptor_cq, wl.priority, -wl.admitted_at.timestamp(), wl.key)


def satisfies_policy(policy: str, p: Preemptor, wl: Admitted) -> bool:
    """`SatisfiesPreemptionPolicy` for withinClusterQueue / reclaimWithinCohort."""
    if policy == "LowerPriority":
        return p.priority > wl.priority
    if policy == "LowerOrNewerEqualPriority":
        return p.priority > wl.priority or (p.priority == wl.priority and p.created < wl.created)
    return policy == "Any"


def uses_needed(wl: Admitted, needs: frozenset[FR]) -> bool:
    """`WorkloadUsesResources`: the workload holds some flavor-resource that needs preemption."""
    return any(fr in needs for fr in wl.usage)


def is_borrowing(node: Node, needs: frozenset[FR]) -> bool:
    """`cqIsBorrowing`: in a cohort and over its quota in some flavor-resource that is needed."""
    return node.parent is not None and any(borrowing_with(node, fr, 0) for fr in needs)


def _quota_fits(snap: Snapshot, p: Preemptor, allow_borrowing: bool) -> bool:
    """`workloadQuotaFits`: every flavor-resource of the preemptor is available, and without
    borrowing when borrowing is not allowed."""
    node = snap.tree.queues[p.cluster_queue]
    for fr, v in p.usage.items():
        if not allow_borrowing and borrowing_with(node, fr, v):
            return False
        if v > snap.tree.available(p.cluster_queue, fr):
            return False
    return True


def under_nominal(snap: Snapshot, p: Preemptor) -> bool:
    """`queueUnderNominalInResourcesNeedingPreemption`: usage strictly below nominal."""
    node = snap.tree.queues[p.cluster_queue]
    return all(node.quotas[fr].nominal > node.usage.get(fr, 0) if fr in node.quotas else False
               for fr in p.needs)


def within_nominal_now(snap: Snapshot, p: Preemptor) -> bool:
    """`queueWithinNominalInResourcesNeedingPreemption`: not borrowing in any needed resource."""
    node = snap.tree.queues[p.cluster_queue]
    return not any(borrowing_with(node, fr, 0) for fr in p.needs)


# --- the generic search: candidates in order, first fit, then fill back -------------------------

Candidates = Iterator[tuple[Admitted, str]]


def select_targets(snap: Snapshot, p: Preemptor, strategies: list[tuple[Callable[[], Candidates], bool]]) -> list[Target]:
    """`getTargets`: per strategy, take candidates (each removed from the snapshot by the
    strategy) until the preemptor fits, then `fillBackWorkloads`; the snapshot is restored."""
    for make, allow_borrowing in strategies:
        taken: list[Admitted] = []
        reasons: list[str] = []
        gen = make()
        try:
            for wl, reason in gen:
                taken.append(wl)
                reasons.append(reason)
                if _quota_fits(snap, p, allow_borrowing):
                    kept = _fill_back(snap, p, list(zip(taken, reasons)), allow_borrowing)
                    for wl2, _ in kept:
                        snap.add(wl2)
                    return [Target(w.key, w.cluster_queue, r) for w, r in kept]
        finally:
            gen.close()
        for wl in taken:
            snap.add(wl)
    return []


def _fill_back(snap: Snapshot, p: Preemptor, targets: list[tuple[Admitted, str]],
               allow_borrowing: bool) -> list[tuple[Admitted, str]]:
    """`fillBackWorkloads`: from the second-to-last target backwards, give each target its usage
    back; keep it admitted when the preemptor still fits. A dropped target's slot takes the last
    target (Go's O(1) deletion), so the order of the result follows Kueue's exactly."""
    i = len(targets) - 2
    while i >= 0:
        wl = targets[i][0]
        snap.add(wl)
        if _quota_fits(snap, p, allow_borrowing):
            targets[i] = targets[-1]
            targets.pop()
        else:
            snap.remove(wl)
        i -= 1
    return targets
