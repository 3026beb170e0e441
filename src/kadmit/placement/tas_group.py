"""Kueue's topology-aware assignment of a pod-set group: a leader and its workers placed together.

Kueue v0.17.0 places the two pod sets of one group (`podSetGroupName`, as a LeaderWorkerSet's
leader and workers get it) as one assignment (pkg/cache/scheduler/tas_flavor_snapshot.go,
FindTopologyAssignmentsForFlavor → findLeaderAndWorkers → findTopologyAssignment with a leader).
This module follows that code step by step, including its quirks:

- the pod set with more pods is the workers (the first on a tie); the leader counts as one pod;
  the workers' topology request, node selector and tolerations decide for both;
- per node: `state` workers that fit, `leaderState` 1 if the leader fits, `stateWithLeader` the
  workers that fit beside it; a domain sums `state`, takes the largest `leaderState`, and takes
  `stateWithLeader` as its `state` less the smallest gap of a child (a child that holds no leader
  has no gap: fillInCountsHelper);
- the level with room (findLevelWithFitDomains over sortedDomainsWithLeader, best fit by
  `stateWithLeader`), then down level by level (updateCountsToMinimumGeneric with
  consumeWithLeadersGeneric), each level's domains sorted as Kueue's sortedDomains;
- the workers' slices (a Workload's own fields: Kueue's webhook refuses a job's group annotation beside slice
  annotations) and, TASMultiLayerTopology on, their inner layers: counted as fillInCounts does (sliceState and
  sliceStateWithLeader, each child's pods rounded down to its level's inner size), the search and the descent to
  the slice level in slices (consumeWithLeadersGeneric in slices), then below it each domain's own pods among its
  children, in pods (consumeWithLeadersGeneric in pods: a domain partly taken with the leader keeps its whole
  `state` as its workers, so Kueue may place more workers than the count, which its fits check then refuses:
  tests/oracle/features/pod-set-group-tas-slices*.yaml) or in groups of an inner layer's size;
- two pod sets only: of a larger group Kueue places the first two and its scheduler panics once
  they fit (the third has no assignment for addAssumedUsage), an input error here (KAD259);
- when a level's domains hold fewer pods than their parent counted (a child that holds no leader
  adds no gap, so the parent's `stateWithLeader` is too high), Kueue's updateCountsToMinimumGeneric
  returns no domains and the group gets empty topology assignments; so does it here, and the API
  server refuses Kueue's admission write of them (engine/admission/decisions.py `refused_write`;
  tests/oracle/features/pod-set-group-tas-kueue-empty-assignment.yaml).

As in `tas`, the leaves are nodes, or racks (summed, unfiltered) where the lowest level is not the hostname.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kadmit.index import resolve_level
from kadmit.model import TopologyRequest
from kadmit.placement.balanced import balanced_assign
from kadmit.placement.counts import static_fitting
from kadmit.placement.domains import Domain, DomainTree, tas_fit_count
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import subtract
from kadmit.placement.counts import Counts
from kadmit.placement.layers import go_div, not_fit as layers_not_fit
from kadmit.placement.tas import Profile, TASResult, affinity_failure, request_levels


@dataclass(eq=False)
class _D:
    """One domain or node with Kueue's per-placement numbers."""

    values: tuple[str, ...]
    node: str | None
    children: list["_D"] = field(default_factory=list)
    state: int = 0
    leader: int = 0  # leaderState
    with_leader: int = 0  # stateWithLeader
    slices: int = 0  # sliceState
    slices_with_leader: int = 0  # sliceStateWithLeader


@dataclass
class GroupResult:
    """The leader's and the workers' placements, or Kueue's failure message."""

    leader: TASResult
    workers: TASResult
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


def _build(tree: DomainTree, workers: PodTemplate, leader: PodTemplate, free: Mapping[str, Mapping[str, int]] | None,
           slice_idx: int, size: int, inner: Mapping[int, int]) -> list[list[_D]]:
    """The per-level units, filled in as fillInCounts and fillInCountsHelper do (slices of `size` pods at level
    `slice_idx`, `inner` the inner layers' sizes); the leaves are nodes, or racks where the lowest level is not
    the hostname (`DomainTree.leaf_key` names them)."""
    passing = static_fitting(tree, workers)
    leader_requests = leader.request_map

    def leaf_unit(dom: Domain) -> _D:
        key = tree.leaf_key(dom)
        u = _D(dom.values, key)
        if tree.host_lowest:
            if key not in passing:
                return u
            if len(dom.nodes) > 1:  # nodes sharing a hostname: one leaf of their summed capacity
                node_free = tree.leaf_free(dom, free)
            else:
                node_free = tree.nodes[key].free if free is None or free.get(key) is None else free[key]
        else:  # a rack leaf: its summed free capacity, no node filter (as Kueue's fillInCounts)
            node_free = tree.leaf_free(dom, free)
        u.state = tas_fit_count(workers, node_free)
        if tas_fit_count(leader, node_free) > 0:
            u.leader = 1
            node_free = subtract(node_free, leader_requests)
        u.with_leader = tas_fit_count(workers, node_free)
        return u

    levels: list[list[_D]] = [[] for _ in tree.levels]

    def make(dom: Domain, depth: int) -> _D:
        if not dom.children:
            u = leaf_unit(dom)
        else:
            u = _D(dom.values, None)
            u.children = [make(c, depth + 1) for c in dom.children]
            k = inner.get(depth + 1)  # an inner layer's size at the children's level: their pods in whole groups
            states = [(c.state, c.with_leader) if k is None else (go_div(c.state, k) * k, go_div(c.with_leader, k) * k)
                      for c in u.children]
            u.state = sum(st for st, _ in states)
            u.with_leader = u.state - min(st - wl for st, wl in states)
            u.leader = max(c.leader for c in u.children)
            u.slices = sum(c.slices for c in u.children)
            u.slices_with_leader = u.slices - min(c.slices - c.slices_with_leader for c in u.children)
        if depth == slice_idx:
            u.slices, u.slices_with_leader = go_div(u.state, size), go_div(u.with_leader, size)
        levels[depth].append(u)
        return u

    for root in tree.roots:
        make(root, 0)
    return levels


def kueue_assign_group(tree: DomainTree, workers: PodTemplate, count: int, request: TopologyRequest,
                       leader: PodTemplate, *, free: Mapping[str, Mapping[str, int]] | None = None,
                       profile: Profile = "BestFit", balanced: bool = False) -> GroupResult:
    """Place `count` workers (the workers' `request`, slices included) and one leader in `tree` as Kueue places a
    pod-set group; `balanced`, Kueue's gate TASBalancedPlacement (`placement.balanced`, one leader)."""
    unconstrained = request.mode == "unconstrained"
    least_first = profile == "LeastFreeCapacity" or (profile == "Mixed" and unconstrained)
    best_fit = not least_first and profile != "MostFreeCapacity"

    def fail(reason: str) -> GroupResult:
        return GroupResult(TASResult(reason=reason), TASResult(reason=reason), reason)

    got_levels = request_levels(tree, request)
    if isinstance(got_levels, str):
        return fail(got_levels)
    level_idx, slice_idx_or_none, size, inner = got_levels
    last = len(tree.levels) - 1
    slice_idx = last if slice_idx_or_none is None else slice_idx_or_none  # sliceLevelKeyWithDefault: the lowest
    unparsable = affinity_failure(workers)  # Kueue parses the workers' affinity only: the leader is placed by it
    if unparsable is not None:
        return fail(unparsable)
    if not tree.roots:
        return fail(f"no topology domains at level: {tree.levels[level_idx]}")
    required = request.mode == "required"
    levels = _build(tree, workers, leader, free, slice_idx, size, inner)
    name = tree.topology.name
    slice_count = go_div(count, size)
    if balanced and not required and not unconstrained:  # Kueue tries it before findLevelWithFitDomains
        leaves = {u.values: u for u in levels[-1]}
        got = balanced_assign(tree, lambda dom, _: (leaves[dom.values].state, leaves[dom.values].leader,
                                                    leaves[dom.values].with_leader),
                              level_idx, slice_idx, slice_count, size, 1, inner=inner)
        if got is not None:
            if got.reason:
                return fail(got.reason)
            at, chosen = tree.levels[got.level_idx], got.domains
            return GroupResult(TASResult(got.leaders, at, chosen), TASResult(got.workers, at, chosen))

    def not_fit(fit: int) -> str:  # notFitMessage, or multiLayerNotFitMessage with inner layers
        if inner:
            counts = Counts({u.node: u.state for u in levels[-1] if u.node is not None},
                            {u.values: u.state for level in levels[:-1] for u in level})
            by_values = {u.values: u for level in levels for u in level}
            return layers_not_fit(tree, counts, lambda d: by_values[d.values].slices, idx, count, request.layers)
        unit = "pod" if size == 1 else "slice"
        if fit == 0:
            return f'topology "{name}" doesn\'t allow to fit any of {slice_count} {unit}(s)'
        return f'topology "{name}" allows to fit only {fit} out of {slice_count} {unit}(s)'

    def by_worker(units: list[_D]) -> list[_D]:  # sortedDomains
        return sorted(units, key=lambda d: ((d.slices if least_first else -d.slices), d.state, d.values))

    def by_leader(units: list[_D]) -> list[_D]:  # sortedDomainsWithLeader
        return sorted(units, key=lambda d: (-d.leader, d.slices_with_leader if least_first else -d.slices_with_leader,
                                            d.with_leader, d.values))

    def best(units: list[_D], needed: int, state) -> _D:  # findBestFitDomainBy
        top = units[0]
        for d in units:
            if state(d) >= needed and state(d) < state(top):
                top = d
        return top

    def swl(d: _D) -> int:
        return d.slices_with_leader

    def sl(d: _D) -> int:
        return d.slices

    # phase 2a: findLevelWithFitDomains, in slices
    idx = level_idx
    while True:
        ordered = by_leader(levels[idx])
        top = ordered[0]
        if best_fit and top.slices_with_leader >= slice_count and top.leader >= 1:
            top = best(ordered, slice_count, swl)
        if least_first:
            fit = next((d for d in ordered if d.slices >= slice_count), None)
            if fit is not None:
                chosen = [fit]
                break
            if required:
                return fail(not_fit(ordered[-1].state))
        if top.slices_with_leader >= slice_count and top.leader >= 1:
            chosen = [top]
            break
        if required:
            return fail(not_fit(top.slices))
        if idx > 0 and not unconstrained:
            idx -= 1
            continue
        chosen, left, leaders, i = [], slice_count, 1, 0
        while leaders > 0 and i < len(ordered) and ordered[i].leader > 0:
            d = ordered[i]
            if best_fit and d.slices_with_leader >= left:
                d = best(ordered[i:], left, swl)
            chosen.append(d)
            leaders -= d.leader
            left -= d.slices_with_leader
            i += 1
        if leaders > 0:
            return fail(not_fit(1 - leaders))
        rest = by_worker(ordered[i:])
        for j, d in enumerate(rest):
            if left <= 0:
                break
            if best_fit and d.slices >= left:
                d = best(rest[j:], left, sl)
            chosen.append(d)
            left -= d.slices
        if left > 0:
            return fail(not_fit(slice_count - left))
        break
    fit_level, fit_domains = tree.levels[idx], tuple("/".join(d.values) for d in chosen)

    def to_minimum(units: list[_D], pods: int, leaders: int, size: int, in_slices: bool) -> list[_D]:
        # updateCountsToMinimumGeneric with consumeWithLeadersGeneric: in slices of `size`, or in pods
        out: list[_D] = []
        left = go_div(pods, size) if in_slices else pods
        for i, d in enumerate(units):
            if leaders > 0:
                def with_leader(u: _D) -> int:
                    return u.slices_with_leader if in_slices else u.with_leader
                if best_fit and with_leader(d) >= left and d.leader >= leaders:
                    d = best(units[i:], left, with_leader)
                if with_leader(d) >= left and d.leader >= leaders:
                    if in_slices:
                        d.slices = left
                    d.leader, d.state = leaders, left * (size if in_slices else 1)
                    out.append(d)
                    return out
                if in_slices:  # clamped, then consumed; the state is the slices taken
                    d.slices_with_leader = min(d.slices_with_leader, left)
                    d.leader = min(d.leader, leaders)
                    d.state = d.slices_with_leader * size
                    leaders -= d.leader
                    left -= d.slices_with_leader
                else:  # consumed, then clamped to what is left; the state stays the domain's whole (Kueue's)
                    left -= d.with_leader
                    leaders -= d.leader
                    d.with_leader = min(d.with_leader, left)
                    d.leader = min(d.leader, leaders)
                out.append(d)
                continue
            held = sl if in_slices else (lambda u: u.state)
            if best_fit and held(d) >= left:
                d = best(units[i:], left, held)
            d.leader = 0
            if held(d) >= left:
                d.state = left * (size if in_slices else 1)
                if in_slices:
                    d.slices = left
                out.append(d)
                return out
            if in_slices:
                d.state = d.slices * size
            left -= held(d)
            out.append(d)
        # the domains hold fewer pods than their parent counted (a child that holds no leader left the parent's
        # stateWithLeader too high): Kueue logs "unexpected remainingCount" and goes on with no domains: empty
        # topology assignments, whose admission write the API server refuses
        return []

    # phase 2b: down to the slice level in slices across the chosen domains, then each domain's own pods
    taken = to_minimum(chosen, count, 1, size, True)
    level = idx
    while level < min(last, slice_idx):
        taken = to_minimum(by_worker([c for d in taken for c in d.children]), count, 1, size, True)
        level += 1
    while level < last:
        on_level = inner.get(level + 1, 1) if level >= slice_idx else size
        below: list[_D] = []
        for d in taken:
            kids = by_worker(d.children)
            if on_level > 1:  # an inner layer: its children's slices recounted in its size
                for k in kids:
                    k.slices, k.slices_with_leader = go_div(k.state, on_level), go_div(k.with_leader, on_level)
            below += to_minimum(kids, d.state, d.leader, on_level, on_level > 1)
        taken = below
        level += 1
    lead = {d.node: d.leader for d in taken if d.leader > 0 and d.node is not None}
    work = {d.node: d.state for d in taken if d.state > 0 and d.node is not None}
    return GroupResult(TASResult(dict(sorted(lead.items())), fit_level, fit_domains),
                       TASResult(dict(sorted(work.items())), fit_level, fit_domains))
