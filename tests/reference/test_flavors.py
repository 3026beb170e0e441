"""Flavor assignment: taints, node affinity, fit, fungibility, pod sets in order, partial admission."""

import pytest

from kadmit.reference import decide

from .builders import (GPU, admitted, affinity, build, cluster_queue, flavor, fq, group, outcome, pod_set,
                       tolerate, workload)


def one(model):
    (d,) = decide(model)
    return d


def two_flavors(**cq_options):
    return cluster_queue("cq", group(fq("a", cpu=4), fq("b", cpu=4)), **cq_options)


def test_first_flavor_that_fits():
    d = one(build(two_flavors(), workload("w", pod_set(cpu=3), queue="cq")))
    assert d.admitted and d.pod_sets[0].flavors == {"cpu": "a"} and not d.borrowing


def test_next_flavor_when_the_first_is_full():
    m = build(two_flavors(), admitted(workload("old", pod_set(cpu=3), queue="cq"), "cq", {"cpu": "a"}),
              workload("w", pod_set(cpu=3), queue="cq"))
    assert outcome(decide(m))["default/w"] == {"main": (1, {"cpu": "b"})}


@pytest.mark.parametrize("tolerations, want", [
    ((), "b"),
    ((tolerate("spot"),), "a"),
    ((tolerate("spot", "true", "NoSchedule"),), "a"),
    ((tolerate("spot", "false"),), "b"),
    ((tolerate(),), "a"),  # empty key + Exists tolerates everything
])
def test_untolerated_taints_skip_a_flavor(tolerations, want):
    m = build(flavor("a", taints=("spot=true:NoSchedule",)), two_flavors(),
              workload("w", pod_set(cpu=1, tolerations=tolerations), queue="cq"))
    assert one(m).pod_sets[0].flavors == {"cpu": want}


def test_prefer_no_schedule_taints_are_ignored():
    m = build(flavor("a", taints=("spot=true:PreferNoSchedule",)), two_flavors(),
              workload("w", pod_set(cpu=1), queue="cq"))
    assert one(m).pod_sets[0].flavors == {"cpu": "a"}


def test_flavor_tolerations_count_too():
    a = flavor("a", taints=("spot=true:NoSchedule",), tolerations=(tolerate("spot", "true", "NoSchedule"),))
    m = build(a, two_flavors(), workload("w", pod_set(cpu=1), queue="cq"))
    assert one(m).pod_sets[0].flavors == {"cpu": "a"}


def test_untolerated_taint_message():
    m = build(flavor("a", taints=("nvidia.com/gpu=present:NoSchedule",)),
              cluster_queue("cq", group(fq("a", cpu=4))), workload("w", pod_set(cpu=1), queue="cq"))
    assert one(m).reason == ("couldn't assign flavors to pod set main: "
                             "untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor a")


@pytest.mark.parametrize("selector, terms, want", [
    ({"model": "h100"}, (), "b"),
    ({"model": "a100"}, (), "a"),
    ({"zone": "x"}, (), "a"),  # a key no flavor defines is ignored
    ({}, affinity([("model", "In", ("h100",))]), "b"),
    ({}, affinity([("model", "NotIn", ("a100",))]), "b"),
    ({}, affinity([("model", "In", ("h100",))], [("zone", "In", ("x",))]), "a"),  # a term left empty
    ({}, affinity([("model", "DoesNotExist", ())]), None),
])
def test_node_selector_and_affinity_on_flavor_keys(selector, terms, want):
    m = build(flavor("a", labels={"model": "a100"}), flavor("b", labels={"model": "h100"}), two_flavors(),
              workload("w", pod_set(cpu=1, node_selector=selector, node_affinity=terms), queue="cq"))
    d = one(m)
    if want is None:
        assert d.reason == ("couldn't assign flavors to pod set main: flavor a doesn't match node affinity, "
                            "flavor b doesn't match node affinity")
    else:
        assert d.pod_sets[0].flavors == {"cpu": want}


def test_resource_no_group_covers():
    m = build(cluster_queue("cq", group(fq("a", cpu=4))), workload("w", pod_set(cpu=1, gpu=1), queue="cq"))
    assert one(m).reason == f"couldn't assign flavors to pod set main: resource {GPU} unavailable in ClusterQueue"


def test_maximum_capacity_and_unused_quota_messages():
    m = build(cluster_queue("cq", group(fq("a", gpu=20), fq("b", gpu=40))),
              admitted(workload("old", pod_set(gpu=16), queue="cq"), "cq", {"gpu": "b"}),
              workload("w", pod_set(gpu=32), queue="cq"))
    assert outcome(decide(m))["default/w"] == (
        "couldn't assign flavors to pod set main: "
        f"insufficient quota for {GPU} in flavor a, previously considered podsets requests (0) + "
        "current podset request (32) > maximum capacity (20), "
        f"insufficient unused quota for {GPU} in flavor b, 8 more needed")


def test_quantities_are_displayed_in_kubernetes_units():
    m = build(cluster_queue("cq", group(fq("a", memory="64Gi", cpu="1500m"))),
              workload("w", pod_set(memory="100Gi", cpu="2"), queue="cq"))
    assert one(m).reason == (
        "couldn't assign flavors to pod set main: "
        "insufficient quota for cpu in flavor a, previously considered podsets requests (0) + "
        "current podset request (2) > maximum capacity (1500m), "
        "insufficient quota for memory in flavor a, previously considered podsets requests (0) + "
        "current podset request (100Gi) > maximum capacity (64Gi)")


def test_pod_sets_see_the_usage_of_earlier_ones():
    m = build(two_flavors(), workload("w", pod_set("p1", cpu=3), pod_set("p2", cpu=3), queue="cq"))
    d = one(m)
    assert [p.flavors["cpu"] for p in d.pod_sets] == ["a", "b"]


def test_only_the_first_failing_pod_set_is_reported():
    m = build(cluster_queue("cq", group(fq("a", cpu=4))),
              workload("w", pod_set("p1", cpu=3), pod_set("p2", cpu=3), pod_set("p3", cpu=9), queue="cq"))
    assert one(m).reason == (
        "couldn't assign flavors to pod set p2: insufficient quota for cpu in flavor a, "
        "previously considered podsets requests (3) + current podset request (3) > maximum capacity (4)")


def test_one_flavor_for_a_whole_resource_group():
    cq = cluster_queue("cq", group(fq("a", cpu=8, gpu=1), fq("b", cpu=8, gpu=8)))
    d = one(build(cq, workload("w", pod_set(cpu=1, gpu=2), queue="cq")))
    assert d.pod_sets[0].flavors == {"cpu": "b", GPU: "b"}


def test_separate_resource_groups_pick_separately():
    cq = cluster_queue("cq", group(fq("c1", cpu=1), fq("c2", cpu=8)), group(fq("g1", gpu=8)))
    d = one(build(cq, workload("w", pod_set(cpu=2, gpu=2), queue="cq")))
    assert d.pod_sets[0].flavors == {"cpu": "c2", GPU: "g1"}


def borrowing_pair(fungibility):
    return build(
        cluster_queue("cq", group(fq("a", cpu=2), fq("b", cpu=4)), cohort="c", fungibility=fungibility),
        cluster_queue("lender", group(fq("a", cpu=8), fq("b", cpu=0)), cohort="c"),
        workload("w", pod_set(cpu=3), queue="cq"))


def test_borrow_policy_stops_at_the_first_flavor_that_fits():
    d = next(d for d in decide(borrowing_pair("Borrow")) if d.workload == "default/w")
    assert d.pod_sets[0].flavors == {"cpu": "a"} and d.borrowing


def test_try_next_flavor_prefers_a_flavor_without_borrowing():
    d = next(d for d in decide(borrowing_pair("TryNextFlavor")) if d.workload == "default/w")
    assert d.pod_sets[0].flavors == {"cpu": "b"} and not d.borrowing


def test_try_next_flavor_falls_back_to_the_first_that_borrows():
    m = build(
        cluster_queue("cq", group(fq("a", cpu=2), fq("b", cpu=2)), cohort="c", fungibility="TryNextFlavor"),
        cluster_queue("lender", group(fq("a", cpu=8), fq("b", cpu=8)), cohort="c"),
        workload("w", pod_set(cpu=3), queue="cq"))
    d = next(d for d in decide(m) if d.workload == "default/w")
    assert d.pod_sets[0].flavors == {"cpu": "a"} and d.borrowing


def test_topology_request_needs_a_topology_flavor():
    from kadmit.model import Topology
    m = build(Topology(name="dc", levels=("rack", "kubernetes.io/hostname")), flavor("b", topology="dc"),
              two_flavors(), workload("w", pod_set(cpu=1, topology=("required", "rack")), queue="cq"))
    assert one(m).pod_sets[0].flavors == {"cpu": "b"}


@pytest.mark.parametrize("count, min_count, used, want", [
    (24, 8, 0, 24),
    (24, 8, 10, 14),   # 24 - floor(16 * k / 16) for the smallest k that fits: k = 10
    (24, 8, 16, 8),
    (24, 8, 17, None),
    (24, None, 10, None),
])
def test_partial_admission(count, min_count, used, want):
    cq = cluster_queue("cq", group(fq("a", cpu=24)))
    objs = [cq, workload("w", pod_set("workers", count=count, min_count=min_count, cpu=1), queue="cq")]
    if used:
        objs.append(admitted(workload("old", pod_set(cpu=used), queue="cq"), "cq", {"cpu": "a"}))
    result = outcome(decide(build(*objs)))["default/w"]
    if want is None:
        assert isinstance(result, str) and "insufficient unused quota for cpu in flavor a" in result
    else:
        assert result == {"workers": (want, {"cpu": "a"})}


def test_partial_admission_shrinks_pod_sets_together():
    # deltas 4 and 12 (total 16): k=8 gives 8 - 2 = 6 and 16 - 6 = 10, the first k that fits 16
    cq = cluster_queue("cq", group(fq("a", cpu=16)))
    w = workload("w", pod_set("p1", count=8, min_count=4, cpu=1), pod_set("p2", count=16, min_count=4, cpu=1),
                 queue="cq")
    assert outcome(decide(build(cq, w)))["default/w"] == {"p1": (6, {"cpu": "a"}), "p2": (10, {"cpu": "a"})}


def test_pods_resource_counts_pods():
    cq = cluster_queue("cq", group(fq("a", cpu=100, pods=3)))
    m = build(cq, workload("w", pod_set(count=4, cpu=1), queue="cq"))
    assert "insufficient quota for pods in flavor a" in one(m).reason
    assert one(build(cq, workload("w", pod_set(count=3, cpu=1), queue="cq"))).admitted


GROUP_CASE = "tests/oracle/features/pod-set-group-quota-message-for-each-member.yaml"


def test_a_pod_set_group_is_worded_as_kueue_and_the_engine_word_it():
    """The pod sets of one group (podSetGroupName) are searched a flavor together, for their summed requests, and
    each gets the group's reasons (Kueue's assignFlavors, groupedRequests.InOrder): Kueue's message (the oracle's,
    in the case) names leader and main with the group's "(0) + current podset request (11)"; the reference said
    "pod set main: ... (500m) + current podset request (10500m)", one pod set at a time. The engine's words."""
    from kadmit import api
    from kadmit import workspace as ws

    reference = {d.workload: d.reason for d in decide(ws.load([GROUP_CASE]).model)}
    engine = api.admit([GROUP_CASE]).result.reasons
    assert reference["ns/group-over-quota"] == "; ".join(
        "couldn't assign flavors to pod set %s: insufficient quota for cpu in flavor f0, previously considered "
        "podsets requests (0) + current podset request (11) > maximum capacity (10)" % name
        for name in ("leader", "main"))
    for key in ("ns/group-over-quota", "ns/busy-group"):
        flavors = [r.message for r in engine[key] if r.message.startswith("couldn't assign flavors")]
        assert reference[key] == "; ".join(flavors)
