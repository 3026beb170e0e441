"""The scheduler configuration: one at most, known strategies, a list Kueue accepts, fair sharing on."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics, Severity
from kadmit.model import (Admission, FAIR_SHARING_STRATEGIES, Model, PodSetAssignment, Preemption,
                          ResourceTransformation, SchedulerConfig, Workload)
from kadmit.validate import validate

from .builders import LocalQueue, base_objects, cq, model, pod_set, span, workload

FINAL, INITIAL = FAIR_SHARING_STRATEGIES


def cfg(on: bool = True, *names: str, line: int = 1) -> SchedulerConfig:
    """A configuration whose fields are located on `line` (strategy i at column 10 + i)."""
    spans = {"fair_sharing": span(line, 3), "preemption_strategies": span(line, 9),
             **{f"preemption_strategies.{i}": span(line, 10 + i) for i in range(len(names))}}
    return SchedulerConfig(fair_sharing=on, preemption_strategies=names, span=span(line),
                           spans={"items": spans})


def run(*configs: SchedulerConfig) -> Diagnostics:
    d = Diagnostics()
    validate(model(*base_objects(), *configs), d)
    return d


# (case, objects, code, message fragment): the shape of test_checks.CASES, so test_codes counts them.
CASES = [
    ("unknown strategy", [*base_objects(), cfg(True, FINAL, "LessThanFinalShare")], "KAD292",
     "`LessThanFinalShare`"),
    ("duplicate scheduler configuration", [*base_objects(), cfg(line=1), cfg(line=5)], "KAD293",
     "more than once"),
    ("strategies while fair sharing is off", [*base_objects(), cfg(False, INITIAL)], "KAD294",
     "fair sharing is off"),
    ("strategies in an order Kueue rejects", [*base_objects(), cfg(True, INITIAL, FINAL)], "KAD295",
     f"[{INITIAL}, {FINAL}]"),
    ("a strategy listed twice", [*base_objects(), cfg(True, FINAL, FINAL)], "KAD295", FINAL),
    ("fair sharing and a queue in no cohort preempting within itself",
     [*base_objects(), cfg(True), cq("solo", preemption=Preemption(within_cluster_queue="LowerPriority"))
      .flavor("h100", cpu=1)], "KAD261", "ClusterQueue `solo` is in no cohort"),
    ("a negative request in a cohort (a transformation's negative factor)",
     [*base_objects(), SchedulerConfig(transformations=(ResourceTransformation(
         input="example.com/fpga", strategy="Replace", outputs={"nvidia.com/gpu": -1000}),)),
      workload("neg", "team-a", "training", pod_set("main", 1, cpu=1, **{"example.com/fpga": 1}))],
     "KAD262", "ClusterQueue `team-a` is in cohort `research` and workloads of it ask for a negative amount: "
     "`team-a/neg` (nvidia.com/gpu)"),
]


def test_a_negative_amount_is_reported_only_in_a_cohort() -> None:
    """KAD262: an admitted workload's negative recorded usage counts too; a queue in no cohort is
    not reported (its books are a plain sum, which kadmit models)."""
    def codes(cohort_name):
        d = Diagnostics()
        usage = PodSetAssignment(name="main", count=1, flavors={"cpu": "h100"}, usage={"cpu": -1000})
        validate(model(*base_objects()[:1], cq("solo", cohort_name).flavor("h100", cpu=8), *base_objects()[2:4],
                       LocalQueue(namespace="team-a", name="solo", cluster_queue="solo"), workload("neg", "team-a", "solo", pod_set("main", 1, cpu=1),
                                                      admission=Admission(cluster_queue="solo", pod_sets=(usage,)))),
                 d)
        return [x.code for x in d if x.code == "KAD262"]
    assert codes("research") == ["KAD262"]
    assert codes(None) == []


def test_a_queue_in_no_cohort_is_reported_only_under_fair_sharing_and_when_it_may_preempt():
    """KAD261 needs all three: fair sharing on, no cohort, withinClusterQueue other than Never."""
    def codes(*objects):
        d = Diagnostics()
        validate(model(*base_objects(), *objects), d)
        return [x.code for x in d if x.code == "KAD261"]
    within = Preemption(within_cluster_queue="LowerPriority")
    assert codes(cfg(True), cq("solo", preemption=within).flavor("h100", cpu=1)) == ["KAD261"]
    assert codes(cfg(False), cq("solo", preemption=within).flavor("h100", cpu=1)) == []
    assert codes(cfg(True), cq("solo").flavor("h100", cpu=1)) == []  # withinClusterQueue Never
    assert codes(cfg(True), cq("solo", "own", preemption=within).flavor("h100", cpu=1)) == []


@pytest.mark.parametrize("objects, code, fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check(objects, code, fragment) -> None:
    d = Diagnostics()
    validate(model(*objects), d)
    assert [x.code for x in d] == [code], [(x.code, x.message) for x in d]
    assert fragment in d.items[0].message


@pytest.mark.parametrize("names", [(), (FINAL,), (INITIAL,), (FINAL, INITIAL)])
def test_every_list_kueue_accepts_is_clean(names) -> None:
    assert list(run(cfg(True, *names))) == []


def test_no_configuration_and_an_empty_one_are_clean() -> None:
    assert list(run()) == [] and list(run(cfg(False))) == []


def test_unknown_names_are_located_and_suggested_in_the_spelling_used() -> None:
    d = run(cfg(True, "less_than_initail_share", "LessThanInitalShare", "bogus"))
    assert [(x.code, x.span.column) for x in d] == [("KAD292", 10), ("KAD292", 11), ("KAD292", 12)]
    kad, kueue, neither = d.items
    assert kad.help == "did you mean `less_than_initial_share`?"
    assert kueue.help == "did you mean `LessThanInitialShare`?"
    assert neither.help == "use `less_than_or_equal_to_final_share` or `less_than_initial_share`"
    assert all(x.severity is Severity.ERROR for x in d)


def test_unknown_names_do_not_also_count_as_a_bad_order() -> None:
    assert [x.code for x in run(cfg(True, "bogus", FINAL))] == ["KAD292"]


def test_strategies_while_off_is_a_warning_at_the_list() -> None:
    (w,) = run(cfg(False, FINAL, INITIAL, line=3))
    assert w.code == "KAD294" and w.severity is Severity.WARNING
    assert (w.span.line, w.span.column) == (3, 9)


def test_duplicate_points_at_the_first() -> None:
    d = run(cfg(line=2), cfg(line=7), cfg(line=9))
    assert [(x.code, x.span.line) for x in d] == [("KAD293", 7), ("KAD293", 9)]
    assert all(x.labels[0].span.line == 2 and x.labels[0].message == "first given here" for x in d)


def test_each_configuration_is_checked() -> None:
    d = run(cfg(line=1), cfg(False, "bogus", line=4))
    # fair sharing off: the strategies are ignored (KAD294), their names unchecked (Kueue never reads them:
    # a v1beta1 section without `enable: true` is dropped by its conversion, tests/oracle/test_config_decoding)
    assert sorted(x.code for x in d) == ["KAD293", "KAD294"]
    d = run(cfg(line=1), cfg(True, "bogus", line=4))
    assert sorted(x.code for x in d) == ["KAD292", "KAD293"]


def test_strategies_kueue_applies() -> None:
    assert SchedulerConfig().strategies == ()
    assert SchedulerConfig(preemption_strategies=(FINAL,)).strategies == ()
    assert SchedulerConfig(fair_sharing=True).strategies == (FINAL, INITIAL)
    assert SchedulerConfig(fair_sharing=True, preemption_strategies=(INITIAL,)).strategies == (INITIAL,)
    assert SchedulerConfig(fair_sharing=True, preemption_strategies=("bogus", INITIAL)).strategies == (INITIAL,)
    assert SchedulerConfig(fair_sharing=True, preemption_strategies=("bogus",)).strategies == (FINAL, INITIAL)


def test_new_fields_default_so_existing_models_stay_equal() -> None:
    assert Model() == Model(scheduler_configs=()) and Model().config is None
    wl = Workload(namespace="a", name="b", queue="q", admission=Admission(cluster_queue="cq"))
    assert wl.evicted is False and wl.admission.admitted_at is None
    assert wl == wl.model_copy(update={"evicted": False})
    assert wl != wl.model_copy(update={"evicted": True})
    first, second = cfg(True, FINAL, line=1), cfg(False, line=2)
    assert Model(scheduler_configs=(first, second)).config is first
    assert cfg(True, FINAL, line=1) == cfg(True, FINAL, line=9)  # spans don't count
    assert hash(cfg(True, FINAL, line=1)) == hash(cfg(True, FINAL, line=9))
