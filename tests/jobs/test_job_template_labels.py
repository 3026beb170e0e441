"""A Job with no labels gets its pod template's: the API server's SetDefaults_Job, before Kueue's webhook
(tests/oracle/features/job-labels-from-its-pod-template.yaml)."""

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


def test_a_job_with_a_label_of_its_own_keeps_its_labels(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, j__yaml=JOB.format(labels="\n  labels: {team: t}"))
    assert m.workloads == () and "has no `kueue.x-k8s.io/queue-name` label" in m.skipped[0].reason
