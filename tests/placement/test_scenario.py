"""The bundled `ml-platform` scenario, read by both front ends, through the placement foundations."""

from __future__ import annotations

import pytest

from kadmit.index import ModelIndex
from kadmit.placement import PodTemplate, build_domains, histogram, kueue_assign, model_inventory, topology_view
from kadmit.workspace import load


@pytest.fixture(scope="module", params=["examples/ml-platform", "examples/ml-platform-kueue"])
def scenario(request):
    ws = load([request.param])
    return ws.model, ModelIndex(ws.model)


def pod_set(model, key, name):
    wl = next(w for w in model.workloads if w.key == key)
    return next(ps for ps in wl.pod_sets if ps.name == name)


def test_a_pod_without_the_gpu_toleration_fits_no_node(scenario):
    model, idx = scenario
    tpl = PodTemplate.build(pod_set(model, "team-vision/no-toleration", "main"), [idx.flavors["h100"]])
    assert histogram(tpl, model_inventory(model).nodes) == (
        "0/20 nodes are available: 12 node(s) had untolerated taint {nvidia.com/gpu: present}, "
        "4 node(s) didn't match Pod's node affinity/selector, "
        "4 node(s) had untolerated taint {cloud.example.com/spot: true}.")


def test_llm_pretrain_has_no_rack_for_32_pods(scenario):
    model, idx = scenario
    ps = pod_set(model, "team-vision/llm-pretrain", "workers")
    tpl = PodTemplate.build(ps, [idx.flavors["h100"]])
    tree = build_domains(idx.topologies["datacenter"], model_inventory(model).usable)
    assert topology_view(tree, tpl, ps.count, ps.topology.mode, ps.topology.level) == \
        "required rack: no rack has room for 32 pods; best rack r1 fits 4"
    assert kueue_assign(tree, tpl, ps.count, ps.topology).reason == \
        'topology "datacenter" allows to fit only 4 out of 32 pod(s)'


def test_vit_train_lands_in_one_rack(scenario):
    model, idx = scenario
    ps = pod_set(model, "team-vision/vit-train", "workers")
    tpl = PodTemplate.build(ps, [idx.flavors["h100"]])
    tree = build_domains(idx.topologies["datacenter"], model_inventory(model).usable)
    result = kueue_assign(tree, tpl, ps.count, ps.topology)
    assert result.domains == ("b1/r1",) and sum(result.placement.values()) == 3
