"""The Z3 engine's `ordered` decisions equal the plain-Python reference of Kueue's rules."""

from hypothesis import HealthCheck, given, settings

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.reference import decide as reference_decide
from reference.strategies import admission_models


def engine_view(model):
    out = {}
    for d in decide_ordered(Session(model)):
        a = d.assignment
        out[d.key] = (d.admitted, d.cluster_queue if d.admitted else None,
                      tuple(sorted((ps, a.counts[ps], tuple(sorted(fl.items())))
                                   for ps, fl in a.flavors.items())) if a else (),
                      bool(a and a.borrowing))
    return out


def reference_view(model):
    return {d.workload: (d.admitted, d.cluster_queue if d.admitted else None,
                         tuple(sorted((p.name, p.count, tuple(sorted(p.flavors.items()))) for p in d.pod_sets)),
                         d.borrowing)
            for d in reference_decide(model)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(admission_models())
def test_ordered_decisions_equal_the_reference(model):
    assert engine_view(model) == reference_view(model)
