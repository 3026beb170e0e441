"""Kueue's queueing and scheduling cycles, replayed until nothing changes.

Mirrors `pkg/cache/queue` (ordering, StrictFIFO / BestEffortFIFO requeueing) and
`pkg/scheduler/scheduler.go` (nominate, classical iterator, admit):

1. A pending workload that is inactive, names a missing LocalQueue or ClusterQueue, or sits in an
   inactive ClusterQueue (stop policy Hold/HoldAndDrain, a missing flavor, a cohort cycle) never
   reaches a queue, and keeps the reason the workload controller gives it.
2. Each ClusterQueue orders its workloads by effective priority (higher first), then creation
   time, then key (Kueue breaks the last tie by UID).
3. A cycle takes the head of every active queue and nominates it against the usage at the cycle
   start: a namespace outside the queue's selector (a `None` selector matches nothing) is
   inadmissible; otherwise flavors are assigned at full counts, then by partial admission.
4. Nominated heads are sorted: lower borrowing height first, then higher priority, then older,
   then key (Go's unstable sort leaves that last tie to chance). Each is admitted if its usage
   still fits the quotas after the admissions made earlier in the cycle; if not it stays at
   the head and is nominated again next cycle ("Workload no longer fits after processing
   another workload").
5. A head that doesn't fit: BestEffortFIFO sets it aside for good (Kueue only retries
   inadmissible workloads when quota is released, which never happens here) and the next
   workload becomes the head; StrictFIFO keeps it at the head, so the workloads behind it wait.
   A namespace mismatch is set aside in both strategies, as in Kueue.
6. Cycles repeat until one admits nothing and sets nothing aside.

Timing-dependent choices, fixed here: all heads of a cycle are nominated against one snapshot;
no quota is ever released; Kueue's `LastTriedFlavorIdx` (resume the flavor search after the
last flavor tried) is not modelled, since nothing is retried after it failed on quota; and
workloads needing preemption are treated as not fitting (Kueue would reserve capacity for them).
That is the replay of `decide(model)`; `decide(model, preemption=True)` replays preemption, fair
sharing and the releases they cause (`preempting.py`), keeping every rule above.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import ClusterQueue, Model, Workload
from kadmit.reference.flavors import Assignment, FlavorAssigner, reduce_counts
from kadmit.reference.preemption import Target
from kadmit.reference.quota import QuotaTree

NAMESPACE_MISMATCH = "Workload namespace doesn't match ClusterQueue selector"
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
DEACTIVATED = "The workload is deactivated"


@dataclass(frozen=True)
class RefPodSet:
    name: str
    count: int
    flavors: dict[str, str]  # resource -> flavor

    def __hash__(self) -> int:
        return hash((self.name, self.count, tuple(sorted(self.flavors.items()))))


@dataclass(frozen=True)
class RefDecision:
    workload: str  # "ns/name"
    admitted: bool
    cluster_queue: str | None
    pod_sets: tuple[RefPodSet, ...]  # empty when not admitted
    borrowing: bool
    reason: str  # Kueue-style message for the not-admitted ones ("" if admitted)
    # With preemption (`decide(model, preemption=True)`) only:
    preempted: tuple[Target, ...] = ()  # the victims this workload evicted, in the order issued
    preempted_by: str | None = None  # for a victim: the workload that evicted it (the last one)
    preemption_reason: str = ""  # for a victim: InClusterQueue, InCohortReclamation, ...


def build_tree(model: Model, index: ModelIndex | None = None) -> QuotaTree:
    """The quota tree of a model, holding the usage of its admitted workloads."""
    index = index or ModelIndex(model)
    tree = QuotaTree(index)
    for _, wl in sorted(index.workloads.items()):
        if wl.admitted and wl.admission.cluster_queue in tree.queues:
            tree.add_usage(wl.admission.cluster_queue, admitted_usage(wl))
    return tree


def is_inactive(cq: ClusterQueue, index: ModelIndex, tree: QuotaTree) -> bool:
    """Kueue marks a queue inactive when stopped, when a flavor is missing, or in a cohort cycle."""
    if cq.stop_policy != "None":
        return True
    if cq.cohort and cq.cohort in tree.cycles:
        return True
    return any(fq.flavor not in index.flavors for rg in cq.resource_groups for fq in rg.flavors)


class Scheduler:
    """One replay of Kueue's scheduling over a model's pending workloads."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.index = ModelIndex(model)
        self.tree = build_tree(model, self.index)
        self.decisions: dict[str, RefDecision] = {}
        self.queues: dict[str, list[Workload]] = {}
        self.assigners = {
            name: FlavorAssigner(self.tree, cq, self.index.flavors, self.index.topologies)
            for name, cq in self.index.cluster_queues.items()}

    def pending(self) -> list[Workload]:
        """Workloads holding no quota and not finished (the first of each key, as everywhere)."""
        return [wl for _, wl in sorted(self.index.workloads.items())
                if wl.admission is None and not wl.finished]

    def reject(self, wl: Workload, cq: str | None, reason: str) -> None:
        self.decisions[wl.key] = RefDecision(wl.key, False, cq, (), False, reason)

    def route(self, wl: Workload) -> str | None:
        """The cluster queue whose queue the workload joins, or None after recording why not."""
        lq = self.index.local_queues.get(f"{wl.namespace}/{wl.queue}")
        if not wl.active:
            self.reject(wl, lq.cluster_queue if lq else None, DEACTIVATED)
        elif wl.inadmissible:
            self.reject(wl, lq.cluster_queue if lq else None, wl.inadmissible)
        elif lq is None:
            self.reject(wl, None, f"LocalQueue {wl.queue} doesn't exist")
        elif lq.stop_policy != "None":
            self.reject(wl, lq.cluster_queue, f"LocalQueue {wl.queue} is stopped")
        elif lq.cluster_queue not in self.index.cluster_queues:
            self.reject(wl, None, f"ClusterQueue {lq.cluster_queue} doesn't exist")
        elif is_inactive(self.index.cluster_queues[lq.cluster_queue], self.index, self.tree):
            self.reject(wl, lq.cluster_queue, f"ClusterQueue {lq.cluster_queue} is inactive")
        else:
            return lq.cluster_queue
        return None

    def enqueue(self) -> None:
        for wl in self.pending():
            name = self.route(wl)
            if name is not None:
                self.queues.setdefault(name, []).append(wl)
        for q in self.queues.values():
            q.sort(key=self.queue_key)
            q.reverse()  # the head is popped from the end

    def queue_key(self, wl: Workload):
        return (-self.index.priority(wl), wl.created, wl.key)

    def nominate(self, cq: ClusterQueue, wl: Workload) -> Assignment | None:
        """The assignment of a head against the current usage; None on a namespace mismatch."""
        selector = cq.namespace_selector
        if selector is None or not selector.matches(self.index.namespace_labels(wl.namespace)):
            return None
        assigner = self.assigners[cq.name]
        full = assigner.assign(wl)
        if full.fits:
            return full
        return reduce_counts(assigner, wl) or full

    def cycle(self) -> bool:
        """One scheduling cycle; True when something changed."""
        changed = False
        entries: list[tuple[tuple, str, Workload, Assignment]] = []
        for name in sorted(self.queues):
            queue = self.queues[name]
            if not queue:
                continue
            cq = self.index.cluster_queues[name]
            head = queue[-1]
            assignment = self.nominate(cq, head)
            if assignment is None:
                queue.pop()
                self.reject(head, name, NAMESPACE_MISMATCH)
                changed = True
                continue
            if not assignment.fits:
                self.reject(head, name, assignment.message())
                if cq.queueing_strategy == "BestEffortFIFO":
                    queue.pop()
                    changed = True
                continue
            order = (assignment.borrowing, -self.index.priority(head), head.created, head.key)
            entries.append((order, name, head, assignment))
        entries.sort(key=lambda e: e[0])
        for _, name, head, assignment in entries:
            if not self.tree.fits(name, assignment.usage):
                self.reject(head, name, NO_LONGER_FITS)
                continue
            self.tree.add_usage(name, assignment.usage)
            self.queues[name].pop()
            pod_sets = tuple(RefPodSet(p.name, p.count, dict(sorted(p.flavors.items())))
                             for p in assignment.pod_sets)
            self.decisions[head.key] = RefDecision(
                head.key, True, name, pod_sets, assignment.borrowing > 0, "")
            changed = True
        return changed

    def run(self) -> list[RefDecision]:
        self.enqueue()
        while self.cycle():
            pass
        for name, queue in self.queues.items():
            if not queue:
                continue
            head = queue[-1]
            for wl in queue[:-1]:
                self.reject(wl, name, f"waiting behind {head.key} (StrictFIFO)")
        return [self.decisions[k] for k in sorted(self.decisions)]
