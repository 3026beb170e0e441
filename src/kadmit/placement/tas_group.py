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
- pods only: Kueue's webhook refuses a group with pod-set slices;
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
from kadmit.placement.domains import Domain, DomainTree, free_fit_count
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import subtract
from kadmit.placement.tas import Profile, TASResult, affinity_failure


@dataclass(eq=False)
class _D:
    """One domain or node with Kueue's per-placement numbers (slices of one pod: slice = pod)."""

    values: tuple[str, ...]
    node: str | None
    children: list["_D"] = field(default_factory=list)
    state: int = 0
    leader: int = 0  # leaderState
    with_leader: int = 0  # stateWithLeader (= sliceStateWithLeader)


@dataclass
class GroupResult:
    """The leader's and the workers' placements, or Kueue's failure message."""

    leader: TASResult
    workers: TASResult
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


def _build(tree: DomainTree, workers: PodTemplate, leader: PodTemplate,
           free: Mapping[str, Mapping[str, int]] | None) -> list[list[_D]]:
    """The per-level units, filled in as fillInCounts does; the leaves are nodes, or racks where
    the lowest level is not the hostname (`DomainTree.leaf_key` names them)."""
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
        u.state = free_fit_count(workers, node_free)
        if free_fit_count(leader, node_free) > 0:
            u.leader = 1
            node_free = subtract(node_free, leader_requests)
        u.with_leader = free_fit_count(workers, node_free)
        return u

    levels: list[list[_D]] = [[] for _ in tree.levels]

    def make(dom: Domain, depth: int) -> _D:
        if not dom.children:
            u = leaf_unit(dom)
        else:
            u = _D(dom.values, None)
            u.children = [make(c, depth + 1) for c in dom.children]
            u.state = sum(c.state for c in u.children)
            u.with_leader = u.state - min(c.state - c.with_leader for c in u.children)
            u.leader = max(c.leader for c in u.children)
        levels[depth].append(u)
        return u

    for root in tree.roots:
        make(root, 0)
    return levels


def kueue_assign_group(tree: DomainTree, workers: PodTemplate, count: int, request: TopologyRequest,
                       leader: PodTemplate, *, free: Mapping[str, Mapping[str, int]] | None = None,
                       profile: Profile = "BestFit", balanced: bool = False) -> GroupResult:
    """Place `count` workers and one leader in `tree` as Kueue places a pod-set group; `balanced`, Kueue's
    gate TASBalancedPlacement (`placement.balanced`, one leader)."""
    unconstrained = request.mode == "unconstrained"
    least_first = profile == "LeastFreeCapacity" or (profile == "Mixed" and unconstrained)
    best_fit = not least_first and profile != "MostFreeCapacity"

    def fail(reason: str) -> GroupResult:
        return GroupResult(TASResult(reason=reason), TASResult(reason=reason), reason)

    if unconstrained:
        level_idx = len(tree.levels) - 1
    else:
        key = resolve_level(tree.topology, request.level)
        if key is None:
            return fail(f"no requested topology level: {request.level}")
        level_idx = tree.levels.index(key)
    unparsable = affinity_failure(workers)  # Kueue parses the workers' affinity only: the leader is placed by it
    if unparsable is not None:
        return fail(unparsable)
    if not tree.roots:
        return fail(f"no topology domains at level: {tree.levels[level_idx]}")
    required = request.mode == "required"
    levels = _build(tree, workers, leader, free)
    name = tree.topology.name
    if balanced and not required and not unconstrained:  # Kueue tries it before findLevelWithFitDomains
        leaves = {u.values: u for u in levels[-1]}
        got = balanced_assign(tree, lambda dom, _: (leaves[dom.values].state, leaves[dom.values].leader,
                                                    leaves[dom.values].with_leader),
                              level_idx, len(tree.levels) - 1, count, 1, 1)
        if got is not None:
            if got.reason:
                return fail(got.reason)
            at, chosen = tree.levels[got.level_idx], got.domains
            return GroupResult(TASResult(got.leaders, at, chosen), TASResult(got.workers, at, chosen))

    def not_fit(fit: int) -> str:
        if fit == 0:
            return f'topology "{name}" doesn\'t allow to fit any of {count} pod(s)'
        return f'topology "{name}" allows to fit only {fit} out of {count} pod(s)'

    def by_worker(units: list[_D]) -> list[_D]:  # sortedDomains
        return sorted(units, key=lambda d: ((d.state if least_first else -d.state), d.state, d.values))

    def by_leader(units: list[_D]) -> list[_D]:  # sortedDomainsWithLeader
        return sorted(units, key=lambda d: (-d.leader, d.with_leader if least_first else -d.with_leader,
                                            d.with_leader, d.values))

    def best(units: list[_D], needed: int, with_leader: bool) -> _D:  # findBestFitDomainBy
        state = (lambda d: d.with_leader) if with_leader else (lambda d: d.state)
        top = units[0]
        for d in units:
            if state(d) >= needed and state(d) < state(top):
                top = d
        return top

    # phase 2a: findLevelWithFitDomains
    idx = level_idx
    while True:
        ordered = by_leader(levels[idx])
        top = ordered[0]
        if best_fit and top.with_leader >= count and top.leader >= 1:
            top = best(ordered, count, True)
        if least_first:
            fit = next((d for d in ordered if d.state >= count), None)
            if fit is not None:
                chosen = [fit]
                break
            if required:
                return fail(not_fit(ordered[-1].state))
        if top.with_leader >= count and top.leader >= 1:
            chosen = [top]
            break
        if required:
            return fail(not_fit(top.state))
        if idx > 0 and not unconstrained:
            idx -= 1
            continue
        chosen, left, leaders, i = [], count, 1, 0
        while leaders > 0 and i < len(ordered) and ordered[i].leader > 0:
            d = ordered[i]
            if best_fit and d.with_leader >= left:
                d = best(ordered[i:], left, True)
            chosen.append(d)
            leaders -= d.leader
            left -= d.with_leader
            i += 1
        if leaders > 0:
            return fail(not_fit(1 - leaders))
        rest = by_worker(ordered[i:])
        for j, d in enumerate(rest):
            if left <= 0:
                break
            if best_fit and d.state >= left:
                d = best(rest[j:], left, False)
            chosen.append(d)
            left -= d.state
        if left > 0:
            return fail(not_fit(count - left))
        break
    fit_level, fit_domains = tree.levels[idx], tuple("/".join(d.values) for d in chosen)

    def to_minimum(units: list[_D]) -> list[_D]:  # updateCountsToMinimumGeneric, slices of one pod
        out: list[_D] = []
        left, leaders = count, 1
        for i, d in enumerate(units):
            if leaders > 0:  # consumeWithLeadersGeneric
                if best_fit and d.with_leader >= left and d.leader >= leaders:
                    d = best(units[i:], left, True)
                if d.with_leader >= left and d.leader >= leaders:
                    d.with_leader = d.state = left
                    d.leader = leaders
                    out.append(d)
                    return out
                d.with_leader = min(d.with_leader, left)
                d.leader = min(d.leader, leaders)
                d.state = d.with_leader
                leaders -= d.leader
                left -= d.with_leader
                out.append(d)
                continue
            if best_fit and d.state >= left:
                d = best(units[i:], left, False)
            d.leader = 0
            if d.state >= left:
                d.state = left
                out.append(d)
                return out
            left -= d.state
            out.append(d)
        # the domains hold fewer pods than their parent counted (a child that holds no leader
        # left the parent's stateWithLeader too high): Kueue logs "unexpected remainingCount" and
        # goes on with no domains: empty topology assignments, whose admission write the API server refuses
        return []

    taken = to_minimum(chosen)
    while taken and taken[0].node is None:
        taken = to_minimum(by_worker([c for d in taken for c in d.children]))
    lead = {d.node: d.leader for d in taken if d.leader > 0 and d.node is not None}
    work = {d.node: d.state for d in taken if d.state > 0 and d.node is not None}
    return GroupResult(TASResult(dict(sorted(lead.items())), fit_level, fit_domains),
                       TASResult(dict(sorted(work.items())), fit_level, fit_domains))
