"""DisaggregatedSet: per slice and role, the LeaderWorkerSet it creates, as Kueue's LWS integration admits it."""

from __future__ import annotations

from .helpers import SETUP, model_of, run, write

DS = """\
apiVersion: disaggregatedset.x-k8s.io/v1
kind: DisaggregatedSet
metadata:
  name: serve
spec:
  slices: 2
  roles:
  - name: prefill
    metadata:
      labels: {kueue.x-k8s.io/queue-name: user-queue}
    spec:
      replicas: 1
      leaderWorkerTemplate:
        size: 2
        workerTemplate:
          spec:
            containers: [{name: w, image: x, resources: {requests: {cpu: "1"}}}]
  - name: decode
    {decode_meta}
    spec:
      replicas: 2
      leaderWorkerTemplate:
        size: 1
        workerTemplate:
          spec:
            containers: [{name: w, image: x, resources: {requests: {cpu: "500m"}}}]
"""


def test_roles_and_slices_become_leader_worker_set_groups(tmp_path):
    text = DS.replace("{decode_meta}", "metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}")
    m = model_of(tmp_path, setup__yaml=SETUP, ds__yaml=text)
    parts = sorted((w.part, [(p.name, p.count) for p in w.pod_sets]) for w in m.workloads)
    assert len(parts) == 2 * (1 + 2)
    assert ("role `prefill`, slice 1, group 0", [("main", 2)]) in parts
    assert all(w.origin.kind == "DisaggregatedSet" and w.queue == "user-queue" for w in m.workloads)
    assert "role `decode`, slice 0, group 1" in run("admit", *write(tmp_path, setup__yaml=SETUP, ds__yaml=text)).stdout


def test_the_queue_label_is_read_from_each_role(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, ds__yaml=DS.replace("{decode_meta}", ""))
    assert {w.part.split(",")[0] for w in m.workloads} == {"role `prefill`"}
    assert "queue-name" in m.skipped[0].reason
