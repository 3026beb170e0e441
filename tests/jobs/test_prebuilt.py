"""Jobs naming a prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`): Kueue's ensureOneWorkload
takes it as the job's, or gives the job none (absent, controlled by another, out of sync); the webhook
refuses the label where it is not a DNS subdomain or on a kind it does not support. Each branch is run
against the oracle too: tests/oracle/features/prebuilt-workload-*.yaml."""

from __future__ import annotations

import pytest

from kadmit.workspace import load

from .helpers import SETUP, write

WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: pre
  namespace: default{owner}
spec:
  queueName: user-queue{exec}
  podSets:
  - name: main
    count: {count}
    template:
      spec:
        restartPolicy: Never
        tolerations: [{{key: a, operator: Exists}}]
        containers: [{{name: c, image: x, {defaults}resources: {{requests: {{cpu: "{cpu}"}}}}}}]
{status}"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j{uid}
  labels: {{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/prebuilt-workload-name: {name}{labels}}}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      tolerations: [{{key: {toleration}, operator: Exists}}]
      containers: [{{name: c, image: x, {defaults}resources: {{requests: {{cpu: "{job_cpu}"}}}}}}]
"""
DEFAULTS = "imagePullPolicy: Always, terminationMessagePath: /dev/termination-log, terminationMessagePolicy: File, "
ADMITTED = """\
status:
  admission:
    clusterQueue: cluster-queue
    podSetAssignments: [{name: main, count: 2, flavors: {cpu: default-flavor}, resourceUsage: {cpu: "2"}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: x, lastTransitionTime: "2026-11-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: x, lastTransitionTime: "2026-11-01T00:00:00Z"}
"""


def _load(tmp_path, *, name="pre", count=2, cpu="1000m", job_cpu="1", owner="", exec="", labels="", uid="",
          defaults="", toleration="a", status=""):
    files = {"setup__yaml": SETUP, "job__yaml": JOB.format(name=name, labels=labels, uid=uid, defaults=defaults,
                                                           toleration=toleration, job_cpu=job_cpu)}
    files["wl__yaml"] = WORKLOAD.format(count=count, cpu=cpu, owner=owner, exec=exec, defaults=defaults,
                                        status=status)
    ws = load(write(tmp_path, **files))
    return ws.model, [d for d in ws.diagnostics]


def test_the_job_takes_its_prebuilt_workload_as_its_own(tmp_path):
    m, diags = _load(tmp_path, defaults=DEFAULTS)
    (w,) = m.workloads  # one Workload: `1000m` and `1` are one quantity to Kueue's comparison
    assert (w.name, w.origin.name, w.queue) == ("pre", "j", "user-queue")
    assert not m.skipped and not diags


def test_a_workload_without_the_api_servers_defaults_is_taken_with_a_warning(tmp_path):
    m, diags = _load(tmp_path)
    assert [w.name for w in m.workloads] == ["pre"]
    (d,) = diags
    assert d.code == "KAD193" and "`imagePullPolicy`, `terminationMessagePath`, `terminationMessagePolicy`" in d.message


def test_a_job_read_back_from_a_cluster_is_not_warned_about(tmp_path):
    m, diags = _load(tmp_path, uid="\n  uid: 00000000-0000-0000-0000-000000000001")
    assert [w.name for w in m.workloads] == ["pre"] and not diags


def test_an_absent_prebuilt_workload_gives_the_job_none(tmp_path):
    m, _ = _load(tmp_path, name="other")
    assert [(w.name, w.origin) for w in m.workloads] == [("pre", None)]  # decided alone
    (s,) = m.skipped
    assert "prebuilt Workload `default/other`" in s.reason and "ErrPrebuiltWorkloadNotFound" in s.reason


def test_a_workload_another_object_controls_is_left_to_it(tmp_path):
    owner = ("\n  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: k, uid: \"1111\", controller: true}]")
    m, _ = _load(tmp_path, owner=owner)
    (w,) = m.workloads
    assert w.origin.name == "k"
    (s,) = m.skipped
    assert "which Job `k` controls" in s.reason


@pytest.mark.parametrize("kw, what", [
    ({"count": 3}, "its count 2 against 3"),
    ({"cpu": "2"}, "its containers"),
    ({"toleration": "b"}, "its tolerations"),
    ({"exec": "\n  maximumExecutionTimeSeconds: 60"}, "maximumExecutionTimeSeconds None against 60"),
    ({"exec": "\n  maximumExecutionTimeSeconds: 60", "labels": ", kueue.x-k8s.io/max-exec-time-seconds: \"61\""},
     "maximumExecutionTimeSeconds 61 against 60"),
])
def test_an_out_of_sync_workload_is_finished_and_the_job_gets_none(tmp_path, kw, what):
    m, _ = _load(tmp_path, **{"defaults": DEFAULTS, **kw})
    (w,) = m.workloads
    assert w.finished
    (s,) = m.skipped
    assert what in s.reason and "OutOfSync" in s.reason


def test_an_admitted_workloads_tolerations_are_not_compared(tmp_path):
    m, _ = _load(tmp_path, defaults=DEFAULTS, toleration="b", status=ADMITTED)
    (w,) = m.workloads
    assert not w.finished and w.origin.name == "j" and not m.skipped


def test_the_webhook_refuses_a_name_that_is_no_dns_subdomain(tmp_path):
    _, diags = _load(tmp_path, name="Pre_X")
    (d,) = [d for d in diags if d.code == "KAD170"]
    assert 'metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]: Invalid value: "Pre_X": ' in d.message


def test_the_webhook_refuses_the_label_on_a_kind_it_does_not_support(tmp_path):
    jax = """\
    apiVersion: kubeflow.org/v1
    kind: JAXJob
    metadata:
      name: jax
      labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/prebuilt-workload-name: pre}
    spec:
      jaxReplicaSpecs:
        Worker:
          replicas: 1
          template:
            spec:
              containers: [{name: jax, image: x, resources: {requests: {cpu: "1"}}}]
    """
    ws = load(write(tmp_path, setup__yaml=SETUP, jax__yaml=jax))
    (d,) = [d for d in ws.diagnostics if d.code == "KAD170"]
    assert d.message.endswith('Forbidden: Is not supported for "kubeflow.org/v1, Kind=JAXJob"')
