"""Kueue's quota tree, read from `pkg/cache/scheduler/resource_node.go` and its snapshots.

Every ClusterQueue and Cohort is a resource node holding, per flavor-resource `fr`:

- `quotas[fr]`: the node's own `ResourceQuota` (nominal, optional borrowing / lending limit);
- `subtree_quota[fr]`: a ClusterQueue's nominal; a Cohort's nominal plus, from each child,
  the child's subtree quota minus the child's local quota (`accumulateFromChild`);
- `usage[fr]`: a ClusterQueue's admitted usage; a Cohort's sum over its children of the part of
  their usage beyond their local quota.

`localQuota` is what a node keeps for itself when it has a lending limit:
`max(0, subtree_quota - lending_limit)`; 0 without one. The functions below follow Kueue's
`LocalAvailable`, `available`, `potentialAvailable`, `addUsage`, `removeUsage`,
`QuantitiesFitInQuota`, `IsWithinNominalInResources`, `BorrowingWith`, `getNodeHeight` and
`FindHeightOfLowestSubtreeThatFits`, one to one. Kueue writes them as recursion over the parent
link; here they walk the list of ancestors instead, which computes the same values.

Deviation, on purpose: a ClusterQueue gets nothing (available and potential 0) in a flavor and
resource it declares no quota for; Kueue's webhook makes every flavor of a resource group list
every covered resource, so this only matters for models the validator rejects.
"""

from __future__ import annotations

from kadmit.index import ModelIndex
from kadmit.model import ResourceGroup

FR = tuple[str, str]  # (flavor, resource): Kueue's resources.FlavorResource


class ResourceQuota:
    """Kueue's `ResourceQuota` of one flavor-resource."""

    __slots__ = ("nominal", "borrowing_limit", "lending_limit")

    def __init__(self, nominal: int, borrowing_limit: int | None, lending_limit: int | None) -> None:
        self.nominal = nominal
        self.borrowing_limit = borrowing_limit
        self.lending_limit = lending_limit


class ResourceNode:
    """A ClusterQueue or a Cohort of the tree (Kueue's `ClusterQueueSnapshot` / `CohortSnapshot`
    reduced to their `resourceNode` and their place in the hierarchy)."""

    def __init__(self, name: str, is_cluster_queue: bool, quotas: dict[FR, ResourceQuota]) -> None:
        self.name = name
        self.is_cluster_queue = is_cluster_queue
        self.quotas = quotas
        self.subtree_quota: dict[FR, int] = {}
        self.usage: dict[FR, int] = {}
        self.parent: ResourceNode | None = None
        self.child_cohorts: list[ResourceNode] = []  # in name order
        self.child_cqs: list[ResourceNode] = []  # in name order

    @property
    def children(self) -> list[ResourceNode]:
        return self.child_cohorts + self.child_cqs


def quotas_of(groups: tuple[ResourceGroup, ...]) -> dict[FR, ResourceQuota]:
    """A spec's resource groups as quotas per flavor-resource (the first entry of a pair wins)."""
    entries = [(fq.flavor, rq) for group in groups for fq in group.flavors for rq in fq.resources]
    quotas: dict[FR, ResourceQuota] = {}
    for flavor, rq in entries:
        quotas.setdefault((flavor, rq.resource), ResourceQuota(rq.nominal, rq.borrowing_limit, rq.lending_limit))
    return quotas


# --- resource_node.go ---------------------------------------------------------------------------

def path_parent_to_root(node: ResourceNode) -> list[ResourceNode]:
    """`PathParentToRoot`: the cohorts above the node, its parent first."""
    path = []
    up = node.parent
    while up is not None:
        path.append(up)
        up = up.parent
    return path


def root_of(node: ResourceNode) -> ResourceNode:
    while node.parent is not None:
        node = node.parent
    return node


def local_quota(node: ResourceNode, fr: FR) -> int:
    quota = node.quotas.get(fr)
    if quota is None or quota.lending_limit is None:
        return 0
    return max(0, node.subtree_quota.get(fr, 0) - quota.lending_limit)


def local_available(node: ResourceNode, fr: FR) -> int:
    return max(0, local_quota(node, fr) - node.usage.get(fr, 0))


def available(node: ResourceNode, fr: FR) -> int:
    """Kueue's `available` (unclamped; it is negative in an over-admitted tree): the root's
    subtree quota minus its usage, then, down the path to the node, at each node its local
    available plus what its parent can give, capped by the node's borrowing limit."""
    path = [node] + path_parent_to_root(node)
    top = path[-1]
    from_parent = top.subtree_quota.get(fr, 0) - top.usage.get(fr, 0)
    for below in reversed(path[:-1]):
        quota = below.quotas.get(fr)
        if quota is not None and quota.borrowing_limit is not None:
            kept = local_quota(below, fr)
            stored_in_parent = below.subtree_quota.get(fr, 0) - kept
            used_in_parent = max(0, below.usage.get(fr, 0) - kept)
            from_parent = min(stored_in_parent - used_in_parent + quota.borrowing_limit, from_parent)
        from_parent = local_available(below, fr) + from_parent
    return from_parent


def potential_available(node: ResourceNode, fr: FR) -> int:
    """Kueue's `potentialAvailable`: what the node could use with nothing admitted anywhere."""
    path = [node] + path_parent_to_root(node)
    result = path[-1].subtree_quota.get(fr, 0)
    for below in reversed(path[:-1]):
        result = local_quota(below, fr) + result
        quota = below.quotas.get(fr)
        if quota is not None and quota.borrowing_limit is not None:
            result = min(below.subtree_quota.get(fr, 0) + quota.borrowing_limit, result)
    return result


def add_usage(node: ResourceNode | None, fr: FR, val: int) -> None:
    """Kueue's `addUsage`: the part beyond the node's local available goes to its parent."""
    while node is not None:
        room = local_available(node, fr)
        node.usage[fr] = node.usage.get(fr, 0) + val
        if val <= room:
            return
        val -= room
        node = node.parent


def remove_usage(node: ResourceNode | None, fr: FR, val: int) -> None:
    """Kueue's `removeUsage`: the parent gives back as much as the node had stored in it."""
    while node is not None:
        stored_in_parent = node.usage.get(fr, 0) - local_quota(node, fr)
        node.usage[fr] = node.usage.get(fr, 0) - val
        if stored_in_parent <= 0:
            return
        val = min(val, stored_in_parent)
        node = node.parent


def quantities_fit_in_quota(node: ResourceNode, requests: dict[FR, int]) -> tuple[bool, dict[FR, int]]:
    """`QuantitiesFitInQuota`: whether the requests fit the node's subtree quota on top of its
    usage, and the requests left for the parent once the node's local available is used."""
    fits = True
    remaining: dict[FR, int] = {}
    for fr, val in requests.items():
        if node.usage.get(fr, 0) + val > node.subtree_quota.get(fr, 0):
            fits = False
        remaining[fr] = max(0, val - local_available(node, fr))
    return fits, remaining


def is_within_nominal_in_resources(node: ResourceNode, frs) -> bool:
    """`IsWithinNominalInResources`: no flavor-resource of `frs` used beyond the subtree quota."""
    for fr in frs:
        if node.usage.get(fr, 0) > node.subtree_quota.get(fr, 0):
            return False
    return True


def borrowing_with(node: ResourceNode, fr: FR, val: int) -> bool:
    """`BorrowingWith`: usage plus `val` goes beyond the node's (subtree) quota."""
    return node.usage.get(fr, 0) + val > node.subtree_quota.get(fr, 0)


def node_height(cohort: ResourceNode) -> int:
    """`getNodeHeight`: the distance from a cohort down to its furthest leaf (1 for a cohort of
    ClusterQueues only, 0 for an empty one)."""
    best = 0
    stack = [(cohort, 0)]
    while stack:
        node, depth = stack.pop()
        if node.child_cqs or node.child_cohorts:
            best = max(best, depth + 1)
        stack.extend((child, depth + 1) for child in node.child_cohorts)
    return best


def find_height_of_lowest_subtree_that_fits(cq: ResourceNode, fr: FR, val: int) -> tuple[int, bool]:
    """`FindHeightOfLowestSubtreeThatFits`: (height, whether that subtree is smaller than the
    whole cohort tree); (0, has a parent) when the queue doesn't borrow."""
    if cq.parent is None or not borrowing_with(cq, fr, val):
        return 0, cq.parent is not None
    remaining = val - local_available(cq, fr)
    for cohort in path_parent_to_root(cq):
        if not borrowing_with(cohort, fr, remaining):
            return node_height(cohort), cohort.parent is not None
        remaining -= local_available(cohort, fr)
    return node_height(root_of(cq)), False


# --- the tree of a model ------------------------------------------------------------------------

def cohorts_in_cycles(index: ModelIndex) -> set[str]:
    """Cohorts whose chain of parents runs into a cycle (Kueue skips them and their queues)."""
    in_cycle: set[str] = set()
    for start in index.cohorts:
        chain: list[str] = []
        name: str | None = start
        while name and name in index.cohorts:
            if name in in_cycle or name in chain:
                in_cycle.update(chain)
                break
            chain.append(name)
            name = index.cohorts[name].parent
    return in_cycle


class QuotaTree:
    """The resource nodes of a model: quotas fixed when built, usage added and removed later.
    Methods take ClusterQueue names; `cohorts` and `queues` map names to nodes."""

    def __init__(self, index: ModelIndex) -> None:
        self.cycles = cohorts_in_cycles(index)
        self.cohorts: dict[str, ResourceNode] = {}
        self.queues: dict[str, ResourceNode] = {}
        for name in sorted(index.cohorts):
            if name not in self.cycles:
                self.cohorts[name] = ResourceNode(name, False, quotas_of(index.cohorts[name].resource_groups))
        for name in sorted(self.cohorts):
            parent = index.cohorts[name].parent
            if parent in self.cohorts:
                self.cohorts[name].parent = self.cohorts[parent]
                self.cohorts[parent].child_cohorts.append(self.cohorts[name])
        for name in sorted(index.cluster_queues):
            spec = index.cluster_queues[name]
            node = ResourceNode(name, True, quotas_of(spec.resource_groups))
            self.queues[name] = node
            if spec.cohort in self.cohorts:
                node.parent = self.cohorts[spec.cohort]
                node.parent.child_cqs.append(node)
        roots = [n for n in self.cohorts.values() if n.parent is None]
        roots += [n for n in self.queues.values() if n.parent is None]
        for root in roots:
            _update_resource_node(root)
        self._potential: dict[tuple[str, FR], int] = {}

    def add_usage(self, cq: str, usage: dict[FR, int]) -> None:
        for fr, val in usage.items():
            if val:
                add_usage(self.queues[cq], fr, val)

    def remove_usage(self, cq: str, usage: dict[FR, int]) -> None:
        for fr, val in usage.items():
            if val:
                remove_usage(self.queues[cq], fr, val)

    def available(self, cq: str, fr: FR) -> int:
        """`ClusterQueueSnapshot.Available`: clamped at 0."""
        node = self.queues[cq]
        if fr not in node.quotas:
            return 0
        return max(0, available(node, fr))

    def potential_available(self, cq: str, fr: FR) -> int:
        """`ClusterQueueSnapshot.PotentialAvailable` ("maximum capacity"); quotas never change."""
        if (cq, fr) not in self._potential:
            node = self.queues[cq]
            self._potential[(cq, fr)] = potential_available(node, fr) if fr in node.quotas else 0
        return self._potential[(cq, fr)]

    def borrowing_height(self, cq: str, fr: FR, val: int) -> int:
        return find_height_of_lowest_subtree_that_fits(self.queues[cq], fr, val)[0]

    def fits(self, cq: str, usage: dict[FR, int]) -> bool:
        """`ClusterQueueSnapshot.Fits`: every flavor-resource of the usage is available."""
        for fr, val in usage.items():
            if self.available(cq, fr) < val:
                return False
        return True


def _update_resource_node(root: ResourceNode) -> None:
    """`updateCohortResourceNode` from a root: subtree quotas bottom-up (children before their
    parent, each child's contribution its subtree quota minus its local quota)."""
    order = [root]  # breadth first: every node before its children
    for node in order:
        order.extend(node.children)
    for node in reversed(order):
        node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}
        for child in node.children:
            for fr, amount in child.subtree_quota.items():
                node.subtree_quota[fr] = node.subtree_quota.get(fr, 0) + amount - local_quota(child, fr)
