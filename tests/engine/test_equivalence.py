"""The SchedulingEquivalenceHashing gate (engine/admission/equivalence.py): what kadmit's scheduling hash
compares, and what `why` says of a workload moved with an equivalent one (KAD538). The decisions
themselves are the oracle's: tests/oracle/features/feature-gate-scheduling-equivalence-hashing-on*.yaml."""

from __future__ import annotations

from pathlib import Path

from kadmit import api
from kadmit.engine.admission.equivalence import Equivalence
from kadmit.engine.admission.session import Session
from kadmit.workspace import load

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests/oracle/features/feature-gate-scheduling-equivalence-hashing-on.yaml"

POLICY = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {SchedulingEquivalenceHashing: true}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 8}]}]
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: b}
spec:
  limits: [{type: Container, defaultRequest: {cpu: "2"}}]
"""


def _workload(name: str, namespace: str, resources: str, spec: str = "", priority: int = 0) -> str:
    return f"""---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: q-{name}, namespace: {namespace}}}
spec: {{clusterQueue: cq}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  queueName: q-{name}
  priority: {priority}
  podSets: [{{name: main, count: 1, template: {{spec: {{{spec}containers: [{{name: c, image: i, resources: {resources}}}]}}}}}}]
"""


def test_the_key_takes_the_spec_shape_not_the_namespace(tmp_path) -> None:
    """Namespace and limits standing in for requests: equivalent; a toleration, a priority, a LimitRange's
    default request that makes a container's request differ: not (AdjustResources runs before the hash)."""
    (tmp_path / "in.yaml").write_text(POLICY + "".join([
        _workload("plain", "a", '{requests: {cpu: "2"}}'),
        _workload("limits", "c", '{limits: {cpu: "2"}}'),
        _workload("tolerating", "a", '{requests: {cpu: "2"}}', "tolerations: [{key: x, operator: Exists}], "),
        _workload("urgent", "a", '{requests: {cpu: "2"}}', priority=5),
        _workload("defaulted", "b", '{requests: {memory: "1Gi"}}'),
        _workload("memory", "a", '{requests: {memory: "1Gi"}}'),
    ]))
    session = Session(load([str(tmp_path)]).model)
    eq = Equivalence(session)
    key = {w.name: eq.key(w) for w in session.model.workloads}
    assert eq.on and key["plain"] == key["limits"]
    assert len({key["plain"], key["tolerating"], key["urgent"], key["defaulted"], key["memory"]}) == 5


def test_why_says_which_workload_it_was_moved_with() -> None:
    out = api.why("mine/b", [str(CASE)], fixes=0)
    assert [r.code for r in out.result.reasons] == ["KAD538"]
    assert "set aside with other/a" in out.result.reasons[0].message
    assert not [d for d in out.diagnostics if d.code == "KAD161"]  # modelled: no warning


def test_the_key_takes_ports_affinity_and_spread_as_kueue_serializes_them(tmp_path) -> None:
    """manifests/specshape.py: a port's protocol defaults to TCP, `hostPort: 0` is none and an empty list is none
    (the oracle moves them with the plain one); another port, preferred node affinity, a topologySpreadConstraint,
    the template's own `priority: 0`, an empty `affinity: {}` (a pointer Go writes `{}`): not equivalent (the oracle
    cases ...-ports-spread-affinity, ...-job-spec-shape, ...-port-zero-values and ...-empty-object-kept)."""
    cpu = '{requests: {cpu: "2"}}'
    (tmp_path / "in.yaml").write_text(POLICY + "".join([
        _workload("plain", "a", cpu),
        _workload("tcp", "a", cpu + ", ports: [{containerPort: 80, protocol: TCP}]"),
        _workload("port", "a", cpu + ", ports: [{containerPort: 80}]"),
        _workload("other-port", "a", cpu + ", ports: [{containerPort: 81}]"),
        _workload("host-port-zero", "a", cpu + ", ports: [{containerPort: 80, hostPort: 0}]"),
        _workload("empty", "a", cpu, "topologySpreadConstraints: [], tolerations: [], "),
        _workload("empty-affinity", "a", cpu, "affinity: {}, "),
        _workload("spread", "a", cpu, "topologySpreadConstraints: [{maxSkew: 1, topologyKey: k, "
                                      "whenUnsatisfiable: DoNotSchedule}], "),
        _workload("preferred", "a", cpu, "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
                                         "[{weight: 1, preference: {matchExpressions: [{key: z, operator: Exists}]}}]}}, "),
        _workload("zero", "a", cpu, "priority: 0, "),
    ]))
    session = Session(load([str(tmp_path)]).model)
    eq = Equivalence(session)
    key = {w.name: eq.key(w) for w in session.model.workloads}
    assert key["plain"] == key["empty"] and key["tcp"] == key["port"] == key["host-port-zero"]
    assert len({key[n] for n in ("plain", "port", "other-port", "spread", "preferred", "zero", "empty-affinity")}) == 7


def test_the_key_takes_the_spec_min_count_not_the_one_reclaim_lowered(tmp_path) -> None:
    """after_reclaim lowers minCount 3 to the 2 pods left; Kueue hashes the spec's minCount (and the count after
    reclaim): a Workload of 2 pods with minCount 2 is not equivalent to it."""
    def wl(name: str, count: int, min_count: int, status: str = "") -> str:
        return f"""---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: a}}
spec:
  queueName: q
  podSets: [{{name: main, count: {count}, minCount: {min_count}, template: {{spec: {{containers: [{{name: c, image: i}}]}}}}}}]
{status}"""
    (tmp_path / "in.yaml").write_text(POLICY + """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: a}
spec: {clusterQueue: cq}
""" + wl("reclaimed", 4, 3, "status: {reclaimablePods: [{name: main, count: 2}]}\n") + wl("two", 2, 2))
    session = Session(load([str(tmp_path)]).model)
    eq = Equivalence(session)
    got = {w.name: w for w in session.model.workloads}
    assert [ps.min_count for ps in got["reclaimed"].pod_sets] == [2]  # the model's, lowered
    assert eq.key(got["reclaimed"]) != eq.key(got["two"])
    assert eq.key(got["reclaimed"])[1][-3] == 3  # (..., count, minCount, topology request, its index labels)


# The topologyRequest index labels Kueue v0.17.0 gives each pod set (podIndexLabel, subGroupIndexLabel, subGroupCount;
# () for none), as the oracle's shapeJSON shows them (`tools/kueue-oracle/kueue-oracle admit -v 5 --feature-gates
# SchedulingEquivalenceHashing=true tests/oracle/jobs/FILE`, "Computed scheduling hash")
_JOB, _JOBSET = "batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index"
_POD, _KF = "kueue.x-k8s.io/pod-group-pod-index", "training.kubeflow.org/replica-index"
KUEUE_INDEX = {
    "batch/partial": [(_JOB, None, None)],
    "batch/gang": [(_JOB, _JOBSET, 4), (_JOB, _JOBSET, 1)], "batch/sliced": [(_JOB, _JOBSET, 2), (_JOB, _JOBSET, 1)],
    "serve/llm:group-0": [(), ("leaderworkerset.sigs.k8s.io/worker-index", None, None)],
    "serve/no-leader": [("leaderworkerset.sigs.k8s.io/worker-index", None, None)],
    "serve/cache": [("apps.kubernetes.io/pod-index", None, None)], "serve/api:replica-0": [(_POD, None, None)],
    "pods/single": [(_POD, None, None)], "pods/spark": [(_POD, None, None), (_POD, None, None)],
    "ml/ddp": [(_KF, None, None), (_KF, None, None)], "ml/mpi": [(_KF, None, None), (_KF, None, None)],
    "ml/finetune": [(_JOB, _JOBSET, 1)], "ml/tune": [(), (), ()], "ml/tpu": [(), ()],
    "aw/wrapped": [(_JOB, None, None), ()],  # an inferred Job's, a declared pod set's without annotations
}


def test_each_integrations_index_labels_are_kueues() -> None:
    """`PodSet.index`, which the scheduling hash takes (feature-gate-scheduling-equivalence-hashing-on-topology-index-
    labels*.yaml decide it on the oracle): what Kueue's integrations give, kind by kind (an AppWrapper's from its pod
    sets' annotations, which the AppWrapper webhook infers: -on-appwrapper-index-labels.yaml decides them)."""
    files = [str(ROOT / "tests/oracle/jobs" / f)
             for f in ("batch.yaml", "sets.yaml", "pods.yaml", "ray-and-training.yaml", "appwrapper.yaml")]
    got = {w.key: [None if ps.index is None else tuple(ps.index) for ps in w.pod_sets]
           for f in files for w in load([f]).model.workloads}
    assert {k: got.get(k) for k in KUEUE_INDEX} == KUEUE_INDEX
