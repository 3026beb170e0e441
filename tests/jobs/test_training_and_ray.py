"""Kubeflow training jobs and Ray's kinds become the Workloads Kueue makes of them."""

from __future__ import annotations

import pytest

from .helpers import SETUP, model_of

ENABLE = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [kubeflow.org/pytorchjob, kubeflow.org/tfjob, kubeflow.org/mpijob, kubeflow.org/jaxjob,
               ray.io/rayjob, ray.io/raycluster]
"""


def replica(kind: str, replicas: int, cpu: str) -> str:
    return f"""\
    {kind}:
      replicas: {replicas}
      template:
        spec:
          containers: [{{name: c, image: x, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def training(kind: str, api: str, field: str, *replicas: str, extra: str = "") -> str:
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: t\n  labels: {{kueue.x-k8s.io/queue-name: user-queue}}\n"
            f"spec:\n{extra}  {field}:\n" + "".join(replicas))


@pytest.mark.parametrize("kind, api, field, written, expected", [
    ("PyTorchJob", "kubeflow.org/v1", "pytorchReplicaSpecs", [("Worker", 3, "1"), ("Master", 1, "2")],
     [("master", 1, 2000), ("worker", 3, 1000)]),
    ("TFJob", "kubeflow.org/v1", "tfReplicaSpecs", [("Worker", 2, "1"), ("PS", 1, "1"), ("Chief", 1, "1")],
     [("chief", 1, 1000), ("ps", 1, 1000), ("worker", 2, 1000)]),
    ("MPIJob", "kubeflow.org/v2beta1", "mpiReplicaSpecs", [("Worker", 2, "4"), ("Launcher", 1, "1")],
     [("launcher", 1, 1000), ("worker", 2, 4000)]),
    ("JAXJob", "kubeflow.org/v1", "jaxReplicaSpecs", [("Worker", 4, "1")], [("worker", 4, 1000)]),
])
def test_replica_types_become_pod_sets_in_kueues_order(tmp_path, kind, api, field, written, expected):
    text = training(kind, api, field, *(replica(k, n, c) for k, n, c in written))
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, t__yaml=text).workloads
    assert [(p.name, p.count, p.requests["cpu"]) for p in wl.pod_sets] == expected
    assert wl.origin.kind == kind


def test_pytorchjob_needs_its_integration_enabled(tmp_path):
    text = training("PyTorchJob", "kubeflow.org/v1", "pytorchReplicaSpecs", replica("Worker", 1, "1"))
    m = model_of(tmp_path, setup__yaml=SETUP, t__yaml=text)
    assert m.workloads == () and "kubeflow.org/pytorchjob" in m.skipped[0].reason
    assert "installs" in m.skipped[0].reason


def test_scheduling_policy_priority_class_comes_first(tmp_path):
    pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: p}\nvalue: 3\n"
    text = training("PyTorchJob", "kubeflow.org/v1", "pytorchReplicaSpecs", replica("Worker", 1, "1"),
                    extra="  runPolicy: {schedulingPolicy: {priorityClass: p}}\n")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, pc__yaml=pc, t__yaml=text).workloads
    assert (wl.priority_class, wl.priority_class_kind) == ("p", "pod")


RAY_CLUSTER = """\
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers: [{name: head, image: ray, resources: {requests: {cpu: "1", memory: 2Gi}}}]
    workerGroupSpecs:
    - groupName: Small-Group
      replicas: 2
      minReplicas: 1
      maxReplicas: 5
      numOfHosts: 2
      template:
        spec:
          containers: [{name: w, image: ray, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""


def test_rayjob_has_head_workers_and_the_default_submitter(tmp_path):
    text = ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"
            "spec:\n  entrypoint: python x.py\n  rayClusterSpec:\n" + RAY_CLUSTER.replace("    ", "    ", 1))
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, r__yaml=text).workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("head", 1), ("small-group", 4), ("submitter", 1)]
    assert wl.pod_sets[2].requests == {"cpu": 500, "memory": 200 * 2**20 * 1000}


def test_raycluster_autoscaling_adds_the_autoscaler_to_the_head(tmp_path):
    text = ("apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: c\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"
            "spec:\n  enableInTreeAutoscaling: true\n" + RAY_CLUSTER.replace("\n    ", "\n  ").replace("    headGroupSpec", "  headGroupSpec"))
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, c__yaml=text).workloads
    head = wl.pod_sets[0]
    assert head.requests["cpu"] == 1500 and "autoscaling" in wl.pod_sets[1].origin


def test_rayjob_on_an_existing_cluster_is_not_managed(tmp_path):
    text = ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"
            "spec:\n  entrypoint: x\n  clusterSelector: {ray.io/cluster: c}\n")
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, r__yaml=text)
    assert m.workloads == () and "clusterSelector" in m.skipped[0].reason
