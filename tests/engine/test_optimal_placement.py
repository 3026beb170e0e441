"""Topology-aware placement in optimal mode: class counts in CP-SAT, decoded onto nodes, cut when they don't fit."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from placement.builders import BLOCK, DC, HOST, RACK, node, pod
from reference.builders import build, cluster_queue, flavor, fq, group, pod_set, workload

from kadmit import api
from kadmit.engine.decide import admit
from kadmit.engine.placing.pool import NodePool
from kadmit.index import ModelIndex
from kadmit.placement import model_inventory
from kadmit.model import Topology
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import NodeState
from kadmit.placement.reference import Gang, check_placement

pytest.importorskip("ortools")

TAS_CQ = cluster_queue("cq", group(fq("tas", gpu=1000, cpu=1000)))
TAS = flavor("tas", topology="dc")


def rack(name: str, n: int, block: str = "b1", **alloc):
    alloc = alloc or {"gpu": 8, "cpu": 96}
    return [node(f"{name}-{i}", rack=name, block=block, **alloc) for i in range(n)]


def decisions(model, mode):
    return {d.key: d for d in admit(model, mode=mode).decisions}


def test_mixed_shapes_in_one_class_get_a_cut_and_the_solution_fits_on_nodes():
    # 2 x 8 GPUs: 3 pods of 3 GPUs and 1 pod of 7 GPUs sum to 16 but don't pack (7 leaves 1; 3+3 leaves 2)
    m = build(TAS_CQ, TAS, DC, *rack("r0", 2),
              workload("a", pod_set("w", count=3, gpu=3), queue="cq"),
              workload("b", pod_set("w", count=1, gpu=7), queue="cq", minute=1))
    result = admit(m, mode="optimal")
    admitted = [d.key for d in result.decisions if d.admitted]
    assert admitted == ["default/a"]  # most pods at the one priority level
    assert result.optimal["placement"]["cuts"] >= 1
    placement = result.decisions[0].assignment.placement.pod_sets[0].nodes
    assert sum(placement.values()) == 3 and max(placement.values()) <= 2


def test_required_rack_uses_one_rack_and_waits_when_none_has_room():
    nodes = rack("r0", 2) + rack("r1", 2)
    busy = [pod(f"p{i}", f"r1-{i}", gpu=4) for i in range(2)]
    m = build(TAS_CQ, TAS, DC, *nodes, *busy,
              workload("fits", pod_set("w", count=2, gpu=8, topology=("required", "rack")), queue="cq"),
              workload("never", pod_set("w", count=3, gpu=8, topology=("required", "rack")), queue="cq",
                       minute=1))
    got = decisions(m, "optimal")
    assert not got["default/never"].admitted
    nodes_of = got["default/fits"].assignment.placement.pod_sets[0].nodes
    assert set(nodes_of) == {"r0-0", "r0-1"}


def test_optimal_admits_what_kueues_greedy_rack_choice_blocks():
    # Kueue's BestFit puts the 2-pod gang into the tight 3-node rack, so the second 3-pod gang finds
    # no rack; optimal puts both small gangs in the 5-node rack and the last gang in the 3-node one
    nodes = rack("r0", 5) + rack("r1", 3)
    gang = lambda name, n, minute: workload(name, pod_set("w", count=n, gpu=8, topology=("required", "rack")),  # noqa: E731
                                            queue="cq", minute=minute)
    m = build(TAS_CQ, TAS, DC, *nodes, gang("a", 2, 0), gang("b", 3, 1), gang("c", 3, 2))
    ordered = decisions(m, "ordered")
    assert [k for k, d in sorted(ordered.items()) if d.admitted] == ["default/a", "default/b"]
    assert set(ordered["default/a"].assignment.placement.pod_sets[0].nodes) <= {"r1-0", "r1-1", "r1-2"}
    optimal = decisions(m, "optimal")
    assert all(d.admitted for d in optimal.values())
    racks = {k: {n.split("-")[0] for n in d.assignment.placement.pod_sets[0].nodes} for k, d in optimal.items()}
    assert all(len(r) == 1 for r in racks.values())


def test_preferred_pod_set_is_kept_in_one_rack_when_it_can_be():
    nodes = rack("r0", 2) + rack("r1", 4)
    m = build(TAS_CQ, TAS, DC, *nodes,
              workload("p", pod_set("w", count=4, gpu=8, topology=("preferred", "rack")), queue="cq"))
    d = decisions(m, "optimal")["default/p"]
    assert set(d.assignment.placement.pod_sets[0].nodes) == {f"r1-{i}" for i in range(4)}


def test_identical_gangs_share_one_pool_and_each_gets_a_rack_of_its_own():
    nodes = [n for r in range(4) for n in rack(f"r{r}", 2)]
    gangs = [workload(f"g{i}", pod_set("w", count=2, gpu=8, topology=("required", "rack")), queue="cq", minute=i)
             for i in range(4)]
    result = admit(build(TAS_CQ, TAS, DC, *nodes, *gangs), mode="optimal")
    assert result.optimal["placement"]["pools"] == 1
    racks = [{n.split("-")[0] for n in d.assignment.placement.pod_sets[0].nodes} for d in result.decisions]
    assert all(len(r) == 1 for r in racks) and len(set.union(*racks)) == 4


def test_optimal_packs_pods_onto_fewest_nodes_so_others_stay_whole():
    # 3 + 5 pods of 2 GPUs are 16 GPUs: two full nodes, the third untouched
    m = build(TAS_CQ, TAS, DC, *rack("r0", 3),
              workload("a", pod_set("w", count=3, gpu=2, topology=("required", "rack")), queue="cq"),
              workload("b", pod_set("w", count=5, gpu=2, topology=("required", "rack")), queue="cq", minute=1))
    result = admit(m, mode="optimal")
    assert all(d.admitted for d in result.decisions)
    used = {n for d in result.decisions for p in d.assignment.placement.pod_sets for n in p.nodes}
    assert len(used) == 2


def test_greedy_first_fit_start_when_it_admits_more_than_bestfit():
    # the racks of test_optimal_admits_what_kueues_greedy_rack_choice_blocks: first fit by name admits all three
    nodes = rack("r0", 5) + rack("r1", 3)
    gangs = [workload(n, pod_set("w", count=c, gpu=8, topology=("required", "rack")), queue="cq", minute=i)
             for i, (n, c) in enumerate((("a", 2), ("b", 3), ("c", 3)))]
    result = admit(build(TAS_CQ, TAS, DC, *nodes, *gangs), mode="optimal", time_budget=0.01)
    assert result.optimal["placement"]["start"] == "greedy first fit"
    assert sum(d.admitted for d in result.decisions) == 3


def test_greedy_start_keeps_quota_when_quota_binds():
    # room on nodes for three gangs, quota for two: the greedy start checks quota workload by workload
    cq = cluster_queue("cq", group(fq("tas", gpu=32, cpu=1000)))
    gangs = [workload(f"g{i}", pod_set("w", count=2, gpu=8, topology=("required", "rack")), queue="cq", minute=i)
             for i in range(3)]
    result = admit(build(cq, TAS, DC, *rack("r0", 2), *rack("r1", 2), *rack("r2", 2), *gangs), mode="optimal",
                   time_budget=0.01)
    admitted = [d for d in result.decisions if d.admitted]
    assert len(admitted) == 2
    racks = [{n.split("-")[0] for n in d.assignment.placement.pod_sets[0].nodes} for d in admitted]
    assert all(len(r) == 1 for r in racks) and racks[0] != racks[1]


def test_elastic_pod_set_is_placed_whole_at_the_count_it_gets():
    m = build(TAS_CQ, TAS, DC, *rack("r0", 2), *rack("r1", 1),
              workload("e", pod_set("w", count=4, min_count=2, gpu=8, topology=("required", "rack")), queue="cq"))
    d = decisions(m, "optimal")["default/e"]
    p = d.assignment.placement.pod_sets[0]
    assert d.assignment.counts["w"] == 2 and sum(p.nodes.values()) == 2
    assert {n.split("-")[0] for n in p.nodes} == {"r0"}


SPREAD_NODES = [node(f"n{i}", gpu=4, cpu=32, rack=f"r{i % 2}", block="b1") for i in range(4)]
SPREAD_GANG = workload("w0", pod_set("w", count=3, gpu=3, topology=("preferred", HOST)), queue="cq", priority=0)


def test_preferred_host_pod_set_too_big_for_a_node_is_spread_over_nodes():
    # found by the property below: 3 pods of 3 GPUs on 4-GPU nodes can't share one node, so the pod set is
    # spread; the decoder put each class's spread pods on one node, as it does for a kept member, cut every
    # split and admitted nothing where ordered admits it
    m = build(TAS_CQ, TAS, DC, *SPREAD_NODES, SPREAD_GANG)
    result = admit(m, mode="optimal")
    d = result.decisions[0]
    assert d.admitted and result.optimal["placement"]["cuts"] == 0
    nodes = d.assignment.placement.pod_sets[0].nodes
    assert sorted(nodes.values()) == [1, 1, 1]


@st.composite
def tiny_cluster(draw):
    n_nodes = draw(st.integers(2, 4))
    nodes = [node(f"n{i}", gpu=draw(st.sampled_from([4, 8])), cpu=32, rack=f"r{i % 2}", block="b1")
             for i in range(n_nodes)]
    busy = [pod(f"p{i}", f"n{i}", gpu=draw(st.integers(0, 3))) for i in range(n_nodes) if draw(st.booleans())]
    wls = []
    for i in range(draw(st.integers(1, 3))):
        topo = draw(st.sampled_from([None, ("required", "rack"), ("preferred", "rack"), ("required", "block"),
                                     ("required", HOST), ("preferred", HOST)]))
        count = draw(st.integers(1, 3))
        wls.append(workload(f"w{i}", pod_set("w", count=count, gpu=draw(st.sampled_from([1, 2, 3, 4])), topology=topo,
                                             min_count=draw(st.sampled_from([None, 1])) if count > 1 else None),
                            queue="cq", minute=i,
                            priority=draw(st.sampled_from([0, 10]))))
    return build(TAS_CQ, TAS, DC, *nodes, *busy, *wls)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cluster())
@example(build(TAS_CQ, TAS, DC, *SPREAD_NODES, SPREAD_GANG))
def test_optimal_placements_fit_together_and_never_lose_to_ordered_at_the_top_priority(model):
    result = admit(model, mode="optimal")
    ix = ModelIndex(model)
    inventory = model_inventory(model)
    gangs, placement = [], {}
    for d in result.decisions:
        if not d.admitted:
            continue
        wp = d.assignment.placement
        assert wp is not None and wp.ok
        for p in wp.pod_sets:
            ps = next(x for x in d.workload.pod_sets if x.name == p.request.pod_set)
            assert sum(p.nodes.values()) == d.assignment.counts[ps.name]
            name = f"{d.key}/{ps.name}"
            mode = ps.topology.mode if ps.topology and ps.topology.mode == "required" else None
            gangs.append(Gang(name, PodTemplate.build(ps, [ix.flavors["tas"]]), sum(p.nodes.values()), mode,
                              ps.topology.level if mode else None))
            placement[name] = p.nodes
    assert check_placement(inventory.nodes, gangs, placement, DC) == []
    top = max(ix.priority(w) for w in model.workloads)
    ordered = admit(model, mode="ordered")
    count = lambda ds: sum(1 for d in ds if d.admitted and ix.priority(d.workload) == top)  # noqa: E731
    assert count(result.decisions) >= count(ordered.decisions)


@pytest.mark.parametrize("mode", ["ordered", "optimal"])
def test_pods_admitted_on_a_rack_leaf_take_its_capacity_in_both_modes(mode):
    """A rack-lowest topology's rack r0 is full with an admitted assignment on the rack itself (Kueue
    counts it on that leaf): neither mode admits ns/new there; optimal mode places on the leaves, so
    it counts the rack's usage on the rack leaf, as Kueue does."""
    from pathlib import Path

    from kadmit.diagnostics import Diagnostics
    from kadmit.manifests import read_manifest_text
    from kadmit.model import merge

    path = Path(__file__).parents[1] / "oracle" / "features" / "tas-admitted-assignment-on-rack-level.yaml"
    model = merge([read_manifest_text(path.read_text(), str(path), Diagnostics())])
    got = {d.key: d.admitted for d in admit(model, mode=mode).decisions}
    assert got == {"ns/new": False}


DC_RACK_LOWEST = Topology(name="dc", levels=(BLOCK, RACK))


@st.composite
def leaf_cluster(draw):
    """A small cluster whose Kueue leaves are not single nodes: a topology whose lowest level is the
    rack, or nodes sharing a hostname where the hostname is the lowest level."""
    racks = draw(st.booleans())
    n_nodes = draw(st.integers(2, 5))
    nodes = [node(f"n{i}", None if racks else {HOST: f"h{i % 2}"}, gpu=draw(st.sampled_from([2, 4, 8])), cpu=32,
                  rack=f"r{i % 2}" if racks else "r0", block="b1") for i in range(n_nodes)]
    busy = [pod(f"p{i}", f"n{i}", gpu=draw(st.integers(0, 2))) for i in range(n_nodes) if draw(st.booleans())]
    levels = ["rack", "block"] if racks else [HOST, "rack"]
    wls = []
    for i in range(draw(st.integers(1, 4))):
        topo = draw(st.sampled_from([None, ("required", levels[0]), ("preferred", levels[0]), ("required", levels[1])]))
        count = draw(st.integers(1, 3))
        wls.append(workload(f"w{i}", pod_set("w", count=count, gpu=draw(st.sampled_from([1, 3, 5, 6])), topology=topo,
                                             min_count=draw(st.sampled_from([None, 1])) if count > 1 else None),
                            queue="cq", minute=i, priority=draw(st.sampled_from([0, 10]))))
    return build(TAS_CQ, TAS, DC_RACK_LOWEST if racks else DC, *nodes, *busy, *wls)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(leaf_cluster())
def test_optimal_places_on_kueues_leaves_and_never_loses_to_ordered_at_the_top_priority(model):
    """Optimal mode places on Kueue's leaves (a rack where the rack is the lowest level; the nodes
    sharing a hostname): checked by the reference on one node per leaf holding its summed free
    capacity (Kueue counts a rack with no node filter; these pods have none), and it admits at
    least as many top-priority workloads as Kueue's order."""
    result = admit(model, mode="optimal")
    ix = ModelIndex(model)
    pool = NodePool(model, ix)
    tree = pool.tree("tas")
    topology = ix.topologies["dc"]
    leaves = [NodeState(key, dict(zip(topology.levels, d.values)), (), False, True, tree.leaf_free(d, pool.free), {})
              for key, d in tree.leaves.items()]
    gangs, placement = [], {}
    for d in result.decisions:
        if not d.admitted:
            continue
        for p in d.assignment.placement.pod_sets:
            ps = next(x for x in d.workload.pod_sets if x.name == p.request.pod_set)
            assert sum(p.nodes.values()) == d.assignment.counts[ps.name]
            assert p.assignment == {tree.kueue_value(k): n for k, n in p.nodes.items()}
            name = f"{d.key}/{ps.name}"
            mode = ps.topology.mode if ps.topology and ps.topology.mode == "required" else None
            gangs.append(Gang(name, PodTemplate.build(ps, [ix.flavors["tas"]]), sum(p.nodes.values()), mode,
                              ps.topology.level if mode else None))
            placement[name] = p.nodes
    assert check_placement(leaves, gangs, placement, topology) == []
    top = max(ix.priority(w) for w in model.workloads)
    ordered = admit(model, mode="ordered")
    count = lambda ds: sum(1 for d in ds if d.admitted and ix.priority(d.workload) == top)  # noqa: E731
    assert count(result.decisions) >= count(ordered.decisions)


@pytest.mark.parametrize("case", ["tas-rack-lowest-level-sums-its-nodes", "tas-nodes-sharing-a-hostname-are-one-leaf"])
def test_optimal_admits_what_only_a_leafs_summed_capacity_holds(case):
    """A pod no single node holds, which Kueue admits on a rack's (or a shared hostname's) summed
    free capacity: optimal mode admits it too, on that leaf, named by Kueue's value."""
    from pathlib import Path

    from kadmit.diagnostics import Diagnostics
    from kadmit.manifests import read_manifest_text
    from kadmit.model import merge

    path = Path(__file__).parents[1] / "oracle" / "features" / f"{case}.yaml"
    model = merge([read_manifest_text(path.read_text(), str(path), Diagnostics())])
    got = {d.key: d.assignment.placement.pod_sets[0].assignment for d in admit(model, mode="optimal").decisions
           if d.admitted}
    want = {"ns/new": {"r0": 1}} if "rack" in case else {"ns/wide": {"host-a": 6}, "ns/small": {"host-b": 2}}
    assert got == want


def test_a_placement_on_a_rack_leafs_key_holds_the_rack_when_read_back():
    """`simulate --mode optimal` gives the workloads it admitted back to the engine with their
    placements as kadmit made them (leaf keys, no levels): one on a rack leaf's key holds that rack
    (the pool counts it there), so the next pod no longer fits."""
    from pathlib import Path

    from kadmit.diagnostics import Diagnostics
    from kadmit.manifests import read_manifest_text
    from kadmit.model import Admission, PodSetAssignment, merge

    path = Path(__file__).parents[1] / "oracle" / "features" / "tas-rack-lowest-level-sums-its-nodes.yaml"
    model = merge([read_manifest_text(path.read_text(), str(path), Diagnostics())])
    first = admit(model, mode="optimal").decisions[0]
    placement = first.assignment.placement.pod_sets[0].nodes
    assert placement == {"f0:r0": 1}
    wl = first.workload
    held = wl.model_copy(update={"admission": Admission(cluster_queue="cq", pod_sets=(PodSetAssignment(
        name="main", flavors=dict(first.assignment.flavors["main"]), count=1, placement=placement),))})
    again = wl.model_copy(update={"name": "again", "uid": None})
    model = model.model_copy(update={"workloads": (held, again)})
    assert NodePool(model, ModelIndex(model)).placed == {wl.key: {"f0:r0": {"cpu": 3000, "pods": 1000}}}
    assert {d.key: d.admitted for d in admit(model, mode="optimal").decisions} == {"ns/again": False}


def test_a_term_on_the_node_name_keeps_alike_nodes_apart():
    """Nodes alike in every label a pod set reads still differ by name where a term reads it (`matchFields`,
    Kueue's TAS: tests/oracle/features/tas-node-affinity-match-fields-terms.yaml): optimal mode places each
    workload on the one node its affinity leaves, as ordered mode does."""
    path = Path(__file__).resolve().parents[2] / "tests/oracle/features/tas-node-affinity-match-fields-terms.yaml"
    model = api.load_for_engine([str(path)]).workspace.model
    for mode in ("ordered", "optimal"):
        got = decisions(model, mode)
        assert sorted(k for k, d in got.items() if d.admitted) == ["team/and", "team/notin", "team/or"], mode
