"""Places where reading Kueue's source (v0.20, `pkg/cache/scheduler/fair_sharing.go`) decided what
both the reference and the engine do, each checked on both sides."""

from __future__ import annotations

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.preemption.search import fair_share
from kadmit.model import SchedulerConfig
from kadmit.reference import decide
from kadmit.reference.fair_sharing import dominant_resource_share
from kadmit.reference.preempting import PreemptingScheduler

from .builders import admitted, build, cohort, fq, group, pod_set, workload
from .test_preemption import cqp


def fair(*objs):
    return build(*objs).model_copy(update={"scheduler_configs": (SchedulerConfig(fair_sharing=True),)})


def test_a_zero_request_is_not_borrowing_in_the_tournament():
    # `a` borrows all the cohort's cpu and has a weight of 1/4: its share is the highest. Its
    # nominee asks for cpu 0 (and memory within a's nominal), so `IsBorrowingOn` (positive
    # requests only) says it doesn't borrow on what it requests; `b`'s nominee borrows a's memory.
    # With FairSharingPrioritizeNonBorrowing the non-borrowing nominee goes first and takes the
    # memory; `b`'s no longer fits. Counting the zero request as borrowing would let `b` go first.
    m = fair(cohort("c", group(fq("f", cpu=10, memory=0))),
             cqp("a", group(fq("f", cpu=0, memory=4)), cohort="c", weight=250),
             cqp("b", group(fq("f", cpu=10, memory=0)), cohort="c"),
             admitted(workload("run", pod_set(cpu=10, memory=0), queue="a"), "a", {"cpu": "f", "memory": "f"}),
             workload("wa", pod_set(cpu=0, memory=4), queue="a", minute=1),
             workload("wb", pod_set(cpu=1, memory=4), queue="b", minute=2))
    ref = {d.workload: d.admitted for d in decide(m, preemption=True)}
    engine = {d.key: d.admitted for d in decide_ordered(Session(m))}
    assert ref == engine == {"default/wa": True, "default/wb": False}


def test_a_zero_weight_borrowing_what_nobody_lends_has_share_zero():
    # `a` (weight 0) holds 4 cpu with no cpu quota anywhere in the tree (an over-admitted state):
    # it borrows, but its parent can lend nothing, so the ratio is 0; `IsZero` then makes the
    # weighted share 0, not +inf, and it doesn't count as a zero-weight borrower.
    m = fair(cohort("c"),
             cqp("a", group(fq("f", cpu=0)), cohort="c", weight=0),
             cqp("b", group(fq("f", cpu=0)), cohort="c"),
             admitted(workload("run", pod_set(cpu=4), queue="a"), "a", {"cpu": "f"}))
    s = PreemptingScheduler(m)
    ref = dominant_resource_share(s.snap, s.tree.queues["a"])
    engine = fair_share(Session(m), "cq:a")
    assert ref.borrowing == engine.borrowing == frozenset({("f", "cpu")})
    assert (ref.ratio, ref.share, ref.zero_weight_borrows) == (engine.ratio, engine.value,
                                                               engine.zero_weight_borrows) == (0, 0, False)
