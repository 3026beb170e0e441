"""Preemption in the engine: which admitted workloads a pending one evicts, as Kueue decides it.

The rules are Kueue v0.20's, as written down in docs/PREEMPTION.md (section numbers below refer to
it). This module works on the engine's own state — the session's quota tree and usage, and its
holders (admitted workloads) — and is written independently of `kadmit.reference`, which replays
the same rules in plain Python as the oracle the engine is tested against.

Everything here is arithmetic on a `Snapshot`: a copy of the session's usage plus the admitted
workloads per cluster queue, which the searches remove and add back freely; the session itself is
never changed. Entry points:

- `find_targets(session, preemptor)`: Kueue's `GetTargets` — classical preemption (§3) when fair
  sharing is off, fair-sharing preemption (§4) when the model's scheduler configuration turns it
  on; victims in the order Kueue lists them, or [] when evicting every allowed candidate would
  still leave the preemptor short (nothing is evicted in vain).
- `oracle(...)`: the preemption oracle the flavor assigner asks about one flavor-resource (§2 A5);
  `lowest_subtree(...)`: Q4's borrowing height and "may reclaim in the hierarchy" flag.
- `fair_share(session, node_id, extra)`: a node's dominant resource share (D1–D2), comparable.
- `fair_order(session, entries)` / `fair_pick(...)`: the fair-sharing admission tournament (T1–T2).

Candidates' quota-reservation time is `admission.admitted_at` (else creation time); workloads
admitted in this run (`Holder.new`) count as reserved after every input workload, in commit order
(the reference replay instead stamps them per cycle, so two admitted in one cycle tie there and
break by key).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import total_ordering

from kadmit.engine.admission.quota import FR, QuotaTree, Usage, node_id
from kadmit.model import ClusterQueue, Workload

# Kueue's Preempted-condition reasons.
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

# What the oracle answers (Kueue's PreemptionPossibility).
NO_CANDIDATES = "NoCandidates"
PREEMPT = "Preempt"
RECLAIM = "Reclaim"

# Fair-sharing preemption rules (F5).
LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"  # S2-a
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"  # S2-b
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)


@dataclass(frozen=True)
class Victim:
    """An admitted workload a preemptor evicts, and under which of Kueue's reasons."""

    key: str
    cluster_queue: str
    reason: str  # one of the IN_* reasons
    priority: int


@dataclass(frozen=True)
class Preemptor:
    """A pending workload asking for preemption: its queue, priority, queue-order time, the usage
    of its whole flavor assignment, and the flavor-resources assigned in Preempt mode (§2 A6)."""

    key: str
    cluster_queue: str
    priority: int
    created: object  # datetime: LowerOrNewerEqualPriority compares it
    usage: dict[FR, int]
    needs: frozenset[FR]


# --- candidates ---------------------------------------------------------------------------------

@dataclass(eq=False)
class Candidate:
    """An admitted workload as preemption sees it. `reserved` ranks quota-reservation times
    (higher = reserved later); workloads admitted in this run rank after every input workload,
    in the order they were committed."""

    key: str
    cluster_queue: str
    amounts: dict[FR, int]
    priority: int
    created: object  # queue-order timestamp
    reserved: int
    evicted: bool

    def order(self, preemptor_cq: str) -> tuple:
        """`CandidatesOrdering` (C4): already evicted first, other queues before the preemptor's,
        lower priority first, most recently reserved first, then the UID (here: the key)."""
        return (not self.evicted, self.cluster_queue == preemptor_cq, self.priority, -self.reserved, self.key)

    def uses(self, needs: frozenset[FR]) -> bool:
        """`WorkloadUsesResources`: it was assigned some flavor-resource that needs preemption."""
        return any(fr in needs for fr in self.amounts)


def _timestamp(value) -> float:
    ts = getattr(value, "timestamp", None)
    return ts() if callable(ts) else float(value or 0)


def candidates_of(session) -> list[Candidate]:
    """Every holder of the session as a preemption candidate (cluster queues of the tree only);
    kept per session until its admitted workloads change (`session.version`)."""
    version = getattr(session, "version", None)
    cached = getattr(session, "_preemption_candidates", None)
    if version is not None and cached is not None and cached[0] == version:
        return list(cached[1])
    out = _candidates(session)
    if version is not None:
        session._preemption_candidates = (version, out)
    return list(out)


def _candidates(session) -> list[Candidate]:
    tree: QuotaTree = session.compiler.tree
    index = session.index
    rows = []
    for pos, (key, h) in enumerate(session.holders.items()):
        if node_id(h.cluster_queue, False) not in tree.nodes:
            continue
        wl: Workload | None = index.workloads.get(key)
        if wl is None:
            priority, created, at, evicted = index.default_priority, None, None, False
        else:
            priority, created = index.priority(wl), wl.created
            at = (wl.admission.admitted_at if wl.admission is not None else None) or wl.created
            evicted = bool(wl.evicted) and not h.new
        # admitted in this run: after every input workload, by the cycle that admitted it (ties: key)
        when = (1, getattr(session, "admitted_cycle", {}).get(key, pos)) if h.new else (0, _timestamp(at))
        rows.append((when, key, h, priority, created, evicted))
    ranks = {w: i for i, w in enumerate(sorted({r[0] for r in rows}))}  # equal times rank equal
    return [Candidate(key, h.cluster_queue, dict(h.amounts), priority, created, ranks[when], evicted)
            for when, key, h, priority, created, evicted in rows]


def satisfies_policy(policy: str, p: Preemptor, c: Candidate) -> bool:
    """C1: withinClusterQueue / reclaimWithinCohort allow preempting `c`."""
    if policy == "LowerPriority":
        return p.priority > c.priority
    if policy == "LowerOrNewerEqualPriority":
        if p.priority > c.priority:
            return True
        return p.priority == c.priority and p.created is not None and c.created is not None \
            and p.created < c.created
    return policy == "Any"


# --- dominant resource share --------------------------------------------------------------------

@total_ordering
@dataclass(frozen=True, eq=False)
class Share:
    """A dominant resource share (D1–D2): the unweighted ratio (per mille of what the parent could
    lend), the node's weight, the dominant resource, and the flavor-resources it borrows. Compares
    as Kueue's `CompareDRS`: zero-weight borrowers above everything (by ratio among them), the
    others by weighted share."""

    weight: float = 1.0
    ratio: float = 0.0
    resource: str = ""
    borrowing: frozenset[FR] = frozenset()

    @property
    def borrows(self) -> bool:
        return bool(self.borrowing)

    @property
    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.borrows

    @property
    def value(self) -> float:
        """Kueue's `PreciseWeightedShare`: +inf for a zero weight that borrows, 0 without a ratio."""
        if self.zero_weight_borrows:
            return math.inf
        if self.ratio == 0:
            return 0.0
        return self.ratio / self.weight

    def key(self) -> tuple:
        return (1, self.ratio) if self.zero_weight_borrows else (0, self.value)

    def borrows_on(self, frs) -> bool:
        """`IsBorrowingOn`: borrowing in one of the flavor-resources an entry was assigned. (Kueue's
        newer code counts only positive requests; a zero request is counted here, as in the
        reference, until both change together.)"""
        return any(fr in self.borrowing for fr in frs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Share) and self.key() == other.key()

    def __lt__(self, other: Share) -> bool:
        return self.key() < other.key()

    def __hash__(self) -> int:
        return hash(self.key())


def compare_shares(a: Share, b: Share) -> int:
    ka, kb = a.key(), b.key()
    return (ka > kb) - (ka < kb)


# --- the simulation snapshot ----------------------------------------------------------------------

class Snapshot:
    """The session's quota tree over a copy of its usage, with the admitted workloads per cluster
    queue; workloads and usage are removed and added back while searching (§1's predicates)."""

    def __init__(self, session, usage: Usage | None = None,
                 placeable: Callable[[frozenset[str]], bool] | None = None) -> None:
        self.session = session
        self.placeable = placeable  # topology-aware scheduling: does it fit with these workloads gone?
        self.removed: set[str] = set()
        self.tree: QuotaTree = session.compiler.tree
        self.index = session.index
        self.usage = (usage if usage is not None else session.usage).copy()
        self.live: dict[str, dict[str, Candidate]] = {}
        self._candidates: list[Candidate] | None = None
        self._frs: dict[str, frozenset[FR]] = {}
        self._lendable: dict[str, dict[str, int]] = {}

    # --- workloads ---

    def load_candidates(self) -> None:
        if self._candidates is None:
            self._candidates = candidates_of(self.session)
            for c in self._candidates:
                self.live.setdefault(c.cluster_queue, {})[c.key] = c

    def admitted(self, cq: str) -> list[Candidate]:
        self.load_candidates()
        return [c for _, c in sorted(self.live.get(cq, {}).items())]

    def find(self, key: str) -> Candidate | None:
        self.load_candidates()
        for wls in self.live.values():
            if key in wls:
                return wls[key]
        return None

    def remove(self, c: Candidate) -> None:
        del self.live[c.cluster_queue][c.key]
        self.sub(c.cluster_queue, c.amounts)
        self.removed.add(c.key)

    def add(self, c: Candidate) -> None:
        self.live.setdefault(c.cluster_queue, {})[c.key] = c
        self.plus(c.cluster_queue, c.amounts)
        self.removed.discard(c.key)

    def plus(self, cq: str, amounts: dict[FR, int]) -> None:
        self.usage.add(cq, amounts)

    def sub(self, cq: str, amounts: dict[FR, int]) -> None:
        self.usage.add(cq, {fr: -v for fr, v in amounts.items()})

    # --- the tree ---

    def parent(self, nid: str) -> str | None:
        return self.tree.nodes[nid].parent

    def ancestors(self, nid: str) -> list[str]:
        """Parent first, root last (Kueue's `PathParentToRoot`)."""
        return self.tree.path(nid)[1:]

    def used(self, nid: str, fr: FR) -> int:
        return self.tree.usage(nid, fr, self.usage)

    def local_available(self, nid: str, fr: FR) -> int:
        return max(0, self.tree.guaranteed(nid, fr) - self.used(nid, fr))

    def borrowing_with(self, nid: str, fr: FR, v: int) -> bool:
        """Q1."""
        return self.used(nid, fr) + v > self.tree.subtree(nid, fr)

    def within_nominal(self, nid: str, frs) -> bool:
        """Q2."""
        return all(self.used(nid, fr) <= self.tree.subtree(nid, fr) for fr in frs)

    def fit_in_quota(self, nid: str, requests: dict[FR, int]) -> tuple[bool, dict[FR, int]]:
        """Q3: whether the requests fit the node's subtree quota, and what its parent must provide."""
        fits = all(self.used(nid, fr) + v <= self.tree.subtree(nid, fr) for fr, v in requests.items())
        return fits, {fr: max(0, v - self.local_available(nid, fr)) for fr, v in requests.items()}

    def lowest_subtree_that_fits(self, cq: str, fr: FR, v: int) -> tuple[int, bool]:
        """Q4: (borrowing height, may reclaim within part of the hierarchy)."""
        nid = node_id(cq, False)
        parent = self.parent(nid)
        if parent is None or not self.borrowing_with(nid, fr, v):
            return 0, parent is not None
        remaining = v - self.local_available(nid, fr)
        cur = parent
        while self.parent(cur) is not None and self.borrowing_with(cur, fr, remaining):
            remaining -= self.local_available(cur, fr)
            cur = self.parent(cur)
        return self.tree.height(cur), self.parent(cur) is not None

    def is_borrowing_in(self, nid: str, frs) -> bool:
        """Q5: in a cohort and over its quota in one of `frs`."""
        return self.parent(nid) is not None and any(self.borrowing_with(nid, fr, 0) for fr in frs)

    def available(self, cq: str, fr: FR) -> int:
        """`ClusterQueueSnapshot.Available`: clamped at 0, and 0 in what the queue declares no
        quota for (as the reference does; Kueue's webhook makes every flavor list every resource)."""
        nid = node_id(cq, False)
        if not self.tree.entry(nid, fr).declared:
            return 0
        return max(0, self.tree.available(nid, fr, self.usage))

    def fits(self, p: Preemptor, allow_borrowing: bool) -> bool:
        """C7 (`workloadFits`, quota part): every flavor-resource of the preemptor is available,
        and without borrowing when the attempt forbids it."""
        nid = node_id(p.cluster_queue, False)
        for fr, v in p.usage.items():
            if not allow_borrowing and self.borrowing_with(nid, fr, v):
                return False
            if v > self.available(p.cluster_queue, fr):
                return False
        # and its topology-aware pod sets can be placed with the removed workloads' nodes free
        return self.placeable is None or self.placeable(frozenset(self.removed))

    # --- shares ---

    def subtree_frs(self, nid: str) -> frozenset[FR]:
        """The flavor-resources of a node's subtree quota: declared by it or anything below it."""
        got = self._frs.get(nid)
        if got is None:
            node = self.tree.nodes[nid]
            out = set(node.quotas)
            for ch in node.children:
                out |= self.subtree_frs(ch)
            got = self._frs[nid] = frozenset(out)
        return got

    def lendable(self, parent: str) -> dict[str, int]:
        """Per resource name, what `parent` could ever provide over every flavor of its tree."""
        got = self._lendable.get(parent)
        if got is None:
            got = {}
            for fr in sorted(self.subtree_frs(self.tree.root(parent))):
                got[fr[1]] = got.get(fr[1], 0) + self.tree.available(parent, fr, None)
            self._lendable[parent] = got
        return got

    def weight(self, nid: str) -> float:
        node = self.tree.nodes[nid]
        spec = (self.index.cohorts if node.is_cohort else self.index.cluster_queues).get(node.name)
        fs = getattr(spec, "fair_sharing", None)
        return 1.0 if fs is None else fs.weight / 1000

    def share(self, nid: str, extra: dict[FR, int] | None = None) -> Share:
        """D1–D2, with `extra` added to the node's own usage."""
        weight = self.weight(nid)
        parent = self.parent(nid)
        if parent is None:
            return Share(weight)
        extra = extra or {}
        borrowed: dict[str, int] = {}
        frs = set()
        for fr in self.subtree_frs(nid):
            over = extra.get(fr, 0) + self.used(nid, fr) - self.tree.subtree(nid, fr)
            if over > 0:
                borrowed[fr[1]] = borrowed.get(fr[1], 0) + over
                frs.add(fr)
        if not borrowed:
            return Share(weight)
        lend = self.lendable(parent)
        ratio, resource = 0.0, ""
        for res in sorted(borrowed):
            if lend.get(res, 0) > 0:
                r = borrowed[res] * 1000 / lend[res]
                if r > ratio:
                    ratio, resource = r, res
        return Share(weight, ratio, resource, frozenset(frs))

    def almost_lcas(self, a: str, b: str) -> tuple[str, str]:
        """D4 for cluster queues `a` and `b`: the children of their lowest common ancestor on the
        way to each."""
        pa = self.tree.path(node_id(a, False))
        pb = self.tree.path(node_id(b, False))
        above_a = set(pa[1:])
        lca = next(n for n in pb[1:] if n in above_a)
        return pa[pa.index(lca) - 1], pb[pb.index(lca) - 1]


# --- the generic search: take candidates until the preemptor fits, then fill back ------------------

def fill_back(snap: Snapshot, p: Preemptor, targets: list[tuple[Candidate, str]],
              allow_borrowing: bool) -> list[tuple[Candidate, str]]:
    """C8 (`fillBackWorkloads`): from the second-to-last target backwards, give each its usage
    back and keep it admitted when the preemptor still fits; a dropped target's slot takes the
    last target (Go's O(1) deletion), which is why Kueue's order of the survivors changes."""
    i = len(targets) - 2
    while i >= 0:
        c = targets[i][0]
        snap.add(c)
        if snap.fits(p, allow_borrowing):
            targets[i] = targets[-1]
            targets.pop()
        else:
            snap.remove(c)
        i -= 1
    return targets


def _victims(targets: list[tuple[Candidate, str]]) -> list[Victim]:
    return [Victim(c.key, c.cluster_queue, reason, c.priority) for c, reason in targets]


# --- classical preemption (§3) ----------------------------------------------------------------------

WITHIN_CQ, HIERARCHY, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = "within", "hierarchy", "rwob", "rwb"
_REASON = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHY: IN_COHORT_RECLAMATION,
           RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
           RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


@dataclass
class _Elem:
    c: Candidate
    lca: str | None  # the lowest common ancestor it was found under (other queues only)
    variant: str


def _borrowing_forbidden(spec: ClusterQueue) -> tuple[bool, int | None]:
    """`IsBorrowingWithinCohortForbidden`: (forbidden, maxPriorityThreshold)."""
    bwc = spec.preemption.borrow_within_cohort
    if bwc is None or bwc.policy == "Never":
        return True, None
    return False, bwc.max_priority_threshold


def _variant(spec: ClusterQueue, p: Preemptor, c: Candidate, advantage: bool) -> str | None:
    """C1 + C3 (`classifyPreemptionVariant`); None when `c` may not be preempted."""
    if not c.uses(p.needs):
        return None
    same = c.cluster_queue == p.cluster_queue
    policy = spec.preemption.within_cluster_queue if same else spec.preemption.reclaim_within_cohort
    if not satisfies_policy(policy, p, c):
        return None
    if same:
        return WITHIN_CQ
    if advantage:
        return HIERARCHY
    forbidden, threshold = _borrowing_forbidden(spec)
    if forbidden or c.priority >= p.priority or (threshold is not None and c.priority > threshold):
        return RECLAIM_WITHOUT_BORROWING
    return RECLAIM_WHILE_BORROWING


def _collect(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> tuple[list[_Elem], list[_Elem], list[_Elem]]:
    """C2: (hierarchy, priority, same-queue) candidates."""
    me = node_id(p.cluster_queue, False)

    def take(cq: str, lca: str | None, advantage: bool, into: list[_Elem]) -> None:
        for c in snap.admitted(cq):
            v = _variant(spec, p, c, advantage)
            if v is not None:
                into.append(_Elem(c, lca, v))

    same: list[_Elem] = []
    if spec.preemption.within_cluster_queue != "Never":
        take(p.cluster_queue, None, False, same)
    hierarchy: list[_Elem] = []
    priority: list[_Elem] = []
    if snap.parent(me) is None or spec.preemption.reclaim_within_cohort == "Never":
        return hierarchy, priority, same

    def visit(nid: str, lca: str, skip: str | None, into: list[_Elem]) -> None:
        for ch in sorted(snap.tree.nodes[nid].children):
            if ch == skip or ch == me or snap.within_nominal(ch, p.needs):
                continue
            if snap.tree.nodes[ch].is_cohort:
                visit(ch, lca, skip, into)
            else:
                take(snap.tree.nodes[ch].name, lca, into is hierarchy, into)

    advantage, remaining = snap.fit_in_quota(me, p.usage)
    previous: str | None = None
    for anc in snap.ancestors(me):
        visit(anc, anc, previous, hierarchy if advantage else priority)
        fits, remaining = snap.fit_in_quota(anc, remaining)
        advantage = advantage or fits
        previous = anc
    return hierarchy, priority, same


def _valid(snap: Snapshot, p: Preemptor, e: _Elem, allow_borrowing: bool) -> bool:
    """C6 (`candidateIsValid`), against the simulated state as victims are removed."""
    if e.c.cluster_queue == p.cluster_queue:
        return True
    if allow_borrowing and e.variant == RECLAIM_WITHOUT_BORROWING:
        return False
    nid = node_id(e.c.cluster_queue, False)
    if snap.within_nominal(nid, p.needs):
        return False
    for anc in snap.ancestors(nid):
        if anc == e.lca:
            break
        if snap.within_nominal(anc, p.needs):
            return False
    return True


def _under_nominal(snap: Snapshot, p: Preemptor) -> bool:
    """`queueUnderNominalInResourcesNeedingPreemption`: usage strictly below nominal in every need."""
    nid = node_id(p.cluster_queue, False)
    for fr in p.needs:
        entry = snap.tree.entry(nid, fr)
        if not entry.declared or entry.nominal <= snap.used(nid, fr):
            return False
    return True


def classical_targets(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> list[Victim]:
    """§3: candidates in Kueue's sequence, one or two attempts (with / without borrowing), the
    first that makes the preemptor fit is filled back. The snapshot is left with the targets
    removed (or as found, when there are none)."""
    hierarchy, priority, same = _collect(snap, p, spec)
    for group in (hierarchy, priority, same):
        group.sort(key=lambda e: e.c.order(p.cluster_queue))
    evicted = [e for g in (hierarchy, priority, same) for e in g if e.c.evicted]
    rest = [e for g in (hierarchy, priority, same) for e in g if not e.c.evicted]
    sequence = evicted + rest
    forbidden, _ = _borrowing_forbidden(spec)
    if (not hierarchy and not priority) or (forbidden and not _under_nominal(snap, p)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for allow in attempts:
        taken: list[tuple[Candidate, str]] = []
        for e in sequence:
            if not _valid(snap, p, e, allow):
                continue
            snap.remove(e.c)
            taken.append((e.c, _REASON[e.variant]))
            if snap.fits(p, allow):
                return _victims(fill_back(snap, p, taken, allow))
        for c, _ in taken:
            snap.add(c)
    return []


# --- fair-sharing preemption (§4) -------------------------------------------------------------------

class _TargetQueues:
    """F3 (`TargetClusterQueueOrdering`): from the root, descend into the child with the highest
    share — a cohort beats queues on a tie, the later of equal cohorts wins, and among queues of
    equal share the one whose next candidate comes first — pruning queues without candidates or
    not borrowing (the preemptor's own queue only once out of candidates) and cohorts not
    borrowing that are not above the preemptor. Shares are recomputed at every step."""

    def __init__(self, snap: Snapshot, p: Preemptor, candidates: list[Candidate]) -> None:
        self.snap, self.p = snap, p
        self.by_cq: dict[str, list[Candidate]] = {}
        for c in candidates:
            self.by_cq.setdefault(c.cluster_queue, []).append(c)
        self.me = node_id(p.cluster_queue, False)
        self.above = set(snap.ancestors(self.me))
        self.pruned: set[str] = set()

    def has(self, cq: str) -> bool:
        return bool(self.by_cq.get(cq))

    def pop(self, cq: str) -> Candidate:
        return self.by_cq[cq].pop(0)

    def drop(self, cq: str) -> None:
        self.pruned.add(node_id(cq, False))

    def __iter__(self) -> Iterator[str]:
        if self.snap.parent(self.me) is None:
            while self.has(self.p.cluster_queue):
                yield self.p.cluster_queue
            return
        root = self.snap.tree.root(self.me)
        while root not in self.pruned:
            cq = self._descend(root)
            if cq is not None:
                yield cq

    def _descend(self, cohort: str) -> str | None:
        snap = self.snap
        nodes = snap.tree.nodes
        children = sorted(nodes[cohort].children, key=lambda n: nodes[n].name)
        best_q: str | None = None
        best_q_share: Share | None = None
        for ch in children:
            if nodes[ch].is_cohort or ch in self.pruned:
                continue
            name = nodes[ch].name
            s = snap.share(ch)
            if (not s.borrows and ch != self.me) or not self.has(name):
                self.pruned.add(ch)
            elif best_q is None or s > best_q_share:
                best_q, best_q_share = ch, s
            elif s == best_q_share and (self.by_cq[name][0].order(self.p.cluster_queue)
                                        < self.by_cq[nodes[best_q].name][0].order(self.p.cluster_queue)):
                best_q = ch
        best_c: str | None = None
        best_c_share: Share | None = None
        for ch in children:
            if not nodes[ch].is_cohort or ch in self.pruned:
                continue
            s = snap.share(ch)
            if not s.borrows and ch not in self.above:
                self.pruned.add(ch)
            elif best_c is None or s >= best_c_share:
                best_c, best_c_share = ch, s
        if best_c is None and best_q is None:
            self.pruned.add(cohort)
            return None
        if best_c is not None and (best_q is None or best_c_share >= best_q_share):
            return self._descend(best_c)
        assert best_q is not None
        return nodes[best_q].name


def _fair_candidates(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> list[Candidate]:
    """F1 (`findCandidates`)."""
    me = node_id(p.cluster_queue, False)
    out: list[Candidate] = []
    within = spec.preemption.within_cluster_queue
    if within != "Never":
        out += [c for c in snap.admitted(p.cluster_queue) if satisfies_policy(within, p, c) and c.uses(p.needs)]
    reclaim = spec.preemption.reclaim_within_cohort
    if snap.parent(me) is not None and reclaim != "Never":
        stack = [snap.tree.root(me)]
        while stack:
            nid = stack.pop()
            node = snap.tree.nodes[nid]
            if node.is_cohort:
                stack.extend(node.children)
            elif nid != me and snap.is_borrowing_in(nid, p.needs):
                out += [c for c in snap.admitted(node.name) if satisfies_policy(reclaim, p, c) and c.uses(p.needs)]
    out.sort(key=lambda c: c.order(p.cluster_queue))
    return out


def _rule_passes(rule: str, p_new: Share, t_old: Share, t_new: Share | None) -> bool:
    """F5: S2-a `pNew <= tNew`, S2-b `pNew < tOld`."""
    if rule == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        assert t_new is not None
        return compare_shares(p_new, t_new) <= 0
    return compare_shares(p_new, t_old) < 0


def fair_targets(snap: Snapshot, p: Preemptor, spec: ClusterQueue, strategies: tuple[str, ...]) -> list[Victim]:
    """§4 F1–F7. The preemptor's usage sits on its queue for every share computation and is
    lifted for every fit check. The snapshot is left with the targets removed (or as found)."""
    candidates = _fair_candidates(snap, p, spec)
    if not candidates:
        return []
    rules = tuple(strategies) or DEFAULT_STRATEGIES
    me = node_id(p.cluster_queue, False)
    taken: list[tuple[Candidate, str]] = []

    def take(c: Candidate, reason: str) -> list[Victim] | None:
        snap.remove(c)
        taken.append((c, reason))
        snap.sub(p.cluster_queue, p.usage)
        if snap.fits(p, True):
            return _victims(fill_back(snap, p, taken, True))
        snap.plus(p.cluster_queue, p.usage)
        return None

    snap.plus(p.cluster_queue, p.usage)
    # FairSharingPreemptWithinNominal: decided once, with the preemptor counted
    within = not any(snap.borrowing_with(me, fr, 0) for fr in p.needs)
    retry: list[Candidate] = []
    order = _TargetQueues(snap, p, candidates)
    for cq in order:
        if cq == p.cluster_queue:
            got = take(order.pop(cq), IN_CLUSTER_QUEUE)
        elif within:
            got = take(order.pop(cq), IN_COHORT_RECLAMATION)
        else:
            pa, ta = snap.almost_lcas(p.cluster_queue, cq)
            p_new, t_old = snap.share(pa), snap.share(ta)
            got = None
            if p_new.zero_weight_borrows and not t_old.zero_weight_borrows:
                while order.has(cq):
                    retry.append(order.pop(cq))
                continue
            while order.has(cq):
                c = order.pop(cq)
                snap.sub(c.cluster_queue, c.amounts)
                t_new = snap.share(ta)
                snap.plus(c.cluster_queue, c.amounts)
                if _rule_passes(rules[0], p_new, t_old, t_new):
                    got = take(c, IN_COHORT_FAIR_SHARING)
                    break
                retry.append(c)
        if got is not None:
            return got
    if len(rules) > 1 and retry:
        # the second rule can only be LessThanInitialShare (Kueue's configuration validation)
        second = _TargetQueues(snap, p, retry)
        for cq in second:
            pa, ta = snap.almost_lcas(p.cluster_queue, cq)
            passed = _rule_passes(LESS_THAN_INITIAL_SHARE, snap.share(pa), snap.share(ta), None)
            c = second.pop(cq)
            second.drop(cq)
            if passed:
                got = take(c, IN_COHORT_FAIR_SHARING)
                if got is not None:
                    return got
    snap.sub(p.cluster_queue, p.usage)
    for c, _ in taken:
        snap.add(c)
    return []


# --- entry points ---------------------------------------------------------------------------------

def fair_strategies(session) -> tuple[str, ...] | None:
    """The fair-sharing preemption rules in force, or None while fair sharing is off."""
    config = session.model.config
    if config is None or not config.fair_sharing:
        return None
    return tuple(config.strategies) or DEFAULT_STRATEGIES


def search(snap: Snapshot, p: Preemptor) -> list[Victim]:
    """`GetTargets` on a snapshot, which is left with the targets removed."""
    spec = snap.index.cluster_queues.get(p.cluster_queue)
    if spec is None or node_id(p.cluster_queue, False) not in snap.tree.nodes or not p.needs:
        return []
    snap.load_candidates()
    strategies = fair_strategies(snap.session)
    if strategies is not None:
        return fair_targets(snap, p, spec, strategies)
    return classical_targets(snap, p, spec)


def find_targets(session, preemptor: Preemptor,
                 placeable: Callable[[frozenset[str]], bool] | None = None) -> list[Victim]:
    """Kueue's `GetTargets`: the victims, in the order Kueue lists them, or [] when preempting
    every allowed candidate would still not make the preemptor fit. "Fits" is quota, and with
    `placeable` (topology-aware scheduling: can the preemptor be placed with these workloads
    gone?) topology too, as Kueue's workloadFits. Never changes the session."""
    return search(Snapshot(session, placeable=placeable), preemptor)


def oracle(session, cluster_queue: str, preemptor_key: str, priority: int, created, fr: FR,
           val: int) -> tuple[str, int]:
    """§2 A5 (`SimulatePreemption`): the search for a preemptor needing only `val` of `fr`.
    No targets → NoCandidates with the borrowing height as things are; else Preempt (a target in
    the preemptor's own queue) or Reclaim, with the borrowing height once the targets are gone.
    The answer depends on the admitted set, the usage and the preemptor's queue, priority and time
    (not its name: it is pending, never a candidate), so it is kept per those."""
    key = (getattr(session, "version", None), session.usage, session.usage.version, cluster_queue, priority,
           created, fr, val)
    cache = session.__dict__.setdefault("_oracle_cache", {})
    if key[0] is not None and key in cache:
        return cache[key]
    if len(cache) > 100_000:
        cache.clear()
    cache[key] = got = _oracle(session, cluster_queue, preemptor_key, priority, created, fr, val)
    return got


def _oracle(session, cluster_queue: str, preemptor_key: str, priority: int, created, fr: FR,
            val: int) -> tuple[str, int]:
    p = Preemptor(preemptor_key, cluster_queue, priority, created, {fr: val}, frozenset({fr}))
    snap = Snapshot(session)
    if node_id(cluster_queue, False) not in snap.tree.nodes:
        return NO_CANDIDATES, 0
    targets = search(snap, p)
    height = snap.lowest_subtree_that_fits(cluster_queue, fr, val)[0]
    if not targets:
        return NO_CANDIDATES, height
    return (PREEMPT if any(t.cluster_queue == cluster_queue for t in targets) else RECLAIM), height


def lowest_subtree(session, cluster_queue: str, fr: FR, val: int) -> tuple[int, bool]:
    """Q4 on the session's usage: the borrowing height of `val` more of `fr` in the queue, and
    whether the queue may reclaim within part of the hierarchy (the flavor assigner asks the
    oracle when it may, §2 A2)."""
    if node_id(cluster_queue, False) not in session.compiler.tree.nodes:
        return 0, False
    return Snapshot(session).lowest_subtree_that_fits(cluster_queue, fr, val)


def fair_share(session, node_id: str, extra: dict[FR, int] | None = None) -> Share:
    """D1–D2: the dominant resource share of a quota node (`cq:NAME` / `cohort:NAME`) on the
    session's usage, with `extra` added to the node's own usage. Shares compare as Kueue's
    `CompareDRS`; `.value` is the weighted share (+inf for a zero weight that borrows)."""
    return Snapshot(session).share(node_id, extra)


# --- the fair-sharing admission tournament (§4 T1–T2) ---------------------------------------------

Entry = tuple  # (workload, cluster queue name, usage {FR: milli})


@dataclass
class _Contender:
    pos: int
    entry: Entry
    wl: Workload
    cq: str
    usage: dict[FR, int]
    shares: dict[str, Share] = field(default_factory=dict)  # parent cohort -> share of the child on the path


def _pick(snap: Snapshot, entries: list[Entry]) -> int:
    """The position of the entry Kueue processes next."""
    tree = snap.tree
    order = sorted(range(len(entries)), key=lambda i: (entries[i][1], i))
    first = order[0]
    nid = node_id(entries[first][1], False)
    if nid not in tree.nodes or tree.nodes[nid].parent is None:
        return first  # queues without a cohort: in name order
    root = tree.root(nid)
    members: dict[str, list[_Contender]] = {}
    for i in order:
        wl, cq, usage = entries[i]
        n = node_id(cq, False)
        if n not in tree.nodes or tree.nodes[n].parent is None or tree.root(n) != root:
            continue
        c = _Contender(i, entries[i], wl, cq, dict(usage))
        snap.plus(cq, c.usage)
        s = snap.share(n)
        for anc in snap.ancestors(n):
            c.shares[anc] = s
            s = snap.share(anc)
        snap.sub(cq, c.usage)
        members.setdefault(n, []).append(c)

    def less(a: _Contender, b: _Contender, cohort: str) -> bool:
        sa, sb = a.shares[cohort], b.shares[cohort]
        ba, bb = sa.borrows_on(a.usage), sb.borrows_on(b.usage)
        if ba != bb:  # FairSharingPrioritizeNonBorrowing
            return not ba
        c = compare_shares(sa, sb)
        if c != 0:
            return c < 0
        pa, pb = snap.index.priority(a.wl), snap.index.priority(b.wl)
        if pa != pb:
            return pa > pb
        return a.wl.created < b.wl.created

    def run(cohort: str) -> _Contender | None:
        nodes = tree.nodes
        children = sorted(nodes[cohort].children, key=lambda n: nodes[n].name)
        pool: list[_Contender] = [w for w in (run(ch) for ch in children if nodes[ch].is_cohort) if w is not None]
        for ch in children:
            if not nodes[ch].is_cohort:
                pool += members.get(ch, [])
        if not pool:
            return None
        best = pool[0]
        for cur in pool[1:]:
            if less(cur, best, cohort):
                best = cur
        return best

    winner = run(root)
    assert winner is not None
    return winner.pos


def fair_pick(session, entries: list[Entry], usage: Usage | None = None) -> Entry:
    """T1–T2: the entry Kueue's fair-sharing iterator processes next, against `usage` (default:
    the session's). An entry is (workload, cluster queue, usage {FR: milli})."""
    return entries[_pick(Snapshot(session, usage), list(entries))]


def fair_order(session, entries: list[Entry]) -> list[Entry]:
    """The entries in the order Kueue's fair-sharing iterator processes them: one pick at a time,
    each pick's usage added (on a copy of the session's usage) before the next. Queues without a
    cohort come in name order; a cohort tree's pick is its tournament's winner."""
    snap = Snapshot(session)
    left = list(entries)
    out: list[Entry] = []
    while left:
        e = left.pop(_pick(snap, left))
        out.append(e)
        if node_id(e[1], False) in snap.tree.nodes:
            snap.plus(e[1], dict(e[2]))
    return out
