"""The scheduling replay with Kueue's preemption (`decide(model, preemption=True)`).

Extends `scheduler.Scheduler` (whose rules all still hold) with what `pkg/scheduler/scheduler.go`
does around preemption (docs/PREEMPTION.md, part 3):

1. Every head is nominated against the cycle's snapshot: flavors with Kueue's modes (the
   preemption oracle answers for flavors that need preemption); a Preempt assignment gets its
   targets (`preemption.get_targets`); if the full counts neither fit nor find targets, partial
   admission searches smaller counts that fit or find targets.
2. Entries are processed in the classical order (scheduler.py rule 4) or, with fair sharing, in
   the order of Kueue's fair-sharing tournament, recomputed before each pick:
   - NoFit: not admitted (BestEffortFIFO sets it aside, StrictFIFO keeps it at the head);
   - Preempt without targets: the same, after holding capacity for the rest of the cycle unless
     the queue reclaims with `Any` (`reserveCapacityForUnreclaimablePreempt`);
   - targets overlapping those of an entry processed earlier in the cycle: the assignment is
     recomputed (RecomputeAssignmentUponPreemptionTargetsOverlap, on in v0.20) with the earlier
     victims gone and the flavors pinned, and replaces the first one: a Fit holds its usage for
     the rest of the cycle and waits for the earlier preemptions ("…, but will fit after these
     preemptions complete"); otherwise the entry goes on as if nominated so;
   - not fitting once this cycle's victims and its own targets are removed: skipped;
   - Preempt: its usage is held for the rest of the cycle and the victims are evicted; the
     preemptor is not admitted ("… Pending the preemption of N workload(s)") and stays at the
     head of its queue (sticky in BestEffortFIFO);
   - Fit: admitted.
3. Timing, fixed here: an eviction completes before the next cycle starts. Then the victims'
   quota is released, each victim joins its queue again as a pending workload (ordered by its
   priority and creation time), and every workload set aside in the victims' cohort trees goes
   back to its queue (Kueue requeues inadmissible workloads when quota is released). Workloads
   the model already marks evicted are released the same way before the second cycle.
   Workloads admitted during the replay count as admitted after every workload of the model,
   in cycle order (their quota reservation time orders preemption candidates).
4. Cycles repeat until one changes nothing; a run that keeps evicting stops after a bound on
   cycles (a preemption loop, which Kueue's rules are meant to exclude).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta

from kadmit.index import admitted_usage
from kadmit.model import ClusterQueue, Model, Workload
from kadmit.reference.flavors import Assignment, FlavorAssigner, search_counts
from kadmit.reference.preemption import (
    DEFAULT_STRATEGIES,
    Admitted,
    FairSharing,
    Preemptor,
    Snapshot,
    Target,
    can_always_reclaim,
    compare_drs,
    dominant_resource_share,
    get_targets,
    pending_preemption_message,
    preempted_message,
    reserve_usage,
    simulate,
)
from kadmit.reference.quota import ancestors
from kadmit.reference.scheduler import (
    NAMESPACE_MISMATCH,
    NO_LONGER_FITS,
    RefDecision,
    RefPodSet,
    Scheduler,
)

OVERLAPPING = "Workload has overlapping preemption targets with another workload"  # with the recompute off
OVERLAPPING_DEFERRED = ("Workload has overlapping preemption targets with another workload, "
                        "but will fit after these preemptions complete")


def fair_settings(model: Model, fair_sharing: bool | None = None) -> FairSharing | None:
    """Fair sharing as configured: `fair_sharing` when given, else the model's scheduler
    configuration (read defensively: models without one use Kueue's default, off)."""
    config = getattr(model, "config", None)
    enabled = bool(getattr(config, "fair_sharing", False)) if fair_sharing is None else fair_sharing
    if not enabled:
        return None
    known = tuple(s for s in (getattr(config, "preemption_strategies", ()) or ()) if s in DEFAULT_STRATEGIES)
    return FairSharing(strategies=known or DEFAULT_STRATEGIES)


@dataclass
class Entry:
    cq: str
    wl: Workload
    assignment: Assignment
    targets: list[Target] = field(default_factory=list)


class PreemptingScheduler(Scheduler):
    """One replay of Kueue's scheduling with preemption over a model."""

    def __init__(self, model: Model, fair: FairSharing | None = None) -> None:
        super().__init__(model)
        self.fair = fair
        admitted = []
        latest = max([w.created for w in model.workloads], default=None)
        for _, wl in sorted(self.index.workloads.items()):
            if wl.admitted and wl.admission.cluster_queue in self.tree.queues:
                info = self.admitted_info(wl, wl.admission.cluster_queue, admitted_usage(wl),
                                          getattr(wl.admission, "admitted_at", None) or wl.created)
                admitted.append(info)
                latest = max(latest, info.admitted_at)
        self.epoch = latest
        self.snap = Snapshot(self.tree, dict(self.index.cluster_queues), dict(self.index.cohorts), admitted)
        self.to_release: list[Admitted] = [a for a in admitted if a.evicted]
        self.set_aside: dict[str, list[Workload]] = {}
        self.sticky: dict[str, str] = {}  # BestEffortFIFO queue -> preemptor kept at its head
        self.victims_of: dict[str, list[Target]] = {}
        self.preempted_by: dict[str, tuple[str, str]] = {}  # victim -> (preemptor, reason)
        self.cycle_no = 0

    def admitted_info(self, wl: Workload, cq: str, usage: dict, at) -> Admitted:
        return Admitted(wl.key, cq, self.index.priority(wl), wl.created, at, dict(usage),
                        bool(getattr(wl, "evicted", False)))

    # --- queues -----------------------------------------------------------------------------

    def queue_key(self, wl: Workload):
        lq = self.index.local_queues.get(f"{wl.namespace}/{wl.queue}")
        sticky = lq is not None and self.sticky.get(lq.cluster_queue) == wl.key
        return (not sticky, -self.index.priority(wl), wl.created, wl.key)

    def resort(self, name: str) -> None:
        q = self.queues.setdefault(name, [])
        q.sort(key=self.queue_key)
        q.reverse()

    def set_head_aside(self, name: str) -> bool:
        """A head that can't be admitted: BestEffortFIFO sets it aside, StrictFIFO keeps it."""
        cq = self.index.cluster_queues[name]
        if cq.queueing_strategy != "BestEffortFIFO":
            return False
        wl = self.queues[name].pop()
        if self.sticky.get(name) == wl.key:
            del self.sticky[name]
        self.set_aside.setdefault(name, []).append(wl)
        return True

    def release(self) -> bool:
        """Complete the evictions issued in the previous cycle (rule 3)."""
        if not self.to_release:
            return False
        roots: set[str] = set()
        for victim in sorted(self.to_release, key=lambda a: a.key):
            if self.snap.find(victim.key) is not None:
                self.snap.remove(victim)
            node = self.tree.queues[victim.cluster_queue]
            roots.add((ancestors(node) or [node])[-1].name)
            wl = self.index.workloads[victim.key]
            name = self.route(wl)
            if name is not None:
                self.queues.setdefault(name, []).append(wl)
                self.resort(name)
        self.to_release = []
        for name in sorted(self.set_aside):
            node = self.tree.queues.get(name)
            if node is None or (ancestors(node) or [node])[-1].name not in roots or not self.set_aside[name]:
                continue
            self.queues.setdefault(name, []).extend(self.set_aside.pop(name))
            self.resort(name)
        return True

    # --- nomination -------------------------------------------------------------------------

    def preemptor(self, wl: Workload, cq: ClusterQueue, assignment: Assignment | None) -> Preemptor:
        usage = dict(assignment.usage) if assignment else {}
        needs = assignment.needs_preemption if assignment else frozenset()
        return Preemptor(wl.key, cq.name, self.index.priority(wl), wl.created, usage, needs)

    def nominate_with_targets(self, cq: ClusterQueue, wl: Workload,
                              pinned: dict | None = None) -> tuple[Assignment, list[Target]] | None:
        """`getInitialAssignments`: (assignment, targets); None on a namespace mismatch."""
        selector = cq.namespace_selector
        if selector is None or not selector.matches(self.index.namespace_labels(wl.namespace)):
            return None
        bare = self.preemptor(wl, cq, None)

        def oracle(fr, quantity):
            return simulate(self.snap, bare, fr, quantity, self.fair)

        assigner = FlavorAssigner(self.tree, cq, self.index.flavors, self.index.topologies, oracle=oracle,
                                  fair_sharing=self.fair is not None, pinned=pinned)

        def accept(a: Assignment):
            if a.mode == "Fit":
                return True, []
            if a.mode == "Preempt":
                targets = get_targets(self.snap, self.preemptor(wl, cq, a), self.fair)
                return bool(targets), targets
            return False, None

        full = assigner.assign(wl)
        ok, targets = accept(full)
        if ok:
            return full, targets
        found = search_counts(assigner, wl, accept)
        return found if found is not None else (full, [])

    # --- the cycle --------------------------------------------------------------------------

    def cycle(self) -> bool:
        self.cycle_no += 1
        changed = self.release()
        entries: list[Entry] = []
        for name in sorted(self.queues):
            queue = self.queues[name]
            if not queue:
                continue
            head = queue[-1]
            nominated = self.nominate_with_targets(self.index.cluster_queues[name], head)
            if nominated is None:
                queue.pop()
                self.sticky.pop(name, None)
                self.reject(head, name, NAMESPACE_MISMATCH)
                changed = True
                continue
            entries.append(Entry(name, head, *nominated))
        held: list[tuple[str, dict]] = []
        preempted: dict[str, Admitted] = {}
        ordered = self.fair_order(entries) if self.fair is not None else sorted(
            entries, key=lambda e: (e.assignment.borrowing, -self.index.priority(e.wl), e.wl.created, e.wl.key))
        for e in ordered:
            changed |= self.process(e, preempted, held)
        for name, usage in reversed(held):
            self.tree.remove_usage(name, usage)
        return changed or bool(self.to_release)

    def process(self, e: Entry, preempted: dict[str, Admitted], held: list) -> bool:
        """`processEntry`; True when something changed."""
        cq = self.index.cluster_queues[e.cq]
        if any(t.key in preempted for t in e.targets) and self.recompute(e, cq, preempted):
            # Fits once this cycle's preemptions complete: wait for them, holding the usage.
            self.tree.add_usage(e.cq, e.assignment.usage)
            held.append((e.cq, dict(e.assignment.usage)))
            self.reject(e.wl, e.cq, OVERLAPPING_DEFERRED)
            return False
        mode = e.assignment.mode
        if mode == "NoFit" or (mode == "Preempt" and not e.targets):
            if mode == "Preempt" and not can_always_reclaim(cq):
                reserve = reserve_usage(self.snap, e.cq, e.assignment.usage, e.assignment.borrowing)
                self.tree.add_usage(e.cq, reserve)
                held.append((e.cq, reserve))
            self.reject(e.wl, e.cq, e.assignment.message())
            return self.set_head_aside(e.cq)
        if not self.fits(e, preempted):
            self.reject(e.wl, e.cq, NO_LONGER_FITS)
            return False
        for t in e.targets:
            preempted.setdefault(t.key, self.snap.find(t.key))
        if mode == "Preempt":
            self.tree.add_usage(e.cq, e.assignment.usage)
            held.append((e.cq, dict(e.assignment.usage)))
            return self.issue(e, cq)
        self.admit(e)
        return True

    def recompute(self, e: Entry, cq: ClusterQueue, preempted: dict[str, Admitted]) -> bool:
        """The overlap recomputation (RecomputeAssignmentUponPreemptionTargetsOverlap): nominate
        again with this cycle's victims gone and the flavors pinned to the first nomination. The
        entry takes the new assignment and targets; True when it now fits without preemption
        (Kueue then waits for the earlier preemptions instead of admitting)."""
        gone = [w for w in preempted.values() if w is not None and self.snap.find(w.key) is not None]
        for w in gone:
            self.snap.remove(w)
        pinned = {ps.name: dict(ps.flavors) for ps in e.assignment.pod_sets}
        try:
            again = self.nominate_with_targets(cq, e.wl, pinned)
        finally:
            for w in gone:
                self.snap.add(w)
        if again is None:
            return False
        e.assignment, e.targets = again
        return e.assignment.mode == "Fit"

    def fits(self, e: Entry, preempted: dict[str, Admitted]) -> bool:
        """`fits`: the usage fits once this cycle's victims and the entry's targets are gone."""
        gone: dict[str, Admitted] = {}
        for key in list(preempted) + [t.key for t in e.targets]:
            w = self.snap.find(key)
            if w is not None:
                gone[key] = w
        for w in gone.values():
            self.snap.remove(w)
        ok = self.tree.fits(e.cq, e.assignment.usage)
        for w in gone.values():
            self.snap.add(w)
        return ok

    def issue(self, e: Entry, cq: ClusterQueue) -> bool:
        """`IssuePreemptions`: evict the targets not already being evicted."""
        new = False
        releasing = {a.key for a in self.to_release}
        for t in e.targets:
            victim = self.snap.find(t.key)
            if victim is None or victim.evicted or t.key in releasing:
                continue
            self.to_release.append(victim)
            releasing.add(t.key)
            new = True
            self.preempted_by[t.key] = (e.wl.key, t.reason)
            self.victims_of.setdefault(e.wl.key, []).append(t)
            message = preempted_message(t.reason, self.snap.path(e.cq), self.snap.path(t.cluster_queue),
                                        uid=e.wl.uid, job_uid=e.wl.job_uid)
            self.reject(self.index.workloads[t.key], t.cluster_queue, message)
        self.reject(e.wl, e.cq, pending_preemption_message(e.assignment.message(), len(e.targets)))
        if cq.queueing_strategy == "BestEffortFIFO" and self.sticky.get(e.cq) != e.wl.key:
            self.sticky[e.cq] = e.wl.key
            self.resort(e.cq)
        return new

    def admit(self, e: Entry) -> None:
        at = self.epoch + timedelta(seconds=self.cycle_no)
        self.snap.add(replace(self.admitted_info(e.wl, e.cq, e.assignment.usage, at), evicted=False))
        queue = self.queues[e.cq]
        queue.remove(e.wl)
        self.sticky.pop(e.cq, None)
        pod_sets = tuple(RefPodSet(p.name, p.count, dict(sorted(p.flavors.items()))) for p in e.assignment.pod_sets)
        self.decisions[e.wl.key] = RefDecision(e.wl.key, True, e.cq, pod_sets, e.assignment.borrowing > 0, "")

    # --- fair sharing order -----------------------------------------------------------------

    def fair_order(self, entries: list[Entry]):
        """`fairSharingIterator`: queues without a cohort give their entry as they come; in a
        cohort tree, a tournament picks the next entry, with the shares recomputed (the entry's
        usage added to its queue) before every pick, after the previous entries took effect."""
        remaining = {e.cq: e for e in entries}
        while remaining:
            name = min(remaining)
            node = self.tree.queues[name]
            if node.parent is None:
                yield remaining.pop(name)
                continue
            winner = self.tournament(ancestors(node)[-1], remaining)
            del remaining[winner.cq]
            yield winner

    def tournament(self, root, remaining: dict[str, Entry]) -> Entry:
        """`runTournament`: at each cohort the child whose nominee leaves it with the lowest
        share wins (not borrowing in the nominee's flavor-resources first, with
        FairSharingPrioritizeNonBorrowing), then higher priority, then older."""
        shares: dict[tuple[int, str], object] = {}
        for name, e in remaining.items():
            node = self.tree.queues[name]
            if not ancestors(node) or ancestors(node)[-1] is not root:
                continue
            self.tree.add_usage(name, e.assignment.usage)
            drs = dominant_resource_share(self.snap, node)
            for anc in ancestors(node):
                shares[(id(anc), e.wl.key)] = drs
                drs = dominant_resource_share(self.snap, anc)
            self.tree.remove_usage(name, e.assignment.usage)

        def less(a: Entry, b: Entry, cohort) -> bool:
            da, db = shares[(id(cohort), a.wl.key)], shares[(id(cohort), b.wl.key)]
            if self.fair.prioritize_non_borrowing:
                ab, bb = da.borrows_on(a.assignment.usage), db.borrows_on(b.assignment.usage)
                if ab != bb:
                    return not ab
            c = compare_drs(da, db)
            if c != 0:
                return c < 0
            pa, pb = self.index.priority(a.wl), self.index.priority(b.wl)
            if pa != pb:
                return pa > pb
            return a.wl.created < b.wl.created

        def run(cohort) -> Entry | None:
            candidates = [w for w in (run(c) for c in sorted((c for c in cohort.children if not c.is_cluster_queue),
                                                             key=lambda n: n.name)) if w is not None]
            candidates += [remaining[c.name] for c in sorted(cohort.children, key=lambda n: n.name)
                           if c.is_cluster_queue and c.name in remaining]
            if not candidates:
                return None
            best = candidates[0]
            for cur in candidates[1:]:
                if less(cur, best, cohort):
                    best = cur
            return best

        return run(root)

    # --- results ----------------------------------------------------------------------------

    def run(self) -> list[RefDecision]:
        self.enqueue()
        limit = 50 + 10 * len(self.index.workloads)
        while self.cycle_no < limit and self.cycle():
            pass
        for name, queue in self.queues.items():
            if not queue:
                continue
            head = queue[-1]
            for wl in queue[:-1]:
                self.reject(wl, name, f"waiting behind {head.key} (StrictFIFO)")
        out = []
        for key in sorted(self.decisions):
            d = self.decisions[key]
            by, reason = self.preempted_by.get(key, (None, ""))
            out.append(RefDecision(d.workload, d.admitted, d.cluster_queue, d.pod_sets, d.borrowing, d.reason,
                                   tuple(self.victims_of.get(key, ())), by, reason))
        return out
