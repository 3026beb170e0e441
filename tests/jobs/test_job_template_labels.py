"""A Job with no labels gets its pod template's: the API server's SetDefaults_Job, before Kueue's webhook
(tests/oracle/features/job-labels-from-its-pod-template.yaml). One with labels of its own that names no queue
is left unsuspended by Kueue's Job webhook: its pods, made from the template, are Kueue's plain pods where its
pod webhook gates them (jobs/templatepods.py; tests/oracle/features/job-queue-in-its-pod-template-only.yaml)."""

from __future__ import annotations

from .helpers import SETUP, model_of

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j{labels}
spec:
  template:
    metadata:
      labels: {{kueue.x-k8s.io/queue-name: user-queue}}
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def test_a_job_without_labels_names_its_templates_queue(tmp_path):
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, j__yaml=JOB.format(labels="")).workloads
    assert wl.queue == "user-queue" and wl.origin.name == "j"


OWN = "\n  labels: {team: t}"


def config(*frameworks: str) -> str:
    return ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
            f"integrations: {{frameworks: [{', '.join(frameworks)}]}}\n")


def test_a_job_with_a_label_of_its_own_keeps_its_labels_and_its_pods_are_kueues(tmp_path):
    job = JOB.format(labels=OWN).replace("spec:\n  template:", "spec:\n  parallelism: 3\n  template:")
    m = model_of(tmp_path, setup__yaml=SETUP, j__yaml=job)
    assert m.skipped == ()
    assert [(w.queue, w.origin.kind, w.origin.name, w.part, [(p.name, p.count) for p in w.pod_sets])
            for w in m.workloads] == [("user-queue", "Job", "j", f"pod {i}", [("main", 1)]) for i in range(3)]


def test_its_pods_form_the_templates_pod_group(tmp_path):
    job = JOB.format(labels=OWN).replace("spec:\n  template:", "spec:\n  parallelism: 2\n  template:").replace(
        "labels: {kueue.x-k8s.io/queue-name: user-queue}",
        "labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: grp}\n"
        "      annotations: {kueue.x-k8s.io/pod-group-total-count: '2'}")
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, j__yaml=job).workloads
    assert wl.kueue_name == "grp" and wl.origin.name == "j" and [p.count for p in wl.pod_sets] == [2]
    short = job.replace("'2'", "'3'")  # the group waits for a third pod its Job never makes
    m = model_of(tmp_path / "..", setup__yaml=SETUP, j__yaml=short)
    assert m.workloads == () and "has 2 of its 3 pods" in m.skipped[0].reason


def test_a_suspended_job_starts_no_pods(tmp_path):
    job = JOB.format(labels=OWN).replace("spec:\n  template:", "spec:\n  suspend: true\n  template:")
    m = model_of(tmp_path, setup__yaml=SETUP, j__yaml=job)
    assert m.workloads == () and "has no `kueue.x-k8s.io/queue-name` label" in m.skipped[0].reason


def test_the_namespaces_default_queue_makes_the_job_kueues(tmp_path):
    default = SETUP.split("---\n")[-1].replace('"user-queue"', '"default"')
    (wl,) = model_of(tmp_path, setup__yaml=SETUP + "---\n" + default, j__yaml=JOB.format(labels=OWN)).workloads
    assert (wl.queue, wl.origin.kind, wl.part) == ("default", "Job", None)


def test_without_the_pod_webhook_the_pods_run_unmanaged(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, cfg__yaml=config("batch/job"), j__yaml=JOB.format(labels=OWN))
    assert m.workloads == () and "has no `kueue.x-k8s.io/queue-name` label" in m.skipped[0].reason
    # the pod integration on only for a Deployment's pods: the webhook gates the Job's, the reconciler skips them
    m = model_of(tmp_path / "..", setup__yaml=SETUP, cfg__yaml=config("batch/job", "deployment"),
                 j__yaml=JOB.format(labels=OWN))
    assert m.workloads == () and "the pod stays gated, never admitted nor run" in m.skipped[0].reason


STATEFUL_SET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: s, labels: {{app: s}}}}
spec:
  replicas: 3{policy}
  serviceName: s
  selector: {{matchLabels: {{app: s}}}}
  template:
    metadata:
      labels: {{app: s, kueue.x-k8s.io/queue-name: user-queue}}
    spec:
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def test_a_statefulsets_pods_are_kueues_as_its_controller_starts_them(tmp_path):
    # OrderedReady (the default): the controller waits for its first pod, gated, to be Ready: one pod
    # (tests/oracle/features/statefulset-queue-in-its-pod-template-only.yaml)
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, s__yaml=STATEFUL_SET.format(policy="")).workloads
    assert (wl.queue, wl.origin.kind, [p.count for p in wl.pod_sets]) == ("user-queue", "StatefulSet", [1])
    m = model_of(tmp_path / "..", setup__yaml=SETUP, s__yaml=STATEFUL_SET.format(policy="\n  podManagementPolicy: Parallel"))
    assert [w.part for w in m.workloads] == ["pod 0", "pod 1", "pod 2"]
