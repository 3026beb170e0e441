"""Guarantees of `ordered` mode's preemption (issue 5, item 6), on generated models with preemption
policies (`preempting_models`, `cohort_models`), with fair sharing off and on.

Every preemption is observed as the engine makes it: `observe` runs `decide_ordered` with light
wrappers (the session's `nominate`, `nomination` and `suspended`, and `ordered._quota_fits`, the check a head
passes before it issues preemptions, and `ordered.Decision`, to see every eviction as it is
recorded) that note, at that moment, the preemptor's assignment, its victims, who was admitted and
the usage with this cycle's victims gone. Nothing the engine computes changes. The checks use
model data and the reference quota tree, not the engine's own predicates:

(a) no victim has a higher priority than its preemptor unless the reason is InCohortReclamation or
    InCohortFairSharing under `reclaimWithinCohort: Any`; an equal one only under
    LowerOrNewerEqualPriority (newer victim) or `Any`; and each reason agrees with the preemptor's
    queue policy (withinClusterQueue for its own queue, reclaimWithinCohort / borrowWithinCohort
    for the others);
(b) every victim was admitted at the time (in the input or earlier in the run) and held a
    flavor-resource the preemptor's assignment needed preemption in; every eviction recorded was
    chosen by that preemptor;
(c) no preemption in vain at the time: with the victims (and the cycle's earlier targets) gone,
    the preemptor's whole usage fits its queue; and at the end every preemptor is admitted,
    evicted itself, or overtaken (its usage no longer fits the final state);
(d) two workloads evict each other only where one of them reclaims under `reclaimWithinCohort: Any`
    (a victim of no lower priority than its preemptor's): never a pair within a queue or under
    priority-ordered policies alone;
(e) two runs give identical decisions;
(f) the final admitted set respects every quota (the engine QuotaTree invariants of
    test_optimal.respects_quota), and is the session's final usage.

Found by these checks and fixed in the engine since (kept as regression tests): an overtaken
preemptor (it evicted, then something else took the room) no longer listed its victims; a workload
evicted in the input and admitted again in the run was never evicted when targeted; a preemptor
admitted and then evicted itself no longer listed its victims.

Found wrong about Kueue and corrected: (d) said no two workloads evict each other, but under fair
sharing a preemptor that takes a borrowing queue's workloads, borrowing itself, is reclaimed from
by one of them, as Kueue v0.17.0 does (the oracle on tests/oracle/features/
fair-sharing-mutual-eviction.yaml; `mutual_eviction` is kept as an example).

Kept as a strict xfail, with a small model each:
- Kueue's rules can loop: a preemptor evicts the same victim again and again
  (`test_no_preemption_loop`, classical and fair sharing; engine and reference replay alike). Kueue
  v0.17.0 itself loops on both models (the oracle on each, exported:
  tests/oracle/test_admit.py::test_preemption_loop_models_loop_in_kueue_too), so "no loop" is no
  guarantee of Kueue's and kadmit reports the loop (KAD535). The end check of (c) and the usage
  equality of (f) skip runs that loop (they stop mid-loop); everything else is checked on them too.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission import ordered
from engine.test_optimal import respects_quota
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                   IN_COHORT_RECLAMATION, Victim)
from kadmit.engine.quota import FR, Usage
from kadmit.engine.admission.session import Assignment, Session
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import Model, PodSet, SchedulerConfig, Workload
from kadmit.reference.flavors import FlavorAssigner
from kadmit.reference.quota import QuotaTree as ReferenceTree
from reference.builders import T0, admitted, build, fq, group, pod_set, workload
from reference.test_preemption import cohort_models, cqp, preempting_models

COHORT_REASONS = {IN_COHORT_RECLAMATION, IN_COHORT_FAIR_SHARING}


class Held(NamedTuple):
    cluster_queue: str
    amounts: dict[FR, int]
    new: bool  # admitted earlier in this run


@dataclass
class Preemption:
    """A head passing the quota check with its victims gone, just before it issues preemptions."""

    seq: int
    preemptor: str
    cluster_queue: str
    assignment: Assignment
    holders: dict[str, Held]  # admitted before the cycle's targets were set aside
    usage: dict[str, dict[FR, int]]  # per queue, with this cycle's targets and its own gone
    present: set[str]  # admitted workloads at the check (targets set aside)

    @property
    def targets(self) -> list[Victim]:
        return self.assignment.targets


@dataclass
class Eviction:
    seq: int
    victim: str
    preemptor: str
    reason: str | None


@dataclass
class Observed:
    model: Model
    session: Session
    decisions: list[Decision]
    preemptions: list[Preemption] = field(default_factory=list)
    evictions: list[Eviction] = field(default_factory=list)
    loops: list = field(default_factory=list)  # preemption loops the engine stopped (KAD535)

    def wl(self, key: str) -> Workload:
        return self.session.index.workloads[key]


@contextmanager
def _watching(session: Session, seen: Observed):
    """Wrap the session and the ordered module (module docstring); everything restored after."""
    nominate, nomination, suspended = session.nominate, session.nomination, session.suspended
    quota_fits, decision = ordered._quota_fits, ordered.Decision
    head: dict[str, str] = {}  # cluster queue -> the workload nominated first in this cycle
    latest: dict[str, Assignment] = {}  # workload -> its latest nomination with preemption on
    depth = [0]
    before: list[dict] = []
    seq = [0]

    def watch_nominate(wl, preemption: bool = True):
        got = nominate(wl, preemption)
        seen_nomination(wl, preemption, got[0])
        return got

    def watch_nomination(wl, preemption: bool = True):
        got = nomination(wl, preemption)
        seen_nomination(wl, preemption, got)
        return got

    def seen_nomination(wl, preemption: bool, got: Assignment | None) -> None:
        if preemption and got is not None:
            latest[wl.key] = got
        cq = session.index.cluster_queue_of(wl)
        if depth[0] == 0 and cq is not None:
            head[cq.name] = wl.key

    @contextmanager
    def watch_suspended(keys):
        before.append({k: Held(h.cluster_queue, dict(h.amounts), h.new) for k, h in session.holders.items()})
        depth[0] += 1
        try:
            with suspended(keys):
                yield
        finally:
            depth[0] -= 1
            before.pop()

    def watch_quota_fits(s, cq, usage):
        ok = quota_fits(s, cq, usage)
        if ok:
            key = head[cq]
            seq[0] += 1
            seen.preemptions.append(Preemption(seq[0], key, cq, latest[key], before[-1],
                                               {q: dict(row) for q, row in session.usage.data.items()},
                                               set(session.holders)))
        return ok

    def watch_decision(*args, **kw):
        d = decision(*args, **kw)
        if d.preempted_by:
            seq[0] += 1
            seen.evictions.append(Eviction(seq[0], d.key, d.preempted_by, d.preemption_reason))
        return d

    session.nominate, session.nomination, session.suspended = watch_nominate, watch_nomination, watch_suspended
    ordered._quota_fits, ordered.Decision = watch_quota_fits, watch_decision
    try:
        yield
    finally:
        del session.nominate, session.nomination, session.suspended
        ordered._quota_fits, ordered.Decision = quota_fits, decision


def observe(model: Model) -> Observed:
    session = Session(model)
    seen = Observed(model, session, [])
    with _watching(session, seen):
        seen.decisions = decide_ordered(session, loops=seen.loops)
    return seen


def with_fair_sharing(model: Model) -> Model:
    return model.model_copy(update={"scheduler_configs": (SchedulerConfig(fair_sharing=True),)})


def allowed(policy: str, p: Workload, v: Workload, index: ModelIndex) -> bool:
    """Kueue's policy test (docs/PREEMPTION.md C1), from the model."""
    pp, vp = index.priority(p), index.priority(v)
    if policy == "LowerPriority":
        return pp > vp
    if policy == "LowerOrNewerEqualPriority":
        return pp > vp or (pp == vp and p.created < v.created)
    return policy == "Any"


def final_usage(seen: Observed) -> Usage:
    """Admitted usage at the end, from the model and the decisions: workloads decided in the run
    count with their assignment if admitted; the others keep their input admission."""
    usage = Usage()
    decided = {d.key: d for d in seen.decisions}
    for wl in sorted(seen.model.workloads, key=lambda w: w.key):
        d = decided.get(wl.key)
        if d is None:
            if wl.admitted and wl.admission is not None and not wl.finished:
                usage.add(wl.admission.cluster_queue, admitted_usage(wl))
        elif d.admitted:
            usage.add(d.assignment.cluster_queue, d.assignment.usage)
    return usage


def reference_tree(model: Model, usage: dict[str, dict[FR, int]]) -> ReferenceTree:
    tree = ReferenceTree(ModelIndex(model))
    for cq in sorted(usage):
        if cq in tree.queues:
            tree.add_usage(cq, {fr: v for fr, v in usage[cq].items() if v})
    return tree


# --- the properties -------------------------------------------------------------------------------

def check_priorities_and_policies(seen: Observed) -> None:
    """(a)"""
    fair = bool(seen.model.config and seen.model.config.fair_sharing)
    index = seen.session.index
    for p in seen.preemptions:
        pre = seen.wl(p.preemptor)
        policy = index.cluster_queues[p.cluster_queue].preemption
        for t in p.targets:
            vic = seen.wl(t.key)
            pp, vp = index.priority(pre), index.priority(vic)
            where = f"{p.preemptor} (priority {pp}) evicts {t.key} (priority {vp}) for {t.reason}"
            if vp > pp:
                assert t.reason in COHORT_REASONS and policy.reclaim_within_cohort == "Any", where
            if vp == pp:
                assert (t.reason == IN_CLUSTER_QUEUE and policy.within_cluster_queue == "LowerOrNewerEqualPriority"
                        and pre.created < vic.created) or (t.reason in COHORT_REASONS
                                                          and policy.reclaim_within_cohort == "Any"), where
            victim_cq = p.holders[t.key].cluster_queue
            if t.reason == IN_CLUSTER_QUEUE:
                assert victim_cq == p.cluster_queue, where
                assert allowed(policy.within_cluster_queue, pre, vic, index), where
                continue
            assert victim_cq != p.cluster_queue, where
            assert allowed(policy.reclaim_within_cohort, pre, vic, index), where
            if t.reason == IN_COHORT_RECLAIM_WHILE_BORROWING:
                bwc = policy.borrow_within_cohort
                assert not fair and bwc is not None and bwc.policy != "Never" and vp < pp, where
                assert bwc.max_priority_threshold is None or vp <= bwc.max_priority_threshold, where
            elif fair:
                assert t.reason in COHORT_REASONS, where
            else:
                assert t.reason == IN_COHORT_RECLAMATION, where


def check_victims_were_admitted_and_in_the_way(seen: Observed) -> None:
    """(b)"""
    for p in seen.preemptions:
        assert p.targets, p.preemptor
        for t in p.targets:
            assert t.key in p.holders, f"{t.key} was not admitted when {p.preemptor} evicted it"
            cq, amounts, _ = p.holders[t.key]
            assert cq == t.cluster_queue
            assert any(fr in p.assignment.needs for fr in amounts), \
                f"{t.key} holds {sorted(amounts)}, {p.preemptor} needs {sorted(p.assignment.needs)}"
    chosen = {}
    for p in seen.preemptions:
        for t in p.targets:
            chosen.setdefault((p.preemptor, t.key), []).append((p.seq, t.reason))
    for e in seen.evictions:
        picks = [reason for seq, reason in chosen.get((e.preemptor, e.victim), []) if seq < e.seq]
        assert picks and picks[-1] == e.reason, f"{e.victim} evicted by {e.preemptor} ({e.reason}) unchosen"


def check_not_in_vain_at_the_time(seen: Observed) -> None:
    """(c), first half"""
    for p in seen.preemptions:
        assert not {t.key for t in p.targets} & p.present
        tree = reference_tree(seen.model, p.usage)
        assert tree.fits(p.cluster_queue, {fr: v for fr, v in p.assignment.usage.items() if v}), \
            f"{p.preemptor} evicts {[t.key for t in p.targets]} and still doesn't fit {p.cluster_queue}"


def looping(seen: Observed) -> bool:
    """The engine stopped a preemption loop, or a preemptor evicted the same victim twice: the run
    went round in a loop and was cut off (see `test_no_preemption_loop`)."""
    pairs = [(e.preemptor, e.victim) for e in seen.evictions]
    return bool(seen.loops) or len(pairs) != len(set(pairs))


def check_every_preemptor_accounted_for(seen: Observed) -> None:
    """(c), second half: admitted, evicted itself, or overtaken by later admissions. A run cut off
    in a preemption loop ends mid-loop and is left to `test_no_preemption_loop`."""
    if looping(seen):
        return
    decided = {d.key: d for d in seen.decisions}
    tree = reference_tree(seen.model, final_usage(seen).data)
    for key in sorted({p.preemptor for p in seen.preemptions}):
        d = decided[key]
        if d.admitted or d.preempted_by:
            continue
        last = [p for p in seen.preemptions if p.preemptor == key][-1]
        usage = {fr: v for fr, v in last.assignment.usage.items() if v}
        if not tree.fits(last.cluster_queue, usage):
            continue
        # The flavors it preempted for have room now, but Kueue's flavor assigner chooses again from
        # the start, pod set by pod set (the first flavor that fits), and may not come back to them:
        # then waiting is Kueue's own answer. It must not find a fit and wait.
        index = ModelIndex(seen.model)
        assigner = FlavorAssigner(tree, index.cluster_queues[last.cluster_queue], index.flavors, index.topologies)
        assert not assigner.assign(seen.wl(key)).fits, f"{key} preempted, fits at the end, and waits"


def reclaims_regardless_of_priority(seen: Observed, e: Eviction) -> bool:
    """A cohort eviction under the preemptor's `reclaimWithinCohort: Any` of a victim whose priority
    is not lower than the preemptor's."""
    index = seen.session.index
    pre, vic = seen.wl(e.preemptor), seen.wl(e.victim)
    cq = index.cluster_queue_of(pre)
    return (e.reason in COHORT_REASONS and cq is not None and cq.preemption.reclaim_within_cohort == "Any"
            and index.priority(vic) >= index.priority(pre))


def check_no_mutual_eviction(seen: Observed) -> None:
    """(d)"""
    by_pair = {(e.preemptor, e.victim): e for e in seen.evictions}
    for (a, b), e in sorted(by_pair.items()):
        back = by_pair.get((b, a))
        if back is not None:
            assert reclaims_regardless_of_priority(seen, e) or reclaims_regardless_of_priority(seen, back), \
                f"{a} and {b} evict each other ({e.reason}, {back.reason})"


def view(decisions: list[Decision]) -> list[tuple]:
    return [(d.key, d.admitted, d.cluster_queue, d.cycle, d.waiting_behind, d.unknown, tuple(d.notes),
             tuple((v.key, v.reason) for v in d.preempted), d.preempted_by, d.preemption_reason,
             (d.assignment.counts, d.assignment.flavors, d.assignment.mode,
              tuple((v.key, v.reason) for v in d.assignment.targets)) if d.assignment else None)
            for d in decisions]


def check_quotas_at_the_end(seen: Observed) -> None:
    """(f): the admitted set the decisions describe respects every quota, and is the session's
    final usage (unless a loop was cut off with evictions still under way)."""
    usage = final_usage(seen)
    assert respects_quota(seen.model, usage)
    assert respects_quota(seen.model, seen.session.usage)
    if looping(seen):
        return

    def nonzero(u: Usage) -> dict:
        rows = {cq: {fr: v for fr, v in row.items() if v} for cq, row in u.data.items()}
        return {cq: row for cq, row in rows.items() if row}
    assert nonzero(usage) == nonzero(seen.session.usage)


def check_all(seen: Observed) -> None:
    check_priorities_and_policies(seen)
    check_victims_were_admitted_and_in_the_way(seen)
    check_not_in_vain_at_the_time(seen)
    check_every_preemptor_accounted_for(seen)
    check_no_mutual_eviction(seen)
    check_quotas_at_the_end(seen)


@st.composite
def pressured(draw, models):
    """A model of `models` with one or two more pending workloads of priority up to 5, each asking
    for a queue's whole nominal quota (plus up to two units) of one resource in its first flavor:
    with the queues already busy, most of them need preemption."""
    model = draw(models)
    extra = []
    for i in range(draw(st.integers(1, 2))):
        cq = draw(st.sampled_from(model.cluster_queues))
        first = cq.resource_groups[0].flavors[0]
        quota = draw(st.sampled_from(first.resources))
        lq = draw(st.sampled_from(sorted((lq for lq in model.local_queues if lq.cluster_queue == cq.name),
                                         key=lambda q: q.key)))
        amount = max(1000, quota.nominal + draw(st.integers(0, 2)) * 1000)
        created = T0 + timedelta(minutes=draw(st.integers(0, 40)))
        extra.append(Workload(namespace=lq.namespace, name=f"urgent{i}", queue=lq.name,
                              priority=draw(st.integers(2, 5)), created=created,
                              pod_sets=(PodSet(name="main", count=1, requests={quota.resource: amount}),)))
    return model.model_copy(update={"workloads": model.workloads + tuple(extra)})


def running(name, cq, cpu, priority=0, at=0):
    wl = admitted(workload(name, pod_set(cpu=cpu), queue=cq, priority=priority), cq, {"cpu": "f"})
    return wl.model_copy(update={"admission": wl.admission.model_copy(
        update={"admitted_at": T0 + timedelta(minutes=at)})})


def mutual_eviction() -> Model:
    """The draw that found (d) wrong about Kueue (tests/oracle/features/fair-sharing-mutual-eviction.yaml
    without `new0`): under fair sharing `urgent0` evicts `run0` and `run1` from the borrowing q0 and
    borrows itself; `run1`, back within q0's nominal quota, reclaims from it (`reclaimWithinCohort: Any`)."""
    return build(cqp("q0", group(fq("f", cpu=1)), cohort="root", reclaim="Any"),
                 cqp("q1", group(fq("f", cpu=3)), cohort="root", reclaim="LowerPriority"),
                 running("run0", "q0", 3), running("run1", "q0", 1),
                 workload("new0", pod_set(cpu=1), queue="q0", priority=0, minute=10),
                 workload("urgent0", pod_set(cpu=4), queue="q1", priority=2))


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODELS = st.one_of(preempting_models(), cohort_models(), pressured(preempting_models()), pressured(cohort_models()))


@SETTINGS
@given(MODELS)
def test_preemption_guarantees(model):
    check_all(observe(model))


@SETTINGS
@given(MODELS)
@example(mutual_eviction())
def test_preemption_guarantees_with_fair_sharing(model):
    check_all(observe(with_fair_sharing(model)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODELS, st.booleans())
def test_two_runs_decide_alike(model, fair):
    if fair:
        model = with_fair_sharing(model)
    first = observe(model)
    second = observe(model)
    assert view(first.decisions) == view(second.decisions)
    assert [(e.victim, e.preemptor, e.reason) for e in first.evictions] == \
        [(e.victim, e.preemptor, e.reason) for e in second.evictions]


# --- the checks can fail -------------------------------------------------------------------------------

def overtaken() -> Model:
    """`new1` (q0, priority 1) reclaims `run1` from the borrowing q1 while borrowing itself; in the
    next cycle q1's `new0` (within its nominal quota, so processed first) takes part of the freed
    quota, and `new1` no longer fits: evicted `run1` for nothing, as Kueue would (the reference
    replay decides the same)."""
    return build(cqp("q0", group(fq("f", cpu=4)), cohort="root", reclaim="LowerPriority", bwc="LowerPriority"),
                 cqp("q1", group(fq("f", cpu=1)), cohort="root"),
                 cqp("q2", group(fq("f", cpu=4)), cohort="root"),
                 running("run0", "q0", 5), running("run1", "q1", 3), running("run2", "q0", 1),
                 workload("new0", pod_set(cpu=1), queue="q1", priority=1, minute=10),
                 workload("new1", pod_set(cpu=3), queue="q0", priority=1, minute=10))


def test_the_checks_see_an_overtaken_preemptor():
    seen = observe(overtaken())
    assert [(p.preemptor, [t.key for t in p.targets]) for p in seen.preemptions] == [("default/new1", ["default/run1"])]
    assert [(e.victim, e.preemptor) for e in seen.evictions] == [("default/run1", "default/new1")]
    decided = {d.key: d for d in seen.decisions}
    assert decided["default/new0"].admitted and not decided["default/new1"].admitted
    check_all(seen)  # overtaken: allowed, its usage no longer fits at the end


def test_the_checks_fail_on_a_forged_preemption():
    seen = observe(overtaken())
    p = seen.preemptions[0]
    # a higher-priority victim under reclaimWithinCohort: LowerPriority
    forged = Victim("default/run1", "q1", IN_COHORT_RECLAMATION, 5)
    index = seen.session.index
    wl = index.workloads["default/run1"].model_copy(update={"priority": 5})
    index.workloads["default/run1"] = wl
    p.assignment.targets = [forged]
    with pytest.raises(AssertionError):
        check_priorities_and_policies(seen)
    # a victim that held nothing the preemptor needed
    p.assignment.needs = frozenset({("g", "cpu")})
    with pytest.raises(AssertionError):
        check_victims_were_admitted_and_in_the_way(seen)
    # a preemption that doesn't make room
    p.usage["q0"] = {("f", "cpu"): 9000}
    with pytest.raises(AssertionError):
        check_not_in_vain_at_the_time(seen)
    # mutual eviction
    seen.evictions.append(Eviction(99, "default/new1", "default/run1", IN_COHORT_RECLAMATION))
    with pytest.raises(AssertionError):
        check_no_mutual_eviction(seen)


def test_an_overtaken_preemptor_still_lists_its_victims():
    decided = {d.key: d for d in observe(overtaken()).decisions}
    assert [v.key for v in decided["default/new1"].preempted] == ["default/run1"]


def evicted_preemptor() -> Model:
    """`new0` (q1, preempting while borrowing) evicts `run0` from its own queue and is admitted, borrowing; `big` (q0's head,
    larger than the cohort) is set aside; then q0's `new1`, within its nominal quota, reclaims
    from `new0` (`reclaimWithinCohort: Any`). The reference lists `run0` as `new0`'s victim."""
    return build(cqp("q0", group(fq("f", cpu=1)), cohort="root", reclaim="Any"),
                 cqp("q1", group(fq("f", cpu=0)), cohort="root", within="LowerPriority", reclaim="Any",
                     bwc="LowerPriority"),
                 running("run0", "q1", 1),
                 workload("new0", pod_set(cpu=1), queue="q1", priority=1, minute=10),
                 workload("big", pod_set(cpu=2), queue="q0", priority=2),
                 workload("new1", pod_set(cpu=1), queue="q0", priority=0, minute=10))


def test_an_evicted_preemptor_still_lists_its_victims():
    seen = observe(evicted_preemptor())
    assert [(e.victim, e.preemptor) for e in seen.evictions] == [("default/run0", "default/new0"),
                                                                 ("default/new0", "default/new1")]
    decided = {d.key: d for d in seen.decisions}
    assert decided["default/new0"].preempted_by == "default/new1"
    assert [v.key for v in decided["default/new0"].preempted] == ["default/run0"]


def stale_eviction() -> Model:
    """`run1` is evicted in the input: released before the first cycle, it is admitted again in
    the run; then `urgent1` (priority 3, within q0's nominal quota) targets it. The reference evicts
    it and admits `urgent1`. (q1 preempts while borrowing: borrowWithinCohort.)"""
    return build(cqp("q0", group(fq("f", cpu=4)), cohort="root", within="LowerPriority"),
                 cqp("q1", group(fq("f", cpu=1)), cohort="root", within="LowerPriority", reclaim="Any",
                     bwc="LowerPriority"),
                 running("run0", "q1", 3), running("run1", "q0", 2).model_copy(update={"evicted": True}),
                 workload("urgent0", pod_set(cpu=3), queue="q1", priority=3),
                 workload("urgent1", pod_set(cpu=4), queue="q0", priority=3))


def test_a_workload_evicted_in_the_input_and_admitted_again_can_be_preempted():
    seen = observe(stale_eviction())
    assert any(seen.wl(t.key).evicted and p.holders[t.key].new for p in seen.preemptions for t in p.targets)
    decided = {d.key: d for d in seen.decisions}
    assert decided["default/urgent1"].admitted and decided["default/run1"].preempted_by == "default/urgent1"
    check_all(seen)


def loop_classical() -> Model:
    """`urgent0` (q1, priority 2) evicts `run0` from its own queue but needs to borrow (borrowWithinCohort); `urgent1`
    (q0, priority 5) is admitted first, borrowing; `run0` (priority 0), back within q1's nominal
    quota, reclaims from it (`reclaimWithinCohort: Any`); `urgent0` evicts `run0` again, and so on."""
    return build(cqp("q0", group(fq("f", cpu=4)), cohort="root"),
                 cqp("q1", group(fq("f", cpu=6)), cohort="root", within="LowerPriority", reclaim="Any",
                     bwc="LowerPriority"),
                 running("run0", "q1", 6),
                 workload("urgent0", pod_set(cpu=7), queue="q1", priority=2),
                 workload("urgent1", pod_set(cpu=6), queue="q0", priority=5))


def loop_fair_sharing() -> Model:
    """Fair sharing: `low` (q1) takes its own `run0` and then, by LessThanInitialShare, `high` (q0);
    fill-back returns `run0`, so only `high` goes; next cycle the admission tournament puts `high`
    (equal share, higher priority) before `low`, which no longer fits and evicts `high` again."""
    return with_fair_sharing(build(cqp("q0", group(fq("f", cpu=1)), cohort="root"),
                                   cqp("q1", group(fq("f", cpu=2)), cohort="root", within="LowerPriority",
                                       reclaim="Any"),
                                   running("run0", "q1", 1),
                                   workload("low", pod_set(cpu=2), queue="q1", priority=1, minute=10),
                                   workload("high", pod_set(cpu=2), queue="q0", priority=2)))


@pytest.mark.xfail(strict=True, reason="not kadmit's: the property is not Kueue's. Kueue v0.17.0 loops on "
                                       "both models too (the oracle's run of each, exported, ends in `stop: "
                                       "loop`: tests/oracle/test_admit.py::"
                                       "test_preemption_loop_models_loop_in_kueue_too), the same preemptor "
                                       "evicting the same victim again and again; kadmit follows it (KAD535, "
                                       "the loop's workloads undecided, exit 3) and so does the reference "
                                       "replay")
@pytest.mark.parametrize("model", [loop_classical, loop_fair_sharing], ids=["classical", "fair-sharing"])
def test_no_preemption_loop(model):
    seen = observe(model())
    check_no_mutual_eviction(seen)  # no pair evicts each other: the loop goes through a third workload
    assert not looping(seen), [(e.preemptor, e.victim) for e in seen.evictions[:4]]


def test_workloads_evict_each_other_only_by_reclaiming_under_any():
    seen = observe(with_fair_sharing(mutual_eviction()))
    assert [(e.preemptor, e.victim, e.reason) for e in seen.evictions] == [
        ("default/urgent0", "default/run1", IN_COHORT_FAIR_SHARING),
        ("default/urgent0", "default/run0", IN_COHORT_FAIR_SHARING),
        ("default/run1", "default/urgent0", IN_COHORT_RECLAMATION)]
    check_all(seen)
    # the same evictions with q0 reclaiming only from lower priorities break (d)
    index = seen.session.index
    q0 = index.cluster_queues["q0"]
    index.cluster_queues["q0"] = q0.model_copy(update={"preemption": q0.preemption.model_copy(
        update={"reclaim_within_cohort": "LowerPriority"})})
    with pytest.raises(AssertionError, match="evict each other"):
        check_no_mutual_eviction(seen)
