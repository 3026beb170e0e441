"""Topology domains, fits_count, the `why` topology view, and Kueue's TAS assignment."""

from __future__ import annotations

import pytest
from opcount import calls

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains, domain_fits, fits_count, free_fit_count, topology_view
from kadmit.placement.inventory import build_inventory
from kadmit.placement.reference import Gang, check_placement
from kadmit.placement.tas import kueue_assign

from .builders import DC, DC_RACKS, node, pod, template

GPU8, GPU4 = template(gpu=8), template(gpu=4)


def nodes():
    """b1/r1: n1, n2 (8 free), n3 (4 free); b1/r2: n4, n5; b2/r3: n6..n9; `x` lacks topology labels."""
    layout = {"n1": ("b1", "r1"), "n2": ("b1", "r1"), "n3": ("b1", "r1"), "n4": ("b1", "r2"),
              "n5": ("b1", "r2"), "n6": ("b2", "r3"), "n7": ("b2", "r3"), "n8": ("b2", "r3"),
              "n9": ("b2", "r3")}
    ns = [node(n, block=b, rack=r, gpu=8, cpu=96) for n, (b, r) in layout.items()] + [node("x", gpu=8)]
    return build_inventory(ns, [pod("busy", "n3", gpu=4)]).nodes


@pytest.fixture(params=[DC, DC_RACKS], ids=["host-lowest", "rack-lowest"])
def tree(request):
    return build_domains(request.param, nodes())


def test_tree_shape(tree):
    assert [d.path for d in tree.roots] == ["b1", "b2"]
    assert [d.path for d in tree.domains("rack")] == ["b1/r1", "b1/r2", "b2/r3"]
    assert tree.outside == ("x",)
    r1 = tree.domains("rack")[0]
    assert r1.nodes == ["n1", "n2", "n3"] and r1.parent is tree.roots[0]
    assert sorted(c.size for c in r1.classes) == [1, 2]  # n1+n2 share a class, n3 is apart
    assert r1.capacity["nvidia.com/gpu"] == 20_000


def test_fits_count_sums_per_node(tree):
    r1 = tree.domains("rack")[0]
    assert fits_count(GPU8, r1) == 2
    assert fits_count(GPU4, r1) == 5  # 2 + 2 + 1: summed capacity (20) would say the same, per node counts
    assert fits_count(GPU4, tree.roots[0]) == 9
    assert fits_count(template(gpu=6), r1) == 2  # summed capacity would claim 3
    free = {n: dict(tree.nodes[n].free) for n in r1.nodes}
    free["n1"]["nvidia.com/gpu"] = 0
    assert fits_count(GPU8, r1, free, tree.nodes) == 1


def test_fits_count_respects_filters(tree):
    r1 = tree.domains("rack")[0]
    assert fits_count(template(selector={"model": "h100"}, gpu=1), r1) == 0


def test_domain_fits_and_view(tree):
    fits = [(d.path, n) for d, n in domain_fits(tree, GPU8, "rack")]
    assert fits == [("b2/r3", 4), ("b1/r1", 2), ("b1/r2", 2)]
    assert topology_view(tree, GPU8, 5, "required", "rack") == \
        "required rack: no rack has room for 5 pods; best rack r3 fits 4"
    assert topology_view(tree, GPU8, 2, "required", "rack") == \
        "required rack: 3 rack(s) have room for 2 pods: r1, r2, r3"
    assert topology_view(tree, template(gpu=9), 1, "required", "block") == (
        "required block: no block has room for 1 pods; no block fits any" if tree.host_lowest else
        "required block: 2 block(s) have room for 1 pods: b1, b2")  # racks hold their nodes' sum
    assert topology_view(tree, GPU8, 1, "required", "zone") == \
        f"required zone: topology `{tree.topology.name}` has no level `zone`"


def assign(tree, tpl, count, mode, level=None, **kw):
    return kueue_assign(tree, tpl, count, TopologyRequest(mode=mode, level=level), **kw)


def test_required_takes_the_best_fitting_domain(tree):
    # rack-lowest: Kueue's leaves are the racks, each holding its nodes' summed free capacity
    r1, r3 = ("n1", "n2", "n3"), ("n6", "n7", "n8")
    if not tree.host_lowest:
        r1, r3 = (":b1,r1",), (":b2,r3",)
    r = assign(tree, GPU8, 2, "required", "rack")
    assert r.ok and r.domains == ("b1/r1",)
    assert r.placement == ({"n1": 1, "n2": 1} if tree.host_lowest else {":b1,r1": 2})
    r = assign(tree, GPU4, 5, "required", "rack")
    assert r.placement == ({"n1": 2, "n2": 2, "n3": 1} if tree.host_lowest else {":b1,r1": 5})
    r = assign(tree, GPU8, 3, "required", "rack")
    assert r.domains == ("b2/r3",) and r.placement == dict.fromkeys(r3, 1 if tree.host_lowest else 3)
    assert set(r1) <= set(tree.leaves)


def test_required_fails_with_kueues_message(tree):
    r = assign(tree, GPU8, 5, "required", "rack")
    assert not r.ok and r.reason == f'topology "{tree.topology.name}" allows to fit only 4 out of 5 pod(s)'
    r = assign(tree, template(gpu=9), 1, "required", "rack")
    if tree.host_lowest:
        assert r.reason == f'topology "{tree.topology.name}" doesn\'t allow to fit any of 1 pod(s)'
    else:  # no node holds 9 GPUs, but the racks' nodes together do (Kueue counts the sum): b1/r2's 16 fit best
        assert r.ok and r.placement == {":b1,r2": 1}
    assert assign(tree, GPU8, 1, "required", "zone").reason == "no requested topology level: zone"


def test_preferred_climbs_to_the_enclosing_level(tree):
    r = assign(tree, GPU4, 9, "preferred", "rack")  # no rack holds 9, block b1 holds exactly 9
    assert r.ok and r.level.endswith("block") and r.domains == ("b1",)
    b1 = {"n1", "n2", "n3", "n4", "n5"} if tree.host_lowest else {":b1,r1", ":b1,r2"}
    assert sum(r.placement.values()) == 9 and set(r.placement) <= b1
    r = assign(tree, GPU8, 7, "preferred", "rack")  # no block holds 7: several blocks
    assert r.ok and r.domains == ("b1", "b2") and sum(r.placement.values()) == 7
    assert not assign(tree, GPU8, 9, "preferred", "rack").ok


def test_unconstrained_spreads_greedily(tree):
    r = assign(tree, GPU8, 3, "unconstrained")
    assert r.ok and sum(r.placement.values()) == 3 and "x" not in r.placement


def test_most_free_capacity_profile_takes_the_largest_domain(tree):
    r = assign(tree, GPU8, 2, "required", "rack", profile="MostFreeCapacity")
    assert r.domains == ("b2/r3",)


@pytest.mark.parametrize("count, mode, level", [(2, "required", "rack"), (4, "required", "block"),
                                                 (9, "preferred", "rack"), (7, "unconstrained", None)])
def test_kueue_assignments_are_valid_placements(tree, count, mode, level):
    r = assign(tree, GPU4, count, mode, level)
    gang = Gang("g", GPU4, count, mode, level)
    if tree.host_lowest:
        assert r.ok and check_placement(nodes(), [gang], {"g": r.placement}, tree.topology) == []
    else:  # every pod on a rack leaf whose summed free capacity holds the rack's pods
        assert r.ok and sum(r.placement.values()) == count
        for key, pods in r.placement.items():
            assert free_fit_count(GPU4, tree.leaf_free(tree.leaves[key])) >= pods


def _built_and_assigned(per_rack: int, pods: int):
    """The work (function calls) of building the domains of 250 racks of `per_rack` nodes and placing
    a gang of `pods` in one rack, the tree and the assignment."""
    ns = [node(f"n-{b}-{r}-{i}", block=f"b{b}", rack=f"b{b}-r{r}", gpu=8, cpu=96)
          for b in range(10) for r in range(25) for i in range(per_rack)]
    inv = build_inventory(ns)
    got = {}

    def run():
        got["tree"] = build_domains(DC, inv.nodes)
        got["r"] = assign(got["tree"], GPU8, pods, "required", "rack")
    return calls(run), got["tree"], got["r"]


def test_five_thousand_nodes_build_and_assign_in_linear_work():
    # counted, not timed (bench/placement_bench.py times 5,000 GPU nodes): 10x the nodes and the gang
    # cost ~10x the calls (9x when written), where a walk over pairs of nodes would cost ~100x
    small, _, r_small = _built_and_assigned(2, 2)
    large, tree, r = _built_and_assigned(20, 20)
    assert r_small.ok and r.ok and len(r.placement) == 20 and len(tree.classes) == 250
    assert large < 20 * small, (small, large)
