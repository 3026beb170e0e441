"""Kueue's preemption: which admitted workloads a pending one evicts, and why (docs/PREEMPTION.md).

Mirrors Kueue v0.20 with its feature gates at their defaults (`pkg/scheduler/preemption`):

- `classical_targets`: `classicalPreemptionStrategy` over `classical.NewCandidateIterator`
  (hierarchical reclaim, `borrowWithinCohort` and `maxPriorityThreshold`, attempts with and
  without borrowing), then `fillBackWorkloads`.
- `fair_targets`: `fairPreemptionStrategy` (rules S2-a / S2-b over the target-queue ordering of
  `fairsharing.TargetClusterQueueOrdering`, `FairSharingPreemptWithinNominal` on), then the same
  fill-back.
- `dominant_resource_share`: `pkg/cache/scheduler/fair_sharing.go`.
- `simulate`: the `PreemptionOracle` the flavor assigner asks when a flavor would need preemption.

Everything runs on a `Snapshot`: the reference quota tree plus the admitted workloads per cluster
queue, which the algorithms remove and add back while they search and always leave as found.
Topology is not part of the reference: a preemptor "fits" when its quota fits (Kueue also asks
topology-aware scheduling, which the engine models separately). Workload UIDs are not in the
model: where Kueue breaks the last tie by UID, the workload key stands in for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from kadmit.model import ClusterQueue, Cohort
from kadmit.reference.quota import (
    FR,
    Node,
    QuotaTree,
    ancestors,
    borrowing_with,
    fit_in_quota,
    quotas_of,
    within_nominal,
)

# Preempted-condition reasons (kueue.InClusterQueueReason and friends).
IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

HUMAN_REASONS = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
    IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
    IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
}

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)

# What the preemption oracle tells the flavor assigner (preemptioncommon.PreemptionPossibility).
NO_CANDIDATES = "NoCandidates"
PREEMPT = "Preempt"
RECLAIM = "Reclaim"


def preempted_message(reason: str, preemptor_path: str, preemptee_path: str,
                      uid: str = "", job_uid: str = "") -> str:
    """The message of the victim's `Evicted` and `Preempted` conditions (`preemptionMessage`);
    Kueue writes UNKNOWN for a missing UID, job UID or path."""
    return (f"Preempted to accommodate a workload (UID: {uid or 'UNKNOWN'}, JobUID: {job_uid or 'UNKNOWN'}) "
            f"due to {HUMAN_REASONS.get(reason, 'UNKNOWN')}; preemptor path: {preemptor_path or 'UNKNOWN'}; "
            f"preemptee path: {preemptee_path or 'UNKNOWN'}")


def pending_preemption_message(assignment_message: str, count: int) -> str:
    """The preemptor's QuotaReserved message after it issued preemptions (`markPreemptionOutcome`)."""
    return f"{assignment_message}. Pending the preemption of {count} workload(s)"


@dataclass(frozen=True)
class Admitted:
    """An admitted workload as preemption sees it."""

    key: str
    cluster_queue: str
    priority: int
    created: datetime  # queue-order timestamp (LowerOrNewerEqualPriority compares it)
    admitted_at: datetime  # quota reservation time ("most recently admitted first")
    usage: dict[FR, int]
    evicted: bool = False  # already being evicted: preferred as a victim, not evicted twice


@dataclass(frozen=True)
class Preemptor:
    """The pending workload, its cluster queue and the usage of its flavor assignment; `needs`
    are the flavor-resources whose flavor was assigned in Preempt mode."""

    key: str
    cluster_queue: str
    priority: int
    created: datetime
    usage: dict[FR, int]
    needs: frozenset[FR]


@dataclass(frozen=True)
class Target:
    key: str
    cluster_queue: str
    reason: str


@dataclass(frozen=True)
class FairSharing:
    """Kueue's fair-sharing configuration; the two booleans are its v0.20 feature gates."""

    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    preempt_within_nominal: bool = True  # FairSharingPreemptWithinNominal (Beta, on)
    prioritize_non_borrowing: bool = True  # FairSharingPrioritizeNonBorrowing (Beta, on)


class Snapshot:
    """The quota tree and the admitted workloads of each cluster queue, mutable for simulation."""

    def __init__(self, tree: QuotaTree, specs: dict[str, ClusterQueue], cohorts: dict[str, Cohort],
                 admitted: list[Admitted] = ()) -> None:
        self.tree = tree
        self.specs = specs
        self.cohort_specs = cohorts
        self.workloads: dict[str, dict[str, Admitted]] = {name: {} for name in tree.queues}
        for wl in admitted:
            self.workloads.setdefault(wl.cluster_queue, {})[wl.key] = wl

    def add(self, wl: Admitted, with_usage: bool = True) -> None:
        self.workloads.setdefault(wl.cluster_queue, {})[wl.key] = wl
        if with_usage:
            self.tree.add_usage(wl.cluster_queue, wl.usage)

    def remove(self, wl: Admitted) -> None:
        del self.workloads[wl.cluster_queue][wl.key]
        self.tree.remove_usage(wl.cluster_queue, wl.usage)

    def admitted(self, cq: str) -> list[Admitted]:
        return [self.workloads[cq][k] for k in sorted(self.workloads.get(cq, {}))]

    def find(self, key: str) -> Admitted | None:
        for wls in self.workloads.values():
            if key in wls:
                return wls[key]
        return None

    def weight(self, node: Node) -> float:
        """A node's fair-sharing weight (Kueue's default is 1; a weight of 0 is allowed)."""
        spec = self.specs.get(node.name) if node.is_cluster_queue else self.cohort_specs.get(node.name)
        fs = getattr(spec, "fair_sharing", None)
        return 1.0 if fs is None else fs.weight / 1000

    def path(self, cq: str) -> str:
        """`buildCQPath`: `/root/…/parent/cq`."""
        node = self.tree.queues[cq]
        return "/" + "/".join([n.name for n in reversed(ancestors(node))] + [cq])


# --- ordering and policies ----------------------------------------------------------------------

def candidate_key(wl: Admitted, preemptor_cq: str) -> tuple:
    """`CandidatesOrdering`: already evicted first, other queues before the preemptor's own,
    lower priority first, most recently admitted first, then the UID (here: the key)."""
    return (not wl.evicted, wl.cluster_queue == preemptor_cq, wl.priority, -wl.admitted_at.timestamp(), wl.key)


def satisfies_policy(policy: str, p: Preemptor, wl: Admitted) -> bool:
    """`SatisfiesPreemptionPolicy` for withinClusterQueue / reclaimWithinCohort."""
    if policy == "LowerPriority":
        return p.priority > wl.priority
    if policy == "LowerOrNewerEqualPriority":
        return p.priority > wl.priority or (p.priority == wl.priority and p.created < wl.created)
    return policy == "Any"


def uses_needed(wl: Admitted, needs: frozenset[FR]) -> bool:
    """`WorkloadUsesResources`: the workload holds some flavor-resource that needs preemption."""
    return any(fr in needs for fr in wl.usage)


def _is_borrowing(node: Node, needs: frozenset[FR]) -> bool:
    """`cqIsBorrowing`: in a cohort and over its quota in some flavor-resource that is needed."""
    return node.parent is not None and any(borrowing_with(node, fr, 0) for fr in needs)


def _quota_fits(snap: Snapshot, p: Preemptor, allow_borrowing: bool) -> bool:
    """`workloadQuotaFits`: every flavor-resource of the preemptor is available, and without
    borrowing when borrowing is not allowed."""
    node = snap.tree.queues[p.cluster_queue]
    for fr, v in p.usage.items():
        if not allow_borrowing and borrowing_with(node, fr, v):
            return False
        if v > snap.tree.available(p.cluster_queue, fr):
            return False
    return True


def _under_nominal(snap: Snapshot, p: Preemptor) -> bool:
    """`queueUnderNominalInResourcesNeedingPreemption`: usage strictly below nominal."""
    node = snap.tree.queues[p.cluster_queue]
    return all(node.quotas[fr].nominal > node.usage.get(fr, 0) if fr in node.quotas else False
               for fr in p.needs)


def _within_nominal_now(snap: Snapshot, p: Preemptor) -> bool:
    """`queueWithinNominalInResourcesNeedingPreemption`: not borrowing in any needed resource."""
    node = snap.tree.queues[p.cluster_queue]
    return not any(borrowing_with(node, fr, 0) for fr in p.needs)


# --- the generic search: candidates in order, first fit, then fill back -------------------------

Candidates = Iterator[tuple[Admitted, str]]


def _select(snap: Snapshot, p: Preemptor, strategies: list[tuple[Callable[[], Candidates], bool]]) -> list[Target]:
    """`getTargets`: per strategy, take candidates (each removed from the snapshot by the
    strategy) until the preemptor fits, then `fillBackWorkloads`; the snapshot is restored."""
    for make, allow_borrowing in strategies:
        taken: list[Admitted] = []
        reasons: list[str] = []
        gen = make()
        try:
            for wl, reason in gen:
                taken.append(wl)
                reasons.append(reason)
                if _quota_fits(snap, p, allow_borrowing):
                    kept = _fill_back(snap, p, list(zip(taken, reasons)), allow_borrowing)
                    for wl2, _ in kept:
                        snap.add(wl2)
                    return [Target(w.key, w.cluster_queue, r) for w, r in kept]
        finally:
            gen.close()
        for wl in taken:
            snap.add(wl)
    return []


def _fill_back(snap: Snapshot, p: Preemptor, targets: list[tuple[Admitted, str]],
               allow_borrowing: bool) -> list[tuple[Admitted, str]]:
    """`fillBackWorkloads`: from the second-to-last target backwards, give each target its usage
    back; keep it admitted when the preemptor still fits. A dropped target's slot takes the last
    target (Go's O(1) deletion), so the order of the result follows Kueue's exactly."""
    i = len(targets) - 2
    while i >= 0:
        wl = targets[i][0]
        snap.add(wl)
        if _quota_fits(snap, p, allow_borrowing):
            targets[i] = targets[-1]
            targets.pop()
        else:
            snap.remove(wl)
        i -= 1
    return targets


# --- classical preemption ---------------------------------------------------------------------

WITHIN_CQ, HIERARCHICAL, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(1, 5)
_VARIANT_REASON = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHICAL: IN_COHORT_RECLAMATION,
                   RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
                   RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


@dataclass
class _Elem:
    wl: Admitted
    lca: Node | None
    variant: int


def _borrow_within_cohort(cq: ClusterQueue) -> tuple[bool, int | None]:
    """`IsBorrowingWithinCohortForbidden`: (forbidden, maxPriorityThreshold)."""
    bwc = cq.preemption.borrow_within_cohort
    if bwc is None or bwc.policy == "Never":
        return True, None
    return False, bwc.max_priority_threshold


def _classify(spec: ClusterQueue, p: Preemptor, wl: Admitted, advantage: bool) -> int | None:
    """`classifyPreemptionVariant`; None for a workload that can't be preempted."""
    if not uses_needed(wl, p.needs):
        return None
    same = wl.cluster_queue == p.cluster_queue
    policy = spec.preemption.within_cluster_queue if same else spec.preemption.reclaim_within_cohort
    if not satisfies_policy(policy, p, wl):
        return None
    if same:
        return WITHIN_CQ
    if advantage:
        return HIERARCHICAL
    forbidden, threshold = _borrow_within_cohort(spec)
    if forbidden:
        return RECLAIM_WITHOUT_BORROWING
    above = wl.priority >= p.priority or (threshold is not None and wl.priority > threshold)
    return RECLAIM_WITHOUT_BORROWING if above else RECLAIM_WHILE_BORROWING


def _collect(snap: Snapshot, p: Preemptor) -> tuple[list[_Elem], list[_Elem], list[_Elem]]:
    """(hierarchy, priority, same-queue) candidates (`collectSameQueueCandidates`,
    `collectCandidatesForHierarchicalReclaim`): walking up from the preemptor's queue, every
    over-nominal queue of each ancestor's subtree (not yet visited, skipping within-nominal
    cohorts) gives candidates, with the ancestor as their lowest common ancestor; once some
    subtree on the way fits the request, the preemptor has a hierarchical advantage over all
    candidates found from there on."""
    spec = snap.specs[p.cluster_queue]
    cq = snap.tree.queues[p.cluster_queue]

    def from_queue(name: str, lca: Node | None, advantage: bool) -> list[_Elem]:
        out = []
        for wl in snap.admitted(name):
            variant = _classify(spec, p, wl, advantage)
            if variant is not None:
                out.append(_Elem(wl, lca, variant))
        return out

    same: list[_Elem] = []
    if spec.preemption.within_cluster_queue != "Never":
        same = from_queue(p.cluster_queue, None, False)
    hierarchy: list[_Elem] = []
    priority: list[_Elem] = []
    if cq.parent is None or spec.preemption.reclaim_within_cohort == "Never":
        return hierarchy, priority, same

    def walk(cohort: Node, root: Node, skip: Node | None, advantage: bool) -> None:
        bucket = hierarchy if advantage else priority
        for child in sorted((c for c in cohort.children if not c.is_cluster_queue), key=lambda n: n.name):
            if child is skip or within_nominal(child, p.needs):
                continue
            walk(child, root, skip, advantage)
        for child in sorted((c for c in cohort.children if c.is_cluster_queue), key=lambda n: n.name):
            if child is cq or within_nominal(child, p.needs):
                continue
            bucket.extend(from_queue(child.name, root, advantage))

    advantage, remaining = fit_in_quota(cq, p.usage)
    previous: Node | None = None
    for ancestor in ancestors(cq):
        walk(ancestor, ancestor, previous, advantage)
        fits, remaining = fit_in_quota(ancestor, remaining)
        advantage = advantage or fits
        previous = ancestor
    return hierarchy, priority, same


def _valid(snap: Snapshot, p: Preemptor, elem: _Elem, allow_borrowing: bool) -> bool:
    """`candidateIsValid`, checked against the snapshot as targets are removed: a candidate from
    another queue is skipped once its queue, or a cohort between it and the lowest common
    ancestor, is back within nominal quota; candidates that may only go without borrowing are
    skipped in the attempt that borrows."""
    if elem.wl.cluster_queue == p.cluster_queue:
        return True
    if allow_borrowing and elem.variant == RECLAIM_WITHOUT_BORROWING:
        return False
    node = snap.tree.queues[elem.wl.cluster_queue]
    if within_nominal(node, p.needs):
        return False
    for anc in ancestors(node):
        if anc is elem.lca:
            break
        if within_nominal(anc, p.needs):
            return False
    return True


def classical_targets(snap: Snapshot, p: Preemptor) -> list[Target]:
    """Classical preemption: candidates ordered evicted first, then hierarchy / priority /
    same-queue candidates (each by `candidate_key`); one or two attempts, with and without
    borrowing, in the order Kueue tries them."""
    hierarchy, priority, same = _collect(snap, p)
    order = lambda e: candidate_key(e.wl, p.cluster_queue)
    for group in (hierarchy, priority, same):
        group.sort(key=order)
    split = lambda g: ([e for e in g if e.wl.evicted], [e for e in g if not e.wl.evicted])
    (eh, nh), (ep, np_), (es, ns) = split(hierarchy), split(priority), split(same)
    elems = eh + ep + es + nh + np_ + ns
    forbidden, _ = _borrow_within_cohort(snap.specs[p.cluster_queue])
    if (not hierarchy and not priority) or (forbidden and not _under_nominal(snap, p)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]

    def make(allow_borrowing: bool) -> Callable[[], Candidates]:
        def gen() -> Candidates:
            for elem in elems:
                if _valid(snap, p, elem, allow_borrowing):
                    snap.remove(elem.wl)
                    yield elem.wl, _VARIANT_REASON[elem.variant]
        return gen

    return _select(snap, p, [(make(b), b) for b in attempts])


# --- fair sharing -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DRS:
    """A dominant resource share: the unweighted ratio (per mille of what the cohort can lend),
    the node's weight, and the flavor-resources it borrows."""

    weight: float
    ratio: float = 0.0
    resource: str = ""
    borrowing: frozenset[FR] = frozenset()

    @property
    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and bool(self.borrowing)

    @property
    def is_zero(self) -> bool:
        """Not borrowing at all (such nodes are pruned from preemption)."""
        return not self.borrowing

    @property
    def share(self) -> float:
        """`PreciseWeightedShare`: 0 when not borrowing, +inf for a zero weight that borrows."""
        if self.ratio == 0 and not self.zero_weight_borrows:
            return 0.0
        if self.weight == 0:
            return float("inf")
        return self.ratio / self.weight

    def key(self) -> tuple:
        """Sorts as `CompareDRS`: zero-weight borrowers above everything, by ratio among them."""
        return (1, self.ratio) if self.zero_weight_borrows else (0, self.share)

    def borrows_on(self, frs) -> bool:
        """`IsBorrowingOn`: borrowing in one of the given flavor-resources."""
        return any(fr in self.borrowing for fr in frs)


def compare_drs(a: DRS, b: DRS) -> int:
    ka, kb = a.key(), b.key()
    return (ka > kb) - (ka < kb)


def dominant_resource_share(snap: Snapshot, node: Node, extra: dict[FR, int] | None = None) -> DRS:
    """`dominantResourceShare`: for a node with a parent, per resource name the usage beyond the
    node's subtree quota (summed over flavors, with `extra` added), divided by what the parent
    could lend of that resource (`potentialAvailable` of the parent, summed over the flavors of
    the whole tree), times 1000; the largest ratio wins (the first resource name among equals).
    A root node has share 0."""
    weight = snap.weight(node)
    if node.parent is None:
        return DRS(weight)
    extra = extra or {}
    borrowed: dict[str, int] = {}
    frs: set[FR] = set()
    for fr, quota in node.subtree.items():
        amount = extra.get(fr, 0) + node.usage.get(fr, 0) - quota
        if amount > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + amount
            frs.add(fr)
    if not borrowed:
        return DRS(weight)
    root = node
    while root.parent is not None:
        root = root.parent
    lendable: dict[str, int] = {}
    for fr in root.subtree:
        lendable[fr[1]] = lendable.get(fr[1], 0) + snap.tree.node_potential(node.parent, fr)
    ratio, resource = 0.0, ""
    for res in sorted(borrowed):
        if lendable.get(res, 0) > 0:
            value = float(Fraction(borrowed[res] * 1000, lendable[res]))
            if value > ratio:
                ratio, resource = value, res
    return DRS(weight, ratio, resource, frozenset(frs))


def strategy_passes(name: str, preemptor_new: DRS, target_old: DRS, target_new: DRS | None) -> bool:
    """Rule S2-a (`LessThanOrEqualToFinalShare`) or S2-b (`LessThanInitialShare`)."""
    if name == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        return compare_drs(preemptor_new, target_new) <= 0
    return compare_drs(preemptor_new, target_old) < 0


def _almost_lcas(snap: Snapshot, preemptor_cq: str, target_cq: str) -> tuple[Node, Node]:
    """The children of the lowest common ancestor on the way to each queue (`getAlmostLCAs`)."""
    pnode, tnode = snap.tree.queues[preemptor_cq], snap.tree.queues[target_cq]
    p_path = [pnode] + ancestors(pnode)
    t_path = [tnode] + ancestors(tnode)
    lca = next(n for n in t_path[1:] if any(n is m for m in p_path[1:]))
    below = lambda path: path[next(i for i, n in enumerate(path) if n is lca) - 1]
    return below(p_path), below(t_path)


class _TargetOrdering:
    """`TargetClusterQueueOrdering`: from the root, repeatedly descend into the child with the
    highest share (a cohort wins ties against queues; among queues with equal shares, the one
    whose next candidate comes first by `candidate_key`), pruning queues that have no candidates
    left or stopped borrowing (the preemptor's own queue only when out of candidates) and
    cohorts that stopped borrowing and are not above the preemptor."""

    def __init__(self, snap: Snapshot, p: Preemptor, candidates: list[Admitted]) -> None:
        self.snap, self.p = snap, p
        self.by_cq: dict[str, list[Admitted]] = {}
        for wl in candidates:
            self.by_cq.setdefault(wl.cluster_queue, []).append(wl)
        self.pnode = snap.tree.queues[p.cluster_queue]
        self.above = ancestors(self.pnode)
        self.pruned: set[int] = set()

    def pop(self, cq: str) -> Admitted:
        return self.by_cq[cq].pop(0)

    def has(self, cq: str) -> bool:
        return bool(self.by_cq.get(cq))

    def drop(self, cq: str) -> None:
        self.pruned.add(id(self.snap.tree.queues[cq]))

    def __iter__(self) -> Iterator[str]:
        if self.pnode.parent is None:
            while self.has(self.p.cluster_queue):
                yield self.p.cluster_queue
            return
        root = self.above[-1]
        while id(root) not in self.pruned:
            cq = self._next(root)
            if cq is not None:
                yield cq

    def _next(self, cohort: Node) -> str | None:
        best_cq: Node | None = None
        best_cq_drs: DRS | None = None
        for child in sorted((c for c in cohort.children if c.is_cluster_queue), key=lambda n: n.name):
            if id(child) in self.pruned:
                continue
            drs = dominant_resource_share(self.snap, child)
            if (drs.is_zero and child is not self.pnode) or not self.has(child.name):
                self.pruned.add(id(child))
            elif best_cq is None or compare_drs(drs, best_cq_drs) > 0:
                best_cq, best_cq_drs = child, drs
            elif compare_drs(drs, best_cq_drs) == 0:
                mine = candidate_key(self.by_cq[child.name][0], self.p.cluster_queue)
                theirs = candidate_key(self.by_cq[best_cq.name][0], self.p.cluster_queue)
                if mine < theirs:
                    best_cq = child
        best_cohort: Node | None = None
        best_cohort_drs: DRS | None = None
        for child in sorted((c for c in cohort.children if not c.is_cluster_queue), key=lambda n: n.name):
            if id(child) in self.pruned:
                continue
            drs = dominant_resource_share(self.snap, child)
            if drs.is_zero and not any(child is a for a in self.above):
                self.pruned.add(id(child))
            elif best_cohort is None or compare_drs(drs, best_cohort_drs) >= 0:
                best_cohort, best_cohort_drs = child, drs
        if best_cohort is None and best_cq is None:
            self.pruned.add(id(cohort))
            return None
        if best_cohort is not None and (best_cq is None or compare_drs(best_cohort_drs, best_cq_drs) >= 0):
            return self._next(best_cohort)
        return best_cq.name


def _fair_candidates(snap: Snapshot, p: Preemptor) -> list[Admitted]:
    """`findCandidates`: the preemptor queue's workloads allowed by withinClusterQueue, and
    those of every borrowing queue of the whole cohort tree allowed by reclaimWithinCohort; only
    workloads holding a needed flavor-resource; sorted by `candidate_key`."""
    spec = snap.specs[p.cluster_queue]
    cq = snap.tree.queues[p.cluster_queue]
    out: list[Admitted] = []
    if spec.preemption.within_cluster_queue != "Never":
        out += [wl for wl in snap.admitted(p.cluster_queue)
                if satisfies_policy(spec.preemption.within_cluster_queue, p, wl) and uses_needed(wl, p.needs)]
    if cq.parent is not None and spec.preemption.reclaim_within_cohort != "Never":
        root = ancestors(cq)[-1]
        for other in _subtree_queues(root):
            if other is cq or not _is_borrowing(other, p.needs):
                continue
            out += [wl for wl in snap.admitted(other.name)
                    if satisfies_policy(spec.preemption.reclaim_within_cohort, p, wl) and uses_needed(wl, p.needs)]
    out.sort(key=lambda wl: candidate_key(wl, p.cluster_queue))
    return out


def _subtree_queues(node: Node) -> list[Node]:
    out: list[Node] = []
    for child in sorted(node.children, key=lambda n: (not n.is_cluster_queue, n.name)):
        out += [child] if child.is_cluster_queue else _subtree_queues(child)
    return out


def fair_targets(snap: Snapshot, p: Preemptor, fair: FairSharing) -> list[Target]:
    """Fair-sharing preemption (`fairPreemptionStrategy`), one strategy run over:

    1. the first configured rule: walk the target-queue ordering; the preemptor's own queue
       gives its next candidate (InClusterQueue); while the preemptor's queue stays within
       nominal quota in the needed resources (preemptor admitted), any other queue gives its
       next candidate (InCohortReclamation); otherwise the queue's candidates are tried in order
       against the rule with the almost-LCA shares, the first that passes is taken
       (InCohortFairSharing) and the ordering is consulted again, those that fail wait for rule 2;
    2. with a second rule (S2-b), the candidates that failed, per queue in the same ordering:
       the first candidate is taken if the preemptor's new share is below the target's current
       one, and the queue is dropped either way.

    Shares are computed with the preemptor's usage added to its queue; the fit checks without it.
    """
    candidates = _fair_candidates(snap, p)
    if not candidates:
        return []
    strategies = fair.strategies or DEFAULT_STRATEGIES

    def gen() -> Candidates:
        tree = snap.tree
        tree.add_usage(p.cluster_queue, p.usage)
        added = True

        def give(wl: Admitted, reason: str):
            nonlocal added
            snap.remove(wl)
            tree.remove_usage(p.cluster_queue, p.usage)
            added = False
            yield wl, reason
            tree.add_usage(p.cluster_queue, p.usage)
            added = True

        try:
            ordering = _TargetOrdering(snap, p, candidates)
            within = fair.preempt_within_nominal and _within_nominal_now(snap, p)
            retry: list[Admitted] = []
            for cq in ordering:
                if cq == p.cluster_queue:
                    yield from give(ordering.pop(cq), IN_CLUSTER_QUEUE)
                    continue
                if within:
                    yield from give(ordering.pop(cq), IN_COHORT_RECLAMATION)
                    continue
                pa, ta = _almost_lcas(snap, p.cluster_queue, cq)
                p_new, t_old = dominant_resource_share(snap, pa), dominant_resource_share(snap, ta)
                if p_new.zero_weight_borrows and not t_old.zero_weight_borrows:
                    while ordering.has(cq):
                        retry.append(ordering.pop(cq))
                    continue
                while ordering.has(cq):
                    wl = ordering.pop(cq)
                    tree.remove_usage(wl.cluster_queue, wl.usage)
                    t_new = dominant_resource_share(snap, ta)
                    tree.add_usage(wl.cluster_queue, wl.usage)
                    if strategy_passes(strategies[0], p_new, t_old, t_new):
                        yield from give(wl, IN_COHORT_FAIR_SHARING)
                        break
                    retry.append(wl)
            if len(strategies) > 1 and retry:
                second = _TargetOrdering(snap, p, retry)
                for cq in second:
                    pa, ta = _almost_lcas(snap, p.cluster_queue, cq)
                    passed = strategy_passes(LESS_THAN_INITIAL_SHARE, dominant_resource_share(snap, pa),
                                             dominant_resource_share(snap, ta), None)
                    wl = second.pop(cq)
                    if passed:
                        yield from give(wl, IN_COHORT_FAIR_SHARING)
                    second.drop(cq)
        finally:
            if added:
                tree.remove_usage(p.cluster_queue, p.usage)

    return _select(snap, p, [(gen, True)])


# --- entry points -------------------------------------------------------------------------------

def get_targets(snap: Snapshot, p: Preemptor, fair: FairSharing | None = None) -> list[Target]:
    """Kueue's `GetTargets`: the victims, in the order Kueue lists them, or [] when preempting
    every allowed candidate would still not make the preemptor fit."""
    if p.cluster_queue not in snap.tree.queues or not p.needs:
        return []
    if fair is not None:
        return fair_targets(snap, p, fair)
    return classical_targets(snap, p)


def simulate(snap: Snapshot, p: Preemptor, fr: FR, quantity: int,
             fair: FairSharing | None = None) -> tuple[str, int]:
    """The preemption oracle (`SimulatePreemption`): run the search for one flavor-resource and
    the quantity the assignment needs in it; NoCandidates with the borrowing height as is,
    else Preempt (some target in the preemptor's own queue) or Reclaim, with the borrowing
    height once the targets are gone."""
    one = Preemptor(p.key, p.cluster_queue, p.priority, p.created, {fr: quantity}, frozenset({fr}))
    targets = get_targets(snap, one, fair)
    if not targets:
        return NO_CANDIDATES, snap.tree.lowest_subtree_that_fits(p.cluster_queue, fr, quantity)[0]
    removed = [snap.find(t.key) for t in targets]
    for wl in removed:
        snap.remove(wl)
    borrow = snap.tree.lowest_subtree_that_fits(p.cluster_queue, fr, quantity)[0]
    for wl in removed:
        snap.add(wl)
    possibility = PREEMPT if any(t.cluster_queue == p.cluster_queue for t in targets) else RECLAIM
    return possibility, borrow


def can_always_reclaim(cq: ClusterQueue) -> bool:
    """`CanAlwaysReclaim`: a queue that reclaims from any priority never needs to hold capacity
    for a workload that found no preemption candidates."""
    return cq.preemption.reclaim_within_cohort == "Any"


def reserve_usage(snap: Snapshot, cq: str, usage: dict[FR, int], borrowing: int) -> dict[FR, int]:
    """`quotaResourcesToReserve` for a Preempt assignment without targets: up to the borrowing
    limit when the assignment borrows, else up to what is left of the nominal quota (clamped at
    0 here, where Kueue could add a negative amount for an over-admitted queue)."""
    node = snap.tree.queues[cq]
    quotas = quotas_of(snap.specs[cq].resource_groups)
    out: dict[FR, int] = {}
    for fr, v in usage.items():
        q = quotas.get(fr)
        nominal = q.nominal if q else 0
        used = node.usage.get(fr, 0)
        if borrowing > 0:
            reserve = v if q is None or q.borrowing_limit is None else min(v, nominal + q.borrowing_limit - used)
        else:
            reserve = min(v, nominal - used)
        out[fr] = max(0, reserve)
    return out

