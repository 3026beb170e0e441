"""Free capacity per node: allocatable minus bound pods and extra usage; excluded nodes."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.model import Admission, Model, Node, PodSet, PodSetAssignment, Workload
from kadmit.placement.inventory import build_inventory, model_inventory, pod_usage

from .builders import GPU, admitted_usage, node, pod


def test_bound_pods_use_capacity_and_one_pod_each():
    inv = build_inventory([node("a", gpu=8, cpu=96)], [pod("p1", "a", gpu=2, cpu=4), pod("p2", "a", cpu=1)])
    a = inv.get("a")
    assert a.free == {GPU: 6000, "cpu": 91_000, "pods": 108_000}
    assert a.holders == ("ns/p1", "ns/p2")


def test_terminal_and_unbound_pods_hold_nothing():
    pods = [pod("done", "a", phase="Succeeded", gpu=8), pod("failed", "a", phase="Failed", gpu=8),
            pod("pending", None, gpu=8), pod("starting", "a", phase="Pending", gpu=1)]
    assert build_inventory([node("a", gpu=8)], pods).get("a").free[GPU] == 7000


def test_extra_usage_from_admitted_placements():
    extra = {"a": pod_usage({GPU: 2000}, 3), "nowhere": pod_usage({GPU: 1000})}
    a = build_inventory([node("a", gpu=8)], [], extra).get("a")
    assert a.free == {GPU: 2000, "pods": 107_000}


def test_over_committed_nodes_have_negative_free():
    a = build_inventory([node("a", cpu=4)], [pod("big", "a", cpu=6)]).get("a")
    assert a.free["cpu"] == -2000


def test_excluded_nodes_with_reasons():
    inv = build_inventory([node("c", unschedulable=True, cpu=1), node("b", ready=False, cpu=1),
                           node("a", cpu=1), node("d", unschedulable=True, ready=False, cpu=1)])
    assert [n.name for n in inv.nodes] == ["a", "b", "c", "d"]
    assert [n.name for n in inv.usable] == ["a"]
    assert inv.excluded == {"b": "node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
                            "c": "node(s) were unschedulable", "d": "node(s) were unschedulable"}


def test_missing_pods_limit_defaults_to_kubelet_max_pods_with_a_note():
    diags = Diagnostics()
    inv = build_inventory([Node(name="a", allocatable={"cpu": 1000})], diags=diags)
    assert inv.get("a").free["pods"] == 110_000
    assert [d.code for d in diags] == ["KAD601"]


def test_pod_on_unknown_node_is_a_warning_and_first_node_of_a_name_wins():
    diags = Diagnostics()
    model = Model(nodes=(node("a", cpu=2), node("a", cpu=99)), pods=(pod("p", "ghost", cpu=1),))
    inv = model_inventory(model, diags=diags)
    assert [n.name for n in inv.nodes] == ["a"]
    assert inv.get("a").free["cpu"] == 2000
    assert [(d.code, d.message) for d in diags] == [
        ("KAD600", "pod `ns/p` is bound to unknown node `ghost`")]


def test_with_usage_adds_and_records_holder():
    a = build_inventory([node("a", gpu=8)]).get("a")
    b = a.with_usage(pod_usage({GPU: 8000}), "team/job")
    assert b.free[GPU] == 0 and b.holders == ("team/job",) and a.free[GPU] == 8000


def tas_pod(name: str, on: str, **requests):
    """A pod of a workload Kueue admitted with topology-aware scheduling: its template's topology
    annotation, as Kueue v0.17 tells it (manifests read it: tests/manifests/test_pods.py)."""
    return pod(name, on, **requests).model_copy(update={"tas_annotation": "kueue.x-k8s.io/podset-required-topology",
                                                         "labels": {"app": "x"}})


def test_tas_pods_count_unless_skipped():
    pods = [tas_pod("w-0", "a", gpu=4), pod("daemon", "a", cpu=1), pod("other", "a", gpu=1).model_copy(
        update={"labels": {"kueue.x-k8s.io/podset": "main", "kueue.x-k8s.io/tas": "true"}})]  # v0.19's label: not TAS to v0.17
    counted = build_inventory([node("a", gpu=8, cpu=8)], pods).get("a")
    assert counted.free == {GPU: 3000, "cpu": 7000, "pods": 107_000}
    assert counted.holders == ("ns/daemon", "ns/other", "ns/w-0")
    skipped = build_inventory([node("a", gpu=8, cpu=8)], pods, skip_tas_pods=True).get("a")
    assert skipped.free == {GPU: 7000, "cpu": 7000, "pods": 108_000}
    assert skipped.holders == ("ns/daemon", "ns/other")


def test_skipping_tas_pods_leaves_the_placement_as_the_one_count():
    """A workload's placement plus its own bound, labelled pods: counted once with the flag."""
    wl = Workload(namespace="ns", name="w", queue="q",
                  pod_sets=(PodSet(name="main", count=2, requests={GPU: 4000}),),
                  admission=Admission(cluster_queue="cq", pod_sets=(
                      PodSetAssignment(name="main", count=2, placement={"a": 2}),)))
    model = Model(nodes=(node("a", gpu=8),), workloads=(wl,),
                  pods=(tas_pod("w-0", "a", gpu=4), tas_pod("w-1", "a", gpu=4)))
    once = model_inventory(model, admitted_usage(model), skip_tas_pods=True).get("a")
    assert once.free == {GPU: 0, "pods": 108_000}
    twice = model_inventory(model, admitted_usage(model)).get("a")
    assert twice.free == {GPU: -8000, "pods": 106_000}


def test_a_skipped_tas_pod_on_an_unknown_node_is_still_reported():
    diags = Diagnostics()
    model = Model(nodes=(node("a", cpu=2),), pods=(tas_pod("w-0", "ghost", cpu=1),))
    model_inventory(model, diags=diags, skip_tas_pods=True)
    assert [d.code for d in diags] == ["KAD600"]
