"""A job and the Workload Kueue would make of it get the same decision."""

from __future__ import annotations

import pytest

from .helpers import SETUP, admit_json, write

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  annotations: {kueue.x-k8s.io/job-min-parallelism: "2"}
spec:
  parallelism: 6
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
"""
JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        template:
          spec:
            containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
  - name: driver
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
    workerTemplate:
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
"""


def workload(*pod_sets: tuple[str, int, str, int | None]) -> str:
    sets = "".join(
        f"  - name: {name}\n    count: {count}\n" + (f"    minCount: {low}\n" if low else "")
        + f"    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}}}\n"
        for name, count, cpu, low in pod_sets)
    return ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: train, namespace: default}\n"
            "spec:\n  queueName: user-queue\n  podSets:\n" + sets)


@pytest.mark.parametrize("job, equivalent", [
    (JOB, workload(("main", 6, "2", 2))),
    (JOBSET, workload(("workers", 4, "2", None), ("driver", 1, "1", None))),
    (LWS, workload(("leader", 1, "1", None), ("worker", 3, "2", None))),
])
@pytest.mark.parametrize("quota", ["4", "7", "9", "20"])
def test_a_job_decides_as_its_workload(tmp_path, job, equivalent, quota):
    setup = SETUP.replace("nominalQuota: 9", f"nominalQuota: {quota}")
    a = admit_json(*write(tmp_path, setup__yaml=setup, job__yaml=job))["decisions"]
    b = admit_json(*write(tmp_path / "..", setup__yaml=setup, job__yaml=equivalent))["decisions"]

    def view(ds):
        return [(d["admitted"], [(p["name"], p["count"], p["flavors"]) for p in d["pod_sets"]],
                 [r["code"] for r in d["reasons"]]) for d in ds]
    assert view(a) == view(b)
