"""A victim as Kueue queues it again once its eviction completes, and a preemptor Kueue does not let preempt
(`ordered.decide_ordered`)."""

from __future__ import annotations

from datetime import timedelta

from kadmit.effective import requeued
from kadmit.engine.preemption.candidates import IN_COHORT_RECLAIM_WHILE_BORROWING, Victim
from kadmit.featuregates import enabled
from kadmit.model import Workload


def queued_again(session, wl: Workload, victim: Victim, by: str | None, cycle: int) -> Workload:
    """`wl`, evicted in `cycle` (by a preemptor `by`; None: an eviction of the input's), as its queue takes it
    back: with the requests Kueue's workload controller adjusts for every workload it queues (AdjustResources:
    LimitRange defaults, RuntimeClass overhead), its checks reset to Pending (resetChecksOnEviction: admitted
    again, it waits for them; the input's evictions show their states as reset), and, with the
    PrioritySortingWithinCohort gate off, queued by its preemption's time when it was preempted to reclaim
    what its queue borrowed (workload.Ordering.GetQueueOrderTimestamp: the Preempted condition's
    InCohortReclaimWhileBorrowing time plus a millisecond). kadmit orders by `created`: that time is the
    oracle's clock then, a second a cycle from a second after the input's latest workload."""
    if by is None:
        return wl
    if wl.requeue_pod_sets is not None or wl.requeue_inadmissible:
        wl = requeued(wl, {})
    if any(c.state != "Pending" for c in wl.check_states):
        wl = wl.model_copy(update={"check_states": tuple(
            c.model_copy(update={"state": "Pending"}) for c in wl.check_states)})
    if victim.reason == IN_COHORT_RECLAIM_WHILE_BORROWING and not enabled(session.model.config,
                                                                            "PrioritySortingWithinCohort"):
        start = max(w.created for w in session.model.workloads) + timedelta(seconds=1)
        wl = wl.model_copy(update={"created": start + timedelta(seconds=cycle - 1, milliseconds=1)})
    return wl


PREEMPTION_GATED = "Workload requires preemption, but it's gated"  # scheduler.go, setPreemptionGated


def preemption_gated(session, wl: Workload) -> bool:
    """With the MultiKueueOrchestratedPreemption gate on (off by default), a head that needs preemption and has
    victims does not preempt while one of its `spec.preemptionGates` is not Open (workload.HasClosedPreemptionGate):
    Kueue queues it again, as one that found no assignment (RequeueReasonPreemptionGated: set aside in a
    BestEffortFIFO queue, kept at the head of a StrictFIFO one), and its next try starts at the first flavor."""
    return wl.preemption_gated and enabled(session.model.config, "MultiKueueOrchestratedPreemption")
