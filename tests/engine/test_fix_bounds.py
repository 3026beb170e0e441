"""`explain.bounds`: the necessary condition on quota numbers (and priority) for a pending workload
to be admitted, on small hand-made states, and for generated ones checked against deciding again:
whatever value the bound refuses, the re-decided run does not admit the workload."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.explain.bounds import IMPOSSIBLE, Bound
from kadmit.model import (Admission, BorrowWithinCohort, ClusterQueue, Cohort, FlavorQuotas, LabelSelector,
                          LocalQueue, Model, Namespace, PodSet, PodSetAssignment, Preemption, PriorityClass,
                          ResourceFlavor, ResourceGroup, ResourceQuota, Workload)

CPU = 1000
T0 = datetime(2026, 11, 20, tzinfo=timezone.utc)
PRIOS = {"low": 10, "mid": 100, "high": 1000}


def cq(name: str, nominal: int, borrow: int | None = None, cohort: str | None = "c", strict: bool = False,
       flavors: tuple[str, ...] = ("f",), preemption: Preemption = Preemption()) -> ClusterQueue:
    return ClusterQueue(
        name=name, cohort=cohort, namespace_selector=LabelSelector(),
        queueing_strategy="StrictFIFO" if strict else "BestEffortFIFO", preemption=preemption,
        resource_groups=(ResourceGroup(covered_resources=("cpu",), flavors=tuple(
            FlavorQuotas(flavor=f, resources=(ResourceQuota(resource="cpu", nominal=nominal * CPU,
                                                            borrowing_limit=None if borrow is None else borrow * CPU),))
            for f in flavors)),))


def wl(name: str, q: str, cpu: int, minute: int, prio: str = "mid", count: int = 1, min_count: int | None = None,
       admitted_to: str | None = None) -> Workload:
    adm = None
    if admitted_to is not None:
        adm = Admission(cluster_queue=admitted_to, pod_sets=(PodSetAssignment(name="main", count=count,
                                                                               flavors={"cpu": "f"}),))
    return Workload(namespace="ns", name=name, queue=q, priority_class=prio, created=T0 + timedelta(minutes=minute),
                    pod_sets=(PodSet(name="main", count=count, min_count=min_count, requests={"cpu": cpu * CPU}),),
                    admission=adm)


def model(queues: list[ClusterQueue], workloads: list[Workload]) -> Model:
    return Model(flavors=(ResourceFlavor(name="f"), ResourceFlavor(name="g")),
                 cohorts=tuple(Cohort(name=c) for c in sorted({q.cohort for q in queues if q.cohort})),
                 cluster_queues=tuple(queues),
                 local_queues=tuple(LocalQueue(namespace="ns", name=q.name, cluster_queue=q.name) for q in queues),
                 namespaces=(Namespace(name="ns"),),
                 priority_classes=tuple(PriorityClass(name=n, value=v) for n, v in PRIOS.items()),
                 workloads=tuple(workloads))


def admitted(m: Model, key: str) -> bool:
    """Whether `key` ends the run admitted (a workload admitted at the start and never evicted has no decision)."""
    d = next((d for d in decide_ordered(Session(m)) if d.key == key), None)
    return d.admitted if d is not None else next(w for w in m.workloads if w.key == key).admission is not None


def with_quota(m: Model, name: str, field: str, value: int) -> Model:
    """`m` with one number of queue `name` (its first flavor's cpu) set to `value` milli-cpu."""
    out = []
    for q in m.cluster_queues:
        if q.name == name:
            g = q.resource_groups[0]
            fq = g.flavors[0]
            rq = fq.resources[0].model_copy(update={field: value})
            fq = fq.model_copy(update={"resources": (rq,)})
            q = q.model_copy(update={"resource_groups": (g.model_copy(update={"flavors": (fq,) + g.flavors[1:]}),)})
        out.append(q)
    return m.model_copy(update={"cluster_queues": tuple(out)})


def with_priority(m: Model, key: str, prio: str) -> Model:
    return m.model_copy(update={"workloads": tuple(
        w.model_copy(update={"priority_class": prio}) if w.key == key else w for w in m.workloads)})


# cq a: nominal 2 + borrow 2 (reach 4); cq d: nominal 0. In a's queue: `big` (5 cpu, first, never
# fits: a can reach 4 at most), `small` (1 cpu, second), then `w` (2 cpu): the cohort's 2 cpu hold
# `small`, so `w` waits. Raising d's nominal to 1 cpu admits `w`: BestEffortFIFO sets `big` aside.
# Counting everything ahead of `w` (5 + 1 + 2 > 4) would call every number of d useless: wrong.
def _naive_trap(strict: bool) -> Model:
    return model([cq("a", 2, 2, strict=strict), cq("d", 0, 0)],
                 [wl("big", "a", 5, 0, "high"), wl("small", "a", 1, 1, "high"), wl("w", "a", 2, 2)])


def test_best_effort_fifo_counts_only_what_must_go_first_so_another_queues_quota_is_not_pruned():
    m = _naive_trap(strict=False)
    assert not admitted(m, "ns/w")
    b = Bound.of(m, m.workloads[2])
    assert b.sound and b.need() == {"cpu": 3 * CPU}  # small + w; big may be set aside
    assert b.least(("cq", "d", "f", "cpu", "nominal"), 0) == 1 * CPU
    assert admitted(with_quota(m, "d", "nominal", 1 * CPU), "ns/w")  # pruning it would have been wrong
    assert not b.necessary({("cq", "d", "f", "cpu", "nominal"): 1 * CPU - 1})
    assert not admitted(with_quota(m, "d", "nominal", 1 * CPU - 1), "ns/w")
    # a's borrowing limit can't raise what the cohort has: no value of it helps
    assert b.least(("cq", "a", "f", "cpu", "borrowing_limit"), 2 * CPU) == IMPOSSIBLE


def test_strict_fifo_counts_every_workload_ahead_so_other_queues_quota_cannot_help():
    m = _naive_trap(strict=True)
    b = Bound.of(m, m.workloads[2])
    assert b.sound and b.need() == {"cpu": 8 * CPU}
    assert b.least(("cq", "d", "f", "cpu", "nominal"), 0) == IMPOSSIBLE  # a reaches 4 whatever d has
    assert not admitted(with_quota(m, "d", "nominal", 1000 * CPU), "ns/w")
    # a's nominal: a reaches nominal + 2, but the cohort has only a's own nominal (d's is 0)
    assert b.least(("cq", "a", "f", "cpu", "nominal"), 2 * CPU) == 8 * CPU
    assert not admitted(with_quota(m, "a", "nominal", 8 * CPU - 1), "ns/w")
    assert admitted(with_quota(m, "a", "nominal", 8 * CPU), "ns/w")


def test_a_higher_priority_is_pruned_only_when_the_workloads_ahead_at_it_do_not_fit():
    m = model([cq("a", 3, cohort=None)],
              [wl("h1", "a", 1, 0, "high"), wl("h2", "a", 1, 1, "high"), wl("h3", "a", 1, 2, "high"),
               wl("m1", "a", 1, 3, "mid"), wl("w", "a", 1, 4, "low")])
    b = Bound.of(m, m.workloads[-1])
    assert not b.necessary(priority=PRIOS["mid"])  # h1-h3, the older m1 and w: 5 > 3
    assert not admitted(with_priority(m, "ns/w", "mid"), "ns/w")
    assert b.necessary(priority=PRIOS["high"] + 1)
    m2 = model([cq("a", 5, cohort=None)], list(m.workloads))
    assert Bound.of(m2, m2.workloads[-1]).necessary(priority=PRIOS["mid"])
    assert admitted(with_priority(m2, "ns/w", "mid"), "ns/w")


def test_admitted_usage_and_partial_admission_count_at_their_smallest():
    m = model([cq("a", 4, cohort=None)],
              [wl("held", "a", 1, 0, "low", admitted_to="a"), wl("g", "a", 1, 1, "high", count=4, min_count=1),
               wl("g2", "a", 1, 1, "high", count=4, min_count=2), wl("w", "a", 1, 2, "low", count=4, min_count=1)])
    b = Bound.of(m, m.workloads[-1])
    assert b.need() == {"cpu": (1 + 1 + 1) * CPU}  # held, g and w at one pod; g2 is another shape
    strict = m.model_copy(update={"cluster_queues": (cq("a", 4, cohort=None, strict=True),)})
    assert Bound.of(strict, m.workloads[-1]).need() == {"cpu": (1 + 1 + 2 + 1) * CPU}


def test_a_duplicate_workload_is_not_counted():
    m = model([cq("a", 4, cohort=None, strict=True)],
              [wl("h", "a", 2, 0, "high"), wl("h", "a", 2, 0, "high"), wl("w", "a", 1, 2, "low")])
    assert Bound.of(m, m.workloads[-1]).need() == {"cpu": 1 * CPU}


def test_preemption_or_several_flavors_weaken_the_claim():
    pre = Preemption(within_cluster_queue="LowerPriority")
    m = model([cq("a", 2, 2, strict=False, preemption=pre), cq("d", 0, 0)],
              [wl("big", "a", 5, 0, "high"), wl("w", "a", 2, 2)])
    b = Bound.of(m, m.workloads[-1])
    assert not b.sound and "preempt" in b.why_not and not b.fifo  # BestEffortFIFO: nothing claimed
    assert b.least(("cq", "d", "f", "cpu", "nominal"), 0) is None and b.necessary({})
    m = model([cq("a", 2, 2, flavors=("f", "g")), cq("d", 0, 0)],
              [wl("small", "a", 1, 0, "high"), wl("w", "a", 2, 2)])
    b = Bound.of(m, m.workloads[-1])
    assert b.sound and not b.single and b.need() == {"cpu": 2 * CPU}  # `small` may take the other flavor


def test_the_estimate_leaves_room_for_everything_ahead_whatever_the_other_queues_take():
    m = model([cq("a", 2, 10), cq("d", 2, 10)],
              [wl(f"d{i}", "d", 2, i, "high") for i in range(4)]
              + [wl("a1", "a", 3, 0, "high"), wl("w", "a", 1, 5)])
    b = Bound.of(m, m.workloads[-1])
    # a needs 3 + 1; d takes at most its demand 8: nominal of a with 4 <= a + 2 - 8
    got = b.enough(("cq", "a", "f", "cpu", "nominal"), 2 * CPU)
    assert got == 10 * CPU
    assert admitted(with_quota(m, "a", "nominal", got), "ns/w")


# --- generated states: what the bound refuses, deciding again refuses too ---------------------------

@st.composite
def states(draw):
    n = draw(st.integers(1, 3))
    pre = draw(st.sampled_from((Preemption(), Preemption(), Preemption(within_cluster_queue="LowerPriority"),
                                Preemption(reclaim_within_cohort="Any"),
                                Preemption(borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority")))))
    queues = []
    for i in range(n):
        cohort = draw(st.sampled_from(("c", "c", None)))
        queues.append(cq(f"q{i}", draw(st.integers(0, 5)), draw(st.one_of(st.none(), st.integers(0, 4))),
                         cohort=cohort, strict=draw(st.booleans()),
                         flavors=draw(st.sampled_from((("f",), ("f",), ("f", "g")))),
                         preemption=pre if i == 0 else Preemption()))
    wls = []
    for j in range(draw(st.integers(1, 3))):
        q = draw(st.integers(0, n - 1))
        wls.append(wl(f"adm{j}", f"q{q}", draw(st.integers(1, 2)), 0, "low", admitted_to=f"q{q}"))
    for j in range(draw(st.integers(2, 7))):
        count = draw(st.integers(1, 3))
        wls.append(wl(f"w{j}", f"q{draw(st.integers(0, n - 1))}", draw(st.integers(1, 4)), draw(st.integers(0, 4)),
                      draw(st.sampled_from(tuple(PRIOS))), count=count,
                      min_count=draw(st.one_of(st.none(), st.integers(1, count)))))
    return model(queues, wls)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(m=states(), data=st.data())
def test_what_the_bound_refuses_is_refused_by_deciding_again(m, data):
    decided = {d.key: d for d in decide_ordered(Session(m))}
    pending = sorted(k for k, d in decided.items() if not d.admitted)
    if not pending:
        return
    key = data.draw(st.sampled_from(pending))
    w = next(x for x in m.workloads if x.key == key)
    b = Bound.of(m, w)
    for q in m.cluster_queues:
        rq = q.resource_groups[0].flavors[0].resources[0]
        for field in ("nominal", "borrowing_limit"):
            old = getattr(rq, field)
            if old is None:
                continue
            entry = ("cq", q.name, "f", "cpu", field) if q.resource_groups[0].flavors[0].flavor == "f" else None
            least = b.least(entry, old) if entry is not None else None
            if least is None or least == old:
                continue
            tried = 50 * CPU if least == IMPOSSIBLE else least - 1  # refused: the largest refused value
            assert not admitted(with_quota(m, q.name, field, tried), key), (q.name, field, least, b.need())
    for name, value in PRIOS.items():
        if not b.necessary(priority=value):
            assert not admitted(with_priority(m, key, name), key), (name, b.need(value))


# --- the search `why` makes ------------------------------------------------------------------------

def _deep_queue_text() -> str:
    out = ["priority low = 10", "priority mid = 100 default", "priority high = 1000",
           'flavor f { node_labels = { model = "f" } }', "namespace ns { }", "cohort c { }"]
    for q in ("a", "d"):
        out += [f"cluster_queue {q} {{", "  cohort = c", "  resources cpu {", "    flavor f { cpu = 2 borrow 2 }",
                "  }", "}", f"local_queue ns/{q} -> {q}"]
    for q, n in (("a", 6), ("d", 6)):
        for i in range(n):
            out += [f"workload ns/{q}{i} {{", f"  queue = {q}", "  priority = high",
                    f'  created = "2026-11-20T09:{i:02d}:00Z"', "  pod_group main {", "    count = 1",
                    "    requests = { cpu = 1 }", "  }", "}"]
    out += ["workload ns/w {", "  queue = a", "  priority = low", '  created = "2026-11-20T09:30:00Z"',
            "  pod_group main {", "    count = 1", "    requests = { cpu = 1 }", "  }", "}"]
    return "\n".join(out) + "\n"


def test_why_raises_the_own_queues_quota_from_the_bound_and_skips_what_cannot_help(tmp_path):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from test_fixes_proven import check_fixes

    from kadmit import api

    text = _deep_queue_text()
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "c.kad").write_text(text)
    out = api.why("ns/w", [str(tmp_path / "in")])
    r = out.result
    assert r is not None and not r.admitted
    # six workloads ahead of it in a: a reaches nominal + 2 and needs 7, so d's quota, a's borrowing
    # limit and a higher priority cannot help alone; a's nominal from 9 (room whatever d takes) down
    assert r.fixes and all(c.knob.subject == "cluster_queue `a`" and c.knob.field.startswith("`cpu`")
                           for c in r.fixes[0].changes)
    first = r.fixes[0].changes[0]
    assert (first.new, first.minimal) == (9000, True)  # 9, then 8 refused
    # d's quota helps only with a's borrowing limit raised as well (what a can borrow of what d lends)
    assert [sorted((c.knob.subject, c.knob.field) for c in f.changes) for f in r.fixes[1:]] == [
        [("cluster_queue `a`", "`borrow` of `cpu` in flavor `f`"), ("cluster_queue `d`", "`cpu` in flavor `f`")]]
    # 9 and 8; d's and a's raised by what its cohort tree needs, once (a fix was found before: not halved)
    assert r.fixes_checked == 2 + 1
    assert check_fixes(tmp_path, text, "ns/w") == len(r.fixes)
    # no value of d's quota alone: the note says so, by arithmetic, and deciding d's at 1000 agrees
    assert r.fixes_notes == ["a lender's raise was decided at one size, what this workload and the pending workloads "
                             "ahead of it in its cohort tree need, and not searched smaller (fixes were found without "
                             "it): what `d` in `f` lends",
                             "no value of this quota alone can admit it (by arithmetic: what its ClusterQueue can "
                             "reach at most stays short of what it must hold): cluster_queue `d`'s "
                             "`cpu` in f"]
    d_at = text.index("cluster_queue d {")
    big = text[:d_at] + text[d_at:].replace("cpu = 2 borrow 2", "cpu = 1000 borrow 2", 1)
    (tmp_path / "in" / "c.kad").write_text(big)
    assert not {d.key: d.admitted for d in api.admit([str(tmp_path / "in")]).result.decisions}["ns/w"]


# --- StrictFIFO under preemption (`Bound.fifo`) ------------------------------------------------------

def test_strict_fifo_under_preemption_counts_the_higher_priorities_against_what_the_queue_can_reach():
    pre = Preemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
    m = model([cq("a", 2, 2, strict=True, preemption=pre), cq("d", 0, 0, preemption=pre)],
              [wl("big", "a", 5, 0, "high"), wl("same", "a", 3, 1, "mid"), wl("w", "a", 2, 2)])
    b = Bound.of(m, m.workloads[-1])
    assert not b.sound and b.fifo
    assert b.fifo_need() == {"cpu": 7 * CPU}  # big and w; `same` (equal priority) may be evicted behind w
    # a reaches min(nominal + borrowing limit, its nominal + d's) = 2: no number of d's reaches 7
    assert b.least(("cq", "d", "f", "cpu", "nominal"), 0) == IMPOSSIBLE
    assert not admitted(with_quota(m, "d", "nominal", 1000 * CPU), "ns/w")
    assert b.least(("cq", "a", "f", "cpu", "nominal"), 2 * CPU) == 7 * CPU
    assert not admitted(with_quota(m, "a", "nominal", 7 * CPU - 1), "ns/w")
    assert b.necessary(priority=PRIOS["high"]) and not b.necessary(priority=PRIOS["mid"])  # big no longer first


def test_strict_fifo_counts_what_the_other_queues_lend_and_what_the_queue_held_at_the_start():
    pre = Preemption(reclaim_within_cohort="Any")
    d = cq("d", 6, preemption=pre)
    g = d.resource_groups[0]
    rq = g.flavors[0].resources[0].model_copy(update={"lending_limit": 1 * CPU})
    d = d.model_copy(update={"resource_groups": (g.model_copy(update={"flavors": (
        g.flavors[0].model_copy(update={"resources": (rq,)}),)}),)})
    m = model([cq("a", 2, strict=True, preemption=pre), d],
              [wl("held", "a", 2, 0, "high", admitted_to="a"), wl("h", "a", 2, 1, "high"), wl("w", "a", 1, 2)])
    b = Bound.of(m, m.workloads[-1])
    assert b.fifo and b.fifo_need() == {"cpu": 5 * CPU} and b._fifo_cap({}, "cpu") == 3 * CPU  # 2 own + 1 lent
    assert b.least(("cq", "d", "f", "cpu", "nominal"), 6 * CPU) == IMPOSSIBLE  # d lends 1 whatever its nominal
    assert b.least(("cq", "d", "f", "cpu", "lending_limit"), 1 * CPU) == 3 * CPU
    assert not admitted(with_quota(m, "d", "nominal", 100 * CPU), "ns/w")
    assert not admitted(with_quota(m, "d", "lending_limit", 3 * CPU - 1), "ns/w")


def _quota(q: ClusterQueue, field: str, value: int | None) -> ClusterQueue:
    g = q.resource_groups[0]
    rq = g.flavors[0].resources[0].model_copy(update={field: value})
    fq = g.flavors[0].model_copy(update={"resources": (rq,)})
    return q.model_copy(update={"resource_groups": (g.model_copy(update={"flavors": (fq,) + g.flavors[1:]}),)})


POLICIES = (Preemption(), Preemption(within_cluster_queue="LowerPriority"),
            Preemption(within_cluster_queue="LowerOrNewerEqualPriority"), Preemption(reclaim_within_cohort="Any"),
            Preemption(reclaim_within_cohort="LowerPriority", within_cluster_queue="LowerPriority"),
            Preemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
            Preemption(borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority"), reclaim_within_cohort="Any"))


@st.composite
def preempting_states(draw):
    """Cohorts where queues preempt (each its own policies), with lending limits, StrictFIFO queues,
    workloads admitted at the start at every priority (some evicted), partial admission."""
    n = draw(st.integers(1, 3))
    queues = []
    for i in range(n):
        nominal = draw(st.integers(0, 5))
        q = cq(f"q{i}", nominal, draw(st.one_of(st.none(), st.integers(0, 4))),
               cohort=draw(st.sampled_from(("c", "c", "c", None))), strict=draw(st.booleans()) if i else True,
               flavors=draw(st.sampled_from((("f",), ("f",), ("f", "g")))), preemption=draw(st.sampled_from(POLICIES)))
        lend = draw(st.one_of(st.none(), st.integers(0, nominal)))
        queues.append(_quota(q, "lending_limit", None if lend is None else lend * CPU))
    wls = []
    for j in range(draw(st.integers(0, 4))):
        q = draw(st.integers(0, n - 1))
        w = wl(f"adm{j}", f"q{q}", draw(st.integers(1, 2)), draw(st.integers(0, 4)), draw(st.sampled_from(tuple(PRIOS))),
               admitted_to=f"q{q}")
        wls.append(w.model_copy(update={"evicted": draw(st.integers(0, 4)) == 0}))
    for j in range(draw(st.integers(2, 8))):
        count = draw(st.integers(1, 3))
        wls.append(wl(f"w{j}", f"q{draw(st.integers(0, n - 1))}", draw(st.integers(1, 4)), draw(st.integers(0, 4)),
                      draw(st.sampled_from(tuple(PRIOS))), count=count,
                      min_count=draw(st.one_of(st.none(), st.integers(1, count)))))
    return model(queues, wls)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(m=preempting_states(), data=st.data())
def test_what_the_strict_fifo_bound_refuses_under_preemption_is_refused_by_deciding_again(m, data):
    decided = {d.key: d for d in decide_ordered(Session(m))}
    pending = sorted(k for k, d in decided.items() if not d.admitted)  # preempted ones too
    if not pending:
        return
    key = data.draw(st.sampled_from(pending))
    w = next(x for x in m.workloads if x.key == key)
    b = Bound.of(m, w)
    if not b.fifo:
        return
    for q in m.cluster_queues:
        fq = q.resource_groups[0].flavors[0]
        for field in ("nominal", "borrowing_limit", "lending_limit"):
            old = getattr(fq.resources[0], field)
            if old is None or fq.flavor != "f":
                continue
            least = b.least(("cq", q.name, "f", "cpu", field), old)
            if least is None or least == old:
                continue
            tried = 50 * CPU if least == IMPOSSIBLE else least - 1  # refused: the largest refused value
            if field == "lending_limit":
                tried = min(tried, fq.resources[0].nominal)  # above its nominal the input is invalid
                if tried <= old:
                    continue
            assert not admitted(with_quota(m, q.name, field, tried), key), (q.name, field, least, b.fifo_need())
    for name, value in PRIOS.items():
        if not b.necessary(priority=value):
            assert not admitted(with_priority(m, key, name), key), (name, b.fifo_need(value))


def test_an_input_over_its_quota_in_one_flavor_leaves_the_other_flavors_reach():
    # q0 holds 2 cpu in f at the start, over f's 1: w1 at a higher priority goes first and takes g
    m = model([cq("q0", 1, cohort=None, strict=True, flavors=("f", "g"))],
              [wl("adm0", "q0", 2, 0, "low", admitted_to="q0"), wl("w0", "q0", 1, 0, "low"), wl("w1", "q0", 1, 0, "low")])
    assert not admitted(m, "ns/w1")
    b = Bound.of(m, m.workloads[-1])
    assert b.sound and b.fifo and b.necessary(priority=PRIOS["mid"])
    assert admitted(with_priority(m, "ns/w1", "mid"), "ns/w1")


def test_a_workload_admitted_at_the_start_and_preempted_gets_no_strict_fifo_claim():
    # it may stay admitted without ever being its queue's head: nothing ahead of it need go first
    pre = Preemption(within_cluster_queue="LowerPriority")
    m = model([cq("a", 1, cohort=None, strict=True, preemption=pre)],
              [wl("held", "a", 1, 0, "low", admitted_to="a"), wl("h", "a", 1, 1, "high")])
    assert not admitted(m, "ns/held")
    b = Bound.of(m, m.workloads[0])
    assert not b.fifo and "admitted at the start" in b.fifo_why_not and b.necessary({})
