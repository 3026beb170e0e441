"""The placement benchmark keeps working: its generators give valid states of the intended shape,
its invariant checks catch what they are for, the greedy baseline places as it says, and a tiny run
of each scenario completes with its checks passing."""

import pytest

import placement_bench as pb
import tas_states as ts

from kadmit.diagnostics import Diagnostics
from kadmit.model import Node
from kadmit.validate import validate


def _nodes(blocks: int, racks: int, per_rack: int) -> list[Node]:
    """Nodes as `gpu_gang_state` makes them."""
    return list(ts.gpu_gang_state(blocks, racks, per_rack, gangs=0)[0].nodes)


def _errors(model) -> list[str]:
    diags = Diagnostics()
    validate(model, diags)
    return [d.message for d in diags.items if d.severity.value == "error"]


@pytest.mark.parametrize("tas", [True, False], ids=["tas", "quota-only"])
def test_kueue_tas_state_is_valid_and_differs_only_in_topology(tas: bool) -> None:
    model = ts.kueue_tas_state(2, 4, workloads_per_queue=6, tas=tas)
    assert _errors(model) == []
    assert len(model.nodes) == (8 if tas else 0) and len(model.cluster_queues) == 6 and len(model.workloads) == 36
    assert (model.flavors[0].topology is not None) == tas
    assert all((ps.topology is not None) == tas for w in model.workloads for ps in w.pod_sets)
    other = ts.kueue_tas_state(2, 4, workloads_per_queue=6, tas=not tas)
    assert [(w.key, w.pod_sets[0].count, w.pod_sets[0].requests) for w in model.workloads] == \
        [(w.key, w.pod_sets[0].count, w.pod_sets[0].requests) for w in other.workloads]


def test_full_scale_compositions_follow_the_tables() -> None:
    assert [c.name for c in ts._queue_classes(ts.FULL_PER_QUEUE)].count("large-required-rack") == 20
    assert len(ts._queue_classes(7)) == 7
    sizes = ts.gang_sizes(500)
    assert {p: sizes.count(p) for p in set(sizes)} == dict(ts.GANG_SIZES)
    assert max(ts.gang_sizes(100, max_pods=64)) == 64 and len(ts.gang_sizes(100, max_pods=64)) == 100


def test_gpu_gangs_ask_for_a_rack_only_when_they_fit_one() -> None:
    model, gangs = ts.gpu_gang_state(2, 2, 4, gangs=12, max_pods=32, seed=3)
    assert _errors(model) == []
    for g in gangs:
        fits_rack = g.pods * g.requests[ts.GPU] <= 4 * ts.NODE_GPUS * 1000
        assert (g.mode, g.level) == ("required", ts.RACK) if fits_rack else g.level == ts.BLOCK


def test_greedy_first_fit_fills_nodes_in_name_order_and_skips_what_does_not_fit() -> None:
    nodes = _nodes(1, 2, 2)  # racks r00 and r01 of two 8-GPU nodes
    gangs = [ts.Gang("a", 3, ts.gang_requests(4), "required", ts.RACK),  # r00: 2 + 1
             ts.Gang("b", 2, ts.gang_requests(8), "required", ts.RACK),  # r00 has 4 GPUs left: r01
             ts.Gang("c", 1, ts.gang_requests(8), "required", ts.RACK),  # no whole node left
             ts.Gang("d", 1, ts.gang_requests(4), "preferred", ts.RACK)]  # r00's last 4 GPUs
    placed, free = pb.greedy_first_fit(nodes, gangs)
    assert placed == {"a": {"node-b0-r00-n00": 2, "node-b0-r00-n01": 1},
                      "b": {"node-b0-r01-n00": 1, "node-b0-r01-n01": 1},
                      "d": {"node-b0-r00-n01": 1}}
    assert pb.whole_free_gpu_nodes(free) == 0
    assert free["node-b0-r00-n01"][ts.GPU] == 0 and free["node-b0-r00-n00"]["pods"] == 108_000


def test_greedy_preferred_spreads_over_racks_when_no_rack_holds_the_gang() -> None:
    nodes = _nodes(1, 2, 1)
    placed, _ = pb.greedy_first_fit(nodes, [ts.Gang("p", 2, ts.gang_requests(8), "preferred", ts.RACK),
                                            ts.Gang("r", 1, ts.gang_requests(8), "required", ts.RACK)])
    assert placed == {"p": {"node-b0-r00-n00": 1, "node-b0-r01-n00": 1}}


def _placed(key: str, nodes: dict, count: int | None = None, mode: str = "required") -> pb.Placed:
    return pb.Placed(key, ts.gang_requests(8), sum(nodes.values()) if count is None else count, mode, ts.RACK, nodes)


@pytest.mark.parametrize("placed, message", [
    ([_placed("x", {"node-b0-r00-n00": 1}), _placed("y", {"node-b0-r00-n00": 1})], "over-committed"),
    ([_placed("x", {"node-b0-r00-n00": 1}, count=2)], "1 of 2 pods placed"),
    ([_placed("x", {"node-b0-r00-n00": 1, "node-b0-r01-n00": 1})], "required"),
])
def test_placement_checks_catch_what_they_are_for(placed, message) -> None:
    nodes = _nodes(1, 2, 1)
    free0 = {n.name: dict(n.allocatable) for n in nodes}
    with pytest.raises(AssertionError, match=message):
        pb.check_placements(nodes, free0, placed, (ts.BLOCK, ts.RACK, ts.HOST))
    spread = [_placed("x", {"node-b0-r00-n00": 1, "node-b0-r01-n00": 1}, mode="preferred")]
    assert pb.check_placements(nodes, free0, spread, (ts.BLOCK, ts.RACK, ts.HOST)) == {"pod_sets": 1, "nodes_used": 2}


def test_p95_is_the_nearest_rank() -> None:
    assert pb.p95([5.0]) == 5.0
    assert pb.p95([float(i) for i in range(1, 21)]) == 19.0
    assert pb.p95([float(i) for i in range(100, 0, -1)]) == 95.0


def test_scenario_a_tiny_run(capsys) -> None:
    figures = pb.scenario_a(2, 4, 8, seed=1)
    assert 0 < figures["admitted"] < figures["workloads"] == 48
    assert figures["placed_pod_sets"] == figures["admitted"]
    assert figures["decision_median_ms"] > 0 and figures["admit_s"] > 0
    assert "TAS / quota" in capsys.readouterr().out


def test_scenario_b_tiny_run(capsys) -> None:
    figures = pb.scenario_b(2, 2, 4, 8, 16, seed=2, repeats=1)
    assert 0 < figures["admitted"] <= 8 and 0 < figures["admitted_greedy"] <= 8
    assert 0 <= figures["whole_free_tas"] <= 16 and 0 <= figures["whole_free_greedy"] <= 16
    out = capsys.readouterr().out
    assert "greedy first-fit" in out and "< 250 ms" in out
