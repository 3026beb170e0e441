"""Kueue's hierarchical quota arithmetic per (flavor, resource), over the cohort tree.

For one flavor-resource `fr` every node of the tree (cluster queue or cohort) has:
- `subtree` S: a cluster queue's nominal quota; a cohort's own nominal plus, for each child,
  what the child puts in the pool: S(child) - G(child).
- `guaranteed` G: max(0, S - lending_limit) when a lending limit is set, else 0 — what the node
  keeps for itself and never lends.
- `usage` U: a cluster queue's admitted usage; a cohort's is the sum over children of the part of
  their usage they take from the pool, max(0, U(child) - G(child)).
A request R fits a cluster queue when, with R added to its usage, every node on the path to the root
still holds: U <= S + borrowing_limit at a node with a parent and a borrowing limit, and U <= S at the
root. (This is the invariant form of Kueue's `available()`; `available` below computes the number.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.index import ModelIndex
from kadmit.model import ResourceGroup

FR = tuple[str, str]  # (flavor, resource)


@dataclass(frozen=True)
class QuotaEntry:
    """One node's own quota for one flavor-resource, with where each number came from."""

    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None
    declared: bool = False  # the node lists this flavor-resource at all


_NO_QUOTA = QuotaEntry()


@dataclass
class QuotaNode:
    name: str
    is_cohort: bool
    parent: str | None
    children: list[str] = field(default_factory=list)  # node ids
    quotas: dict[FR, QuotaEntry] = field(default_factory=dict)


def node_id(name: str, is_cohort: bool) -> str:
    return ("cohort:" if is_cohort else "cq:") + name


def _quotas(groups: tuple[ResourceGroup, ...]) -> dict[FR, QuotaEntry]:
    out: dict[FR, QuotaEntry] = {}
    for g in groups:
        for fq in g.flavors:
            for rq in fq.resources:
                out.setdefault((fq.flavor, rq.resource), QuotaEntry(
                    rq.nominal, rq.borrowing_limit, rq.lending_limit, True))
    return out


class QuotaTree:
    """The cohort forest of a model, with Kueue's quota numbers computed on demand."""

    def __init__(self, index: ModelIndex) -> None:
        self.index = index
        self.nodes: dict[str, QuotaNode] = {}
        path_ok = {c: index.cohort_path(c) for c in index.cohorts}
        self.cycles: set[str] = set()  # cohorts on or below a cycle of parents
        for c in index.cohorts:
            seen: list[str] = []
            cur: str | None = c
            while cur is not None and cur in index.cohorts and cur not in seen:
                seen.append(cur)
                cur = index.cohorts[cur].parent
            if cur is not None and cur in seen:
                self.cycles.add(c)
        for c in sorted(index.cohorts.values(), key=lambda c: c.name):
            parent = c.parent if c.parent in index.cohorts else None
            # a cohort caught in a cycle is treated as a root (the validator reports the cycle)
            if parent is not None and c.name in path_ok.get(parent, []):
                parent = None
            self.nodes[node_id(c.name, True)] = QuotaNode(
                c.name, True, node_id(parent, True) if parent else None, [], _quotas(c.resource_groups))
        for cq in sorted(index.cluster_queues.values(), key=lambda q: q.name):
            parent = node_id(cq.cohort, True) if cq.cohort and node_id(cq.cohort, True) in self.nodes else None
            self.nodes[node_id(cq.name, False)] = QuotaNode(cq.name, False, parent, [], _quotas(cq.resource_groups))
        for nid, node in sorted(self.nodes.items()):
            if node.parent:
                self.nodes[node.parent].children.append(nid)
        self._subtree: dict[tuple[str, FR], int] = {}
        self._guaranteed: dict[tuple[str, FR], int] = {}

    def invalidate(self, usage: "Usage | None" = None) -> None:
        """Forget computed numbers after a quota entry changed (what-if questions)."""
        self._subtree.clear()
        self._guaranteed.clear()
        if usage is not None:
            usage.memo.clear()

    # --- static numbers ------------------------------------------------------------------------

    def entry(self, nid: str, fr: FR) -> QuotaEntry:
        return self.nodes[nid].quotas.get(fr, _NO_QUOTA)

    def subtree(self, nid: str, fr: FR) -> int:
        key = (nid, fr)
        v = self._subtree.get(key)
        if v is None:
            node = self.nodes[nid]
            v = self.entry(nid, fr).nominal
            for ch in node.children:
                v += self.subtree(ch, fr) - self.guaranteed(ch, fr)
            self._subtree[key] = v
        return v

    def guaranteed(self, nid: str, fr: FR) -> int:
        key = (nid, fr)
        got = self._guaranteed.get(key)
        if got is None:
            lend = self.entry(nid, fr).lending_limit
            got = 0 if lend is None or self.nodes[nid].parent is None else max(0, self.subtree(nid, fr) - lend)
            self._guaranteed[key] = got
        return got

    def path(self, nid: str) -> list[str]:
        out = [nid]
        while self.nodes[out[-1]].parent:
            out.append(self.nodes[out[-1]].parent)  # type: ignore[arg-type]
        return out

    def root(self, nid: str) -> str:
        return self.path(nid)[-1]

    # --- numbers that depend on usage ------------------------------------------------------------

    def usage(self, nid: str, fr: FR, cq_usage: "Usage") -> int:
        node = self.nodes[nid]
        if not node.is_cohort:
            return cq_usage.get(node.name, fr)
        key = (nid, fr)
        got = cq_usage.memo.get(key)
        if got is None:
            got = sum(max(0, self.usage(ch, fr, cq_usage) - self.guaranteed(ch, fr)) for ch in node.children)
            cq_usage.memo[key] = got
        return got

    def available(self, nid: str, fr: FR, cq_usage: "Usage | None") -> int:
        """Kueue's available(): the most one more request for `fr` may take at node `nid`.
        With `cq_usage` None, usage is zero everywhere: Kueue's "maximum capacity"."""
        node = self.nodes[nid]
        used = self.usage(nid, fr, cq_usage) if cq_usage is not None else 0
        if node.parent is None:
            return self.subtree(nid, fr) - used
        g = self.guaranteed(nid, fr)
        local = max(0, g - used)
        parent_avail = self.available(node.parent, fr, cq_usage)
        borrow = self.entry(nid, fr).borrowing_limit
        if borrow is not None:
            stored = self.subtree(nid, fr) - g
            used_in_parent = max(0, used - g)
            parent_avail = min(stored - used_in_parent + borrow, parent_avail)
        return local + parent_avail

    def height(self, nid: str) -> int:
        """Longest path down to a cluster queue (0 for a cluster queue)."""
        node = self.nodes[nid]
        if not node.is_cohort:
            return 0
        return max([1 if node.children else 0] + [self.height(ch) + 1 for ch in node.children
                                                  if self.nodes[ch].is_cohort])

    def borrowing_height(self, cq: str, fr: FR, cq_usage: "Usage", val: int) -> int:
        """Kueue's FindHeightOfLowestSubtreeThatFits: 0 when `val` more stays within the queue's
        nominal quota; else the height of the lowest ancestor whose pool holds the rest."""
        nid = node_id(cq, False)
        node = self.nodes[nid]
        if cq_usage.get(cq, fr) + val <= self.subtree(nid, fr) or node.parent is None:
            return 0
        remaining = val - max(0, self.guaranteed(nid, fr) - cq_usage.get(cq, fr))
        cur: str | None = node.parent
        last = cur
        while cur is not None:
            used = self.usage(cur, fr, cq_usage)
            if used + remaining <= self.subtree(cur, fr):
                return self.height(cur)
            remaining -= max(0, self.guaranteed(cur, fr) - used)
            last = cur
            cur = self.nodes[cur].parent
        return self.height(last) if last else 0


class Usage:
    """Admitted usage per cluster queue and flavor-resource; copied, never shared, between decisions."""

    def __init__(self, data: dict[str, dict[FR, int]] | None = None) -> None:
        self.data: dict[str, dict[FR, int]] = data or {}
        self.memo: dict[tuple[str, FR], int] = {}  # cohort usage, computed by QuotaTree.usage
        self.version = 0  # bumped on every change (callers key caches on it)

    def get(self, cq: str, fr: FR) -> int:
        return self.data.get(cq, {}).get(fr, 0)

    def add(self, cq: str, amounts: dict[FR, int]) -> None:
        self.memo.clear()
        self.version += 1
        row = self.data.setdefault(cq, {})
        for fr, v in amounts.items():
            row[fr] = row.get(fr, 0) + v

    def copy(self) -> "Usage":
        return Usage({k: dict(v) for k, v in self.data.items()})
