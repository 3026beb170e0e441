"""Jobs being deleted (`metadata.deletionTimestamp`): no Workload is made of them, except where the
kind's reconciler makes one whatever (a LeaderWorkerSet)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

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


RUNNING = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: held
  uid: 00000000-0000-0000-0000-000000000031
  creationTimestamp: "2026-11-01T00:00:00Z"
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  suspend: false
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
status: {startTime: "2026-11-01T00:01:00Z", active: 1, ready: 1}
"""
OWNED = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-held-7f3a2
  deletionTimestamp: "2026-11-01T00:05:00Z"
  finalizers: [kueue.x-k8s.io/resource-in-use]
  creationTimestamp: "2026-11-01T00:00:00Z"
  ownerReferences:
  - {apiVersion: batch/v1, kind: Job, name: held, uid: 00000000-0000-0000-0000-000000000031, controller: true}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
status:
  admission:
    clusterQueue: cluster-queue
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: default-flavor}, resourceUsage: {cpu: "1"}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-11-01T00:01:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-11-01T00:01:00Z"}
"""


def _loaded(tmp_path, **files):
    from kadmit.workspace import load

    for name, text in {"setup.yaml": SETUP, **files}.items():
        (tmp_path / name).write_text(text)
    return load([str(tmp_path)])


def test_the_workload_of_a_running_job_being_deleted_goes(tmp_path):
    """Kueue's job reconciler ("1.1 If the workload is pending deletion") suspends the Job and drops the
    Workload's finalizer: the Workload goes with its quota, and the Job, its pod still active, gets no new
    one yet (tests/oracle/features/owned-workload-being-deleted.yaml). Modelled: no KAD161."""
    loaded = _loaded(tmp_path, **{"job.yaml": RUNNING, "wl.yaml": OWNED})
    assert loaded.model.workloads == ()
    (s,) = loaded.model.skipped
    assert s.object.name == "held" and "its Workload `default/job-held-7f3a2` is being deleted" in s.reason
    assert [d for d in loaded.diagnostics if d.code == "KAD161"] == []


def test_the_workload_of_a_suspended_job_being_deleted_is_made_again(tmp_path):
    """With no pod active, the Job gets a new Workload, queued afresh
    (tests/oracle/features/owned-pending-workload-being-deleted.yaml)."""
    job = RUNNING.replace("suspend: false", "suspend: true").split("status:")[0]
    loaded = _loaded(tmp_path, **{"job.yaml": job, "wl.yaml": OWNED})
    (w,) = loaded.model.workloads
    assert w.key == "default/held" and w.admission is None and not w.deleting and not loaded.model.skipped
    # made after the input's moment: after the Job (00:00:00) and the Workload it replaces
    assert w.created > datetime(2026, 11, 1, 0, 0, 0, tzinfo=timezone.utc)  # the latest creation the input shows


def test_a_workload_being_deleted_whose_job_is_not_in_the_input_is_reported(tmp_path):
    """Its owner is not in the input: read as if not being deleted, and said so (KAD161 at the timestamp)."""
    loaded = _loaded(tmp_path, **{"wl.yaml": OWNED})
    assert [w.key for w in loaded.model.workloads] == ["default/job-held-7f3a2"]
    (d,) = [d for d in loaded.diagnostics if d.code == "KAD161"]
    assert "Job `held` is not a job of the input" in d.message and d.span.line == 5


GROUP_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: g-{i}
  uid: 00000000-0000-0000-0004-00000000000{i}
  creationTimestamp: "2026-11-01T00:00:00Z"
  labels: {{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/managed: "true", kueue.x-k8s.io/pod-group-name: g}}
  annotations: {{kueue.x-k8s.io/pod-group-total-count: "2"}}
spec:
  schedulingGates: [{{name: kueue.x-k8s.io/admission}}]
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
status: {{phase: Pending}}
"""
GROUP_WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: g
  uid: 00000000-0000-0000-0003-000000000001
  creationTimestamp: "2026-11-01T00:00:00Z"{deleting}
  ownerReferences:
  - {{apiVersion: v1, kind: Pod, name: g-0, uid: 00000000-0000-0000-0004-000000000000}}
  - {{apiVersion: v1, kind: Pod, name: g-1, uid: 00000000-0000-0000-0004-000000000001}}
spec:
  queueName: user-queue
  podSets: [{{name: main, count: 2, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
"""
WL_DELETING = ('\n  deletionTimestamp: "2026-11-01T00:05:00Z"\n  finalizers: [kueue.x-k8s.io/resource-in-use]')


def test_a_pod_groups_workload_being_deleted_goes_and_no_new_one_is_made(tmp_path):
    """Kueue's pod reconciler finds a group's Workload by the group's name and, as it is being deleted,
    deletes the pods (`Pod.Stop`) and drops the finalizer (tests/oracle/features/pod-workloads-being-deleted.yaml)."""
    m = model_of(tmp_path, setup__yaml=SETUP, p0__yaml=GROUP_POD.format(i=0), p1__yaml=GROUP_POD.format(i=1),
                 wl__yaml=GROUP_WORKLOAD.format(deleting=WL_DELETING))
    assert m.workloads == ()
    (s,) = m.skipped
    assert s.object.name == "g" and "its Workload `default/g` is being deleted" in s.reason


def test_a_pod_groups_workload_not_being_deleted_is_not_let_go(tmp_path):
    m = model_of(tmp_path, setup__yaml=SETUP, p0__yaml=GROUP_POD.format(i=0), p1__yaml=GROUP_POD.format(i=1),
                 wl__yaml=GROUP_WORKLOAD.format(deleting=""))
    assert "default/g" in [w.key for w in m.workloads]


STS_RUNNING = STS.replace('  deletionTimestamp: "2026-11-01T00:05:00Z"\n  finalizers: [example.com/hold]\n', "")
STS_WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: {name}
  uid: 00000000-0000-0000-0003-000000000021
  creationTimestamp: "2026-11-01T00:00:01Z"
  deletionTimestamp: "2026-11-01T00:05:00Z"
  finalizers: [kueue.x-k8s.io/resource-in-use]
  ownerReferences:
  - {{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: 00000000-0000-0000-0000-000000000021}}
spec:
  queueName: user-queue
  podSets: [{{name: main, count: 2, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
"""
STS_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  uid: 00000000-0000-0000-0006-000000000001
  labels: {{app: db, kueue.x-k8s.io/managed: "true", kueue.x-k8s.io/pod-group-name: {name}}}
  ownerReferences:
  - {{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: 00000000-0000-0000-0000-000000000021, controller: true}}
spec:
  nodeName: n1
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
status: {{phase: Running}}
"""


def _sts_workload_name(tmp_path):
    """The name Kueue gives the StatefulSet's Workload (kadmit's, as the oracle checks)."""
    from kadmit.workspace import load

    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "setup.yaml").write_text(SETUP)
    (probe / "sts.yaml").write_text(STS_RUNNING)
    (w,) = load([str(probe)]).model.workloads
    return w.kueue_name


def test_a_statefulsets_workload_being_deleted_is_made_again_where_its_pods_are_in_the_input(tmp_path):
    """Kueue's pod reconciler lets it go through the group's pods; the StatefulSet reconciler makes a new one,
    after the input's moment (tests/oracle/features/statefulset-workload-being-deleted.yaml)."""
    name = _sts_workload_name(tmp_path)
    (tmp_path / "in").mkdir()
    loaded = _loaded(tmp_path / "in", **{"sts.yaml": STS_RUNNING, "wl.yaml": STS_WORKLOAD.format(name=name),
                                         "pod.yaml": STS_POD.format(name=name)})
    (w,) = loaded.model.workloads
    assert w.kueue_name == name and not w.deleting and w.created > datetime(2026, 11, 1, 0, 0, 1, tzinfo=timezone.utc)
    assert [d for d in loaded.diagnostics if d.code == "KAD161"] == []


def test_without_its_pods_a_statefulsets_workload_being_deleted_is_reported(tmp_path):
    name = _sts_workload_name(tmp_path)
    (tmp_path / "in").mkdir()
    loaded = _loaded(tmp_path / "in", **{"sts.yaml": STS_RUNNING, "wl.yaml": STS_WORKLOAD.format(name=name)})
    (w,) = loaded.model.workloads
    assert w.deleting
    (d,) = [d for d in loaded.diagnostics if d.code == "KAD161"]
    assert f"the input holds no pod of its group (`kueue.x-k8s.io/pod-group-name: {name}`)" in d.message


RS_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f7c9b4-aaaaa
  uid: 00000000-0000-0000-0006-000000000001
  labels: {app: web, pod-template-hash: 5d8f7c9b4, kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/managed: "true"}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f7c9b4, uid: 00000000-0000-0000-0008-000000000001, controller: true}
spec:
  nodeName: n1
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
status: {phase: Running}
"""
RS_POD_WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: pod-web-5d8f7c9b4-aaaaa-1a2b3
  uid: 00000000-0000-0000-0003-000000000031
  creationTimestamp: "2026-11-01T00:00:01Z"
  deletionTimestamp: "2026-11-01T00:05:00Z"
  finalizers: [kueue.x-k8s.io/resource-in-use]
  ownerReferences:
  - {apiVersion: v1, kind: Pod, name: web-5d8f7c9b4-aaaaa, uid: 00000000-0000-0000-0006-000000000001, controller: true}
spec:
  queueName: user-queue
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]
status:
  admission:
    clusterQueue: cluster-queue
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: default-flavor}, resourceUsage: {cpu: "1"}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-11-01T00:01:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-11-01T00:01:00Z"}
"""


def test_a_replicaset_pods_workload_being_deleted_is_made_again_for_the_pod_in_its_place(tmp_path):
    """Kueue deletes the pod and lets its Workload go; the ReplicaSet makes another pod, whose Workload Kueue
    queues afresh: pending, standing for the same pod, created after the input, and the old pod no longer on
    its node (tests/oracle/features/deployment-pod-workload-being-deleted.yaml)."""
    loaded = _loaded(tmp_path, **{"pod.yaml": RS_POD, "wl.yaml": RS_POD_WORKLOAD})
    (w,) = loaded.model.workloads
    assert w.admission is None and not w.deleting and w.origin.name == "web-5d8f7c9b4-aaaaa"
    assert w.created > datetime(2026, 11, 1, 0, 0, 1, tzinfo=timezone.utc)
    assert [p.name for p in loaded.model.pods] == []
    assert [d for d in loaded.diagnostics if d.code == "KAD161"] == []


def test_a_bare_replicaset_pods_workload_being_deleted_is_made_again_too(tmp_path):
    """A ReplicaSet's pod is known by its controller, not by a Deployment's `pod-template-hash` label
    (tests/oracle/features/replicaset-pod-workload-being-deleted.yaml)."""
    loaded = _loaded(tmp_path, **{"pod.yaml": RS_POD.replace(" pod-template-hash: 5d8f7c9b4,", ""), "wl.yaml": RS_POD_WORKLOAD})
    (w,) = loaded.model.workloads
    assert w.admission is None and not w.deleting and w.origin.name == "web-5d8f7c9b4-aaaaa"
    assert loaded.model.skipped == ()


@pytest.mark.parametrize("case", ["statefulset-workload-being-deleted", "leaderworkerset-workload-being-deleted"])
def test_without_its_groups_pods_admit_says_its_answer_may_differ(tmp_path, case):
    """A StatefulSet's or LeaderWorkerSet group's Workload being deleted goes only through its group's pods
    (Kueue's pod reconciler drops the finalizer; neither the StatefulSet's nor the LeaderWorkerSet's reconciler
    reads the timestamp): with no pod of the group in the input, what Kueue does turns on pods the snapshot
    does not hold (a cluster has them, its controller makes them). Read as it stands, KAD161 at the timestamp,
    and `admit` says its answer may differ."""
    from pathlib import Path

    from .helpers import run

    text = (Path(__file__).parents[1] / "oracle" / "features" / f"{case}.yaml").read_text(encoding="utf-8")
    docs = [d for d in text.split("\n---\n") if "\nkind: Pod\n" not in f"\n{d}\n"]
    assert len(docs) < len(text.split("\n---\n"))
    path = tmp_path / "case.yaml"
    path.write_text("\n---\n".join(docs) + "\n", encoding="utf-8")
    r = run("admit", str(path))
    assert r.exit_code == 0, r.output
    assert "Kueue's answer may differ" in r.output and "KAD161" in r.output
    assert "the input holds no pod of its group" in r.output
