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
least first; "Mixed" is LeastFreeCapacity for unconstrained groups and BestFit otherwise. Counts
are per node where the hostname is the lowest level (every kube-scheduler filter applies there;
Kueue checks taints, the node selector and node affinity), and per rack leaf, on its summed free
capacity and unfiltered, where a level above the hostname is the lowest, as Kueue counts; the
placement then names the leaves (`DomainTree.leaf_key`), as Kueue's assignment does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

from kadmit.index import resolve_level
from kadmit.model import TopologyRequest
from kadmit.modelscheduling import go_aggregate, go_node_selector, parse_errors
from kadmit.placement.balanced import balanced_assign
from kadmit.placement.counts import Counts, count_fits
from kadmit.placement.domains import Domain, DomainTree
from kadmit.placement.filters import PodTemplate
from kadmit.placement.layers import go_div, grouped, inner_sizes, not_fit as layers_not_fit, rounded

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


@dataclass(eq=False, slots=True)  # one object per domain or node a placement looks at
class _Unit:
    values: tuple[str, ...]
    state: int
    dom: Domain | None
    node: str | None = None  # the leaf key, on a leaf
    pods: int | None = None  # in slices (`_SliceLevels`), the pods it holds: Kueue's `state` beside `sliceState`


class _Levels:
    """Per level, the domains with their pod counts, made as the search reaches them: a placement
    costs the domains it sorts and the leaves it descends to, not the cluster."""

    def __init__(self, tree: DomainTree, counts: Counts) -> None:
        self.tree = tree
        self.counts = counts

    def level(self, idx: int) -> list[_Unit]:
        return [self.unit(d) for d in self.tree.by_level[idx]]

    def unit(self, dom: Domain) -> _Unit:
        if not dom.children:  # a leaf: a node (its host domain's first) or a rack
            key = self.tree.leaf_key(dom)
            return _Unit(dom.values, self.counts.node[key], dom, key)
        return _Unit(dom.values, self.counts.domain[dom.values], dom)

    def children(self, u: _Unit) -> list[_Unit]:
        return [self.unit(c) for c in u.dom.children] if u.dom is not None else []


class _SliceLevels(_Levels):
    """Levels counted in slices down to the slice level: a slice-level domain holds
    `pods // size` slices, a domain above it the sum over its children (Kueue's sliceState)."""

    def __init__(self, tree: DomainTree, counts: Counts, slice_idx: int, size: int) -> None:
        super().__init__(tree, counts)
        self.slice_idx, self.size = slice_idx, size
        self._slices: dict[tuple[str, ...], int] = {}

    def level(self, idx: int) -> list[_Unit]:
        return [self.unit(d) for d in self.tree.by_level[idx]]

    def slices(self, dom: Domain) -> int:
        got = self._slices.get(dom.values)
        if got is None:
            if len(dom.values) - 1 >= self.slice_idx:
                got = go_div(super().unit(dom).state, self.size)
            else:
                got = sum(self.slices(c) for c in dom.children)
            self._slices[dom.values] = got
        return got

    def unit(self, dom: Domain) -> _Unit:
        u = super().unit(dom)
        return _Unit(u.values, self.slices(dom), dom, u.node, u.state)

    def children(self, u: _Unit) -> list[_Unit]:
        return [self.unit(c) for c in u.dom.children] if u.dom is not None else []


def _best_fit(units: list[_Unit], count: int) -> int:
    """Index of the first unit, in the given order, with the smallest count that still holds `count`."""
    best = None
    for i, u in enumerate(units):
        if u.state >= count and (best is None or u.state < units[best].state):
            best = i
    return 0 if best is None else best


def _places(tree: DomainTree, dom: Domain | None, placement: Mapping[str, int]) -> bool:
    """Whether a leaf under `dom` holds pods of `placement`."""
    if dom is None:
        return False
    if not dom.children:
        return tree.leaf_key(dom) in placement
    return any(_places(tree, c, placement) for c in dom.children)


def affinity_failure(template: PodTemplate) -> str | None:
    """Kueue's TAS failure for a pod template whose required node affinity nodeaffinity.NewNodeSelector
    cannot parse (tas_flavor_snapshot.go findTopologyAssignment): the whole affinity is refused, so no
    domain of the flavor fits, even where another term matches; None where it parses."""
    unparsable = parse_errors(template.node_affinity)
    if not unparsable:
        return None
    return (f"invalid affinity node selectors: {go_node_selector(template.node_affinity)}, "
            f"reason: {go_aggregate(unparsable)}")


def request_levels(tree: DomainTree, request: TopologyRequest) -> tuple[int, int | None, int, dict[int, int]] | str:
    """The levels findTopologyAssignment reads of a topology request, in its order of checks: the level's index,
    the slice level's (None without slices) and the slice size (1 without), TASMultiLayerTopology's inner sizes
    (`placement.layers.inner_sizes`); or Kueue's reason where they can't be used."""
    slice_idx, size = None, 1
    if request.slice_level is not None:  # Kueue's pod-set slices (KEP-2724, "PodSet Slice")
        skey = resolve_level(tree.topology, request.slice_level)
        if skey is None:
            return f"no requested topology level: {request.slice_level}"
        if request.slice_size is None:  # a Workload's own level without its size (manifests.podsettopology)
            return "slice topology requested, but slice size not provided"
        if request.slice_size == 0:  # (Kueue's scheduler divides by it: a panic; the webhooks refuse a job's)
            return "podset slice size 0 is not positive: no slice fits"
        # a Workload's own negative size goes through Kueue's arithmetic as it is (Go's division)
        slice_idx, size = tree.levels.index(skey), request.slice_size
    if request.mode == "unconstrained":  # Kueue's levelKey: the lowest level; with slices (and no level) the highest
        level_idx = len(tree.levels) - 1 if slice_idx is None else 0
    else:
        key = resolve_level(tree.topology, request.level)
        if key is None:
            return f"no requested topology level: {request.level}"
        level_idx = tree.levels.index(key)
    if slice_idx is not None and slice_idx < level_idx:
        return f"podset slice topology {request.slice_level} is above the podset topology {request.level}"
    # TASMultiLayerTopology's inner layers (`placement.layers`; `effective.gated` keeps one layer with it off)
    inner = inner_sizes(tree, request.layers, slice_idx, size) if len(request.layers) > 1 and slice_idx is not None else {}
    return inner if isinstance(inner, str) else (level_idx, slice_idx, size, inner)


def kueue_assign(tree: DomainTree, template: PodTemplate, count: int, request: TopologyRequest, *,
                 free: Mapping[str, Mapping[str, int]] | None = None,
                 profile: Profile = "BestFit", counts: Counts | None = None, balanced: bool = False) -> TASResult:
    """Place `count` pods of `template` in `tree` as Kueue would; `free` overrides nodes' free capacity,
    `counts` gives the pods per node and domain already counted (`placement.counts`); `balanced`, Kueue's
    gate TASBalancedPlacement (`placement.balanced`)."""
    unconstrained = request.mode == "unconstrained"
    levels = request_levels(tree, request)
    if isinstance(levels, str):
        return TASResult(reason=levels)
    level_idx, slice_idx, size, inner = levels
    unparsable = affinity_failure(template)
    if unparsable is not None:
        return TASResult(reason=unparsable)
    required = request.mode == "required"
    best_fit = profile == "BestFit" or (profile == "Mixed" and not unconstrained)
    least_first = profile == "LeastFreeCapacity" or (profile == "Mixed" and unconstrained)

    def ordered(units: list[_Unit]) -> list[_Unit]:
        # Kueue's sortedDomains: its sliceState (the state here), then the pods it holds ascending (the
        # same as the state without slices), then the level values
        return sorted(units, key=lambda u: ((u.state if least_first else -u.state),
                                            u.state if u.pods is None else u.pods, u.values))

    def below_slices(units: list[_Unit]) -> list[_Unit]:
        # below the slice level Kueue's domains have no sliceState (0: fillInCountsHelper sets it at the
        # slice level and sums it above), so sortedDomains orders them by the pods they hold, ascending,
        # whatever the profile: the least free first
        return sorted(units, key=lambda u: (u.state, u.values))

    # from here on, `count` is in slices (1 pod each without slices): whole slices only, as Kueue's
    # `podSetSize / sliceSize` (findLevelWithFitDomains, updateCountsToMinimumGeneric), so a count
    # the size does not divide places the slices it holds and leaves the rest of its pods unplaced,
    # and a size above the count places none
    pods, count = count, go_div(count, size)

    def not_fit(fit: int) -> str:  # tas_flavor_snapshot.go notFitMessage
        if inner:
            assert isinstance(view, _SliceLevels)  # (inner layers come with slices)
            return layers_not_fit(tree, pod_counts, view.slices, idx, pods, request.layers)
        name, unit = tree.topology.name, "pod" if size == 1 else "slice"
        if fit == 0:
            return f'topology "{name}" doesn\'t allow to fit any of {count} {unit}(s)'
        return f'topology "{name}" allows to fit only {fit} out of {count} {unit}(s)'

    if not tree.roots:
        return TASResult(reason=f"no topology domains at level: {tree.levels[level_idx]}")
    pod_counts = counts if counts is not None else count_fits(tree, template, free)
    if inner:
        pod_counts = rounded(tree, pod_counts, inner)
    view = _Levels(tree, pod_counts)
    if slice_idx is not None:
        view = _SliceLevels(tree, pod_counts, slice_idx, size)
    if balanced and not required and not unconstrained:  # Kueue tries it before findLevelWithFitDomains
        got = balanced_assign(tree, lambda _, key: (pod_counts.node[key], 0, pod_counts.node[key]), level_idx,
                              len(tree.levels) - 1 if slice_idx is None else slice_idx, count, size, inner=inner)
        if got is not None:
            return TASResult(reason=got.reason) if got.reason else \
                TASResult(got.workers, tree.levels[got.level_idx], got.domains)

    idx = level_idx
    while True:
        units = ordered(view.level(idx))
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
            # every domain is taken in order (findLevelWithFitDomains): a negative one (its capacity overcommitted,
            # `tas_fit_count`) adds to what is left, and one of 0 adds nothing but its children join the next
            # level's pool, where a positive leaf beside a negative one may be taken (least free first, Mixed)
            pick = units[i + _best_fit(units[i:], remaining)] if best_fit and u.state >= remaining else u
            chosen.append(pick)
            remaining -= u.state
        if remaining > 0:
            return TASResult(reason=not_fit(count - remaining))
        break
    fit_level = tree.levels[idx]

    def fit_domains(placement: Mapping[str, int]) -> tuple[str, ...]:
        # the chosen domains, less those of 0 (taken as Kueue takes them) that place no pod in the end
        return tuple("/".join(u.values) for u in chosen if u.state or _places(tree, u.dom, placement))
    if not chosen:  # a negative count of slices: Kueue's greedy pass takes no domain, and it is admitted on none
        return TASResult({}, fit_level, ())

    def to_minimum(units: list[_Unit], want: int = count) -> list[tuple[_Unit, int]]:
        out, remaining = [], want
        for i, u in enumerate(units):
            if best_fit and u.state >= remaining:
                u = units[i + _best_fit(units[i:], remaining)]
            if u.state >= remaining:
                out.append((u, remaining))
                return out
            out.append((u, u.state))
            remaining -= u.state
        if size > 0:
            raise AssertionError("domains hold fewer pods than their parents counted")
        # a negative slice size: a domain that "holds" a negative count of slices is given that count
        # times the size, pods it may not hold; its children run out of pods and Kueue's
        # updateCountsToMinimumGeneric logs errCodeAssumptionsViolated and returns nil (none placed there)
        return []

    # With a negative slice size the domain chosen for -K slices gets K*|size| pods whatever it holds (Kueue's
    # `dom.state = remainingPrimary * sliceSize`): the placement may ask a node for more pods than it holds,
    # which Kueue nominates and its scheduler's fits() (TASFlavorSnapshot.Fits) then refuses: "Workload no
    # longer fits after processing another workload" (`Pool.still_fits`, admission/ordered.py).
    taken = to_minimum(chosen)
    if slice_idx is not None:  # down to the slice level in slices, then each slice domain on its own
        while taken and len(taken[0][0].values) <= slice_idx:
            taken = to_minimum(ordered([k for u, _ in taken for k in view.children(u)]))
        pod_view = _Levels(tree, pod_counts)

        def within(u: _Unit, n: int) -> list[tuple[_Unit, int]]:
            # at and below the slice level Kueue places each domain's own pods among its children
            # (the second loop of findTopologyAssignment: per parent, updateCountsToMinimumGeneric
            # with the parent's count), not the level's pods across all the chosen domains' children
            if u.node is not None:
                return [(u, n)]
            kids = below_slices(pod_view.children(u))  # an inner layer's level takes whole groups of its size
            return [got for k, m in grouped(kids, n, inner.get(len(u.values), 1), to_minimum) if m
                    for got in within(k, m)]
        taken = [got for u, n in taken if n
                 for got in within(pod_view.unit(u.dom) if u.dom is not None else u, n * size)]
        if not taken:  # no whole slice to place (a size above the count), or a negative size's domains ran
            return TASResult({}, fit_level, fit_domains({}))  # out of pods: nothing placed, as Kueue
    while taken and taken[0][0].node is None:
        taken = to_minimum(ordered([k for u, _ in taken for k in view.children(u)]))
    placement = {u.node: n for u, n in sorted(taken, key=lambda un: un[0].node) if n}
    return TASResult(placement, fit_level, fit_domains(placement))
