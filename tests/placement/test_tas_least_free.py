"""Kueue's LeastFreeCapacity choice (the `Mixed` profile's for unconstrained pod sets) with full nodes.

Kueue takes the least free domain that holds every pod (kubernetes-sigs/kueue#5803) and, when it
must spread, skips domains with no room (kubernetes-sigs/kueue#8168: before it, one full node made
every multi-node unconstrained pod set fail).
"""

from __future__ import annotations

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory
from kadmit.placement.tas import kueue_assign

from .builders import DC, node, pod, template

UNCONSTRAINED = TopologyRequest(mode="unconstrained")


def tree():
    """Rack r1: a (full), b (2 GPUs free), c (8 free); rack r2: d (8 free)."""
    ns = [node(n, block="b1", rack=r, gpu=8) for n, r in (("a", "r1"), ("b", "r1"), ("c", "r1"), ("d", "r2"))]
    return build_domains(DC, build_inventory(ns, [pod("full", "a", gpu=8), pod("most", "b", gpu=6)]).nodes)


def test_one_pod_goes_to_the_least_free_node_that_holds_it():
    r = kueue_assign(tree(), template(gpu=4), 1, UNCONSTRAINED, profile="Mixed")
    assert r.ok and r.placement == {"c": 1}
    r = kueue_assign(tree(), template(gpu=2), 1, UNCONSTRAINED, profile="Mixed")
    assert r.placement == {"b": 1}


def test_spreading_skips_full_nodes():
    r = kueue_assign(tree(), template(gpu=8), 2, UNCONSTRAINED, profile="Mixed")
    assert r.ok and r.placement == {"c": 1, "d": 1}
    r = kueue_assign(tree(), template(gpu=2), 9, UNCONSTRAINED, profile="Mixed")
    assert r.ok and r.placement == {"b": 1, "c": 4, "d": 4}
    r = kueue_assign(tree(), template(gpu=8), 3, UNCONSTRAINED, profile="Mixed")
    assert r.reason == 'topology "dc" allows to fit only 2 out of 3 pod(s)'


def test_least_free_capacity_required_takes_the_least_free_rack_that_fits():
    req = TopologyRequest(mode="required", level="rack")
    r = kueue_assign(tree(), template(gpu=2), 4, req, profile="LeastFreeCapacity")  # r2 holds 4, r1 5
    assert r.domains == ("b1/r2",) and r.placement == {"d": 4}
    r = kueue_assign(tree(), template(gpu=2), 5, req, profile="LeastFreeCapacity")
    assert r.domains == ("b1/r1",) and sum(r.placement.values()) == 5
    r = kueue_assign(tree(), template(gpu=2), 6, req, profile="LeastFreeCapacity")
    assert r.reason == 'topology "dc" allows to fit only 5 out of 6 pod(s)'
