"""The brute-force reference placer: table cases and properties over random tiny clusters."""

from __future__ import annotations

from itertools import combinations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains, node_fit_count
from kadmit.placement.filters import static_fit
from kadmit.placement.inventory import build_inventory
from kadmit.placement.reference import (Gang, admissible_sets, best_placement, check_placement, feasible,
                                        partly_used, placements)
from kadmit.placement.tas import kueue_assign

from kadmit.model import Node
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import node_state

from .builders import BLOCK, DC, DC_RACKS, HOST, RACK, node, pod, taint, template, tol

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def four_gpu_nodes_with_two_used():
    """The issue's motivating case: 24 free GPUs and no room for one 8-GPU pod."""
    ns = [node(f"n{i}", block="b", rack="r", gpu=8) for i in range(4)]
    return build_inventory(ns, [pod(f"p{i}", f"n{i}", gpu=2) for i in range(4)]).nodes


def test_quota_sized_capacity_is_not_room():
    ns = four_gpu_nodes_with_two_used()
    assert not feasible(ns, [Gang("big", template(gpu=8), 1)])
    assert feasible(ns, [Gang("six", template(gpu=6), 4)])
    assert not feasible(ns, [Gang("six", template(gpu=6), 4), Gang("one", template(gpu=1), 1)])


def test_gangs_are_whole_and_never_share_a_nodes_capacity():
    ns = build_inventory([node("a", gpu=8), node("b", gpu=8)]).nodes
    g1, g2 = Gang("g1", template(gpu=8), 2), Gang("g2", template(gpu=4), 1)
    assert admissible_sets(ns, [g1, g2]) == [frozenset(), frozenset({"g1"}), frozenset({"g2"})]
    assert check_placement(ns, [g1], {"g1": {"a": 1}}) == ["gang `g1` places 1 of 2 pods"]
    problems = check_placement(ns, [g1, g2], {"g1": {"a": 1, "b": 1}, "g2": {"a": 1}})
    assert problems == ["gang `g2` pod 1 on `a`: Insufficient nvidia.com/gpu"]


def test_required_topology_keeps_a_gang_in_one_domain():
    ns = build_inventory([node("a", block="b", rack="r1", gpu=8), node("b", block="b", rack="r2", gpu=8),
                          node("c", block="b", rack="r2", gpu=4)]).nodes
    gang = Gang("g", template(gpu=4), 3, "required", "rack")
    assert feasible(ns, [gang], DC)
    assert all(set(p["g"]) <= {"b", "c"} for p in placements(ns, [gang], DC))
    assert not feasible(ns, [Gang("g", template(gpu=4), 4, "required", "rack")], DC)
    assert feasible(ns, [Gang("g", template(gpu=4), 4, "required", "block")], DC)
    assert check_placement(ns, [gang], {"g": {"a": 2, "b": 1}}, DC) == \
        ["gang `g` spans several `rack` domains"]


def test_topology_gangs_only_use_nodes_with_every_level_label():
    ns = build_inventory([node("a", block="b", rack="r", gpu=8), node("x", gpu=8)]).nodes
    assert not feasible(ns, [Gang("g", template(gpu=8), 2, "unconstrained")], DC)
    assert feasible(ns, [Gang("g", template(gpu=8), 2)], DC)


def test_best_placement_prefers_the_requested_level_then_packs():
    ns = build_inventory([node("a", block="b", rack="r1", gpu=8), node("b", block="b", rack="r2", gpu=8),
                          node("c", block="b", rack="r2", gpu=8)]).nodes
    # preferred rack: three pods fit only in r2, so they stay there rather than spread over racks
    best = best_placement(ns, [Gang("g", template(gpu=4), 3, "preferred", "rack")], DC)
    assert set(best["g"]) == {"b", "c"}
    # two pods fill one node rather than half of two
    assert best_placement(ns, [Gang("g", template(gpu=4), 2, "preferred", "rack")], DC) == {"g": {"a": 2}}
    # packing keeps whole nodes free
    best = best_placement(ns, [Gang("g", template(gpu=2), 4)], DC)
    assert best == {"g": {"a": 4}}
    assert partly_used(ns, [Gang("g", template(gpu=2), 4)], {"g": {"a": 2, "b": 2}}) == 2


def test_taints_and_selectors_are_respected():
    ns = build_inventory([node("t", taints=[taint("gpu")], gpu=8), node("u", labels={"m": "a"}, gpu=8)]).nodes
    assert best_placement(ns, [Gang("g", template(gpu=8), 1)]) == {"g": {"u": 1}}
    tolerant = Gang("g", template(gpu=8, tolerations=[tol("gpu")]), 2)
    assert best_placement(ns, [tolerant]) == {"g": {"t": 1, "u": 1}}
    assert not feasible(ns, [Gang("g", template(selector={"m": "b"}, gpu=1), 1)])


# --- properties ---------------------------------------------------------------------------------

@st.composite
def clusters(draw):
    n = draw(st.integers(2, 4))
    ns, pods = [], []
    for i in range(n):
        labels = {"m": draw(st.sampled_from(["a", "b"]))}
        block, rack = draw(st.sampled_from([("b1", "r1"), ("b1", "r1"), ("b1", "r2"), ("b2", "r3"),
                                                   (None, None)]))
        taints = [taint("t")] if draw(st.integers(0, 3)) == 0 and i else []
        ns.append(node(f"n{i}", labels=labels, block=block, rack=rack, taints=taints,
                       unschedulable=draw(st.integers(0, 9)) == 0,
                       gpu=draw(st.sampled_from([0, 4, 8, 8])), cpu=draw(st.sampled_from([2, 8])),
                       pods=draw(st.sampled_from([1, 3, 110]))))
        used = draw(st.sampled_from([0, 0, 1, 2]))
        if used:
            pods.append(pod(f"p{i}", f"n{i}", gpu=used))
    return build_inventory(ns, pods).nodes


@st.composite
def gangs(draw, max_gangs=3):
    out = []
    for i in range(draw(st.integers(1, max_gangs))):
        mode, level = draw(st.sampled_from([(None, None), ("required", "rack"), ("required", "block"),
                                            ("preferred", "rack"), ("unconstrained", None)]))
        selector = draw(st.sampled_from([None, None, {"m": "a"}]))
        tolerations = [tol("t")] if draw(st.booleans()) else []
        tpl = template(selector=selector, tolerations=tolerations, name=f"g{i}",
                       gpu=draw(st.sampled_from([0, 1, 2, 4, 8])), cpu=draw(st.sampled_from([0, 0, 1, 2])))
        out.append(Gang(f"g{i}", tpl, draw(st.integers(1, 3)), mode, level))
    return out


def independent_check(ns, gs, placement, topology):
    """Capacity and filters, recomputed without the placer's code: totals per node and resource."""
    by_name = {n.name: n for n in ns}
    assert set(placement) == {g.name for g in gs}
    totals: dict[str, dict[str, int]] = {}
    for g in gs:
        pods = placement[g.name]
        assert sum(pods.values()) == g.count  # whole
        for name, k in pods.items():
            assert k > 0 and static_fit(g.template, by_name[name])
            if g.mode is not None:
                assert all(key in by_name[name].labels for key in topology.levels)
            for r, q in g.template.requests:
                totals.setdefault(name, {}).setdefault(r, 0)
                totals[name][r] += q * k
        if g.mode == "required":
            key = next(k for k in topology.levels if k.endswith(g.level))
            assert len({by_name[n].labels[key] for n in pods}) == 1
    for name, used in totals.items():
        for r, q in used.items():
            assert q == 0 or q <= by_name[name].free.get(r, 0)


@SETTINGS
@given(clusters(), gangs())
def test_every_placement_respects_capacity_filters_and_wholeness(ns, gs):
    count = 0
    for p in placements(ns, gs, DC):
        independent_check(ns, gs, p, DC)
        count += 1
        if count > 50:
            break
    best = best_placement(ns, gs, DC)
    assert (best is None) == (count == 0)
    if best is not None:
        independent_check(ns, gs, best, DC)


@SETTINGS
@given(clusters(), gangs())
def test_admissible_sets_are_closed_under_subsets(ns, gs):
    sets = admissible_sets(ns, gs, DC)
    assert frozenset() in sets
    for s in sets:
        for k in range(len(s)):
            assert all(frozenset(sub) in sets for sub in combinations(sorted(s), k))


@SETTINGS
@given(clusters(), gangs(max_gangs=1))
def test_kueue_assignment_agrees_with_the_reference_for_one_gang(ns, gs):
    """Not where a running pod overcommits its node (a GPU pod on a node of 0 GPUs): Kueue counts that node's room
    for pods negative and sums it into its domain's (c1934dba, the oracle's -negative-count-* cases), which the
    reference placer does not (8723615d for the engine's twin of this property)."""
    assume(all(q <= n.allocatable.get(r, 0) for n in ns for r, q in n.used.items()))
    (gang,) = gs
    if gang.mode is None:
        gang = Gang(gang.name, gang.template, gang.count, "unconstrained")
    topology = DC
    tree = build_domains(topology, ns)
    result = kueue_assign(tree, gang.template, gang.count, TopologyRequest(mode=gang.mode, level=gang.level))
    assert result.ok == feasible(ns, [gang], topology)
    if result.ok:
        assert check_placement(ns, [gang], {gang.name: result.placement}, topology) == []
        assert all(k <= node_fit_count(gang.template, tree.nodes[n]) for n, k in result.placement.items())


@SETTINGS
@given(clusters(), gangs(max_gangs=1))
def test_feasible_without_topology_iff_enough_room_node_by_node(ns, gs):
    (gang,) = gs
    gang = Gang(gang.name, gang.template, gang.count)
    room = sum(node_fit_count(gang.template, n) for n in ns)
    assert feasible(ns, [gang]) == (room >= gang.count)


@SETTINGS
@given(clusters(), gangs(max_gangs=1))
def test_a_rack_lowest_topology_places_as_if_each_rack_were_one_node(ns, gs):
    """Kueue's leaves of a topology whose lowest level is a rack are the racks: each holds its
    nodes' summed free capacity, and no node filter applies (fillInCounts checks taints and
    selectors on host leaves only). So placing on DC_RACKS gives what placing on DC gives over
    one unfiltered node per rack holding that sum."""
    (gang,) = gs
    mode, level = gang.mode or "unconstrained", gang.level
    if level is not None and level.endswith("hostname"):
        return
    racks = build_domains(DC_RACKS, ns, scope="f")
    if not racks.leaves:  # no node carries both labels
        assert not kueue_assign(racks, gang.template, gang.count, TopologyRequest(mode=mode, level=level)).ok
        return
    bare = PodTemplate(gang.template.name, gang.template.requests)
    synthetic = [node_state(Node(name=key.replace(":", "").replace(",", "-"),
                                 labels={BLOCK: d.values[0], RACK: d.values[1], HOST: key.replace(":", "").replace(",", "-")},
                                 allocatable=racks.leaf_free(d)))
                 for key, d in racks.leaves.items()]
    hosts = build_domains(DC, synthetic)
    req = TopologyRequest(mode=mode, level=level)
    got = kueue_assign(racks, gang.template, gang.count, req)
    want = kueue_assign(hosts, bare, gang.count, req)
    domains = tuple(d.rsplit("/", 1)[0] for d in want.domains) if want.level == HOST else want.domains
    reason = want.reason and want.reason.replace('"dc"', '"dc-racks"')
    assert (got.ok, got.reason, got.domains) == (want.ok, reason, domains)
    assert {racks.kueue_value(k): n for k, n in got.placement.items()} == \
        {hosts.nodes[k].labels[RACK]: n for k, n in want.placement.items()}
