"""Pod counts kept per shape (`placement.counts`) equal counts made from scratch after any sequence of
capacity changes, overlays included, and placing with them gives Kueue's placement unchanged."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit.model import Topology, TopologyRequest
from kadmit.placement.counts import FreeLog, ShapeCounts, count_fits
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory
from kadmit.placement.tas import kueue_assign

from .builders import DC, DC_RACKS, HOST, node, template

TOPOLOGIES = (DC_RACKS, DC)


def cluster(topology: Topology, gpus: list[int], hosts: int | None = None):
    """Nodes n0.. in blocks and racks; with `hosts`, node i has hostname `h{i % hosts}` (nodes
    sharing one are one leaf where the hostname is the lowest level)."""
    nodes = [node(f"n{i}", None if hosts is None else {HOST: f"h{i % hosts}"}, block=f"b{i % 2}", rack=f"r{i % 3}",
                  gpu=g) for i, g in enumerate(gpus)]
    return build_domains(topology, build_inventory(nodes, []).nodes)


def same(a, b, tree) -> bool:
    return all(a.node[n] == b.node[n] for n in b.node) and \
        all(a.domain[d.values] == b.domain[d.values] for level in tree.by_level for d in level)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TOPOLOGIES), st.lists(st.integers(0, 8), min_size=1, max_size=9), st.integers(1, 4),
       st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=12), st.integers(1, 12),
       st.one_of(st.none(), st.integers(1, 4)))
def test_kept_counts_equal_fresh_counts(topology, gpus, per_pod, writes, pods, hosts):
    tree = cluster(topology, gpus, hosts)
    tpl = template(gpu=per_pod)
    free = FreeLog({n: dict(tree.nodes[n].free) for n in tree.nodes})
    kept = ShapeCounts(tree, tpl).sync(free)
    names = sorted(tree.nodes)
    for i, (which, left) in enumerate(writes):
        free[names[which % len(names)]] = {**free[names[which % len(names)]], "nvidia.com/gpu": left * 1000}
        if not tree.host_lowest and left % 2:  # a rack leaf's own usage (admitted pods on the rack)
            leaf = sorted(tree.leaves)[which % len(tree.leaves)]
            free[leaf] = {"nvidia.com/gpu": -1000 * (left // 2)}
        if i % 3 == 0:
            kept.sync(free)
    kept.sync(free)
    assert same(kept.counts, count_fits(tree, tpl, free), tree)
    over = {names[0]: {**free[names[0]], "nvidia.com/gpu": 0}}
    assert same(kept.overlay(over), count_fits(tree, tpl, {**free, **over}), tree)
    for mode, level in (("required", "cloud.example.com/rack"), ("preferred", "cloud.example.com/rack"),
                        ("unconstrained", None)):
        req = TopologyRequest(mode=mode, level=level)
        for profile in ("BestFit", "Mixed", "LeastFreeCapacity"):
            assert kueue_assign(tree, tpl, pods, req, free=free, profile=profile, counts=kept.counts) == \
                kueue_assign(tree, tpl, pods, req, free=free, profile=profile)


def test_nodes_sharing_a_hostname_are_one_leaf_of_their_summed_capacity():
    """Where the hostname is the lowest level, nodes sharing one are one leaf (Kueue's leaves are keyed
    by the hostname): under the first node's levels, its pods counted on the nodes' summed free
    capacity (3 + 3 GPUs hold one pod of 4), keyed by the first node by name."""
    nodes = [node("n0", {HOST: "h"}, block="b0", rack="r0", gpu=3), node("n1", {HOST: "h"}, block="b1", rack="r1", gpu=3),
             node("n2", block="b1", rack="r1", gpu=2)]
    tree = build_domains(DC, build_inventory(nodes, []).nodes)
    assert [(d.values, d.nodes) for d in tree.by_level[-1]] == [(("b0", "r0", "h"), ["n0", "n1"]),
                                                               (("b1", "r1", "n2"), ["n2"])]
    assert set(tree.shared_hosts) == {"n0", "n1"} and tree.leaf_by_id == {"h": "n0", "n2": "n2"}
    counts = count_fits(tree, template(gpu=4), None)
    assert (counts.node["n0"], counts.node["n1"], counts.domain[("b0",)], counts.domain[("b1",)]) == (1, 0, 1, 0)
    got = kueue_assign(tree, template(gpu=4), 1, TopologyRequest(mode="required", level=HOST))
    assert got.ok and got.placement == {"n0": 1}
