"""Kueue's multi-layer pod-set slices (feature gate TASMultiLayerTopology, alpha in v0.17.0, off by default).

A pod set's `podsetSliceRequiredTopologyConstraints` (a Workload's own, or a job's annotation
`kueue.x-k8s.io/podset-slice-required-topology-constraints`) lists up to three layers, outermost
first, each a level and a slice size: the first is the pod set's slice level and size
(`placement.tas`); with the gate on the inner ones group each slice's pods further, each finer than
the last and dividing its size (pkg/cache/scheduler/tas_flavor_snapshot.go, Kueue v0.17.0):

- `inner_sizes` is `buildSliceSizeAtLevel`: level index -> the size pods are grouped in there, each
  inner layer's size filling the levels from the layer above it (exclusive) down to its own;
- `rounded` is what `fillInCountsHelper` then counts: a domain holds the sum of its children's pods,
  each child's rounded down to a multiple of its level's size (a leaf keeps its own count);
- `grouped` is the descent below the slice level (the second loop of `findTopologyAssignment`): a
  domain's pods go to its children in whole groups of the children's level's size, best fit on those;
- `not_fit` is `multiLayerNotFitMessage`, Kueue's words where such a pod set doesn't fit.

With the gate off the inner layers count for nothing (`effective.gated` drops them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from kadmit.index import resolve_level
from kadmit.placement.counts import Counts
from kadmit.placement.domains import Domain, DomainTree


def go_div(a: int, b: int) -> int:
    """Go's integer division: truncated toward zero (a negative slice size's counts, as Kueue computes them)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def inner_sizes(tree: DomainTree, layers: tuple[tuple[str, int], ...], slice_idx: int,
                size: int) -> dict[int, int] | str:
    """Kueue's `buildSliceSizeAtLevel` for the inner layers (`layers[1:]`) below the first layer's level
    `slice_idx` and size `size`: level index -> size, or Kueue's reason where a layer can't be used."""
    out: dict[int, int] = {}
    prev_idx, prev_size = slice_idx, size
    for level, layer_size in layers[1:]:
        key = resolve_level(tree.topology, level)
        if key is None:
            return f"no requested topology level for additional slice layer: {level}"
        idx = tree.levels.index(key)
        if idx <= prev_idx:
            return f"additional slice layer topology {level} must be at a lower level than {tree.levels[prev_idx]}"
        if prev_size - go_div(prev_size, layer_size) * layer_size != 0:  # Go's `%` (the reader keeps sizes >= 1)
            return f"additional slice layer size {layer_size} must evenly divide parent layer size {prev_size}"
        for lvl in range(prev_idx + 1, idx + 1):
            out[lvl] = layer_size
        prev_idx, prev_size = idx, layer_size
    return out


def rounded(tree: DomainTree, counts: Counts, inner: dict[int, int]) -> Counts:
    """The pods per domain Kueue's `fillInCountsHelper` counts with inner layers: each child's count
    rounded down to a multiple of the size at its level before its parent sums it; leaves as counted."""
    domain: dict[tuple[str, ...], int] = {}

    def state(dom: Domain, level: int) -> int:
        if not dom.children:
            return counts.node[tree.leaf_key(dom)]
        total, k = 0, inner.get(level + 1)
        for child in dom.children:
            got = state(child, level + 1)
            total += got if k is None else go_div(got, k) * k
        domain[dom.values] = total
        return total

    for root in tree.roots:
        state(root, 0)
    return Counts(counts.node, domain)


def grouped(units: list, pods: int, group: int, to_minimum: Callable[[list, int], list]) -> list:
    """A domain's `pods` given to its children (`units`, in Kueue's order) in whole groups of `group`
    pods: `updateCountsToMinimumGeneric` in slices, each child's sliceState its pods // `group`, best fit
    on those (`to_minimum` on units counting groups); as (child, pods)."""
    if group <= 1:
        return to_minimum(units, pods)
    scaled = [replace(u, state=go_div(u.state, group)) for u in units]
    back = {id(s): u for s, u in zip(scaled, units)}
    return [(back[id(s)], n * group) for s, n in to_minimum(scaled, go_div(pods, group))]


def not_fit(tree: DomainTree, counts: Counts, slices: Callable[[Domain], int], level_idx: int, pods: int,
            layers: tuple[tuple[str, int], ...]) -> str:
    """Kueue's `multiLayerNotFitMessage` for `pods` pods at level `level_idx`: of the level's domain with
    the most slices (`slices`: its sliceState; ties: the least domain id, its values joined by commas),
    per layer the slices of the layer's size its domains at the layer's level hold (`countSlicesInSubtree`,
    on `counts`, the `rounded` ones) out of those the pod set needs. Kueue's exclusion counts follow
    (`pool._excluded`)."""
    out = f'topology "{tree.topology.name}" doesn\'t allow to fit'
    domains = tree.by_level[level_idx] if level_idx < len(tree.by_level) else []
    if not domains:
        return out
    best = min(domains, key=lambda d: (-slices(d), ",".join(d.values)))

    def held(dom: Domain, level: int, target: int, size: int) -> int:
        if level == target:
            state = counts.node[tree.leaf_key(dom)] if not dom.children else counts.domain[dom.values]
            return go_div(state, size)
        return sum(held(c, level + 1, target, size) for c in dom.children)

    for level, size in layers:
        key = resolve_level(tree.topology, level)
        if key is None:
            continue
        target = tree.levels.index(key)
        out += f"; {held(best, level_idx, target, size)}/{go_div(pods, size)} slice(s) fit on level {level}"
    return out
