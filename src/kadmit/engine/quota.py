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


def cohort_cycles(index: ModelIndex) -> tuple[set[str], set[str]]:
    """Cohorts on a cycle of parents, and cohorts on or below one; one walk per cohort that stops at
    the first cohort already classified, so linear in the number of cohorts."""
    cohorts = index.cohorts
    state: dict[str, int] = {}  # 1: on the walk now, 2: on or below a cycle, 3: leads to a root
    on_cycle: set[str] = set()
    for start in sorted(cohorts):
        walk: list[str] = []
        pos: dict[str, int] = {}
        cur: str | None = start
        while cur is not None and cur in cohorts and cur not in state:
            state[cur] = 1
            pos[cur] = len(walk)
            walk.append(cur)
            cur = cohorts[cur].parent
        if cur is not None and cur in pos:  # this walk closed a cycle
            on_cycle.update(walk[pos[cur]:])
            outcome = 2
        elif cur is not None and cur in state:
            outcome = state[cur]
        else:
            outcome = 3
        for c in walk:
            state[c] = outcome
    return on_cycle, {c for c, s in state.items() if s == 2}


class QuotaTree:
    """The cohort forest of a model, with Kueue's quota numbers computed on demand."""

    def __init__(self, index: ModelIndex) -> None:
        self.index = index
        self.nodes: dict[str, QuotaNode] = {}
        on_cycle, self.cycles = cohort_cycles(index)  # cycles: cohorts on or below a cycle of parents
        for c in sorted(index.cohorts.values(), key=lambda c: c.name):
            parent = c.parent if c.parent in index.cohorts else None
            # a cohort caught in a cycle is treated as a root (the validator reports the cycle)
            if c.name in on_cycle:
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
        self._height: dict[str, int] = {}
        self._root: dict[str, str] = {}
        self._potential: dict[FR, dict] = {}  # available() with no usage, per flavor-resource
        self._paths: dict[str, tuple[str, ...]] = {}  # the tree's shape never changes
        self._flat: dict[str, tuple[tuple[str, str], ...] | None] = {}  # cohort -> its (node, queue) children when all are queues
        self.epoch = 0  # moved whenever a quota entry changes (callers key caches on it)

    def invalidate(self, usage: "Usage | None" = None) -> None:
        """Forget computed numbers after a quota entry changed (what-if questions)."""
        self.epoch += 1
        self._subtree.clear()
        self._guaranteed.clear()
        self._potential.clear()
        if usage is not None:
            usage.memo.clear()

    # --- static numbers ------------------------------------------------------------------------

    def entry(self, nid: str, fr: FR) -> QuotaEntry:
        return self.nodes[nid].quotas.get(fr, _NO_QUOTA)

    def bottom_up(self, nid: str, done=None) -> list[str]:
        """The nodes under `nid` (itself included), each after its children, leaving out the subtrees
        of nodes `done(node)` says are known; iterative, so a chain of any depth costs its length."""
        out: list[str] = []
        stack = [(nid, False)]
        while stack:
            cur, expanded = stack.pop()
            if expanded:
                out.append(cur)
                continue
            if done is not None and done(cur):
                continue
            stack.append((cur, True))
            stack.extend((ch, False) for ch in self.nodes[cur].children)
        return out

    def subtree(self, nid: str, fr: FR) -> int:
        key = (nid, fr)
        v = self._subtree.get(key)
        if v is not None:
            return v
        for cur in self.bottom_up(nid, lambda n: (n, fr) in self._subtree):
            if (cur, fr) in self._subtree:
                continue
            v = self.entry(cur, fr).nominal
            for ch in self.nodes[cur].children:
                v += self._subtree[(ch, fr)] - self.guaranteed(ch, fr)
            self._subtree[(cur, fr)] = v
        return self._subtree[key]

    def guaranteed(self, nid: str, fr: FR) -> int:
        key = (nid, fr)
        got = self._guaranteed.get(key)
        if got is None:
            lend = self.entry(nid, fr).lending_limit
            got = 0 if lend is None or self.nodes[nid].parent is None else max(0, self.subtree(nid, fr) - lend)
            self._guaranteed[key] = got
        return got

    def path(self, nid: str) -> list[str]:
        return list(self._path(nid))

    def _path(self, nid: str) -> tuple[str, ...]:
        got = self._paths.get(nid)
        if got is None:
            out = [nid]
            while self.nodes[out[-1]].parent:
                out.append(self.nodes[out[-1]].parent)  # type: ignore[arg-type]
            got = self._paths[nid] = tuple(out)
        return got

    def root(self, nid: str) -> str:
        got = self._root.get(nid)
        if got is None:
            walk = [nid]
            while walk[-1] not in self._root and self.nodes[walk[-1]].parent:
                walk.append(self.nodes[walk[-1]].parent)  # type: ignore[arg-type]
            got = self._root.get(walk[-1], walk[-1])
            for n in walk:
                self._root[n] = got
        return got

    # --- numbers that depend on usage ------------------------------------------------------------

    def usage(self, nid: str, fr: FR, cq_usage: "Usage") -> int:
        node = self.nodes[nid]
        if not node.is_cohort:  # (`Usage.get`, inlined: the most frequent question of a preemption search)
            row = cq_usage.data.get(node.name)
            return row.get(fr, 0) if row is not None else 0
        memo = cq_usage.memo.get(fr)
        if memo is None:
            memo = cq_usage.memo[fr] = {}
        got = memo.get(nid)
        if got is not None:
            return got
        nodes = self.nodes
        flat = self._flat.get(nid, ())
        if flat == ():
            flat = self._flat[nid] = None if any(nodes[ch].is_cohort for ch in node.children) else tuple(
                (ch, nodes[ch].name) for ch in node.children)
        if flat is not None:  # a cohort of queues only (the common case): one pass, no walk
            data, guaranteed = cq_usage.data, self._guaranteed
            total = 0
            for ch, name in flat:
                row = data.get(name)
                used = row.get(fr, 0) if row is not None else 0
                g = guaranteed.get((ch, fr))
                if g is None:
                    g = self.guaranteed(ch, fr)
                if used > g:
                    total += used - g
            memo[nid] = total
            return total
        for cur in self.bottom_up(nid, lambda n: not nodes[n].is_cohort or n in memo):
            if cur in memo:
                continue
            total = 0
            for ch in nodes[cur].children:
                used = memo[ch] if nodes[ch].is_cohort else cq_usage.get(nodes[ch].name, fr)
                total += max(0, used - self.guaranteed(ch, fr))
            memo[cur] = total
        return memo[nid]

    def available(self, nid: str, fr: FR, cq_usage: "Usage | None") -> int:
        """Kueue's available(): the most one more request for `fr` may take at node `nid`.
        With `cq_usage` None, usage is zero everywhere: Kueue's "maximum capacity". Each node's
        number needs its parent's: computed from the nearest known ancestor down (kept per usage,
        so asking every node of a chain costs the chain's length, not its square)."""
        memos = self._potential if cq_usage is None else cq_usage.memo
        memo = memos.get(fr)
        if memo is None:
            memo = memos[fr] = {}
        else:
            got = memo.get((nid, "available"))
            if got is not None:
                return got
        walk = [nid]
        while (walk[-1], "available") not in memo and self.nodes[walk[-1]].parent:
            walk.append(self.nodes[walk[-1]].parent)  # type: ignore[arg-type]
        avail = memo.get((walk[-1], "available"))
        if avail is not None:
            walk.pop()
        for cur in reversed(walk):
            used = self.usage(cur, fr, cq_usage) if cq_usage is not None else 0
            if self.nodes[cur].parent is None:
                avail = self.subtree(cur, fr) - used
            else:
                g = self.guaranteed(cur, fr)
                local = max(0, g - used)
                parent_avail = avail
                borrow = self.entry(cur, fr).borrowing_limit
                if borrow is not None:
                    stored = self.subtree(cur, fr) - g
                    used_in_parent = max(0, used - g)
                    parent_avail = min(stored - used_in_parent + borrow, parent_avail)  # type: ignore[type-var]
                avail = local + parent_avail  # type: ignore[operator]
            memo[(cur, "available")] = avail  # type: ignore[assignment]
        return avail  # type: ignore[return-value]

    def height(self, nid: str) -> int:
        """Longest path down to a cluster queue (0 for a cluster queue)."""
        got = self._height.get(nid)
        if got is not None:
            return got
        nodes = self.nodes
        for cur in self.bottom_up(nid, lambda n: n in self._height):
            node = nodes[cur]
            self._height[cur] = 0 if not node.is_cohort else max(
                [1 if node.children else 0] + [self._height[ch] + 1 for ch in node.children if nodes[ch].is_cohort])
        return self._height[nid]

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
    """Admitted usage per cluster queue and flavor-resource. A copy shares the rows of its original
    until one of the two changes a row (copy on write): copying costs one dict, not one per queue."""

    def __init__(self, data: dict[str, dict[FR, int]] | None = None) -> None:
        self.data: dict[str, dict[FR, int]] = data or {}
        # per flavor-resource: cohort usage (by node id) and available() (by (node id, "available")),
        # computed by QuotaTree; a change of some flavor-resources forgets only theirs
        self.memo: dict[FR, dict] = {}
        self.version = 0  # bumped on every change (callers key caches on it)
        self._own: set[str] | None = None  # rows this object may change in place; None: all

    def get(self, cq: str, fr: FR) -> int:
        row = self.data.get(cq)
        return row.get(fr, 0) if row is not None else 0

    def add(self, cq: str, amounts: dict[FR, int]) -> None:
        memo = self.memo
        for fr in amounts:
            memo.pop(fr, None)
        self.version += 1
        row = self.data.get(cq)
        if row is None:
            row = self.data[cq] = {}
            if self._own is not None:
                self._own.add(cq)
        elif self._own is not None and cq not in self._own:
            row = self.data[cq] = dict(row)
            self._own.add(cq)
        for fr, v in amounts.items():
            row[fr] = row.get(fr, 0) + v

    def copy(self) -> "Usage":
        out = Usage(dict(self.data))
        # The numbers of a flavor-resource are shared, not copied: a dict of them is only ever held by
        # usages whose rows of that flavor-resource are equal (`add` drops its holder's before changing
        # a row), so a number either one computes into it holds for both. A preemption search copies
        # the usage per question and reads a few flavor-resources of the many kept.
        out.memo = dict(self.memo)
        out._own = set()
        self._own = set()  # its rows are shared now
        return out
