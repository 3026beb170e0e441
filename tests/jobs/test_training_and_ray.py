"""Kubeflow training jobs and Ray's kinds become the Workloads Kueue makes of them."""

from __future__ import annotations

import pytest

from kadmit.workspace import load

from .helpers import SETUP, model_of, write

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


def test_pytorchjob_is_installed_but_needs_its_integration_in_a_configuration(tmp_path):
    """Kueue v0.17's installed Configuration lists the Kubeflow training jobs; a Configuration of
    the input replaces it, and one that lists no frameworks is Kueue's default, batch/job alone."""
    text = training("PyTorchJob", "kubeflow.org/v1", "pytorchReplicaSpecs", replica("Worker", 1, "1"))
    assert len(model_of(tmp_path, setup__yaml=SETUP, t__yaml=text).workloads) == 1
    cfg = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmanageJobsWithoutQueueName: false\n"
    m = model_of(tmp_path, setup__yaml=SETUP, t__yaml=text, cfg__yaml=cfg)
    assert m.workloads == () and "kubeflow.org/pytorchjob" in m.skipped[0].reason
    assert "the input's Configuration" in m.skipped[0].reason


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
            "spec:\n  entrypoint: python x.py\n  shutdownAfterJobFinishes: true\n  rayClusterSpec:\n" + RAY_CLUSTER)
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, r__yaml=text).workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("head", 1), ("small-group", 4), ("submitter", 1)]
    assert wl.pod_sets[2].requests == {"cpu": 500, "memory": 200 * 2**20 * 1000}


def ray_cluster(extra: str, labels: str = "{kueue.x-k8s.io/queue-name: user-queue}") -> str:
    return (f"apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: c\n  labels: {labels}\n"
            f"spec:\n{extra}" + RAY_CLUSTER.replace("\n    ", "\n  ").replace("    headGroupSpec", "  headGroupSpec"))


def test_kueue_refuses_a_managed_raycluster_that_autoscales(tmp_path):
    """Kueue v0.17's webhook refuses in-tree autoscaling unless the job is elastic (an alpha gate,
    off): the object is never created (KAD170, Kueue's message)."""
    ws = load(write(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, c__yaml=ray_cluster("  enableInTreeAutoscaling: true\n")))
    (d,) = [d for d in ws.diagnostics if d.code == "KAD170"]
    assert d.message == ("Kueue's webhook refuses RayCluster `c`: spec.enableInTreeAutoscaling: Invalid value: true: "
                         "a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices feature "
                         "gate is on and the job is an elastic job")
    assert (d.span.line, d.span.column) == (7, 28)
    assert ws.model.workloads == () and "Kueue's webhook refuses it" in ws.model.skipped[0].reason


def test_kueue_checks_a_ray_cluster_only_when_it_manages_it(tmp_path):
    ws = load(write(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE,
                    c__yaml=ray_cluster("  enableInTreeAutoscaling: true\n", labels="{}")))
    assert not [d for d in ws.diagnostics if d.code == "KAD170"]
    assert "queue-name" in ws.model.skipped[0].reason


def test_kueue_refuses_a_rayjob_that_keeps_its_cluster_or_names_two(tmp_path):
    head = "    headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: h, image: r}]}}}\n"
    keeps = ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: keeps\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"
             "spec:\n  entrypoint: x\n  rayClusterSpec:\n" + head)
    both = ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: both\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"
            "spec:\n  entrypoint: x\n  shutdownAfterJobFinishes: true\n  clusterSelector: {ray.io/cluster: c1}\n"
            "  rayClusterSpec:\n" + head)
    ws = load(write(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, keeps__yaml=keeps, both__yaml=both))
    assert sorted(d.message for d in ws.diagnostics if d.code == "KAD170") == [
        "Kueue's webhook refuses RayJob `both`: spec.clusterSelector: Invalid value: {\"ray.io/cluster\":\"c1\"}: "
        "a kueue managed job should not use an existing cluster",
        "Kueue's webhook refuses RayJob `keeps`: spec.shutdownAfterJobFinishes: Invalid value: false: a kueue "
        "managed job should delete the cluster after finishing"]
    assert ws.model.workloads == ()


def test_a_ray_worker_group_without_replicas_has_none(tmp_path):
    """KubeRay's CRD defaults a worker group's `replicas` to 0: Kueue counts 0 pods."""
    text = ray_cluster("").replace("    replicas: 2\n", "")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, c__yaml=text).workloads
    assert [(p.name, p.count) for p in wl.pod_sets] == [("head", 1), ("small-group", 0)]


def test_rayjob_on_an_existing_cluster_is_not_managed(tmp_path):
    text = ("apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n"
            "spec:\n  entrypoint: x\n  clusterSelector: {ray.io/cluster: c}\n")
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, r__yaml=text)
    assert m.workloads == () and "clusterSelector" in m.skipped[0].reason


def test_a_refused_job_is_reported_again_when_the_input_is_read_again_after_edits(tmp_path):
    """Reading the input again for a proof (`edited.with_edits`) reuses the jobs' workloads when no
    job input changed, and reports what the first read reported (KAD170) as reading it anew would."""
    from kadmit.edited import with_edits

    ws = load(write(tmp_path, setup__yaml=SETUP, cfg__yaml=ENABLE, c__yaml=ray_cluster("  enableInTreeAutoscaling: true\n")))
    model, diags = with_edits(ws, [])
    assert model.workloads is ws.model.workloads
    assert [d.message for d in diags.items if d.code == "KAD170"] == [d.message for d in ws.diagnostics if d.code == "KAD170"]
    assert len([d for d in diags.items if d.code == "KAD170"]) == 1
