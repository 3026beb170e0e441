"""A workload queued to a LocalQueue its namespace doesn't have ("LocalQueue … doesn't exist"): `why`
proposes its owner's fix, the queue name changed to one its namespace has (the one it is a typo of
where there is one, else each of its queues), proven by deciding again — as a Job's `kueue.x-k8s.io/queue-name`
label, a Workload's `spec.queueName` and a `.kad` workload's `queue`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from kadmit import api
from kadmit.render.why import why_patch

POLICY = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: team}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: other, namespace: team}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue-b, namespace: elsewhere}
spec: {clusterQueue: cq}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: eval
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: user-queu
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1"}
"""
WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: eval, namespace: team}
spec:
  queueName: "user-queu"
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources:
            requests: {cpu: "1"}
"""
KAD = """flavor default {}

cluster_queue cq {
  resources cpu {
    flavor default { cpu = 4 }
  }
}

local_queue team/user-queue -> cq
local_queue team/other -> cq

workload team/eval {
  queue = user-queu
  pod_group main {
    count    = 1
    requests = { cpu = 1 }
  }
}
"""


def _fix(tmp_path: Path, files: dict[str, str], key: str, field: str, old: str, new: str) -> None:
    for name, text in files.items():
        (tmp_path / "in" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / name).write_text(text)
    out = api.why(key, ["in"])
    assert out.result is not None and not out.result.admitted
    assert [r.message for r in out.result.reasons][0] == "LocalQueue user-queu doesn't exist"
    # the namespace's queue its name is a typo of (not `other`, nor another namespace's `user-queue-b`)
    assert [(f.actor, [c.knob.kind for c in f.changes]) for f in out.result.fixes] == [("owner", ["queue_name"])]
    first = out.result.fixes[0].changes[0]
    assert (first.knob.field, first.edit.old, first.edit.new) == (field, old, new)
    copy = tmp_path / "fixed"
    shutil.copytree(tmp_path / "in", copy / "in")
    subprocess.run(["patch", "-s", "-p1", "-d", str(copy)], input=why_patch(out.result.fixes[0], out.loaded.sources),
                   text=True, check=True)
    after = api.admit([str(copy / "in")])
    assert [(d.workload.key, d.admitted) for d in after.result.decisions] == [(key, True)]


def test_a_jobs_queue_name_label_is_corrected(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _fix(tmp_path, {"policy.yaml": POLICY, "job.yaml": JOB}, "team/eval",
         "metadata.labels[kueue.x-k8s.io/queue-name]", "user-queu", "user-queue")


def test_a_workloads_queue_name_is_corrected_quoted_as_written(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _fix(tmp_path, {"policy.yaml": POLICY, "wl.yaml": WORKLOAD}, "team/eval", "spec.queueName",
         '"user-queu"', '"user-queue"')


def test_a_kad_workloads_queue_is_corrected(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _fix(tmp_path, {"policy.kad": KAD}, "team/eval", "`queue`", "user-queu", "user-queue")


def test_with_no_name_close_each_queue_of_its_namespace_is_tried(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "policy.yaml").write_text(POLICY)
    (tmp_path / "in" / "job.yaml").write_text(JOB.replace("user-queu", "batch"))
    out = api.why("team/eval", ["in"])
    assert sorted(f.changes[0].edit.new for f in out.result.fixes) == ["other", "user-queue"]
    assert {f.actor for f in out.result.fixes} == {"owner"}
