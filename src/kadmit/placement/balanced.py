"""Kueue's balanced placement of a `preferred` TAS pod set (feature gate TASBalancedPlacement, alpha, off by default).

With the gate on, Kueue v0.17.0's findTopologyAssignment (pkg/cache/scheduler/tas_flavor_snapshot.go) tries
this before findLevelWithFitDomains for a pod set that is neither `required` nor `unconstrained`
(pkg/cache/scheduler/tas_balanced_placement.go); this module follows that code step by step:

- findBestDomainsForBalancedPlacement: per domain one level above the preferred level (all the roots
  together where the preferred level is the top), a greedy count of the domains one level below the
  preferred one that hold the slices (evaluateGreedyAssignment: the leader's domains first, sorted as
  sortedDomainsWithLeader, then sortedDomains), and a balance threshold: slices / that count, capped by
  the last domain's sliceStateWithLeader (balanceThresholdValue). Where it is at least the best so far,
  the domain's children below it are pruned (pruneDomainsBelowThreshold: cleared, counts summed again)
  and the preferred-level domains the slices then need are counted; the highest threshold wins, then
  the fewest of those domains, then the first in Kueue's order of domains (a Go map's: kadmit takes
  level-value order, docs/KUEUE-DIFFERENCES.md §1). A threshold of 0 (none fits) falls back to BestFit.
- applyBalancedPlacementAlgorithm: below the slice level's parent, the fewest preferred-level domains of
  the least capacity (selectOptimalDomainSetToFit, a dynamic programme over the domains sorted by
  leaders, slices and their children's entropy), then over their children the same selection, each
  given the threshold and the extra slices in sortedDomainsWithLeader order (placeSlicesOnDomainsBalanced).
- then, as findTopologyAssignment goes on: updateCountsToMinimumGeneric on those domains, and down to the
  leaves per parent (its per-parent loop with each level's slice size), not phase 2b's greedy descent.

Domains are the module's own (`_B`): Kueue's pruning and assignment rewrite their counts. Kueue's quirks are
kept: a preferred level at the slice level with a level below it prunes every child (their sliceState is 0
below the slice level) and fails ("Cannot find optimal domain set"); a leader's pod-path consumption
keeps a domain's whole state (consumeWithLeadersGeneric). Integer division is Go's (`go_div`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from kadmit.placement.domains import Domain, DomainTree
from kadmit.placement.layers import go_div

NO_OPTIMAL = "TAS Balanced Placement: Cannot find optimal domain set to fit the request"
BELOW_THRESHOLD = "TAS Balanced Placement: Not enough slices to meet the threshold"
NOT_ALL = "TAS Balanced Placement: Not all slices or leaders could be placed"


@dataclass(eq=False, slots=True)
class _B:
    """A domain with Kueue's per-placement numbers (pkg/cache/scheduler/tas_flavor_snapshot.go `domain`)."""

    values: tuple[str, ...]
    node: str | None  # the leaf key, on a leaf
    children: list["_B"] = field(default_factory=list)
    state: int = 0
    slice_state: int = 0
    with_leader: int = 0  # stateWithLeader
    slice_with_leader: int = 0  # sliceStateWithLeader
    leader: int = 0  # leaderState


@dataclass
class Balanced:
    """Kueue's balanced placement: workers and leaders per leaf key, the fit level's index and domains, or
    its failure."""

    workers: dict[str, int] = field(default_factory=dict)
    leaders: dict[str, int] = field(default_factory=dict)
    level_idx: int = 0
    domains: tuple[str, ...] = ()
    reason: str | None = None


LeafCounts = Callable[[Domain, str], tuple[int, int, int]]  # (state, leaderState, stateWithLeader) of a leaf


class _Snapshot:
    def __init__(self, tree: DomainTree, leaf: LeafCounts, slice_idx: int, size: int, inner: Mapping[int, int]) -> None:
        self.slice_idx, self.size = slice_idx, size
        self.per_level: list[list[_B]] = [[] for _ in tree.levels]

        def make(dom: Domain, depth: int) -> _B:
            b = _B(dom.values, None)
            if dom.children:
                b.children = [make(c, depth + 1) for c in dom.children]
            else:
                b.node = tree.leaf_key(dom)
                b.state, b.leader, b.with_leader = leaf(dom, b.node)
            self.per_level[depth].append(b)
            return b

        self.roots = [make(r, 0) for r in tree.roots]
        for r in self.roots:
            self.fill(r, 0, inner)

    def fill(self, d: _B, level: int, inner: Mapping[int, int] | None = None) -> None:
        """fillInCountsHelper: fillInCounts gives it TASMultiLayerTopology's inner slice sizes per level (`inner`:
        a child's pods count rounded down to its level's size), the pruning none."""
        if not d.children:
            if level == self.slice_idx:
                d.slice_state = go_div(d.state, self.size)
                d.slice_with_leader = go_div(d.with_leader, self.size)
            return
        state = slices = leader = 0
        min_gap = min_slice_gap = 2 ** 31 - 1
        k = (inner or {}).get(level + 1)
        for c in d.children:
            self.fill(c, level + 1, inner)
            c_state, c_with = (c.state, c.with_leader) if k is None else \
                (go_div(c.state, k) * k, go_div(c.with_leader, k) * k)
            state += c_state
            slices += c.slice_state
            min_gap = min(c_state - c_with, min_gap)
            min_slice_gap = min(c.slice_state - c.slice_with_leader, min_slice_gap)
            leader = max(c.leader, leader)
        d.state, d.with_leader, d.leader = state, state - min_gap, leader
        slice_with_leader = slices - min_slice_gap
        if level == self.slice_idx:
            slices, slice_with_leader = go_div(d.state, self.size), go_div(d.with_leader, self.size)
        d.slice_state, d.slice_with_leader = slices, slice_with_leader

    def prune(self, domains: Sequence[_B], threshold: int, level: int) -> None:
        """pruneDomainsBelowThreshold."""
        for d in domains:
            for c in d.children:
                if c.slice_with_leader < threshold:
                    _clear(c)
        for d in domains:
            self.fill(d, level)
            if d.slice_with_leader < threshold:
                _clear(d)


def _clear(d: _B) -> None:
    d.state = d.slice_state = d.with_leader = d.slice_with_leader = d.leader = 0
    for c in d.children:
        _clear(c)


def _sorted(domains: Sequence[_B]) -> list[_B]:  # sortedDomains, BestFit: sliceState desc, state asc, values
    return sorted(domains, key=lambda d: (-d.slice_state, d.state, d.values))


def _sorted_with_leader(domains: Sequence[_B]) -> list[_B]:  # sortedDomainsWithLeader, BestFit
    return sorted(domains, key=lambda d: (-d.leader, -d.slice_with_leader, d.with_leader, d.values))


def _lower(domains: Sequence[_B]) -> list[_B]:  # lowerLevelDomains
    return [c for d in domains for c in d.children]


def _greedy(domains: Sequence[_B], slice_count: int, leader_count: int) -> tuple[bool, int, _B | None, _B | None]:
    """evaluateGreedyAssignment: whether it fits, the domains it takes, the last with a leader and the last."""
    taken, left, leaders, i = 0, slice_count, leader_count, 0
    last_with_leader = last = None
    if leader_count > 0:
        with_leader = _sorted_with_leader(domains)
        while leaders > 0 and i < len(with_leader) and with_leader[i].leader > 0:
            taken += 1
            last_with_leader = with_leader[i]
            leaders -= with_leader[i].leader
            left -= with_leader[i].slice_with_leader
            i += 1
        rest = _sorted(with_leader[i:])
    else:
        rest = _sorted(domains)
    if leaders > 0:
        return False, 0, None, None
    i = 0
    while left > 0 and i < len(rest) and rest[i].slice_state > 0:
        taken += 1
        last = rest[i]
        left -= rest[i].slice_state
        i += 1
    if left > 0:
        return False, 0, None, None
    return True, taken, last_with_leader, last


def _threshold(slice_count: int, taken: int, last_with_leader: _B | None, last: _B | None) -> int:
    """balanceThresholdValue (Kueue caps by the last domain's sliceStateWithLeader, its issue 7494)."""
    threshold = go_div(slice_count, taken)
    if last_with_leader is not None:
        threshold = min(threshold, last_with_leader.slice_with_leader)
    if last is not None:
        threshold = min(threshold, last.slice_with_leader)
    return threshold


def _go_log2(x: float) -> float:  # Go's math.Log2
    frac, exp = math.frexp(x)
    return float(exp - 1) if frac == 0.5 else math.log(frac) * (1 / math.log(2)) + exp


def _entropy(sizes: list[int]) -> float:  # calculateEntropy
    total = sum(sizes)
    if not sizes or total == 0:
        return 0.0
    entropy = 0.0
    for size in sizes:
        if size > 0:
            p = size / total
            entropy += -p * _go_log2(p)
    return entropy


def _by_capacity_and_entropy(domains: list[_B]) -> None:
    """sortDomainsByCapacityAndEntropy, in place: leaders, then sliceStateWithLeader, descending, then the
    children's entropy, descending. Go's pdqsort is not stable above 12 domains, but ties come in Go's map order
    (kadmit's: level values) and leave in it under a fixed permutation: a stable sort gives one of Kueue's
    outcomes (docs/KUEUE-DIFFERENCES.md §1)."""
    domains.sort(key=lambda d: (-d.leader, -d.slice_with_leader, -_entropy([c.state for c in d.children])))


def _optimal(domains: list[_B], slice_count: int, leader_count: int, size: int, by_entropy: bool) -> list[_B] | None:
    """selectOptimalDomainSetToFit: of the sets of as many domains as the greedy count takes that hold the
    leaders and slices, the one that leaves the fewest pods over (the first found on a tie)."""
    fits, optimal, _, _ = _greedy(domains, slice_count, leader_count)
    if not fits:
        return None
    if by_entropy:
        _by_capacity_and_entropy(domains)
    # a placement is a chain (the placement before, the domain added), not a copy of the list: Go copies the
    # slice for every entry it tries (newPlacement), kadmit links only the entries it keeps (the first found)
    table: list[dict[int, dict[int, tuple | None]]] = [{} for _ in range(optimal + 1)]
    table[0][leader_count] = {slice_count * size: None}  # no leader and no pods (dead) only where optimal is 0
    for k, d in enumerate(domains):
        leader, with_leader, state, takes_slices = d.leader, d.with_leader, d.state, d.slice_state > 0
        # an entry of row i made now can only reach the last row with the domains after this one: rows below
        # optimal - (those domains) are never read (nor is an entry found later, which has fewer domains left)
        for i in range(optimal, max(0, optimal - (len(domains) - k - 1) - 1), -1):
            before_all, row = table[i - 1], table[i]
            last = i == optimal
            # Go goes through the leaders and the states in sorted order and keeps the first entry found for a
            # key; each state gives its own key in a row (the state less a constant), so only the leaders'
            # order decides: a row is merged whole, its entries kept over the new ones (`new | kept`). Go skips
            # an entry with no leader and no pods left; below the last row kadmit does not keep one (`dead`)
            for before_leader in sorted(before_all):
                states = before_all[before_leader]
                if before_leader > 0 and leader > 0:
                    key = before_leader - leader
                    new = {s - with_leader: (chain, d) for s, chain in states.items()} if last or key > 0 else \
                        {s - with_leader: (chain, d) for s, chain in states.items() if s > with_leader}
                    row[key] = new | row.get(key, {})
                if takes_slices:
                    new = {s - state: (chain, d) for s, chain in states.items()} if last or before_leader > 0 else \
                        {s - state: (chain, d) for s, chain in states.items() if s > state}
                    row[before_leader] = new | row.get(before_leader, {})
    over = [left for left in table[optimal].get(0, {}) if left <= 0]
    if not over:
        return None
    chain, chosen = table[optimal][0][max(over)], []
    while chain is not None:
        chain, d = chain
        chosen.append(d)
    return chosen[::-1]


def _place(domains: list[_B], slice_count: int, leader_count: int, size: int,
           threshold: int) -> tuple[list[_B], str | None]:
    """placeSlicesOnDomainsBalanced: each chosen domain the threshold, the leader's first, and the extra
    slices to the domains in sortedDomainsWithLeader order."""
    chosen = _optimal(domains, slice_count, leader_count, size, False)
    if chosen is None:
        return [], NO_OPTIMAL
    if slice_count < len(chosen) * threshold:
        return [], BELOW_THRESHOLD
    chosen = _sorted_with_leader(chosen)
    extra, leaders = slice_count - len(chosen) * threshold, leader_count
    for d in chosen:
        if leaders > 0:
            take = min(d.slice_with_leader - threshold, extra)
            d.leader = 1
            leaders -= 1
        elif extra > 0:
            take = min(d.slice_state - threshold, extra)
            d.leader = 0
        else:
            d.leader, take = 0, 0
        d.slice_state = d.slice_with_leader = threshold + take
        d.state = d.slice_state * size
        d.with_leader = d.state - d.leader
        extra -= take
    if extra > 0 or leaders > 0:
        return [], NOT_ALL
    return chosen, None


def _best_fit(domains: Sequence[_B], needed: int, attr: str) -> _B:  # findBestFitDomainBy
    best = domains[0]
    for d in domains:
        if needed <= getattr(d, attr) < getattr(best, attr):
            best = d
    return best


def _to_minimum(domains: list[_B], count: int, leader_count: int, size: int, slices: bool) -> list[_B] | None:
    """updateCountsToMinimumGeneric (BestFit) with consumeWithLeadersGeneric: None where the domains hold
    fewer than their parents counted (Kueue logs errCodeAssumptionsViolated and returns nil)."""
    out: list[_B] = []
    left = go_div(count, size) if slices else count
    leaders = leader_count
    with_attr, primary = ("slice_with_leader", "slice_state") if slices else ("with_leader", "state")
    for i, d in enumerate(domains):
        if leaders > 0:
            if getattr(d, with_attr) >= left and d.leader >= leaders:
                d = _best_fit(domains[i:], left, with_attr)
            out.append(d)
            if getattr(d, with_attr) >= left and d.leader >= leaders:
                setattr(d, primary, left)
                d.leader = leaders
                d.state = left * (size if slices else 1)
                return out
            if slices:
                setattr(d, with_attr, min(getattr(d, with_attr), left))
                d.leader = min(d.leader, leaders)
                d.state = getattr(d, with_attr) * size
                leaders -= d.leader
                left -= getattr(d, with_attr)
            else:  # pods: subtract, then clamp (the domain keeps its whole state)
                left -= d.with_leader
                leaders -= d.leader
                d.with_leader = min(d.with_leader, left)
                d.leader = min(d.leader, leaders)
            continue
        if getattr(d, primary) >= left:
            d = _best_fit(domains[i:], left, primary)
        d.leader = 0
        out.append(d)
        if getattr(d, primary) >= left:
            if slices:
                d.state, d.slice_state = left * size, left
            else:
                d.state = left
            return out
        if slices:
            d.state = d.slice_state * size
        left -= getattr(d, primary)
    return None


def _find_best(snap: _Snapshot, level_idx: int, slice_count: int, leader_count: int) -> tuple[list[_B], int]:
    """findBestDomainsForBalancedPlacement: the preferred-level siblings to place on and the threshold."""
    if level_idx == 0:
        groups = [snap.per_level[0]]
    else:
        groups = [d.children for d in snap.per_level[level_idx - 1]]
    best_threshold = best_count = 0
    best: list[_B] = []
    for siblings in groups:
        lower = _lower(siblings) if level_idx < snap.slice_idx else siblings
        fits, taken, last_with_leader, last = _greedy(lower, slice_count, leader_count)
        if not fits:
            continue
        threshold = _threshold(slice_count, taken, last_with_leader, last)
        if threshold >= best_threshold:
            snap.prune(siblings, threshold, level_idx)
            _, count, _, _ = _greedy(siblings, slice_count, leader_count)
            if threshold > best_threshold or count < best_count:
                best_threshold, best_count, best = threshold, count, siblings
    return best, best_threshold


def balanced_assign(tree: DomainTree, leaf: LeafCounts, level_idx: int, slice_idx: int, slice_count: int,
                    size: int, leader_count: int = 0, inner: Mapping[int, int] | None = None) -> Balanced | None:
    """Kueue's balanced placement of `slice_count` slices of `size` pods (and `leader_count` leaders, 0 or 1)
    with the preferred level at `level_idx` and the slice level at `slice_idx`; None where Kueue falls back
    to its usual search (no threshold above 0). `leaf` gives each leaf's counts as fillInCounts makes them;
    `inner`, TASMultiLayerTopology's slice sizes below the slice level (`placement.layers.inner_sizes`)."""
    inner = inner or {}
    if slice_count <= 0 and leader_count == 0:  # Kueue's balanceThresholdValue divides by zero: its scheduler
        return None  # panics (docs/KUEUE-DIFFERENCES.md §7); kadmit places it as with the gate off
    snap = _Snapshot(tree, leaf, slice_idx, size, inner)
    domains, threshold = _find_best(snap, level_idx, slice_count, leader_count)
    if threshold <= 0:
        return None
    fit_idx = level_idx
    if level_idx < slice_idx:  # applyBalancedPlacementAlgorithm
        chosen = _optimal(domains, slice_count, leader_count, size, True)
        if chosen is None:
            return Balanced(reason=NO_OPTIMAL)
        domains, fit_idx = _lower(chosen), level_idx + 1
    domains, reason = _place(domains, slice_count, leader_count, size, threshold)
    if reason is not None:
        return Balanced(reason=reason)
    fit_domains = tuple("/".join(d.values) for d in domains)
    taken = _to_minimum(domains, slice_count * size, leader_count, size, True) or []
    for idx in range(fit_idx, len(tree.levels) - 1):  # per parent, down to the leaves
        step = size if idx < slice_idx else inner.get(idx + 1, 1)
        below: list[_B] = []
        for d in taken:
            children = _sorted(d.children)
            if step > 1:
                for c in children:
                    c.slice_state, c.slice_with_leader = go_div(c.state, step), go_div(c.with_leader, step)
            below += _to_minimum(children, d.state, d.leader, step, step > 1) or []
        taken = below
    workers = {d.node: d.state for d in sorted(taken, key=lambda d: d.values) if d.node is not None and d.state > 0}
    leaders = {d.node: d.leader for d in sorted(taken, key=lambda d: d.values) if d.node is not None and d.leader > 0}
    return Balanced(dict(sorted(workers.items())), dict(sorted(leaders.items())), fit_idx, fit_domains)
