"""Topology domains (block -> rack -> host) with their node classes, and how many pods fit in each.

A `Topology` lists node-label keys, outermost first. A domain at level i is the set of nodes
that agree on the values of levels 0..i; nodes lacking one of the topology's labels lie outside
every domain (`DomainTree.outside`), as Kueue's topology-aware scheduling ignores them.

`fits_count(template, domain)` counts pods node by node: the sum over the domain's nodes of the
smallest `free // request` over the requested resources (`pods` included), 0 on nodes the
template's filters reject.

Kueue's own leaves (pkg/cache/scheduler/tas_flavor_snapshot.go addNode) are what its topology-aware
scheduling counts and places on: with the hostname as the lowest level, a host domain keyed by the
node's `kubernetes.io/hostname` label value (not its name); with a lowest level above the hostname
(a rack), the rack itself, holding its nodes' summed free capacity, unfiltered by taints or
selectors. A placement names a leaf by its `leaf_key`: the node's name for a host leaf, and for a
rack leaf `flavor:values` (the scope, a flavor's name, then Kueue's domain ID, the level values
joined by commas), which no node's name can be. What a rack leaf's admitted pods take is kept
under that key as usage (negative free capacity), beside its nodes' own free capacity.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping, Sequence

from kadmit.index import HOSTNAME_LABEL, resolve_level
from kadmit.model import Topology
from kadmit.placement.classes import NodeClass, node_classes
from kadmit.placement.filters import PodTemplate, static_fit
from kadmit.placement.inventory import NodeState, add


@dataclass(eq=False)
class Domain:
    """One topology domain: its level key, its path of level values, children, and nodes."""

    level: str
    values: tuple[str, ...]  # from the outermost level down to this one
    parent: "Domain | None" = None
    children: list["Domain"] = field(default_factory=list)
    members: list[tuple[NodeClass, int]] = field(default_factory=list)  # class, nodes of it here
    nodes: list[str] = field(default_factory=list)  # sorted
    capacity: dict[str, int] = field(default_factory=dict)  # summed free capacity

    @property
    def name(self) -> str:
        return self.values[-1]

    @property
    def path(self) -> str:
        return "/".join(self.values)

    @property
    def classes(self) -> list[NodeClass]:
        return [c for c, _ in self.members]


@dataclass(eq=False)
class DomainTree:
    topology: Topology
    levels: tuple[str, ...]
    by_level: list[list[Domain]]  # per level index, sorted by values
    nodes: dict[str, NodeState]  # nodes inside the topology, by name
    node_domain: dict[str, tuple[str, ...]]  # node -> its full level values
    outside: tuple[str, ...]  # nodes lacking a level label, sorted
    classes: list[NodeClass]
    scope: str = ""  # the flavor whose nodes these are: a rack leaf's key starts with it

    @property
    def host_lowest(self) -> bool:
        """Kueue's leaves are single nodes (the hostname is the lowest level), else racks."""
        return bool(self.levels) and self.levels[-1] == HOSTNAME_LABEL

    @cached_property
    def leaves(self) -> dict[str, Domain]:
        """Kueue's leaves by their placement key (`leaf_key`)."""
        return {self.leaf_key(d): d for d in self.by_level[-1]} if self.by_level else {}

    def leaf_of(self, key: str) -> Domain | None:
        """The leaf a placement key names: a rack leaf, or the host leaf of a node."""
        dom = self.leaves.get(key)
        if dom is None and self.host_lowest and key in self.node_domain:
            dom = self._host_leaves.get(self.node_domain[key])
        return dom

    @cached_property
    def _host_leaves(self) -> dict[tuple[str, ...], Domain]:
        return {d.values: d for d in self.by_level[-1]} if self.by_level else {}

    def key_values(self, key: str) -> tuple[str, ...]:
        """The level values of the leaf a placement key names (a node's, or a rack leaf's)."""
        dom = self.leaves.get(key)
        return dom.values if dom is not None and not self.host_lowest else self.node_domain[key]

    def leaf_key(self, dom: Domain) -> str:
        """How a placement names a leaf: its node (the first by name of a host domain, as kadmit
        counts one node per hostname), or `scope:values` for a rack leaf."""
        return dom.nodes[0] if self.host_lowest else f"{self.scope}:{','.join(dom.values)}"

    @cached_property
    def leaf_by_id(self) -> dict[str, str]:
        """Kueue's leaf domain ID (a host leaf's hostname; a rack leaf's level values joined by
        commas) -> the leaf's placement key: how an admitted assignment's domains find their leaf
        (tas_flavor.go updateUsage keys usage by the assignment's values joined the same way)."""
        if self.host_lowest:
            return {d.values[-1]: d.nodes[0] for d in self.by_level[-1]}
        return {",".join(d.values): key for key, d in self.leaves.items()}

    def kueue_value(self, key: str) -> str:
        """The value Kueue's topology assignment gives a leaf's pods under: its lowest level's."""
        dom = self.leaves.get(key)
        if dom is None:
            values = self.node_domain.get(key)
            return values[-1] if values else key
        return dom.values[-1]

    def leaf_free(self, dom: Domain, free: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, int]:
        """A rack leaf's free capacity as Kueue's snapshot holds it: its nodes' free capacity summed,
        less what admitted pods on the leaf itself take (`free` overrides the nodes' own)."""
        out: dict[str, int] = {}
        for name in dom.nodes:
            got = None if free is None else free.get(name)
            out = add(out, self.nodes[name].free if got is None else got)
        if free is not None and not self.host_lowest:
            out = add(out, free.get(self.leaf_key(dom)) or {})
        return out

    @cached_property
    def shared_hosts(self) -> dict[str, Domain]:
        """Host leaves of more than one node (nodes sharing a `kubernetes.io/hostname` value, which
        Kueue counts as one leaf of their summed free capacity), by each of their nodes."""
        if not self.host_lowest or not self.by_level:
            return {}
        return {name: d for d in self.by_level[-1] if len(d.nodes) > 1 for name in d.nodes}

    def host_fit(self, template: PodTemplate, dom: Domain, free: Mapping[str, Mapping[str, int]] | None,
                 passing: frozenset[str] | set[str]) -> int:
        """Pods of `template` a host leaf of several nodes holds, as Kueue counts it: on their summed
        free capacity, if its first node passes the filters (Kueue's leaf keeps the first node it
        adds; kadmit's is the first by name)."""
        return tas_fit_count(template, self.leaf_free(dom, free)) if dom.nodes[0] in passing else 0

    @property
    def roots(self) -> list[Domain]:
        return self.by_level[0] if self.by_level else []

    def level_index(self, level: str | None) -> int | None:
        """Index of a level given by key or short name (`rack`, `host`), None if unknown."""
        key = resolve_level(self.topology, level)
        return None if key is None else self.levels.index(key)

    def domains(self, level: str) -> list[Domain]:
        idx = self.level_index(level)
        return [] if idx is None else self.by_level[idx]

    def display(self, domain: Domain) -> str:
        """The domain's own value when unique at its level, else its whole path."""
        peers = self.by_level[len(domain.values) - 1]
        return domain.name if sum(1 for d in peers if d.name == domain.name) == 1 else domain.path


def level_label(key: str) -> str:
    """The short name of a level key: `rack` for `cloud.example.com/rack`, `host` for the hostname."""
    return "host" if key == HOSTNAME_LABEL else key.rsplit("/", 1)[-1]


def build_domains(topology: Topology, nodes: Sequence[NodeState],
                  classes: Sequence[NodeClass] | None = None, scope: str = "") -> DomainTree:
    """The domain tree of `nodes` under `topology`; `classes` default to `node_classes(nodes, topology)`;
    `scope` (a flavor's name) starts the keys of rack leaves."""
    if classes is None:
        classes = node_classes(nodes, topology)
    by_name = {n.name: n for n in nodes}
    class_of = {name: c for c in classes for name in c.nodes}
    levels = tuple(topology.levels)
    inside: dict[str, NodeState] = {}
    node_domain: dict[str, tuple[str, ...]] = {}
    outside = []
    host_values: dict[str, tuple[str, ...]] = {}  # hostname -> the host leaf's values (its first node's)
    host_lowest = bool(levels) and levels[-1] == HOSTNAME_LABEL
    for name in sorted(by_name):
        node = by_name[name]
        if any(k not in node.labels for k in levels):
            outside.append(name)
            continue
        inside[name] = node
        values = tuple(node.labels[k] for k in levels)
        if host_lowest:  # nodes sharing a hostname are one leaf (Kueue keys leaves by the hostname)
            values = host_values.setdefault(values[-1], values)
        node_domain[name] = values
    table: list[dict[tuple[str, ...], Domain]] = [{} for _ in levels]
    counts: list[dict[tuple[str, ...], Counter]] = [{} for _ in levels]
    for name, values in node_domain.items():
        parent = None
        for i, key in enumerate(levels):
            prefix = values[:i + 1]
            dom = table[i].get(prefix)
            if dom is None:
                dom = table[i][prefix] = Domain(key, prefix, parent)
                counts[i][prefix] = Counter()
                if parent is not None:
                    parent.children.append(dom)
            dom.nodes.append(name)
            dom.capacity = add(dom.capacity, inside[name].free)
            counts[i][prefix][class_of[name].name if name in class_of else name] += 1
            parent = dom
    classes_by_name = {c.name: c for c in classes}
    for i in range(len(levels)):
        for prefix, dom in table[i].items():
            dom.nodes.sort()
            dom.children.sort(key=lambda d: d.values)
            dom.members = [(classes_by_name[c], n) for c, n in sorted(counts[i][prefix].items())
                           if c in classes_by_name]
    by_level = [sorted(t.values(), key=lambda d: d.values) for t in table]
    return DomainTree(topology, levels, by_level, inside, node_domain, tuple(outside), list(classes), scope)


def node_fit_count(template: PodTemplate, node: NodeState, free: Mapping[str, int] | None = None) -> int:
    """How many pods of `template` fit on `node`: 0 if a filter rejects it, else the smallest
    `free // request` over the requested resources (`pods` included)."""
    if not static_fit(template, node):
        return 0
    return free_fit_count(template, node.free if free is None else free)


def free_fit_count(template: PodTemplate, free: Mapping[str, int]) -> int:
    """How many pods of `template` `free` capacity holds, filters aside: the smallest
    `free // request` over the requested resources (`pods` included); 0 once one is short."""
    best = 0
    for r, q in template.requests:
        if q > 0:
            k = free.get(r, 0) // q
            if k <= 0:
                return 0
            if best == 0 or k < best:
                best = k
    return best


def tas_fit_count(template: PodTemplate, free: Mapping[str, int]) -> int:
    """How many pods of `template` `free` capacity holds as Kueue's topology-aware scheduling counts them
    (Requests.CountInWithLimitingResource): 0 where a requested resource is absent, else the smallest quotient
    over the requested resources truncated toward zero, negative where the capacity is (a node its placement's
    assumed usage overcommits: a workload slice's old pods counted twice, `placement.slices`). A negative count
    takes from the domains above it and from what a placement needs, as in Kueue."""
    best = None
    for r, q in template.requests:
        if q > 0:
            have = free.get(r)
            if have is None:
                return 0
            k = have // q if have >= 0 else -(-have // q)
            if best is None or k < best:
                best = k
    return best or 0


def fits_count(template: PodTemplate, domain: Domain,
               free: Mapping[str, Mapping[str, int]] | None = None,
               nodes: Mapping[str, NodeState] | None = None) -> int:
    """Pods of `template` that fit in `domain`, node by node. With `free` (node -> free capacity,
    e.g. after other placements) and `nodes` (the tree's nodes), count from those instead of the
    classes' own free capacity."""
    if free is None:
        return sum(n * node_fit_count(template, cls.representative) for cls, n in domain.members)
    if nodes is None:
        raise ValueError("fits_count with `free` needs the tree's `nodes`")
    return sum(node_fit_count(template, nodes[name], free.get(name)) for name in domain.nodes)


def leaf_fits(tree: DomainTree, template: PodTemplate, domain: Domain,
              free: Mapping[str, Mapping[str, int]] | None = None) -> int:
    """Pods of `template` a domain holds as Kueue counts: the sum over its leaves of what each holds
    on its summed free capacity (a rack leaf with no node filter; a host leaf, of one node or of
    several sharing a hostname, filtered by its first node)."""
    if not domain.children:
        if tree.host_lowest and not static_fit(template, tree.nodes[domain.nodes[0]]):
            return 0  # a host leaf (of nodes sharing a hostname) is filtered by its first node
        return tas_fit_count(template, tree.leaf_free(domain, free))
    return sum(leaf_fits(tree, template, c, free) for c in domain.children)


def domain_fits(tree: DomainTree, template: PodTemplate, level: str,
                free: Mapping[str, Mapping[str, int]] | None = None,
                nodes: Mapping[str, NodeState] | None = None) -> list[tuple[Domain, int]]:
    """Every domain of `level` with the pods of `template` it fits, most first (ties by path).
    With `free` (node -> free capacity, e.g. a run's state) the counts come from it; `nodes`
    default to the tree's."""
    if free is not None and nodes is None:
        nodes = tree.nodes
    if not tree.host_lowest or (tree.shared_hosts and (nodes is None or nodes is tree.nodes)):
        # Kueue's leaves, each on its summed free capacity: racks unfiltered, hosts by their first node
        fits = [(d, leaf_fits(tree, template, d, free)) for d in tree.domains(level)]
        fits.sort(key=lambda df: (-df[1], df[0].values))
        return fits
    fits = [(d, fits_count(template, d, free, nodes)) for d in tree.domains(level)]
    fits.sort(key=lambda df: (-df[1], df[0].values))
    return fits


def topology_view(tree: DomainTree, template: PodTemplate, count: int, mode: str, level: str | None,
                  free: Mapping[str, Mapping[str, int]] | None = None,
                  nodes: Mapping[str, NodeState] | None = None) -> str:
    """One line for `why`: `required rack: no rack has room for 3 pods; best rack r2 fits 2`.

    With `free` (node -> free capacity) and optionally `nodes` (default: the tree's), the counts
    are taken against that state instead of the nodes' own free capacity, e.g. a run's final
    state. A `preferred` request that no single domain holds says how it would spread (within
    one domain of a higher level, or over at least K domains, or that all of them together hold
    too few), and `unconstrained` (level None) counts the pods that fit on the whole topology."""
    if mode == "unconstrained" or level is None:
        return _unconstrained_view(tree, template, count, free, nodes)
    idx = tree.level_index(level)
    if idx is None:
        return f"{mode} {level}: topology `{tree.topology.name}` has no level `{level}`"
    short = level_label(tree.levels[idx])
    fits = domain_fits(tree, template, tree.levels[idx], free, nodes)
    head = f"{mode} {short}"
    if not fits:
        return f"{head}: no {short} in topology `{tree.topology.name}`"
    best, n = fits[0]
    room = [d for d, k in fits if k >= count]
    if room:
        names = ", ".join(tree.display(d) for d in sorted(room, key=lambda d: d.values)[:5])
        more = f" and {len(room) - 5} more" if len(room) > 5 else ""
        return f"{head}: {len(room)} {short}(s) have room for {count} pods: {names}{more}"
    best_text = f"best {short} {tree.display(best)} fits {n}" if n else f"no {short} fits any"
    text = f"{head}: no {short} has room for {count} pods; {best_text}"
    if mode == "preferred":
        text += "; " + _spread(tree, template, count, idx, fits, free, nodes)
    return text


def _spread(tree: DomainTree, template: PodTemplate, count: int, idx: int, fits: list[tuple[Domain, int]],
            free: Mapping[str, Mapping[str, int]] | None, nodes: Mapping[str, NodeState] | None) -> str:
    """How a `preferred` request that no domain of its level holds would spread: Kueue tries the
    levels above first (the fewest pods that still fit, as best fit), then spreads greedily."""
    short = level_label(tree.levels[idx])
    for up in range(idx - 1, -1, -1):
        holding = [(d, k) for d, k in domain_fits(tree, template, tree.levels[up], free, nodes) if k >= count]
        if holding:
            dom, k = min(holding, key=lambda dk: (dk[1], dk[0].values))
            return (f"it would spread over the {short}s of {level_label(tree.levels[up])} "
                    f"{tree.display(dom)} (fits {k})")
    total = sum(k for _, k in fits)
    if total < count:
        return f"all {short}s together fit only {total}"
    need, left = 0, count
    for _, k in fits:  # most first: the fewest domains that hold every pod
        if left <= 0:
            break
        need, left = need + 1, left - k
    return f"it would spread over at least {need} {short}s"


def _unconstrained_view(tree: DomainTree, template: PodTemplate, count: int,
                        free: Mapping[str, Mapping[str, int]] | None,
                        nodes: Mapping[str, NodeState] | None) -> str:
    """`unconstrained: 12 of 16 pods fit on 3 hosts of topology `dc`` (or room for all)."""
    if not tree.levels or not tree.roots:
        return f"unconstrained: no nodes in topology `{tree.topology.name}`"
    fits = domain_fits(tree, template, tree.levels[-1], free, nodes)
    short = level_label(tree.levels[-1])
    used = sum(1 for _, k in fits if k > 0)
    total = sum(k for _, k in fits)
    if total >= count:
        return (f"unconstrained: room for {count} pods on {used} {short}(s) of topology "
                f"`{tree.topology.name}` ({total} fit in all)")
    if total == 0:
        return f"unconstrained: no {short} of topology `{tree.topology.name}` fits any of {count} pods"
    return f"unconstrained: only {total} of {count} pods fit, on {used} {short}(s) of topology `{tree.topology.name}`"
