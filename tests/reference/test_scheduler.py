"""Scheduling order and queueing: priorities, FIFO strategies, cycles, queue-level reasons."""

import pytest

from kadmit.model import LabelSelector, LocalQueue, PriorityClass
from kadmit.reference import decide

from .builders import admitted, build, cluster_queue, fq, group, outcome, pod_set, q, workload


def single(strategy="BestEffortFIFO", cpu=4, **options):
    return cluster_queue("cq", group(fq("f", cpu=cpu)), strategy=strategy, **options)


def test_decisions_cover_every_pending_workload_sorted_by_key():
    m = build(single(), workload("z", pod_set(cpu=1), queue="cq"), workload("a", pod_set(cpu=1), queue="cq"),
              admitted(workload("done", pod_set(cpu=1), queue="cq"), "cq", {"cpu": "f"}))
    assert [d.workload for d in decide(m)] == ["default/a", "default/z"]


def test_higher_priority_first_then_older():
    m = build(single(),
              workload("old-low", pod_set(cpu=3), queue="cq", priority=1, minute=0),
              workload("new-high", pod_set(cpu=3), queue="cq", priority=10, minute=5),
              workload("old-high", pod_set(cpu=1), queue="cq", priority=10, minute=1))
    got = outcome(decide(m))
    assert isinstance(got["default/old-low"], str)
    assert got["default/new-high"] == {"main": (1, {"cpu": "f"})}
    assert got["default/old-high"] == {"main": (1, {"cpu": "f"})}


def test_priority_class_values_order_the_queue():
    m = build(single(), PriorityClass(name="prod", value=1000), PriorityClass(name="low", value=1),
              workload("a", pod_set(cpu=3), queue="cq", priority_class="low", minute=0),
              workload("b", pod_set(cpu=3), queue="cq", priority_class="prod", minute=9))
    got = outcome(decide(m))
    assert got["default/b"] == {"main": (1, {"cpu": "f"})} and isinstance(got["default/a"], str)


def test_best_effort_fifo_lets_smaller_workloads_pass():
    m = build(single("BestEffortFIFO"),
              workload("big", pod_set(cpu=8), queue="cq", minute=0),
              workload("small", pod_set(cpu=2), queue="cq", minute=1))
    got = outcome(decide(m))
    assert got["default/small"] == {"main": (1, {"cpu": "f"})}
    assert "maximum capacity (4)" in got["default/big"]


def test_strict_fifo_blocks_behind_the_head():
    m = build(single("StrictFIFO"),
              workload("big", pod_set(cpu=8), queue="cq", minute=0),
              workload("small", pod_set(cpu=2), queue="cq", minute=1))
    got = outcome(decide(m))
    assert "maximum capacity (4)" in got["default/big"]
    assert got["default/small"] == "waiting behind default/big (StrictFIFO)"


def test_strict_fifo_admits_in_order_until_the_head_does_not_fit():
    m = build(single("StrictFIFO"),
              *[workload(f"w{i}", pod_set(cpu=1), queue="cq", minute=i) for i in range(6)])
    got = outcome(decide(m))
    assert [k for k, v in sorted(got.items()) if isinstance(v, dict)] == [f"default/w{i}" for i in range(4)]
    assert "insufficient unused quota" in got["default/w4"]
    assert got["default/w5"] == "waiting behind default/w4 (StrictFIFO)"


def test_namespace_mismatch_does_not_block_strict_fifo():
    cq = single("StrictFIFO", selector=LabelSelector(match_labels={"team": "a"}))
    m = build(cq, workload("other", pod_set(cpu=1), queue="cq", ns="team-b", minute=0),
              workload("mine", pod_set(cpu=1), queue="cq", ns="team-a", minute=1),
              namespaces={"team-a": {"team": "a"}, "team-b": {"team": "b"}})
    got = outcome(decide(m))
    assert got["team-b/other"] == "Workload namespace doesn't match ClusterQueue selector"
    assert got["team-a/mine"] == {"main": (1, {"cpu": "f"})}


def test_missing_selector_matches_no_namespace():
    m = build(single(selector=None), workload("w", pod_set(cpu=1), queue="cq"))
    assert outcome(decide(m))["default/w"] == "Workload namespace doesn't match ClusterQueue selector"


def test_selector_on_the_namespace_name_label():
    sel = LabelSelector(match_labels={"kubernetes.io/metadata.name": "ok"})
    m = build(single(selector=sel), workload("w", pod_set(cpu=1), queue="cq", ns="ok"))
    assert outcome(decide(m))["ok/w"] == {"main": (1, {"cpu": "f"})}


@pytest.mark.parametrize("stop", ["Hold", "HoldAndDrain"])
def test_stopped_queue_admits_nothing(stop):
    m = build(single(stop=stop), workload("w", pod_set(cpu=1), queue="cq"))
    assert outcome(decide(m))["default/w"] == "ClusterQueue cq is inactive"


def test_queue_level_reasons():
    m = build(single(), LocalQueue(namespace="default", name="dangling", cluster_queue="gone"),
              workload("no-lq", pod_set(cpu=1), queue="nope"),
              workload("no-cq", pod_set(cpu=1), queue="dangling"),
              workload("off", pod_set(cpu=1), queue="cq", active=False))
    got = outcome(decide(m))
    assert got == {"default/no-lq": "LocalQueue nope doesn't exist",
                   "default/no-cq": "ClusterQueue gone doesn't exist",
                   "default/off": "The workload is deactivated"}


def test_heads_that_do_not_borrow_go_first():
    # both heads fit the snapshot; `lender-side` uses its own quota so it goes first,
    # and the borrower then no longer fits
    m = build(cluster_queue("borrower", group(fq("f", cpu=0)), cohort="c"),
              cluster_queue("owner", group(fq("f", cpu=4)), cohort="c"),
              workload("borrow", pod_set(cpu=4), queue="borrower", priority=100, minute=0),
              workload("own", pod_set(cpu=4), queue="owner", priority=0, minute=5))
    got = outcome(decide(m))
    assert got["default/own"] == {"main": (1, {"cpu": "f"})}
    assert "insufficient unused quota for cpu in flavor f, 4 more needed" in got["default/borrow"]


def test_priority_orders_heads_across_queues_in_a_cohort():
    m = build(cluster_queue("x", group(fq("f", cpu=2)), cohort="c"),
              cluster_queue("y", group(fq("f", cpu=2)), cohort="c"),
              workload("low", pod_set(cpu=3), queue="x", priority=1, minute=0),
              workload("high", pod_set(cpu=3), queue="y", priority=9, minute=5))
    got = outcome(decide(m))
    assert got["default/high"] == {"main": (1, {"cpu": "f"})}
    assert isinstance(got["default/low"], str)


def test_skipped_head_is_retried_with_what_is_left():
    # cycle 1: both heads borrow; `first` (older) is admitted, `second` no longer fits;
    # cycle 2: `second` is nominated again and fits in flavor g
    m = build(cluster_queue("x", group(fq("f", cpu=0), fq("g", cpu=0)), cohort="c"),
              cluster_queue("y", group(fq("f", cpu=0), fq("g", cpu=0)), cohort="c"),
              cluster_queue("pool", group(fq("f", cpu=4), fq("g", cpu=4)), cohort="c"),
              workload("first", pod_set(cpu=3), queue="x", minute=0),
              workload("second", pod_set(cpu=3), queue="y", minute=1))
    got = outcome(decide(m))
    assert got["default/first"] == {"main": (1, {"cpu": "f"})}
    assert got["default/second"] == {"main": (1, {"cpu": "g"})}


def test_borrowing_limit_caps_admissions():
    m = build(cluster_queue("x", group(fq("f", cpu=q(2, borrow=1))), cohort="c"),
              cluster_queue("y", group(fq("f", cpu=8)), cohort="c"),
              *[workload(f"w{i}", pod_set(cpu=1), queue="x", minute=i) for i in range(5)])
    got = outcome(decide(m))
    assert sum(isinstance(v, dict) for v in got.values()) == 3
    assert sum(d.borrowing for d in decide(m)) == 1


def test_lending_limit_keeps_guaranteed_quota():
    m = build(cluster_queue("x", group(fq("f", cpu=0)), cohort="c"),
              cluster_queue("y", group(fq("f", cpu=q(8, lend=3))), cohort="c"),
              *[workload(f"w{i}", pod_set(cpu=1), queue="x", minute=i) for i in range(5)])
    got = outcome(decide(m))
    assert sum(isinstance(v, dict) for v in got.values()) == 3


def test_cohort_quota_is_shared_by_members():
    from .builders import cohort
    m = build(cohort("c", group(fq("f", cpu=5))),
              cluster_queue("x", group(fq("f", cpu=0)), cohort="c"),
              *[workload(f"w{i}", pod_set(cpu=2), queue="x", minute=i) for i in range(4)])
    got = outcome(decide(m))
    assert sum(isinstance(v, dict) for v in got.values()) == 2


def test_a_head_resumes_its_flavor_search_after_the_last_flavor_tried():
    """Kueue v0.17's LastTriedFlavorIdx (tests/oracle/features/lws-flavors.yaml): `leader` takes f1,
    the first flavor, and `worker` then fits neither (1 + 3 > 3 in f1, 3 > 1 in f2). Flavors are
    left to try, so the head stays; its first try's Pending message is new (the search starts over),
    the second goes on, and the third starts `leader` at f2, where `worker` fits f1."""
    m = build(cluster_queue("cq", group(fq("f1", cpu=3), fq("f2", cpu=1)), strategy="BestEffortFIFO"),
              workload("lws", pod_set("leader", cpu=1), pod_set("worker", cpu=3), queue="cq"))
    assert outcome(decide(m)) == {"default/lws": {"leader": (1, {"cpu": "f2"}), "worker": (1, {"cpu": "f1"})}}
