"""The bundled scenario's node placements (examples/SCENARIO.md), through both front ends.

Admitted workloads on TAS flavors hold nodes; the run places llama-eval and vit-train around them,
and frame-extract, which quota admits, finds no rack with room for its 5 pods (KAD530).
"""

from __future__ import annotations

import pytest

from kadmit.engine.decide import admit
from kadmit.placement.inventory import model_inventory
from kadmit.render.decisions import admit_dict
from kadmit.workspace import load
from .builders import admitted_usage

GPU = "nvidia.com/gpu"


@pytest.fixture(scope="module", params=["examples/ml-platform", "examples/ml-platform-kueue"])
def model(request):
    ws = load([request.param])
    assert not ws.diagnostics.has_errors
    return ws.model


@pytest.fixture(scope="module")
def decisions(model):
    return {d["workload"]: d for d in admit_dict(admit(model))["decisions"]}


def test_admitted_placements_fit_their_nodes(model):
    inv = model_inventory(model, admitted_usage(model))
    h100 = {n.name: n.free[GPU] for n in inv.nodes if n.name.startswith("h100-")}
    assert h100 == {"h100-r1-0": 0, "h100-r1-1": 0, "h100-r1-2": 0, "h100-r1-3": 8000,
                    "h100-r2-0": 8000, "h100-r2-1": 8000, "h100-r2-2": 8000, "h100-r2-3": 8000}
    assert all(v >= 0 for n in inv.nodes for v in n.free.values())


def test_pending_workloads_are_placed_around_them(decisions):
    llama, vit = decisions["team-nlp/llama-eval"], decisions["team-vision/vit-train"]
    assert llama["admitted"] and llama["pod_sets"][0]["placement"] == {"h100-r1-3": 2}
    assert vit["admitted"] and vit["pod_sets"][0]["placement"] == {"a100-r3-0": 1, "a100-r3-1": 1, "a100-r3-2": 1}


def test_frame_extract_is_the_placement_failure(decisions):
    """h100's quota fits and its nodes don't (KAD530); Kueue's next search starts at a100 (LastTriedFlavorIdx),
    whose quota is short: the message Kueue leaves (the oracle's, tests/oracle's cases of the examples)."""
    d = decisions["team-vision/frame-extract"]
    assert not d["admitted"] and d["pod_sets"] == []
    assert d["reasons"][0] == {"code": "KAD511", "message": "couldn't assign flavors to pod set workers: insufficient "
                               "quota for cpu in flavor a100, previously considered podsets requests (0) + current "
                               "podset request (320) > maximum capacity (256)"}
