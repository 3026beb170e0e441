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


def test_the_jobs_workloads_were_made_of_are_not_policy(tmp_path):
    """Compiling reads no Job (they are Workloads by then), so the re-decisions of a state of 2,000
    Jobs don't hash them all: a model with its Jobs and one without share a policy key, and decide alike."""
    from kadmit import workspace
    (tmp_path / "state.yaml").write_text(ONE_JOB)
    model = workspace.load([str(tmp_path)]).model
    assert model.jobs and model.workloads
    bare = model.model_copy(update={"jobs": (), "skipped": ()})
    cache = ShapeCache()
    assert cache.policy_key(Session(model).model) == cache.policy_key(Session(bare).model)
    assert view(decide_ordered(Session(model, cache=cache))) == view(decide_ordered(Session(bare, cache=cache)))


ONE_JOB = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 10}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {parallelism: 2, template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}}
"""
