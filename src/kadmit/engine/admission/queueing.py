"""A ClusterQueue's pending workloads as Kueue's queueing system holds them in `ordered` mode: which it
queues at all (`queued`), what becomes of a head that can't be admitted — set aside in a BestEffortFIFO
queue, blocking a StrictFIFO one (`set_aside`) — and the decisions of the workloads a blocking head
kept waiting (`blocked`)."""

from __future__ import annotations

from collections.abc import Callable

from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.equivalence import Equivalence
from kadmit.engine.admission.session import Session
from kadmit.model import Workload


def queued(session: Session, wl: Workload, cq) -> bool:
    """Whether Kueue's queueing system holds `wl` in its ClusterQueue `cq`: an active workload of
    an active queue, whose LocalQueue is not stopped (Kueue's LocalQueueReconciler adds only a
    LocalQueue whose stopPolicy is None, so a stopped one's workloads are queued nowhere and never
    block a StrictFIFO head), and not held back among the queue's inadmissible workloads by a backoff
    or a Requeued condition (`effective.held`: in no heap, it blocks no head either)."""
    if cq is None or not wl.active or wl.held or session.compiler.inactive(cq):
        return False
    lq = session.index.local_queues.get(f"{wl.namespace}/{wl.queue}")
    return lq is None or lq.stop_policy == "None"


def set_aside(session: Session, decisions: dict[str, Decision], queues: dict[str, list[Workload]],
               set_aside: dict[str, list[Workload]], sticky: dict[str, str],
               blocked: dict[str, tuple[Workload, int, list[Workload]]], name: str, head: Workload,
               cycle: int, waits: Callable[..., None], equivalence: Equivalence) -> bool:
    """A head that can't be admitted: BestEffortFIFO sets it aside (retried when a preemption in its
    cohort tree releases quota), with the workloads of its scheduling hash under the
    SchedulingEquivalenceHashing gate (`equivalents_aside`); StrictFIFO keeps it at the head, blocking
    the workloads behind it (their decisions are written once the run ends, `blocked`). True when the
    queue changed."""
    decisions[head.key] = Decision(head, False, name, cycle=cycle)
    if session.index.cluster_queues[name].queueing_strategy == "StrictFIFO":
        blocked[name] = (head, cycle, queues[name][1:])
        return False
    queues[name].remove(head)
    unstick(sticky, name, head)
    set_aside.setdefault(name, []).append(head)
    waits(head, name, "aside")
    equivalents_aside(equivalence, decisions, queues, set_aside, name, head, cycle, waits)
    return True


def unstick(sticky: dict[str, str], name: str, head: Workload) -> None:
    """`head` leaves queue `name`: the queue's sticky preemptor (BestEffortFIFO) stops being one only if it is
    `head` (Kueue's ClusterQueue.delete clears stickyWorkload when that key goes). Under admission fair sharing
    another head may come before it (its LocalQueue's usage first) and be admitted while it waits: it stays
    first among its LocalQueue's (soak seed 1605, tests/oracle/features/admission-fair-sharing-sticky-preemptor-outlives-another-head.yaml)."""
    if sticky.get(name) == head.key:
        del sticky[name]


def equivalents_aside(equivalence: Equivalence, decisions: dict[str, Decision], queues: dict[str, list[Workload]],
                      set_aside: dict[str, list[Workload]], name: str, head: Workload, cycle: int,
                      waits: Callable[..., None]) -> None:
    """`head` went to its queue's inadmissible list: under the SchedulingEquivalenceHashing gate the workloads
    queued behind it with its scheduling hash go there too, untried (`Equivalence.inadmissible`)."""
    for wl in equivalence.inadmissible(name, head, queues[name]):
        decisions[wl.key] = Decision(wl, False, name, cycle=cycle, equivalent_to=head.key)
        set_aside.setdefault(name, []).append(wl)
        waits(wl, name, "aside")


def requeued(session: Session, name: str, back: list[Workload], equivalence: Equivalence,
             waits: Callable[..., None]) -> list[Workload]:
    """The workloads set aside in queue `name` that go back to its heap when Kueue queues its inadmissible
    workloads again (queueInadmissibleWorkloads). One whose namespace the ClusterQueue does not select stays
    inadmissible, never tried again; only the SchedulingEquivalenceHashing gate sets such a workload aside
    (with an equivalent head: `equivalents_aside`), a head failing the namespaceSelector leaves its queue."""
    if not equivalence.on:
        return back
    cq = session.index.cluster_queues[name]
    out = []
    for wl in back:
        if session.compiler.namespace_ok(cq, wl.namespace):
            out.append(wl)
        else:
            waits(wl, None)
    return out


def blocked(decisions: dict[str, Decision], blocked: dict[str, tuple[Workload, int, list[Workload]]]) -> None:
    """The workloads behind a blocking StrictFIFO head wait behind it as of the last cycle it
    blocked them, unless something decided them since (they became a head: a later cycle). Only the
    last block of each queue counts: a workload behind an earlier block but not the last one has
    left the queue or reached its head since, and was decided then. Writing these once, rather than
    at every cycle the head blocks, keeps a cycle's cost off the queue's length."""
    for name, (head, cycle, behind) in sorted(blocked.items()):
        for wl in behind:
            d = decisions.get(wl.key)
            if d is None or d.cycle < cycle:  # (tried before: that try's decision, whose message Kueue keeps)
                decisions[wl.key] = Decision(wl, False, name, waiting_behind=head.key, cycle=cycle,
                                             tried=d.tried if d is not None and d.waiting_behind else
                                             None if d is not None and d.admitted else d)
