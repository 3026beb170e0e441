"""Kueue's multi-layer pod-set slices (TASMultiLayerTopology on): the inner layers' checks, counts and
descent (placement/layers.py; the oracle's cases: tests/oracle/features/feature-gate-tas-multi-layer-topology-*)."""

from __future__ import annotations

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory
from kadmit.placement.tas import kueue_assign

from .builders import BLOCK, DC, HOST, RACK, node, template


def tree():
    """Block b1: rack r1 with hosts of 3 and 1 gpus, rack r2 with 3 and 3; block b2: rack r3 with 4 and 4."""
    ns = [node("a", block="b1", rack="r1", gpu=3), node("b", block="b1", rack="r1", gpu=1),
          node("c", block="b1", rack="r2", gpu=3), node("d", block="b1", rack="r2", gpu=3),
          node("e", block="b2", rack="r3", gpu=4), node("f", block="b2", rack="r3", gpu=4)]
    return build_domains(DC, build_inventory(ns, []).nodes)


def layered(*layers, mode="required", level="block"):
    return TopologyRequest(mode=mode, level=level, slice_level=layers[0][0], slice_size=layers[0][1], layers=layers)


def test_inner_layers_group_pods_and_round_the_counts():
    # one layer: r1 holds a slice of 4 (3 + 1), the least free rack of those holding one
    r = kueue_assign(tree(), template(gpu=1), 4, layered((RACK, 4), level=RACK), profile="BestFit")
    assert r.ok and r.placement == {"a": 3, "b": 1}
    # hosts in twos: r1 holds 2 + 0, no slice of 4; r2 holds 2 + 2 (Kueue's fillInCountsHelper rounding)
    r = kueue_assign(tree(), template(gpu=1), 4, layered((RACK, 4), (HOST, 2), level=RACK), profile="BestFit")
    assert r.ok and r.placement == {"c": 2, "d": 2}
    # three layers: b1 rounds to 0 + 4 pods (no slice of 8), b2 to 8; each rack's pods in twos per host
    r = kueue_assign(tree(), template(gpu=1), 8, layered((BLOCK, 8), (RACK, 4), (HOST, 2)), profile="BestFit")
    assert r.ok and r.placement == {"e": 4, "f": 4}


def test_an_inner_layer_that_does_not_fit_says_each_layers_slices():
    # hosts of 4 hold a group of 4 each: r3 holds a slice of 8 as two fours
    r = kueue_assign(tree(), template(gpu=1), 8, layered((RACK, 8), (HOST, 4), level=RACK), profile="BestFit")
    assert r.ok and r.placement == {"e": 4, "f": 4}
    # a pod of 3 gpus: each host holds one at most, no host two; of the racks, all without a slice, the least
    # id (b1/r1) is reported (Kueue's multiLayerNotFitMessage)
    r = kueue_assign(tree(), template(gpu=3), 4, layered((RACK, 4), (HOST, 2), level=RACK), profile="BestFit")
    assert r.reason == (f'topology "dc" doesn\'t allow to fit; 0/1 slice(s) fit on level {RACK}; '
                        f"0/2 slice(s) fit on level {HOST}")
    # hosts in ones: r2 and r3 hold 2 pods each, r1 one, but none a slice of 4, so Kueue reports r1 (the least
    # id of those with the most slices), not the rack holding the most pods
    r = kueue_assign(tree(), template(gpu=3), 4, layered((RACK, 4), (HOST, 1), level=RACK), profile="BestFit")
    assert r.reason == (f'topology "dc" doesn\'t allow to fit; 0/1 slice(s) fit on level {RACK}; '
                        f"1/4 slice(s) fit on level {HOST}")


def test_kueues_reasons_for_inner_layers_it_cannot_use():
    def reason(*layers):
        return kueue_assign(tree(), template(gpu=1), 4, layered(*layers), profile="BestFit").reason
    assert reason((RACK, 4), ("example.com/row", 2)) == \
        "no requested topology level for additional slice layer: example.com/row"
    assert reason((RACK, 4), (BLOCK, 2)) == \
        f"additional slice layer topology {BLOCK} must be at a lower level than {RACK}"
    assert reason((RACK, 4), (HOST, 3)) == "additional slice layer size 3 must evenly divide parent layer size 4"
