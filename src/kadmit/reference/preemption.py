"""Kueue's preemption entry points (docs/PREEMPTION.md), with its v0.20 feature gates at their
defaults: `GetTargets` (classical or fair sharing), the `PreemptionOracle` the flavor assigner
asks, and the two helpers the scheduler uses around a Preempt assignment.

- classical: `classical.classical_targets` (candidate iterator, hierarchical reclaim,
  borrowWithinCohort and maxPriorityThreshold, runs with and without borrowing, fill-back);
- fair sharing: `fair_sharing.fair_targets` (target ClusterQueue ordering, rules S2-a / S2-b,
  FairSharingPreemptWithinNominal), shares by `fair_sharing.dominant_resource_share`.

Everything runs on a `snapshot.Snapshot`, which the searches change while they look and
always leave as found. Topology is not part of the reference: a preemptor fits when its quota
fits (Kueue also asks topology-aware scheduling, which the engine models separately).
"""

from __future__ import annotations

from kadmit.model import ClusterQueue, Model
from kadmit.reference.classical import classical_targets
from kadmit.reference.common import (  # noqa: F401 (names callers take from here)
    DEFAULT_STRATEGIES, NO_CANDIDATES, PREEMPT, RECLAIM, FairSharing, Preemptor, Target, pending_preemption_message,
    preempted_message)
from kadmit.reference.fair_sharing import compare_drs, dominant_resource_share, fair_targets  # noqa: F401
from kadmit.reference.quota import FR, find_height_of_lowest_subtree_that_fits
from kadmit.reference.snapshot import Admitted, Snapshot  # noqa: F401


def fair_settings(model: Model, fair_sharing: bool | None = None) -> FairSharing | None:
    """Fair sharing as configured: `fair_sharing` when given, else the model's scheduler
    configuration (a model without one gets Kueue's default, off)."""
    config = getattr(model, "config", None)
    if fair_sharing is None:
        fair_sharing = bool(getattr(config, "fair_sharing", False))
    if not fair_sharing:
        return None
    configured = getattr(config, "preemption_strategies", None) or ()
    known = tuple(name for name in configured if name in DEFAULT_STRATEGIES)
    return FairSharing(strategies=known if known else DEFAULT_STRATEGIES)


def get_targets(snap: Snapshot, preemptor: Preemptor, fair: FairSharing | None = None) -> list[Target]:
    """`GetTargets`: the victims in Kueue's order, [] when even all candidates would not do."""
    if preemptor.cluster_queue not in snap.tree.queues or len(preemptor.needs) == 0:
        return []
    if fair is None:
        return classical_targets(snap, preemptor)
    return fair_targets(snap, preemptor, fair)


def simulate(snap: Snapshot, preemptor: Preemptor, fr: FR, quantity: int,
             fair: FairSharing | None = None) -> tuple[str, int]:
    """`SimulatePreemption` for one flavor-resource and quantity: NoCandidates with the borrowing
    height as things are; else Preempt (a target in the preemptor's own queue) or Reclaim, with
    the borrowing height once the targets are gone."""
    one = Preemptor(preemptor.key, preemptor.cluster_queue, preemptor.priority, preemptor.created,
                    {fr: quantity}, frozenset([fr]))
    cq = snap.tree.queues[preemptor.cluster_queue]
    targets = get_targets(snap, one, fair)
    if not targets:
        return NO_CANDIDATES, find_height_of_lowest_subtree_that_fits(cq, fr, quantity)[0]
    victims = [snap.find(target.key) for target in targets]
    for victim in victims:
        snap.remove(victim)
    height = find_height_of_lowest_subtree_that_fits(cq, fr, quantity)[0]
    for victim in victims:
        snap.add(victim)
    for target in targets:
        if target.cluster_queue == preemptor.cluster_queue:
            return PREEMPT, height
    return RECLAIM, height


def can_always_reclaim(cq: ClusterQueue) -> bool:
    """`CanAlwaysReclaim`: reclaimWithinCohort Any, so nothing is held for a Preempt assignment
    that found no targets."""
    return cq.preemption.reclaim_within_cohort == "Any"


def quota_resources_to_reserve(snap: Snapshot, cq: str, usage: dict[FR, int], borrowing: int) -> dict[FR, int]:
    """`quotaResourcesToReserve` for a Preempt assignment without targets: while borrowing, up to
    the borrowing limit; otherwise up to what is left of the nominal quota. Clamped at 0, where
    Kueue could hold a negative amount for an over-admitted queue."""
    node = snap.tree.queues[cq]
    reserve: dict[FR, int] = {}
    for fr, val in usage.items():
        quota = node.quotas.get(fr)
        nominal = 0 if quota is None else quota.nominal
        used = node.usage.get(fr, 0)
        if borrowing == 0:
            amount = min(val, nominal - used)
        elif quota is None or quota.borrowing_limit is None:
            amount = val
        else:
            amount = min(val, nominal + quota.borrowing_limit - used)
        reserve[fr] = amount if amount > 0 else 0
    return reserve
