"""Kueue's queueing (`pkg/cache/queue`): which ClusterQueue a pending workload waits in, the
order of each queue, and what happens to a head that can't be admitted.

1. A pending workload that is inactive, already marked inadmissible, names a missing or stopped
   LocalQueue or a missing ClusterQueue, or whose ClusterQueue is inactive (stop policy
   Hold / HoldAndDrain, a missing flavor, a cohort in a cycle) never reaches a queue and keeps
   the reason the workload controller gives it.
2. Each ClusterQueue orders its workloads: a BestEffortFIFO preemptor kept at the head first
   (sticky), then higher effective priority, older, and the key (Kueue breaks the last tie by
   UID).
3. A head that can't be admitted: BestEffortFIFO moves it to the inadmissible list and the next
   workload becomes the head; StrictFIFO keeps it at the head. A namespace mismatch is moved
   aside in both. Releasing quota in a cohort tree brings the inadmissible workloads of its
   queues back (`QueueInadmissibleWorkloads`).
"""

from __future__ import annotations

from kadmit.index import ModelIndex
from kadmit.model import Workload
from kadmit.reference.quota import QuotaTree, root_of

DEACTIVATED = "The workload is deactivated"


def _uid(wl: Workload) -> str:
    """The UID Kueue's queue breaks a tie by (baseCompareFunc): a Workload its job reconciler has yet to make
    (a job's, no UID here) gets the API server's random UUID, most likely after a given one below "8" and
    before one above."""
    return wl.uid or ("8" if wl.kueue_name is not None else "")


class Queues:
    """The pending workloads of every active ClusterQueue (Kueue's queue manager)."""

    def __init__(self, index: ModelIndex, tree: QuotaTree) -> None:
        self.index = index
        self.tree = tree
        self.heaps: dict[str, list[Workload]] = {}  # name -> workloads, head first
        self.inadmissible: dict[str, list[Workload]] = {}
        self.sticky: dict[str, str] = {}  # BestEffortFIFO queue -> the preemptor kept at its head

    def cluster_queue_inactive(self, name: str) -> bool:
        spec = self.index.cluster_queues[name]
        if spec.stop_policy != "None" or spec.terminating:  # being deleted: inactive, as under Hold
            return True
        if spec.cohort and spec.cohort in self.tree.cycles:
            return True
        if self.index.check_problems(spec):  # admission checks missing or not Active (kadmit.modelchecks)
            return True
        for group in spec.resource_groups:
            for fq in group.flavors:
                if fq.flavor not in self.index.flavors:
                    return True
        return False

    def route(self, wl: Workload) -> tuple[str | None, str | None]:
        """(ClusterQueue, None) for a workload that waits in that queue; (the ClusterQueue its
        decision names or None, the reason) for one that waits nowhere."""
        lq = self.index.local_queues.get(wl.namespace + "/" + wl.queue)
        if not wl.active or wl.inadmissible:
            return (None if lq is None else lq.cluster_queue), (DEACTIVATED if not wl.active else wl.inadmissible)
        if lq is None:
            return None, "LocalQueue %s doesn't exist" % wl.queue
        if lq.stop_policy != "None":
            return lq.cluster_queue, "LocalQueue %s is stopped" % wl.queue
        if lq.cluster_queue not in self.index.cluster_queues:
            return None, "ClusterQueue %s doesn't exist" % lq.cluster_queue
        if self.cluster_queue_inactive(lq.cluster_queue):
            return lq.cluster_queue, "ClusterQueue %s is inactive" % lq.cluster_queue
        return lq.cluster_queue, None

    def order_key(self, name: str):
        def key(wl: Workload):
            return (0 if self.sticky.get(name) == wl.key else 1, -self.index.priority(wl), wl.created, _uid(wl), wl.key)
        return key

    def resort(self, name: str) -> None:
        """Heaps are kept as lists sorted tail first: the head is the last element."""
        self.heaps.setdefault(name, []).sort(key=self.order_key(name), reverse=True)

    def add(self, name: str, wl: Workload, sort: bool = True) -> None:
        self.heaps.setdefault(name, []).append(wl)
        if sort:
            self.resort(name)

    def heads(self) -> list[tuple[str, Workload]]:
        return [(name, self.heaps[name][-1]) for name in sorted(self.heaps) if self.heaps[name]]

    def waiting_behind(self) -> list[tuple[str, Workload, Workload]]:
        """(queue, head, a workload behind it) for what is left in the queues."""
        out = []
        for name, heap in self.heaps.items():
            for wl in heap[:-1]:
                out.append((name, heap[-1], wl))
        return out

    def remove(self, name: str, wl: Workload) -> None:
        heap = self.heaps[name]
        if heap and heap[-1] is wl:
            heap.pop()
        else:
            heap.remove(wl)
        self.sticky.pop(name, None)

    def requeue_if_not_present(self, name: str, wl: Workload, namespace_mismatch: bool = False) -> bool:
        """A head that can't be admitted: BestEffortFIFO (and any namespace mismatch) moves it to
        the inadmissible list; StrictFIFO keeps it. True when it moved."""
        if not namespace_mismatch and self.index.cluster_queues[name].queueing_strategy != "BestEffortFIFO":
            return False
        self.remove(name, wl)
        if not namespace_mismatch:
            self.inadmissible.setdefault(name, []).append(wl)
        return True

    def queue_inadmissible_workloads(self, roots: set[str]) -> None:
        """Quota was released in the cohort trees named by their roots: their queues' inadmissible
        workloads wait again."""
        for name in sorted(self.inadmissible):
            if not self.inadmissible[name] or name not in self.tree.queues:
                continue
            if root_of(self.tree.queues[name]).name not in roots:
                continue
            for wl in self.inadmissible.pop(name):
                self.heaps.setdefault(name, []).append(wl)
            self.resort(name)

    def keep_at_head(self, name: str, wl: Workload) -> None:
        """A BestEffortFIFO preemptor stays at the head of its queue until admitted."""
        if self.index.cluster_queues[name].queueing_strategy == "BestEffortFIFO" and self.sticky.get(name) != wl.key:
            self.sticky[name] = wl.key
            self.resort(name)
