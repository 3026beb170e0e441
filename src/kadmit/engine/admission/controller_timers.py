"""The workload controller's timers during an `ordered` run: what Kueue's WorkloadReconciler asks to be called
again for (ctrl.Result RequeueAfter) and does then. A cycle is a second (the oracle's fake clock steps a second a
cycle and fires the controller's timers the clock has passed before the next one:
tools/kueue-oracle/internal/cluster/requeue.go), so a timer due k seconds after the run's start acts before cycle
k + 1, if the run gets there. The run does not wait for one: a run that has settled before ends there (as the
oracle's, which also goes on to the next second after a cycle that tried a head). A run whose heads fail again and
again (a StrictFIFO head that doesn't fit stays at its queue's head) ends as the oracle's stalls, after as many
cycles changing nothing as there are ResourceFlavors, plus two (`runs_on`): a timer due by then fires.

- A backoff's end: a pending workload held by a `status.requeueState.requeueAt` to come beside a False `Requeued`
  condition the controller sets True again (`effective.held`, `Workload.backoff_ends`): "Waiting for backoff to
  finish", then the requeueAt is cleared, the condition set True (BackoffFinished, Reactivated, ...), and its
  ClusterQueue takes it into its heap: it is queued.
- A maximum execution time running out (reconcileMaxExecutionTime): an Admitted workload is deactivated once it has
  run `maximumExecutionTimeSeconds` (less what it ran before), and gives its quota back, never admitted again: a
  holder of the input (`effective.expired`, `Workload.exec_ends`), or one the run admits in a ClusterQueue without
  admission checks (Admitted as it reserves quota; Admitted condition at the cycle's second) whose time runs out
  `max_exec` seconds later. One evicted during the run is left alone (what it ran before its eviction would count:
  not modelled).
- A Retry check's retry time (its lastTransitionTime + requeueAfterSeconds, the latest over the checks) on a holder
  of the input (`Workload.retry_ends`, `effective.checked`): the controller sets the workload's requeueAt to it and, "Waiting for backoff
  to finish", keeps its quota until then (a Rejected check's deactivation waits too); then
  reconcileCheckBasedEviction deactivates it if a check is Rejected, else evicts it: its quota is given back and
  its queue takes it again, its checks Pending, ordered by its eviction, as the input's evicted holders are before
  the first cycle (ordered.py's `evicting`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from kadmit.effective import DEACTIVATED, EXPIRED, requeued, run_start
from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.queueing import queued
from kadmit.engine.admission.session import Session
from kadmit.engine.afs import Stall
from kadmit.engine.preemption.candidates import Victim
from kadmit.model import Workload


# why a head dropped by a failed cycle waits (`ControllerTimers.drops`), before the stall's own words
DROPPED = ("dropped by a failed scheduling cycle: Kueue took it as its ClusterQueue's head while its snapshot failed, "
           "and does not queue it again until its Workload changes, though the stall ended during the run. ")


class ControllerTimers:
    """The held workloads whose backoff ends during the run, by the cycle they are queued before, and the holders
    whose maximum execution time may run out."""

    def __init__(self, session: Session, workloads) -> None:
        self.session = session
        self.due: dict[int, list[Workload]] = {}
        for wl in sorted(workloads, key=lambda w: w.key):
            if wl.held and wl.backoff_ends > 0:
                self.due.setdefault(wl.backoff_ends + 1, []).append(wl)
        # the input's holders a Retry check keeps until its retry time, by the cycle they are evicted before
        self.retries: dict[int, list[str]] = {}
        for key, h in sorted(session.holders.items()):
            if not h.new and (ends := session.index.workloads[key].retry_ends):
                self.retries.setdefault(ends + 1, []).append(key)
        # any workload with a maximum execution time (else no holder is looked at); each holder's admission as
        # first seen (0: the input's), and those seen admitted again since
        self.timed = any(w.max_exec for w in session.model.workloads)
        self.stamps: dict[str, int] = {}
        self.moved: set[str] = set()
        # cycles in a row that changed nothing (the last of them `quiet_at`), and how many of them the oracle's run
        # goes through before it stops as stalled (tools/kueue-oracle/internal/cluster/run.go: still > flavors + 1)
        self.quiet, self.quiet_at, self.patience = 0, 0, len(session.index.flavors) + 1

    def pending_at(self, cycle: int) -> bool:
        """Whether a timer not yet fired is due before `cycle`, the next one."""
        return any(due <= cycle for due in [*self.due, *self.retries]) or any(at <= cycle for at, _ in self._expiries())

    def runs_on(self, cycle: int, tried: bool, retrying: bool) -> bool:
        """After `cycle`, which changed nothing: whether the run goes on to a timer due before it would stop. It
        goes on only after a cycle that tried a head, and a cycle whose head moved on to a flavor it had left
        (`retrying`: its Pending message changed) starts the count again, as the oracle's does."""
        self.quiet = 0 if retrying else self.quiet + 1 if self.quiet_at == cycle - 1 else 1
        self.quiet_at = cycle
        return tried and (self.pending_at(cycle + 1) or (
            self.quiet <= self.patience and self.pending_at(cycle + 1 + self.patience - self.quiet)))

    def fire(self, cycle: int, queues: dict[str, list[Workload]], decisions: dict[str, Decision],
             waits: Callable[..., None], resort: Callable[[str], None], evicting: list) -> bool:
        """The timers due before `cycle`: executions timed out (`expire`), backoffs ended (`release`), then
        holders' retry times passed (`retry`, added to `evicting`). True when the state changed."""
        return self.expire(cycle, decisions) | self.release(cycle, queues, decisions, waits, resort) \
            | self.retry(cycle, evicting, decisions)

    def retry(self, cycle: int, evicting: list, decisions: dict[str, Decision]) -> bool:
        """Act on the holders whose Retry checks' retry time passed before `cycle` (reconcileCheckBasedEviction):
        one with a Rejected check is deactivated (its quota given back, queued nowhere, as `expire`); else each is
        added to `evicting` (its quota given back before the cycle and its queue taking it again), evicted as
        the clock stands then (`cycle` - 1 seconds after the run's start: its queue order) with its checks reset
        to Pending (resetChecksOnEviction). True when some were."""
        ix, s, changed = self.session.index, self.session, False
        for key in [k for due in sorted(d for d in self.retries if d <= cycle) for k in self.retries.pop(due)]:
            h = s.holders.get(key)
            if h is None:
                continue  # (preempted or deactivated before its retry time)
            if rejected := [c.name for c in ix.workloads[key].check_states if c.state == "Rejected"]:
                wl = ix.workloads[key] = ix.workloads[key].model_copy(update={
                    "admission": None, "active": False, "retry_ends": 0,
                    "inadmissible": DEACTIVATED + ", ".join(rejected) + ", were rejected"})
                self.moved.add(key)  # (done with)
                s.finish(key)
                decisions[key] = Decision(wl, False, h.cluster_queue, cycle=cycle)
                changed = True
                continue
            wl = ix.workloads[key] = requeued(ix.workloads[key], {
                "evicted": True, "created": run_start(s.model) + timedelta(seconds=cycle - 1), "check_states": tuple(
                    c.model_copy(update={"state": "Pending", "retry_at": None}) for c in ix.workloads[key].check_states),
                "retry_ends": 0})
            evicting.append((Victim(key, h.cluster_queue, "", ix.priority(wl)), None))
            changed = True
        return changed

    def release(self, cycle: int, queues: dict[str, list[Workload]], decisions: dict[str, Decision],
                waits: Callable[..., None], resort: Callable[[str], None]) -> bool:
        """Queue the workloads whose backoff ended before `cycle` (or before the cycles a run of set-asides skipped):
        True when some queue took one."""
        ix, changed = self.session.index, False
        for wl in [w for due in sorted(d for d in self.due if d <= cycle) for w in self.due.pop(due)]:
            now = ix.workloads[wl.key] = wl.model_copy(update={"held": False, "inadmissible": "", "backoff_ends": 0})
            cq = ix.cluster_queue_of(now)
            if queued(self.session, now, cq):
                decisions.pop(wl.key, None)
                queues.setdefault(cq.name, []).append(now)
                waits(now, cq.name)
                resort(cq.name)
                changed = True
        return changed

    def expire(self, cycle: int, decisions: dict[str, Decision]) -> bool:
        """Deactivate the holders whose maximum execution time ran out before `cycle`: their quota is given back
        before the cycle, they are queued nowhere (inactive) and their decision is not admitted (True: some were).
        Kueue requeues no inadmissible workload for it (the workload controller's Update handler deletes the
        workload from the queues before QueueAssociatedInadmissibleWorkloadsAfter looks its queue up): only the
        heads still queued meet the quota given back."""
        ix, changed = self.session.index, False
        for at, h in self._expiries():
            if at > cycle:
                continue
            wl = ix.workloads[h.workload] = ix.workloads[h.workload].model_copy(
                update={"admission": None, "active": False, "inadmissible": EXPIRED, "exec_ends": 0})
            self.moved.add(h.workload)  # (done with)
            self.session.finish(h.workload)
            decisions[h.workload] = Decision(wl, False, h.cluster_queue, cycle=cycle)
            changed = True
        return changed

    def drops(self, held: list[Workload], stalled: Stall, cycle: int, queues: dict[str, list[Workload]],
              decisions: dict[str, Decision], waits: Callable[..., None]) -> bool:
        """A cycle whose snapshot fails (`afs.stalled_by`: KAD542) where the stall may end during the run, every
        Workload making it having its maximum execution time run out: Kueue's Heads took one head of each
        ClusterQueue, and the failed cycle drops them without requeueing them (scheduler.schedule returns before
        nominate; the queue's next Pop forgets it as its inflight workload), so each waits, never tried again, until
        its Workload changes. True: heads were dropped and the run goes on (else, as when the stall lasts, it ends)."""
        ending = {h.workload for _, h in self._expiries()}
        if not all(w.key in ending for w in held) or not any(queues.values()):
            return False
        dropped = Stall(DROPPED + stalled.message, stalled.holders)
        for name in sorted(queues):
            if queues[name]:
                head = queues[name].pop(0)
                waits(head, None)
                decisions[head.key] = Decision(head, False, name, cycle=cycle, stalled=dropped)
        return True

    def _expiries(self):
        """(the cycle it is deactivated before, its holder) for each holder whose maximum execution time runs out."""
        if not self.timed:
            return []
        ix, s, out = self.session.index, self.session, []
        for key, h in s.holders.items():
            wl = ix.workloads[key]
            if not wl.max_exec or key in self.moved:
                continue
            stamp = s.admitted_cycle.get(key, 0) if h.new else 0
            if self.stamps.setdefault(key, stamp) != stamp:
                self.moved.add(key)  # admitted again: what it ran before counts (not modelled)
                continue
            if not h.new:
                if wl.exec_ends:
                    out.append((wl.exec_ends + 1, h))
            elif not ix.cluster_queues[h.cluster_queue].admission_checks:
                out.append((stamp + wl.max_exec, h))
        return out
