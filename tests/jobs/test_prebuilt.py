"""Jobs naming a prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`): Kueue's ensureOneWorkload
takes it as the job's, or gives the job none (absent, controlled by another, out of sync); the webhook
refuses the label where it is not a DNS subdomain or on a kind it does not support. Each branch is run
against the oracle too: tests/oracle/features/prebuilt-workload-*.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit.manifests.jobs.containerdefaults import pull_policy
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


def test_a_workload_without_the_api_servers_defaults_is_out_of_sync_with_a_warning(tmp_path):
    """The API server sets them in the Job's containers when it creates it, not in the Workload's: Kueue finds the
    Workload out of sync (tests/oracle/features/prebuilt-workload-container-defaults.yaml)."""
    m, diags = _load(tmp_path)
    (w,) = m.workloads
    assert w.name == "pre" and w.finished
    (s,) = m.skipped
    assert s.object.name == "j" and "OutOfSync" in s.reason and "pod set 0: its containers" in s.reason
    (d,) = diags
    assert d.code == "KAD193" and "`imagePullPolicy`, `terminationMessagePath`, `terminationMessagePolicy`" in d.message
    assert "Kueue finds the Workload out of sync (Finished, OutOfSync)" in d.message and "IfNotPresent" in d.help


def test_a_workload_out_of_sync_otherwise_gets_no_warning_of_the_defaults(tmp_path):
    m, diags = _load(tmp_path, count=3)
    assert m.workloads[0].finished and "its count 2 against 3" in m.skipped[0].reason and not diags


# images and the imagePullPolicy the API server gives each (tests/kube/test_prebuilt_defaults.py asks it; the
# oracle's harness: tools/kueue-oracle internal/jobs TestApplyContainerDefaults)
PULL_POLICIES = [
    ("busybox", "Always"), ("busybox:latest", "Always"), ("busybox:1.36", "IfNotPresent"),
    ("localhost:5000/img", "Always"), ("registry.example.com:5000/ml/trainer:2.4", "IfNotPresent"),
    ("busybox@sha256:" + "ab" * 32, "IfNotPresent"), ("busybox:latest@sha256:" + "ab" * 32, "Always"),
    ("busybox@sha256:" + "AB" * 32, "IfNotPresent"), ("Busybox", "IfNotPresent"), ("", "IfNotPresent"),
    ("a" * 64, "IfNotPresent"), ("UPPER.example/x", "Always"), ("host.example/UP/x", "IfNotPresent"),
]


@pytest.mark.parametrize("image, policy", PULL_POLICIES)
def test_the_pull_policy_is_the_api_servers(image, policy):
    """SetDefaults_Container's imagePullPolicy by the image's tag (pkg/util/parsers.ParseImageName); the same
    images on the real API server: tests/kube/test_prebuilt_defaults.py."""
    assert pull_policy(image) == policy


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


def test_a_workload_the_job_already_controls_is_checked_in_sync_too(tmp_path):
    """ensureOneWorkload's prebuilt branch runs before any lookup of the Workloads a job owns: one controlled by
    the job's UID is compared as one it takes (tests/oracle/features/prebuilt-workload-owned-out-of-sync.yaml)."""
    uid = "00000000-0000-0000-0000-000000000001"
    owner = f"\n  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: j, uid: {uid}, controller: true}}]"
    m, _ = _load(tmp_path, defaults=DEFAULTS, owner=owner, uid=f"\n  uid: {uid}", count=3)
    (w,) = m.workloads
    assert w.finished
    (s,) = m.skipped
    assert "its count 2 against 3" in s.reason and "OutOfSync" in s.reason
    m, _ = _load(tmp_path, defaults=DEFAULTS, owner=owner, uid=f"\n  uid: {uid}")
    (w,) = m.workloads
    assert not w.finished and w.origin.name == "j" and not m.skipped


FEATURES = Path(__file__).parents[1] / "oracle" / "features"
TOLERATION_T = "tolerations: [{key: t, operator: Exists, effect: NoSchedule}]"


def _reserved(tmp_path, *, suspend: bool, job_toleration: bool, admitted: bool = False, selector: str = ""):
    """prebuilt-workload-reserved-running-job-out-of-sync.yaml (a Workload holding quota, its flavor tolerating
    `t`, its check Pending) with the Job suspended or not, its template tolerating `t` or not, the Workload
    admitted or not, and both templates with a node selector."""
    text = (FEATURES / "prebuilt-workload-reserved-running-job-out-of-sync.yaml").read_text(encoding="utf-8")
    if suspend:
        text = text.replace("suspend: false", "suspend: true")
    if job_toleration:
        text = text.replace("      restartPolicy: Never\n      containers",
                            f"      restartPolicy: Never\n      {TOLERATION_T}\n      containers")
    if admitted:
        text = text.replace("  admissionChecks:\n  - {name: chk, state: Pending",
                            "  - {type: Admitted, status: \"True\", reason: Admitted, message: x, "
                            "lastTransitionTime: \"2026-11-01T00:00:00Z\"}\n  admissionChecks:\n  - {name: chk, state: Ready")
    for indent in (" " * 8, " " * 6) if selector else ():  # the Workload's template, the Job's
        text = text.replace(f"\n{indent}restartPolicy: Never\n",
                            f"\n{indent}restartPolicy: Never\n{indent}nodeSelector: {{pool: {selector}}}\n")
    p = tmp_path / "case.yaml"
    p.write_text(text, encoding="utf-8")
    m = load([str(p)]).model
    (pre,) = [w for w in m.workloads if w.name == "pre"]
    return pre, m.skipped


@pytest.mark.parametrize("suspend, job_toleration, admitted, selector, in_sync", [
    (True, True, False, "", True),     # the running pod sets (spec + the flavor's t) equal the job's
    (False, True, False, "", True),
    (True, False, False, "", True),    # they differ; the job suspended, its spec is compared: equal
    (False, False, False, "", False),  # they differ, the job runs: out of sync
    (False, False, True, "", True),    # admitted: tolerations not compared
    (False, False, False, "other", True),  # pool: other against the flavor's pool: f0: no running pod sets, the spec
    (False, False, False, "f0", False),    # no conflict: as without a selector
])
def test_a_workload_holding_quota_is_compared_as_it_runs(tmp_path, suspend, job_toleration, admitted, selector,
                                                         in_sync):
    pre, skipped = _reserved(tmp_path, suspend=suspend, job_toleration=job_toleration, admitted=admitted,
                             selector=selector)
    assert pre.finished is not in_sync
    assert (pre.origin is not None and pre.origin.name == "j") is in_sync
    assert bool(skipped) is not in_sync
    if not in_sync:
        assert "its tolerations" in skipped[0].reason and "the job is not suspended" in skipped[0].reason


@pytest.mark.parametrize("parallelism, suspend, in_sync", [
    (2, False, True),   # running at the admitted count
    (4, True, True),    # suspended at the spec's count: the spec is compared
    (4, False, False),  # running at 4: neither the admitted count nor (not suspended) the spec's is compared
    (3, True, False),
])
def test_a_partially_admitted_workload_is_compared_at_its_admitted_count(tmp_path, parallelism, suspend, in_sync):
    text = (FEATURES / "prebuilt-workload-partially-admitted-running.yaml").read_text(encoding="utf-8")
    text = text.replace("  parallelism: 2\n", f"  parallelism: {parallelism}\n")
    if suspend:
        text = text.replace("suspend: false", "suspend: true")
    p = tmp_path / "case.yaml"
    p.write_text(text, encoding="utf-8")
    m = load([str(p)]).model
    (pre,) = [w for w in m.workloads if w.name == "pre"]
    assert pre.finished is not in_sync and bool(m.skipped) is not in_sync


def test_two_jobs_naming_one_uncontrolled_workload_are_warned_about(tmp_path):
    """The first in input order takes it (as the oracle, which reconciles in input order); on a cluster it is
    whichever Kueue reconciles first: KAD194 names both (docs/KUEUE-DIFFERENCES.md §1)."""
    ws = load([str(FEATURES / "prebuilt-workload-two-jobs-name-one.yaml")])
    (w,) = [w for w in ws.model.workloads if w.name == "pre"]
    assert w.origin.name == "j" and not w.finished
    (s,) = ws.model.skipped
    assert s.object.name == "k" and "which Job `j` names too and, taken first in input order, controls" in s.reason
    (d,) = [d for d in ws.diagnostics if d.code == "KAD194"]
    assert d.message.startswith("Job `j` and Job `k` both name the prebuilt Workload `ns/pre`")
    assert [label.message for label in d.labels] == ["Job `j` names `ns/pre` too", "the Workload"]


def test_a_workload_one_job_controls_is_not_in_question(tmp_path):
    """With the Workload's controller the first Job (its UID), the second finds it controlled by another
    whatever the order: no KAD194."""
    uid = "00000000-0000-0000-0000-000000000001"
    text = (FEATURES / "prebuilt-workload-two-jobs-name-one.yaml").read_text(encoding="utf-8")
    text = text.replace("metadata: {name: pre, namespace: ns,",
                        f"metadata: {{ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: j, uid: {uid}, "
                        "controller: true}], name: pre, namespace: ns,")
    text = text.replace("  name: j\n  namespace: ns\n", f"  name: j\n  namespace: ns\n  uid: {uid}\n")
    head, j, k = text.split("---\napiVersion: batch/v1\nkind: Job\n")  # j as the server holds it: defaulted
    text = "---\napiVersion: batch/v1\nkind: Job\n".join((head, j.replace("image: busybox, ", SERVER_SET), k))
    p = tmp_path / "owned.yaml"
    p.write_text(text, encoding="utf-8")
    ws = load([str(p)])
    (s,) = ws.model.skipped
    assert s.object.name == "k" and "which Job `j` controls (its controller ownerReference)" in s.reason
    assert not [d for d in ws.diagnostics if d.code == "KAD194"]


# what the API server sets in a Job's container of image `busybox` (and the features' prebuilt Workloads set)
SERVER_SET = ("image: busybox, imagePullPolicy: Always, terminationMessagePath: /dev/termination-log, "
              "terminationMessagePolicy: File, ")


# what the API server sets in a Job's probe (SetDefaults_Probe; the oracle's kubevalidate applies it)
PROBE_SET = "timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3"

# (the Workload's container fields, the Job's, in sync?) each as the oracle decides it (Semantic.DeepEqual on the Go
# values: a zero bool, number or string is an absent one; a pointer set, even to `{}` or `false`, is not nil)
GO_VALUES = [
    ("", "stdin: false, ", True),
    ("", "workingDir: '', ", True),
    ("", "args: null, ", True),
    ("", "env: [], ", True),
    ("env: [{name: A}], ", "env: [{name: A, value: ''}], ", True),
    (f"readinessProbe: {{exec: {{command: [a]}}, {PROBE_SET}}}, ",
     "readinessProbe: {exec: {command: [a]}, periodSeconds: 0}, ", True),
    # the probe's defaults left out of the Workload's: the Job's are set (SetDefaults_Probe), out of sync
    ("readinessProbe: {exec: {command: [a]}}, ", "readinessProbe: {exec: {command: [a]}}, ", False),
    (f"readinessProbe: {{httpGet: {{port: 80}}, {PROBE_SET}}}, ", "readinessProbe: {httpGet: {port: 80}}, ", False),
    (f"readinessProbe: {{httpGet: {{port: 80, path: /, scheme: HTTP}}, {PROBE_SET}}}, ",
     "readinessProbe: {httpGet: {port: 80}}, ", True),
    ("ports: [{containerPort: 80, protocol: TCP}], ", "ports: [{containerPort: 80, protocol: TCP, hostPort: 0}], ", True),
    ("", "securityContext: {}, ", False),
    ("", "lifecycle: {}, ", False),  # (a probe without a handler: the API server refuses the Job)
    ("securityContext: {}, ", "securityContext: {privileged: false}, ", False),
    (f"readinessProbe: {{httpGet: {{port: 80, path: /, scheme: HTTP}}, {PROBE_SET}}}, ",
     "readinessProbe: {httpGet: {port: http}}, ", False),  # (a port `'80'`: no IANA name, the API server refuses it)
    ("env: [{name: A, valueFrom: {configMapKeyRef: {name: x, key: k}}}], ",
     "env: [{name: A, valueFrom: {configMapKeyRef: {name: x, key: k, optional: false}}}], ", False),
    ("tty: true, ", "tty: false, ", False),
    # the Workload CRD's pod-template defaults, which both sides carry on a cluster (prebuilt.SCHEMA_DEFAULTS)
    ("ports: [{containerPort: 80, protocol: TCP}], ", "ports: [{containerPort: 80}], ", True),
    ("ports: [{containerPort: 80, protocol: UDP}], ", "ports: [{containerPort: 80}], ", False),
    (f"readinessProbe: {{grpc: {{port: 80}}, {PROBE_SET}}}, ", "readinessProbe: {grpc: {port: 80, service: ''}}, ", True),
]


@pytest.mark.parametrize("workload, job, in_sync", GO_VALUES)
def test_containers_are_compared_as_go_values(tmp_path, workload, job, in_sync):
    text = (FEATURES / "prebuilt-workload-adopted.yaml").read_text(encoding="utf-8")
    text = text.replace(f"containers: [{{name: c, {SERVER_SET}resources: {{requests: {{cpu: \"1000m\"}}}}}}]",
                        f"containers: [{{name: c, {SERVER_SET}{workload}resources: {{requests: {{cpu: \"1000m\"}}}}}}]")
    text = text.replace("containers: [{name: c, image: busybox, resources: {requests: {cpu: \"1\"}}}]",
                        f"containers: [{{name: c, image: busybox, {job}resources: {{requests: {{cpu: \"1\"}}}}}}]")
    p = tmp_path / "case.yaml"
    p.write_text(text, encoding="utf-8")
    m = load([str(p)]).model
    (pre,) = [w for w in m.workloads if w.name == "pre"]
    assert pre.finished is not in_sync and bool(m.skipped) is not in_sync


def test_the_go_types_are_core_v1s():
    """data/gotypes.json is what tools/gotypes prints from k8s.io/api (run where Go and the module cache are)."""
    import json
    import os
    import shutil
    import subprocess

    go = shutil.which("go") or "/usr/local/go/bin/go"
    tools = Path(__file__).parents[2] / "tools" / "gotypes"
    # its modules come through the Go module proxy, checked against the committed go.sum, as the oracle's do
    out = subprocess.run([go, "run", "."], cwd=tools, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "GOFLAGS": "-mod=readonly"})
    assert out.returncode == 0, out.stderr
    data = Path(__file__).parents[2] / "src" / "kadmit" / "manifests" / "schema" / "data" / "gotypes.json"
    assert json.loads(out.stdout) == json.loads(data.read_text(encoding="utf-8"))
