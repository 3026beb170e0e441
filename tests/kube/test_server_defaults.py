"""kadmit reads a manifest as written and as the API server stores it (with the CRDs' defaults filled
in) into the same model: kadmit's defaults are the CRDs' own."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kadmit import workspace as ws
from kube.server import KubeAPIServer

pytestmark = pytest.mark.slow

FLAVOR = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
"""

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: defaults-only}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: on-demand
      resources: [{name: cpu, nominalQuota: 8}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: some-set}
spec:
  cohortName: research
  queueingStrategy: StrictFIFO
  namespaceSelector: {matchLabels: {team: vision}}
  preemption: {withinClusterQueue: LowerPriority}
  flavorFungibility: {whenCanBorrow: TryNextFlavor}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources:
      - {name: cpu, nominalQuota: 8, borrowingLimit: 4}
      - {name: memory, nominalQuota: 32Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: default}
spec: {clusterQueue: defaults-only}
"""

JOBS = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: stored-pretrain, namespace: default, labels: {kueue.x-k8s.io/queue-name: training}}
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{name: w, image: busybox, resources: {requests: {cpu: "1"}}}]
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: stored-serve, namespace: default, labels: {kueue.x-k8s.io/queue-name: training}}
spec:
  leaderWorkerTemplate:
    workerTemplate:
      spec:
        containers: [{name: w, image: busybox, resources: {requests: {cpu: "1"}}}]
"""

# What the server adds that is no part of what was written: identity, bookkeeping, client-side apply.
SERVER_METADATA = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields")


def stored(server: KubeAPIServer, manifest: str) -> str:
    """The objects of `manifest` as the server stores them, less its own metadata."""
    server.run("create", "-f", "-", input=manifest)
    out = []
    for doc in yaml.safe_load_all(manifest):
        kind = {"ResourceFlavor": "resourceflavors.kueue.x-k8s.io", "ClusterQueue": "clusterqueues.kueue.x-k8s.io",
                "LocalQueue": "localqueues.kueue.x-k8s.io", "JobSet": "jobsets.jobset.x-k8s.io",
                "LeaderWorkerSet": "leaderworkersets.leaderworkerset.x-k8s.io"}[doc["kind"]]
        obj = server.get(kind, doc["metadata"]["name"], doc["metadata"].get("namespace"))
        for key in SERVER_METADATA:
            obj["metadata"].pop(key, None)
        obj.pop("status", None)
        out.append(obj)
    return yaml.safe_dump_all(out, sort_keys=True)


def load(tmp_path: Path, name: str, text: str) -> ws.Workspace:
    path = tmp_path / name / "state.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return ws.load([str(path.parent)])


def test_cluster_queues_read_the_same_as_written_and_as_stored(kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    written = FLAVOR + "---\n" + QUEUES
    as_stored = stored(kube_apiserver, written)
    assert "BestEffortFIFO" in as_stored and "MayStopSearch" in as_stored  # the server filled defaults in
    mine, theirs = load(tmp_path, "written", written), load(tmp_path, "stored", as_stored)
    assert [d.code for d in theirs.diagnostics] == [d.code for d in mine.diagnostics]
    assert theirs.model.cluster_queues == mine.model.cluster_queues
    assert theirs.model.local_queues == mine.model.local_queues


def test_jobs_read_the_same_as_written_and_as_stored(kube_apiserver: KubeAPIServer, tmp_path: Path) -> None:
    written = JOBS
    as_stored = stored(kube_apiserver, written)
    mine, theirs = load(tmp_path, "written", written), load(tmp_path, "stored", as_stored)
    assert [d.code for d in theirs.diagnostics] == [d.code for d in mine.diagnostics]
    assert mine.model.workloads and theirs.model.workloads == mine.model.workloads
