"""How many pods of one shape fit per node and per topology domain, kept up to date as capacity changes.

Kueue's topology-aware assignment starts from these counts (`node_fit_count` summed up the tree).
Rebuilt on every placement they cost a pass over the cluster; `ShapeCounts` keeps them for one pod
shape over a run, and a change of one node's free capacity moves only that node and its domains.
`overlay` gives a placement's own view (earlier pod sets of the workload taken, or preemption
victims' nodes freed) without touching the kept numbers.
"""

from __future__ import annotations

from typing import Mapping
from weakref import WeakKeyDictionary

from kadmit.index import HOSTNAME_LABEL
from kadmit.placement.domains import Domain, DomainTree, tas_fit_count
from kadmit.placement.filters import PodTemplate, static_fit

_STATIC_FIT: "WeakKeyDictionary[DomainTree, dict[tuple, frozenset[str]]]" = WeakKeyDictionary()


def static_fitting(tree: DomainTree, template: PodTemplate) -> frozenset[str]:
    """The tree's nodes that pass the filters that don't depend on capacity (`static_fit`). They
    read only the template's selector, affinity and tolerations and the nodes' labels, taints and
    flags, none of which change for a tree, so the answer is kept per tree on those three: a run
    asks it once per pod shape rather than once per node and placement."""
    key = (template.node_selector, template.node_affinity, template.tolerations)
    memo = _STATIC_FIT.setdefault(tree, {})
    got = memo.get(key)
    if got is None:
        got = memo[key] = frozenset(name for name, node in tree.nodes.items() if static_fit(template, node))
    return got


def shape_key(template: PodTemplate) -> tuple:
    """What the counts of a template depend on: its requests and its filters."""
    return (template.requests, template.node_selector, template.node_affinity, template.tolerations)


class Counts:
    """Pods per node (`node`) and per domain path (`domain`, keyed by level values from the root).
    Where the lowest level is not the hostname, `node` holds Kueue's leaves instead, by leaf key:
    each counted on its summed free capacity, filters aside (`DomainTree.leaf_free`)."""

    __slots__ = ("node", "domain")

    def __init__(self, node: Mapping[str, int], domain: Mapping[tuple[str, ...], int]) -> None:
        self.node = node
        self.domain = domain


_SUMMED: "WeakKeyDictionary[DomainTree, frozenset[str]]" = WeakKeyDictionary()


def summed(tree: DomainTree) -> frozenset[str]:
    """The nodes whose counts add up the tree: all, but with the hostname as the lowest level only
    the first node of each host domain (Kueue's host domain is one node)."""
    got = _SUMMED.get(tree)
    if got is None:
        if tree.levels and tree.levels[-1] == HOSTNAME_LABEL:
            got = frozenset(d.nodes[0] for d in tree.by_level[-1])
        else:
            got = frozenset(tree.node_domain)
        _SUMMED[tree] = got
    return got


def leaf_fit(tree: DomainTree, template: PodTemplate, dom: Domain,
             free: Mapping[str, Mapping[str, int]] | None) -> int:
    """Pods of `template` a rack leaf holds: Kueue's count on its summed free capacity, with no
    node filter (fillInCounts checks taints, selectors and affinity only on host leaves)."""
    return tas_fit_count(template, tree.leaf_free(dom, free))


def count_fits(tree: DomainTree, template: PodTemplate, free: Mapping[str, Mapping[str, int]] | None) -> Counts:
    """Counts from scratch; a node missing from `free` has its own free capacity."""
    if not tree.host_lowest:
        node: dict[str, int] = {}
        domain: dict[tuple[str, ...], int] = {}
        for key, dom in tree.leaves.items():
            node[key] = state = leaf_fit(tree, template, dom, free)
            for i in range(1, len(dom.values) + 1):
                domain[dom.values[:i]] = domain.get(dom.values[:i], 0) + state
        return Counts(node, domain)
    passing = static_fitting(tree, template)
    adds = summed(tree)
    shared = tree.shared_hosts
    node: dict[str, int] = {}
    domain: dict[tuple[str, ...], int] = {}
    for name, values in tree.node_domain.items():
        state = 0
        if name in shared:  # a host leaf of several nodes, counted on its first (its key)
            if name in adds:
                state = tree.host_fit(template, shared[name], free, passing)
        elif name in passing:
            node_free = None if free is None else free.get(name)
            state = tas_fit_count(template, tree.nodes[name].free if node_free is None else node_free)
        node[name] = state
        if name not in adds:
            continue
        for i in range(1, len(values) + 1):
            prefix = values[:i]
            domain[prefix] = domain.get(prefix, 0) + state
    return Counts(node, domain)


class FreeLog(dict):
    """Free capacity per node that lists every node written (counts catch up from the list)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.log: list[str] = []

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.log.append(key)


class ShapeCounts:
    """The counts of one template in one tree against a free-capacity map that logs its writes
    (`FreeLog`, or any dict with a `log` list): `sync` takes in the nodes written since the last."""

    def __init__(self, tree: DomainTree, template: PodTemplate) -> None:
        self.tree = tree
        self.template = template
        self.passing = static_fitting(tree, template)
        self.adds = summed(tree)
        self.counts = Counts({}, {})
        self.source: Mapping[str, Mapping[str, int]] | None = None
        self.seen = 0

    def sync(self, free: Mapping[str, Mapping[str, int]]) -> "ShapeCounts":
        log = getattr(free, "log", None)
        if free is not self.source or log is None or len(log) < self.seen:
            self.counts = count_fits(self.tree, self.template, free)
            self.source, self.seen = free, len(log) if log is not None else 0
            return self
        if self.tree.host_lowest:
            for name in log[self.seen:]:
                self.update(name, free.get(name), free)
        else:
            for dom in self._leaves_of(log[self.seen:]):
                self._set_leaf(self.counts, dom, leaf_fit(self.tree, self.template, dom, free))
        self.seen = len(log)
        return self

    def _leaves_of(self, names) -> list[Domain]:
        """The rack leaves these nodes or leaf keys belong to, each once, in the order first named."""
        tree, out, seen = self.tree, [], set()
        for name in names:
            dom = tree.leaves.get(name)
            if dom is None:
                values = tree.node_domain.get(name)
                dom = None if values is None else self._leaf_by_values.get(values)
            if dom is not None and dom.values not in seen:
                seen.add(dom.values)
                out.append(dom)
        return out

    @property
    def _leaf_by_values(self) -> dict[tuple[str, ...], Domain]:
        got = getattr(self, "_by_values", None)
        if got is None:
            got = self._by_values = {d.values: d for d in self.tree.leaves.values()}
        return got

    def _set_leaf(self, counts: Counts, dom: Domain, state: int) -> None:
        key = self.tree.leaf_key(dom)
        delta = state - counts.node[key]  # type: ignore[index]
        if delta:
            counts.node[key] = state  # type: ignore[index]
            for i in range(1, len(dom.values) + 1):
                counts.domain[dom.values[:i]] += delta  # type: ignore[index]

    def fit(self, name: str, node_free: Mapping[str, int] | None) -> int:
        if name not in self.passing:
            return 0
        return tas_fit_count(self.template, self.tree.nodes[name].free if node_free is None else node_free)

    def _host(self, name: str, node_free: Mapping[str, int] | None,
              free: Mapping[str, Mapping[str, int]] | None) -> tuple[str, int]:
        """The host leaf key a node's count goes under, and the leaf's count (a leaf of several
        nodes sharing a hostname: on their summed free capacity, `DomainTree.host_fit`)."""
        dom = self.tree.shared_hosts.get(name)
        if dom is None:
            return name, self.fit(name, node_free)
        return dom.nodes[0], self.tree.host_fit(self.template, dom, free, self.passing)

    def update(self, name: str, node_free: Mapping[str, int] | None,
               free: Mapping[str, Mapping[str, int]] | None = None) -> None:
        values = self.tree.node_domain.get(name)
        if values is None:
            return
        node, domain = self.counts.node, self.counts.domain
        name, state = self._host(name, node_free, free)
        delta = state - node[name]  # type: ignore[index]
        if not delta:
            return
        node[name] += delta  # type: ignore[index]
        if name in self.adds:
            for i in range(1, len(values) + 1):
                domain[values[:i]] += delta  # type: ignore[index]

    def overlay(self, changed: Mapping[str, Mapping[str, int] | None]) -> Counts:
        """The counts with these nodes' free capacity instead (the kept numbers stay as they are)."""
        if not changed:
            return self.counts
        node: dict[str, int] = {}
        domain: dict[tuple[str, ...], int] = {}
        base_node, base_domain = self.counts.node, self.counts.domain
        if not self.tree.host_lowest:
            view = _Over(self.source or {}, changed)
            for dom in self._leaves_of(changed):
                key = self.tree.leaf_key(dom)
                delta = leaf_fit(self.tree, self.template, dom, view) - base_node[key]
                node[key] = base_node[key] + delta
                if delta:
                    for i in range(1, len(dom.values) + 1):
                        prefix = dom.values[:i]
                        domain[prefix] = domain.get(prefix, base_domain[prefix]) + delta
            return Counts(_Over(base_node, node), _Over(base_domain, domain))
        view = _Over(self.source or {}, changed) if self.tree.shared_hosts else None
        for name, node_free in changed.items():
            values = self.tree.node_domain.get(name)
            if values is None:
                continue
            name, state = self._host(name, node_free, view)
            if name in node:  # a shared host leaf, counted already for another of its nodes
                continue
            delta = state - base_node[name]
            node[name] = base_node[name] + delta
            if delta and name in self.adds:
                for i in range(1, len(values) + 1):
                    prefix = values[:i]
                    domain[prefix] = domain.get(prefix, base_domain[prefix]) + delta
        return Counts(_Over(base_node, node), _Over(base_domain, domain))


class _Over(Mapping):
    """`base` with the keys of `over` replaced."""

    __slots__ = ("base", "over")

    def __init__(self, base: Mapping, over: Mapping) -> None:
        self.base, self.over = base, over

    def __getitem__(self, key):
        got = self.over.get(key)
        return self.base[key] if got is None else got

    def __iter__(self):
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)
