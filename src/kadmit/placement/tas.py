"""Kueue's topology-aware assignment of one pod group, as Kueue computes it (a greedy baseline).

This follows Kueue's TASFlavorSnapshot.findTopologyAssignment (pkg/cache/tas_flavor_snapshot.go,
default profile "BestFit"):

1. Count the pods that fit on every node (`node_fit_count`) and sum them up the tree.
2. At the requested level, sort domains by that count, most first (ties: level values in
   lexicographic order). If the first fits the whole group, take the fitting domain with the
   *fewest* pods that still fit all (best fit, first such in the order). Otherwise:
   `required` fails ("topology "T" allows to fit only F out of N pod(s)", F being the best
   domain's count); `preferred` retries one level up, and at the top level, as does
   `unconstrained` at the lowest level, takes domains greedily in order, best-fitting the last.
3. Walk down level by level: pool the children of the chosen domains, sort them the same way,
   and take them greedily, best-fitting the last, until every pod has a domain; last, nodes.

Profiles (Kueue feature gates): "MostFreeCapacity" drops best fit; "LeastFreeCapacity" also sorts
least first; "Mixed" is LeastFreeCapacity for unconstrained groups and BestFit otherwise. Unlike
Kueue, counts are always per node (see `domains`), so a lowest level above the hostname gets a
final step onto nodes, and every kube-scheduler filter applies (Kueue checks taints, and the node
selector only when the lowest level is the hostname).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping
from weakref import WeakKeyDictionary

from kadmit.index import HOSTNAME_LABEL, resolve_level
from kadmit.model import TopologyRequest
from kadmit.placement.domains import Domain, DomainTree, free_fit_count
from kadmit.placement.filters import PodTemplate, static_fit

Profile = Literal["BestFit", "MostFreeCapacity", "LeastFreeCapacity", "Mixed"]


@dataclass
class TASResult:
    """Pods per node, or Kueue's failure message."""

    placement: dict[str, int] = field(default_factory=dict)  # node -> pods, sorted by node
    level: str | None = None  # the level key at which the group fit in one or more domains
    domains: tuple[str, ...] = ()  # paths of the domains chosen at that level
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


@dataclass(eq=False, slots=True)  # one object per node and call: no per-instance dict
class _Unit:
    values: tuple[str, ...]
    state: int
    children: "list[_Unit] | tuple[()]"  # () for a node
    node: str | None = None


_STATIC_FIT: "WeakKeyDictionary[DomainTree, dict[tuple, frozenset[str]]]" = WeakKeyDictionary()


def _static_fitting(tree: DomainTree, template: PodTemplate) -> frozenset[str]:
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


def _units(tree: DomainTree, template: PodTemplate, free: Mapping[str, Mapping[str, int]] | None):
    """Per level (plus a node level when the lowest level isn't the hostname), the domains with
    their pod counts."""
    host_lowest = tree.levels[-1] == HOSTNAME_LABEL
    passing = _static_fitting(tree, template)

    def node_unit(name: str) -> _Unit:
        state = 0
        if name in passing:  # as `node_fit_count`, with the static filters memoized
            node_free = None if free is None else free.get(name)
            state = free_fit_count(template, tree.nodes[name].free if node_free is None else node_free)
        return _Unit(tree.node_domain[name] + (() if host_lowest else (name,)), state, (), name)

    levels: list[list[_Unit]] = [[] for _ in tree.levels] + ([] if host_lowest else [[]])

    def build(dom: Domain, depth: int) -> _Unit:
        if not dom.children:
            if host_lowest:
                unit = node_unit(dom.nodes[0])
                unit.values = dom.values
            else:
                kids = [node_unit(n) for n in dom.nodes]
                levels[depth + 1].extend(kids)
                unit = _Unit(dom.values, sum(k.state for k in kids), kids)
        else:
            kids = [build(c, depth + 1) for c in dom.children]
            unit = _Unit(dom.values, sum(k.state for k in kids), kids)
        levels[depth].append(unit)
        return unit

    for root in tree.roots:
        build(root, 0)
    return levels


def _best_fit(units: list[_Unit], count: int) -> int:
    """Index of the first unit, in the given order, with the smallest count that still holds `count`."""
    best = None
    for i, u in enumerate(units):
        if u.state >= count and (best is None or u.state < units[best].state):
            best = i
    return 0 if best is None else best


def kueue_assign(tree: DomainTree, template: PodTemplate, count: int, request: TopologyRequest, *,
                 free: Mapping[str, Mapping[str, int]] | None = None,
                 profile: Profile = "BestFit") -> TASResult:
    """Place `count` pods of `template` in `tree` as Kueue would; `free` overrides nodes' free capacity."""
    unconstrained = request.mode == "unconstrained"
    if unconstrained:
        level_idx = len(tree.levels) - 1
    else:
        key = resolve_level(tree.topology, request.level)
        if key is None:
            return TASResult(reason=f"no requested topology level: {request.level}")
        level_idx = tree.levels.index(key)
    required = request.mode == "required"
    best_fit = profile == "BestFit" or (profile == "Mixed" and not unconstrained)
    least_first = profile == "LeastFreeCapacity" or (profile == "Mixed" and unconstrained)

    def ordered(units: list[_Unit]) -> list[_Unit]:
        return sorted(units, key=lambda u: ((u.state if least_first else -u.state), u.values))

    def not_fit(fit: int) -> str:
        name = tree.topology.name
        if fit == 0:
            return f'topology "{name}" doesn\'t allow to fit any of {count} pod(s)'
        return f'topology "{name}" allows to fit only {fit} out of {count} pod(s)'

    levels = _units(tree, template, free)
    if not levels[0]:
        return TASResult(reason=f"no topology domains at level: {tree.levels[level_idx]}")

    idx = level_idx
    while True:
        units = ordered(levels[idx])
        top = units[0]
        if best_fit and top.state >= count:
            top = units[_best_fit(units, count)]
        if least_first:  # the least free domain that holds them all (Kueue #5803)
            if (fit := next((u for u in units if u.state >= count), None)) is not None:
                chosen = [fit]
                break
            if required:
                return TASResult(reason=not_fit(units[-1].state))
        if top.state >= count:
            chosen = [top]
            break
        if required:
            return TASResult(reason=not_fit(top.state))
        if idx > 0 and not unconstrained:
            idx -= 1
            continue
        chosen, remaining = [], count
        for i, u in enumerate(units):
            if remaining <= 0:
                break
            if u.state <= 0:  # full domains sort first least-first; skip them (Kueue #8168)
                continue
            pick = units[i + _best_fit(units[i:], remaining)] if best_fit and u.state >= remaining else u
            chosen.append(pick)
            remaining -= u.state
        if remaining > 0:
            return TASResult(reason=not_fit(count - remaining))
        break
    fit_level, fit_domains = tree.levels[idx], tuple("/".join(u.values) for u in chosen)

    def to_minimum(units: list[_Unit]) -> list[tuple[_Unit, int]]:
        out, remaining = [], count
        for i, u in enumerate(units):
            if best_fit and u.state >= remaining:
                u = units[i + _best_fit(units[i:], remaining)]
            if u.state >= remaining:
                out.append((u, remaining))
                return out
            out.append((u, u.state))
            remaining -= u.state
        raise AssertionError("domains hold fewer pods than their parents counted")

    taken = to_minimum(chosen)
    while taken[0][0].children:
        taken = to_minimum(ordered([k for u, _ in taken for k in u.children]))
    placement = {u.node: n for u, n in sorted(taken, key=lambda un: un[0].node) if n}
    return TASResult(placement, fit_level, fit_domains)
