"""kube-scheduler's filters, one table row per rule, and the FitError histogram text."""

from __future__ import annotations

import pytest

from kadmit.model import PodSet, ResourceFlavor, TopologyRequest
from kadmit.modelscheduling import go_aggregate, parse_errors
from kadmit.placement.filters import PodTemplate, capacity_holders, filter_node, histogram, requirement_matches
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory, node_state
from kadmit.placement.tas import kueue_assign

from .builders import DC, GPU, HOST, node, pod, req, state, taint, template, term, tol

AFF = "node(s) didn't match Pod's node affinity/selector"


@pytest.mark.parametrize("labels, requirement, ok", [
    ({"zone": "a"}, req("zone", "In", "a", "b"), True),
    ({"zone": "c"}, req("zone", "In", "a", "b"), False),
    ({}, req("zone", "In", "a"), False),
    ({"zone": "c"}, req("zone", "NotIn", "a"), True),
    ({"zone": "a"}, req("zone", "NotIn", "a"), False),
    ({}, req("zone", "NotIn", "a"), True),  # NotIn matches an absent label
    ({"zone": ""}, req("zone", "Exists"), True),
    ({}, req("zone", "Exists"), False),
    ({}, req("zone", "DoesNotExist"), True),
    ({"zone": "a"}, req("zone", "DoesNotExist"), False),
    ({"gen": "5"}, req("gen", "Gt", "4"), True),
    ({"gen": "4"}, req("gen", "Gt", "4"), False),
    ({"gen": "-3"}, req("gen", "Lt", "-2"), True),
    ({"gen": "+7"}, req("gen", "Gt", "6"), True),  # Go's ParseInt takes a sign
    ({"gen": "v5"}, req("gen", "Gt", "4"), False),  # a non-integer label never compares
    ({"gen": "5"}, req("gen", "Gt", "four"), False),  # nor does a non-integer value
    ({"gen": "1_000"}, req("gen", "Gt", "4"), False),  # Python's int() would accept this
    ({"gen": " 5"}, req("gen", "Gt", "4"), False),
    ({"gen": "5.0"}, req("gen", "Lt", "6"), False),
    ({"gen": str(2**63)}, req("gen", "Gt", "4"), False),  # out of int64
    ({}, req("gen", "Gt", "4"), False),
    ({"gen": "5"}, req("gen", "Gt", "4", "3"), False),  # Gt takes exactly one value
])
def test_requirement_operators(labels, requirement, ok):
    assert requirement_matches(requirement, labels) is ok


@pytest.mark.parametrize("labels, tpl, reasons", [
    ({"a": "1"}, template(selector={"a": "1"}), []),
    ({"a": "2"}, template(selector={"a": "1"}), [AFF]),
    ({}, template(selector={"a": "1"}), [AFF]),
    # terms are ORed, expressions ANDed
    ({"a": "1"}, template(affinity=[term(req("a", "In", "2")), term(req("a", "In", "1"))]), []),
    ({"a": "1", "b": "x"}, template(affinity=[term(req("a", "In", "1"), req("b", "In", "y"))]), [AFF]),
    # an empty term matches no node
    ({"a": "1"}, template(affinity=[term()]), [AFF]),
    # selector and affinity must both hold
    ({"a": "1"}, template(selector={"a": "1"}, affinity=[term(req("a", "NotIn", "1"))]), [AFF]),
])
def test_node_affinity_and_selector(labels, tpl, reasons):
    assert filter_node(tpl, state(labels=labels, cpu=8)) == reasons


NAME = "metadata.name"


@pytest.mark.parametrize("labels, tpl, reasons", [
    # matchFields on the node's name (component-helpers nodeaffinity), the node here being `n`
    ({}, template(affinity=[term(fields=[req(NAME, "In", "n")])]), []),
    ({}, template(affinity=[term(fields=[req(NAME, "In", "m")])]), [AFF]),
    ({}, template(affinity=[term(fields=[req(NAME, "NotIn", "m")])]), []),
    ({}, template(affinity=[term(fields=[req(NAME, "NotIn", "n")])]), [AFF]),
    # a field other than the name reads "": In never matches, NotIn always does
    ({}, template(affinity=[term(fields=[req("spec.unschedulable", "In", "n")])]), [AFF]),
    ({}, template(affinity=[term(fields=[req("spec.unschedulable", "NotIn", "n")])]), []),
    # only In/NotIn with one value parse; a term that does not matches no node
    ({}, template(affinity=[term(fields=[req(NAME, "In", "n", "m")])]), [AFF]),
    ({}, template(affinity=[term(fields=[req(NAME, "Exists")])]), [AFF]),
    # ANDed with the term's expressions, terms ORed
    ({"a": "1"}, template(affinity=[term(req("a", "In", "1"), fields=[req(NAME, "In", "n")])]), []),
    ({"a": "2"}, template(affinity=[term(req("a", "In", "1"), fields=[req(NAME, "In", "n")])]), [AFF]),
    ({"a": "1"}, template(affinity=[term(req("a", "In", "1"), fields=[req(NAME, "In", "m")])]), [AFF]),
    ({}, template(affinity=[term(fields=[req(NAME, "In", "m")]), term(fields=[req(NAME, "In", "n")])]), []),
])
def test_node_affinity_match_fields(labels, tpl, reasons):
    assert filter_node(tpl, state("n", labels=labels, cpu=8)) == reasons


def test_match_fields_without_a_node_check_only_that_they_parse():
    """Where no node is at hand (Kubernetes' empty field set) fields are not compared, but a term whose fields
    do not parse still matches nothing."""
    assert term(fields=[req(NAME, "In", "m")]).matches({})
    assert not term(fields=[req(NAME, "Gt", "1")]).matches({})


@pytest.mark.parametrize("terms, errors", [
    ([term(req("a", "In", "1"), fields=[req(NAME, "In", "n")]), term()], []),  # all parse; an empty term is skipped
    ([term(fields=[req(NAME, "Exists")])],
     ['nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"']),
    ([term(fields=[req(NAME, "In")])], ["nodeSelectorTerms[0].matchFields[0].values: Invalid value: null: must have "
                                       "one element"]),
    # labels.NewRequirement's words for expressions; each term's expressions before its fields, terms in order
    ([term(), term(req("g", "Gt", "x", "2"), fields=[req(NAME, "NotIn", "a", "b")])],
     ["nodeSelectorTerms[1].matchExpressions[0].values: Invalid value: [\"x\",\"2\"]: for 'Gt', 'Lt' operators, "
      "exactly one value is required",
      "nodeSelectorTerms[1].matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value "
      "must be an integer",
      "nodeSelectorTerms[1].matchFields[0].values: Invalid value: [\"a\",\"b\"]: must have one element"]),
    ([term(req("a", "In"), req("b", "Exists", "1"))],
     ["nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: null: for 'in', 'notin' operators, values set "
      "can't be empty",
      "nodeSelectorTerms[0].matchExpressions[1].values: Invalid value: [\"1\"]: values set must be empty for exists "
      "and does not exist"]),
])
def test_parse_errors_are_new_node_selectors(terms, errors):
    """component-helpers' NewNodeSelector refuses the whole required affinity on any of these (Kueue's TAS then
    fits the pod set nowhere: tas-node-affinity-match-fields-unparsable.yaml)."""
    assert parse_errors(tuple(terms)) == errors


def test_unparsable_affinity_fits_no_tas_domain():
    """Even where another term matches a node, in Kueue's words: the NodeSelector as Go prints it, the errors
    aggregated."""
    tree = build_domains(DC, build_inventory([node("n", block="b", rack="r", cpu=8)], []).nodes)
    tpl = template(affinity=[term(fields=[req(NAME, "Exists")]), term(fields=[req(NAME, "In", "n")])], cpu=1)
    got = kueue_assign(tree, tpl, 1, TopologyRequest(mode="preferred", level=HOST))
    assert got.reason == (
        "invalid affinity node selectors: &NodeSelector{NodeSelectorTerms:[]NodeSelectorTerm{NodeSelectorTerm{"
        "MatchExpressions:[]NodeSelectorRequirement{},MatchFields:[]NodeSelectorRequirement{NodeSelectorRequirement{"
        "Key:metadata.name,Operator:Exists,Values:[],},},},NodeSelectorTerm{MatchExpressions:[]NodeSelectorRequirement{},"
        "MatchFields:[]NodeSelectorRequirement{NodeSelectorRequirement{Key:metadata.name,Operator:In,Values:[n],},},},},}"
        ', reason: nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", '
        '"NotIn"')
    assert go_aggregate(["a", "b", "a"]) == "[a, b]" and go_aggregate(["a", "a"]) == "a"


@pytest.mark.parametrize("taints, tolerations, reasons", [
    ([taint("gpu", "yes")], [], ["node(s) had untolerated taint {gpu: yes}"]),
    ([taint("gpu", "yes", "NoExecute")], [], ["node(s) had untolerated taint {gpu: yes}"]),
    ([taint("gpu", "yes", "PreferNoSchedule")], [], []),  # only scores
    ([taint("gpu")], [], ["node(s) had untolerated taint {gpu: }"]),
    ([taint("gpu", "yes")], [tol("gpu", "yes", "NoSchedule")], []),  # Equal
    ([taint("gpu", "yes")], [tol("gpu", "no", "NoSchedule")], ["node(s) had untolerated taint {gpu: yes}"]),
    ([taint("gpu", "yes")], [tol("gpu", effect="NoSchedule")], []),  # Exists
    ([taint("gpu", "yes")], [tol("gpu", effect="NoExecute")], ["node(s) had untolerated taint {gpu: yes}"]),
    ([taint("gpu", "yes", "NoExecute")], [tol("gpu", "yes")], []),  # empty effect matches all
    ([taint("a", "1"), taint("b", "2", "NoExecute")], [tol()], []),  # empty key + Exists
    # the first untolerated taint, in the node's order, is reported
    ([taint("a", "1"), taint("b", "2")], [tol("a")], ["node(s) had untolerated taint {b: 2}"]),
])
def test_taints_and_tolerations(taints, tolerations, reasons):
    assert filter_node(template(tolerations=tolerations), state(taints=taints, cpu=8)) == reasons


def test_undetailed_taint_reason_of_newer_releases():
    n = state(taints=[taint("gpu", "yes")], cpu=8)
    assert filter_node(template(), n, detailed_taints=False) == ["node(s) had untolerated taint(s)"]


def test_unschedulable_unless_tolerated():
    n = state(unschedulable=True, cpu=8)
    assert filter_node(template(), n) == ["node(s) were unschedulable"]
    ok = tol("node.kubernetes.io/unschedulable", effect="NoSchedule")
    assert filter_node(template(tolerations=[ok]), n) == []


def test_not_ready_node_carries_the_not_ready_taint():
    n = state(ready=False, cpu=8)
    assert filter_node(template(), n) == ["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"]


@pytest.mark.parametrize("alloc, requests, reasons", [
    (dict(cpu=8, gpu=8), dict(cpu=8, gpu=8), []),
    (dict(cpu=8, gpu=8), dict(cpu=9), ["Insufficient cpu"]),
    (dict(cpu=8, gpu=8), dict(gpu=9), [f"Insufficient {GPU}"]),
    (dict(cpu=8), dict(gpu=1), [f"Insufficient {GPU}"]),  # an extended resource the node lacks
    (dict(cpu=8, memory="1Gi"), dict(cpu=9, memory="2Gi", gpu=1),
     ["Insufficient cpu", "Insufficient memory", f"Insufficient {GPU}"]),
    (dict(cpu=8, pods=0), dict(), ["Too many pods"]),  # every pod takes one `pods`
    (dict(cpu=8, pods=1), dict(cpu=1), []),
    (dict(cpu="500m"), dict(cpu="500m"), []),
    (dict(cpu="500m"), dict(cpu="501m"), ["Insufficient cpu"]),
])
def test_resources_fit(alloc, requests, reasons):
    assert filter_node(template(**requests), state(**alloc)) == reasons


def test_filters_stop_at_the_first_rejecting_plugin():
    n = state(unschedulable=True, taints=[taint("t")], labels={"a": "1"}, cpu=1)
    assert filter_node(template(selector={"a": "2"}, cpu=2), n) == ["node(s) were unschedulable"]
    n = state(taints=[taint("t")], labels={"a": "1"}, cpu=1)
    assert filter_node(template(selector={"a": "2"}, cpu=2), n) == ["node(s) had untolerated taint {t: }"]
    n = state(labels={"a": "1"}, cpu=1)
    assert filter_node(template(selector={"a": "2"}, cpu=2), n) == [AFF]


def test_free_capacity_overrides_the_nodes_own():
    n = state(gpu=8)
    assert filter_node(template(gpu=8), n, {GPU: 4000, "pods": 100_000}) == [f"Insufficient {GPU}"]


def test_flavor_adds_node_labels_and_tolerations():
    flavor = ResourceFlavor(name="h100", node_labels={"model": "h100"},
                            tolerations=(tol("gpu", "present", "NoSchedule"),))
    ps = PodSet(name="w", requests={GPU: 8000})
    tpl = PodTemplate.build(ps, [flavor])
    assert tpl.node_selector == (("model", "h100"),)
    assert tpl.request_map == {GPU: 8000, "pods": 1000}
    h100 = state(labels={"model": "h100"}, taints=[taint("gpu", "present")], gpu=8)
    a100 = state(labels={"model": "a100"}, taints=[taint("gpu", "present")], gpu=8)
    assert filter_node(tpl, h100) == []
    assert filter_node(tpl, a100) == [AFF]
    assert filter_node(PodTemplate.build(ps), h100) == ["node(s) had untolerated taint {gpu: present}"]


def test_pod_set_and_flavor_disagreeing_on_a_label_match_no_node():
    flavor = ResourceFlavor(name="f", node_labels={"model": "h100"})
    tpl = PodTemplate.build(PodSet(name="w", node_selector={"model": "a100"}), [flavor])
    assert filter_node(tpl, state(labels={"model": "h100"}, cpu=1)) == [AFF]
    assert filter_node(tpl, state(labels={"model": "a100"}, cpu=1)) == [AFF]


def test_histogram_matches_kube_scheduler_text():
    gpu_taint = taint("nvidia.com/gpu", "present")
    nodes = [state(f"g{i}", taints=[gpu_taint], gpu=8, cpu=96) for i in range(512)]
    nodes += [state(f"c{i}", taints=[taint("spot", "true")], cpu=32) for i in range(128)]
    tpl = template(tolerations=[tol("nvidia.com/gpu")], gpu=16)
    # reasons sort as strings, count first: "128 ..." before "512 ..."
    assert histogram(tpl, nodes) == ("0/640 nodes are available: 128 node(s) had untolerated taint "
                                     "{spot: true}, 512 Insufficient nvidia.com/gpu.")


def test_histogram_counts_every_reason_of_a_node():
    nodes = [state("a", cpu=1, memory="1Gi"), state("b", cpu=8, memory="1Gi"), state("c", cpu=8, memory="8Gi")]
    text = histogram(template(cpu=4, memory="4Gi"), nodes)
    assert text == "1/3 nodes are available: 1 Insufficient cpu, 2 Insufficient memory."


def test_histogram_edge_cases():
    assert histogram(template(cpu=1), []) == "no nodes available to schedule pods"
    assert histogram(template(cpu=1), [state(cpu=2)]) == "1/1 nodes are available."


def test_histogram_with_free_after_other_placements():
    n = node_state(node("a", gpu=8))
    assert histogram(template(gpu=8), [n], {"a": {GPU: 0, "pods": 1000}}) == \
        f"0/1 nodes are available: 1 Insufficient {GPU}."


def test_doctests():
    import doctest

    import kadmit.placement.filters as mod
    assert doctest.testmod(mod).failed == 0


def test_capacity_holders_name_the_pods_in_the_way():
    inv = build_inventory([node("a", gpu=8), node("b", gpu=8), node("c", taints=[taint("t")], gpu=8)],
                          [pod("p1", "a", gpu=4), pod("p2", "b", gpu=1), pod("p3", "c", gpu=4)])
    assert capacity_holders(template(gpu=6), inv.nodes) == {"a": ("ns/p1",)}
