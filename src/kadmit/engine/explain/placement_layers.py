"""`why`'s topology view of a pod set placed in slices (Kueue's pod-set slices, and with TASMultiLayerTopology
their inner layers, `placement.layers`): what Kueue places is whole slices, each made of whole groups of each
inner layer's size, so the view counts those, not pods. Per domain of the requested level it gives the slices it
holds (Kueue's sliceState, on the counts `fillInCountsHelper` rounds down to each layer's size), and for the best
of them, per layer, the slices of the layer's size its domains hold out of those the pod set needs — the numbers
of Kueue's `multiLayerNotFitMessage` — naming the innermost layer that falls short as the one that refuses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from kadmit.index import resolve_level
from kadmit.model import TopologyRequest
from kadmit.placement.counts import Counts, count_fits
from kadmit.placement.domains import Domain, DomainTree, level_label
from kadmit.placement.filters import PodTemplate
from kadmit.placement.layers import go_div, rounded
from kadmit.placement.tas import request_levels


@dataclass(frozen=True)
class Layered:
    """A sliced pod set's view: the text, the domains of the requested level with the slices each holds (most
    first), and the unit they are counted in (`slice(s) of 4`)."""

    view: str
    domains: list[tuple[Domain, int]]
    unit: str
    room: bool = False  # a domain holds every slice (Kueue's placement failed otherwise: balanced, greedy)


def layered_view(tree: DomainTree, template: PodTemplate, count: int, request: TopologyRequest,
                 free: Mapping[str, Mapping[str, int]] | None) -> Layered | None:
    """The view of `count` pods of `template` requested in slices at `free`; None for a request without slices
    (or one Kueue refuses before counting: its message says so)."""
    levels = request_levels(tree, request)
    if isinstance(levels, str) or levels[1] is None or levels[2] <= 0:
        return None
    level_idx, slice_idx, size, inner = levels
    raw = counts = count_fits(tree, template, free)
    if inner:
        counts = rounded(tree, counts, inner)
    need = go_div(count, size)
    layers = request.layers or ((request.slice_level or "", size),)
    fits = sorted(((d, _slices(tree, counts, d, level_idx, slice_idx, size)) for d in tree.by_level[level_idx]),
                  key=lambda dn: (-dn[1], dn[0].values))
    short = level_label(tree.levels[level_idx])
    unit = f"slice(s) of {size}"
    shape = f"in {need} slice(s) of {size} pods per {level_label(tree.levels[slice_idx])}" + "".join(
        f", groups of {k} per {level_label(key)}" for key, k in _inner_layers(tree, layers))
    head = f"{request.mode} {short}, {shape}"
    if not fits:
        return Layered(f"{head}: no {short} in topology `{tree.topology.name}`", [], unit)
    room = [d for d, n in fits if n >= need]
    if room:
        names = ", ".join(tree.display(d) for d in sorted(room, key=lambda d: d.values)[:5])
        more = f" and {len(room) - 5} more" if len(room) > 5 else ""
        return Layered(f"{head}: {len(room)} {short}(s) have room for {need} slice(s): {names}{more}", fits, unit,
                       room=True)
    best = fits[0][0]
    per_layer = [(level, k, _held(tree, counts, best, level_idx, tree.levels.index(key), k), go_div(count, k))
                 for level, k in layers if (key := resolve_level(tree.topology, level)) is not None]
    said = "; ".join(f"{held}/{needed} slice(s) of {k} fit on level {level_label(level)}"
                     for level, k, held, needed in per_layer)
    short_of = [x for x in per_layer if x[2] < x[3]]
    refuses = ""
    if short_of:
        level, k, held, needed = short_of[-1]
        under = _under(tree, best, level_idx, tree.levels.index(resolve_level(tree.topology, level)))
        pods = " and ".join(str(_state(tree, raw, d)) for d in under[:6]) + (" …" if len(under) > 6 else "")
        refuses = (f"; the {level_label(level)} layer refuses: {tree.display(best)}'s {level_label(level)}s hold {held} "
                   f"of the {needed} slice(s) of {k} needed (they fit {pods} pods)")
    return Layered(f"{head}: no {short} has room for {need} slice(s); best {short} {tree.display(best)}: {said}{refuses}",
                   fits, unit)


def _inner_layers(tree: DomainTree, layers) -> list[tuple[str, int]]:
    """The inner layers (below the first), as (level key, size)."""
    return [(key, k) for level, k in layers[1:] if (key := resolve_level(tree.topology, level)) is not None]


def _state(tree: DomainTree, counts: Counts, dom: Domain) -> int:
    return counts.node[tree.leaf_key(dom)] if not dom.children else counts.domain[dom.values]


def _slices(tree: DomainTree, counts: Counts, dom: Domain, level: int, slice_idx: int, size: int) -> int:
    """Kueue's sliceState of `dom` (at `level`): its slice-level domains' pods // `size`, summed."""
    if level >= slice_idx:
        return go_div(_state(tree, counts, dom), size)
    return sum(_slices(tree, counts, c, level + 1, slice_idx, size) for c in dom.children)


def _under(tree: DomainTree, dom: Domain, level: int, target: int) -> list[Domain]:
    """The domains of level `target` under `dom` (at `level`), in order."""
    if level == target:
        return [dom]
    return [d for c in dom.children for d in _under(tree, c, level + 1, target)]


def _held(tree: DomainTree, counts: Counts, dom: Domain, level: int, target: int, size: int) -> int:
    """`countSlicesInSubtree`: the slices of `size` the domains of level `target` under `dom` hold."""
    if level == target:
        return go_div(_state(tree, counts, dom), size)
    return sum(_held(tree, counts, c, level + 1, target, size) for c in dom.children)
