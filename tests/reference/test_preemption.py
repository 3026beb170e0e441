"""Kueue's preemption in the reference (docs/PREEMPTION.md): policies, candidate order, fill-back,
hierarchical reclaim, fair sharing, flavor fungibility and the scheduler's handling of targets.

Scenarios named after Kueue's own tests reproduce their expected outcome and messages."""

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kadmit.model as model_module
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import BorrowWithinCohort, FairSharing, FlavorFungibility, Preemption
from kadmit.reference import available, decide
from kadmit.reference.preempting import (
    OVERLAPPING,
    PreemptingScheduler,
    fair_settings,
)
from kadmit.reference.preemption import FairSharing as FairConfig
from kadmit.reference.preemption import (
    Preemptor,
    dominant_resource_share,
    get_targets,
    preempted_message,
)
from kadmit.reference.scheduler import NO_LONGER_FITS

from .builders import (
    T0,
    admitted,
    build,
    cluster_queue,
    cohort,
    fq,
    group,
    pod_set,
    q,
    workload,
)
from .strategies import admission_models
from .test_properties import check_tree

CPU = ("f", "cpu")


def cqp(name, *groups, cohort=None, within="Never", reclaim="Never", bwc=None, threshold=None, weight=None,
        when_can_preempt="TryNextFlavor", **kw):
    """A cluster queue with a preemption policy (and a fair-sharing weight in milli-units)."""
    cq = cluster_queue(name, *groups, cohort=cohort, **kw)
    borrow = None if bwc is None else BorrowWithinCohort(policy=bwc, max_priority_threshold=threshold)
    return cq.model_copy(update={
        "preemption": Preemption(within_cluster_queue=within, reclaim_within_cohort=reclaim,
                                 borrow_within_cohort=borrow),
        "fair_sharing": None if weight is None else FairSharing(weight=weight),
        "flavor_fungibility": FlavorFungibility(when_can_borrow=cq.flavor_fungibility.when_can_borrow,
                                                when_can_preempt=when_can_preempt)})


def running(name, cq, cpu, priority=0, minute=0, at=None, evicted=False, flavor="f", ns="default"):
    """An admitted workload of `cpu` units in `flavor`, admitted `at` minutes after T0."""
    wl = admitted(workload(name, pod_set(cpu=cpu), queue=cq, priority=priority, minute=minute, ns=ns), cq,
                  {"cpu": flavor})
    admission = wl.admission.model_copy(update={"admitted_at": None if at is None else T0 + timedelta(minutes=at)})
    return wl.model_copy(update={"admission": admission, "evicted": evicted})


def targets_of(model, key, fair=None):
    """The targets Kueue would choose for a pending workload at its first nomination."""
    s = PreemptingScheduler(model, fair)
    wl = s.index.workloads[key]
    cq = s.index.cluster_queue_of(wl)
    _, targets = s.nominate_with_targets(cq, wl)
    return [(t.key.split("/")[1], t.reason) for t in targets]


def by_key(decisions):
    return {d.workload.split("/")[1]: d for d in decisions}


# --- withinClusterQueue ----------------------------------------------------------------------

@pytest.mark.parametrize("policy, low_priority, low_minute, want", [
    ("Never", 1, 0, []),
    ("LowerPriority", 1, 0, [("low", "InClusterQueue")]),
    ("LowerPriority", 10, 9, []),  # equal priority is never lower
    ("LowerOrNewerEqualPriority", 10, 9, [("low", "InClusterQueue")]),  # equal and newer
    ("LowerOrNewerEqualPriority", 10, 0, []),  # equal but older than the preemptor
])
def test_within_cluster_queue_policies(policy, low_priority, low_minute, want):
    m = build(cqp("cq", group(fq("f", cpu=4)), within=policy),
              running("low", "cq", 3, priority=low_priority, minute=low_minute),
              workload("high", pod_set(cpu=3), queue="cq", priority=10, minute=5))
    assert targets_of(m, "default/high") == want


def test_preemptor_is_admitted_in_the_next_cycle():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 3, priority=1),
              workload("high", pod_set(cpu=3), queue="cq", priority=10, minute=5))
    s = PreemptingScheduler(m)
    s.enqueue()
    s.cycle()
    assert not s.decisions["default/high"].admitted
    assert s.decisions["default/high"].reason == (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f, 2 more needed. "
        "Pending the preemption of 1 workload(s)")
    assert s.decisions["default/low"].reason == (
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to prioritization in the "
        "ClusterQueue; preemptor path: /cq; preemptee path: /cq")
    got = by_key(decide(m, preemption=True))
    assert got["high"].admitted and [t.key for t in got["high"].preempted] == ["default/low"]
    assert not got["low"].admitted and got["low"].preempted_by == "default/high"
    assert got["low"].preemption_reason == "InClusterQueue"
    # requeued, the victim can't come back: it may not preempt a higher priority
    assert "insufficient unused quota for cpu in flavor f, 2 more needed" in got["low"].reason


def test_preemption_is_off_by_default():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 3, priority=1),
              workload("high", pod_set(cpu=3), queue="cq", priority=10, minute=5))
    (d,) = decide(m)
    assert not d.admitted and d.preempted == ()


# --- candidate order, fill-back, nothing in vain -------------------------------------------------

def test_candidates_lowest_priority_then_most_recently_admitted():
    m = build(cqp("cq", group(fq("f", cpu=6)), within="LowerPriority"),
              running("old-low", "cq", 2, priority=1, at=1), running("new-low", "cq", 2, priority=1, at=5),
              running("mid", "cq", 2, priority=2, at=9),
              workload("high", pod_set(cpu=2), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("new-low", "InClusterQueue")]


def test_ties_on_admission_time_break_by_key():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("b", "cq", 2, priority=1, at=3), running("a", "cq", 2, priority=1, at=3),
              workload("high", pod_set(cpu=2), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("a", "InClusterQueue")]


def test_ties_on_admission_time_break_by_uid_before_the_key():
    """Kueue's CandidatesOrdering ends on the Workload's UID: the lower UID goes first, whatever
    the names (the key only where the UIDs are equal)."""
    a = running("a", "cq", 2, priority=1, at=3).model_copy(update={"uid": "00000000-0000-0000-0000-000000000002"})
    b = running("b", "cq", 2, priority=1, at=3).model_copy(update={"uid": "00000000-0000-0000-0000-000000000001"})
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"), a, b,
              workload("high", pod_set(cpu=2), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("b", "InClusterQueue")]


def test_evicted_workloads_come_first():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 2, priority=1, at=1), running("going", "cq", 2, priority=5, at=0, evicted=True),
              workload("high", pod_set(cpu=2), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("going", "InClusterQueue")]


def test_other_queues_before_the_preemptors_own():
    m = build(cqp("a", group(fq("f", cpu=4)), cohort="c", within="LowerPriority", reclaim="LowerPriority"),
              cqp("b", group(fq("f", cpu=0)), cohort="c"),
              running("own", "a", 2, priority=0, at=9), running("borrower", "b", 2, priority=5, at=0),
              workload("high", pod_set(cpu=2), queue="a", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("borrower", "InCohortReclamation")]


def test_fill_back_drops_a_victim_that_is_not_needed():
    # removing `small` (lowest priority) is not enough, `big` is needed, and then `small` can stay
    m = build(cqp("cq", group(fq("f", cpu=10)), within="LowerPriority"),
              running("small", "cq", 2, priority=1), running("big", "cq", 5, priority=2),
              workload("high", pod_set(cpu=6), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("big", "InClusterQueue")]


def test_fill_back_keeps_kueues_order_of_the_remaining_victims():
    # taken a, b, c; a is given back and c takes its slot (Go's O(1) deletion)
    m = build(cqp("cq", group(fq("f", cpu=10)), within="LowerPriority"),
              running("a", "cq", 1, priority=1), running("b", "cq", 3, priority=2), running("c", "cq", 6, priority=3),
              workload("high", pod_set(cpu=9), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == [("c", "InClusterQueue"), ("b", "InClusterQueue")]


def test_no_preemption_when_even_every_candidate_is_not_enough():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 2, priority=1), running("higher", "cq", 2, priority=20),
              workload("high", pod_set(cpu=4), queue="cq", priority=10, minute=20))
    assert targets_of(m, "default/high") == []
    got = by_key(decide(m, preemption=True))
    assert "low" not in got and not got["high"].admitted  # nobody evicted in vain
    assert got["high"].reason == ("couldn't assign flavors to pod set main: insufficient unused quota for cpu "
                                  "in flavor f, 4 more needed")


# --- reclaimWithinCohort and borrowWithinCohort ----------------------------------------------------

def lender_pair(reclaim, borrower_priority, bwc=None, threshold=None, request=4):
    # `mine` (nominal 4) lends to `other` (nominal 0), which uses 4 of mine
    return build(cqp("mine", group(fq("f", cpu=4)), cohort="c", reclaim=reclaim, bwc=bwc, threshold=threshold),
                 cqp("other", group(fq("f", cpu=0)), cohort="c"),
                 running("borrower", "other", 4, priority=borrower_priority),
                 workload("w", pod_set(cpu=request), queue="mine", priority=5, minute=9))


@pytest.mark.parametrize("reclaim, priority, want", [
    ("Never", 0, []),
    ("LowerPriority", 0, [("borrower", "InCohortReclamation")]),
    ("LowerPriority", 9, []),  # no reclaiming from a higher priority under LowerPriority
    ("Any", 9, [("borrower", "InCohortReclamation")]),  # Any reclaims whatever the priority
])
def test_reclaim_within_cohort(reclaim, priority, want):
    assert targets_of(lender_pair(reclaim, priority), "default/w") == want


def test_no_reclaim_from_a_queue_within_its_nominal_quota():
    m = build(cqp("mine", group(fq("f", cpu=2)), cohort="c", reclaim="Any"),
              cqp("other", group(fq("f", cpu=4)), cohort="c"),
              running("inside", "other", 4, priority=0),
              workload("w", pod_set(cpu=4), queue="mine", priority=5, minute=9))
    assert targets_of(m, "default/w") == []


def borrowing_preemptor(threshold=None, victim_priority=1):
    # `mine` (nominal 2) needs 4: it must borrow 2 from `lender`, used by `other`'s borrower
    return build(cqp("mine", group(fq("f", cpu=2)), cohort="c", reclaim="Any", bwc="LowerPriority",
                     threshold=threshold),
                 cqp("lender", group(fq("f", cpu=4)), cohort="c"),
                 cqp("other", group(fq("f", cpu=0)), cohort="c"),
                 running("borrower", "other", 6, priority=victim_priority),
                 workload("w", pod_set(cpu=4), queue="mine", priority=5, minute=9))


@pytest.mark.parametrize("threshold, victim_priority, want", [
    (None, 1, [("borrower", "InCohortReclaimWhileBorrowing")]),
    (3, 1, [("borrower", "InCohortReclaimWhileBorrowing")]),  # at or below the threshold
    (0, 1, []),  # above the threshold: only when the preemptor would not borrow
    (None, 5, []),  # equal priority is never preempted while borrowing
])
def test_borrow_within_cohort_and_threshold(threshold, victim_priority, want):
    assert targets_of(borrowing_preemptor(threshold, victim_priority), "default/w") == want


def test_without_borrow_within_cohort_a_borrowing_preemptor_reclaims_nothing():
    m = build(cqp("mine", group(fq("f", cpu=2)), cohort="c", reclaim="Any"),
              cqp("lender", group(fq("f", cpu=4)), cohort="c"), cqp("other", group(fq("f", cpu=0)), cohort="c"),
              running("borrower", "other", 6, priority=1),
              workload("w", pod_set(cpu=4), queue="mine", priority=5, minute=9))
    assert targets_of(m, "default/w") == []


# --- hierarchical cohorts ------------------------------------------------------------------------

def hierarchy(flat):
    # team = {mine (2), sibling (4)} under root, with `other` (0) beside team; other borrows 4.
    # `mine` asks 4: beyond its nominal quota but within team's, so in the hierarchy it has the
    # advantage over `other`; in a flat cohort it would need borrowWithinCohort.
    parent = "root" if flat else "team"
    objs = [cohort("root")] + ([] if flat else [cohort("team", parent="root")])
    return build(*objs,
                 cqp("mine", group(fq("f", cpu=2)), cohort=parent, reclaim="Any"),
                 cqp("sibling", group(fq("f", cpu=4)), cohort=parent),
                 cqp("other", group(fq("f", cpu=0)), cohort="root"),
                 running("borrower", "other", 4, priority=9),
                 workload("w", pod_set(cpu=4), queue="mine", priority=5, minute=9))


def test_hierarchical_advantage_reclaims_while_borrowing():
    assert targets_of(hierarchy(flat=False), "default/w") == [("borrower", "InCohortReclamation")]
    assert targets_of(hierarchy(flat=True), "default/w") == []


def test_hierarchical_paths_in_the_preempted_message():
    assert first_cycle(hierarchy(flat=False), fair=False)["borrower"].reason == preempted_message(
        "InCohortReclamation", "/root/team/mine", "/root/other")
    got = by_key(decide(hierarchy(flat=False), preemption=True))
    assert got["w"].admitted and got["borrower"].preempted_by == "default/w"


# --- flavor fungibility -------------------------------------------------------------------------

@pytest.mark.parametrize("when_can_preempt, flavor, victims", [
    ("Preempt", "f", ["default/low"]),
    ("TryNextFlavor", "g", []),
])
def test_when_can_preempt(when_can_preempt, flavor, victims):
    m = build(cqp("cq", group(fq("f", cpu=4), fq("g", cpu=4)), within="LowerPriority",
                  when_can_preempt=when_can_preempt),
              running("low", "cq", 4, priority=1),
              workload("high", pod_set(cpu=4), queue="cq", priority=10, minute=5))
    got = by_key(decide(m, preemption=True))
    assert got["high"].admitted and got["high"].pod_sets[0].flavors == {"cpu": flavor}
    assert [t.key for t in got["high"].preempted] == victims


def test_a_flavor_without_candidates_loses_to_one_that_can_preempt():
    # f would need preemption with nobody allowed; g needs preemption and has a candidate
    m = build(cqp("cq", group(fq("f", cpu=4), fq("g", cpu=4)), within="LowerPriority"),
              running("top", "cq", 4, priority=20, flavor="f"), running("low", "cq", 4, priority=1, flavor="g"),
              workload("high", pod_set(cpu=4), queue="cq", priority=10, minute=5))
    s = PreemptingScheduler(m)
    a, targets = s.nominate_with_targets(s.index.cluster_queues["cq"], s.index.workloads["default/high"])
    assert a.mode == "Preempt" and a.pod_sets[0].flavors == {"cpu": "g"} and [t.key for t in targets] == ["default/low"]


# --- fair sharing -------------------------------------------------------------------------------

def shared(weight_a=None, big=False, within_b=False):
    # a cohort with its own 10 cpu; `a` and `b` have no nominal quota. `a` uses all 10 (one
    # workload of 10, or five of 2); `b` wants 2.
    objs = [cohort("c", group(fq("f", cpu=10))),
            cqp("a", group(fq("f", cpu=0)), cohort="c", reclaim="Any", weight=weight_a),
            cqp("b", group(fq("f", cpu=2 if within_b else 0)), cohort="c", reclaim="Any")]
    if big:
        objs.append(running("a1", "a", 12 if within_b else 10, at=1))  # everything, b's nominal 2 too
    else:
        objs += [running(f"a{i}", "a", 2, at=i) for i in range(1, 6)]
    return build(*objs, workload("w", pod_set(cpu=2), queue="b", minute=30))


def test_dominant_resource_share():
    s = PreemptingScheduler(shared(weight_a=2000))
    drs = dominant_resource_share(s.snap, s.tree.queues["a"])
    assert drs.ratio == 1000 and drs.share == 500  # borrows 10 of 10 lendable, weight 2
    extra = dominant_resource_share(s.snap, s.tree.queues["b"], {CPU: 2_000})
    assert extra.ratio == 200 and dominant_resource_share(s.snap, s.tree.queues["b"]).is_zero


FAIR = FairConfig()


def test_fair_sharing_preempts_the_newest_workload_of_the_highest_share():
    assert targets_of(shared(), "default/w", FAIR) == [("a5", "InCohortFairSharing")]


@pytest.mark.parametrize("weight, want", [
    (4000, [("a5", "InCohortFairSharing")]),  # a's share after: 800/4 = 200 <= b's 200
    (5000, []),  # 800/5 = 160 < 200, and before: 1000/5 = 200, not above 200
])
def test_fair_sharing_weights(weight, want):
    assert targets_of(shared(weight_a=weight), "default/w", FAIR) == want


@pytest.mark.parametrize("strategies, want", [
    (("LessThanOrEqualToFinalShare",), []),  # a's share after would be 0 < 200
    (("LessThanInitialShare",), [("a1", "InCohortFairSharing")]),  # 200 < 1000
    (("LessThanOrEqualToFinalShare", "LessThanInitialShare"), [("a1", "InCohortFairSharing")]),
])
def test_fair_sharing_strategies(strategies, want):
    assert targets_of(shared(big=True), "default/w", FairConfig(strategies=strategies)) == want


def test_fair_sharing_within_nominal_reclaims_regardless_of_shares():
    assert targets_of(shared(big=True, within_b=True), "default/w",
                      FairConfig(strategies=("LessThanOrEqualToFinalShare",))) == [("a1", "InCohortReclamation")]


def test_fair_sharing_orders_admission_by_share():
    # the cohort has 4; `a` already uses 2. Classical order admits the higher priority `a-next`;
    # fair sharing admits `b-next`, whose queue is left with the lower share.
    m = build(cohort("c", group(fq("f", cpu=4))),
              cqp("a", group(fq("f", cpu=0)), cohort="c"), cqp("b", group(fq("f", cpu=0)), cohort="c"),
              running("a-now", "a", 2),
              workload("a-next", pod_set(cpu=2), queue="a", priority=10, minute=1),
              workload("b-next", pod_set(cpu=2), queue="b", priority=0, minute=2))
    classical = by_key(decide(m, preemption=True))
    fair = by_key(decide(m, preemption=True, fair_sharing=True))
    assert classical["a-next"].admitted and not classical["b-next"].admitted
    assert fair["b-next"].admitted and not fair["a-next"].admitted


def test_fair_sharing_setting_comes_from_the_model_configuration():
    m = shared()
    assert fair_settings(m) is None and fair_settings(m, True) == FairConfig()
    config = getattr(model_module, "SchedulerConfig", None)
    if config is None or "scheduler_configs" not in type(m).model_fields:
        pytest.skip("the model has no scheduler configuration yet")
    configured = m.model_copy(update={"scheduler_configs": (
        config(fair_sharing=True, preemption_strategies=("LessThanInitialShare",)),)})
    assert fair_settings(configured) == FairConfig(strategies=("LessThanInitialShare",))


# --- Kueue's scheduler tests (TestScheduleRecomputePreemptionTargets) ------------------------------

def kueue_tree(*workloads, fair=True):
    # root-cohort (3005) -> parent-cohort-a (0) -> cq-hero (3000), cq-noisy (0);
    # parent-cohort-b -> cq-tiny (50); parent-cohort-c -> cq-rest (0)
    policy = {"reclaim": "Any", "within": "LowerPriority"}
    return build(cohort("root-cohort", group(fq("default", cpu=3005))),
                 cohort("parent-cohort-a", group(fq("default", cpu=0)), parent="root-cohort"),
                 cohort("parent-cohort-b", parent="root-cohort"), cohort("parent-cohort-c", parent="root-cohort"),
                 cqp("cq-hero", group(fq("default", cpu=3000)), cohort="parent-cohort-a", **policy),
                 cqp("cq-noisy", group(fq("default", cpu=0)), cohort="parent-cohort-a", **policy),
                 cqp("cq-tiny", group(fq("default", cpu=50)), cohort="parent-cohort-b", **policy),
                 cqp("cq-rest", group(fq("default", cpu=0)), cohort="parent-cohort-c", **policy),
                 *workloads)


def first_cycle(model, fair=True):
    s = PreemptingScheduler(model, FAIR if fair else None)
    s.enqueue()
    s.cycle()
    return {k.split("/")[1]: d for k, d in s.decisions.items()}


def test_kueue_hierarchical_nominal_first_skips_overlapping_targets():
    # v0.20's test (RecomputeAssignmentUponPreemptionTargetsOverlap) as Kueue v0.17.0 runs it:
    # wl-tiny-pending (first in the tournament) takes wl-rest-admitted, whose eviction wl-hero's
    # targets include too, so wl-hero is skipped this cycle and preempts wl-noisy-admitted later
    m = kueue_tree(running("wl-noisy-admitted", "cq-noisy", 3000, flavor="default", ns="eng-alpha"),
                   running("wl-tiny-admitted", "cq-tiny", 60, flavor="default", ns="eng-alpha"),
                   running("wl-rest-admitted", "cq-rest", 2995, flavor="default", ns="eng-alpha"),
                   workload("wl-hero", pod_set(cpu=2990), queue="cq-hero", ns="eng-alpha", minute=1),
                   workload("wl-tiny-pending", pod_set(cpu=10), queue="cq-tiny", ns="eng-alpha", minute=0))
    got = first_cycle(m)
    assert got["wl-hero"].reason == OVERLAPPING
    assert got["wl-tiny-pending"].reason == (
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
        "10 more needed. Pending the preemption of 1 workload(s)")
    assert "wl-noisy-admitted" not in got
    assert got["wl-rest-admitted"].reason == (
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to Fair Sharing within the cohort; "
        "preemptor path: /root-cohort/parent-cohort-b/cq-tiny; preemptee path: /root-cohort/parent-cohort-c/cq-rest")
    assert "wl-tiny-admitted" not in got
    final = by_key(decide(m, preemption=True, fair_sharing=True))
    assert final["wl-hero"].admitted and final["wl-tiny-pending"].admitted
    assert [t.key for t in final["wl-hero"].preempted] == ["eng-alpha/wl-noisy-admitted"]


@pytest.mark.parametrize("fair", [True, False])
def test_kueue_two_workloads_reclaim_nominal_quota(fair):
    extra = [workload("wl-rest-pending", pod_set(cpu=4000), queue="cq-rest", ns="eng-alpha", priority=10,
                      minute=2)] if fair else []
    m = kueue_tree(running("wl-rest-admitted", "cq-rest", 6055, flavor="default", ns="eng-alpha"),
                   workload("wl-hero", pod_set(cpu=2950), queue="cq-hero", ns="eng-alpha", minute=1),
                   workload("wl-tiny-pending", pod_set(cpu=50), queue="cq-tiny", ns="eng-alpha", minute=0),
                   *extra)
    got = first_cycle(m, fair)
    assert got["wl-hero"].reason == OVERLAPPING
    assert got["wl-tiny-pending"].reason.endswith("50 more needed. Pending the preemption of 1 workload(s)")
    assert got["wl-rest-admitted"].reason.startswith(
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to reclamation within the cohort; "
        "preemptor path: /root-cohort/parent-cohort-b/cq-tiny")
    if fair:
        # v0.20 holds wl-hero's recomputed usage and leaves it 945 short; v0.17 skips both
        assert got["wl-rest-pending"].reason == OVERLAPPING


# --- the scheduler around preemption --------------------------------------------------------------

def test_overlapping_targets_in_one_cycle():
    # a1 and b1 both reclaim from c's borrower; a1 (older) preempts, b1 is skipped (Kueue v0.17:
    # overlapping targets), and fits once c1 is gone
    m = build(cqp("a", group(fq("f", cpu=2)), cohort="co", reclaim="Any"),
              cqp("b", group(fq("f", cpu=2)), cohort="co", reclaim="Any"),
              cqp("c", group(fq("f", cpu=0)), cohort="co"),
              running("c1", "c", 4),
              workload("a1", pod_set(cpu=2), queue="a", minute=1), workload("b1", pod_set(cpu=2), queue="b", minute=2))
    got = first_cycle(m, fair=False)
    assert got["a1"].reason.endswith("Pending the preemption of 1 workload(s)")
    assert got["b1"].reason == OVERLAPPING
    final = by_key(decide(m, preemption=True))
    assert final["a1"].admitted and final["b1"].admitted and not final["c1"].admitted
    assert [t.key for t in final["a1"].preempted] == ["default/c1"] and final["b1"].preempted == ()


@pytest.mark.parametrize("strategy, other_admitted", [("StrictFIFO", False), ("BestEffortFIFO", True)])
def test_capacity_is_held_for_a_preemptor_without_candidates(strategy, other_admitted):
    # `mine` can't reclaim from the higher-priority borrower, and holds its nominal quota for the
    # cycle; StrictFIFO keeps it at the head every cycle, so `late` never gets the spare quota
    m = build(cqp("mine", group(fq("f", cpu=4)), cohort="c", reclaim="LowerPriority", strategy=strategy),
              cqp("spare", group(fq("f", cpu=2)), cohort="c"),
              cqp("other", group(fq("f", cpu=0)), cohort="c"),
              running("borrower", "other", 4, priority=9),
              workload("blocked", pod_set(cpu=4), queue="mine", priority=1, minute=1),
              workload("late", pod_set(cpu=2), queue="other", minute=2))
    got = by_key(decide(m, preemption=True))
    assert not got["blocked"].admitted and got["late"].admitted == other_admitted
    if not other_admitted:
        assert got["late"].reason == NO_LONGER_FITS


def test_victims_come_back_when_quota_frees():
    # the preemptor takes only part of what the victim held elsewhere: a requeued victim that
    # fits again is admitted again
    m = build(cqp("cq", group(fq("f", cpu=4), fq("g", cpu=4)), within="LowerPriority",
                  when_can_preempt="Preempt"),
              running("low", "cq", 4, priority=1, flavor="f"),
              workload("high", pod_set(cpu=4), queue="cq", priority=10, minute=5))
    got = by_key(decide(m, preemption=True))
    assert got["high"].pod_sets[0].flavors == {"cpu": "f"}
    assert got["low"].admitted and got["low"].pod_sets[0].flavors == {"cpu": "g"}
    assert got["low"].preempted_by == "default/high"


def test_get_targets_leaves_the_snapshot_as_found():
    m = shared()
    s = PreemptingScheduler(m, FAIR)
    before = {n: dict(node.usage) for n, node in s.tree.cohorts.items()}
    p = Preemptor("default/w", "b", 0, T0, {CPU: 2_000}, frozenset({CPU}))
    assert [t.key for t in get_targets(s.snap, p, FAIR)] == ["default/a5"]
    assert {n: dict(node.usage) for n, node in s.tree.cohorts.items()} == before
    assert len(s.snap.admitted("a")) == 5


# --- properties over generated models --------------------------------------------------------------

POLICIES = st.tuples(st.sampled_from(("Never", "LowerPriority", "LowerOrNewerEqualPriority")),
                     st.sampled_from(("Never", "LowerPriority", "Any")),
                     st.sampled_from((None, "LowerPriority")), st.sampled_from((None, 0, 2)),
                     st.sampled_from(("Preempt", "TryNextFlavor")))


@st.composite
def preempting_models(draw):
    """Generated models with random preemption policies and busy queues: on top of the generated
    admissions, each queue takes none, half, all of its nominal quota left in its first flavor,
    or everything it can borrow too, in two admitted workloads of random priorities (one maybe
    already evicted)."""
    model = draw(admission_models(max_admitted=2))
    queues, fillers = [], []
    used = {}
    for wl in model.workloads:
        if wl.admitted:
            for fr, v in admitted_usage(wl).items():
                used[(wl.admission.cluster_queue, fr)] = used.get((wl.admission.cluster_queue, fr), 0) + v
    for cq in model.cluster_queues:
        within, reclaim, bwc, threshold, when = draw(POLICIES)
        queue = cqp(cq.name, *cq.resource_groups, cohort=cq.cohort, within=within, reclaim=reclaim, bwc=bwc,
                    threshold=threshold, when_can_preempt=when, strategy=cq.queueing_strategy,
                    selector=cq.namespace_selector, fungibility=cq.flavor_fungibility.when_can_borrow)
        preference = draw(st.sampled_from((None, "BorrowingOverPreemption", "PreemptionOverBorrowing")))
        if preference:  # Kueue allows a preference only when both policies try the next flavor
            queue = queue.model_copy(update={"flavor_fungibility": FlavorFungibility(
                when_can_borrow="TryNextFlavor", when_can_preempt="TryNextFlavor", preference=preference)})
        queues.append(queue)
        first = cq.resource_groups[0].flavors[0]
        per_cq = {}
        for (name, fr), v in used.items():
            per_cq.setdefault(name, {})[fr] = v
        room = {r.resource: available(model, per_cq, cq.name, (first.flavor, r.resource)) for r in first.resources}
        share = draw(st.sampled_from(("none", "half", "nominal", "all")))  # "all" borrows what is left
        left = {}
        for r in first.resources:
            nominal_left = max(0, r.nominal - used.get((cq.name, (first.flavor, r.resource)), 0))
            want = {"none": 0, "half": nominal_left // 2000 * 1000, "nominal": nominal_left,
                    "all": room[r.resource]}[share]
            left[r.resource] = min(want, room[r.resource])
        for r, v in left.items():
            used[(cq.name, (first.flavor, r))] = used.get((cq.name, (first.flavor, r)), 0) + v
        for i in range(2):
            # halves in milli-units of cpu, in whole units of the rest, which Kueue counts so (resources.NewRequests)
            half = {r: v // 2 if r == "cpu" else v // 2000 * 1000 for r, v in left.items()}
            requests = {r: (half[r] if i == 0 else v - half[r]) for r, v in left.items()}
            wl = workload(f"{cq.name}-fill{i}", queue=cq.name, ns="ns-a", priority=draw(st.integers(0, 3)),
                          minute=draw(st.integers(0, 30)))
            wl = wl.model_copy(update={"pod_sets": (wl.pod_sets[0].model_copy(update={"requests": requests}),)})
            fillers.append(running_copy(admitted(wl, cq.name, {r: first.flavor for r in requests}),
                                        at=draw(st.integers(0, 30)), evicted=draw(st.booleans()) and i == 0))
    return model.model_copy(update={"cluster_queues": tuple(queues), "workloads": model.workloads + tuple(fillers)})


def running_copy(wl, at, evicted):
    admission = wl.admission.model_copy(update={"admitted_at": T0 + timedelta(minutes=at)})
    return wl.model_copy(update={"admission": admission, "evicted": evicted})


@st.composite
def cohort_models(draw):
    """Two or three queues sharing one flavor of cpu in a cohort (the first one maybe one level
    down, in `team`), random limits and policies, admitted workloads up to what is available
    (so some borrow), and a few pending ones."""
    hierarchical = draw(st.booleans())
    objs = [cohort("root")] + ([cohort("team", parent="root")] if hierarchical else [])
    names = [f"q{i}" for i in range(draw(st.integers(2, 3)))]
    for i, name in enumerate(names):
        within, reclaim, bwc, threshold, _ = draw(POLICIES)
        limit = draw(st.sampled_from((None, None, 0, 2)))
        quota = q(draw(st.integers(0, 6)), borrow=limit if draw(st.booleans()) else None,
                  lend=limit if draw(st.booleans()) else None)
        objs.append(cqp(name, group(fq("f", cpu=quota)), cohort="team" if hierarchical and i == 0 else "root",
                        within=within, reclaim=reclaim, bwc=bwc, threshold=threshold,
                        weight=draw(st.sampled_from((None, 500, 2000)))))
    partial = build(*objs)
    usage: dict[str, dict] = {}
    for j in range(draw(st.integers(0, 5))):
        name = draw(st.sampled_from(names))
        room = available(partial, usage, name, CPU) // 1000
        if room:
            cpu = draw(st.integers(1, room))
            usage.setdefault(name, {})[CPU] = usage.get(name, {}).get(CPU, 0) + cpu * 1000
            objs.append(running(f"run{j}", name, cpu, priority=draw(st.integers(0, 3)), at=draw(st.integers(0, 9)),
                                evicted=draw(st.integers(0, 4)) == 0))
    for j in range(draw(st.integers(1, 4))):
        objs.append(workload(f"new{j}", pod_set(cpu=draw(st.integers(1, 6))), queue=draw(st.sampled_from(names)),
                             priority=draw(st.integers(0, 3)), minute=draw(st.integers(10, 20))))
    return build(*objs)


FUNGIBILITY = st.tuples(st.sampled_from(("Borrow", "TryNextFlavor")), st.sampled_from(("Preempt", "TryNextFlavor")),
                        st.sampled_from((None, "BorrowingOverPreemption", "PreemptionOverBorrowing")))


@st.composite
def fungibility_models(draw):
    """Flavor fungibility under borrowing and preemption pressure on every flavor (dfab7a5's shape:
    a queue may go past a flavor it could borrow on and stop at one where it must preempt, or the
    other way round). One or two queues, each over the flavors `f` and `g` in either order with
    small nominal quotas, beside a `lender` queue in the cohort; whenCanBorrow x whenCanPreempt
    drawn independently, and a preference where both try the next flavor (Kueue refuses it
    otherwise); each queue's usage on each flavor none, half its nominal, all of it or all it can
    borrow too, in admitted workloads of priorities 0-3; the lender's own usage likewise, so
    reclaiming is drawn too; pending workloads of priorities 0-5 that borrow or preempt to fit."""
    names = [f"q{i}" for i in range(draw(st.integers(1, 2)))]
    objs = [cohort("root")]
    order = {}
    for name in names:
        within, reclaim, bwc, threshold, _ = draw(POLICIES)
        borrow, preempt, preference = draw(FUNGIBILITY)
        order[name] = draw(st.sampled_from((("f", "g"), ("g", "f"))))
        queue = cqp(name, group(*(fq(f, cpu=q(draw(st.integers(0, 3)))) for f in order[name])), cohort="root",
                    within=within, reclaim=reclaim, bwc=bwc, threshold=threshold, when_can_preempt=preempt,
                    fungibility=borrow)
        if borrow == preempt == "TryNextFlavor" and preference:
            queue = queue.model_copy(update={"flavor_fungibility": FlavorFungibility(
                when_can_borrow=borrow, when_can_preempt=preempt, preference=preference)})
        objs.append(queue)
    order["lender"] = ("f", "g")
    objs.append(cqp("lender", group(*(fq(f, cpu=q(draw(st.integers(0, 4)))) for f in ("f", "g"))), cohort="root",
                    within="LowerPriority", reclaim=draw(st.sampled_from(("Never", "Any")))))
    partial = build(*objs)
    usage: dict[str, dict] = {}
    quotas = {(cq.name, fl.flavor): fl.resources[0].nominal
              for cq in partial.cluster_queues for fl in cq.resource_groups[0].flavors}
    j = 0
    for name in names + ["lender"]:
        for flavor in order[name]:
            fr = (flavor, "cpu")
            share = draw(st.sampled_from(("none", "half", "nominal", "all")))
            room = available(partial, usage, name, fr) // 1000
            want = {"none": 0, "half": quotas[(name, flavor)] // 2000, "nominal": quotas[(name, flavor)] // 1000,
                    "all": room}[share]
            left = min(want, room)
            while left > 0:
                cpu = draw(st.integers(1, left))
                left -= cpu
                usage.setdefault(name, {})[fr] = usage.get(name, {}).get(fr, 0) + cpu * 1000
                objs.append(running(f"run{j}", name, cpu, priority=draw(st.integers(0, 3)), at=draw(st.integers(0, 9)),
                                    flavor=flavor))
                j += 1
    for k in range(draw(st.integers(1, 3))):
        objs.append(workload(f"new{k}", pod_set(cpu=draw(st.integers(1, 4))), queue=draw(st.sampled_from(names)),
                             priority=draw(st.integers(0, 5)), minute=draw(st.integers(10, 20))))
    return build(*objs)


def final_usage(model, decisions):
    usage = {cq.name: {} for cq in model.cluster_queues}
    decided = {d.workload: d for d in decisions}
    for wl in model.workloads:
        d = decided.get(wl.key)
        if d is None:
            if wl.admitted:
                for fr, v in admitted_usage(wl).items():
                    usage[wl.admission.cluster_queue][fr] = usage[wl.admission.cluster_queue].get(fr, 0) + v
            continue
        if d.admitted:
            for ps, ref in zip(wl.pod_sets, d.pod_sets):
                for res, flavor in ref.flavors.items():
                    u = usage[d.cluster_queue]
                    u[(flavor, res)] = u.get((flavor, res), 0) + ps.requests.get(res, 0) * ref.count
    return usage


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(preempting_models(), cohort_models(), fungibility_models()), st.booleans())
def test_preemption_keeps_quotas_and_priorities(model, fair):
    decisions = decide(model, preemption=True, fair_sharing=fair)
    check_tree(model, final_usage(model, decisions))
    index = ModelIndex(model)
    for d in decisions:
        for t in d.preempted:
            preemptor, victim = index.workloads[d.workload], index.workloads[t.key]
            cq = index.cluster_queue_of(preemptor)
            if t.reason == "InClusterQueue":
                assert index.priority(victim) <= index.priority(preemptor)
            elif cq.preemption.reclaim_within_cohort != "Any":
                assert index.priority(victim) < index.priority(preemptor)
    assert decide(model, preemption=True, fair_sharing=fair) == decisions


def test_the_bundled_scenario_needs_no_preemption():
    # no queue of examples/SCENARIO.md preempts: both replays agree, messages included (a flavor
    # at NoFit still reports every resource)
    from .builders import outcome
    from .test_scenario import scenario
    assert outcome(decide(scenario(), preemption=True)) == outcome(decide(scenario()))
