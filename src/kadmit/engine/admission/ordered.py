"""`ordered` mode: the decisions Kueue's scheduling cycle implies, one Z3 session over the whole run.

Each cycle takes the head of every cluster queue (priority, then creation time, then name; a
preemptor waiting for its victims stays first in a BestEffortFIFO queue) and nominates it against the
usage at the start of the cycle (`Session.nominate`: Fit, or Preempt with Kueue's victims, or Preempt
without, see docs/PREEMPTION.md §2). The nominees are processed in Kueue's order — lower borrowing
height, then higher priority, then older; with fair sharing, the cohort tournament — and:
- Fit: re-checked against what the cycle already took (with this cycle's victims gone) and admitted;
  one that no longer fits, or whose write the API server refuses (`refused_write`), stays at its head;
- Preempt with victims: its usage is held for the rest of the cycle and its victims are evicted; they
  are released between cycles and queue again, and the preemptor is admitted in a later cycle.
  one whose victims overlap those of an earlier entry of the cycle is skipped and stays at its
  head (§5 S5: Kueue v0.17 does not recompute it);
- Preempt without victims: holds capacity for the cycle unless reclaimWithinCohort is Any, then like
  NoFit: BestEffortFIFO sets it aside (retried when an eviction releases quota in its cohort tree),
  StrictFIFO keeps it at the head, blocking the workloads behind it.
The run ends when a cycle changes nothing. A run whose state at the end of a cycle (who holds quota
where, the sticky preemptors, the evictions in flight, and under admission fair sharing the entry
penalties the LocalQueues took) is one it was in before loops forever (Kueue's preemption rules
can evict the same workloads again and again): it stops there and the workloads in the loop are
undecided (`loops`); so are the ones still moving after 50 + 10 x workloads cycles.

Pod sets on flavors with a topology are placed on nodes as part of nomination (`placing`), on the
nodes as the cycle began; a nominee with a placement is admitted on that placement if its pods
still fit there once earlier entries of the cycle took their nodes (Kueue v0.17's fits(): per
lowest-level domain, `TASFlavorSnapshot.Fits`), else skipped and retried next cycle. (Kueue v0.19's
TASRecomputeAssignmentWithinSchedulingCycle places anew instead; v0.17 has no such gate.)

A pod set whose placement Kueue delays for a provisioning check (`NodePool.requests`) reserves quota
without nodes; when every check that applies to the workload is Ready then, Kueue's second pass
(workload.NeedsSecondPass, queued a second after the reservation) places it in the next cycle, before
the cycle's heads (the classical iterator takes workloads holding quota first; under fair sharing it
competes in the tournament, and is not tried when a head of its own queue is, nor when a pass of its
queue queued later is, as the iterator keeps one entry per ClusterQueue). A second pass that finds no room is tried again after Kueue's backoff
(2, 4, 8, 16, then 30 cycles: a second each), if the run goes on; it keeps its quota meanwhile. One whose write
the API server refuses (a pod set given no domain) leaves Kueue's cache, its quota with it, and is tried again
(`refused_pass`).

Timing choices (where Kueue's answer depends on its cycle timing): all pending workloads are present
from the start; every cycle sees every queue's head; evictions complete between two cycles; workloads
the input shows as evicted release their quota before the first; nothing else finishes during the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kadmit.engine.preemption.candidates import Victim
from kadmit.engine.admission import slices
from kadmit.engine.admission.requeue import PREEMPTION_GATED, preemption_gated, queued_again
from kadmit.engine.admission import queueing
from kadmit.engine.admission.asides import repeat_set_asides
from kadmit.engine.admission.controller_timers import ControllerTimers
from kadmit.engine.admission.equivalence import Equivalence
from kadmit.engine.admission.decisions import NO_LONGER_FITS, OVERLAPPING, Decision, refused_write, still_queued
from kadmit.engine.admission.loops import Eviction, Hashed, PreemptionLoop, States, loop_of
from kadmit.engine.admission.processing import processing_order, reserved
from kadmit.engine.admission.searches import Searches
from kadmit.engine.admission.session import Assignment, Session, SolverUnknown
from kadmit.engine.afs import Stall, stall, stalled_by
from kadmit.engine.admission.second_pass import (SecondPass, forget, from_input, needs_second_pass, one_per_queue,
                                                  place_later, placed_later, queued_on_reservation, redraws,
                                                  refused_pass, requota, reserved_nodes, second_pass_failed,
                                                  second_passes, timers)
from kadmit.identity import queue_uid, repeat_order
from kadmit.model import Workload


def queue_order_key(session: Session, wl: Workload, cluster_queue: str | None = None) -> tuple:
    """A pending workload's place in its ClusterQueue (`cluster_queue`, else its LocalQueue's):
    its LocalQueue's usage where admission fair sharing orders the queue (`engine.afs`), then
    priority, creation time, the Workload's UID (Kueue's last tie-break, cluster_queue.go baseCompareFunc:
    Workloads created in one second, as a live cluster's often are; one Kueue has yet to make of a job
    gets a random UID, taken as their middle: `identity.queue_uid`), then the key."""
    if cluster_queue is None and session.afs.queues:
        cq = session.index.cluster_queue_of(wl)
        cluster_queue = cq.name if cq is not None else None
    return (session.afs.order(wl, cluster_queue),) + _base_order_key(session, wl)


def _base_order_key(session: Session, wl: Workload) -> tuple:
    return (-session.index.priority(wl), wl.created, queue_uid(wl), wl.key)


def decide_ordered(session: Session, workloads: list[Workload] | None = None,
                   loops: list[PreemptionLoop] | None = None,
                   parked: Mapping[str, Iterable[Workload]] | None = None,
                   hashes: dict[str, dict[tuple, str]] | None = None) -> list[Decision]:
    """Decide every pending workload (or the given ones) in Kueue's order; commits admissions
    into the session. Decisions come back sorted by workload key. A preemption loop (or a run that
    does not settle) is appended to `loops` and its workloads' decisions are marked unknown.

    `parked`: per cohort tree (its root), pending workloads that start in Kueue's inadmissible list
    (tried before, nothing released since: `simulate` between instants). They are read only when an
    eviction in the run releases quota in their tree, and then retried in their queue's order; only
    those retried get a decision. `hashes`: the SchedulingEquivalenceHashing sets of the queues
    (`Equivalence.recorded`), kept by `simulate` between instants and updated in place."""
    ix = session.index
    if workloads is None:
        workloads = [w for w in session.model.workloads if w.admission is None and not w.finished]
    decisions: dict[str, Decision] = {}
    queues: dict[str, list[Workload]] = {}
    places = States()  # where each waiting workload is, for finding a state the run comes back to
    queued: dict[str, tuple[str, str]] = {}  # queue -> its place "queued", made once
    aside: dict[str, tuple[str, str]] = {}  # queue -> its place "set aside"

    def waits(wl: Workload, name: str | None, where: str = "queued") -> None:
        """`wl` is queued (or set aside) in queue `name` now; None: it waits nowhere any more."""
        if name is None:
            places.move(wl, None)
            return
        at = queued if where == "queued" else aside
        place = at.get(name)
        if place is None:
            place = at[name] = (where, name)
        places.move(wl, place)

    seen: set[str] = set()
    for wl in sorted(workloads, key=lambda w: w.key):
        if wl.key in seen:
            continue  # duplicates are reported by the validator
        seen.add(wl.key)
        cq = ix.cluster_queue_of(wl)
        if not queueing.queued(session, wl, cq):
            decisions[wl.key] = Decision(wl, False, cq.name if cq else None)
        else:
            queues.setdefault(cq.name, []).append(wl)
            waits(wl, cq.name)

    tree = session.compiler.tree
    fair = bool(session.model.config and session.model.config.fair_sharing)
    sticky: dict[str, str] = {}  # BestEffortFIFO queue -> the preemptor kept at its head
    set_aside: dict[str, list[Workload]] = {}  # queue -> workloads set aside, retried on evictions
    # StrictFIFO queue -> (its blocking head, the cycle, the workloads then behind it): the decisions
    # "waiting behind" the last time the head blocked, written once after the run (`queueing.blocked`)
    blocked: dict[str, tuple[Workload, int, list[Workload]]] = {}
    victims_of: dict[str, list[Victim]] = {}  # preemptor -> the victims it evicted
    evicted_by: dict[str, tuple[str, str, Decision]] = {}  # victim -> (the last preemptor, its reason, that decision)
    # workloads the input shows as already evicted release their quota before the first cycle
    evicting: list[tuple[Victim, str | None]] = [
        (Victim(h.workload, h.cluster_queue, "", ix.priority(ix.workloads[h.workload])), None)
        for h in list(session.holders.values()) if ix.workloads[h.workload].evicted and not h.new]

    orders: dict[int, tuple] = {}  # id(workload) -> (it, its queue_order_key): priorities read once
    # the holders as the loop check's state records them, per session version (a fresh version
    # whenever a holder changes), each holder's row made once (a holder is replaced, never changed)
    rows: dict[int, tuple] = {}  # id(holder) -> (it, its row)
    last_held: list = [None, None]  # [the session's version, the sorted rows then]

    def held_now() -> Hashed:
        if last_held[0] == session.version:
            return last_held[1]
        out = []
        for k, h in session.holders.items():
            got = rows.get(id(h))
            if got is None or got[0] is not h:
                got = rows[id(h)] = (h, (k, h.cluster_queue, tuple(sorted(h.amounts.items()))))
            out.append(got[1])
        out.sort()
        last_held[:] = [session.version, Hashed(tuple(out))]
        return last_held[1]
    # holding quota, nodes delayed -> (the cycle of its next second pass, its iteration, its queue, and
    # the session's version its last pass was placed on: a pass tried again on the same state fails
    # again, when it was queued: `second_pass.queued`, and how many of its passes were tried and failed)
    second: dict[str, tuple[int, int, str, int | None, tuple, int]] = {}
    # the input's workloads holding quota, placement delayed: Kueue's workload controller queues their
    # second pass as it meets them (before the run, in the order it lists them), due a second later
    held_passes = from_input(session)
    for i, key in enumerate(held_passes):
        second[key] = (2, 1, held_passes[key].cluster_queue, None, (0, 1, i), 0)
    forgotten: dict[str, int] = {}  # holding quota, a pass's write refused: Kueue's cache forgot it (`refused_pass`)
    searches = Searches(session)  # where each flavor search starts (Kueue's LastTriedFlavorIdx)
    equivalence = Equivalence(session, hashes)  # the SchedulingEquivalenceHashing gate's scheduling hashes
    quiet = 0  # cycles in a row where only heads with flavors left to try moved on to them
    bound = 1 + max((len(g.flavors) for cq in ix.cluster_queues.values() for g in cq.resource_groups), default=0)

    def evict(targets: list[Victim], by: str, name: str, cycle: int) -> bool:
        """`by`'s preemptions are issued: its targets are evicted (released before the next cycle).
        True when one was not being evicted already."""
        releasing = {v.key for v, _ in evicting}
        out = False
        for t in targets:
            held = session.holders.get(t.key)
            if t.key in releasing or held is None or (ix.workloads[t.key].evicted and not held.new):
                continue  # already being evicted (an input eviction is released before cycle 1)
            evicting.append((t, by))
            evictions.append(Eviction(cycle, t.key, by, name, t.reason))
            releasing.add(t.key)
            victims_of.setdefault(by, []).append(t)
            searches.skipped(t.key, ("evicted",))
            victim = ix.workloads[t.key]
            decisions[t.key] = Decision(victim, False, t.cluster_queue, cycle=cycle, preempted_by=by,
                                        preemption_reason=t.reason)
            evicted_by[t.key] = (by, t.reason, decisions[t.key])
            out = True
        return out

    def order_of(w: Workload) -> tuple:
        got = orders.get(id(w))
        if got is None or got[0] is not w:
            got = orders[id(w)] = (w, _base_order_key(session, w))
        return got[1]

    def resort(name: str) -> None:
        """Queue order; in a BestEffortFIFO queue the preemptor kept at its head (`sticky`) first.
        Under admission fair sharing the LocalQueue's usage comes before even that (Kueue's
        queueOrderingFunc compares usage, then baseCompareFunc: sticky, priority, time)."""
        queue = queues[name]
        first = sticky.get(name)
        if first is not None and ix.cluster_queues[name].queueing_strategy == "StrictFIFO":
            first = None
        if name in session.afs.queues:  # the LocalQueue's usage first, as it is now
            queue.sort(key=lambda w: (session.afs.order(w, name), w.key != first) + order_of(w))
            return
        queue.sort(key=order_of)
        if first is not None:
            for i, w in enumerate(queue):
                if w.key == first:
                    queue.insert(0, queue.pop(i))
                    break

    unparked: set[str] = set()  # cohort roots whose parked workloads were read

    def unpark(roots: set[str]) -> None:
        """The parked workloads of trees where quota was just released join what is set aside."""
        for root in sorted(roots - unparked):
            unparked.add(root)
            for wl in parked.get(root, ()):
                if wl.key not in seen:
                    seen.add(wl.key)
                    cq = ix.cluster_queue_of(wl)
                    if queueing.queued(session, wl, cq):
                        set_aside.setdefault(cq.name, []).append(wl)
                        waits(wl, cq.name, "aside")

    for name in queues:
        resort(name)
    cycle = 0
    limit = 50 + 10 * max(1, len(seen) + len(session.holders))
    evictions: list[Eviction] = []
    looped: PreemptionLoop | None = None
    stalled: Stall | None = None  # why Kueue schedules nothing (`afs.stalled_by`)
    timers_ = ControllerTimers(session, workloads)  # the workload controller's: backoffs ending, executions timing out
    while cycle < limit:
        cycle += 1
        changed = timers_.fire(cycle, queues, decisions, waits, resort, evicting) | bool(evicting)
        plain = not evicting  # a cycle that only sets heads aside (see asides.repeat_set_asides)
        if evicting:  # evictions complete between cycles: quota released, victims queue again
            roots: set[str] = set()
            back_in: set[str] = set()  # queues workloads came back to: sorted again once
            for victim, by in sorted(evicting, key=lambda vb: vb[0].key):
                second.pop(victim.key, None)
                if victim.key in session.holders:
                    session.finish(victim.key)
                roots.add(tree.root(f"cq:{victim.cluster_queue}"))
                wl = queued_again(session, ix.workloads[victim.key], victim, by, cycle)
                cq = ix.cluster_queue_of(wl)
                if queueing.queued(session, wl, cq):
                    queues.setdefault(cq.name, []).append(wl)
                    waits(wl, cq.name)
                    back_in.add(cq.name)
                elif victim.key not in decisions:  # released, and its queue takes nothing now
                    decisions[victim.key] = Decision(wl, False, cq.name if cq else None, cycle=cycle)
            if parked:
                unpark(roots)
            equivalence.released([n for n in list(equivalence.recorded)
                                  if f"cq:{n}" in tree.nodes and tree.root(f"cq:{n}") in roots])
            for name in sorted(set_aside):
                if f"cq:{name}" in tree.nodes and tree.root(f"cq:{name}") in roots and set_aside[name]:
                    back = queueing.requeued(session, name, set_aside.pop(name), equivalence, waits)
                    for wl in back:
                        waits(wl, name)
                    queues.setdefault(name, []).extend(back)
                    back_in.add(name)
            for name in sorted(back_in):
                resort(name)
            evicting = []
        for name in sorted(session.afs.queues & queues.keys()):  # usage moved with last cycle's admissions
            resort(name)
        held = stalled_by(session) if cycle == 1 or stalled else None  # (no later admission holds quota without a LocalQueue)
        if held:  # Kueue's snapshot fails every cycle: nothing is nominated anywhere (KAD542)
            stalled = stall(held, session)
            if timers_.drops(held, stalled, cycle, queues, decisions, waits):
                continue  # until a holder's maximum execution time runs out, the cycles drop their heads
            break
        stalled = None
        session.cycle_started(cycle)
        entries: list[tuple[str, Workload, Assignment | SecondPass | None]] = []
        passes = second_passes(session, decisions, second, cycle, held_passes, forgotten)
        started = session.version  # the state the cycle's second passes are placed on
        if passes:
            plain = False
        for name in sorted(queues):
            if not queues[name]:
                continue
            head = queues[name][0]
            if not session.compiler.namespace_ok(ix.cluster_queues[name], head.namespace):
                decisions[head.key] = Decision(head, False, name, cycle=cycle)  # set aside, never blocks
                waits(queues[name].pop(0), None)
                queueing.equivalents_aside(equivalence, decisions, queues, set_aside, name, head, cycle, waits)
                queueing.unstick(sticky, name, head)
                changed = True
                plain = False
                continue
            try:
                got = session.nomination(head)
            except SolverUnknown:
                decisions[head.key] = Decision(head, False, name, unknown=True, cycle=cycle)
                waits(queues[name].pop(0), None)
                changed = True
                plain = False
                continue
            entries.append((name, head, got))
            searches.nominated(head)
        if passes and fair:  # Kueue's fair-sharing iterator keeps one entry per ClusterQueue: a head of
            # the queue (nominated after the second passes) or its last second pass; the rest are tried later
            passes, put_off = one_per_queue(passes, {name for name, _, _ in entries})
            for name, wl, sp in put_off:  # (not tried: no state it failed on, the run goes on to it)
                second_pass_failed(second, wl.key, cycle, sp, None, tried=False)
        entries = passes + entries
        holds: list[tuple[str, dict]] = []  # usage held for the rest of the cycle
        held_nodes: list[str] = []  # and nodes (the pool's keys)
        targeted: set[str] = set()  # preemption targets chosen this cycle
        touched: set[str] = set()  # cohort roots whose usage changed this cycle
        retrying = False  # a head stays in its queue to try the flavors it has left
        later: list[tuple[str, dict]] = []  # second passes' new quota, taken at the cycle's end (`requota`)

        def hold(name: str, usage: dict, key: str, a: Assignment | None = None) -> None:
            """`key`'s usage, and the nodes its Preempt assignment `a` placed, are held for the rest of the cycle."""
            session.usage.add(name, usage)
            holds.append((name, dict(usage)))
            touched.add(tree.root(f"cq:{name}"))
            if a is not None and a.held is not None:
                hold_nodes(f"{key}~held", a.held, session.pool.cycle_usage(a.held, a.flavors))

        def hold_nodes(key: str, nodes, times: dict[str, int]) -> None:
            session.pool.commit(key, nodes, times)
            held_nodes.append(key)

        for name, head, got in processing_order(session, entries, fair):
            root = tree.root(f"cq:{name}")
            if isinstance(got, SecondPass):
                if got.ok and session.pool.still_fits(got.placement):
                    d = decisions.get(head.key)  # (one the input shows holding quota has no decision)
                    now = placed_later(head, d.assignment if d is not None else held_passes[head.key], got.placement,
                                       got.admits)
                    if refused_write(head, now):  # a pod set given no domain: the API server refuses the write
                        refused_pass(forgotten, head.key, cycle)
                        second_pass_failed(second, head.key, cycle, got, started)
                        continue
                    if forgotten.pop(head.key, None) is not None:  # Kueue's cache takes it back, its quota too,
                        session.commit(head, now)  # which the cycle's snapshot leaves out (`requota`)
                        hold(name, {fr: -v for fr, v in now.usage.items()}, head.key)
                    else:
                        place_later(session, head.key, got.placement)  # its new quota once the cycle is over
                        if got.admits is not None:
                            later.append((head.key, got.admits.usage))
                    session.afs.admitted(head, name)  # assumed again: its LocalQueue takes the entry penalty again
                    if d is not None:
                        d.assignment = now
                    del second[head.key]
                    changed = True
                    continue
                if got.targets and not any(t.key in targeted for t in got.targets):
                    # no room, but Kueue's preemptor finds victims whose nodes it needs: it evicts
                    # them (its nodes held for the rest of the cycle) and tries again after its backoff
                    with session.suspended(sorted(targeted | {t.key for t in got.targets})):
                        ok = got.held is not None and session.pool.still_fits(got.held)
                    if ok:
                        targeted.update(t.key for t in got.targets)
                        d = decisions.get(head.key)
                        flavors = (got.admits or (d.assignment if d is not None else held_passes[head.key])).flavors
                        hold_nodes(f"{head.key}~held", got.held, session.pool.cycle_usage(got.held, flavors))
                        changed |= evict(got.targets, head.key, name, cycle)
                        if d is not None:
                            d.preempted = list(victims_of.get(head.key, []))
                elif (kept := reserved_nodes(session, ix.cluster_queues[name], got)) is not None:
                    hold_nodes(f"{head.key}~held", *kept)  # no victims: Kueue reserves its nodes for the cycle
                # tried again after a backoff; a pod-set group's first retry draws Go's map order again
                second_pass_failed(second, head.key, cycle, got, None if redraws(head, got) else started)
                continue
            if got is not None and (got.mode != "Preempt" or got.targets):
                plain = False  # (a head set aside, or blocking its StrictFIFO queue, keeps it plain)
            if got is not None and got.mode == "Preempt" and got.targets and preemption_gated(session, head):
                searches.skipped(head.key, ("gated",))  # setPreemptionGated: no preemption, all flavors next time
                changed |= queueing.set_aside(session, decisions, queues, set_aside, sticky, blocked, name, head, cycle,
                                              waits, equivalence)
                decisions[head.key].notes = [PREEMPTION_GATED]
                continue
            if got is not None and got.mode == "Preempt" and any(t.key in targeted for t in got.targets):
                # Kueue v0.17 skips it (no recompute: RecomputeAssignmentUponPreemptionTargetsOverlap
                # came in v0.20); it holds nothing and stays at its queue's head for the next cycle
                searches.skipped(head.key, ("skipped", "overlapping targets"))  # its next try starts over
                decisions[head.key] = Decision(head, False, name, cycle=cycle, notes=[
                    "has overlapping preemption targets with another workload"], skipped=OVERLAPPING)
                continue
            if got is None or (got.mode == "Preempt" and not got.targets):
                if got is not None and ix.cluster_queues[name].preemption.reclaim_within_cohort != "Any":
                    hold(name, reserved(session, ix.cluster_queues[name], slices.entry(session, head, got)), head.key,
                         got)
                if searches.requeued(head):
                    retrying = True
                    plain = False
                    if ix.cluster_queues[name].queueing_strategy == "BestEffortFIFO":
                        decisions[head.key] = Decision(head, False, name, cycle=cycle)
                        continue  # it stays at its queue's head
                changed |= queueing.set_aside(session, decisions, queues, set_aside, sticky, blocked, name, head, cycle,
                                              waits, equivalence)
                continue
            # Kueue's `fits` check: the entry's usage (a replacement slice's beyond its old slice's) with its targets
            # (and its old slice) gone; what a cycle holds for it is the same usage
            gone, usage = targeted | set(slices.gone(session, head)), slices.beyond(session, head, got.usage)
            if got.mode == "Fit" and got.needs:  # Fit by its pod sets' status, over quota in `needs`
                with session.suspended(sorted(gone)):
                    ok = _quota_fits(session, name, usage)
                if not ok:  # Kueue's `fits`: "no longer fits after processing another workload"
                    searches.skipped(head.key, ("skipped", "no longer fits"))  # setSkipped: all flavors next time
                    decisions[head.key] = Decision(head, False, name, cycle=cycle, skipped=NO_LONGER_FITS)
                    continue
            if got.mode == "Fit":
                now: Assignment | None = got
                if got.placement is not None:
                    # Kueue v0.17's fits(): the nomination's quota and its nodes as placed at the start
                    # of the cycle, against what this cycle took (its victims gone); nothing is re-placed
                    with session.suspended(sorted(gone)):
                        ok = _quota_fits(session, name, usage) and session.pool.still_fits(got.placement)
                    if not ok:
                        searches.skipped(head.key, ("skipped", "no longer fits"))
                        decisions[head.key] = Decision(head, False, name, cycle=cycle, skipped=NO_LONGER_FITS)
                        continue  # no longer fits after this cycle's admissions: retried next cycle
                elif root in touched or targeted:
                    # Kueue's fits(): the nominated usage against what is left once this cycle's
                    # targets are gone (the flavors are not assigned again)
                    with session.suspended(sorted(gone)):
                        ok = _fits_available(session, name, usage)
                    if not ok:
                        searches.skipped(head.key, ("skipped", "no longer fits"))
                        decisions[head.key] = Decision(head, False, name, cycle=cycle, skipped=NO_LONGER_FITS)
                        continue  # no longer fits after this cycle's admissions: retried next cycle
                if refused := refused_write(head, now):  # the API server refuses Kueue's write: at its head again
                    decisions[head.key] = Decision(head, False, name, cycle=cycle, refused=refused)
                    # its usage (a slice's beyond its old slice's) was added to the cycle's snapshot before the write
                    # (scheduler.go cq.AddUsage), its topology assignment's nodes too: the rest of the cycle sees them
                    # (tas-negative-count-write-refused-holds-its-nodes.yaml); the slice it replaces was finished
                    # before the write too (replaceWorkloadSlice), and counted gone by the cycle's later `fits`
                    # checks: not held once more (the snapshot never held the refused one whole)
                    hold(name, usage, head.key)
                    if now.placement is not None:
                        hold_nodes(f"{head.key}~cycle", now.placement, session.pool.cycle_usage(now.placement, now.flavors))
                    if slices.admitted(session, head):  # the next cycle tries it afresh, no slice to replace
                        changed = True
                    continue
                touched.add(root)
                searches.skipped(head.key, None)
                old = slices.replaced(session, head)  # the slice it replaces (None once finished by a refused write)
                freed = slices.admitted(session, head)  # is finished
                session.commit(head, now)
                if freed:  # and the cycle's later `fits` checks count it gone once more, as Kueue's do
                    hold(name, freed, head.key)
                if now.placement is not None:  # the rest of the cycle sees its pods as Kueue's snapshot counts them
                    more = {ps: k - 1 for ps, k in session.pool.cycle_usage(now.placement, now.flavors).items()}
                    if any(k > 0 for k in more.values()):
                        hold_nodes(f"{head.key}~cycle", now.placement, more)
                session.admitted_cycle[head.key] = cycle
                session.afs.admitted(head, name)  # the entry penalty its LocalQueue takes
                if needs_second_pass(session, head, now):
                    second[head.key] = (cycle + 1, 1, name, None, queued_on_reservation(cycle), 0)
                decisions[head.key] = Decision(head, True, name, now, cycle=cycle,
                                               notes=session.pool.unschedulable(head, now.counts, now.flavors,
                                                                                now.placement),
                                               preempted=list(victims_of.get(head.key, [])),
                                               replaced=old.workload if old is not None else None)
                queues[name].remove(head)
                waits(head, None)
                queueing.unstick(sticky, name, head)
                changed = True
                continue
            # needs preemption and has victims: they must free enough once this cycle's are gone
            with session.suspended(sorted(gone | {t.key for t in got.targets})):
                ok = _quota_fits(session, name, usage) and (got.held is None or session.pool.still_fits(got.held))
            if not ok:
                searches.skipped(head.key, ("skipped", "no longer fits"))
                decisions[head.key] = Decision(head, False, name, cycle=cycle, skipped=NO_LONGER_FITS)
                continue
            searches.skipped(head.key, ("preempting", len(got.targets)))  # preemptions issued: all flavors next time
            targeted.update(t.key for t in got.targets)
            hold(name, usage, head.key, got)
            changed |= evict(got.targets, head.key, name, cycle)
            decisions[head.key] = Decision(head, False, name, got, cycle=cycle,
                                           preempted=list(victims_of.get(head.key, [])),
                                           notes=[f"pending the preemption of {len(got.targets)} workload(s)"])
            if ix.cluster_queues[name].queueing_strategy == "BestEffortFIFO" and sticky.get(name) != head.key:
                sticky[name] = head.key  # already first: a queue with a sticky preemptor has it as its head
        for name, usage in reversed(holds):
            session.usage.add(name, {fr: -v for fr, v in usage.items()})
        for key in held_nodes:
            session.pool.release(key)
        requota(session, later)
        changed |= forget(session, forgotten, cycle)
        queues = {k: v for k, v in queues.items() if v}
        if not changed and not evicting:
            if any(v != session.version for _, _, _, v, *_ in second.values()) \
                    or timers_.runs_on(cycle, bool(entries), retrying):
                continue  # a second pass or a workload controller timer to come: Kueue's clock runs on to it
            if retrying and quiet <= bound:  # a head goes on to the flavors it has left
                quiet += 1
                continue
            break
        quiet = 0
        # States are kept from the first eviction on: before it, every cycle that changes anything
        # takes a workload off the queues for good, and a loop evicts in every period, so it shows
        # at most one period after its first state. (A state costs the moves since the last: `States`.)
        if evictions:
            # (the workloads waiting for a second pass too: one placing its pod sets changes no holder; and
            # those holding nodes: a victim that reserves again holds none while its checks are Pending).
            # A holder is its flavors too: one readmitted on another flavor leaves other quota free
            base = (held_now(), tuple(sorted(sticky.items())),
                    tuple(sorted((v.key, by or "") for v, by in evicting)), session.afs.state(),
                    tuple(sorted(session.pool.placed)))
            rest = lambda now: base + (timers(second, now),)  # the second passes' timers as they stand at `now`
            before = places.repeat(cycle, rest(cycle))
            if before is None and plain and entries and not sticky:
                # the cycles that only set heads aside, each state recorded as the cycle would
                cycle, before = repeat_set_asides(session, queues, set_aside, decisions, cycle, limit, waits,
                                                   blocked, searches, places, rest)
                queues = {k: v for k, v in queues.items() if v}
            if before is not None:
                looped = loop_of(before, cycle, evictions, ix.cluster_queues, _strategies(session))
                break
        elif plain and entries and not sticky:
            cycle, _ = repeat_set_asides(session, queues, set_aside, decisions, cycle, limit, waits, blocked,
                                          searches)
            queues = {k: v for k, v in queues.items() if v}
    else:
        recent = [e for e in evictions if e.cycle > cycle - 10]
        moving = sorted({e.victim for e in recent} | {e.preemptor for e in recent}
                        | {q[0].key for q in queues.values() if q})
        looped = PreemptionLoop(cycle, cycle, moving, recent, settled=False)
    searches.done()
    queueing.blocked(decisions, blocked)
    still_queued(decisions, queues, cycle)
    for queue in queues.values() if stalled else ():
        for wl in queue:
            decisions[wl.key].stalled, decisions[wl.key].waiting_behind = stalled, None
    for key, victims in victims_of.items():  # a preemptor overtaken or evicted still lists its victims
        d = decisions.get(key)
        if d is not None and not d.preempted:
            d.preempted = list(victims)
    for d in decisions.values():  # a victim evicted again (a loop) is listed once, as last evicted
        if len({v.key for v in d.preempted}) < len(d.preempted):
            last = {v.key: v for v in d.preempted}
            d.preempted = [last[k] for k in dict.fromkeys(v.key for v in d.preempted)]
    if looped is not None:
        if loops is not None:
            loops.append(looped)
        for key in looped.workloads:
            d = decisions.get(key)
            if d is None:
                wl = ix.workloads[key]
                d = decisions[key] = Decision(wl, False, wl.admission.cluster_queue if wl.admission else None,
                                              cycle=cycle)
            d.unknown = True
            d.loop = looped
    for key, (by, reason, evicted) in evicted_by.items():  # a victim still waiting says who evicted it
        d = decisions.get(key)
        if d is not None and not d.admitted:
            d.preempted_by, d.preemption_reason = by, reason
            d.tried_again = d is not evicted and not d.waiting_behind and not d.loop
    # Once a check in a cohort tree came back unknown, later decisions in that tree rest on a
    # guess about it (admitted or not): they are reported as unknown too, with what was computed.
    uncertain: dict[str, int] = {}
    unknown = any(d.unknown for d in decisions.values())  # (none: nothing to mark, no order needed)
    for d in sorted(decisions.values(), key=lambda d: (d.cycle, d.key)) if unknown else ():
        if d.cluster_queue is None or d.cluster_queue not in ix.cluster_queues:
            continue
        root = session.compiler.tree.root(f"cq:{d.cluster_queue}")
        if d.unknown:
            uncertain.setdefault(root, d.cycle)
        elif root in uncertain and d.cycle >= uncertain[root] and (d.admitted or d.waiting_behind is None):
            d.unknown = True
            d.notes.append("decided after an undecided workload in the same cohort tree")
    return [decisions[k] for k in sorted(decisions, key=repeat_order)]


def _strategies(session: Session) -> tuple[str, ...]:
    config = session.model.config
    return config.strategies if config is not None else ()


def _quota_fits(session: Session, cq: str, usage: dict) -> bool:
    """Whether a preemptor's `usage` more fits the queue's available quota (`_fits_available`)."""
    return _fits_available(session, cq, usage)


def _fits_available(session: Session, cq: str, usage: dict) -> bool:
    """Whether `usage` more fits the queue's available quota in every flavor-resource."""
    from kadmit.engine.quota import node_id
    tree = session.compiler.tree
    nid = node_id(cq, False)
    return all(v <= tree.available(nid, fr, session.usage) for fr, v in usage.items() if v > 0)
