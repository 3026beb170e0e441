"""Admission checks on the engine's decisions: a workload that reserves quota in a ClusterQueue
with checks is Admitted only once every check that applies to it is Ready (kadmit.modelchecks)."""

from __future__ import annotations

from kadmit.engine.admission.ordered import Decision
from kadmit.index import ModelIndex
from kadmit.model import Workload
from kadmit.modelchecks import checks_for, states_on_reservation


def mark_checks(index: ModelIndex, decisions) -> None:
    """Each decision that reserves quota in a queue with admission checks gets the checks that apply
    to it and their states (`Decision.checks`)."""
    for d in decisions:
        mark_one(index, d)


def mark_one(index: ModelIndex, d: Decision) -> None:
    cq = index.cluster_queues.get(d.cluster_queue) if d.admitted and d.assignment is not None else None
    if cq is None or not cq.admission_checks:
        return
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
