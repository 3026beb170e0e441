"""Plain Pods and pod groups naming a prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`), as Kueue's pod
reconciler takes it (tests/oracle/features/prebuilt-workload-pod-single.yaml, prebuilt-workload-pod-group.yaml)."""

from __future__ import annotations

from kadmit.workspace import load

from .helpers import SETUP, write

WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: pre, creationTimestamp: "2026-11-01T01:00:00Z"}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers: [{name: c, image: busybox, imagePullPolicy: Always, terminationMessagePath: /dev/termination-log,
                      terminationMessagePolicy: File, resources: {requests: {cpu: "1000m"}}}]
"""  # its container as the API server defaults the Pod's when it creates it (SetDefaults_Container)
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
  creationTimestamp: "2026-11-01T01:00:01Z"
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/prebuilt-workload-name: pre}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""
GROUP_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: g-{i}
  labels: {{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: g, kueue.x-k8s.io/prebuilt-workload-name: {pre}}}
  annotations: {{kueue.x-k8s.io/pod-group-total-count: "2"}}
spec:
  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
"""


def _loaded(tmp_path, **files):
    return load(write(tmp_path, setup__yaml=SETUP, **files))


def test_a_pod_takes_its_prebuilt_workload(tmp_path):
    m = _loaded(tmp_path, wl__yaml=WORKLOAD, pod__yaml=POD).model
    (w,) = m.workloads
    assert w.origin.kind == "Pod" and w.origin.name == "p" and w.name == "pre" and m.skipped == ()


def test_a_pod_naming_an_absent_or_different_workload_gets_none(tmp_path):
    (tmp_path / "a").mkdir()
    (s,) = _loaded(tmp_path / "a", pod__yaml=POD).model.skipped
    assert s.object.name == "p" and "which the input does not hold" in s.reason
    (tmp_path / "b").mkdir()
    m = _loaded(tmp_path / "b", wl__yaml=WORKLOAD.replace('"1000m"', '"2"'), pod__yaml=POD).model
    (s,) = m.skipped
    assert "whose pod sets differ from the job's (pod set 0: its containers)" in s.reason
    (w,) = m.workloads
    assert w.finished  # Kueue marks it Finished (OutOfSync): never admitted


def _group_workload(count: int) -> str:
    # the group's role: Kueue's role hash of the pods' shape (pods.pod_job)
    return WORKLOAD.replace("name: pre,", "name: g,").replace("- name: main\n    count: 1",
                                                              f"- name: dc85db45\n    count: {count}")


def test_a_pod_group_takes_the_workload_named_as_it_or_none(tmp_path):
    pods = GROUP_POD.format(i=1, pre="g") + "---\n" + GROUP_POD.format(i=2, pre="g")
    (tmp_path / "a").mkdir()
    m = _loaded(tmp_path / "a", wl__yaml=_group_workload(2), pods__yaml=pods).model
    (w,) = m.workloads
    assert w.name == "g" and not w.finished and m.skipped == ()
    (tmp_path / "b").mkdir()
    m = _loaded(tmp_path / "b", wl__yaml=_group_workload(1), pods__yaml=pods).model
    ((w,), (s,)) = m.workloads, m.skipped
    assert w.finished and "its pod set `dc85db45` has 1 pods, the group's role 2" in s.reason
    (tmp_path / "c").mkdir()
    (s,) = _loaded(tmp_path / "c", pods__yaml=pods).model.skipped
    assert s.object.name == "g" and "which the input does not hold" in s.reason


def test_a_group_member_naming_another_workload_is_refused(tmp_path):
    ws = _loaded(tmp_path, pods__yaml=GROUP_POD.format(i=1, pre="other"))
    assert [d.message for d in ws.diagnostics if d.code == "KAD170"] == [
        "Kueue's webhook refuses Pod `g-1`: metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]: Invalid value: {}: "
        "prebuilt workload and pod group should be equal"]
    assert ws.model.workloads == ()


def test_a_pod_groups_succeeded_pods_count_against_its_workload(tmp_path):
    # Pod.EquivalentToWorkload counts a role's runnable and Succeeded pods (constructGroupPodSets), before Kueue
    # reclaims the Succeeded ones: 2 against the Workload's 1, out of sync
    # (tests/oracle/features/prebuilt-workload-pod-group-counts-succeeded-pods.yaml)
    created = "  uid: u-{i}\n  labels: {{kueue.x-k8s.io/managed: 'true', "
    done = GROUP_POD.format(i=1, pre="g").replace("  labels: {", created.format(i=1)) + "status: {phase: Succeeded}\n"
    pods = done + "---\n" + GROUP_POD.format(i=2, pre="g")
    m = _loaded(tmp_path, wl__yaml=_group_workload(1), pods__yaml=pods).model
    ((w,), (s,)) = m.workloads, m.skipped
    assert w.finished and "has 1 pods, the group's role 2, counting its Succeeded pods" in s.reason
    (tmp_path / "b").mkdir()
    (w,) = _loaded(tmp_path / "b", wl__yaml=_group_workload(2), pods__yaml=pods).model.workloads
    assert w.name == "g" and not w.finished  # 2 of 2: in sync
