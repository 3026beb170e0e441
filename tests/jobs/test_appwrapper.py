"""AppWrapper: a pod set per pod template of its components, declared or inferred."""

from __future__ import annotations

from .helpers import SETUP, model_of

WRAPPED_JOBSET = """\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: aw
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  components:
  - template:
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata: {name: js}
      spec:
        replicatedJobs:
        - name: w
          replicas: 2
          template:
            spec:
              parallelism: 3
              template:
                spec:
                  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
  - template:
      apiVersion: v1
      kind: Pod
      metadata: {name: p}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]
  - podSets:
    - {path: template.spec.leaderWorkerTemplate.workerTemplate, replicas: 4}
    template:
      apiVersion: leaderworkerset.x-k8s.io/v1
      kind: LeaderWorkerSet
      metadata: {name: l}
      spec:
        leaderWorkerTemplate:
          size: 4
          workerTemplate:
            spec:
              containers: [{name: c, image: x, resources: {requests: {cpu: "500m"}}}]
"""


def test_components_become_numbered_pod_sets(tmp_path):
    (wl,) = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=WRAPPED_JOBSET).workloads
    assert [(p.name, p.count, p.requests["cpu"]) for p in wl.pod_sets] == [
        ("aw-0", 6, 1000), ("aw-1", 1, 2000), ("aw-2", 4, 500)]
    assert "component 2 (LeaderWorkerSet)" in wl.pod_sets[2].origin


def test_an_unknown_component_without_pod_sets_is_reported(tmp_path):
    text = WRAPPED_JOBSET.split("  - template:\n      apiVersion: v1")[0].replace(
        "apiVersion: jobset.x-k8s.io/v1alpha2", "apiVersion: example.com/v1").replace("kind: JobSet", "kind: Thing")
    m = model_of(tmp_path, setup__yaml=SETUP, aw__yaml=text)
    assert m.workloads == () and "declare `podSets`" in m.skipped[0].reason
