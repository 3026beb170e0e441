"""Node equivalence classes: identical nodes collapse, any difference that matters splits."""

from __future__ import annotations

from opcount import calls

from kadmit.placement.classes import node_classes, relevant_label_keys
from kadmit.placement.inventory import build_inventory

from .builders import DC, HOST, node, pod, req, taint, template, term


def cluster(blocks=10, racks=25, per_rack=20):
    return [node(f"n-{b}-{r}-{i}", block=f"b{b}", rack=f"b{b}-r{r}", labels={"model": "h100"}, gpu=8, cpu=96)
            for b in range(blocks) for r in range(racks) for i in range(per_rack)]


def test_five_thousand_identical_nodes_make_one_class_per_rack():
    nodes, few = build_inventory(cluster()).nodes, build_inventory(cluster(per_rack=2)).nodes
    got = []
    work = calls(lambda: got.append(node_classes(nodes, DC)))
    classes = got[0]
    # counted, not timed: 10x the nodes cost ~10x the calls (9.2x when written), not a walk over pairs
    assert work < 20 * calls(lambda: node_classes(few, DC)), work
    assert len(classes) == 250
    assert all(c.size == 20 for c in classes)
    first = classes[0]
    assert first.domain == ("b0", "b0-r0")
    assert first.nodes == tuple(sorted(f"n-0-0-{i}" for i in range(20)))
    assert first.name == "n-0-0-0+19"
    assert first.labels == {"model": "h100"}  # levels and hostname are kept apart


def test_without_topology_rack_labels_are_ordinary_labels():
    nodes = build_inventory(cluster(1, 3, 4)).nodes
    assert len(node_classes(nodes)) == 3
    assert len(node_classes(nodes, label_keys={"model"})) == 1


def test_a_different_label_taint_flag_or_free_capacity_splits():
    base = dict(block="b", rack="r", gpu=8)
    nodes = [node("a", **base), node("b", **base), node("c", labels={"x": "1"}, **base),
             node("d", taints=[taint("t")], **base), node("e", unschedulable=True, **base),
             node("f", ready=False, **base), node("g", **base)]
    inv = build_inventory(nodes, [pod("p", "g", gpu=1)])
    classes = node_classes(inv.nodes, DC)
    assert sorted(c.nodes for c in classes) == [("a", "b"), ("c",), ("d",), ("e",), ("f",), ("g",)]


def test_only_relevant_labels_can_be_compared():
    nodes = build_inventory([node("a", labels={"x": "1"}, cpu=1), node("b", labels={"x": "2"}, cpu=1)]).nodes
    assert len(node_classes(nodes)) == 2
    assert len(node_classes(nodes, label_keys=relevant_label_keys([template(selector={"y": "1"})]))) == 1
    keys = relevant_label_keys([template(affinity=[term(req("x", "In", "1"))])])
    assert keys == {"x"} and len(node_classes(nodes, label_keys=keys)) == 2


def test_hostname_splits_when_a_template_selects_on_it():
    nodes = build_inventory([node("a", cpu=1), node("b", cpu=1)]).nodes
    keys = relevant_label_keys([template(selector={HOST: "a"})])
    assert len(node_classes(nodes, label_keys=keys)) == 2


def test_a_term_on_the_node_name_tells_every_node_apart():
    nodes = build_inventory([node("a", cpu=1), node("b", cpu=1)]).nodes
    keys = relevant_label_keys([template(affinity=[term(fields=[req("metadata.name", "In", "a")])])])
    assert keys == {"metadata.name"}
    classes = node_classes(nodes, label_keys=keys)
    assert [c.nodes for c in classes] == [("a",), ("b",)]
    assert [c.representative.name for c in classes] == ["a", "b"]


def test_nodes_outside_the_topology_sort_last():
    nodes = build_inventory([node("z", block="b", rack="r", cpu=1), node("a", cpu=1)]).nodes
    classes = node_classes(nodes, DC)
    assert [(c.domain, c.nodes) for c in classes] == [(("b", "r"), ("z",)), (None, ("a",))]


def test_class_reasons_are_its_nodes_reasons():
    classes = node_classes(build_inventory([node("a", taints=[taint("t", "v")], cpu=1)]).nodes)
    assert classes[0].reasons(template(cpu=1)) == ["node(s) had untolerated taint {t: v}"]
