"""With preemption, the engine's `ordered` decisions equal the reference replay of Kueue v0.20
(docs/PREEMPTION.md): who is admitted, with which flavors, whom each preemptor evicted and why, and
who was evicted by whom."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.model import SchedulerConfig
from kadmit.effective import effective
from kadmit.reference import decide as reference_decide
from kadmit.reference.preemption import fair_settings
from kadmit.reference.scheduler import Scheduler
from reference.strategies import admission_models
from reference.test_preemption import cohort_models, fungibility_models, preempting_models


def engine_view(model, loops=None):
    out = {}
    for d in decide_ordered(Session(model), loops=loops):
        a = d.assignment if d.admitted else None
        out[d.key] = (d.admitted, d.cluster_queue if d.admitted else None,
                      tuple(sorted((ps, a.counts[ps], tuple(sorted(fl.items())))
                                   for ps, fl in a.flavors.items())) if a else (),
                      bool(a and a.borrowing),
                      tuple((v.key, v.reason) for v in d.preempted) if d.admitted else (),
                      d.preempted_by if not d.admitted else None,
                      (d.preemption_reason or "") if not d.admitted else "")
    return out


def reference_view(model):
    return {d.workload: (d.admitted, d.cluster_queue if d.admitted else None,
                         tuple(sorted((p.name, p.count, tuple(sorted(p.flavors.items()))) for p in d.pod_sets)),
                         d.borrowing,
                         tuple((t.key, t.reason) for t in d.preempted) if d.admitted else (),
                         d.preempted_by if not d.admitted else None,
                         d.preemption_reason if not d.admitted else "")
            for d in reference_decide(model, preemption=True)}


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(preempting_models())
def test_preempting_models_decide_as_the_reference(model):
    assert engine_view(model) == reference_view(model)


@SETTINGS
@given(cohort_models())
def test_cohort_models_decide_as_the_reference(model):
    assert_same_or_same_loop(model)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(admission_models())
def test_admission_models_decide_as_the_reference_with_preemption_on(model):
    assert engine_view(model) == reference_view(model)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fungibility_models())
def test_flavor_fungibility_under_borrowing_and_preemption_decides_as_the_reference(model):
    # whenCanBorrow x whenCanPreempt x preference with both flavors under pressure: the flavor
    # that stops the search is taken (dfab7a5), a flavor gone past is ranked by the preference
    assert_same_or_same_loop(model)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fungibility_models(), st.sampled_from([(), ("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",)]))
def test_flavor_fungibility_under_fair_sharing_decides_as_the_reference(model, strategies):
    assert_same_or_same_loop(with_fair_sharing(model, strategies))


def with_fair_sharing(model, strategies=()):
    return model.model_copy(update={"scheduler_configs": (
        SchedulerConfig(fair_sharing=True, preemption_strategies=strategies),)})


@SETTINGS
@given(cohort_models(), st.sampled_from([(), ("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",)]))
def test_fair_sharing_decides_as_the_reference(model, strategies):
    model = with_fair_sharing(model, strategies)
    assert_same_or_same_loop(model)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preempting_models())
def test_fair_sharing_on_preempting_models_decides_as_the_reference(model):
    model = with_fair_sharing(model)
    assert_same_or_same_loop(model)


def assert_same_or_same_loop(model):
    """The engine and the reference decide alike; where the engine stops a preemption loop (Kueue's
    rules evict the same workloads forever), the reference, which has no loop detection, must be
    cycling until its bound, and every other workload decides alike."""
    loops = []
    engine = engine_view(model, loops)
    reference = reference_view(model)
    if not loops:
        assert engine == reference
        return
    looping = {w for loop in loops for w in loop.workloads}
    # the reference lists a victim once per preemptor however often it evicted it (dffdf7d), so a loop shows
    # as a run that never settles: it stops only at its bound on cycles
    effective_model = effective(model)
    replay = Scheduler(effective_model, fair_settings(effective_model, None), preemption=True)
    replay.run()
    assert not replay.settled, (loops, reference)
    assert ({k: v for k, v in engine.items() if k not in looping}
            == {k: v for k, v in reference.items() if k not in looping})
