"""Kueue's scheduling cycle (`pkg/scheduler/scheduler.go`: `schedule`, `nominate`,
`processEntry`), replayed until nothing changes. Queueing is `queues.Queues`.

1. Every head is nominated against the cycle's snapshot (`getInitialAssignments`): a namespace
   outside the queue's selector (a `None` selector matches nothing) is inadmissible; otherwise
   flavors are assigned at the full counts, with a Preempt assignment's targets from
   `preemption.get_targets`; if that is neither Fit nor Preempt with targets, partial admission
   searches smaller counts that are.
2. Entries are processed in the classical order (lower borrowing height, higher priority,
   older, then the key where Go's unstable sort leaves it to chance) or, with fair sharing, in
   the order of the fair-sharing tournament, recomputed before every pick.
3. `processEntry`:
   - targets overlapping those of an entry processed earlier in the cycle: skipped, "Workload
     has overlapping preemption targets with another workload", it stays at the head and holds
     nothing (Kueue v0.17.0; v0.20's RecomputeAssignmentUponPreemptionTargetsOverlap recomputes
     the assignment instead, which v0.17 does not have);
   - NoFit, or Preempt without targets: not admitted (BestEffortFIFO moves it aside); a Preempt
     without targets holds capacity for the rest of the cycle unless the queue reclaims with
     `Any` (`reserveCapacityForUnreclaimablePreempt`);
   - not fitting once this cycle's victims and its own targets are gone: "Workload no longer fits
     after processing another workload", it stays at the head;
   - Preempt: its usage is held for the rest of the cycle, the victims are evicted, the
     preemptor waits ("… Pending the preemption of N workload(s)") at the head of its queue;
   - Fit: admitted.
4. Cycles repeat until one changes nothing; a run that keeps evicting stops after a bound on
   cycles (a preemption loop, which Kueue's rules are meant to exclude).

Timing, fixed here: every head of a cycle is nominated against one snapshot; an eviction
completes before the next cycle starts, its quota is released, the victim waits again in its
queue, and the inadmissible workloads of the victim's cohort tree wait again. Workloads the
model marks evicted are released that way before the second cycle. Workloads admitted during the
replay count as admitted after every workload of the model, in cycle order (their quota
reservation time orders preemption candidates).

Where a head's flavor search starts (`LastTriedFlavorIdx`, flavors.py): a head that is not
admitted keeps its try's record and, while some search stopped before its group's last flavor
(`PendingFlavors`), stays at its queue's head (`requeueIfNotPresent`, even BestEffortFIFO) and
resumes after those flavors in the next cycle. The record is dropped, and the next search starts
at the first flavor, when the try was skipped (overlapping targets, no longer fits), issued
preemptions, was admitted or evicted, and when the Pending message differs from the one the
workload's status shows (the status update gives the queue manager a new `workload.Info`, without
the last assignment): so a head's first failed try starts over, its second goes on. A run where
only such heads move on stops after `1 + the most flavors of a resource group` quiet cycles.

With preemption off (`preemption=False`, what `decide(model)` replays) there is no oracle, so a
flavor that would need preemption doesn't fit, and nothing is ever released.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from kadmit.effective import requeued
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import ClusterQueue, Model, Workload
from kadmit.reference.common import FairSharing, Preemptor, Target, pending_preemption_message, preempted_message
from kadmit.reference.fair_sharing import dominant_resource_share, drs_order
from kadmit.reference.flavors import Assignment, FlavorAssigner, search_counts
from kadmit.reference.preemption import can_always_reclaim, get_targets, quota_resources_to_reserve, simulate
from kadmit.reference.queues import Queues
from kadmit.reference.quota import QuotaTree, path_parent_to_root, root_of
from kadmit.reference.snapshot import Admitted, Snapshot

NAMESPACE_MISMATCH = "Workload namespace doesn't match ClusterQueue selector"
NO_LONGER_FITS = "Workload no longer fits after processing another workload"
OVERLAPPING = "Workload has overlapping preemption targets with another workload"


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


@dataclass
class Entry:
    cq: str
    wl: Workload
    assignment: Assignment
    targets: list[Target] = field(default_factory=list)


def build_tree(model: Model, index: ModelIndex | None = None) -> QuotaTree:
    """The quota tree of a model, holding the usage of its admitted workloads."""
    index = index or ModelIndex(model)
    tree = QuotaTree(index)
    for key in sorted(index.workloads):
        wl = index.workloads[key]
        if wl.admitted and wl.admission.cluster_queue in tree.queues:
            tree.add_usage(wl.admission.cluster_queue, admitted_usage(wl))
    return tree


class Scheduler:
    """One replay of Kueue's scheduling over a model's pending workloads."""

    def __init__(self, model: Model, fair: FairSharing | None = None, preemption: bool = False) -> None:
        self.model = model
        self.index = ModelIndex(model)
        self.tree = build_tree(model, self.index)
        self.fair = fair
        self.preemption = preemption
        self.queues = Queues(self.index, self.tree)
        self.decisions: dict[str, RefDecision] = {}
        held = []
        latest = max((w.created for w in model.workloads), default=None)
        for key in sorted(self.index.workloads):
            wl = self.index.workloads[key]
            if wl.admitted and wl.admission.cluster_queue in self.tree.queues:
                at = getattr(wl.admission, "admitted_at", None) or wl.created
                held.append(self.workload_info(wl, wl.admission.cluster_queue, admitted_usage(wl), at, wl.uid or ""))
                latest = max(latest, at)
        self.epoch = latest
        self.snap = Snapshot(self.tree, dict(self.index.cluster_queues), dict(self.index.cohorts), held)
        self.to_release: list[Admitted] = [info for info in held if info.evicted] if preemption else []
        self.victims_of: dict[str, list[Target]] = {}
        self.preempted_by: dict[str, tuple[str, str]] = {}  # victim -> (preemptor, reason)
        self.cycle_no = 0
        self.assigners: dict[str, FlavorAssigner] = {}
        self.last_tried: dict[str, list[dict[str, int]]] = {}  # where each workload's next search starts
        self.said: dict[str, str] = {}  # the Pending message each workload's status shows
        self.retrying = False  # this cycle kept a head whose flavors are not all tried yet

    def workload_info(self, wl: Workload, cq: str, usage: dict, at, uid: str = "") -> Admitted:
        return Admitted(wl.key, cq, self.index.priority(wl), wl.created, at, dict(usage),
                        bool(getattr(wl, "evicted", False)), uid)

    def reject(self, wl: Workload, cq: str | None, reason: str) -> None:
        self.decisions[wl.key] = RefDecision(wl.key, False, cq, (), False, reason)

    def route(self, wl: Workload) -> str | None:
        """The ClusterQueue the workload waits in, or None after recording why it waits nowhere."""
        cq, reason = self.queues.route(wl)
        if reason is None:
            return cq
        self.reject(wl, cq, reason)
        return None

    def enqueue(self) -> None:
        """Every pending workload (holding no quota, not finished) joins its queue."""
        for key in sorted(self.index.workloads):
            wl = self.index.workloads[key]
            if wl.admission is not None or wl.finished:
                continue
            name = self.route(wl)
            if name is not None:
                self.queues.add(name, wl, sort=False)
        for name in sorted(self.queues.heaps):
            self.queues.resort(name)

    # --- nomination -----------------------------------------------------------------------------

    def preemptor(self, wl: Workload, cq: ClusterQueue, assignment: Assignment | None) -> Preemptor:
        if assignment is None:
            return Preemptor(wl.key, cq.name, self.index.priority(wl), wl.created, {}, frozenset())
        return Preemptor(wl.key, cq.name, self.index.priority(wl), wl.created, dict(assignment.usage),
                         assignment.needs_preemption)

    def nominate_with_targets(self, cq: ClusterQueue, wl: Workload,
                              pinned: dict | None = None) -> tuple[Assignment, list[Target]] | None:
        """`getInitialAssignments`: (assignment, targets); None on a namespace mismatch."""
        selector = cq.namespace_selector
        if selector is None or not selector.matches(self.index.namespace_labels(wl.namespace)):
            return None
        if self.preemption:
            bare = self.preemptor(wl, cq, None)

            def oracle(fr, quantity):
                return simulate(self.snap, bare, fr, quantity, self.fair)

            assigner = FlavorAssigner(self.tree, cq, self.index.flavors, self.index.topologies, oracle=oracle,
                                      fair_sharing=self.fair is not None, pinned=pinned)
        else:  # no oracle, nothing pinned: one assigner per queue serves every nomination
            if cq.name not in self.assigners:
                self.assigners[cq.name] = FlavorAssigner(self.tree, cq, self.index.flavors, self.index.topologies)
            assigner = self.assigners[cq.name]

        def accept(attempt: Assignment):
            if attempt.mode == "Fit":
                return True, []
            if attempt.mode != "Preempt":
                return False, None
            targets = get_targets(self.snap, self.preemptor(wl, cq, attempt), self.fair)
            return len(targets) > 0, targets

        start = self.last_tried.get(wl.key)
        full = assigner.assign(wl, start=start)
        accepted, targets = accept(full)
        if accepted:
            return full, targets
        reduced = search_counts(assigner, wl, accept, start)
        if reduced is None:
            return full, []
        return reduced

    # --- the cycle --------------------------------------------------------------------------------

    def cycle(self) -> bool:
        """One scheduling cycle; True when something changed."""
        self.cycle_no += 1
        self.retrying = False
        changed = self.release()
        entries: list[Entry] = []
        for name, head in self.queues.heads():
            nominated = self.nominate_with_targets(self.index.cluster_queues[name], head)
            if nominated is None:
                self.queues.requeue_if_not_present(name, head, namespace_mismatch=True)
                self.reject(head, name, NAMESPACE_MISMATCH)
                changed = True
                continue
            entries.append(Entry(name, head, nominated[0], nominated[1]))
        if self.fair is None:
            entries.sort(key=lambda e: (e.assignment.borrowing, -self.index.priority(e.wl), e.wl.created, e.wl.key))
            order = iter(entries)
        else:
            order = self.fair_order(entries)
        preempted: dict[str, Admitted] = {}
        held: list[tuple[str, dict]] = []
        for e in order:
            if self.process_entry(e, preempted, held):
                changed = True
        for name, usage in reversed(held):
            self.tree.remove_usage(name, usage)
        return changed or len(self.to_release) > 0

    def hold(self, name: str, usage: dict, held: list) -> None:
        """Usage counted for the rest of the cycle only."""
        self.tree.add_usage(name, usage)
        held.append((name, dict(usage)))

    def process_entry(self, e: Entry, preempted: dict[str, Admitted], held: list) -> bool:
        cq = self.index.cluster_queues[e.cq]
        mode = e.assignment.mode
        if mode == "Preempt" and any(t.key in preempted for t in e.targets):
            self.reject(e.wl, e.cq, OVERLAPPING)
            self.start_over(e.wl.key, OVERLAPPING)
            return False
        if mode == "NoFit" or (mode == "Preempt" and not e.targets):
            if mode == "Preempt" and not can_always_reclaim(cq):
                reserve = quota_resources_to_reserve(self.snap, e.cq, e.assignment.usage, e.assignment.borrowing)
                self.hold(e.cq, reserve, held)
            message = e.assignment.message()
            self.reject(e.wl, e.cq, message)
            if self.said.get(e.wl.key) == message:
                self.last_tried[e.wl.key] = e.assignment.last_tried
            else:
                self.last_tried.pop(e.wl.key, None)
            self.said[e.wl.key] = message
            if e.assignment.pending_flavors:
                self.retrying = True  # it stays at its queue's head and tries its next flavors
                return False
            return self.queues.requeue_if_not_present(e.cq, e.wl)
        if not self.fits(e, preempted):
            self.reject(e.wl, e.cq, NO_LONGER_FITS)
            self.start_over(e.wl.key, NO_LONGER_FITS)
            return False
        for t in e.targets:
            if t.key not in preempted:
                preempted[t.key] = self.snap.find(t.key)
        if mode == "Preempt":
            self.hold(e.cq, e.assignment.usage, held)
            return self.issue_preemptions(e)
        self.admit(e)
        return True

    def start_over(self, key: str, message: str | None) -> None:
        """The workload's next search starts at the first flavor (Kueue sets `LastAssignment` to
        nil); `message`: what its status says now (None: nothing a later message is compared with)."""
        self.last_tried.pop(key, None)
        if message is None:
            self.said.pop(key, None)
        else:
            self.said[key] = message

    def fits(self, e: Entry, preempted: dict[str, Admitted]) -> bool:
        """`fits`: the usage fits once this cycle's victims and the entry's targets are gone."""
        gone: dict[str, Admitted] = {}
        for key in list(preempted) + [t.key for t in e.targets]:
            info = self.snap.find(key)
            if info is not None:
                gone[key] = info
        for info in gone.values():
            self.snap.remove(info)
        ok = self.tree.fits(e.cq, e.assignment.usage)
        for info in gone.values():
            self.snap.add(info)
        return ok

    def issue_preemptions(self, e: Entry) -> bool:
        """`issuePreemptions`: evict the targets not already being evicted; True when one was."""
        issued = False
        releasing = set(info.key for info in self.to_release)
        for t in e.targets:
            victim = self.snap.find(t.key)
            if victim is None or victim.evicted or t.key in releasing:
                continue
            self.to_release.append(victim)
            releasing.add(t.key)
            issued = True
            self.preempted_by[t.key] = (e.wl.key, t.reason)
            # a victim admitted again and evicted by the same preemptor is listed once, as last evicted (as the
            # oracle's report lists a run's evictions, once per preemptor and victim)
            mine = self.victims_of.setdefault(e.wl.key, [])
            again = next((i for i, v in enumerate(mine) if v.key == t.key), None)
            if again is None:
                mine.append(t)
            else:
                mine[again] = t
            message = preempted_message(t.reason, self.snap.path(e.cq), self.snap.path(t.cluster_queue),
                                        uid=e.wl.uid, job_uid=e.wl.job_uid)
            self.reject(self.index.workloads[t.key], t.cluster_queue, message)
            self.start_over(t.key, message)
        pending = pending_preemption_message(e.assignment.message(), len(e.targets))
        self.reject(e.wl, e.cq, pending)
        self.start_over(e.wl.key, pending)  # preemptions issued: the next try starts at the first flavor
        self.queues.keep_at_head(e.cq, e.wl)
        return issued

    def admit(self, e: Entry) -> None:
        at = self.epoch + timedelta(seconds=self.cycle_no)
        info = self.workload_info(e.wl, e.cq, e.assignment.usage, at, e.wl.uid or "")
        # an input Workload keeps its UID when admitted during the replay (Kueue's last tie-break); one made
        # of a job has a UID only Kueue knows: "" sorts it before the input's UIDs, then by key, as in the engine
        self.snap.add(Admitted(info.key, info.cluster_queue, info.priority, info.created, at, info.usage, False,
                               info.uid))
        self.queues.remove(e.cq, e.wl)
        self.start_over(e.wl.key, None)
        pod_sets = tuple(RefPodSet(psa.name, psa.count, dict(sorted(psa.flavors.items())))
                         for psa in e.assignment.pod_sets)
        self.decisions[e.wl.key] = RefDecision(e.wl.key, True, e.cq, pod_sets, e.assignment.borrowing > 0, "")

    def release(self) -> bool:
        """The evictions issued in the previous cycle complete: quota released, victims wait again
        in their queues, inadmissible workloads of their cohort trees too."""
        if not self.to_release:
            return False
        roots: set[str] = set()
        for victim in sorted(self.to_release, key=lambda info: info.key):
            if self.snap.find(victim.key) is not None:
                self.snap.remove(victim)
            roots.add(root_of(self.tree.queues[victim.cluster_queue]).name)
            wl = self.index.workloads[victim.key]
            if not victim.evicted and (wl.requeue_pod_sets is not None or wl.requeue_inadmissible):
                # a victim of this run queued again with the requests Kueue's workload controller
                # adjusts for every workload it queues (AdjustResources: RuntimeClass overhead,
                # LimitRange defaults)
                wl = requeued(wl, {})
            name = self.route(wl)
            if name is not None:
                self.queues.add(name, wl)
        self.to_release = []
        self.queues.queue_inadmissible_workloads(roots)
        return True

    # --- fair sharing order (fair_sharing_iterator.go) -------------------------------------------

    def fair_order(self, entries: list[Entry]):
        """`fairSharingIterator`: an entry whose queue has no cohort comes as it is; in a cohort
        tree a tournament picks the next entry, the shares recomputed before every pick (after
        the previous picks took effect)."""
        remaining = {e.cq: e for e in entries}
        while remaining:
            name = min(remaining)
            node = self.tree.queues[name]
            if node.parent is None:
                yield remaining.pop(name)
            else:
                winner = self.run_tournament(root_of(node), remaining)
                del remaining[winner.cq]
                yield winner

    def run_tournament(self, root, remaining: dict[str, Entry]) -> Entry:
        """`runTournament`: at each cohort, the child whose nominee leaves it with the lowest
        share wins: with FairSharingPrioritizeNonBorrowing, one not borrowing in its nominee's
        flavor-resources first; then the lower share, higher priority, older."""
        share_at: dict[tuple[str, str], object] = {}  # (cohort, workload) -> the cohort's child's share
        for name, e in remaining.items():
            node = self.tree.queues[name]
            if node.parent is None or root_of(node) is not root:
                continue
            self.tree.add_usage(name, e.assignment.usage)
            below = node
            for cohort in path_parent_to_root(node):
                share_at[(cohort.name, e.wl.key)] = dominant_resource_share(self.snap, below)
                below = cohort
            self.tree.remove_usage(name, e.assignment.usage)

        def standing(e: Entry, cohort) -> tuple:
            """Lower is better: (borrowing in its own flavor-resources, share, priority, age)."""
            share = share_at[(cohort.name, e.wl.key)]
            borrows = self.fair.prioritize_non_borrowing and share.borrows_on(e.assignment.usage)
            return (borrows, drs_order(share), -self.index.priority(e.wl), e.wl.created)

        def winner_of(cohort) -> Entry | None:
            contenders = []
            for child in cohort.child_cohorts:
                found = winner_of(child)
                if found is not None:
                    contenders.append(found)
            for child in cohort.child_cqs:
                if child.name in remaining:
                    contenders.append(remaining[child.name])
            if not contenders:
                return None
            return min(contenders, key=lambda e: standing(e, cohort))  # the first of equals

        return winner_of(root)

    # --- the replay -------------------------------------------------------------------------------

    def run(self) -> list[RefDecision]:
        self.enqueue()
        limit = 50 + 10 * len(self.index.workloads)
        bound = 1 + max((len(g.flavors) for cq in self.index.cluster_queues.values() for g in cq.resource_groups),
                        default=0)
        quiet = 0  # cycles in a row where only heads with flavors left to try moved on to them
        self.settled = False  # the run stopped because nothing moved, not at its bound on cycles (a loop)
        while self.cycle_no < limit:
            if self.cycle():
                quiet = 0
            elif self.retrying and quiet <= bound:
                quiet += 1
            else:
                self.settled = True
                break
        for name, head, wl in self.queues.waiting_behind():
            strategy = self.index.cluster_queues[name].queueing_strategy
            self.reject(wl, name, "waiting behind %s (StrictFIFO)" % head.key if strategy == "StrictFIFO" else
                        "waiting behind %s, which keeps its place at the head while it has flavors left to try (%s)"
                        % (head.key, strategy))
        out = []
        for key in sorted(self.decisions):
            d = self.decisions[key]
            by, reason = self.preempted_by.get(key, (None, ""))
            out.append(RefDecision(d.workload, d.admitted, d.cluster_queue, d.pod_sets, d.borrowing, d.reason,
                                   tuple(self.victims_of.get(key, ())), by, reason))
        return out
