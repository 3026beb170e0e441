"""Kueue's placement of a pod-set group (a leader and its workers as one), `tas_group.kueue_assign_group`,
on small trees whose answers were checked against Kueue v0.17.0's own code (tools/kueue-oracle; the
same clusters are tests/oracle/features/pod-set-group-tas*.yaml)."""

from __future__ import annotations

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory
from kadmit.placement.tas import kueue_assign
from kadmit.placement.tas_group import kueue_assign_group

from .builders import DC, node, template

RACK = TopologyRequest(mode="required", level="rack")
ONE_GPU = template(gpu=1)


def tree(*nodes):
    return build_domains(DC, build_inventory(list(nodes), []).nodes)


def test_the_leader_goes_with_its_workers():
    """r1 holds 1 GPU, r2 4: the leader alone best-fits r1; the group goes to r2, the leader
    beside a worker on the node with room for both."""
    t = tree(node("n1", block="b1", rack="r1", gpu=1), node("n2", block="b1", rack="r2", gpu=2),
             node("n3", block="b1", rack="r2", gpu=2))
    assert kueue_assign(t, ONE_GPU, 1, RACK).placement == {"n1": 1}
    got = kueue_assign_group(t, ONE_GPU, 3, RACK, ONE_GPU)
    assert got.ok and got.leader.placement == {"n2": 1} and got.workers.placement == {"n2": 1, "n3": 2}
    assert got.workers.domains == ("b1/r2",)


def test_a_group_no_rack_holds_fails_with_kueues_message():
    t = tree(node("n1", block="b1", rack="r1", gpu=1), *(node(f"n{i}", block="b1", rack="r2", gpu=1)
                                                         for i in (2, 3, 4)))
    got = kueue_assign_group(t, ONE_GPU, 3, RACK, ONE_GPU)
    assert not got.ok and got.reason == 'topology "dc" allows to fit only 3 out of 3 pod(s)'


def test_preferred_goes_up_a_level():
    t = tree(*(node(f"n{i}", block="b1", rack=r, gpu=1) for i, r in ((1, "r1"), (2, "r1"), (3, "r2"), (4, "r2"))),
             node("n5", block="b2", rack="r3", gpu=3))
    got = kueue_assign_group(t, ONE_GPU, 3, TopologyRequest(mode="preferred", level="rack"), ONE_GPU)
    assert got.ok and got.workers.level.endswith("block") and got.workers.domains == ("b1",)
    assert got.leader.placement == {"n1": 1} and got.workers.placement == {"n2": 1, "n3": 1, "n4": 1}


def test_a_node_without_room_for_the_leader_makes_kueue_admit_on_no_node():
    """Kueue v0.17.0's slip (fillInCountsHelper): n2 holds no leader and so adds no gap, r1 counts 2
    workers beside the leader where the nodes hold 1; Kueue then places nothing and admits."""
    t = tree(node("n1", block="b1", rack="r1", gpu=2), node("n2", block="b1", rack="r1", gpu=0, cpu=1))
    got = kueue_assign_group(t, ONE_GPU, 2, RACK, ONE_GPU)
    assert got.ok and got.leader.placement == {} and got.workers.placement == {}


def test_the_workers_filters_decide_for_the_leader():
    """Kueue filters nodes by the workers' selector only: the leader lands where they may."""
    t = tree(node("n1", {"pool": "a"}, block="b1", rack="r1", gpu=4), node("n2", {"pool": "b"}, block="b1",
                                                                           rack="r1", gpu=4))
    got = kueue_assign_group(t, template({"pool": "b"}, gpu=1), 2, RACK, template({"pool": "a"}, gpu=1))
    assert got.leader.placement == {"n2": 1} and got.workers.placement == {"n2": 2}
