"""Cycles of `ordered` mode that only set heads aside, done at once (`repeat_set_asides`): once every
BestEffortFIFO head is set aside and every StrictFIFO head blocks its queue, nothing a nomination reads
changes, so the next cycles' heads meet the same state and their answers are the situations' own."""

from __future__ import annotations

from typing import Callable

from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.equivalence import GATE
from kadmit.engine.admission.loops import States
from kadmit.engine.admission.searches import Searches
from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.engine.admission.situations import UNSEEN
from kadmit.featuregates import enabled
from kadmit.model import Workload


def repeat_set_asides(session: Session, queues: dict[str, list[Workload]], set_aside: dict[str, list[Workload]],
                       decisions: dict[str, Decision], cycle: int, limit: int, waits: Callable[..., None],
                       blocked: dict[str, tuple[Workload, int, list[Workload]]], searches: Searches,
                       places: States | None = None,
                       rest: Callable[[int], tuple] = lambda now: ()) -> tuple[int, int | None]:
    """After a cycle that set every BestEffortFIFO head aside, and left every StrictFIFO head
    blocking its queue, and so changed no usage and no holder: the next cycles start from the same
    state, and each BestEffortFIFO queue's next heads are set aside in turn (the StrictFIFO heads
    block again) for as long as their nominations (shared among equal situations, see `situations`)
    say they don't fit and have no victims. Those cycles are done here at once, a row of heads per
    cycle, up to the first row with a head that would do anything else (fit, preempt, fail its
    namespace, not share its situation, or have flavors left to try); the loop goes on from there.
    Each head's search is requeued as the cycle requeues it (`Searches.requeued`: its Pending
    message kept). After an eviction (`places`), each cycle's state is recorded as the loop records
    it (`rest(cycle)`: the parts the rows don't change, and the
    second passes' timers as they stand then) and the rows stop at the first state that comes
    back: returns the last cycle done and the earlier cycle whose state it is (None if none).
    Not under admission fair sharing once a StrictFIFO queue or an eviction is involved, nor under the
    SchedulingEquivalenceHashing gate (a head set aside takes the workloads of its hash with it: `equivalence`)."""
    if enabled(session.model.config, GATE):
        return cycle, None
    ix = session.index
    names = sorted(queues)
    cqs = [ix.cluster_queues[name] for name in names]
    strict = {name for name, cq in zip(names, cqs) if cq.queueing_strategy == "StrictFIFO"}
    if (strict or places is not None) and session.afs.queues:
        return cycle, None
    situations = session.situations
    namespace_ok: dict[tuple[str, str], bool] = {}
    rows, before = 0, None
    while cycle + rows < limit:
        tries = _set_aside_row(session, situations, queues, names, cqs, rows, namespace_ok, strict)
        if tries is None:
            break
        rows += 1
        now = cycle + rows
        for name in names:  # the decisions in the order the cycle would have made them
            queue = queues[name]
            at = 0 if name in strict else rows - 1
            if at >= len(queue):
                continue
            wl = queue[at]
            decisions[wl.key] = Decision(wl, False, name, cycle=now)
            searches.attempts[wl.key] = tries[name]  # as `Searches.nominated`, then requeued
            searches.requeued(wl)
            if name not in strict:
                waits(wl, name, "aside")
        if places is not None:
            before = places.repeat(now, rest(now))
            if before is not None:
                break
    if rows:
        for name in names:
            if name in strict:
                if queues[name]:
                    blocked[name] = (queues[name][0], cycle + rows, queues[name][1:])
                continue
            set_aside.setdefault(name, []).extend(queues[name][:rows])
            del queues[name][:rows]
    return cycle + rows, before


def _set_aside_row(session: Session, situations, queues: dict[str, list[Workload]], names: list[str], cqs: list,
                   row: int, namespace_ok: dict[tuple[str, str], bool], strict: set[str]) -> dict | None:
    """Whether the `row`-th workload of every BestEffortFIFO queue that has one would be set aside
    as its head, and every StrictFIFO queue's head would block it again, in the state the session
    is in: then what each of those nominations tried, per queue; None also when no BestEffortFIFO
    queue has a `row`-th workload."""
    any_head = False
    out: dict = {}
    for name, cq in zip(names, cqs):
        queue = queues[name]
        at = 0 if name in strict else row
        if at >= len(queue):
            continue
        wl = queue[at]
        ok = namespace_ok.get((name, wl.namespace))
        if ok is None:
            ok = namespace_ok[(name, wl.namespace)] = session.compiler.namespace_ok(cq, wl.namespace)
        key = situations.key(wl, cq, True) if ok else None
        if key is None:
            return None
        got = situations.recall(key)
        if got is UNSEEN:
            try:
                got = session.nomination(wl)
            except SolverUnknown:
                return None
        if got is not None and (got.mode != "Preempt" or got.targets):
            return None
        tried = session.tried(key)
        if tried is None or tried.pending:  # it would stay at its head for the flavors it has left
            return None
        out[name] = tried
        any_head = any_head or name not in strict
    return out if any_head else None
