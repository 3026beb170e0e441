"""Sessions over models that differ only in quota numbers share compiled shapes and solver answers
(`ShapeCache.policy_key` leaves the numbers out: a question pins them), as why's re-decisions of a
quota edit do; each decides exactly as a session of its own."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session, ShapeCache
from test_preemption_props import MODELS, view


def _renumbered(model, draw):
    """The model with every quota number of its cluster queues moved by a drawn amount (declared
    quotas stay declared; limits stay present or absent)."""
    def move(q):
        def shift(v):
            return None if v is None else max(0, v + draw(st.integers(-2, 3)) * 1000)
        return q.model_copy(update={"nominal": shift(q.nominal), "borrowing_limit": shift(q.borrowing_limit),
                                    "lending_limit": shift(q.lending_limit)})
    cqs = tuple(cq.model_copy(update={"resource_groups": tuple(g.model_copy(update={"flavors": tuple(
        fq.model_copy(update={"resources": tuple(map(move, fq.resources))}) for fq in g.flavors)})
        for g in cq.resource_groups)}) for cq in model.cluster_queues)
    return model.model_copy(update={"cluster_queues": cqs})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODELS, st.data())
def test_quota_variants_share_shapes_and_decide_as_alone(model, data):
    cache = ShapeCache()
    variants = [model] + [_renumbered(model, data.draw) for _ in range(3)]
    for m in variants:
        shared = Session(m, cache=cache)
        assert view(decide_ordered(shared)) == view(decide_ordered(Session(m)))
    keys = {cache.policy_key(Session(m).model) for m in variants}
    assert len(keys) == 1  # the numbers are not part of what compiling reads
