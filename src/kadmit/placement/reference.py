"""A brute-force reference placer for tiny clusters: the oracle for differential tests.

It is meant to be obviously correct, not fast: ≤ 6 nodes and ≤ 3 gangs of ≤ 4 pods.

A `Gang` is `count` identical pods of a `PodTemplate` that are placed whole or not at all, with
an optional topology request: `required` (every pod in one domain of the level), `preferred`
(scored, see below) or `unconstrained`. A gang with a topology request may only use nodes that
carry every label of the topology (Kueue ignores the others); a gang without one may use any node.

A placement maps gang -> node -> pods. `check_placement` validates one by replaying it pod by
pod through kube-scheduler's filters (`filter_node`) against the capacity left by the pods
before, and by checking the topology rules. Everything else is enumeration over that check:

- `placements(nodes, gangs)`: every valid placement of all the gangs, whole;
- `feasible(nodes, gangs)`: whether there is one;
- `admissible_sets(nodes, gangs)`: every set of gangs that can be placed together;
- `best_placement(nodes, gangs)`: the valid placement with the lowest `score`, which is, in
  order: the topology penalty (for each `preferred` gang, how many levels above its requested
  level the smallest domain holding all its pods is; one more than the requested level's depth
  when it spans several top-level domains), then the number of partly used nodes of the scarce
  resource (some but not all of it allocated, counting what was used before), then the
  placement itself, for determinism.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, product
from typing import Iterator, Literal, Mapping, Sequence

from kadmit.index import resolve_level
from kadmit.model import Topology
from kadmit.placement.filters import PodTemplate, filter_node
from kadmit.placement.inventory import NodeState, subtract

GPU = "nvidia.com/gpu"
Placement = dict[str, dict[str, int]]  # gang -> node -> pods


@dataclass(frozen=True)
class Gang:
    name: str
    template: PodTemplate
    count: int
    mode: Literal["required", "preferred", "unconstrained"] | None = None
    level: str | None = None  # a level key or short name; needed for required and preferred
    slice_level: str | None = None  # Kueue's pod-set slices: each `slice_size` pods in one domain of it
    slice_size: int = 1


def _in_topology(node: NodeState, topology: Topology | None) -> bool:
    return topology is not None and all(k in node.labels for k in topology.levels)


def _level_index(gang: Gang, topology: Topology | None) -> int | None:
    if topology is None:
        return None
    key = resolve_level(topology, gang.level)
    return None if key is None else topology.levels.index(key)


def _shared_depth(names: Sequence[str], by_name: Mapping[str, NodeState], topology: Topology) -> int:
    """The deepest level index at which all these nodes lie in one domain (-1 if none)."""
    depth = -1
    for i in range(len(topology.levels)):
        prefixes = {tuple(by_name[n].labels[k] for k in topology.levels[:i + 1]) for n in names}
        if len(prefixes) > 1:
            break
        depth = i
    return depth


def check_placement(nodes: Sequence[NodeState], gangs: Sequence[Gang], placement: Placement,
                    topology: Topology | None = None) -> list[str]:
    """Every way `placement` breaks the rules (empty when valid)."""
    by_name = {n.name: n for n in nodes}
    gang_by_name = {g.name: g for g in gangs}
    problems = []
    free = {n.name: dict(n.free) for n in nodes}
    for gname in sorted(placement):
        gang = gang_by_name.get(gname)
        if gang is None:
            problems.append(f"unknown gang `{gname}`")
            continue
        pods = placement[gname]
        if any(k < 0 for k in pods.values()):
            problems.append(f"gang `{gname}` has a negative pod count")
            continue
        if sum(pods.values()) != gang.count:
            problems.append(f"gang `{gname}` places {sum(pods.values())} of {gang.count} pods")
        used = sorted(n for n, k in pods.items() if k > 0)
        for name in used:
            node = by_name.get(name)
            if node is None:
                problems.append(f"gang `{gname}` uses unknown node `{name}`")
                continue
            if gang.mode is not None and not _in_topology(node, topology):
                problems.append(f"gang `{gname}` uses node `{name}` outside the topology")
            for i in range(pods[name]):
                reasons = filter_node(gang.template, node, free[name])
                if reasons:
                    problems.append(f"gang `{gname}` pod {i + 1} on `{name}`: {'; '.join(reasons)}")
                    break
                free[name] = subtract(free[name], gang.template.request_map)
        idx = _level_index(gang, topology)
        if gang.mode in ("required", "preferred") and idx is None:
            problems.append(f"gang `{gname}` asks for unknown level `{gang.level}`")
        elif gang.mode == "required" and used and all(n in by_name for n in used):
            if all(_in_topology(by_name[n], topology) for n in used) and \
                    _shared_depth(used, by_name, topology) < idx:
                problems.append(f"gang `{gname}` spans several `{gang.level}` domains")
        if gang.slice_level is not None:
            problems.extend(_slice_problems(gang, pods, by_name, topology))
    return problems


def _slice_problems(gang: Gang, pods: Mapping[str, int], by_name: Mapping[str, NodeState],
                    topology: Topology | None) -> list[str]:
    """Pods split into slices of `slice_size`, each within one slice-level domain: possible exactly
    when every such domain holds a multiple of the slice size."""
    key = resolve_level(topology, gang.slice_level) if topology is not None else None
    if key is None:
        return [f"gang `{gang.name}` asks for unknown slice level `{gang.slice_level}`"]
    depth = topology.levels.index(key) + 1
    per_domain: dict[tuple[str, ...], int] = {}
    for name, k in pods.items():
        node = by_name.get(name)
        if k > 0 and node is not None and _in_topology(node, topology):
            dom = tuple(node.labels[lk] for lk in topology.levels[:depth])
            per_domain[dom] = per_domain.get(dom, 0) + k
    return [f"gang `{gang.name}` puts {k} pods in `{'/'.join(dom)}`, not whole slices of {gang.slice_size}"
            for dom, k in sorted(per_domain.items()) if k % gang.slice_size]


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of `parts` non-negative integers summing to `total`."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _gang_options(nodes: Sequence[NodeState], gang: Gang, topology: Topology | None) -> list[dict[str, int]]:
    """Placements of one gang alone that pass `check_placement`."""
    names = [n.name for n in nodes]
    out = []
    for split in _compositions(gang.count, len(names)):
        option = {n: k for n, k in zip(names, split) if k}
        if not check_placement(nodes, [gang], {gang.name: option}, topology):
            out.append(option)
    return out


def placements(nodes: Sequence[NodeState], gangs: Sequence[Gang],
               topology: Topology | None = None) -> Iterator[Placement]:
    """Every valid placement of all `gangs`, whole (gangs and nodes taken in name order)."""
    nodes = sorted(nodes, key=lambda n: n.name)
    gangs = sorted(gangs, key=lambda g: g.name)
    options = [_gang_options(nodes, g, topology) for g in gangs]
    for combo in product(*options):
        placement = {g.name: dict(o) for g, o in zip(gangs, combo)}
        if not check_placement(nodes, gangs, placement, topology):
            yield placement


def feasible(nodes: Sequence[NodeState], gangs: Sequence[Gang], topology: Topology | None = None) -> bool:
    return next(placements(nodes, gangs, topology), None) is not None


def admissible_sets(nodes: Sequence[NodeState], gangs: Sequence[Gang],
                    topology: Topology | None = None) -> list[frozenset[str]]:
    """Every set of gang names that can be placed together, smallest first, then by names."""
    out = []
    names = sorted(g.name for g in gangs)
    by_name = {g.name: g for g in gangs}
    for size in range(len(names) + 1):
        for subset in combinations(names, size):
            if feasible(nodes, [by_name[n] for n in subset], topology):
                out.append(frozenset(subset))
    return out


def topology_penalty(nodes: Sequence[NodeState], gangs: Sequence[Gang], placement: Placement,
                     topology: Topology | None) -> int:
    """Levels given up, summed over `preferred` gangs (0 when each fits its requested level)."""
    if topology is None:
        return 0
    by_name = {n.name: n for n in nodes}
    penalty = 0
    for g in gangs:
        used = sorted(n for n, k in placement.get(g.name, {}).items() if k > 0)
        idx = _level_index(g, topology)
        if g.mode != "preferred" or not used or idx is None:
            continue
        penalty += max(0, idx - _shared_depth(used, by_name, topology))
    return penalty


def partly_used(nodes: Sequence[NodeState], gangs: Sequence[Gang], placement: Placement,
                scarce: str = GPU) -> int:
    """Nodes with some but not all of `scarce` allocated after the placement."""
    extra: dict[str, int] = {}
    for g in gangs:
        per_pod = g.template.request_map.get(scarce, 0)
        for name, k in placement.get(g.name, {}).items():
            extra[name] = extra.get(name, 0) + per_pod * k
    count = 0
    for n in nodes:
        total = n.allocatable.get(scarce, 0)
        used = n.used.get(scarce, 0) + extra.get(n.name, 0)
        count += total > 0 and 0 < used < total
    return count


def score(nodes: Sequence[NodeState], gangs: Sequence[Gang], placement: Placement,
          topology: Topology | None = None, scarce: str = GPU) -> tuple:
    flat = tuple(sorted((g, n, k) for g, pods in placement.items() for n, k in pods.items() if k))
    return (topology_penalty(nodes, gangs, placement, topology),
            partly_used(nodes, gangs, placement, scarce), flat)


def best_placement(nodes: Sequence[NodeState], gangs: Sequence[Gang], topology: Topology | None = None,
                   scarce: str = GPU) -> Placement | None:
    """The valid placement of all `gangs` with the lowest `score`, or None if there is none."""
    best, best_score = None, None
    for p in placements(nodes, gangs, topology):
        s = score(nodes, gangs, p, topology, scarce)
        if best_score is None or s < best_score:
            best, best_score = p, s
    return best
