"""Quota arithmetic: subtree quota, available, maximum capacity, borrowing height."""

import pytest

from kadmit.index import ModelIndex
from kadmit.reference import available, potential_available
from kadmit.reference.quota import QuotaTree

from .builders import build, cluster_queue, cohort, fq, group, q

CPU = ("f", "cpu")


def pair_model(a_quota, b_quota):
    return build(cluster_queue("a", group(fq("f", cpu=a_quota)), cohort="c"),
                 cluster_queue("b", group(fq("f", cpu=b_quota)), cohort="c"))


@pytest.mark.parametrize("a_quota, b_quota, usage, want_a, want_b", [
    # plain nominal quotas share everything they don't use
    (10, 6, {}, 16_000, 16_000),
    (10, 6, {"a": 10_000}, 6_000, 6_000),
    # a borrowing limit caps what `a` takes beyond its own quota
    (q(10, borrow=1), 6, {}, 11_000, 16_000),
    (q(10, borrow=1), 6, {"a": 10_000}, 1_000, 6_000),
    # a lending limit keeps `b`'s guaranteed part (6 - 2 = 4) out of `a`'s reach
    (10, q(6, lend=2), {}, 12_000, 16_000),
    (10, q(6, lend=2), {"a": 10_000}, 2_000, 6_000),
    (10, q(6, lend=2), {"b": 5_000}, 11_000, 11_000),
    (10, q(6, lend=2), {"b": 3_000}, 12_000, 13_000),
    # over-admission shows as 0, never negative
    (2, 2, {"a": 5_000}, 0, 0),
])
def test_available_in_a_flat_cohort(a_quota, b_quota, usage, want_a, want_b):
    model = pair_model(a_quota, b_quota)
    usage = {cq: {CPU: v} for cq, v in usage.items()}
    assert available(model, usage, "a", CPU) == want_a
    assert available(model, usage, "b", CPU) == want_b


@pytest.mark.parametrize("a_quota, b_quota, want_a, want_b", [
    (10, 6, 16_000, 16_000),
    (q(10, borrow=1), 6, 11_000, 16_000),
    (10, q(6, lend=2), 12_000, 16_000),
    (q(10, borrow=0), q(6, lend=0), 10_000, 16_000),
])
def test_maximum_capacity(a_quota, b_quota, want_a, want_b):
    model = pair_model(a_quota, b_quota)
    assert potential_available(model, "a", CPU) == want_a
    assert potential_available(model, "b", CPU) == want_b


def hierarchy():
    # org (own 4) -> team (own 2, lends nothing) -> x (3); org -> y (1)
    return build(
        cohort("org", group(fq("f", cpu=4))),
        cohort("team", group(fq("f", cpu=q(2, lend=0))), parent="org"),
        cluster_queue("x", group(fq("f", cpu=3)), cohort="team"),
        cluster_queue("y", group(fq("f", cpu=1)), cohort="org"))


def test_hierarchical_subtree_quota():
    tree = QuotaTree(ModelIndex(hierarchy()))
    assert tree.cohorts["team"].subtree_quota[CPU] == 5_000
    assert tree.cohorts["org"].subtree_quota[CPU] == 5_000  # 4 + 1 + (5 - 5 guaranteed by team)


@pytest.mark.parametrize("usage, want_x, want_y", [
    ({}, 10_000, 5_000),
    ({"y": 5_000}, 5_000, 0),
    ({"x": 7_000}, 3_000, 3_000),
    ({"x": 4_000}, 6_000, 5_000),
])
def test_hierarchical_available(usage, want_x, want_y):
    model = hierarchy()
    usage = {cq: {CPU: v} for cq, v in usage.items()}
    assert available(model, usage, "x", CPU) == want_x
    assert available(model, usage, "y", CPU) == want_y


def test_hierarchical_maximum_capacity():
    assert potential_available(hierarchy(), "x", CPU) == 10_000
    assert potential_available(hierarchy(), "y", CPU) == 5_000


def test_undeclared_flavor_gives_nothing():
    model = build(cluster_queue("a", group(fq("f", cpu=4)), cohort="c"),
                  cluster_queue("b", group(fq("g", cpu=4)), cohort="c"))
    assert available(model, {}, "a", ("g", "cpu")) == 0
    assert potential_available(model, "a", ("g", "cpu")) == 0


def test_queue_without_cohort_has_its_nominal():
    model = build(cluster_queue("solo", group(fq("f", cpu=q(4, borrow=8)))))
    assert available(model, {"solo": {CPU: 1_000}}, "solo", CPU) == 3_000
    assert potential_available(model, "solo", CPU) == 4_000


@pytest.mark.parametrize("usage, request_, want", [
    ({}, 3_000, 0),          # within x's nominal
    ({}, 5_000, 1),          # fits in team (3 + 2)
    ({}, 8_000, 2),          # needs org
    ({"x": 3_000}, 1_000, 1),
    ({"x": 3_000, "y": 5_000}, 3_000, 2),  # nothing fits: the whole tree's height
])
def test_borrowing_height(usage, request_, want):
    tree = QuotaTree(ModelIndex(hierarchy()))
    for cq, v in usage.items():
        tree.add_usage(cq, {CPU: v})
    assert tree.borrowing_height("x", CPU, request_) == want


def test_incremental_usage_matches_the_formula():
    tree = QuotaTree(ModelIndex(pair_model(10, q(6, lend=2))))
    tree.add_usage("b", {CPU: 3_000})
    tree.add_usage("b", {CPU: 2_000})
    tree.add_usage("a", {CPU: 4_000})
    # cohort usage = max(0, 5 - 4) + max(0, 4 - 0)
    assert tree.cohorts["c"].usage[CPU] == 5_000
