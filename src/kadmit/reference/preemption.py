"""Kueue's preemption: which admitted workloads a pending one evicts, and why (docs/PREEMPTION.md).

Mirrors Kueue v0.20 with its feature gates at their defaults (`pkg/scheduler/preemption`):

- `classical_targets`: `classicalPreemptionStrategy` over `classical.NewCandidateIterator`
  (hierarchical reclaim, `borrowWithinCohort` and `maxPriorityThreshold`, attempts with and
  without borrowing), then `fillBackWorkloads`.
- `fair_targets`: `fairPreemptionStrategy` (rules S2-a / S2-b over the target-queue ordering of
  `fairsharing.TargetClusterQueueOrdering`, `FairSharingPreemptWithinNominal` on), then the same
  fill-back.
- `dominant_resource_share`: `pkg/cache/scheduler/fair_sharing.go`.
- `simulate`: the `PreemptionOracle` the flavor assigner asks when a flavor would need preemption.

Everything runs on a `Snapshot`: the reference quota tree plus the admitted workloads per cluster
queue, which the algorithms remove and add back while they search and always leave as found.
Topology is not part of the reference: a preemptor "fits" when its quota fits (Kueue also asks
topology-aware scheduling, which the engine models separately). Workload UIDs are not in the
model: where Kueue breaks the last tie by UID, the workload key stands in for it.
"""

from __future__ import annotations

from kadmit.model import ClusterQueue
from kadmit.reference.classical import classical_targets
from kadmit.reference.fair_sharing import compare_drs, dominant_resource_share, fair_targets  # noqa: F401
from kadmit.reference.quota import FR, quotas_of
from kadmit.reference.snapshot import (  # noqa: F401 (the replay's public names)
    DEFAULT_STRATEGIES, HUMAN_REASONS, NO_CANDIDATES, PREEMPT, RECLAIM, Admitted, FairSharing, Preemptor, Snapshot,
    Target, pending_preemption_message, preempted_message)


# --- entry points -------------------------------------------------------------------------------

def get_targets(snap: Snapshot, p: Preemptor, fair: FairSharing | None = None) -> list[Target]:
    """Kueue's `GetTargets`: the victims, in the order Kueue lists them, or [] when preempting
    every allowed candidate would still not make the preemptor fit."""
    if p.cluster_queue not in snap.tree.queues or not p.needs:
        return []
    if fair is not None:
        return fair_targets(snap, p, fair)
    return classical_targets(snap, p)


def simulate(snap: Snapshot, p: Preemptor, fr: FR, quantity: int,
             fair: FairSharing | None = None) -> tuple[str, int]:
    """The preemption oracle (`SimulatePreemption`): run the search for one flavor-resource and
    the quantity the assignment needs in it; NoCandidates with the borrowing height as is,
    else Preempt (some target in the preemptor's own queue) or Reclaim, with the borrowing
    height once the targets are gone."""
    one = Preemptor(p.key, p.cluster_queue, p.priority, p.created, {fr: quantity}, frozenset({fr}))
    targets = get_targets(snap, one, fair)
    if not targets:
        return NO_CANDIDATES, snap.tree.lowest_subtree_that_fits(p.cluster_queue, fr, quantity)[0]
    removed = [snap.find(t.key) for t in targets]
    for wl in removed:
        snap.remove(wl)
    borrow = snap.tree.lowest_subtree_that_fits(p.cluster_queue, fr, quantity)[0]
    for wl in removed:
        snap.add(wl)
    possibility = PREEMPT if any(t.cluster_queue == p.cluster_queue for t in targets) else RECLAIM
    return possibility, borrow


def can_always_reclaim(cq: ClusterQueue) -> bool:
    """`CanAlwaysReclaim`: a queue that reclaims from any priority never needs to hold capacity
    for a workload that found no preemption candidates."""
    return cq.preemption.reclaim_within_cohort == "Any"


def reserve_usage(snap: Snapshot, cq: str, usage: dict[FR, int], borrowing: int) -> dict[FR, int]:
    """`quotaResourcesToReserve` for a Preempt assignment without targets: up to the borrowing
    limit when the assignment borrows, else up to what is left of the nominal quota (clamped at
    0 here, where Kueue could add a negative amount for an over-admitted queue)."""
    node = snap.tree.queues[cq]
    quotas = quotas_of(snap.specs[cq].resource_groups)
    out: dict[FR, int] = {}
    for fr, v in usage.items():
        q = quotas.get(fr)
        nominal = q.nominal if q else 0
        used = node.usage.get(fr, 0)
        if borrowing > 0:
            reserve = v if q is None or q.borrowing_limit is None else min(v, nominal + q.borrowing_limit - used)
        else:
            reserve = min(v, nominal - used)
        out[fr] = max(0, reserve)
    return out
