"""The replay: a clock over arrivals and completions, the engine deciding at every instant.

At each instant where something happens, in this order: workloads that ran their duration finish
(quota and nodes released), nodes are added, workloads and pods arrive; then the engine decides as
`admit` does (`decide_ordered` on one `Session` kept for the whole run), then kube-scheduler binds
the pods that admission doesn't place (pod sets on flavors without a topology, and pods no Kueue
queue manages). Decisions take no simulated time. An admitted workload runs from the instant all
its pods are bound; an evicted one releases everything, queues again and later restarts from the
beginning.

Incremental decisions, as Kueue's queue manager: a workload that was tried and not admitted is
parked (Kueue's inadmissible list) until quota or nodes are released in its cohort tree — a workload
finishing between instants, or an eviction inside a decision, which `decide_ordered` retries it
after (its `parked`). At each instant every part of the cluster where something happened is decided
by one `decide_ordered` call over its workloads not parked, run to a fixed point as `admit` runs
(StrictFIFO queues are never parked: Kueue keeps their heads in its heap). So a replay whose every
workload is there at the start ends where `admit` ends. Why a workload still waits at the end is its
last decision's reasons, in the state it met when last tried where its tree changed after it in that
decision (`run_reasons`), else against the final state, as `admit` words them.
"""

from __future__ import annotations

import bisect
import heapq
import time
from datetime import datetime
from typing import Callable

from kadmit.engine.admission.checks import held_waiting, mark_one
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.model import Model, Node, Workload
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import add, node_state, pod_usage
from kadmit.simulate.kube import ChangeLog, KubeScheduler
from kadmit.simulate.metrics import Recorder
from kadmit.simulate.parts import Parts
from kadmit.simulate.queues import Queues
from kadmit.simulate.state import Capacity, Options, PodBatch, PodEntry, PodSetRun, Record

FINISH, NODES, ARRIVAL, CYCLE, WAKE = 0, 1, 2, 3, 4  # the order of events at one instant (WAKE: an autoscaler's timer)


class Simulator:
    def __init__(self, model: Model, start: datetime, arrivals: list[tuple[int, Workload]],
                 capacity: list[Capacity] = (), options: Options | None = None,
                 autoscaler=None, progress: Callable[[int, int], None] | None = None) -> None:
        self.opt = options or Options()
        self.start = start
        queued = [wl for _, wl in arrivals if wl.queue]
        self.kube_rows = {wl.key: wl for _, wl in arrivals if not wl.queue}
        self.model = model.model_copy(update={"workloads": model.workloads + tuple(queued)})
        self.session = Session(self.model, self.opt.limits, self.opt.tas_profile)
        self.state = self.session.model  # what Kueue acts on (`kadmit.effective`: drained queues, counted requests)
        self.ix = self.session.index
        self.tree = self.session.compiler.tree
        self.pool = self.session.pool
        self.pool.free = ChangeLog(self.pool.free)
        self.parts = Parts(self.model, self.session, split=self.opt.mode == "ordered" and self.opt.split)
        self.kube = KubeScheduler(list(self.pool.inventory.nodes), self.pool.free, self.opt.scoring)
        self.has_nodes = bool(self.pool.inventory.nodes) or bool(capacity) or autoscaler is not None
        self.autoscaler = autoscaler
        self.progress = progress
        self.records: dict[str, Record] = {}
        self.undecided: set[str] = set()  # workloads a decision left unknown within the solver's limits (exit 3)
        self.work = 0  # pending workloads decided, summed over the decisions (`Options.work_budget`)
        self.stopped: int | None = None  # the instant the replay stopped at, past its work budget (exit 3)
        self.events: list[tuple] = []
        self._seq = 0
        self.gen: dict[str, int] = {}  # a finish event counts only for the run it was made for
        self.queues = Queues(self.ix, self.tree, self.parts)  # the pending workloads, as Kueue's queue manager
        self.shape_queues: dict[tuple, list[PodEntry]] = {}  # pods waiting for kube-scheduler, per shape
        self.waiting_entries: dict[str, int] = {}  # owner -> its entries waiting
        self._pods_added = False
        self._bound_at_log = -1
        self.batches: dict[str, list[PodBatch]] = {}
        self.running: dict[str, object] = {}  # admitted workload -> its holder in the session
        self.rounds = 0
        self._stamp = -(1 << 60)  # admission order across decisions (`_stamp_admissions`)
        self._held_dirty: set[str] = set()  # released cohort trees and arrivals not decided yet (cycle latency)
        self._held_arrived: list[str] = []
        self._next_cycle = -1
        self.decide_seconds = 0.0
        self.last_reasons: dict = {}  # workload -> the reasons of its last decision not admitting it (`_decide_part`)
        self.instants = 0
        self.now = 0
        for c in capacity:
            self._push(c.at_ms, NODES, c)
        self._initial(arrivals)
        self.recorder = Recorder(self)
        for cq in sorted(self.session.usage.data):
            self.recorder.usage_changed(cq, 0)
        for _ in self.running:
            self.recorder.running(0, +1)

    # --- setup ---------------------------------------------------------------------------------------

    def _push(self, at: int, kind: int, what) -> None:
        self._seq += 1
        heapq.heappush(self.events, (at, kind, self._seq, what))

    def _initial(self, arrivals: list[tuple[int, Workload]]) -> None:
        seen = set()
        for wl in sorted(self.state.workloads, key=lambda w: w.key):
            if wl.key in seen:
                continue
            seen.add(wl.key)
            rec = Record(wl.key, "kueue", None, self.ix.priority(wl), wl.duration_ms)
            self.records[wl.key] = rec
            if wl.admitted and wl.evicted:  # being evicted in the input: it releases its quota and queues again
                self.parts.session(wl.admission.cluster_queue if wl.admission else None).finish(wl.key)
                rec.evictions.append((0, 0))
                self._push(0, ARRIVAL, wl.key)
                continue
            if wl.admitted and wl.admission is not None:
                rec.arrived = rec.admitted_at = rec.started_at = 0
                rec.cluster_queue = wl.admission.cluster_queue
                rec.pod_sets = [PodSetRun(p.name, p.count, sorted(set(p.flavors.values())), dict(p.placement),
                                          dict(p.flavors), bool(p.placement)) for p in wl.admission.pod_sets]
                rec.requests = _requests(wl, {p.name: p.count for p in wl.admission.pod_sets})
                self.running[wl.key] = self.parts.session(rec.cluster_queue).holders.get(wl.key)
                rec.checks = held_waiting(self.ix, wl)
                if rec.checks:  # its job stays suspended until every check is Ready: it does not run
                    rec.started_at = None
                    continue
                if wl.duration_ms is not None:
                    left = wl.duration_ms
                    if wl.admission.admitted_at is not None:
                        ran = int((self.start - wl.admission.admitted_at).total_seconds() * 1000)
                        left = max(0, wl.duration_ms - max(0, ran))
                    self.gen[wl.key] = 1
                    self._push(left, FINISH, (wl.key, 1))
                continue
            if wl.finished:
                continue
            at = max(0, int((wl.created - self.start).total_seconds() * 1000))
            self._push(at, ARRIVAL, wl.key)
        for key, wl in sorted(self.kube_rows.items()):
            self.records[key] = Record(key, "pod", None, self.ix.priority(wl), wl.duration_ms)
            at = max(0, int((wl.created - self.start).total_seconds() * 1000))
            self._push(at, ARRIVAL, key)
        del arrivals

    # --- the loop ---------------------------------------------------------------------------------------

    def run(self) -> "Simulator":
        total = len(self.events)
        done = 0
        while self.events:
            t = self.events[0][0]
            if self.opt.until_ms is not None and t > self.opt.until_ms:
                break
            self.now = t
            self.instants += 1
            dirty: set[str] = set()
            arrived: list[str] = []
            released = False
            while self.events and self.events[0][0] == t:
                _, kind, _, what = heapq.heappop(self.events)
                done += 1
                if kind == FINISH:
                    released |= self._finish(what, t, dirty)
                elif kind == NODES:
                    self._add_nodes(what, t)
                    released = True
                elif kind == ARRIVAL:
                    arrived.append(what)
            for key in arrived:
                self._arrive(key, t)
            if released and self.parts.tas_queues:  # node capacity freed: parked TAS workloads requeue
                dirty.update(self.tree.root(f"cq:{cq}") for cq in self.queues.pending if cq in self.parts.tas_queues)
            self._held_dirty |= dirty
            self._held_arrived += [k for k in arrived if k not in self.kube_rows]
            cycle = self.opt.cycle_ms
            if not cycle or t % cycle == 0:  # decide now: every instant, or on the cycle's beat
                self._decide(t, self._held_dirty, self._held_arrived)
                self._held_dirty, self._held_arrived = set(), []
            elif self._next_cycle <= t:  # what happened waits for the next scheduling cycle
                self._next_cycle = (t // cycle + 1) * cycle
                self._push(self._next_cycle, CYCLE, None)
            self._bind(t)  # kube-scheduler binds whenever capacity frees, whatever Kueue's cycle
            if self.autoscaler is not None:
                self.autoscaler.step(self, t)
            self.recorder.sample(t)
            if self.progress is not None:
                self.progress(done, done + len(self.events))
            if self.work > self.opt.work_budget:  # this instant's decisions passed it: the replay ends here
                self.stopped = t
                break
        end = self.opt.until_ms if self.opt.until_ms is not None else self.now
        self.recorder.close(end)
        self._close(end)
        return self

    # --- events --------------------------------------------------------------------------------------

    def _arrive(self, key: str, t: int) -> None:
        rec = self.records[key]
        rec.arrived = t
        if rec.kind == "pod":
            wl = self.kube_rows[key]
            ps = wl.pod_sets[0]
            rec.requests = _requests(wl, {ps.name: ps.count})
            rec.pod_sets = [PodSetRun(ps.name, ps.count, [])]
            self._add_pods(PodEntry(key, ps.name, rec.priority, t, PodTemplate.build(ps), ps.count))
            self.recorder.pending_pods(t, +1)
            return
        wl = self.ix.workloads[key]
        cq = self.ix.cluster_queue_of(wl)
        rec.cluster_queue = cq.name if cq else None
        self._enqueue(wl, t)

    def _enqueue(self, wl: Workload, t: int) -> None:
        """It waits in its queue: the next decision in its part tries it."""
        self.recorder.queue_depth(self.queues.add(wl.key), t, +1)
        self.records[wl.key].waiting_since = t

    def _dequeue(self, key: str, t: int) -> None:
        self.recorder.queue_depth(self.queues.remove(key), t, -1)
        rec = self.records[key]
        rec.waiting_ms += t - rec.waiting_since

    def _finish(self, what, t: int, dirty: set[str]) -> bool:
        """A run ends (its duration is up). True when node capacity was released."""
        key, gen = what
        rec = self.records[key]
        if rec.kind == "pod":  # one batch of pods bound at `gen` ends
            self._release_pods(key, t, batch=gen)
            if not self.batches.get(key) and key not in self.waiting_entries:
                rec.finished_at = t
            return True
        if self.gen.get(key) != gen:
            return False  # that run was evicted
        released = self._release_pods(key, t)
        rec.finished_at = t
        rec.run_ms += t - (rec.started_at or t)
        if key in self.running:
            session = self.parts.session(rec.cluster_queue)
            cq = session.holders[key].cluster_queue if key in session.holders else rec.cluster_queue
            session.finish(key)
            del self.running[key]
            if cq:
                dirty.add(self.tree.root(f"cq:{cq}"))
                self.recorder.usage_changed(cq, t)
        self.recorder.running(t, -1)
        return released or bool(self.pool.placed.get(key))

    def _release_pods(self, key: str, t: int, batch: int | None = None) -> bool:
        out = False
        keep = []
        for b in self.batches.pop(key, []):
            if batch is not None and b.bound_at != batch:
                keep.append(b)
                continue
            rec = self.records[key]
            if rec.kind == "pod":
                rec.run_ms += t - b.bound_at
            for node, use in b.node_use.items():
                self.pool.free[node] = add(self.pool.free[node], use)
                out = True
        if keep:
            self.batches[key] = keep
        if out:
            self.recorder.nodes_changed()
        return out

    def _add_nodes(self, cap: Capacity, t: int) -> None:
        for node in cap.nodes:
            self.pool_add_node(node)
        self.recorder.nodes_added(t, cap)
        if cap.tag and self.autoscaler is not None:
            self.autoscaler.joined(cap)

    def node_empty(self, name: str) -> bool:
        """No pod bound on the node (nothing taken from its allocatable)."""
        state = self.pool.inventory.get(name)
        free = self.pool.free.get(name)
        return state is not None and free is not None and all(free.get(r, 0) >= q for r, q in state.allocatable.items())

    def remove_nodes(self, names: list[str], t: int, source: str) -> None:
        """Empty nodes leave the cluster (an autoscaler's consolidation)."""
        for name in names:
            self.pool.remove_node(name)
            self.kube.remove_node(name)
        self.recorder.nodes_removed(t, source, names)

    def wake_at(self, t: int) -> None:
        """An instant at `t` even if nothing else happens then (an autoscaler's timer)."""
        self._push(t, WAKE, None)

    def pool_add_node(self, node: Node) -> None:
        state = node_state(node)
        self.pool.add_node(node, state)
        self.kube.add_node(state)
        self.has_nodes = True

    # --- deciding ----------------------------------------------------------------------------------------

    def _decide(self, t: int, dirty: set[str], arrived: list[str]) -> None:
        if self.opt.mode == "optimal":
            if dirty or arrived:
                from kadmit.simulate.optimal_mode import decide_optimal
                t0 = time.perf_counter()
                decide_optimal(self, t)
                self.decide_seconds += time.perf_counter() - t0
            return
        asked = self.queues.to_decide(dirty)
        if not asked:
            return
        self.rounds += 1
        self.work += sum(len(queued) for queued, _ in asked.values())
        t0 = time.perf_counter()
        decisions = sorted((d for part, (queued, parked) in sorted(asked.items()) if queued
                            for d in self._decide_part(self.parts.sessions.get(part, self.session), queued, parked)),
                           key=lambda d: d.key)
        self.decide_seconds += time.perf_counter() - t0
        self._stamp_admissions(decisions)
        victims = {v.key for d in decisions for v in d.preempted} | {d.key for d in decisions if d.preempted_by}
        for key in sorted(victims):  # evicted (and perhaps admitted again): its holder is not the one it had
            if key not in self.running:  # admitted and evicted by this decision, all at this instant
                rec = self.records[key]
                rec.admitted_at = t
                rec.evictions.append((t, t))
                self.recorder.evicted(next((v.cluster_queue for d in decisions for v in d.preempted if v.key == key),
                                           rec.cluster_queue or ""), t)
            elif (self.parts.session(self.records[key].cluster_queue).holders.get(key)
                  is not self.running[key]):
                self._evicted(key, t)  # decide_ordered already retried what its release let in
        for d in decisions:
            if d.unknown:  # admitted or not, on a guess about a check the solver left undecided
                self.undecided.add(d.key)
            if d.admitted and d.assignment is not None:
                mark_one(self.ix, d)
                self._admitted(d.workload, d.assignment, t, [f"{n} ({s})" for n, s in d.checks if s != "Ready"])
                continue
            rec = self.records.get(d.key)
            if rec is not None and rec.kind == "kueue":
                self.queues.tried(d)

    def _decide_part(self, session, queued: list[Workload], parked) -> list:
        """One part decided. A workload it leaves pending whose tree (or the nodes) changed after the cycle
        it was last tried in has its reasons taken now, in the state it met then (`run_reasons`: Kueue's
        message is that nomination's); the others' are the part's state at the end (`_explain_pending`)."""
        from kadmit.engine.decide import run_reasons
        session.keep_journal()
        try:
            got = decide_ordered(session, queued, parked=parked, hashes=self.queues.hashes)
            met = run_reasons(session, got, met_only=True)
        finally:
            session.journal = None
        for d in got:
            if d.key in met:
                self.last_reasons[d.key] = met[d.key]
            else:
                self.last_reasons.pop(d.key, None)
        return got

    def _stamp_admissions(self, decisions) -> None:
        """Preemption takes the most recently admitted candidates first (Kueue's candidate order);
        the engine ranks this run's admissions by `admitted_cycle`, which counts cycles from 1 in
        each call. Across calls the numbers go on from the replay's own counter, kept below 1 so the
        next call's admissions (cycles 1, 2, ...) rank as more recent than all of them."""
        top = 0
        for d in decisions:
            if d.admitted and d.assignment is not None:
                self.parts.session(d.assignment.cluster_queue).admitted_cycle[d.key] = self._stamp + d.cycle
                top = max(top, d.cycle)
        self._stamp += top + 1

    def _admitted(self, wl: Workload, a, t: int, checks: list[str] | None = None) -> None:
        """`wl` reserves quota on `a`; its pods start once bound, unless it waits for admission checks
        (`checks`): Kueue keeps its job suspended until they are all Ready, which their controllers
        decide at run time (not modelled): it holds its quota to the end of the replay."""
        key = wl.key
        rec = self.records[key]
        self._dequeue(key, t)
        self.running[key] = self.parts.session(a.cluster_queue).holders.get(key)
        rec.admitted_at = t
        rec.reason = None
        rec.reasons = []
        rec.cluster_queue = a.cluster_queue
        placed = a.placement.nodes() if a.placement is not None else {}
        rec.pod_sets = [PodSetRun(ps.name, a.counts.get(ps.name, 0),
                                  sorted(set(a.flavors.get(ps.name, {}).values())), dict(placed.get(ps.name, {})),
                                  dict(a.flavors.get(ps.name, {})), ps.name in placed)
                        for ps in wl.pod_sets]
        rec.requests = _requests(wl, a.counts)
        rec.checks = list(checks or [])
        self.recorder.usage_changed(a.cluster_queue, t)
        if rec.checks:
            return
        if placed:
            self.recorder.nodes_changed()
        waiting = False
        if self.has_nodes:
            for ps in wl.pod_sets:
                n = a.counts.get(ps.name, 0)
                if n > 0 and ps.name not in placed:
                    fls = [self.ix.flavors[f] for f in sorted(set(a.flavors.get(ps.name, {}).values()))
                           if f in self.ix.flavors]
                    self._add_pods(PodEntry(key, ps.name, rec.priority, t, PodTemplate.build(ps, fls), n))
                    waiting = True
        if not waiting:
            self._start(key, t)

    def _start(self, key: str, t: int) -> None:
        rec = self.records[key]
        rec.started_at = t
        self.recorder.running(t, +1)
        if rec.duration is not None:
            g = self.gen.get(key, 0) + 1
            self.gen[key] = g
            self._push(t + rec.duration, FINISH, (key, g))

    def _evicted(self, key: str, t: int) -> None:
        rec = self.records[key]
        del self.running[key]
        self.gen[key] = self.gen.get(key, 0) + 1  # its finish event no longer counts
        rec.evictions.append((t, rec.admitted_at if rec.admitted_at is not None else 0))
        if rec.started_at is not None and rec.started_at >= (rec.admitted_at or 0):
            rec.run_ms += t - rec.started_at
            self.recorder.running(t, -1)
        rec.started_at = None
        self._drop_pods(key)
        self._release_pods(key, t)
        if rec.cluster_queue:
            self.recorder.usage_changed(rec.cluster_queue, t)
        self.recorder.evicted(rec.cluster_queue or "", t)
        self._enqueue(self.ix.workloads[key], t)

    # --- kube-scheduler --------------------------------------------------------------------------------

    @property
    def pods(self) -> list[PodEntry]:
        """Every pod entry waiting for kube-scheduler, in its order (priority, then arrival)."""
        return sorted((e for q in self.shape_queues.values() for e in q), key=_pod_order)

    def _add_pods(self, e: PodEntry) -> None:
        """Pods join kube-scheduler's queue: one queue per pod shape, each in kube-scheduler's order."""
        bisect.insort(self.shape_queues.setdefault(_shape_key(e), []), e, key=_pod_order)
        self.waiting_entries[e.owner] = self.waiting_entries.get(e.owner, 0) + 1
        self._pods_added = True

    def _drop_pods(self, owner: str) -> None:
        if self.waiting_entries.pop(owner, 0):
            for k in list(self.shape_queues):
                self.shape_queues[k] = [e for e in self.shape_queues[k] if e.owner != owner]
                if not self.shape_queues[k]:
                    del self.shape_queues[k]

    def _bind(self, t: int) -> None:
        """kube-scheduler's pass: pods in its order, across shapes; a shape that finds no room for its
        next pod is done for the pass (the same pods behind it wouldn't fit either)."""
        log = self.pool.free.log
        if not self.shape_queues or (len(log) == self._bound_at_log and not self._pods_added):
            return  # no capacity released and nothing new since the last pass: nothing can bind
        self._pods_added = False
        done_owners = []
        heads = [(_pod_order(q[0]), k) for k, q in self.shape_queues.items()]
        heapq.heapify(heads)
        while heads:
            _, k = heapq.heappop(heads)
            q = self.shape_queues[k]
            e = q[0]
            got = self.kube.place(e.template, e.remaining)
            if got:
                self._bound(e, got, t)
            if e.remaining > 0:
                continue  # this shape found no room: done for the pass
            q.pop(0)
            self.waiting_entries[e.owner] -= 1
            if not self.waiting_entries[e.owner]:
                del self.waiting_entries[e.owner]
                done_owners.append(e.owner)
            if q:
                heapq.heappush(heads, (_pod_order(q[0]), k))
            else:
                del self.shape_queues[k]
        self._bound_at_log = len(log)
        for owner in sorted(done_owners):
            rec = self.records[owner]
            if rec.kind == "kueue":
                self._start(owner, t)
            else:
                self.recorder.pending_pods(t, -1)

    def _bound(self, e: PodEntry, got: dict[str, int], t: int) -> None:
        per_pod = pod_usage(e.template.request_map, 1)
        use = {n: {r: q * k for r, q in per_pod.items()} for n, k in got.items()}
        self.batches.setdefault(e.owner, []).append(PodBatch(e.owner, use, t))
        rec = self.records[e.owner]
        run = next(p for p in rec.pod_sets if p.name == e.pod_set)
        for n, k in got.items():
            run.placement[n] = run.placement.get(n, 0) + k
        e.remaining -= sum(got.values())
        self.recorder.nodes_changed()
        if rec.kind == "pod":
            rec.admitted_at = t
            if rec.started_at is None:
                rec.started_at = t
                rec.waiting_ms = t - (rec.arrived or 0)
            if rec.duration is not None:
                self._push(t + rec.duration, FINISH, (e.owner, t))

    def _explain_pending(self) -> None:
        """Why each workload still pending at the end waits: its last decision's reasons, in the state it
        met then where its tree changed after it within that decision (`_decide_part`), else against the
        final state of its part, in the engine's words (as `admit` gives them)."""
        from kadmit.engine.decide import decision_reasons
        for cq, keys in sorted(self.queues.pending.items()):
            session = self.parts.session(cq)
            for key in keys:
                d = self.queues.last.get(key)
                if d is None:  # arrived, and no decision came before the run ended (cycle latency)
                    continue
                rec = self.records[key]
                met = self.last_reasons.get(key)
                rec.reasons = [(r.code, r.message) for r in (met if met is not None else decision_reasons(session, d))]
                rec.reason = "; ".join(f"{code}: {message}" for code, message in rec.reasons)

    def _close(self, end: int) -> None:
        if self.opt.mode == "ordered":
            self._explain_pending()
        for key, rec in self.records.items():
            if rec.kind == "kueue" and rec.started_at is not None and rec.finished_at is None:
                rec.run_ms += end - rec.started_at
            if rec.kind == "kueue" and rec.admitted_at is None and rec.arrived is not None:
                rec.waiting_ms += end - rec.waiting_since
        for key, bs in self.batches.items():
            rec = self.records[key]
            if rec.kind == "pod":
                rec.run_ms += sum(end - b.bound_at for b in bs)


def _shape_key(e: PodEntry) -> tuple:
    return (e.template.requests, e.template.node_selector, e.template.node_affinity, e.template.tolerations)


def _pod_order(e: PodEntry) -> tuple:
    return (-e.priority, e.arrived, e.owner, e.pod_set)


def _requests(wl: Workload, counts: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for ps in wl.pod_sets:
        for r, q in ps.requests.items():
            out[r] = out.get(r, 0) + q * counts.get(ps.name, 0)
    return out

