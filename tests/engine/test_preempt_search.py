"""The engine's preemption search (`kadmit.engine.preemption.search`): Kueue v0.20's rules (docs/PREEMPTION.md)
rule by rule, then a differential test against the plain-Python reference on generated models."""

import random
from datetime import timedelta
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.preemption.search import (
    IN_CLUSTER_QUEUE,
    IN_COHORT_FAIR_SHARING,
    IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION,
    NO_CANDIDATES,
    PREEMPT,
    RECLAIM,
    Preemptor,
    Share,
    fair_order,
    fair_pick,
    fair_share,
    find_targets,
    lowest_subtree,
    oracle,
)
from kadmit.engine.admission.session import Assignment, Session
from kadmit.index import ModelIndex
from kadmit.model import Admission, BorrowWithinCohort, FairSharing, PodSetAssignment, Preemption, SchedulerConfig
from kadmit.reference.preempting import Entry as RefEntry
from kadmit.reference.preempting import PreemptingScheduler, fair_settings
from kadmit.reference.preemption import FairSharing as RefFair
from kadmit.reference.preemption import Preemptor as RefPreemptor
from kadmit.reference.preemption import dominant_resource_share, get_targets, simulate
from kadmit.reference.quota import QuotaTree as RefTree
from reference.builders import T0, admitted, build, cluster_queue, cohort, fq, group, pod_set, workload
from reference.builders import q as q_
from reference.strategies import RESOURCES, UNIT

CPU = ("f", "cpu")
GPU = ("f", "nvidia.com/gpu")


# --- builders -----------------------------------------------------------------------------------

def cqp(name, *groups, cohort=None, within="Never", reclaim="Never", bwc=None, threshold=None, weight=None, **kw):
    """A cluster queue with a preemption policy (and a fair-sharing weight in milli-units)."""
    cq = cluster_queue(name, *groups, cohort=cohort, **kw)
    borrow = None if bwc is None else BorrowWithinCohort(policy=bwc, max_priority_threshold=threshold)
    return cq.model_copy(update={
        "preemption": Preemption(within_cluster_queue=within, reclaim_within_cohort=reclaim,
                                 borrow_within_cohort=borrow),
        "fair_sharing": None if weight is None else FairSharing(weight=weight)})


def running(name, cq, cpu, priority=0, minute=0, at=None, evicted=False, flavor="f"):
    """An admitted workload of `cpu` units, quota reserved `at` minutes after T0."""
    wl = admitted(workload(name, pod_set(cpu=cpu), queue=cq, priority=priority, minute=minute), cq, {"cpu": flavor})
    admission = wl.admission.model_copy(update={"admitted_at": None if at is None else T0 + timedelta(minutes=at)})
    return wl.model_copy(update={"admission": admission, "evicted": evicted})


def fair(model, *strategies):
    return model.model_copy(update={"scheduler_configs": (
        SchedulerConfig(fair_sharing=True, preemption_strategies=tuple(strategies)),)})


def targets(model, cq, cpu, priority=5, minute=30, needs=None):
    """The victims for a preemptor of `cpu` units of flavor f in `cq`: (name, reason)."""
    usage = {CPU: cpu * UNIT}
    p = Preemptor("default/p", cq, priority, T0 + timedelta(minutes=minute), usage,
                  frozenset(needs if needs is not None else usage))
    return [(v.key.split("/")[1], v.reason) for v in find_targets(Session(model), p)]


# --- withinClusterQueue (C1) --------------------------------------------------------------------

@pytest.mark.parametrize("policy, low_priority, low_minute, want", [
    ("Never", 1, 0, []),
    ("LowerPriority", 1, 0, [("low", IN_CLUSTER_QUEUE)]),
    ("LowerPriority", 10, 9, []),  # equal priority is never lower
    ("LowerOrNewerEqualPriority", 10, 9, [("low", IN_CLUSTER_QUEUE)]),  # equal and newer than the preemptor
    ("LowerOrNewerEqualPriority", 10, 0, []),  # equal but older
    ("LowerOrNewerEqualPriority", 11, 9, []),  # higher
])
def test_within_cluster_queue_policies(policy, low_priority, low_minute, want):
    m = build(cqp("cq", group(fq("f", cpu=4)), within=policy), running("low", "cq", 3, priority=low_priority,
                                                                      minute=low_minute))
    assert targets(m, "cq", 3, priority=10, minute=5) == want


# --- candidate order (C4), fill-back (C8), nothing in vain --------------------------------------

def test_lowest_priority_then_most_recently_reserved():
    m = build(cqp("cq", group(fq("f", cpu=6)), within="LowerPriority"),
              running("old-low", "cq", 2, priority=1, at=1), running("new-low", "cq", 2, priority=1, at=5),
              running("mid", "cq", 2, priority=2, at=9))
    assert targets(m, "cq", 2, priority=10) == [("new-low", IN_CLUSTER_QUEUE)]


def test_reservation_time_defaults_to_creation_time():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("made-late", "cq", 2, priority=1, minute=8), running("reserved", "cq", 2, priority=1, at=5))
    assert targets(m, "cq", 2, priority=10) == [("made-late", IN_CLUSTER_QUEUE)]


def test_equal_reservation_times_break_by_key():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("b", "cq", 2, priority=1, at=3), running("a", "cq", 2, priority=1, at=3))
    assert targets(m, "cq", 2, priority=10) == [("a", IN_CLUSTER_QUEUE)]


def test_evicted_workloads_come_first_whatever_their_priority():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 2, priority=1, at=1), running("going", "cq", 2, priority=5, at=0, evicted=True))
    assert targets(m, "cq", 2, priority=10) == [("going", IN_CLUSTER_QUEUE)]


def test_other_queues_before_the_preemptors_own():
    m = build(cqp("a", group(fq("f", cpu=4)), cohort="c", within="LowerPriority", reclaim="LowerPriority"),
              cqp("b", group(fq("f", cpu=0)), cohort="c"),
              running("own", "a", 2, priority=0, at=9), running("borrower", "b", 2, priority=5, at=0))
    assert targets(m, "a", 2, priority=10) == [("borrower", IN_COHORT_RECLAMATION)]


def test_only_workloads_holding_a_needed_flavor_resource():
    m = build(cqp("cq", group(fq("f", cpu=4), fq("g", cpu=4)), within="LowerPriority"),
              running("on-g", "cq", 4, priority=0, flavor="g"), running("on-f", "cq", 4, priority=1, flavor="f"))
    assert targets(m, "cq", 4, priority=10) == [("on-f", IN_CLUSTER_QUEUE)]


def test_fill_back_drops_a_victim_that_is_not_needed():
    m = build(cqp("cq", group(fq("f", cpu=10)), within="LowerPriority"),
              running("small", "cq", 2, priority=1), running("big", "cq", 5, priority=2))
    assert targets(m, "cq", 6, priority=10) == [("big", IN_CLUSTER_QUEUE)]


def test_fill_back_moves_the_last_target_into_the_freed_slot():
    # taken a, b, c; a goes back and c takes its slot (Go's O(1) deletion): [c, b], not [b, c]
    m = build(cqp("cq", group(fq("f", cpu=10)), within="LowerPriority"),
              running("a", "cq", 1, priority=1), running("b", "cq", 3, priority=2), running("c", "cq", 6, priority=3))
    assert targets(m, "cq", 9, priority=10) == [("c", IN_CLUSTER_QUEUE), ("b", IN_CLUSTER_QUEUE)]


def test_nothing_is_evicted_in_vain():
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 2, priority=1), running("higher", "cq", 2, priority=20))
    assert targets(m, "cq", 4, priority=10) == []


def test_the_session_is_left_as_found():
    m = build(cqp("cq", group(fq("f", cpu=10)), within="LowerPriority"),
              running("a", "cq", 1, priority=1), running("b", "cq", 3, priority=2), running("c", "cq", 6, priority=3))
    s = Session(m)
    before = {k: dict(v) for k, v in s.usage.data.items()}
    holders = dict(s.holders)
    p = Preemptor("default/p", "cq", 10, T0, {CPU: 9 * UNIT}, frozenset({CPU}))
    assert [v.key for v in find_targets(s, p)] == ["default/c", "default/b"]
    assert {k: dict(v) for k, v in s.usage.data.items()} == before and s.holders == holders
    assert [v.priority for v in find_targets(s, p)] == [3, 2]


def test_workloads_admitted_in_the_run_count_as_most_recently_reserved_in_commit_order():
    m = build(cqp("cq", group(fq("f", cpu=8)), within="LowerPriority"),
              running("input", "cq", 2, priority=1, at=59),
              workload("first", pod_set(cpu=2), queue="cq", priority=1, minute=1),
              workload("second", pod_set(cpu=2), queue="cq", priority=1, minute=0))
    s = Session(m)
    for key in ("default/first", "default/second"):
        wl = s.index.workloads[key]
        s.commit(wl, Assignment("cq", {"main": 1}, {"main": {"cpu": "f"}}, False, {CPU: 2 * UNIT}))
    p = Preemptor("default/p", "cq", 10, T0, {CPU: 4 * UNIT}, frozenset({CPU}))
    # 2 cpu free; needs 2 more: the last committed goes first
    assert [v.key for v in find_targets(s, p)] == ["default/second"]
    p6 = Preemptor("default/p", "cq", 10, T0, {CPU: 8 * UNIT}, frozenset({CPU}))
    assert [v.key for v in find_targets(s, p6)] == ["default/second", "default/first", "default/input"]


# --- reclaimWithinCohort, borrowWithinCohort (C2, C3, C5, C6) ----------------------------------------

def lender_pair(reclaim, borrower_priority):
    # `mine` (nominal 4) lends to `other` (nominal 0), which uses 4 of mine
    return build(cqp("mine", group(fq("f", cpu=4)), cohort="c", reclaim=reclaim),
                 cqp("other", group(fq("f", cpu=0)), cohort="c"),
                 running("borrower", "other", 4, priority=borrower_priority))


@pytest.mark.parametrize("reclaim, priority, want", [
    ("Never", 0, []),
    ("LowerPriority", 0, [("borrower", IN_COHORT_RECLAMATION)]),
    ("LowerPriority", 9, []),
    ("Any", 9, [("borrower", IN_COHORT_RECLAMATION)]),
])
def test_reclaim_within_cohort(reclaim, priority, want):
    assert targets(lender_pair(reclaim, priority), "mine", 4) == want


def test_no_reclaim_from_a_queue_within_its_nominal_quota():
    m = build(cqp("mine", group(fq("f", cpu=2)), cohort="c", reclaim="Any"),
              cqp("other", group(fq("f", cpu=4)), cohort="c"), running("inside", "other", 4))
    assert targets(m, "mine", 4) == []


def test_a_candidate_is_skipped_once_its_queue_is_back_within_nominal():
    # x (nominal 1) borrows 2 with lower priorities than y's (nominal 0, borrows 2); `mine` needs
    # all 4 back: once x is down to its nominal quota, x0 is skipped and y's workloads follow
    m = build(cqp("mine", group(fq("f", cpu=4)), cohort="c", reclaim="Any"),
              cqp("x", group(fq("f", cpu=1)), cohort="c"), cqp("y", group(fq("f", cpu=0)), cohort="c"),
              *[running(f"x{i}", "x", 1, priority=0, at=i) for i in range(3)],
              *[running(f"y{i}", "y", 1, priority=1, at=i) for i in range(2)])
    assert targets(m, "mine", 4) == [("x2", IN_COHORT_RECLAMATION), ("x1", IN_COHORT_RECLAMATION),
                                     ("y1", IN_COHORT_RECLAMATION), ("y0", IN_COHORT_RECLAMATION)]


def borrowing_preemptor(bwc="LowerPriority", threshold=None, victim_priority=1):
    # `mine` (nominal 2) needs 4: it must borrow 2 from `lender`, used by `other`'s borrower
    return build(cqp("mine", group(fq("f", cpu=2)), cohort="c", reclaim="Any", bwc=bwc, threshold=threshold),
                 cqp("lender", group(fq("f", cpu=4)), cohort="c"),
                 cqp("other", group(fq("f", cpu=0)), cohort="c"),
                 running("borrower", "other", 6, priority=victim_priority))


@pytest.mark.parametrize("bwc, threshold, victim_priority, want", [
    ("LowerPriority", None, 1, [("borrower", IN_COHORT_RECLAIM_WHILE_BORROWING)]),
    ("LowerPriority", 3, 1, [("borrower", IN_COHORT_RECLAIM_WHILE_BORROWING)]),  # at or below the threshold
    ("LowerPriority", 1, 1, [("borrower", IN_COHORT_RECLAIM_WHILE_BORROWING)]),  # equal to it
    ("LowerPriority", 0, 1, []),  # above the threshold: only without borrowing
    ("LowerPriority", None, 5, []),  # equal priority is never preempted while borrowing
    ("Never", None, 1, []),  # without borrowWithinCohort a borrowing preemptor reclaims nothing
    (None, None, 1, []),
])
def test_borrow_within_cohort_and_threshold(bwc, threshold, victim_priority, want):
    assert targets(borrowing_preemptor(bwc, threshold, victim_priority), "mine", 4) == want


@pytest.mark.parametrize("bwc, want", [
    # borrowing forbidden: the attempt without borrowing goes first and takes `o1`, which fill-back
    # returns; the survivors' order comes from the swap
    (None, [("own1", IN_CLUSTER_QUEUE), ("own2", IN_CLUSTER_QUEUE)]),
    # borrowing allowed: the attempt with borrowing goes first and reclaims while borrowing
    ("LowerPriority", [("o1", IN_COHORT_RECLAIM_WHILE_BORROWING), ("own2", IN_CLUSTER_QUEUE)]),
])
def test_attempts_with_and_without_borrowing(bwc, want):
    # c lends 2 of its own to `other`; `mine` (nominal 4) holds 3 and asks 4
    m = build(cohort("c", group(fq("f", cpu=2))),
              cqp("mine", group(fq("f", cpu=4)), cohort="c", within="LowerPriority", reclaim="Any", bwc=bwc),
              cqp("other", group(fq("f", cpu=0)), cohort="c"),
              running("own1", "mine", 1, at=1), running("own2", "mine", 2, at=2), running("o1", "other", 2, at=0))
    assert targets(m, "mine", 4) == want


# --- hierarchical cohorts -------------------------------------------------------------------------

def hierarchy(flat):
    # team = {mine (2), sibling (4)} under root, `other` (0) beside team borrows 4; `mine` asks 4:
    # beyond its nominal quota but within team's, so it has the advantage over `other`
    parent = "root" if flat else "team"
    objs = [cohort("root")] + ([] if flat else [cohort("team", parent="root")])
    return build(*objs,
                 cqp("mine", group(fq("f", cpu=2)), cohort=parent, reclaim="Any"),
                 cqp("sibling", group(fq("f", cpu=4)), cohort=parent),
                 cqp("other", group(fq("f", cpu=0)), cohort="root"),
                 running("borrower", "other", 4, priority=9))


def test_hierarchical_advantage_reclaims_while_borrowing():
    assert targets(hierarchy(flat=False), "mine", 4) == [("borrower", IN_COHORT_RECLAMATION)]
    assert targets(hierarchy(flat=True), "mine", 4) == []


def test_no_reclaim_through_a_cohort_within_its_quota():
    # `other` borrows from its own cohort `side`, which as a whole stays within its quota
    m = build(cohort("root"), cohort("side", group(fq("f", cpu=4)), parent="root"),
              cqp("mine", group(fq("f", cpu=2)), cohort="root", reclaim="Any"),
              cqp("other", group(fq("f", cpu=0)), cohort="side"),
              running("borrower", "other", 4))
    assert targets(m, "mine", 4) == []


def test_a_candidate_is_skipped_once_a_cohort_below_the_common_ancestor_is_back_within_its_quota():
    # side (own quota 2) holds x (nominal 0), which uses 3: side borrows 1 from root. z (nominal 0,
    # under root) borrows 1 at a higher priority. mine needs 2 back: x3 first (lowest priority,
    # newest); then side is within its quota, so x's other workloads are skipped and z1 follows
    m = build(cohort("root"), cohort("side", group(fq("f", cpu=2)), parent="root"),
              cqp("mine", group(fq("f", cpu=4)), cohort="root", reclaim="Any"),
              cqp("x", group(fq("f", cpu=0)), cohort="side"), cqp("z", group(fq("f", cpu=0)), cohort="root"),
              *[running(f"x{i}", "x", 1, priority=0, at=i) for i in range(1, 4)],
              running("z1", "z", 1, priority=1))
    assert targets(m, "mine", 4) == [("x3", IN_COHORT_RECLAMATION), ("z1", IN_COHORT_RECLAMATION)]


# --- the oracle (§2 A5) -----------------------------------------------------------------------------

def test_oracle_answers():
    own = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"), running("low", "cq", 3, priority=1))
    assert oracle(Session(own), "cq", "default/p", 5, T0, CPU, 3 * UNIT) == (PREEMPT, 0)
    assert oracle(Session(own), "cq", "default/p", 0, T0, CPU, 3 * UNIT) == (NO_CANDIDATES, 0)
    assert oracle(Session(lender_pair("Any", 0)), "mine", "default/p", 5, T0, CPU, 4 * UNIT) == (RECLAIM, 0)
    s = Session(hierarchy(flat=False))
    assert oracle(s, "mine", "default/p", 5, T0, CPU, 4 * UNIT) == (RECLAIM, 1)  # borrows within `team`
    assert oracle(s, "mine", "default/p", 5, T0, CPU, 7 * UNIT) == (NO_CANDIDATES, 2)


def test_lowest_subtree_that_fits():
    s = Session(hierarchy(flat=False))  # team = {mine 2, sibling 4}; root also holds other (0), using 4
    assert lowest_subtree(s, "mine", CPU, 2 * UNIT) == (0, True)  # within nominal: may reclaim (has a cohort)
    assert lowest_subtree(s, "mine", CPU, 4 * UNIT) == (1, True)  # team holds it, and team has a parent
    assert lowest_subtree(s, "mine", CPU, 7 * UNIT) == (2, False)  # only the root could
    alone = Session(build(cqp("solo", group(fq("f", cpu=1)))))
    assert lowest_subtree(alone, "solo", CPU, 3 * UNIT) == (0, False)


# --- fair sharing (§4) ------------------------------------------------------------------------------

def shared(weight_a=None, big=False, within_b=False):
    # cohort c has its own 10 cpu; `a` uses all 10 (one workload, or five of 2), `b` wants 2
    objs = [cohort("c", group(fq("f", cpu=10))),
            cqp("a", group(fq("f", cpu=0)), cohort="c", reclaim="Any", weight=weight_a),
            cqp("b", group(fq("f", cpu=2 if within_b else 0)), cohort="c", reclaim="Any")]
    if big:
        objs.append(running("a1", "a", 12 if within_b else 10, at=1))
    else:
        objs += [running(f"a{i}", "a", 2, at=i) for i in range(1, 6)]
    return fair(build(*objs))


def test_dominant_resource_share():
    s = Session(shared(weight_a=2000))
    a = fair_share(s, "cq:a")
    assert a.ratio == 1000 and a.value == 500 and a.resource == "cpu" and a.borrowing == {CPU}
    b = fair_share(s, "cq:b", {CPU: 2 * UNIT})
    assert b.ratio == 200 and not fair_share(s, "cq:b").borrows and fair_share(s, "cq:b").value == 0
    assert fair_share(s, "cohort:c") == Share(1.0)  # a root has share 0
    assert b < a


def test_zero_weight_borrowers_rank_above_everything():
    zero_small, zero_big = Share(0.0, 10.0, "cpu", frozenset({CPU})), Share(0.0, 20.0, "cpu", frozenset({CPU}))
    heavy = Share(1.0, 1e9, "cpu", frozenset({CPU}))
    assert heavy < zero_small < zero_big and zero_big.value == float("inf")
    assert Share(0.0) == Share(1.0)  # a zero weight that doesn't borrow is just zero


def test_fair_sharing_preempts_the_newest_workload_of_the_highest_share():
    assert targets(shared(), "b", 2) == [("a5", IN_COHORT_FAIR_SHARING)]


@pytest.mark.parametrize("weight, want", [
    (4000, [("a5", IN_COHORT_FAIR_SHARING)]),  # a's share after: 800/4 = 200 <= b's 200
    (5000, []),  # 800/5 = 160 < 200, and before: 1000/5 = 200, not above 200
])
def test_fair_sharing_weights(weight, want):
    assert targets(shared(weight_a=weight), "b", 2) == want


@pytest.mark.parametrize("strategies, want", [
    (("LessThanOrEqualToFinalShare",), []),  # a's share after would be 0 < 200
    (("LessThanInitialShare",), [("a1", IN_COHORT_FAIR_SHARING)]),  # 200 < 1000
    (("LessThanOrEqualToFinalShare", "LessThanInitialShare"), [("a1", IN_COHORT_FAIR_SHARING)]),
    ((), [("a1", IN_COHORT_FAIR_SHARING)]),  # Kueue's default is the pair
])
def test_fair_sharing_strategies(strategies, want):
    m = fair(shared(big=True), *strategies)
    assert targets(m, "b", 2) == want


def test_fair_sharing_within_nominal_reclaims_regardless_of_shares():
    m = fair(shared(big=True, within_b=True), "LessThanOrEqualToFinalShare")
    assert targets(m, "b", 2) == [("a1", IN_COHORT_RECLAMATION)]


def test_fair_sharing_zero_weight_preemptor_waits_for_the_second_rule():
    # b has weight 0: its new share is +inf, a's is finite; rule 1 is skipped for a's workloads and
    # rule 2 (pNew < tOld) fails too
    m = fair(build(cohort("c", group(fq("f", cpu=10))),
                   cqp("a", group(fq("f", cpu=0)), cohort="c", reclaim="Any"),
                   cqp("b", group(fq("f", cpu=0)), cohort="c", reclaim="Any", weight=0),
                   *[running(f"a{i}", "a", 2, at=i) for i in range(1, 6)]))
    assert targets(m, "b", 2) == []


def test_fair_sharing_takes_from_the_queue_with_the_highest_share_first():
    # x borrows 6, y borrows 2 of c's 10: w in z takes from x
    m = fair(build(cohort("c", group(fq("f", cpu=10))),
                   cqp("x", group(fq("f", cpu=0)), cohort="c"), cqp("y", group(fq("f", cpu=0)), cohort="c"),
                   cqp("z", group(fq("f", cpu=0)), cohort="c", reclaim="Any"),
                   running("x1", "x", 3, at=1), running("x2", "x", 3, at=2), running("y1", "y", 2, at=9),
                   running("y2", "y", 2, at=9)))
    assert targets(m, "z", 2) == [("x2", IN_COHORT_FAIR_SHARING)]


@pytest.mark.parametrize("b_uses, other_uses, want", [
    (2, 6, [("other3", IN_COHORT_FAIR_SHARING)]),  # other (600) beats team (400 with a's 2)
    (4, 4, [("b2", IN_COHORT_FAIR_SHARING)]),  # team (600) beats other (400): within team, b's share
])
def test_fair_sharing_in_a_hierarchy_compares_the_children_of_the_common_ancestor(b_uses, other_uses, want):
    # root has 10 cpu of its own; team = {a, b}; other beside team; nobody has nominal quota
    m = fair(build(cohort("root", group(fq("f", cpu=10))), cohort("team", parent="root"),
                   cqp("a", group(fq("f", cpu=0)), cohort="team", reclaim="Any"),
                   cqp("b", group(fq("f", cpu=0)), cohort="team"),
                   cqp("other", group(fq("f", cpu=0)), cohort="root"),
                   *[running(f"b{i}", "b", 2, at=i) for i in range(1, b_uses // 2 + 1)],
                   *[running(f"other{i}", "other", 2, at=i) for i in range(1, other_uses // 2 + 1)]))
    assert targets(m, "a", 2) == want


def test_fair_sharing_equal_sibling_cohorts_the_later_one_first():
    # root lends its own 4; ca = {qa}, cb = {qb} each borrow 2 (share 500); mine (weight 2) asks 2:
    # its share would be 250. Rule 1 fails for both; rule 2 takes from cb, the later of equal cohorts
    m = fair(build(cohort("root", group(fq("f", cpu=4))), cohort("ca", parent="root"), cohort("cb", parent="root"),
                   cqp("mine", group(fq("f", cpu=0)), cohort="root", reclaim="Any", weight=2000),
                   cqp("qa", group(fq("f", cpu=0)), cohort="ca"), cqp("qb", group(fq("f", cpu=0)), cohort="cb"),
                   running("qa1", "qa", 2), running("qb1", "qb", 2)))
    assert targets(m, "mine", 2) == [("qb1", IN_COHORT_FAIR_SHARING)]


def test_fair_sharing_a_cohort_wins_a_tie_against_a_queue():
    # as above with cb replaced by a queue qz right under root: ca and qz both have share 500
    m = fair(build(cohort("root", group(fq("f", cpu=4))), cohort("ca", parent="root"),
                   cqp("mine", group(fq("f", cpu=0)), cohort="root", reclaim="Any", weight=2000),
                   cqp("qa", group(fq("f", cpu=0)), cohort="ca"), cqp("qz", group(fq("f", cpu=0)), cohort="root"),
                   running("qa1", "qa", 2), running("qz1", "qz", 2)))
    assert targets(m, "mine", 2) == [("qa1", IN_COHORT_FAIR_SHARING)]


def test_fair_sharing_oracle():
    s = Session(shared())
    assert oracle(s, "b", "default/p", 0, T0, CPU, 2 * UNIT) == (RECLAIM, 1)
    assert oracle(s, "b", "default/p", 0, T0, CPU, 12 * UNIT) == (NO_CANDIDATES, 1)


# --- the fair-sharing admission tournament (T1–T2) -------------------------------------------------

def test_fair_order_prefers_the_lower_share_then_priority():
    m = fair(build(cohort("c", group(fq("f", cpu=4))),
                   cqp("a", group(fq("f", cpu=0)), cohort="c"), cqp("b", group(fq("f", cpu=0)), cohort="c"),
                   running("a-now", "a", 2)))
    s = Session(m)
    a_next = workload("a-next", pod_set(cpu=2), queue="a", priority=10, minute=1)
    b_next = workload("b-next", pod_set(cpu=2), queue="b", priority=0, minute=2)
    entries = [(a_next, "a", {CPU: 2 * UNIT}), (b_next, "b", {CPU: 2 * UNIT})]
    assert [e[0].name for e in fair_order(s, entries)] == ["b-next", "a-next"]
    assert fair_pick(s, entries)[0].name == "b-next"
    # equal shares: the higher priority first
    s2 = Session(fair(build(cohort("c", group(fq("f", cpu=4))), cqp("a", group(fq("f", cpu=0)), cohort="c"),
                            cqp("b", group(fq("f", cpu=0)), cohort="c"))))
    assert [e[0].name for e in fair_order(s2, entries)] == ["a-next", "b-next"]


def test_fair_order_puts_non_borrowing_entries_first():
    # a has nominal 2 and stays within it with its entry; b has nominal 0 and would borrow 1 with
    # a far smaller share: a still goes first (FairSharingPrioritizeNonBorrowing)
    m = fair(build(cohort("c", group(fq("f", cpu=100))),
                   cqp("a", group(fq("f", cpu=2)), cohort="c"), cqp("b", group(fq("f", cpu=0)), cohort="c")))
    s = Session(m)
    wa = workload("wa", pod_set(cpu=2), queue="a", priority=0, minute=5)
    wb = workload("wb", pod_set(cpu=1), queue="b", priority=9, minute=0)
    entries = [(wb, "b", {CPU: 1 * UNIT}), (wa, "a", {CPU: 2 * UNIT})]
    assert [e[0].name for e in fair_order(s, entries)] == ["wa", "wb"]


def test_fair_order_counts_each_pick_before_the_next():
    # three entries in a and one in b... one per queue: a1 then b1 then a2's queue share grows
    m = fair(build(cohort("c", group(fq("f", cpu=10))), cqp("a", group(fq("f", cpu=0)), cohort="c"),
                   cqp("b", group(fq("f", cpu=0)), cohort="c"), cqp("z", group(fq("f", cpu=0)))))
    s = Session(m)
    wa = workload("wa", pod_set(cpu=3), queue="a", priority=5, minute=0)
    wb = workload("wb", pod_set(cpu=3), queue="b", priority=0, minute=0)
    wz = workload("wz", pod_set(cpu=1), queue="z", priority=0, minute=0)
    got = fair_order(s, [(wa, "a", {CPU: 3 * UNIT}), (wb, "b", {CPU: 3 * UNIT}), (wz, "z", {CPU: 1 * UNIT})])
    # a first (equal shares, higher priority); then b; z has no cohort and comes by name order
    assert [e[0].name for e in got] == ["wa", "wb", "wz"]


def test_fair_order_does_not_count_a_zero_request_as_borrowing():
    # a borrows 1 gpu (share 250), b borrows 2 (share 500); both entries ask 1 cpu, within nominal.
    # a's entry also lists 0 gpu: Kueue's `IsBorrowingOn` counts only positive requests, so that
    # is not borrowing on the entry's flavor-resources and a goes first on the lower share, with
    # or without the zero request. A positive gpu request does borrow on it: then b goes first.
    m = fair(build(cohort("c", group(fq("f", cpu=10, gpu=4))),
                   cqp("a", group(fq("f", cpu=2, gpu=0)), cohort="c"),
                   cqp("b", group(fq("f", cpu=2, gpu=0)), cohort="c"),
                   admitted(workload("a-gpu", pod_set(gpu=1), queue="a"), "a", {"gpu": "f"}),
                   admitted(workload("b-gpu", pod_set(gpu=2), queue="b"), "b", {"gpu": "f"})))
    wa = workload("wa", pod_set(cpu=1), queue="a")
    wb = workload("wb", pod_set(cpu=1), queue="b")
    entries = [(wa, "a", {CPU: UNIT, GPU: 0}), (wb, "b", {CPU: UNIT})]
    assert [e[0].name for e in fair_order(Session(m), entries)] == ["wa", "wb"]
    entries[0] = (wa, "a", {CPU: UNIT})
    assert [e[0].name for e in fair_order(Session(m), entries)] == ["wa", "wb"]
    entries[0] = (wa, "a", {CPU: UNIT, GPU: UNIT})
    assert [e[0].name for e in fair_order(Session(m), entries)] == ["wb", "wa"]


# --- differential: the engine equals the reference on generated models ------------------------------

# Generation draws one seed per example and builds the model with `random.Random(seed)`: hundreds
# of small hypothesis draws per model cost more than the searches under test. A failure reports
# its seed, which replays it exactly.
SEEDS = st.integers(0, 2**32 - 1)

STRATEGIES = ((), ("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",),
              ("LessThanOrEqualToFinalShare", "LessThanInitialShare"))
WEIGHTS = (None, None, None, 0, 500, 1000, 2000, 3000)


def policies(rnd, name, groups, cohort_name):
    """A queue with random preemption policies (reclaiming and borrowing made likely) and weight."""
    bwc = rnd.choice((None, "Never", "LowerPriority", "LowerPriority"))
    weight = rnd.choice(WEIGHTS)
    return cqp(name, *groups, cohort=cohort_name,
               within=rnd.choice(("Never", "LowerPriority", "LowerOrNewerEqualPriority")),
               reclaim=rnd.choice(("Never", "LowerPriority", "Any", "Any")),
               bwc=bwc, threshold=rnd.choice((None, 0, 2)) if bwc else None, weight=weight)


def limit(rnd, high):
    return rnd.choice((None, None, rnd.randint(0, high)))


def quotas(rnd, flavors, high, limits=True):
    """One resource group over cpu and gpu (`RESOURCES`) with the given flavors."""
    return group(*[fq(f, **{("gpu" if r != "cpu" else r): q_(rnd.randint(0, high), limit(rnd, 6) if limits else None,
                                                             limit(rnd, 6) if limits else None)
                            for r in RESOURCES}) for f in flavors])


def with_weight(rnd, obj):
    w = rnd.choice(WEIGHTS)
    return obj.model_copy(update={"fair_sharing": None if w is None else FairSharing(weight=w)})


def fair_config(rnd):
    if rnd.random() < 0.5:
        return ()
    return (SchedulerConfig(fair_sharing=True, preemption_strategies=rnd.choice(STRATEGIES)),)


def admitted_fill(rnd, name, cq, flavor, requests, i):
    """An admitted workload of `requests` in `flavor`, random priority, creation and reservation
    times, the first of a queue maybe already evicted."""
    at = rnd.choice((None, rnd.randint(0, 30)))
    wl = workload(name, queue=cq, ns="ns-a", priority=rnd.randint(0, 3), minute=rnd.randint(0, 30))
    return wl.model_copy(update={
        "pod_sets": (wl.pod_sets[0].model_copy(update={"requests": requests}),),
        "evicted": i == 0 and rnd.random() < 0.25,
        "admission": Admission(cluster_queue=cq, admitted_at=None if at is None else T0 + timedelta(minutes=at),
                               pod_sets=(PodSetAssignment(name="main", count=1,
                                                          flavors={r: flavor for r in requests}),))})


def busy_model(rnd):
    """A cohort forest (cohorts with and without their own quota, queues over flavors f and g with
    random nominal quotas and borrowing / lending limits, most queues in a cohort), random
    policies and weights, and busy queues: in turn, each queue takes none, half or all of its
    nominal quota left, or everything it can borrow, in one of its flavors, as two or three
    admitted workloads. Quotas start respected."""
    n_cohorts = rnd.randint(1, 3)
    cohorts = []
    for i in range(n_cohorts):
        parent = rnd.choice([None] + list(range(i)) * 3) if i else None
        groups = (quotas(rnd, ("f", "g"), 4),) if rnd.random() < 0.5 else ()
        cohorts.append(with_weight(rnd, cohort(f"c{i}", *groups, parent=None if parent is None else f"c{parent}")))
    queues = []
    for i in range(rnd.randint(2, 4)):
        flavors = rnd.choice((("f",), ("f",), ("g",), ("f", "g"), ("g", "f")))
        where = rnd.choice(list(range(n_cohorts)) * 3 + [None])
        queues.append(policies(rnd, f"q{i}", (quotas(rnd, flavors, 6),), None if where is None else f"c{where}"))
    base = build(*cohorts, *queues)
    tree = RefTree(ModelIndex(base))  # what each queue can still take, as workloads are added
    fillers = []
    for cq in rnd.sample(queues, len(queues)):
        fqs = cq.resource_groups[0].flavors
        flavor = rnd.choice(fqs[:1] * 2 + fqs[1:])
        mode = rnd.choice(("none", "half", "nominal", "all", "all", "all"))
        fill = {}
        for r in flavor.resources:
            fr = (flavor.flavor, r.resource)
            room = tree.available(cq.name, fr)
            left = max(0, r.nominal - tree.queues[cq.name].usage.get(fr, 0))
            fill[r.resource] = max(0, min({"none": 0, "half": left // (2 * UNIT) * UNIT, "nominal": left,
                                           "all": room}[mode], room))
            tree.add_usage(cq.name, {fr: fill[r.resource]})
        parts = rnd.randint(2, 3)
        for i in range(parts):
            requests = {r: (v // UNIT // parts + (1 if i < v // UNIT % parts else 0)) * UNIT for r, v in fill.items()}
            if any(requests.values()) or rnd.random() < 0.5:
                fillers.append(admitted_fill(rnd, f"{cq.name}-fill{i}", cq.name, flavor.flavor, requests, i))
    return base.model_copy(update={"workloads": tuple(fillers), "scheduler_configs": fair_config(rnd)})


def cohort_tree_model(rnd):
    """One cohort tree over a single flavor of cpu, where most preemption happens: a root (maybe
    with its own quota), maybe a sub-cohort `team` (maybe with a lending limit) holding some of the
    queues; two to four queues with random quotas, limits, policies and weights; then up to eight
    admitted workloads, each taking part of what its queue can still get (borrowing included)."""
    hierarchical = rnd.random() < 0.5
    objs = [with_weight(rnd, cohort("root", *((group(fq("f", cpu=rnd.randint(1, 4))),)
                                               if rnd.random() < 0.5 else ())))]
    if hierarchical:
        own = group(fq("f", cpu=q_(rnd.randint(0, 3), lend=rnd.choice((None, None, 0, 2)))))
        objs.append(with_weight(rnd, cohort("team", *((own,) if rnd.random() < 0.5 else ()), parent="root")))
    names = [f"q{i}" for i in range(rnd.randint(2, 4))]
    for name in names:
        lim = rnd.choice((None, None, 0, 2))
        quota = q_(rnd.randint(0, 6), borrow=lim if rnd.random() < 0.5 else None,
                   lend=lim if rnd.random() < 0.5 else None)
        objs.append(policies(rnd, name, (group(fq("f", cpu=quota)),),
                             "team" if hierarchical and rnd.random() < 0.5 else "root"))
    tree = RefTree(ModelIndex(build(*objs)))
    for j in range(rnd.randint(1, 8)):
        name = rnd.choice(names)
        room = tree.available(name, CPU) // UNIT
        if room:
            cpu = rnd.randint(1, min(room, rnd.choice((2, 3, 6))))
            tree.add_usage(name, {CPU: cpu * UNIT})
            objs.append(admitted_fill(rnd, f"run{j}", name, "f", {"cpu": cpu * UNIT}, j % 3))
    return build(*objs).model_copy(update={"scheduler_configs": fair_config(rnd)})


def fair_model(rnd):
    """Fair sharing where most of the quota is the cohorts' own: queues with little or no nominal
    quota borrow it in small workloads, so shares decide."""
    hierarchical = rnd.random() < 0.5
    objs = [cohort("root", group(fq("f", cpu=rnd.randint(4, 12))))]
    if hierarchical:
        objs.append(with_weight(rnd, cohort("team", group(fq("f", cpu=rnd.randint(0, 4))), parent="root")))
    names = [f"q{i}" for i in range(rnd.randint(2, 4))]
    for name in names:
        objs.append(policies(rnd, name, (group(fq("f", cpu=rnd.choice((0, 0, 1, 2)))),),
                             "team" if hierarchical and rnd.random() < 0.5 else "root"))
    tree = RefTree(ModelIndex(build(*objs)))
    for j in range(rnd.randint(2, 9)):
        name = rnd.choice(names)
        room = tree.available(name, CPU) // UNIT
        if room:
            cpu = rnd.randint(1, min(room, 3))
            tree.add_usage(name, {CPU: cpu * UNIT})
            objs.append(admitted_fill(rnd, f"run{j}", name, "f", {"cpu": cpu * UNIT}, j % 3))
    config = SchedulerConfig(fair_sharing=True, preemption_strategies=rnd.choice(STRATEGIES))
    return build(*objs).model_copy(update={"scheduler_configs": (config,)})


def preemptor_in(rnd, model):
    """A preemptor in a random queue: a usage over the queue's flavors (mostly its first), often
    within the queue's nominal quota (so reclaiming is allowed), some of it needing preemption."""
    cq = rnd.choice(model.cluster_queues)
    noms = {(f.flavor, r.resource): r.nominal for f in cq.resource_groups[0].flavors for r in f.resources}
    flavors = [f.flavor for f in cq.resource_groups[0].flavors]
    covered = cq.resource_groups[0].covered_resources
    usage = {}
    for res in rnd.sample(covered, rnd.randint(1, len(covered))):
        fr = (rnd.choice(flavors[:1] * 2 + flavors[1:]), res)
        usage[fr] = rnd.randint(1, rnd.choice((max(1, noms[fr] // UNIT), 3, 8))) * UNIT
    frs = sorted(usage)
    needs = frozenset(rnd.sample(frs, rnd.randint(1, len(frs))))
    return ("ns-a/p", cq.name, rnd.randint(0, 4), T0 + timedelta(minutes=rnd.randint(0, 30)), usage, needs)


@st.composite
def cases(draw):
    """(model, preemptor) from one seed."""
    rnd = random.Random(draw(SEEDS))
    model = rnd.choice((busy_model, cohort_tree_model, cohort_tree_model, fair_model))(rnd)
    return model, preemptor_in(rnd, model)


def reference_of(model):
    config = fair_settings(model)
    return PreemptingScheduler(model, config), config


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_targets_and_oracle_equal_the_reference(data):
    model, (key, cq, priority, created, usage, needs) = data.draw(cases())
    s = Session(model)
    before = {k: dict(v) for k, v in s.usage.data.items()}
    ref, config = reference_of(model)
    got = find_targets(s, Preemptor(key, cq, priority, created, usage, needs))
    want = get_targets(ref.snap, RefPreemptor(key, cq, priority, created, usage, needs), config)
    assert [(v.key, v.cluster_queue, v.reason) for v in got] == [(t.key, t.cluster_queue, t.reason) for t in want]
    index = ModelIndex(model)
    assert all(v.priority == index.priority(index.workloads[v.key]) for v in got)
    for fr, val in sorted(usage.items()):
        assert oracle(s, cq, key, priority, created, fr, val) == simulate(
            ref.snap, RefPreemptor(key, cq, priority, created, {}, frozenset()), fr, val, config)
    assert {k: dict(v) for k, v in s.usage.data.items()} == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_shares_and_fair_order_equal_the_reference(data):
    model, _ = data.draw(cases())
    s = Session(model)
    ref = PreemptingScheduler(model, RefFair())
    for nid, node in sorted(s.compiler.tree.nodes.items()):
        mine = fair_share(s, nid)
        theirs = dominant_resource_share(ref.snap, (ref.tree.cohorts if node.is_cohort else ref.tree.queues)[node.name])
        assert (mine.ratio, mine.value, mine.borrowing, mine.zero_weight_borrows) == (
            theirs.ratio, theirs.share, theirs.borrowing, theirs.zero_weight_borrows)
    rnd = random.Random(data.draw(SEEDS))
    entries, ref_entries = [], []
    for i, cq in enumerate(rnd.sample(model.cluster_queues, rnd.randint(0, len(model.cluster_queues)))):
        flavors = [f.flavor for f in cq.resource_groups[0].flavors]
        covered = cq.resource_groups[0].covered_resources
        usage = {(rnd.choice(flavors), res): rnd.randint(1, 4) * UNIT
                 for res in rnd.sample(covered, rnd.randint(1, len(covered)))}
        wl = workload(f"e{i}", queue=cq.name, priority=rnd.randint(0, 2), minute=rnd.randint(0, 3))
        entries.append((wl, cq.name, usage))
        ref_entries.append(RefEntry(cq.name, wl, SimpleNamespace(usage=usage)))
    want = []
    for e in ref.fair_order(ref_entries):  # each pick's usage counts before the next, as fair_order assumes
        want.append(e.wl.name)
        ref.tree.add_usage(e.cq, e.assignment.usage)
    assert [e[0].name for e in fair_order(s, entries)] == want



@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_an_attempt_refused_with_every_candidate_gone_finds_nothing(data):
    """`classical._fits_without_all` skips an attempt whose candidates, all gone at once, still
    leave the preemptor short: on generated cohorts, the attempt run in full finds no targets
    either, and the search's answer (victims, reasons, order) is the one without the check."""
    from kadmit.engine.preemption import classical
    from kadmit.engine.preemption.snapshot import Snapshot

    model, (key, cq, priority, created, usage, needs) = data.draw(cases())
    s = Session(model)
    if s.model.config is not None and s.model.config.fair_sharing:
        return  # fair sharing searches otherwise (`fair_targets`)
    p = Preemptor(key, cq, priority, created, usage, needs)
    spec = s.index.cluster_queues[cq]
    refused = []
    check = classical._fits_without_all

    def recorded(snap, pre, plan, allow):
        ok = check(snap, pre, plan, allow)
        if not ok:
            refused.append((allow, classical._flat(snap, plan)))
        return ok
    try:
        classical._fits_without_all = recorded
        snap = Snapshot(s)
        snap.load_candidates()
        got = classical.classical_targets(snap, p, spec)
        classical._fits_without_all = lambda *a: True
        snap = Snapshot(s)
        snap.load_candidates()
        want = classical.classical_targets(snap, p, spec)
    finally:
        classical._fits_without_all = check
    assert [(v.key, v.reason) for v in got] == [(v.key, v.reason) for v in want]
    for allow, sequence in refused:  # the refused attempt, run as the loop runs it, takes no target that fits
        snap = Snapshot(s)
        snap.load_candidates()
        for e in sequence:
            if classical._valid(snap, p, e, allow):
                snap.remove(e[1])
                assert not snap.fits(p, allow)


def test_nothing_in_vain_is_told_with_every_candidate_gone_at_once():
    """`test_nothing_is_evicted_in_vain`'s case: with the one candidate gone the preemptor is still
    short, so the check refuses the attempt before taking any candidate (the property above checks
    such refusals against the full attempt)."""
    from kadmit.engine.preemption import classical
    from kadmit.engine.preemption.snapshot import Snapshot

    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 2, priority=1), running("higher", "cq", 2, priority=20))
    s = Session(m)
    p = Preemptor("default/p", "cq", 10, T0, {CPU: 4 * UNIT}, frozenset({CPU}))
    snap = Snapshot(s)
    snap.load_candidates()
    plan = classical._collect(snap, p, s.index.cluster_queues["cq"])
    assert [e[1].key for e in classical._flat(snap, plan)] == ["default/low"]
    assert not classical._fits_without_all(snap, p, plan, True)
    p3 = Preemptor("default/p", "cq", 10, T0, {CPU: 2 * UNIT}, frozenset({CPU}))  # 2 fit once `low` is gone
    assert classical._fits_without_all(snap, p3, plan, True)
    assert {k: dict(v) for k, v in snap.usage.data.items()} == {k: dict(v) for k, v in s.usage.data.items()}


def _gone_of_sequence(p, sequence, allow, frs):
    """What `classical._fits_without_all` must take away, from Kueue's sequence itself: per queue, the
    amounts in `frs` of the candidates the attempt may take (with borrowing, not another queue's
    RECLAIM_WITHOUT_BORROWING ones, which `_valid` refuses)."""
    from kadmit.engine.preemption import classical

    gone: dict[str, list[int]] = {}
    for _, c, _, variant in sequence:
        if allow and variant == classical.RECLAIM_WITHOUT_BORROWING and c.cluster_queue != p.cluster_queue:
            continue
        row = gone.setdefault(c.cluster_queue, [0] * len(frs))
        for i, fr in enumerate(frs):
            row[i] += c.amounts.get(fr, 0)
    return sorted((cq, {fr: v for fr, v in zip(frs, row) if v}) for cq, row in gone.items())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_the_sequence_read_element_by_element_is_the_sorted_one(data):
    """`classical._elements` merges the queues' ranked lists as the search reads them: on generated
    cohorts (evicted candidates, borrowWithinCohort thresholds, every policy), before and after a
    search and after a holder finishes, it is the sequence sorted whole (`_flat`), and the sums
    `_fits_without_all` takes away (kept with the queues' lists) are the sequence's own, per queue."""
    from kadmit.engine.preemption import classical
    from kadmit.engine.preemption.snapshot import Snapshot

    model, (key, cq, priority, created, usage, needs) = data.draw(cases())
    s = Session(model)
    rnd = random.Random(data.draw(SEEDS))
    spec = s.index.cluster_queues[cq]
    p = Preemptor(key, cq, priority, created, usage, needs)

    def check(snap):
        plan = classical._collect(snap, p, spec)
        flat = classical._flat(snap, plan)
        assert list(classical._elements(snap, plan)) == flat
        assert (plan.hierarchy, plan.priority) == (
            any(e[3] == classical.HIERARCHY for e in flat),
            any(e[3] in (classical.RECLAIM_WITHOUT_BORROWING, classical.RECLAIM_WHILE_BORROWING) for e in flat))
        frs = tuple(p.usage)
        for allow in (True, False):
            assert sorted(classical._gone(snap, plan, allow, frs)) == _gone_of_sequence(p, flat, allow, frs)
        return flat
    for _ in range(2):
        snap = Snapshot(s)
        snap.load_candidates()
        flat = check(snap)
        if flat:  # a snapshot that changed a queue: its lists are made for the search
            snap.remove(rnd.choice(flat)[1])
            check(snap)
        find_targets(s, p)
        if s.holders:
            s.finish(rnd.choice(sorted(s.holders)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_a_kept_plan_is_the_one_computed_afresh(data):
    """`classical._kept_plan` keeps the candidates' plan per state of the session: on generated
    cohorts, preemptors of one queue searched in turn on one session (the same needs and
    priority with other usages, which share a kept plan; other priorities and creation times,
    which don't), again after a holder finishes, and under `what_if` quota numbers, get the
    sequence computed afresh and the search's answer (victims, reasons, order) without keeping."""
    from kadmit.engine.preemption import classical
    from kadmit.engine.preemption.snapshot import Snapshot

    model, (key, cq, priority, created, usage, needs) = data.draw(cases())
    s = Session(model)
    if s.model.config is not None and s.model.config.fair_sharing:
        return  # fair sharing searches otherwise (`fair_targets`)
    rnd = random.Random(data.draw(SEEDS))
    spec = s.index.cluster_queues[cq]
    preemptors = [Preemptor(key, cq, priority, created, usage, needs)]
    for _ in range(5):
        scaled = {fr: max(UNIT, v // UNIT * rnd.choice((1, 2, 3)) // 2 * UNIT) for fr, v in usage.items()}
        preemptors.append(Preemptor(key, cq, rnd.choice((priority, priority, rnd.randint(0, 4))),
                                    rnd.choice((created, created + timedelta(minutes=rnd.randint(-30, 30)))),
                                    scaled, needs))

    def fresh(p):
        snap = Snapshot(s)
        snap.load_candidates()
        return classical._sequence(snap, p, spec)

    def searched(p, keep):
        kept = classical._kept_plan
        try:
            if not keep:
                classical._kept_plan = classical._collect
            return [(v.key, v.cluster_queue, v.reason) for v in find_targets(s, p)]
        finally:
            classical._kept_plan = kept

    def check():
        for p in preemptors:
            snap = Snapshot(s)
            snap.load_candidates()
            got = classical._kept_plan(snap, p, spec)
            assert (got.hierarchy, got.priority, classical._flat(snap, got)) == fresh(p)
            for allow in (True, False):  # the kept sums (made by the first check, read by the second) = afresh
                assert (classical._fits_without_all(snap, p, got, allow)
                        == classical._fits_without_all(snap, p, classical._collect(snap, p, spec), allow))
            assert searched(p, True) == searched(p, False)
    check()
    check()  # every plan kept now
    if s.holders and rnd.random() < 0.5:
        s.finish(rnd.choice(sorted(s.holders)))  # a new admitted set and usage
        check()
    declared = sorted((node.name, fr) for node in s.compiler.tree.nodes.values() if not node.is_cohort
                      for fr, e in node.quotas.items() if e.declared)
    if declared:  # a queue's number: whether it is within its nominal quota (its candidates' group) moves
        name, (flavor, resource) = rnd.choice(declared)
        with s.what_if([("cq", name, flavor, resource, "nominal", rnd.choice((0, 1, 20)) * UNIT)]):
            check()  # other quota numbers, the same admitted set and usage
        check()
