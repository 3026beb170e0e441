"""Backoffs that end during an `ordered` run. A pending workload held by a `status.requeueState.requeueAt` to
come beside a False `Requeued` condition Kueue's workload controller sets True again (`effective.held`,
`Workload.backoff_ends`) is queued once the run's clock passes its requeueAt: the controller asked to be called
again then (ctrl.Result RequeueAfter, "Waiting for backoff to finish"), clears the requeueAt, sets the condition
True (BackoffFinished, Reactivated, ...), and its ClusterQueue takes it into its heap. A cycle is a second (the
oracle's fake clock steps a second a cycle, and fires the controller's timers the clock has passed before the next
one: tools/kueue-oracle/internal/cluster/requeue.go), so a backoff ending k seconds after the run's start queues
its workload before cycle k + 1, if the run gets there. The run does not wait for it: one that has settled before
ends there (as the oracle's, which also goes on to cycle k + 1 after a cycle that tried a head)."""

from __future__ import annotations

from collections.abc import Callable

from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.queueing import queued
from kadmit.engine.admission.session import Session
from kadmit.model import Workload


class Backoffs:
    """The held workloads whose backoff ends during the run, by the cycle they are queued before."""

    def __init__(self, session: Session, workloads) -> None:
        self.session = session
        self.due: dict[int, list[Workload]] = {}
        for wl in sorted(workloads, key=lambda w: w.key):
            if wl.held and wl.backoff_ends > 0:
                self.due.setdefault(wl.backoff_ends + 1, []).append(wl)

    def pending_at(self, cycle: int) -> bool:
        """Whether a backoff not yet ended ends before `cycle`, the next one."""
        return any(due <= cycle for due in self.due)

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
