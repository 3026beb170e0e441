"""Every error of one manifest object is reported in one run (bad fields, bad quantities, bad
values), and nothing that follows only from one of them: neither a check that combines the
object's fields (one of which was bad) nor a reference to the dropped object."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import api

CLUSTER_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  queueingStrategy: StrictFIFOO
  namespaceSelector:
    matchLabels:
      team: 7
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 10x
      - name: memory
        nominalQuota: 64Gi
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: lq
  namespace: team-a
spec:
  clusterQueue: team-a
"""

WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: train
  namespace: team-a
spec:
  queueName: lq
  priority: high
  podSets:
  - name: main
    count: "4"
    minCount: 3
    template:
      spec:
        containers:
        - name: c
          resources:
            requests:
              cpu: 1.5.0
              memory: 1Gi
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: sweep
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: lq
spec:
  parallelism: two
  completions: 4
  template:
    spec:
      containers:
      - name: c
        resources:
          requests:
            memory: 12XB
        image: busybox
      restartPolicy: Never
"""

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
spec:
  unschedulable: "no"
  taints:
  - key: nvidia.com/gpu
    effect: NoScheduleX
status:
  allocatable:
    cpu: "96"
    nvidia.com/gpu: eight
"""

FLAVOR = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot
spec:
  nodeLabels:
    cloud.example.com/spot: true
  tolerations:
  - key: spot
    operator: Equals
"""


def errors(tmp: Path, text: str) -> list[tuple[str, int, str]]:
    (tmp / "c.yaml").write_text(text)
    out = api.check([str(tmp / "c.yaml")])
    return [(d.code, d.span.line, d.message) for d in out.diagnostics if d.severity.name == "ERROR"]


@pytest.mark.parametrize("text, expected", [
    (CLUSTER_QUEUE, [("KAD157", 6, "`queueingStrategy` can't be `StrictFIFOO`"),
                     ("KAD156", 9, "`spec.namespaceSelector.matchLabels.team` should be a string"),
                     ("KAD158", 16, "`spec.resourceGroups[0].flavors[0].resources[0].nominalQuota`: `10x` is not a Kubernetes quantity")]),
    (WORKLOAD, [("KAD156", 8, "`spec.priority` should be an integer"),
                ("KAD156", 11, "`spec.podSets[0].count` should be an integer"),
                ("KAD158", 19, "`spec.podSets[0].template.spec.containers[0].resources.requests.cpu`: `1.5.0` is not a Kubernetes quantity")]),
    (JOB, [("KAD156", 9, "`spec.parallelism` should be an integer (int32)"),
           ("KAD158", 17, "`spec.template.spec.containers[0].resources.requests.memory`: `12XB` is not a Kubernetes quantity")]),
    (NODE, [("KAD156", 6, "`spec.unschedulable` should be a boolean"),
            ("KAD157", 9, "`effect` can't be `NoScheduleX`"),
            ("KAD158", 13, "`nvidia.com/gpu`: `eight` is not a Kubernetes quantity")]),
    (FLAVOR, [("KAD156", 7, '`spec.nodeLabels["cloud.example.com/spot"]` should be a string'),
              ("KAD157", 10, "`operator` can't be `Equals`")]),
], ids=["cluster-queue", "workload", "job", "node", "flavor"])
def test_every_bad_field_of_one_object_is_reported_in_one_run(tmp_path, text, expected):
    got = errors(tmp_path, text)
    assert [(c, line) for c, line, _ in got] == [(c, line) for c, line, _ in expected], got
    for (_, _, message), (_, _, start) in zip(got, expected):
        assert message.startswith(start), message


def test_no_follow_on_from_a_placeholder_or_a_dropped_object(tmp_path):
    got = errors(tmp_path, CLUSTER_QUEUE + "---\n" + WORKLOAD)
    messages = " | ".join(m for _, _, m in got)
    # `count: "4"` was bad: `minCount` (3) is not compared with a placeholder count
    assert "minCount" not in messages
    # the ClusterQueue is dropped for its errors: the local queue naming it is not "undefined"
    assert "team-a" not in messages.replace("`team-a/", "")
    assert len(got) == 6


def test_a_check_combining_good_fields_is_still_reported(tmp_path):
    text = WORKLOAD.replace('count: "4"', "count: 2").replace("cpu: 1.5.0", "cpu: 1").replace("  priority: high\n", "")
    assert [(c, line) for c, line, _ in errors(tmp_path, text)] == [("KAD157", 11)]  # minCount 3 > count 2
