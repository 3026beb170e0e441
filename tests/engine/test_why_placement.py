"""`why` for workloads that quota admits but topology-aware placement doesn't.

Each case is a small cluster of Node and Pod objects under the topology `dc` (block -> rack ->
host), one flavor `tas` naming it and a cluster queue with quota to spare, so what stops the
workload is node capacity and topology. Every fix `why` reports is applied to the model and the
run repeated: the workload must then be admitted.
"""

from __future__ import annotations

import pytest

from kadmit.engine.decide import admit, explain_decision, why
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.model import Toleration, TopologyRequest
from kadmit.placement.domains import build_domains, topology_view
from kadmit.placement.inventory import build_inventory
from kadmit.render.why import why_dict, why_human
from kadmit.source import SourceMap
from placement.builders import DC, node, pod, req, taint, template, term
from reference.builders import admitted, build, cluster_queue, flavor, fq, group, pod_set, workload

TAS = flavor("tas", topology="dc")
QUEUE = cluster_queue("cq", group(fq("tas", gpu=256, cpu=4096)))
KEY = "default/big"


def rack(name: str, *free_gpus: int, block: str = "b1"):
    """8-GPU nodes `NAME-i` in one rack, each with a bound pod `busy-NAME-i` leaving `free` GPUs."""
    nodes, pods = [], []
    for i, free in enumerate(free_gpus):
        host = f"{name}-{i}"
        nodes.append(node(host, block=block, rack=name, gpu=8, cpu=96))
        if free < 8:
            pods.append(pod(f"busy-{host}", host, gpu=8 - free))
    return nodes, pods


def big(count: int, gpu: int = 8, topology=("required", "rack"), **kw):
    return workload("big", pod_set(count=count, gpu=gpu, topology=topology, **kw), queue="cq", minute=5)


def cluster(*objects, racks=()):
    objs = list(objects)
    for nodes, pods in racks:
        objs += nodes + pods
    return build(DC, TAS, QUEUE, *objs)


def apply_fix(model, fix):
    """The model with every change of `fix` made, as a user would edit the input."""
    for ch in fix.changes:
        if ch.kind == "wait":
            kind, key = ch.subject.split(" ", 1)
            if kind == "pod":
                model = model.model_copy(update={"pods": tuple(
                    p for p in model.pods if f"{p.namespace}/{p.name}" != key)})
            else:
                model = model.model_copy(update={"workloads": tuple(
                    w for w in model.workloads if w.key != key)})
            continue
        wl_key, ps_name = ch.subject.removeprefix("pod set ").split(":")
        update = _pod_set_update(ch)
        model = model.model_copy(update={"workloads": tuple(
            w if w.key != wl_key else w.model_copy(update={"pod_sets": tuple(
                ps.model_copy(update=update(ps)) if ps.name == ps_name else ps for ps in w.pod_sets)})
            for w in model.workloads)})
    return model


def _pod_set_update(ch):
    """PodSet -> the fields one change of a pod set gives it."""
    if ch.kind == "tolerate":
        kv, effect = ch.new.rsplit(":", 1)
        k, _, v = kv.partition("=")
        tol = Toleration(key=k, operator="Equal" if v else "Exists", value=v, effect=effect)
        return lambda ps: {"tolerations": ps.tolerations + (tol,)}
    if ch.kind == "edit" and ch.field == "topology":
        mode, level = ch.new.split(" ")
        return lambda ps: {"topology": TopologyRequest(mode=mode, level=level)}
    if ch.kind == "lower":
        return lambda ps: {ch.field: int(ch.new)}
    raise AssertionError(f"unexpected change {ch}")


def assert_fixes_admit(model, result, key=KEY):
    assert result.candidates, "expected at least one fix"
    for fix in result.candidates:
        decisions = {d.key: d for d in admit(apply_fix(model, fix)).decisions}
        assert decisions[key].admitted, fix.message


# --- the headline ----------------------------------------------------------------------

@pytest.mark.parametrize("count", [1, 2, 3])
def test_four_nodes_with_two_gpus_used_each(count):
    model = cluster(big(count), racks=[rack("r1", 6, 6, 6, 6)])
    r = why(model, KEY)
    assert not r.admitted and r.placement is not None
    assert [x.code for x in r.reasons] == ["KAD530"]
    p = r.placement
    assert p.histogram == "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
    assert p.topology_view == f"required rack: no rack has room for {count} pods; no rack fits any"
    assert p.domains == [("r1", 0)] and p.scarce == "nvidia.com/gpu"
    # a verified core: the rack's capacity and the pods holding it (one pod needs a whole node)
    first = r.blame_groups[0]
    assert sorted(o.kind for o in first) == ["domain", "holder", "holder", "holder", "holder"]
    assert [o.message for o in first if o.kind == "holder"] == [
        f"pod `ns/busy-r1-{i}` holds 2 `nvidia.com/gpu` on 1 node (r1-{i})" for i in range(4)]
    assert next(o for o in first if o.kind == "domain").message.startswith(
        "rack `r1`: 4 nodes (r1-0, r1-1, r1-2, …) with 32 `nvidia.com/gpu` in all; it fits 0 of the ")
    if count > 1:  # with its size, fewer holders suffice: another core per choice of holders
        assert any(o.kind == "count" for g in r.blame_groups[1:] for o in g)
    waits = [f for f in r.candidates if f.changes[0].kind == "wait"]
    if count == 1:
        assert waits[0].message == ("wait for pod `ns/busy-r1-0` to finish (or preempt it): it frees 2 "
                                    "nvidia.com/gpu on 1 node(s), and pod set `main` then lands in rack r1 "
                                    "on r1-0:1")
    elif count == 2:  # no pod alone frees enough: pairs
        assert [c.subject for c in waits[0].changes] == ["pod ns/busy-r1-0", "pod ns/busy-r1-1"]
        assert waits[0].message.startswith("wait for pod `ns/busy-r1-0` and pod `ns/busy-r1-1` to finish "
                                           "(or preempt them): they free 4 nvidia.com/gpu")
    else:  # no pair either: everything held in the rack
        assert len(waits[0].changes) == 4
        assert waits[0].message.startswith("wait for everything holding nvidia.com/gpu in rack r1 (4 holders: "
                                           "pod `ns/busy-r1-0`, pod `ns/busy-r1-1`, pod `ns/busy-r1-2`, …) to "
                                           "finish (or preempt them): they free 8 nvidia.com/gpu on 4 node(s)")
    assert_fixes_admit(model, r)


def test_required_rack_fits_when_relaxed_to_preferred():
    model = cluster(big(2), racks=[rack("r1", 8, 0), rack("r2", 8, 0)])
    r = why(model, KEY)
    assert r.placement.topology_view == "required rack: no rack has room for 2 pods; best rack r1 fits 1"
    assert r.placement.domains == [("r1", 1), ("r2", 1)]
    messages = [f.message for f in r.candidates]
    assert ("relax the topology request of pod set `main` from `required rack` to `preferred rack`: its 2 pods "
            "then land over 2 racks (r1 1, r2 1) on r1-0:1, r2-0:1") in messages
    assert ("require one block instead of one rack for pod set `main` (`required block`): its 2 pods then "
            "land in block b1, over 2 racks (r1 1, r2 1) on r1-0:1, r2-0:1") in messages
    assert_fixes_admit(model, r)


def test_shrink_to_the_largest_count_that_fits():
    model = cluster(big(4), racks=[rack("r1", 8, 8, 8), rack("r2", 8, block="b2")])
    r = why(model, KEY)
    assert r.placement.topology_view == "required rack: no rack has room for 4 pods; best rack r1 fits 3"
    assert [f.message for f in r.candidates] == [
        ("relax the topology request of pod set `main` from `required rack` to `preferred rack`: its 4 pods then "
         "land over 2 racks (r1 3, r2 1) on r1-0:1, r1-1:1, r1-2:1, r2-0:1"),
        ("reduce count of pod set `main` from 4 to 3, or allow partial admission: min_count = 3; 3 pods land "
         "in rack r1 on r1-0:1, r1-1:1, r1-2:1")]
    assert_fixes_admit(model, r)


def test_shrink_lowers_min_count_when_partial_admission_is_on():
    model = cluster(big(6, min_count=5), racks=[rack("r1", 8, 8, 8), rack("r2", 8, block="b2")])
    r = why(model, KEY)
    assert [(c.field, c.old, c.new) for f in r.candidates for c in f.changes] == [("min_count", "5", "3")]
    assert r.candidates[0].message.startswith("lower `min_count` of pod set `main` from 5 to 3: partial admission "
                                         "can then admit 3 of its 6 pods")
    assert_fixes_admit(model, r)


def test_a_taint_that_keeps_nodes_away_is_blamed_and_tolerated():
    nodes = [node("r1-0", block="b1", rack="r1", gpu=8),
             node("r1-1", block="b1", rack="r1", gpu=8, taints=[taint("maintenance", "true")])]
    model = cluster(big(2), *nodes)
    r = why(model, KEY)
    assert r.placement.histogram == ("1/2 nodes are available: 1 node(s) had untolerated taint "
                                     "{maintenance: true}.")
    assert [sorted(o.kind for o in g) for g in r.blame_groups] == [["count", "domain", "node_taint"]]
    assert [o.message for o in r.blame if o.kind == "node_taint"] == [
        "taint `maintenance=true:NoSchedule` on 1 node (r1-1) isn't tolerated by pod set `main` of `default/big`"]
    tolerate = [f for f in r.candidates if f.changes[0].kind == "tolerate"]
    assert [f.changes[0].new for f in tolerate] == ["maintenance=true:NoSchedule"]
    assert tolerate[0].message.endswith("it then lands in rack r1 on r1-0:1, r1-1:1")
    assert_fixes_admit(model, r)


def test_implicit_unconstrained_pod_set():
    model = cluster(big(2, gpu=4, topology=None), racks=[rack("r1", 2, 2)])
    r = why(model, KEY)
    p = r.placement
    assert p.request == "implicit unconstrained"
    assert p.topology_view == "unconstrained: no host of topology `dc` fits any of 2 pods"
    assert any(o.kind == "domain" and o.message.startswith("topology `dc`: 2 nodes") for o in r.blame)
    assert not any(f.changes[0].kind == "edit" for f in r.candidates)  # nothing to relax
    assert_fixes_admit(model, r)


def test_holders_admitted_earlier_and_in_this_run_are_named():
    old = admitted(workload("old", pod_set(count=1, gpu=6), queue="cq"), "cq", {"gpu": "tas"})
    psa = old.admission.pod_sets[0].model_copy(update={"placement": {"r1-0": 1}})
    old = old.model_copy(update={"admission": old.admission.model_copy(update={"pod_sets": (psa,)})})
    first = workload("first", pod_set(count=1, gpu=6, topology=("required", "rack")), queue="cq", minute=1)
    model = cluster(old, first, big(2, gpu=4), racks=[rack("r1", 8, 8)])
    r = why(model, KEY)
    holders = [o.message for o in r.blame if o.kind == "holder"]
    assert sorted(holders) == [
        "workload `default/first` (admitted earlier in this run) holds 6 `nvidia.com/gpu` on 1 node (r1-1)",
        "workload `default/old` holds 6 `nvidia.com/gpu` on 1 node (r1-0)"]
    assert_fixes_admit(model, r)


# --- when placement is not the problem ---------------------------------------------------------

def test_fits_at_the_final_state_keeps_kad523():
    old = admitted(workload("old", pod_set(count=2, gpu=8), queue="cq"), "cq", {"gpu": "tas"})
    psa = old.admission.pod_sets[0].model_copy(update={"placement": {"r1-0": 1, "r1-1": 1}})
    old = old.model_copy(update={"admission": old.admission.model_copy(update={"pod_sets": (psa,)})})
    model = cluster(old, big(2), racks=[rack("r1", 8, 8)])
    session = Session(model)
    decisions = {d.key: d for d in decide_ordered(session)}
    waiting = explain_decision(session, decisions, KEY)
    assert waiting.placement is not None
    assert [c.subject for f in waiting.candidates for c in f.changes] == ["workload default/old"]
    recorded = session.placement_failures[KEY]
    session.finish("default/old")  # the nodes are free now: placement would succeed
    r = explain_decision(session, decisions, KEY)
    assert r.placement is None and "KAD523" in [x.code for x in r.reasons]
    assert session.placement_failures[KEY] is recorded  # the session is left as it was


def test_quota_blocked_workload_gets_the_quota_explanation():
    small = cluster_queue("cq", group(fq("tas", gpu=8, cpu=4096)))
    model = build(DC, TAS, small, big(2), *rack("r1", 8, 8)[0])
    r = why(model, KEY)
    assert r.placement is None
    assert any(o.kind == "nominal" for o in r.blame)
    assert why_dict(r)["placement"] is None


# --- rendering ---------------------------------------------------------------------------------

def test_json_and_human_render_the_placement_section():
    r = why(cluster(big(2), racks=[rack("r1", 6, 6, 6, 6)]), KEY)
    d = why_dict(r)["placement"]
    assert d["pod_set"] == "main" and d["flavor"] == "tas" and d["count"] == 2
    assert d["message"] == ("couldn't assign flavors to pod set main: "
                            'topology "dc" doesn\'t allow to fit any of 2 pod(s)')
    assert d["histogram"] == "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
    assert d["domains"] == [{"domain": "r1", "fits": 0}]
    text = why_human(r, SourceMap(), None)
    lines = text.splitlines()
    assert "   = one pod: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu." in lines
    assert "   = racks, most room first: r1 fits 0" in lines
    assert lines.index("placement (topology-aware scheduling, when Kueue last tried it):") < \
        lines.index("blame (a minimal set that keeps the pod set off the nodes; each one matters):")
    assert not any(line.startswith("fixes") for line in lines)  # only fixes proven on the input are shown


# --- the topology view against a given state ---------------------------------------------------

def view_tree():
    """b1: r1 (2 nodes), r2 (2 nodes); b2: r3 (1 node); 8 GPUs each."""
    layout = {"a": ("b1", "r1"), "b": ("b1", "r1"), "c": ("b1", "r2"), "d": ("b1", "r2"), "e": ("b2", "r3")}
    nodes = [node(n, block=b, rack=r, gpu=8) for n, (b, r) in layout.items()]
    return build_domains(DC, build_inventory(nodes).nodes)


def test_topology_view_spreads_preferred_and_counts_unconstrained():
    tree, gpu8 = view_tree(), template(gpu=8)
    assert topology_view(tree, gpu8, 3, "preferred", "rack") == \
        "preferred rack: no rack has room for 3 pods; best rack r1 fits 2; it would spread over the racks " \
        "of block b1 (fits 4)"
    assert topology_view(tree, gpu8, 5, "preferred", "rack") == \
        "preferred rack: no rack has room for 5 pods; best rack r1 fits 2; it would spread over at least 3 racks"
    assert topology_view(tree, gpu8, 6, "preferred", "rack") == \
        "preferred rack: no rack has room for 6 pods; best rack r1 fits 2; all racks together fit only 5"
    assert topology_view(tree, gpu8, 6, "unconstrained", None) == \
        "unconstrained: only 5 of 6 pods fit, on 5 host(s) of topology `dc`"
    assert topology_view(tree, gpu8, 4, "unconstrained", None) == \
        "unconstrained: room for 4 pods on 5 host(s) of topology `dc` (5 fit in all)"
    assert topology_view(tree, gpu8, 2, "required", "rack") == "required rack: 2 rack(s) have room for 2 pods: r1, r2"


def test_topology_view_counts_against_a_free_map():
    tree, gpu8 = view_tree(), template(gpu=8)
    free = {n: dict(s.free) for n, s in tree.nodes.items()}
    free["a"]["nvidia.com/gpu"] = 0
    free["c"]["nvidia.com/gpu"] = 4
    assert topology_view(tree, gpu8, 2, "required", "rack", free=free) == \
        "required rack: no rack has room for 2 pods; best rack r1 fits 1"
    assert topology_view(tree, gpu8, 2, "required", "rack") == "required rack: 2 rack(s) have room for 2 pods: r1, r2"


def test_a_later_pod_set_sees_what_the_earlier_ones_took():
    driver = pod_set("driver", count=1, gpu=4, topology=("required", "rack"))
    workers = pod_set("workers", count=2, gpu=8, topology=("required", "rack"))
    model = cluster(workload("big", driver, workers, queue="cq"), racks=[rack("r1", 8, 8), rack("r2", 0)])
    r = why(model, KEY)
    p = r.placement
    assert p.pod_set == "workers"
    # the driver took 4 GPUs of a node of r1 first: one node fewer for a worker
    assert p.histogram == "1/3 nodes are available: 2 Insufficient nvidia.com/gpu."
    assert p.topology_view == "required rack: no rack has room for 2 pods; best rack r1 fits 1"
    # freeing r2 lets the driver go there (best fit), and both workers fit in r1: the whole
    # workload is placed again, not only the failing pod set
    assert [f.message.split(";")[0] for f in r.candidates] == [
        ("wait for pod `ns/busy-r2-0` to finish (or preempt it): it frees 8 nvidia.com/gpu on 1 node(s), and "
         "pod set `workers` then lands in rack r1 on r1-0:1, r1-1:1"),
        "reduce count of pod set `workers` from 2 to 1, or allow partial admission: min_count = 1"]
    assert_fixes_admit(model, r)


def test_a_rack_lowest_topology_blames_its_racks_with_their_summed_numbers():
    """Where the rack is the lowest level Kueue counts each rack on its nodes' summed free capacity:
    why's core names rack r0 (its nodes' capacity and what it fits) and the workload admitted on the
    rack itself (it blamed nothing before, its note saying its cores counted node by node)."""
    from pathlib import Path

    from kadmit.diagnostics import Diagnostics
    from kadmit.manifests import read_manifest_text
    from kadmit.model import merge

    path = Path(__file__).parents[1] / "oracle" / "features" / "tas-admitted-assignment-on-rack-level.yaml"
    model = merge([read_manifest_text(path.read_text(), str(path), Diagnostics())])
    r = why(model, "ns/new")
    assert r.placement is not None and r.placement.unsat and r.placement.racks
    [core] = r.placement.cores
    texts = sorted(o.message for o in core)
    assert texts == ["rack `r0`: 1 node (n0) (one rack leaf: their capacity summed) with 4 `cpu` in all; "
                     "it fits 0 of the 1 pod now", "workload `ns/running` holds 4 `cpu` on rack `r0`"]
    human = why_human(r, SourceMap(), None)
    assert "there is no core to blame" not in human and "workload `ns/running` holds 4 `cpu` on rack `r0`" in human


def test_an_unparsable_node_affinity_is_blamed_not_the_nodes():
    """A required affinity term Kubernetes' parser refuses (matchFields operator Exists) makes Kueue's TAS fit
    the pod set nowhere, though its other term matches (tas-node-affinity-match-fields-unparsable.yaml): that is
    the blame, alone, and not "counting pods node by node the pod set fits"."""
    affinity = (term(fields=[req("metadata.name", "Exists")]), term(req("kubernetes.io/hostname", "In", "r1-0")))
    model = cluster(big(1, node_affinity=affinity), *rack("r1", 8)[0])
    r = why(model, KEY)
    assert "invalid affinity node selectors: " in r.placement.message and r.placement.unsat
    assert [[o.id for o in g] for g in r.blame_groups] == [["gang|affinity-unparsable"]]
