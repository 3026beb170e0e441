"""Sessions over models that differ only in quota numbers share compiled shapes and solver answers
(`ShapeCache.policy_key` leaves the numbers out: a question pins them), as why's re-decisions of a
quota edit do; each decides exactly as a session of its own."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.admission.shapes import ShapeCache
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
spec: {parallelism: 2, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}}
"""


def _one_queue_edited(model, draw):
    """The model with one drawn cluster queue changed in its structure: stopped, out of its cohort,
    a flavor left out of a group, a resource it declares no longer covered, or its namespace
    selector gone; or a flavor tainted (what every queue's shapes read)."""
    cqs = list(model.cluster_queues)
    if not cqs:
        return model
    i = draw(st.integers(0, len(cqs) - 1))
    cq = cqs[i]
    how = draw(st.sampled_from(["stop", "cohort", "flavor", "resource", "selector", "taint"]))
    if how == "stop":
        cqs[i] = cq.model_copy(update={"stop_policy": "Hold"})
    elif how == "cohort":
        cqs[i] = cq.model_copy(update={"cohort": None})
    elif how == "selector":
        cqs[i] = cq.model_copy(update={"namespace_selector": None})
    elif how in ("flavor", "resource") and cq.resource_groups:
        g = cq.resource_groups[0]
        if how == "flavor" and len(g.flavors) > 1:
            g = g.model_copy(update={"flavors": g.flavors[:-1]})
        elif how == "resource" and g.flavors and g.flavors[0].resources:
            gone = g.flavors[0].resources[-1].resource
            g = g.model_copy(update={"covered_resources": tuple(r for r in g.covered_resources if r != gone),
                                     "flavors": tuple(fq.model_copy(update={"resources": tuple(
                                         q for q in fq.resources if q.resource != gone)}) for fq in g.flavors)})
        cqs[i] = cq.model_copy(update={"resource_groups": (g, *cq.resource_groups[1:])})
    elif how == "taint" and model.flavors:
        from kadmit.model import Taint
        fl = model.flavors[0]
        tainted = fl.model_copy(update={"node_taints": (*fl.node_taints, Taint(key="k", value="v", effect="NoSchedule"))})
        return model.model_copy(update={"flavors": (tainted, *model.flavors[1:])})
    return model.model_copy(update={"cluster_queues": tuple(cqs)})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODELS, st.data())
def test_variants_of_one_queue_share_the_others_shapes_and_decide_as_alone(model, data):
    """Shapes are keyed by the policy without its queues (`ShapeCache.queues_key`) and the queue's
    own structure: sessions over models that differ in one queue's structure, or in a flavor,
    share one cache and decide as each alone."""
    cache = ShapeCache()
    variants = [model] + [_one_queue_edited(model, data.draw) for _ in range(3)]
    for m in variants:
        assert view(decide_ordered(Session(m, cache=cache))) == view(decide_ordered(Session(m)))


def test_an_edit_to_one_queue_compiles_only_its_shapes(tmp_path):
    """Deciding again after one queue's structure changed loads no shape of the other queue."""
    from kadmit import workspace
    (tmp_path / "state.yaml").write_text(TWO_QUEUES)
    model = workspace.load([str(tmp_path)]).model
    cache = ShapeCache()
    decide_ordered(Session(model, cache=cache))
    before = len(cache.shapes)
    assert before == 2
    b = next(cq for cq in model.cluster_queues if cq.name == "b")
    g = b.resource_groups[0]
    # a second flavor (the same resource and numbers: the solver's units stay as they were)
    wider = g.model_copy(update={"flavors": (*g.flavors, g.flavors[0].model_copy(update={"flavor": "f"}))})
    edited = model.model_copy(update={"cluster_queues": tuple(
        cq.model_copy(update={"resource_groups": (wider,)}) if cq.name == "b" else cq for cq in model.cluster_queues)})
    loaded = []
    session = Session(edited, cache=cache)
    real = session.load
    session.load = lambda prob, solver: loaded.append(prob.cluster_queue.name) or real(prob, solver)
    assert view(decide_ordered(session)) == view(decide_ordered(Session(edited)))
    assert loaded == ["b"]  # queue a's shape came from the cache


TWO_QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: g}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: a}
spec:
  cohort: c
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: b}
spec:
  cohort: c
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: g, resources: [{name: cpu, nominalQuota: 2}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: qa, namespace: default}
spec: {clusterQueue: a}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: qb, namespace: default}
spec: {clusterQueue: b}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: wa, namespace: default}
spec:
  queueName: qa
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: wb, namespace: default}
spec:
  queueName: qb
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
"""


def _rules(model, draw):
    """A drawn subset of rules that read what a queue's shape with rules holds beyond its structure:
    the queue's name and cohort, and the workload itself (its priority and requests)."""
    from kadmit.model import Binary, Literal_, Ref, Rule
    cq = model.cluster_queues[0]

    def cmp(op, path, kind, value):
        return Binary(op=op, left=Ref(path=path), right=Literal_(kind=kind, value=value))

    rules = [
        Rule(name="first-queue-low-only", kind="forbid",
             expr=Binary(op="and", left=cmp("==", ("cluster_queue",), "string", cq.name),
                         right=cmp(">=", ("workload", "priority"), "int", 2))),
        Rule(name="small-in-cohort", kind="forbid",
             expr=Binary(op="and", left=cmp("==", ("cohort",), "string", cq.cohort or "root"),
                         right=cmp(">", ("pod_group", "requests", "cpu"), "int", 3))),
        Rule(name="not-on-f", kind="forbid", expr=cmp("==", ("flavor",), "name", "f")),
    ]
    return tuple(r for r in rules if draw(st.booleans()))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MODELS, st.data())
def test_with_rules_variants_of_one_queue_share_the_others_shapes_and_decide_as_alone(model, data):
    """With user rules every workload is its own shape, keyed with its queue's structure, name and
    cohort and by the policy without its queues (rules included): sessions over models that differ
    in one queue's structure (its cohort too), or in a flavor, share one cache and decide as each alone."""
    model = model.model_copy(update={"rules": _rules(model, data.draw)})
    cache = ShapeCache()
    variants = [model] + [_one_queue_edited(model, data.draw) for _ in range(3)]
    for m in variants:
        assert view(decide_ordered(Session(m, cache=cache))) == view(decide_ordered(Session(m)))


def test_with_rules_an_edit_to_one_queue_compiles_only_its_workloads(tmp_path):
    """With a rule, each workload is its own shape: deciding again after queue b's structure changed
    loads b's workload alone (queue a's came from the cache); a rule reading the queue's cohort sees
    a queue moved out of it (its workloads are compiled again)."""
    from kadmit import workspace
    from kadmit.model import Binary, Literal_, Ref, Rule
    (tmp_path / "state.yaml").write_text(TWO_QUEUES)
    rule = Rule(name="not-in-c", kind="forbid", expr=Binary(op="==", left=Ref(path=("cohort",)),
                                                             right=Literal_(kind="string", value="c")))
    model = workspace.load([str(tmp_path)]).model.model_copy(update={"rules": (rule,)})
    cache = ShapeCache()
    assert not any(d.admitted for d in decide_ordered(Session(model, cache=cache)))
    assert len(cache.shapes) == 2
    b = next(cq for cq in model.cluster_queues if cq.name == "b")
    g = b.resource_groups[0]
    wider = g.model_copy(update={"flavors": (*g.flavors, g.flavors[0].model_copy(update={"flavor": "f"}))})
    for edit, admitted in (({"resource_groups": (wider,)}, []), ({"cohort": None}, ["default/wb"])):
        edited = model.model_copy(update={"cluster_queues": tuple(
            cq.model_copy(update=edit) if cq.name == "b" else cq for cq in model.cluster_queues)})
        loaded = []
        session = Session(edited, cache=cache)
        real = session.load
        session.load = lambda prob, solver: loaded.append(prob.workload.key) or real(prob, solver)
        decisions = decide_ordered(session)
        assert view(decisions) == view(decide_ordered(Session(edited)))
        assert [d.workload.key for d in decisions if d.admitted] == admitted
        assert loaded == ["default/wb"]
