"""A ReplicaSet's pods (a Deployment's) are Kueue's as plain pods: its pod reconciler takes every pod as a job of
its own (`Pod.IsTopLevel`), whatever controls it; a Deployment that has rolled out is no work of its own."""

from __future__ import annotations

from .helpers import SETUP, model_of

RS_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web-6c7d8e9f0-{name}
  uid: 00000000-0000-0000-0006-00000000000{n}
  creationTimestamp: "2026-11-01T00:00:0{n}Z"
  labels: {{app: web, pod-template-hash: 6c7d8e9f0, kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/managed: "true"}}
  annotations: {{kueue.x-k8s.io/pod-suspending-parent: deployment}}
  ownerReferences:
  - {{apiVersion: {api}, kind: {kind}, name: web-6c7d8e9f0, uid: 00000000-0000-0000-0008-000000000001, controller: true}}
spec:
{spec}  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
status: {{phase: {phase}}}
"""
GATED = "  schedulingGates: [{name: kueue.x-k8s.io/admission}]\n"
BOUND = "  nodeName: n1\n"
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  uid: 00000000-0000-0000-0009-000000000001
  creationTimestamp: "2026-11-01T00:00:00Z"
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web, kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/managed: "true"}
      annotations: {kueue.x-k8s.io/pod-suspending-parent: deployment}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
status: {replicas: 2}
"""


def rs_pod(name: str, n: int, *, spec: str, phase: str, kind: str = "ReplicaSet", api: str = "apps/v1") -> str:
    return RS_POD.format(name=name, n=n, spec=spec, phase=phase, kind=kind, api=api)


def test_a_replicaset_pod_gated_without_its_workload_gets_one(tmp_path):
    """A new ReplicaSet's pod, gated by Kueue's webhook: Kueue's pod reconciler makes it a Workload, named by the
    pod (tests/oracle/features/deployment-mid-rollout.yaml)."""
    m = model_of(tmp_path, setup__yaml=SETUP, pod__yaml=rs_pod("aaaaa", 1, spec=GATED, phase="Pending"))
    (wl,) = m.workloads
    assert wl.origin.kind == "Pod" and wl.origin.name == "web-6c7d8e9f0-aaaaa" and wl.queue == "user-queue"
    assert [(p.name, p.count, p.requests["cpu"]) for p in wl.pod_sets] == [("main", 1, 1000)]


def test_a_replicaset_pod_on_a_node_without_its_workload_is_node_usage_saying_so(tmp_path):
    """As a plain pod on a node (KUEUE-DIFFERENCES §2): node usage, listed as skipped with why, never silently."""
    m = model_of(tmp_path, setup__yaml=SETUP, pod__yaml=rs_pod("aaaaa", 1, spec=BOUND, phase="Running"))
    assert m.workloads == () and [p.name for p in m.pods] == ["web-6c7d8e9f0-aaaaa"]
    (s,) = m.skipped
    assert s.object.name == "web-6c7d8e9f0-aaaaa"
    assert s.reason.startswith("it is on node `n1`, ungated, and the input holds no Workload for it")


def test_a_replicaset_pod_being_submitted_is_skipped_saying_why(tmp_path):
    """Kueue's pod webhook reads the pod's ReplicaSet and its Deployment (FindAncestorJobManagedByKueue; the
    oracle's refuses the pod without them: 'replicasets.apps "web-6c7d8e9f0" not found'); kadmit reads neither."""
    submitted = rs_pod("aaaaa", 1, spec=GATED, phase="Pending").replace(
        "  uid: 00000000-0000-0000-0006-000000000001\n", "").replace("status: {phase: Pending}\n", "")
    m = model_of(tmp_path, setup__yaml=SETUP, pod__yaml=submitted)
    assert m.workloads == ()
    (s,) = m.skipped
    assert s.reason.startswith("ReplicaSet `web-6c7d8e9f0` controls it, and it is being submitted (no UID, no status)")


def test_a_rolled_out_deployment_names_its_pods_in_the_input(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, d__yaml=DEPLOYMENT,
                 pods__yaml=rs_pod("aaaaa", 1, spec=GATED, phase="Pending") + "---\n"
                 + rs_pod("bbbbb", 2, spec=GATED, phase="Pending").replace("6c7d8e9f0", "5d8f7c9b4"))
    assert sorted(w.origin.name for w in m.workloads) == ["web-5d8f7c9b4-bbbbb", "web-6c7d8e9f0-aaaaa"]
    (s,) = m.skipped
    assert s.object.kind == "Deployment" and s.reason.startswith("it has rolled out (its status shows replicas)")
    assert s.reason.endswith("the input holds 2 of its pods, of ReplicaSets `web-5d8f7c9b4` (1), `web-6c7d8e9f0` (1), "
                             "each decided as a plain pod")
    (tmp_path / "alone").mkdir()
    (s,) = model_of(tmp_path / "alone", setup__yaml=SETUP, d__yaml=DEPLOYMENT).skipped
    assert s.reason.endswith("the input holds none of its pods: give them, or their Workloads, in the input")


IMPLICIT = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nintegrations: {frameworks: [batch/job, deployment]}\n"


def test_the_implicit_pod_integration_takes_the_pods_a_parent_marked(tmp_path):
    """`deployment` turns the pod integration on for the pods its webhook marked (`pod-suspending-parent`); the
    reconciler skips the others (tests/oracle/features/pod-integration-implicit-takes-parent-marked-pods.yaml)."""
    marked = rs_pod("aaaaa", 1, spec=GATED, phase="Pending")
    bare = marked.replace("aaaaa", "bbbbb").replace("00000000001\n", "00000000002\n").replace(
        "  annotations: {kueue.x-k8s.io/pod-suspending-parent: deployment}\n", "")
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=IMPLICIT, pods__yaml=marked + "---\n" + bare)
    assert [w.origin.name for w in m.workloads] == ["web-6c7d8e9f0-aaaaa"]
    (s,) = m.skipped
    assert s.object.name == "web-6c7d8e9f0-bbbbb" and s.reason.endswith(
        "(\"Pod Integration was implicitly enabled but object lacks parent annotation\"): it makes no Workload of it")


def test_a_pod_kueue_labelled_under_another_controller_is_a_plain_pod(tmp_path):
    """A Job Kueue does not manage whose template names a queue: Kueue's webhook labelled and gated its pod, and its
    pod reconciler takes it as a job of its own (tests/oracle/features/pod-of-an-unmanaged-job-labelled-managed.yaml).
    A StatefulSet's pods, labelled so too, are its own integration's."""
    job_pod = rs_pod("aaaaa", 1, spec=GATED, phase="Pending", kind="Job", api="batch/v1")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, pod__yaml=job_pod).workloads
    assert wl.origin.name == "web-6c7d8e9f0-aaaaa"
    (tmp_path / "sts").mkdir()
    sts_pod = rs_pod("aaaaa", 1, spec=GATED, phase="Pending", kind="StatefulSet")
    m = model_of(tmp_path / "sts", setup__yaml=SETUP, pod__yaml=sts_pod)
    assert m.workloads == ()
    assert [s.reason for s in m.skipped] == [
        "StatefulSet `web-6c7d8e9f0` controls it, and the input does not hold that object: Kueue decides the pod with "
        "it (its StatefulSet's Workload covers its pods), so kadmit reads the pod as node usage only; give the "
        "StatefulSet, or its Workload"]
    (tmp_path / "unlabelled").mkdir()
    m = model_of(tmp_path / "unlabelled", setup__yaml=SETUP, pod__yaml=job_pod.replace(', kueue.x-k8s.io/managed: "true"', ""))
    assert m.workloads == () and [s.reason.split(",")[0] for s in m.skipped] == ["Job `web-6c7d8e9f0` controls it"]


def test_a_pod_of_a_job_in_the_input_is_decided_with_it_silently(tmp_path):
    job = """\
apiVersion: batch/v1
kind: Job
metadata: {name: web-6c7d8e9f0, uid: 00000000-0000-0000-0008-000000000001, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
    job_pod = rs_pod("aaaaa", 1, spec=GATED, phase="Pending", kind="Job", api="batch/v1").replace(
        ', kueue.x-k8s.io/managed: "true"', "")
    m = model_of(tmp_path, setup__yaml=SETUP, job__yaml=job, pod__yaml=job_pod)
    assert [w.origin.kind for w in m.workloads] == ["Job"] and m.skipped == ()


def test_the_pods_of_one_absent_controller_are_said_once(tmp_path):
    pods = [rs_pod(n, i, spec=GATED, phase="Pending", kind="StatefulSet") for i, n in enumerate(("aaaaa", "bbbbb"), 1)]
    m = model_of(tmp_path, setup__yaml=SETUP, pods__yaml="---\n".join(pods))
    (s,) = m.skipped
    assert s.object.name == "web-6c7d8e9f0-aaaaa"
    assert "node usage only (so are its 1 other pod of the input: `web-6c7d8e9f0-bbbbb`); give the StatefulSet" in s.reason
