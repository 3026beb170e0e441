"""`why` says what a preemptor needed of its victims, checked at the start of the cycle they were
evicted in: the quota (its usage over what its queue had free), the room their pods took on the
topology's nodes (its pods don't fit with theirs and do without), or both; a second pass holds its
quota already (it preempted for nodes; the text said "needed the quota" before)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FEATURES = Path(__file__).parents[1] / "oracle" / "features"

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: dc}
spec:
  levels:
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: v1
kind: Node
metadata:
  name: n0
  labels: {pool: f0, kubernetes.io/hostname: n0}
status:
  allocatable: {cpu: 'NODECPU', memory: 32Gi, pods: '110'}
  capacity: {cpu: 'NODECPU', memory: 32Gi, pods: '110'}
  conditions:
  - {type: Ready, status: 'True'}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
spec:
  nodeLabels: {pool: f0}
  topologyName: dc
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f0
      resources: [{name: cpu, nominalQuota: 'QUOTA'}]
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: low, namespace: ns, uid: 00000000-0000-0000-0000-000000000001, creationTimestamp: '2026-11-01T00:00:01Z'}
spec:
  queueName: lq
  priority: 0
  podSets:
  - name: main
    count: 1
    topologyRequest: {required: kubernetes.io/hostname}
    template:
      spec:
        restartPolicy: Never
        containers:
        - {name: c, image: busybox, resources: {requests: {cpu: '3'}}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 1
      flavors: {cpu: f0}
      resourceUsage: {cpu: '3'}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        slices:
        - domainCount: 1
          valuesPerLevel: [{universal: n0}]
          podCounts: {universal: 1}
  conditions:
  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-11-01T00:00:10Z'}
  - {type: Admitted, status: 'True', reason: Admitted, message: m, lastTransitionTime: '2026-11-01T00:00:10Z'}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: high, namespace: ns, uid: 00000000-0000-0000-0000-000000000002, creationTimestamp: '2026-11-01T00:00:02Z'}
spec:
  queueName: lq
  priority: 100
  podSets:
  - name: main
    count: 1
    topologyRequest: {required: kubernetes.io/hostname}
    template:
      spec:
        restartPolicy: Never
        containers:
        - {name: c, image: busybox, resources: {requests: {cpu: '2'}}}
"""


def _preemptor(run, text: str, key: str = "ns/high") -> str:
    run.write("c.yaml", text)
    out = json.loads(run("why", key, ".", "--format", "json").output)
    assert out["blame_kind"] == "preemption", out
    return next(b["message"] for b in out["blame"] if b["kind"] == "preemptor")


@pytest.mark.parametrize("node, quota, needed", [
    ("4", "10", "`ns/high` (priority 100) needed the room its victims' pods took on node n0: its quota fitted "
                "(2 cpu in f0 with 7 free)"),
    ("8", "4", "`ns/high` (priority 100) needed the quota (2 cpu in f0 with 1 free)"),
    ("4", "4", "`ns/high` (priority 100) needed the quota (2 cpu in f0 with 1 free) and the room its victims' "
               "pods took on node n0"),
])
def test_what_the_preemptor_needed(run, node, quota, needed):
    text = CLUSTER.replace("NODECPU", node).replace("QUOTA", quota)
    assert _preemptor(run, text) == needed
    # the victim, requeued and tried again: its blame is what keeps it out now, and its reasons name the same
    victim = json.loads(run("why", "ns/low", ".", "--format", "json", "--fixes", "0").output)
    assert any(r["message"].endswith(f"; {needed}") for r in victim["reasons"]), victim["reasons"]


def test_the_claims_hold(run):
    """With the victim not preemptible (a higher priority), the preemptor stays pending for the reason
    named: the node-short case's for the topology (its quota fits), the quota-short one's for quota."""
    for node, quota, reason in (("4", "10", "topology \"dc\" doesn't allow to fit"),
                                ("8", "4", "insufficient unused quota for cpu in flavor f0")):
        text = CLUSTER.replace("NODECPU", node).replace("QUOTA", quota)
        run.write("c.yaml", text.replace("priority: 0", "priority: 1000"))
        decided = {d["workload"]: d for d in json.loads(run("admit", ".", "--format", "json").output)["decisions"]}
        assert decided["ns/high"]["admitted"] is False
        assert [r["message"] for r in decided["ns/high"]["reasons"] if reason in r["message"]], decided


def test_a_second_pass_held_its_quota_and_needed_nodes(run):
    text = (FEATURES / "admission-check-second-pass-preempts.yaml").read_text()
    assert _preemptor(run, text, "ns/w1") == (
        "`ns/w1` (priority 100) held its quota already (a second pass placing its pods) and needed the room its "
        "victims' pods took on node n0")
