"""Diagnostics naming one object say which (`Diagnostic.about`, `about` in JSON): a workload's local queue missing
(KAD202), Kueue's webhook refusing a job (KAD170), the API server refusing every pod of a pod set (KAD199), and
`why` on an object that is not pending work (KAD011)."""

from __future__ import annotations

import json
from pathlib import Path

from cli.test_admit_may_differ import CONFIG, REFUSED
from jobs.helpers import SETUP
from test_about_coverage import NOT_ABOUT_AN_OBJECT

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: NAME, namespace: NS, LABELS}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]
"""


def _job(name: str, ns: str = "default", queue: str | None = "user-queue") -> str:
    labels = f"labels: {{kueue.x-k8s.io/queue-name: {json.dumps(queue)}}}" if queue else "labels: {}"
    return "---\n" + JOB.replace("NAME", name).replace("NS", ns).replace("LABELS", labels)


def _about(diagnostics: list[dict], code: str) -> list[list[dict]]:
    return [d["about"] for d in diagnostics if d["code"] == code]


def test_each_diagnostic_names_its_object(run) -> None:
    run.write("in.yaml", CONFIG + SETUP + _job("lost", queue="no-such-queue") + _job("bad", queue="Not_A_Name")
              + "---\n" + REFUSED.replace("NAME", "refused"))
    said = json.loads(run("check", "--format", "json", "in.yaml").stdout)["diagnostics"]
    assert _about(said, "KAD202") == [[{"kind": "Job", "namespace": "default", "name": "lost"}]]
    assert _about(said, "KAD170") == [[{"kind": "Job", "namespace": "default", "name": "bad"}]]
    assert _about(said, "KAD199") == [[{"kind": "JobSet", "namespace": "default", "name": "refused"}]]


def test_why_on_work_not_pending_names_the_object(run) -> None:
    run.write("in.yaml", SETUP + _job("plain", queue=None))
    out = run("why", "default/plain", "--format", "json", "in.yaml")
    assert _about(json.loads(out.stdout)["diagnostics"], "KAD011") == [
        [{"kind": "Job", "namespace": "default", "name": "plain"}]], out.output


FEATURES = Path(__file__).resolve().parents[1] / "oracle/features"


def test_a_job_and_the_workload_it_names(run) -> None:
    """KAD161 (a job Kueue admits and fails to start) names the job; KAD193 (a prebuilt Workload out of sync by the
    API server's container defaults) the job and the Workload; KAD172 (an undefined priority class) the job."""
    run.write("in.yaml", SETUP + _job("classy").replace("labels: {", "labels: {kueue.x-k8s.io/priority-class: nope, "))
    said = [d for case in ("tie-job-start-fails-reconcile-timing.yaml", "prebuilt-workload-container-defaults.yaml")
            for d in json.loads(run("check", "--format", "json", str(FEATURES / case)).stdout)["diagnostics"]]
    said += json.loads(run("check", "--format", "json", "in.yaml").stdout)["diagnostics"]
    assert _about(said, "KAD161") == [[{"kind": "Job", "namespace": "ns", "name": "bad"}]]
    assert _about(said, "KAD193") == [[{"kind": "Job", "namespace": "ns", "name": "unset"},
                                       {"kind": "Workload", "namespace": "ns", "name": "pre-unset"}]]
    assert _about(said, "KAD172") == [[{"kind": "Job", "namespace": "default", "name": "classy"}]]


WORKLOAD = """\
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: NAME, namespace: default, uid: UID}
spec:
  QUEUE
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1}}}]}}}]
"""


def _workload(name: str, uid: str = "", queue: str = "queueName: user-queue") -> str:
    return WORKLOAD.replace("NAME", name).replace("UID", json.dumps(uid)).replace("QUEUE", queue)


def test_workloads_and_jobs_named_by_the_reader(run) -> None:
    """KAD164 (no queue), KAD204 (a priority class), KAD157 (a class and no priority: the CRD refuses it), KAD198 (a UID carried twice: both objects, the
    second first), KAD167 (a JobSet with no replicated jobs)."""
    jobs = _job("j1").replace("namespace: default,", "namespace: default, uid: u2,") \
        + _job("j2").replace("namespace: default,", "namespace: default, uid: u2,")
    run.write("in.yaml", SETUP + _workload("noq", queue="") + _workload("classy", "u1", "queueName: user-queue\n  "
              "priorityClassName: high\n  priority: 5") + _workload("twin", "u1") + jobs
              + "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: empty, namespace: default, "
              "labels: {kueue.x-k8s.io/queue-name: user-queue}}\nspec: {replicatedJobs: []}\n"
              + _workload("classless", queue="queueName: user-queue\n  priorityClassName: high"))
    said = json.loads(run("check", "--format", "json", "in.yaml").stdout)["diagnostics"]

    def wl(name: str) -> dict:
        return {"kind": "Workload", "namespace": "default", "name": name}

    assert _about(said, "KAD164") == [[wl("noq")]]
    assert _about(said, "KAD204") == [[wl("classy")]]
    assert _about(said, "KAD157") == [[wl("classless")]]
    assert _about(said, "KAD198") == [[wl("twin"), wl("classy")], [
        {"kind": "Job", "namespace": "default", "name": "j2"}, {"kind": "Job", "namespace": "default", "name": "j1"}]]
    assert _about(said, "KAD167") == [[{"kind": "JobSet", "namespace": "default", "name": "empty"}]]


CLUSTER_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: nope, resources: [{name: cpu, nominalQuota: -1}]}]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: Bad_Name, namespace: ns, labels: {"bad key!": x, kueue.x-k8s.io/queue-name: q}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: missing}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec: {containers: [{name: c, image: x}], schedulingGates: [{name: g}]}
"""


def test_the_reader_and_validator_name_the_object(run) -> None:
    """A field the reader refuses (KAD158), a name and a label key (KAD195, KAD196: the KAD19x name checks), a
    reference the validator finds missing (KAD200, KAD201), a kind not served in its version (KAD171)."""
    run.write("in.yaml", CLUSTER_QUEUE + "---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c, "
              "namespace: ns}\n")
    said = json.loads(run("check", "--format", "json", "in.yaml").stdout)["diagnostics"]
    about = {d["code"]: d["about"] for d in said}

    def obj(kind: str, name: str, namespace: str | None = None) -> list[dict]:
        return [{"kind": kind, "namespace": namespace, "name": name}]

    assert about["KAD158"] == obj("ClusterQueue", "cq")
    assert about["KAD195"] == about["KAD196"] == obj("Job", "Bad_Name", "ns")
    assert about["KAD201"] == obj("LocalQueue", "lq", "ns")
    assert about["KAD171"] == obj("CronJob", "c", "ns")
    assert all(d["about"] for d in said if d["code"] not in NOT_ABOUT_AN_OBJECT), said
