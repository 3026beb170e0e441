"""Jobs being deleted (`metadata.deletionTimestamp`): no Workload is made of them, except where the
kind's reconciler makes one whatever (a LeaderWorkerSet)."""

from __future__ import annotations

from .helpers import SETUP, model_of

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  uid: 00000000-0000-0000-0000-00000000000{n}
  creationTimestamp: "2026-11-01T00:00:0{n}Z"{deleting}
  labels: {{kueue.x-k8s.io/queue-name: user-queue}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
"""
DELETING = '\n  deletionTimestamp: "2026-11-01T00:05:00Z"\n  finalizers: [example.com/hold]'
LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  uid: 00000000-0000-0000-0000-000000000009
  creationTimestamp: "2026-11-01T00:00:09Z"
  deletionTimestamp: "2026-11-01T00:05:00Z"
  finalizers: [example.com/hold]
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 1
    workerTemplate:
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def test_a_job_being_deleted_is_skipped_saying_so(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, a__yaml=JOB.format(name="going", n=1, deleting=DELETING),
                 b__yaml=JOB.format(name="stays", n=2, deleting=""))
    assert [w.key for w in m.workloads] == ["default/stays"]
    (s,) = m.skipped
    assert s.object.name == "going" and "being deleted (`metadata.deletionTimestamp`)" in s.reason


def test_a_leaderworkerset_being_deleted_still_has_its_groups(tmp_path):
    """Kueue's LeaderWorkerSet reconciler reads no deletion timestamp: it makes the groups' Workloads."""
    m = model_of(tmp_path, setup__yaml=SETUP, lws__yaml=LWS)
    assert len(m.workloads) == 1 and not m.skipped


STS = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  uid: 00000000-0000-0000-0000-000000000021
  creationTimestamp: "2026-11-01T00:00:01Z"
  deletionTimestamp: "2026-11-01T00:05:00Z"
  finalizers: [example.com/hold]
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


def test_a_statefulset_being_deleted_is_read_as_if_not_saying_so(tmp_path):
    """Not modelled (its controller makes no pods for a StatefulSet being deleted): decided as read,
    with a KAD161 warning at its deletionTimestamp, which admit's summary counts."""
    from kadmit.workspace import load

    (tmp_path / "setup.yaml").write_text(SETUP)
    (tmp_path / "sts.yaml").write_text(STS)
    loaded = load([str(tmp_path)])
    assert [w.key for w in loaded.model.workloads] == ["default/db"]
    (d,) = [d for d in loaded.diagnostics if d.code == "KAD161"]
    assert "StatefulSet `default/db` is being deleted" in d.message and d.span.line == 7
