"""A workload queued to a LocalQueue name only another namespace has (GKE mix-train-and-inference: a
Deployment in `default` naming `lq`, which exists in `llm` only): `why` proposes the platform's fix,
that LocalQueue created in the workload's namespace pointing at the same ClusterQueue, proven by
deciding again; the patch applied, the workload is admitted."""

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
metadata: {name: lq, namespace: llm}
spec: {clusterQueue: cq}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: lq
spec:
  replicas: 1
  selector: {matchLabels: {app: serve}}
  template:
    metadata: {labels: {app: serve}}
    spec:
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1"}
"""


def test_the_queue_is_created_in_the_workloads_namespace(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "policy.yaml").write_text(POLICY)
    (tmp_path / "in" / "serve.yaml").write_text(DEPLOYMENT)
    out = api.why("default/serve", ["in"])
    assert out.result is not None and not out.result.admitted
    assert [r.message for r in out.result.reasons][0] == "LocalQueue lq doesn't exist"
    assert [(f.actor, [c.knob.kind for c in f.changes]) for f in out.result.fixes] == [("platform", ["new_local_queue"])]
    change = out.result.fixes[0].changes[0]
    assert (change.knob.subject, change.new) == ("LocalQueue `default/lq`", "cq")
    copy = tmp_path / "fixed"
    shutil.copytree(tmp_path / "in", copy / "in")
    subprocess.run(["patch", "-s", "-p1", "-d", str(copy)], input=why_patch(out.result.fixes[0], out.loaded.sources),
                   text=True, check=True)
    after = api.admit([str(copy / "in")])
    assert [d.admitted for d in after.result.decisions] == [True]
    assert "name: lq\n  namespace: default\nspec:\n  clusterQueue: cq\n---\n" in (copy / "in" / "policy.yaml").read_text()


def test_not_offered_where_the_workloads_namespace_may_not_use_the_queue(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "policy.yaml").write_text(
        POLICY.replace("namespaceSelector: {}", "namespaceSelector: {matchLabels: {team: llm}}"))
    (tmp_path / "in" / "serve.yaml").write_text(DEPLOYMENT)
    out = api.why("default/serve", ["in"])
    assert out.result is not None and not out.result.admitted
    assert "new_local_queue" not in [c.knob.kind for f in out.result.fixes for c in f.changes]
