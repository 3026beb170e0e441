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


def test_workers_slices_place_the_group_in_slices():
    """The workers' slices of 2 per host (tests/oracle/features/pod-set-group-tas-slices.yaml, team/a): no rack holds 3
    slices with the leader; r1 takes the leader and 2 slices, r3 the last one; down to the hosts in slices across both
    racks, n6 (the most slices) first with the leader."""
    t = tree(node("n1", block="b1", rack="r1", gpu=3), node("n2", block="b1", rack="r1", gpu=2),
             node("n3", block="b1", rack="r2", gpu=3), node("n4", block="b1", rack="r2", gpu=3),
             node("n5", block="b1", rack="r3", gpu=1), node("n6", block="b1", rack="r3", gpu=4))
    request = TopologyRequest(mode="preferred", level="rack", slice_level="kubernetes.io/hostname", slice_size=2)
    got = kueue_assign_group(t, ONE_GPU, 6, request, ONE_GPU)
    assert got.ok and got.leader.placement == {"n6": 1} and got.workers.placement == {"n1": 2, "n2": 2, "n6": 2}


def test_slices_at_the_groups_level_lose_the_leader_as_kueue_does():
    """Slices of 4 per rack (pod-set-group-tas-slices-at-the-group-level.yaml): below the slice level Kueue places in
    pods, and consumeWithLeadersGeneric subtracts the leader before it clamps it, so n2 keeps no leader and its whole
    2 workers, n1 3: 5 workers and no leader (an admission write the API server refuses)."""
    t = tree(node("n1", block="b1", rack="r1", gpu=3), node("n2", block="b1", rack="r1", gpu=2),
             node("n3", block="b1", rack="r2", gpu=3), node("n4", block="b1", rack="r2", gpu=3))
    request = TopologyRequest(mode="required", level="rack", slice_level="rack", slice_size=4)
    got = kueue_assign_group(t, ONE_GPU, 4, request, ONE_GPU)
    assert got.ok and got.leader.placement == {} and got.workers.placement == {"n1": 3, "n2": 2}
