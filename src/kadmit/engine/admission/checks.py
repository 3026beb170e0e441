"""Admission checks on the engine's decisions: a workload that reserves quota in a ClusterQueue
with checks is Admitted only once every check that applies to it is Ready (kadmit.modelchecks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmit.engine.admission.ordered import Decision
from kadmit.index import ModelIndex
from kadmit.model import Workload
from kadmit.modelchecks import checks_for, states_on_reservation

if TYPE_CHECKING:
    from kadmit.engine.placing.pool import Pool


def mark_checks(index: ModelIndex, decisions, pool: Pool | None = None) -> None:
    """Each decision that reserves quota in a queue with admission checks gets the checks that apply
    to it and their states (`Decision.checks`), and, given the run's pool, whether a topology assignment
    Kueue delayed for them is still to be made (`Decision.topology_pending`)."""
    for d in decisions:
        mark_one(index, d, pool)


def mark_one(index: ModelIndex, d: Decision, pool: Pool | None = None) -> None:
    cq = index.cluster_queues.get(d.cluster_queue) if d.admitted and d.assignment is not None else None
    if cq is None or not cq.admission_checks:
        return
    if pool is not None:
        # Kueue's HasTopologyAssignmentsPending: a pod set whose placement it delayed for the checks
        # (delayedTopologyRequest Pending) has none yet, its second pass still to come or failed (a pass that
        # placed no pod, a domain chosen and no node, gives no assignment)
        placed = {p.request.pod_set for p in d.assignment.placement.pod_sets if p.assignment} \
            if d.assignment.placement else set()
        d.topology_pending = any(r.pod_set not in placed for r in pool.requests(
            d.workload, cq, d.assignment.counts, d.assignment.flavors, delayed_only=True))
    assigned = {fl for per in d.assignment.flavors.values() for fl in per.values()}
    d.checks = states_on_reservation(cq.admission_checks, index.queue_flavors(cq), assigned, d.workload.check_states)
    lq = index.local_queues.get(f"{d.workload.namespace}/{d.workload.queue}")
    if d.waiting_checks and lq is not None and lq.deleting and TAKEN_BACK not in d.notes:
        d.notes.append(TAKEN_BACK)


# A reservation waiting for checks in a LocalQueue being deleted (`effective.drained`): Kueue's workload
# controller takes it back ("LocalQueue ... is terminating or missing"), and the queue manager, which keeps
# the queue, has the scheduler reserve it again, over and over.
TAKEN_BACK = ("never admitted: its LocalQueue is being deleted, so Kueue takes the reservation back and "
              "reserves it again, over and over")


def held_waiting(index: ModelIndex, wl: Workload) -> list[str]:
    """The checks a workload the input shows holding quota still waits on, each with its state: those
    that apply to its assigned flavors and are not Ready (none: it is Admitted)."""
    cq = index.cluster_queues.get(wl.admission.cluster_queue) if wl.admission is not None else None
    if cq is None or not cq.admission_checks:
        return []
    assigned = {fl for ps in wl.admission.pod_sets for fl in ps.flavors.values()}
    states = {s.name: s.state for s in wl.check_states}
    return [f"{n} ({states.get(n, 'Pending')})" for n in checks_for(cq.admission_checks, index.queue_flavors(cq), assigned)
            if states.get(n) != "Ready"]
