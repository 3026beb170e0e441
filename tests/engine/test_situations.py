"""Nominations and reasons shared among workloads in the same situation (`Session._situation`) are
exactly those each workload gets on its own: decisions and reasons equal with sharing turned off."""

from hypothesis import HealthCheck, given, settings

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.admission.situations import Situations
from kadmit.engine.decide import decision_reasons
from reference.strategies import admission_models
from reference.test_preemption import cohort_models, preempting_models


class Alone(Situations):
    """Every workload in its own situation."""

    def key(self, wl, cq, preemption):
        return None


class Unshared(Session):
    """A session that shares nothing among workloads."""

    def __init__(self, model):
        super().__init__(model)
        self.situations = Alone(self)


def run(session: Session) -> dict:
    out = {}
    for d in decide_ordered(session):
        a = d.assignment
        out[d.key] = (d.admitted, d.cluster_queue, d.cycle, d.waiting_behind, d.preempted_by,
                      tuple((v.key, v.reason) for v in d.preempted),
                      (a.counts, a.flavors, a.usage, a.mode, a.height) if a else None,
                      [] if d.admitted else decision_reasons(session, d))
    return out


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(preempting_models())
def test_preempting_models_share_situations_faithfully(model):
    assert run(Session(model)) == run(Unshared(model))


@SETTINGS
@given(cohort_models())
def test_cohort_models_share_situations_faithfully(model):
    assert run(Session(model)) == run(Unshared(model))


@SETTINGS
@given(admission_models(max_workloads=12))
def test_admission_models_share_situations_faithfully(model):
    assert run(Session(model)) == run(Unshared(model))
