"""The simulation snapshot preemption searches on: usage and candidates, shares (D1–D2), fill-back (C8)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import total_ordering

from kadmit.engine.quota import FR, QuotaTree, Usage, node_id
from kadmit.engine.preemption.candidates import (Candidate, Preemptor, Victim, candidates_by_queue, ranked_by_queue,
                                                 ranked_using, sums_of, using_sums)


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
        """Kueue's `zeroWeightBorrows`: a zero weight with a non-zero ratio (`!IsZero`)."""
        return self.weight == 0 and self.ratio != 0

    @property
    def value(self) -> float:
        """Kueue's `PreciseWeightedShare`: 0 without a ratio (even when borrowing what the parent
        has nothing to lend of), +inf for a zero weight, else ratio / weight."""
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return math.inf
        return self.ratio / self.weight

    def key(self) -> tuple:
        return (1, self.ratio) if self.zero_weight_borrows else (0, self.value)

    def borrows_on(self, requests: dict[FR, int]) -> bool:
        """`IsBorrowingOn`: borrowing in a flavor-resource the entry requests a positive amount of
        (a zero request doesn't count)."""
        return any(requests.get(fr, 0) > 0 for fr in self.borrowing)

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
                 placeable: Callable[[frozenset[str]], bool] | None = None, copy: bool = True) -> None:
        """`copy=False` (`reading`): over the usage itself, for questions that change nothing."""
        self.session = session
        self.reading_only = not copy
        self.placeable = placeable  # topology-aware scheduling: does it fit with these workloads gone?
        self.removed: set[str] = set()
        self.tree: QuotaTree = session.compiler.tree
        self.index = session.index
        self.usage = usage if usage is not None else session.usage
        if copy:
            self.usage = self.usage.copy()
        self.live: dict[str, dict[str, Candidate]] = {}  # per queue, copied from `_by_queue` when first read
        self._by_queue: dict[str, dict[str, Candidate]] | None = None
        self._ranked: dict[str, tuple[Candidate, ...]] | None = None
        self._frs: dict[str, frozenset[FR]] = {}
        self._lendable: dict[str, dict[str, int]] = {}

    @classmethod
    def reading(cls, session) -> "Snapshot":
        """A snapshot over the session's usage as it is, not copied (nor its computed cohort usage
        thrown away): for the predicates only; removing or adding workloads raises."""
        return cls(session, copy=False)

    # --- workloads ---

    def load_candidates(self) -> None:
        if self._by_queue is None:
            self._by_queue = candidates_by_queue(self.session)

    def _row(self, cq: str) -> dict[str, Candidate]:
        row = self.live.get(cq)
        if row is None:
            self.load_candidates()
            assert self._by_queue is not None
            row = self.live[cq] = dict(self._by_queue.get(cq, {}))
        return row

    def admitted(self, cq: str) -> list[Candidate]:
        return [c for _, c in sorted(self._row(cq).items())]

    def ranked(self, cq: str):
        """The queue's admitted workloads in `Candidate.rank` order (the session's, shared, while
        this snapshot has not changed the queue)."""
        if cq in self.live:
            return sorted(self.live[cq].values(), key=lambda c: c.rank)
        if self._ranked is None:
            self.load_candidates()
            self._ranked = ranked_by_queue(self.session)
        return self._ranked.get(cq, ())

    def ranked_using(self, cq: str, needs: frozenset[FR], below: int | None = None):
        """`ranked(cq)` but only the candidates using a flavor-resource of `needs`, of priority below
        `below` (None: any); the session's shared list while this snapshot has not changed the queue."""
        if cq in self.live:
            return [c for c in self.ranked(cq) if (below is None or c.priority < below) and not needs.isdisjoint(c.frs)]
        return ranked_using(self.session, cq, needs, below)

    def using_sums(self, cq: str, needs: frozenset[FR], below: int | None, frs: tuple[FR, ...],
                   bound: int | None) -> tuple[int, tuple[int, ...]]:
        """`sums_of(self.ranked_using(cq, needs, below), frs, bound)`, kept with the session's list while
        this snapshot has not changed the queue."""
        if cq in self.live:
            return sums_of(self.ranked_using(cq, needs, below), frs, bound)
        return using_sums(self.session, cq, needs, below, frs, bound)

    def find(self, key: str) -> Candidate | None:
        self.load_candidates()
        assert self._by_queue is not None
        for cq in sorted(self._by_queue.keys() | self.live.keys()):
            got = self._row(cq).get(key)
            if got is not None:
                return got
        return None

    def remove(self, c: Candidate) -> None:
        del self._row(c.cluster_queue)[c.key]
        self.sub(c.cluster_queue, c.amounts)
        self.removed.add(c.key)

    def add(self, c: Candidate) -> None:
        self._row(c.cluster_queue)[c.key] = c
        self.plus(c.cluster_queue, c.amounts)
        self.removed.discard(c.key)

    def plus(self, cq: str, amounts: dict[FR, int]) -> None:
        if self.reading_only:
            raise RuntimeError("a reading snapshot shares the session's usage: it can't change")
        self.usage.add(cq, amounts)

    def sub(self, cq: str, amounts: dict[FR, int]) -> None:
        self.plus(cq, {fr: -v for fr, v in amounts.items()})

    # --- the tree ---

    def parent(self, nid: str) -> str | None:
        return self.tree.nodes[nid].parent

    def ancestors(self, nid: str) -> list[str]:
        """Parent first, root last (Kueue's `PathParentToRoot`)."""
        return self.tree.path(nid)[1:]

    def used(self, nid: str, fr: FR) -> int:
        node = self.tree.nodes[nid]
        if not node.is_cohort:  # a queue's own row (`QuotaTree.usage`'s first case, inlined: asked most)
            row = self.usage.data.get(node.name)
            return row.get(fr, 0) if row is not None else 0
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
        tree = self.tree
        entry = tree.nodes[nid].quotas.get(fr)  # (`QuotaTree.entry`, inlined)
        if entry is None or not entry.declared:
            return 0
        return max(0, tree.available(nid, fr, self.usage))

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
            for cur in self.tree.bottom_up(nid, lambda n: n in self._frs):
                if cur not in self._frs:
                    node = self.tree.nodes[cur]
                    out = set(node.quotas)
                    for ch in node.children:
                        out |= self._frs[ch]
                    self._frs[cur] = frozenset(out)
            got = self._frs[nid]
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


def victims_of(targets: list[tuple[Candidate, str]]) -> list[Victim]:
    return [Victim(c.key, c.cluster_queue, reason, c.priority) for c, reason in targets]
