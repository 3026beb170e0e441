"""Kueue's hierarchical quota arithmetic: subtree quota, usage, available and potential capacity.

Mirrors `pkg/cache/resource_node.go` and `clusterqueue_snapshot.go`. Every cluster queue and
cohort is a node holding, per `fr = (flavor, resource)`:

- `quotas[fr]`: its own nominal quota and optional borrowing/lending limits;
- `subtree[fr]`: for a cluster queue its nominal; for a cohort its own nominal plus, over its
  children, `child.subtree - guaranteed(child)`;
- `usage[fr]`: for a cluster queue the sum over its admitted workloads; for a cohort, over its
  children, `max(0, child.usage - guaranteed(child))`;

where `guaranteed(n) = max(0, n.subtree - lending_limit)` when a lending limit is set, else 0
(the part of the node's quota that is never lent to its parent).

- `available(root) = subtree - usage`; below the root
  `available(n) = max(0, guaranteed(n) - usage(n)) + parent_part`, with `parent_part =
  available(parent)`, capped when a borrowing limit is set at `stored - used + borrowing_limit`
  (`stored = subtree - guaranteed`, `used = max(0, usage - guaranteed)`). It can be negative
  when a tree is over-admitted; `ClusterQueueSnapshot.Available` clamps it at 0, as we do.
- `potential(root) = subtree`; below the root `potential(n) = guaranteed(n) + potential(parent)`,
  capped at `subtree + borrowing_limit` when a borrowing limit is set ("maximum capacity").
- Adding usage to a cluster queue bubbles the part beyond its unused guaranteed quota up to the
  parent, recursively, which keeps every cohort's usage equal to the formula above.
- The borrowing height of a request (`FindHeightOfLowestSubtreeThatFits`) is 0 when the queue's
  usage plus the request stays within its nominal quota (or it has no cohort); otherwise the
  height of the lowest ancestor whose usage plus the remaining request fits its subtree quota,
  the remaining request shrinking by each node's unused guaranteed quota on the way up; the
  height of the root when none fits. A cohort's height is the longest path down to a cluster
  queue (1 for a cohort of cluster queues only).

Deviation, on purpose: a cluster queue gets nothing (available and potential 0) in a flavor and
resource it declares no quota for; Kueue's webhook makes every flavor of a resource group list
every covered resource, so this only matters for models the validator rejects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.index import ModelIndex
from kadmit.model import ResourceGroup

FR = tuple[str, str]  # (flavor, resource)


@dataclass(frozen=True)
class Limits:
    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None


@dataclass(eq=False)
class Node:
    """One cluster queue or cohort of the quota tree."""

    name: str
    is_cluster_queue: bool
    quotas: dict[FR, Limits]
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    subtree: dict[FR, int] = field(default_factory=dict)
    usage: dict[FR, int] = field(default_factory=dict)
    kept: dict[FR, int] = field(default_factory=dict)  # guaranteed quota, fixed with the subtree

    def guaranteed(self, fr: FR) -> int:
        return self.kept.get(fr, 0)

    def local_available(self, fr: FR) -> int:
        return max(0, self.guaranteed(fr) - self.usage.get(fr, 0))

    def height(self) -> int:
        """Longest path down to a cluster queue; 0 for a cluster queue."""
        if self.is_cluster_queue:
            return 0
        best = 1 if self.children else 0
        for child in self.children:
            if not child.is_cluster_queue:
                best = max(best, child.height() + 1)
        return best


def quotas_of(groups: tuple[ResourceGroup, ...]) -> dict[FR, Limits]:
    """(flavor, resource) -> limits; the first entry of a repeated pair wins."""
    out: dict[FR, Limits] = {}
    for rg in groups:
        for fq in rg.flavors:
            for rq in fq.resources:
                out.setdefault((fq.flavor, rq.resource),
                               Limits(rq.nominal, rq.borrowing_limit, rq.lending_limit))
    return out


def cohorts_in_cycles(index: ModelIndex) -> set[str]:
    """Cohorts whose chain of parents runs into a cycle (Kueue skips them and their queues)."""
    bad: set[str] = set()
    for name in index.cohorts:
        seen: list[str] = []
        cur: str | None = name
        while cur and cur in index.cohorts:
            if cur in seen or cur in bad:
                bad.update(seen)
                break
            seen.append(cur)
            cur = index.cohorts[cur].parent
    return bad


class QuotaTree:
    """The mutable quota tree of a model: quotas fixed at construction, usage added later."""

    def __init__(self, index: ModelIndex) -> None:
        self.cycles = cohorts_in_cycles(index)
        self.cohorts: dict[str, Node] = {}
        for name in sorted(index.cohorts):
            if name not in self.cycles:
                self.cohorts[name] = Node(name, False, quotas_of(index.cohorts[name].resource_groups))
        for name, node in self.cohorts.items():
            parent = index.cohorts[name].parent
            if parent and parent in self.cohorts:
                node.parent = self.cohorts[parent]
                node.parent.children.append(node)
        self.queues: dict[str, Node] = {}
        self._potential: dict[tuple[str, FR], int] = {}
        for name in sorted(index.cluster_queues):
            cq = index.cluster_queues[name]
            node = Node(name, True, quotas_of(cq.resource_groups))
            if cq.cohort and cq.cohort in self.cohorts:
                node.parent = self.cohorts[cq.cohort]
                node.parent.children.append(node)
            self.queues[name] = node
        for node in self.cohorts.values():
            if node.parent is None:
                _fill_subtree(node)
        for node in self.queues.values():
            if node.parent is None:
                _fill_subtree(node)

    def add_usage(self, cq: str, usage: dict[FR, int]) -> None:
        """Add a workload's usage to a cluster queue, bubbling the excess up the tree."""
        node = self.queues[cq]
        for fr, val in usage.items():
            n: Node | None = node
            while n is not None and val:
                local = n.local_available(fr)
                n.usage[fr] = n.usage.get(fr, 0) + val
                val = val - local if val > local else 0
                n = n.parent

    def remove_usage(self, cq: str, usage: dict[FR, int]) -> None:
        """Take a workload's usage back out of a cluster queue: the exact inverse of `add_usage`
        (each node passes up the change of the part beyond its guaranteed quota)."""
        node = self.queues[cq]
        for fr, val in usage.items():
            n: Node | None = node
            while n is not None and val:
                before = max(0, n.usage.get(fr, 0) - n.guaranteed(fr))
                n.usage[fr] = n.usage.get(fr, 0) - val
                val = before - max(0, n.usage[fr] - n.guaranteed(fr))
                n = n.parent

    def available(self, cq: str, fr: FR) -> int:
        """What the queue can still use in `fr` without preemption (clamped at 0)."""
        node = self.queues[cq]
        if fr not in node.quotas:
            return 0
        return max(0, _available(node, fr))

    def potential_available(self, cq: str, fr: FR) -> int:
        """The largest request the queue could ever admit in `fr` ("maximum capacity")."""
        key = (cq, fr)
        if key not in self._potential:
            node = self.queues[cq]
            self._potential[key] = _potential(node, fr) if fr in node.quotas else 0
        return self._potential[key]

    def borrowing_height(self, cq: str, fr: FR, val: int) -> int:
        """Kueue's `FindHeightOfLowestSubtreeThatFits`: 0 when no borrowing is needed."""
        node = self.queues[cq]
        nominal = node.quotas[fr].nominal if fr in node.quotas else 0
        if node.usage.get(fr, 0) + val <= nominal or node.parent is None:
            return 0
        remaining = val - node.local_available(fr)
        n = node.parent
        root = n
        while n is not None:
            if n.usage.get(fr, 0) + remaining <= n.subtree.get(fr, 0):
                return n.height()
            remaining -= n.local_available(fr)
            root = n
            n = n.parent
        return root.height()

    def lowest_subtree_that_fits(self, cq: str, fr: FR, val: int) -> tuple[int, bool]:
        """`FindHeightOfLowestSubtreeThatFits` with its second answer: (borrowing height, whether
        the subtree found is smaller than the whole tree, i.e. the queue could reclaim within a
        part of the hierarchy). A queue that doesn't borrow answers (0, has a cohort)."""
        node = self.queues[cq]
        if not borrowing_with(node, fr, val) or node.parent is None:
            return 0, node.parent is not None
        remaining = val - node.local_available(fr)
        n = node.parent
        while n.parent is not None and borrowing_with(n, fr, remaining):
            remaining -= n.local_available(fr)
            n = n.parent
        return n.height(), n.parent is not None

    def node_potential(self, node: Node, fr: FR) -> int:
        """`potentialAvailable` of any node, cohort or queue (the queue deviation above aside)."""
        return _potential(node, fr)

    def fits(self, cq: str, usage: dict[FR, int]) -> bool:
        """`ClusterQueueSnapshot.Fits`: every (flavor, resource) of the usage is available."""
        return all(self.available(cq, fr) >= q for fr, q in usage.items())


def borrowing_with(node: Node, fr: FR, val: int) -> bool:
    """Kueue's `BorrowingWith`: the node's usage plus `val` goes beyond its subtree quota."""
    return node.usage.get(fr, 0) + val > node.subtree.get(fr, 0)


def within_nominal(node: Node, frs) -> bool:
    """Kueue's `IsWithinNominalInResources`: no flavor-resource of `frs` is used beyond the
    node's subtree quota."""
    return all(node.usage.get(fr, 0) <= node.subtree.get(fr, 0) for fr in frs)


def fit_in_quota(node: Node, requests: dict[FR, int]) -> tuple[bool, dict[FR, int]]:
    """Kueue's `QuantitiesFitInQuota`: whether the requests fit the node's subtree quota on top
    of its usage, and what is left of them beyond the node's unused guaranteed quota (what
    the parent has to provide)."""
    fits = all(node.usage.get(fr, 0) + v <= node.subtree.get(fr, 0) for fr, v in requests.items())
    return fits, {fr: max(0, v - node.local_available(fr)) for fr, v in requests.items()}


def ancestors(node: Node) -> list[Node]:
    """The cohorts above a node, parent first (Kueue's `PathParentToRoot`)."""
    out: list[Node] = []
    n = node.parent
    while n is not None:
        out.append(n)
        n = n.parent
    return out


def _fill_subtree(node: Node) -> None:
    node.subtree = {fr: q.nominal for fr, q in node.quotas.items()}
    for child in node.children:
        _fill_subtree(child)
        for fr, q in child.subtree.items():
            node.subtree[fr] = node.subtree.get(fr, 0) + q - child.guaranteed(fr)
    node.kept = {fr: max(0, node.subtree.get(fr, 0) - q.lending_limit)
                 for fr, q in node.quotas.items() if q.lending_limit is not None}


def _available(node: Node, fr: FR) -> int:
    if node.parent is None:
        return node.subtree.get(fr, 0) - node.usage.get(fr, 0)
    parent_part = _available(node.parent, fr)
    q = node.quotas.get(fr)
    if q is not None and q.borrowing_limit is not None:
        g = node.guaranteed(fr)
        stored = node.subtree.get(fr, 0) - g
        used = max(0, node.usage.get(fr, 0) - g)
        parent_part = min(stored - used + q.borrowing_limit, parent_part)
    return node.local_available(fr) + parent_part


def _potential(node: Node, fr: FR) -> int:
    if node.parent is None:
        return node.subtree.get(fr, 0)
    out = node.guaranteed(fr) + _potential(node.parent, fr)
    q = node.quotas.get(fr)
    if q is not None and q.borrowing_limit is not None:
        out = min(node.subtree.get(fr, 0) + q.borrowing_limit, out)
    return out
