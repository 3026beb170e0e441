"""What Kueue's two preemption strategies share (`pkg/scheduler/preemption/preemption.go` and
`preemption/common`): the preemptor, targets and their reasons, the policies, the order of
candidates, the fit test and the fill-back of targets that turned out not to be needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kadmit.reference.quota import FR, borrowing_with
from kadmit.reference.snapshot import Admitted, Snapshot

# The Preempted condition's reasons and how `preemptionMessage` words them.
REASON_WORDS = {
    "InClusterQueue": "prioritization in the ClusterQueue",
    "InCohortReclamation": "reclamation within the cohort",
    "InCohortFairSharing": "Fair Sharing within the cohort",
    "InCohortReclaimWhileBorrowing": "reclamation within the cohort while borrowing",
}

# config.FairSharing's preemption strategies (rules S2-a and S2-b).
S2A = "LessThanOrEqualToFinalShare"
S2B = "LessThanInitialShare"
DEFAULT_STRATEGIES = (S2A, S2B)

# preemptioncommon.PreemptionPossibility, the oracle's answer to the flavor assigner.
NO_CANDIDATES, PREEMPT, RECLAIM = "NoCandidates", "Preempt", "Reclaim"


@dataclass(frozen=True)
class Preemptor:
    """The pending workload with the usage of its flavor assignment; `needs` are the
    flavor-resources assigned in Preempt mode (`flavorResourcesNeedPreemption`)."""

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
    """The fair-sharing configuration and its two v0.20 feature gates (Beta, on by default)."""

    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    preempt_within_nominal: bool = True  # FairSharingPreemptWithinNominal
    prioritize_non_borrowing: bool = True  # FairSharingPrioritizeNonBorrowing


def preempted_message(reason: str, preemptor_path: str, preemptee_path: str,
                      uid: str = "", job_uid: str = "") -> str:
    """`preemptionMessage`, the victim's Evicted / Preempted condition message; UNKNOWN stands
    for a missing UID, job UID or path."""
    words = REASON_WORDS.get(reason, "UNKNOWN")
    return ("Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s; "
            "preemptor path: %s; preemptee path: %s") % (
        uid or "UNKNOWN", job_uid or "UNKNOWN", words, preemptor_path or "UNKNOWN", preemptee_path or "UNKNOWN")


def pending_preemption_message(assignment_message: str, count: int) -> str:
    """The preemptor's QuotaReserved message once it issued preemptions."""
    return assignment_message + ". Pending the preemption of %d workload(s)" % count


def satisfies_preemption_policy(policy: str, preemptor: Preemptor, candidate: Admitted) -> bool:
    """`SatisfiesPreemptionPolicy`."""
    if policy == "Any":
        return True
    if policy == "LowerPriority":
        return candidate.priority < preemptor.priority
    if policy == "LowerOrNewerEqualPriority":
        if candidate.priority != preemptor.priority:
            return candidate.priority < preemptor.priority
        return candidate.created > preemptor.created
    return False


def workload_uses_resources(candidate: Admitted, frs) -> bool:
    """`WorkloadUsesResources`."""
    for fr in candidate.usage:
        if fr in frs:
            return True
    return False


def candidates_ordering(preemptor_cq: str):
    """`CandidatesOrdering` as a sort key: evicted ones first, then those of other queues, lower
    priority first, the latest quota reservation first, then the UID (`Admitted.uid`, then the key)."""
    def key(candidate: Admitted):
        return (0 if candidate.evicted else 1,
                1 if candidate.cluster_queue == preemptor_cq else 0,
                candidate.priority,
                -candidate.admitted_at.timestamp(),
                candidate.uid,
                candidate.key)
    return key


def workload_fits(snap: Snapshot, preemptor: Preemptor, allow_borrowing: bool) -> bool:
    """`workloadFits` (quota only: topology is not part of the reference)."""
    node = snap.tree.queues[preemptor.cluster_queue]
    for fr, val in preemptor.usage.items():
        if not allow_borrowing and borrowing_with(node, fr, val):
            return False
        if val > snap.tree.available(preemptor.cluster_queue, fr):
            return False
    return True


def fill_back_workloads(snap: Snapshot, preemptor: Preemptor, targets: list[tuple[Admitted, str]],
                        allow_borrowing: bool) -> list[tuple[Admitted, str]]:
    """`fillBackWorkloads`: going back from the second-to-last target, a target whose usage can
    be given back with the preemptor still fitting is kept admitted, and the last target takes
    its place in the list (Go's O(1) deletion, which decides the order Kueue reports)."""
    for i in range(len(targets) - 2, -1, -1):
        snap.add(targets[i][0])
        if workload_fits(snap, preemptor, allow_borrowing):
            targets[i] = targets[-1]
            del targets[-1]
        else:
            snap.remove(targets[i][0])
    return targets


def restore_snapshot(snap: Snapshot, targets: list[tuple[Admitted, str]]) -> None:
    for info, _ in targets:
        snap.add(info)


def as_targets(found: list[tuple[Admitted, str]]) -> list[Target]:
    return [Target(info.key, info.cluster_queue, reason) for info, reason in found]
