"""Kueue's pod-set slices (KEP-2724 "PodSet Slice"): each `slice_size` pods within one domain of the
slice level, while the whole pod set keeps its own required or preferred level."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kadmit.model import TopologyRequest
from kadmit.placement.domains import build_domains
from kadmit.placement.inventory import build_inventory
from kadmit.placement.reference import Gang, check_placement, feasible
from kadmit.placement.tas import kueue_assign

from .builders import DC, HOST, node, template


def tree():
    """Block b1: rack r1 holds 3 pods (a: 2, b: 1), rack r2 holds 3 (c: 3); block b2: rack r3 holds 4."""
    ns = [node("a", block="b1", rack="r1", gpu=2), node("b", block="b1", rack="r1", gpu=1),
          node("c", block="b1", rack="r2", gpu=3), node("d", block="b2", rack="r3", gpu=4)]
    return build_domains(DC, build_inventory(ns, []).nodes)


def block(slice_size=None, slice_level="rack", mode="required"):
    if slice_size is None:
        return TopologyRequest(mode=mode, level="block")
    return TopologyRequest(mode=mode, level="block", slice_level=slice_level, slice_size=slice_size)


def test_slices_that_fit_only_split_across_racks_fail():
    r = kueue_assign(tree(), template(gpu=1), 6, block(), profile="BestFit")  # b1 holds 6 over two racks
    assert r.ok and r.placement == {"a": 2, "b": 1, "c": 3}
    r = kueue_assign(tree(), template(gpu=1), 6, block(slice_size=2), profile="BestFit")
    assert r.reason == 'topology "dc" allows to fit only 2 out of 3 slice(s)'
    r = kueue_assign(tree(), template(gpu=1), 6, block(slice_size=3), profile="BestFit")
    assert r.ok and r.placement == {"a": 2, "b": 1, "c": 3}


def test_each_slice_stays_in_one_rack():
    # b1 holds one slice per rack, b2 two: equal in slices, so the one with fewer pods (b2: 4, b1: 6), as
    # Kueue's sortedDomains breaks the tie (the oracle: d:4)
    r = kueue_assign(tree(), template(gpu=1), 4, block(slice_size=2), profile="BestFit")
    assert r.ok and r.domains == ("b2",) and r.placement == {"d": 4}
    # b1's two slices, when b2 holds one: one in each rack, and within r1 the least free host first, as
    # Kueue orders the domains below the slice level (the oracle: a:1, b:1, c:2)
    ns = [node("a", block="b1", rack="r1", gpu=2), node("b", block="b1", rack="r1", gpu=1),
          node("c", block="b1", rack="r2", gpu=3), node("d", block="b2", rack="r3", gpu=3)]
    r = kueue_assign(build_domains(DC, build_inventory(ns, []).nodes), template(gpu=1), 4, block(slice_size=2),
                     profile="BestFit")
    assert r.ok and r.domains == ("b1",) and r.placement == {"a": 1, "b": 1, "c": 2}
    r = kueue_assign(tree(), template(gpu=1), 4, block(), profile="BestFit")  # without slices: b2 fits best
    assert r.ok and r.placement == {"d": 4}
    r = kueue_assign(tree(), template(gpu=1), 6, block(slice_size=2, mode="preferred"), profile="BestFit")
    assert r.ok and sum(r.placement.values()) == 6 and r.placement["d"] == 4
    r = kueue_assign(tree(), template(gpu=1), 8, block(slice_size=2, mode="preferred"), profile="BestFit")
    assert r.ok and sum(r.placement.values()) == 8 and r.placement["d"] == 4


def test_slices_on_hosts():
    r = kueue_assign(tree(), template(gpu=1), 4, block(slice_size=2, slice_level=HOST), profile="BestFit")
    assert r.ok and r.placement == {"d": 4}  # 2 slices in each block: b2 holds fewer pods (the oracle: d:4)
    r = kueue_assign(tree(), template(gpu=1), 6, block(slice_size=3, slice_level=HOST), profile="BestFit")
    assert r.reason == 'topology "dc" allows to fit only 1 out of 2 slice(s)'


def test_kueue_rejects_slices_above_the_pod_set_level():
    bad = TopologyRequest(mode="required", level="rack", slice_level="block", slice_size=1)
    assert "is above the podset topology" in kueue_assign(tree(), template(gpu=1), 2, bad).reason


def test_kueue_places_the_whole_slices_a_count_holds():
    """Kueue counts `podSetSize / sliceSize` slices (tas_flavor_snapshot.go): 6 pods in slices of 4 are
    one slice (rack r3's 4 pods, the rest on no node); 2 pods in slices of 3 are none, placed nowhere
    (tests/oracle/features/tas-slices-a-count-the-size-does-not-divide.yaml)."""
    r = kueue_assign(tree(), template(gpu=1), 6, block(slice_size=4), profile="BestFit")
    assert r.ok and r.placement == {"d": 4}
    r = kueue_assign(tree(), template(gpu=1), 2, block(slice_size=3), profile="BestFit")
    assert r.ok and r.placement == {}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(free=st.lists(st.integers(0, 3), min_size=4, max_size=4), slices=st.integers(1, 3),
       size=st.integers(1, 3), mode=st.sampled_from(["required", "preferred"]),
       level=st.sampled_from(["block", "rack"]), slice_level=st.sampled_from(["rack", HOST]),
       profile=st.sampled_from(["BestFit", "MostFreeCapacity", "LeastFreeCapacity"]))
def test_kueue_slices_agree_with_the_reference(free, slices, size, mode, level, slice_level, profile):
    """Kueue's placement is a valid sliced placement; for a required level it fails only when no
    sliced placement in one domain of the level exists (slice counts per domain are exact)."""
    spots = (("a", "b1", "r1"), ("b", "b1", "r1"), ("c", "b1", "r2"), ("d", "b2", "r3"))
    ns = [node(n, block=b, rack=r, gpu=g) for (n, b, r), g in zip(spots, free)]
    inv = build_inventory(ns, [])
    count, tpl = slices * size, template(gpu=1)
    req = TopologyRequest(mode=mode, level=level, slice_level=slice_level, slice_size=size)
    r = kueue_assign(build_domains(DC, inv.nodes), tpl, count, req, profile=profile)
    gang = Gang("g", tpl, count, mode, level, slice_level, size)
    if r.ok:
        assert check_placement(inv.nodes, [gang], {"g": r.placement}, DC) == []
    elif mode == "required":
        assert not feasible(inv.nodes, [gang], DC)
