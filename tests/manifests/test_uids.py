"""Two jobs with one `metadata.uid` (KAD198): reported at the later one's UID, naming the first's
place, and both decided, as Kueue's job reconciler (which tells jobs apart by kind and name) does."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kadmit.workspace import load

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f0, resources: [{name: cpu, nominalQuota: "4"}]}]}]
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
"""


def job(name: str, uid: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: {name}
          namespace: ns
          uid: {uid}
          labels: {{kueue.x-k8s.io/queue-name: lq}}
        spec:
          suspend: true
          template:
            spec: {{restartPolicy: Never, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}
        """)


UID = "00000000-0000-0000-0001-000000000001"


def test_a_shared_uid_is_reported_at_the_later_job_naming_the_first(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(QUEUES + "---\n" + job("a", UID))
    (tmp_path / "b.yaml").write_text(job("b", UID) + "---\n" + job("c", UID.replace("1", "2")))
    ws = load([str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")])
    found = [d for d in ws.diagnostics if d.code == "KAD198"]
    assert len(found) == 1
    d = found[0]
    assert (Path(d.span.file).name, d.span.line, d.span.column) == ("b.yaml", 6, 8)
    assert d.span.end_column == 8 + len(UID)
    assert f"`Job/ns/b` has the UID `{UID}` of `Job/ns/a` ({tmp_path / 'a.yaml'}:26:8)" in d.message
    assert [(Path(lb.span.file).name, lb.span.line) for lb in d.labels] == [("a.yaml", 26)]
    # both are work, each its own Workload (Kueue names it from the job's own name and the UID)
    made = {w.origin.name: w.name for w in ws.model.workloads}
    assert set(made) == {"a", "b", "c"}
    assert made["a"] != made["b"]


def test_distinct_uids_are_not_reported(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(QUEUES + "---\n" + job("a", UID) + "---\n" + job("b", UID.replace("1", "3")))
    ws = load([str(tmp_path / "m.yaml")])
    assert not [d for d in ws.diagnostics if d.code == "KAD198"]
    assert len(ws.model.workloads) == 2


def test_an_existing_workload_belongs_to_its_owner_by_name_when_the_uid_is_shared(tmp_path: Path) -> None:
    """Job a's Workload is in the input, owned by a (with the shared UID): it is a's only, and b,
    with no Workload of its own, gets one made, as Kueue's reconciler (owner kind and name) does."""
    existing = textwrap.dedent(f"""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata:
          name: job-a-4e09e
          namespace: ns
          ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: a, uid: {UID}, controller: true}}]
        spec:
          queueName: lq
          podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
        """)
    (tmp_path / "m.yaml").write_text(QUEUES + "---\n" + job("a", UID) + "---\n" + job("b", UID) + "---\n" + existing)
    ws = load([str(tmp_path / "m.yaml")])
    owners = sorted((w.origin.name, w.name) for w in ws.model.workloads if w.origin is not None)
    assert [o for o, _ in owners] == ["a", "b"], owners
    assert dict(owners)["a"] == "job-a-4e09e"


def workload(name: str, uid: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {{name: {name}, namespace: ns, uid: {uid}}}
        spec:
          queueName: lq
          podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, image: x}}]}}}}}}]
        """)


def test_two_workloads_with_one_uid_are_reported(tmp_path: Path) -> None:
    """Kueue breaks its last ties by UID (queue order, preemption victims): two Workloads sharing
    one tie in Go's map order (tests/oracle/features/tie-victims-with-one-uid.yaml). Reported at
    the later UID; pods sharing a UID are not (Kueue counts their node usage by name)."""
    pods = "".join("---\n" + textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: {n}, namespace: ns, uid: {UID.replace("1", "7")}}}
        spec: {{nodeName: n1, containers: [{{name: c, image: x}}]}}
        """) for n in ("p", "q"))
    (tmp_path / "m.yaml").write_text(QUEUES + "---\n" + workload("v1", UID) + "---\n" + workload("v2", UID)
                                     + "---\n" + workload("v3", UID.replace("1", "3")) + pods)
    ws = load([str(tmp_path / "m.yaml")])
    (d,) = [d for d in ws.diagnostics if d.code == "KAD198"]
    assert d.message.startswith(f"Workload `ns/v2` has the UID `{UID}` of Workload `ns/v1` ({tmp_path / 'm.yaml'}:")
    assert (d.span.line, d.span.end_column - d.span.column) == (30, len(UID))
    assert "Go's map order" in d.notes[0]
    assert len(ws.model.workloads) == 3


def test_a_jobs_workload_has_the_jobs_uid_as_its_job_uid(tmp_path: Path) -> None:
    """Kueue's job reconciler labels the Workload it makes `kueue.x-k8s.io/job-uid: <the job's UID>`
    (jobframework ConstructWorkload), which a victim's Preempted message names ("JobUID: …"): the input's
    `metadata.uid`; none for a job without one (the API server gives it one kadmit can't know), and the
    Workload's own `metadata.uid` is the API server's (none)."""
    no_uid = job("b", UID).replace(f"  uid: {UID}\n", "")
    (tmp_path / "m.yaml").write_text(QUEUES + "---\n" + job("a", UID) + "---\n" + no_uid)
    ws = load([str(tmp_path / "m.yaml")])
    got = {j.object.name: [(w.uid, w.job_uid) for w in j.workloads] for j in ws.model.jobs}
    assert got == {"a": [("", UID)], "b": [("", "")]}, got



def _deployment(name: str, uid: str, status: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {name}
          namespace: ns
          uid: {uid}
          labels: {{kueue.x-k8s.io/queue-name: lq}}
        spec:
          replicas: 2
          selector: {{matchLabels: {{app: {name}}}}}
          template:
            metadata:
              labels: {{app: {name}, kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: "true"}}
              annotations: {{kueue.x-k8s.io/pod-suspending-parent: deployment}}
            spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}
        """) + status


def test_a_deployment_replicas_workload_has_its_pods_uid(tmp_path: Path) -> None:
    """A Deployment's replica is a plain pod whose Workload Kueue's pod reconciler labels with the pod's UID
    (ConstructWorkload on the Pod), not the Deployment's: a Deployment in the cluster (a UID, its template
    marked by Kueue's webhook) whose pods the input does not hold yet (no status) gives each replica's Workload
    no job-uid (`apps.deployment`: the API server gives the pods their UIDs), one rolled out (a status) whose pod
    the input holds gives that pod's Workload the pod's UID; the Job beside them gives its Workload its own."""
    pod_uid = UID.replace("1", "6")
    pod = textwrap.dedent(f"""\
        apiVersion: v1
        kind: Pod
        metadata:
          name: up-5d8f7c9b4-aaaaa
          namespace: ns
          uid: {pod_uid}
          labels: {{app: up, pod-template-hash: 5d8f7c9b4, kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: "true"}}
          annotations: {{kueue.x-k8s.io/pod-suspending-parent: deployment}}
          ownerReferences:
          - {{apiVersion: apps/v1, kind: ReplicaSet, name: up-5d8f7c9b4, uid: {UID.replace("1", "8")}, controller: true}}
        spec:
          schedulingGates: [{{name: kueue.x-k8s.io/admission}}]
          containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
        status: {{phase: Pending}}
        """)
    (tmp_path / "m.yaml").write_text("---\n".join((
        QUEUES, job("a", UID), _deployment("new", UID.replace("1", "3"), ""),
        _deployment("up", UID.replace("1", "4"), "status: {replicas: 1}\n"), pod)))
    ws = load([str(tmp_path / "m.yaml")])
    got = {w.name: w.job_uid for w in ws.model.workloads}
    assert sorted(got.values()) == ["", "", UID, pod_uid], got
    assert all(got[name] == "" for name in got if name.startswith("pod-new-")), got
