"""`ordered` mode: the decisions Kueue's scheduling cycle implies, one Z3 session over the whole run.

Each cycle takes the head of every cluster queue (priority, then creation time, then name), nominates
each against the usage at the start of the cycle, then admits the nominated heads in Kueue's order —
lower borrowing height first (0: no borrowing), then higher priority, then older — re-checking each against what this
cycle already admitted; one that no longer fits goes back to its queue for the next cycle. A head that
can't be nominated is set aside (BestEffortFIFO) or blocks its queue (StrictFIFO). Within one run usage
only grows, so a workload set aside or blocking never fits later in the run: the loop ends when no
queue has a head left.

Pod sets on flavors with a topology are placed on nodes as part of nomination (`placing`); a nominee
with a placement is re-checked, and its placement recomputed with the flavors kept, once another
workload took node capacity in the same cycle (Kueue's TASRecomputeAssignmentWithinSchedulingCycle).

Timing choices (where Kueue's answer depends on its cycle timing): all pending workloads are present
from the start; every cycle sees every queue's head; nothing finishes during the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.session import Assignment, Session, SolverUnknown
from kadmit.model import Workload


@dataclass
class Decision:
    workload: Workload
    admitted: bool
    cluster_queue: str | None
    assignment: Assignment | None = None
    waiting_behind: str | None = None  # StrictFIFO: the head this workload is queued behind
    unknown: bool = False
    cycle: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.workload.key


def queue_order_key(session: Session, wl: Workload) -> tuple:
    return (-session.index.priority(wl), wl.created, wl.key)


def decide_ordered(session: Session, workloads: list[Workload] | None = None) -> list[Decision]:
    """Decide every pending workload (or the given ones) in Kueue's order; commits admissions
    into the session. Decisions come back sorted by workload key."""
    ix = session.index
    if workloads is None:
        workloads = [w for w in session.model.workloads if w.admission is None and not w.finished]
    decisions: dict[str, Decision] = {}
    queues: dict[str, list[Workload]] = {}
    seen: set[str] = set()
    for wl in sorted(workloads, key=lambda w: w.key):
        if wl.key in seen:
            continue  # duplicates are reported by the validator
        seen.add(wl.key)
        cq = ix.cluster_queue_of(wl)
        if cq is None or not wl.active or session.compiler.inactive(cq):
            decisions[wl.key] = Decision(wl, False, cq.name if cq else None)
        else:
            queues.setdefault(cq.name, []).append(wl)
    for name in queues:
        queues[name].sort(key=lambda w: queue_order_key(session, w))

    cycle = 0
    while queues:
        cycle += 1
        nominated: list[tuple[tuple, Workload, Assignment]] = []
        for name in sorted(queues):
            head = queues[name][0]
            if not session.compiler.namespace_ok(ix.cluster_queues[name], head.namespace):
                decisions[head.key] = Decision(head, False, name, cycle=cycle)  # set aside, never blocks
                queues[name].pop(0)
                continue
            try:
                got, _ = session.try_admit(head)
            except SolverUnknown:
                decisions[head.key] = Decision(head, False, name, unknown=True, cycle=cycle)
                queues[name].pop(0)
                continue
            if got is None:
                decisions[head.key] = Decision(head, False, name, cycle=cycle)
                queues[name].pop(0)
                if ix.cluster_queues[name].queueing_strategy == "StrictFIFO":
                    for wl in queues[name]:
                        decisions[wl.key] = Decision(wl, False, name, waiting_behind=head.key, cycle=cycle)
                    queues[name] = []
                continue
            order = (got.height, -ix.priority(head), head.created, head.key)
            nominated.append((order, head, got))
        touched: set[str] = set()  # cohort roots that took an admission this cycle
        placed = False  # a workload took node capacity this cycle (topology-aware scheduling)
        for _, head, got in sorted(nominated, key=lambda t: t[0]):
            name = got.cluster_queue
            root = session.compiler.tree.root(f"cq:{name}")
            now: Assignment | None = got
            if root in touched or (placed and got.placement is not None):
                try:
                    now, _ = session.try_admit(head)
                except SolverUnknown:
                    decisions[head.key] = Decision(head, False, name, unknown=True, cycle=cycle)
                    queues[name].pop(0)
                    continue
                if now is None or now.flavors != got.flavors or now.counts != got.counts:
                    continue  # no longer fits after this cycle's admissions: requeued, retried next cycle
            assert now is not None
            touched.add(root)
            placed = placed or now.placement is not None
            session.commit(head, now)
            decisions[head.key] = Decision(head, True, name, now, cycle=cycle,
                                           notes=session.pool.unschedulable(head, now.counts, now.flavors,
                                                                            now.placement))
            queues[name].pop(0)
        queues = {k: v for k, v in queues.items() if v}
    # Once a check in a cohort tree came back unknown, later decisions in that tree rest on a
    # guess about it (admitted or not): they are reported as unknown too, with what was computed.
    uncertain: dict[str, int] = {}
    for d in sorted(decisions.values(), key=lambda d: (d.cycle, d.key)):
        if d.cluster_queue is None or d.cluster_queue not in ix.cluster_queues:
            continue
        root = session.compiler.tree.root(f"cq:{d.cluster_queue}")
        if d.unknown:
            uncertain.setdefault(root, d.cycle)
        elif root in uncertain and d.cycle >= uncertain[root] and (d.admitted or d.waiting_behind is None):
            d.unknown = True
            d.notes.append("decided after an undecided workload in the same cohort tree")
    return [decisions[k] for k in sorted(decisions)]
