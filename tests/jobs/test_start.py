"""Kueue's start of a suspended job whose Workload is admitted (jobframework startJob; docs/INTEGRATIONS.md
J12): a conflicting merge of the admission into the job's pods finishes the Workload (FailedToStart), with
Kueue's error, for every kind that merges; what Kueue never starts keeps its quota. Against the oracle:
tests/oracle/features/admitted-{workload,job,jobset,pods}-start-*.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import api
from kadmit.manifests.jobs.start import FAILED_TO_START
from kadmit.workspace import load

from .helpers import model_of, write

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f0}
spec: {nodeLabels: {pool: f0}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f0, resources: [{name: cpu, nominalQuota: "8"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
"""
UID = "00000000-0000-0000-0002-000000000001"


def workload(kind: str, api_version: str, name: str, pod_sets: list[tuple[str, int]], *, admitted: bool = True,
             evicted: bool = False, updates: str = "") -> str:
    """The admitted Workload `kind` `name` (UID `UID`) controls, one pod set per (name, count), each on f0."""
    sets = "".join(f"""
  - name: {n}
    count: {c}
    template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}""" for n, c in pod_sets)
    assignments = "".join(f"""
    - {{name: {n}, count: {c}, flavors: {{cpu: f0}}, resourceUsage: {{cpu: "{c}"}}}}""" for n, c in pod_sets)
    conditions = ['{type: QuotaReserved, status: "True", reason: QuotaReserved, message: x, lastTransitionTime: "2026-11-01T00:01:00Z"}']
    if admitted:
        conditions.append('{type: Admitted, status: "True", reason: Admitted, message: x, lastTransitionTime: "2026-11-01T00:01:00Z"}')
    if evicted:
        conditions.append('{type: Evicted, status: "True", reason: Preempted, message: x, lastTransitionTime: "2026-11-01T00:02:00Z"}')
    return f"""\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: wl
  namespace: default
  ownerReferences: [{{apiVersion: {api_version}, kind: {kind}, name: {name}, uid: {UID}, controller: true}}]
spec:
  queueName: lq
  podSets:{sets}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:{assignments}
  conditions: [{", ".join(conditions)}]
{updates}"""


def started(tmp_path: Path, *docs: str) -> tuple[str, str]:
    """The Workload's finished reason ("" while it holds its quota) and the reason its job is skipped ("")."""
    model = model_of(tmp_path, cluster__yaml=CLUSTER + "".join(docs))
    (wl,) = [w for w in model.workloads if w.name == "wl"]
    assert wl.finished == bool(wl.finished_reason) and (wl.admission is not None)
    skipped = [s.reason for s in model.skipped if s.object.uid == UID or s.object.name in ("g", "p")]
    return wl.finished_reason, skipped[0] if skipped else ""


def job(selector: str = "{pool: x}", suspend: str = "true", labels: str = "{}") -> str:
    return f"""\
---
apiVersion: batch/v1
kind: Job
metadata: {{name: j, namespace: default, uid: {UID}, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  suspend: {suspend}
  parallelism: 2
  completions: 2
  template:
    metadata: {{labels: {labels}}}
    spec:
      restartPolicy: Never
      nodeSelector: {selector}
      containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
status: {{active: 0}}
"""


JOB_WL = workload("Job", "batch/v1", "j", [("main", 2)])
CONFLICT = "invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for key=pool, value1=x, value2=f0"


def test_a_job_whose_template_selects_against_its_flavor_is_finished(tmp_path):
    reason, skipped = started(tmp_path, job(), JOB_WL)
    assert reason == f"{FAILED_TO_START}: {CONFLICT}"
    assert "its Workload `default/wl` is admitted, but Kueue's job reconciler cannot start it" in skipped
    assert CONFLICT in skipped and "Finished, reason FailedToStart" in skipped


@pytest.mark.parametrize("case", ["running", "evicted", "same selector"])
def test_what_kueue_does_not_start_or_starts_keeps_its_quota(tmp_path, case):
    docs = {"running": (job(suspend="false"), JOB_WL),
            "evicted": (job(), workload("Job", "batch/v1", "j", [("main", 2)], evicted=True)),
            "same selector": (job(selector="{pool: f0}"), JOB_WL)}[case]
    assert started(tmp_path, *docs) == ("", "")


CHECKED = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: chk}
spec: {controllerName: example.com/check}
"""


@pytest.mark.parametrize("state", ["", "Ready", "Pending"])
def test_a_reservation_kueue_admits_next_is_started(tmp_path, state):
    """Quota reserved, no Admitted condition: Kueue's workload controller admits it where every check its
    ClusterQueue requires is Ready (none, or chk Ready; `start.admitted_next`), and the start then fails; with
    chk Pending it waits, holding its quota (tests/oracle/features/reserved-workload-checks-ready-start-fails.yaml)."""
    checks = f"""\
  admissionChecks:
  - {{name: chk, state: {state}, message: "", lastTransitionTime: "2026-11-01T00:01:00Z"}}
""" if state else ""
    strategy = "  namespaceSelector: {}\n  admissionChecksStrategy: {admissionChecks: [{name: chk}]}\n"
    cluster = CLUSTER.replace("  namespaceSelector: {}\n", strategy) + CHECKED if state else CLUSTER
    model = model_of(tmp_path, cluster__yaml=cluster + job() + workload("Job", "batch/v1", "j", [("main", 2)],
                                                                         admitted=False, updates=checks))
    (wl,) = [w for w in model.workloads if w.name == "wl"]
    assert wl.finished_reason == ("" if state == "Pending" else f"{FAILED_TO_START}: {CONFLICT}")
    skipped = [s.reason for s in model.skipped if s.object.uid == UID]
    assert skipped == ([] if state == "Pending" else [
        skipped[0]]) and (state == "Pending" or "so Kueue's workload controller admits it" in skipped[0])


def test_annotations_conflict_before_labels_and_the_pod_set_label_is_kueues(tmp_path):
    labels = "{kueue.x-k8s.io/podset: other}"
    reason, _ = started(tmp_path, job(selector="{}", labels=labels), JOB_WL)
    assert reason.endswith("conflict for labels: conflict for key=kueue.x-k8s.io/podset, value1=other, value2=main")
    with_annotation = job(selector="{}", labels=labels).replace(
        "    metadata: {labels: ", "    metadata: {annotations: {kueue.x-k8s.io/workload: other}, labels: ")
    reason, _ = started(tmp_path, with_annotation, JOB_WL)
    assert reason.endswith("conflict for annotations: conflict for key=kueue.x-k8s.io/workload, value1=other, value2=wl")


def test_an_admission_check_update_conflicting_with_the_flavor_fails_any_kind(tmp_path):
    update = """\
  admissionChecks:
  - {name: chk, state: Ready, message: "", lastTransitionTime: "2026-11-01T00:01:00Z", podSetUpdates: [{name: main, nodeSelector: {pool: other}}]}
"""
    reason, _ = started(tmp_path, job(selector="{}"), workload("Job", "batch/v1", "j", [("main", 2)], updates=update))
    assert reason == (f'{FAILED_TO_START}: in admission check "chk": invalid admission check PodSetUpdate: conflict '
                      "for nodeSelector: conflict for key=pool, value1=f0, value2=other")


def test_an_mpijob_merges_pod_set_i_into_replica_type_i(tmp_path):
    mpi = f"""\
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {{name: m, namespace: default, uid: {UID}, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  runPolicy: {{suspend: true}}
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
    Worker:
      replicas: 2
      template: {{spec: {{nodeSelector: {{pool: x}}, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
"""
    reason, _ = started(tmp_path, mpi, workload("MPIJob", "kubeflow.org/v2beta1", "m", [("launcher", 1), ("worker", 2)]))
    assert reason == f"{FAILED_TO_START}: {CONFLICT}"


def test_an_appwrapper_merges_into_no_template(tmp_path):
    """AppWrapper.RunWithPodSetsInfo hands the infos to its controller (SetPodSetInfos): nothing conflicts."""
    aw = f"""\
---
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {{name: aw, namespace: default, uid: {UID}, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  suspend: true
  components:
  - template:
      apiVersion: v1
      kind: Pod
      metadata: {{name: p}}
      spec: {{restartPolicy: Never, nodeSelector: {{pool: x}}, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}
"""
    model = model_of(tmp_path, cluster__yaml=CLUSTER + aw)
    (made,) = [w for w in model.workloads if w.origin is not None and w.origin.name == "aw"]
    names = [(ps.name, ps.count) for ps in made.pod_sets]
    owned = workload("AppWrapper", "workload.codeflare.dev/v1beta2", "aw", names)
    assert started(tmp_path, aw, owned) == ("", "")
    model = model_of(tmp_path, cluster__yaml=CLUSTER + aw + owned)  # the AppWrapper's Workload: the input's
    assert [w.name for w in model.workloads if w.origin is not None and w.origin.name == "aw"] == ["wl"]


def test_a_pod_group_member_whose_role_has_no_pod_set_fails_to_start(tmp_path):
    pods = "".join(f"""\
---
apiVersion: v1
kind: Pod
metadata:
  name: g-{i}
  namespace: default
  uid: 00000000-0000-0000-0004-00000000000{i}
  labels: {{kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/managed: "true", kueue.x-k8s.io/pod-group-name: g}}
  annotations: {{kueue.x-k8s.io/pod-group-total-count: "2", kueue.x-k8s.io/role-hash: {role}}}
spec:
  schedulingGates: [{{name: kueue.x-k8s.io/admission}}]
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]
status: {{phase: Pending}}
""" for i, role in ((0, "aaaa0000"), (1, "bbbb1111")))
    owned = workload("Pod", "v1", "g-0", [("aaaa0000", 1), ("cccc2222", 1)]).replace(
        f"[{{apiVersion: v1, kind: Pod, name: g-0, uid: {UID}, controller: true}}]",
        "[{apiVersion: v1, kind: Pod, name: g-0, uid: 00000000-0000-0000-0004-000000000000}]").replace(
        "name: wl\n", "name: g\n")
    model = model_of(tmp_path, cluster__yaml=CLUSTER + pods + owned)
    (wl,) = [w for w in model.workloads if w.name == "g"]
    assert wl.finished_reason == (f"{FAILED_TO_START}: invalid podset infos: podSetInfo with the name 'bbbb1111' "
                                  "is not found")


def test_why_gives_kueues_finished_condition(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(CLUSTER + job() + JOB_WL)
    (reason,) = api.why("default/wl", [str(path)], fixes=0).result.reasons
    assert reason.code == "KAD501" and reason.message == (
        f"the workload is finished (Kueue's Finished condition: reason FailedToStart, message \"{CONFLICT}\"), so it "
        "holds no quota")


def test_a_pending_job_kueue_would_admit_and_fail_to_start_is_warned_about(tmp_path):
    """What no admission decides — Kueue's pod set, queue and Workload labels and annotation — set otherwise in
    a template fails the start whatever flavor the run gives (KAD161: kadmit decides it as if it started); a node
    selector is the flavor's, which the flavor assigner never takes against it: no warning."""
    def warnings(*docs: str) -> list[str]:
        ws = load(write(tmp_path, cluster__yaml=CLUSTER + "".join(docs)))
        return [d.message for d in ws.diagnostics if d.code == "KAD161"]

    pending = job(selector="{}", labels="{kueue.x-k8s.io/local-queue-name: other}")
    (message,) = warnings(pending)
    assert message.startswith("Job `default/j`: once Kueue admits its Workload `default/j`, its job reconciler "
                              "cannot start it") and ("conflict for labels: conflict for key=kueue.x-k8s.io/"
                                                      "local-queue-name, value1=other, value2=lq") in message
    assert warnings(job(selector="{}", labels="{kueue.x-k8s.io/podset: main, kueue.x-k8s.io/local-queue-name: lq, "
                                              "kueue.x-k8s.io/cluster-queue-name: cq}")) == []
    assert warnings(job(selector="{pool: x}")) == []
    assert warnings(job(selector="{}", labels="{kueue.x-k8s.io/podset: w}"), JOB_WL) == []  # admitted: finished instead


def test_a_rayjob_merges_its_submitter_last(tmp_path):
    """RayJob.RunWithPodSetsInfo: the head, each worker group, then (K8sJobMode) the submitter's template. Its
    containers are the Workload's (`workload`), else Kueue would find the Workload out of step and delete it (owned)."""
    ray = f"""\
---
apiVersion: ray.io/v1
kind: RayJob
metadata: {{name: r, namespace: default, uid: {UID}, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  suspend: true
  shutdownAfterJobFinishes: true
  entrypoint: python x.py
  submitterPodTemplate:
    spec: {{restartPolicy: Never, nodeSelector: {{pool: x}}, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}
  rayClusterSpec:
    headGroupSpec:
      template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
    workerGroupSpecs:
    - groupName: w
      replicas: 1
      template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
"""
    sets = [("head", 1), ("w", 1), ("submitter", 1)]
    reason, _ = started(tmp_path, ray, workload("RayJob", "ray.io/v1", "r", sets))
    assert reason == f"{FAILED_TO_START}: {CONFLICT}"
    assert started(tmp_path, ray.replace("nodeSelector: {pool: x}, ", ""), workload("RayJob", "ray.io/v1", "r", sets)) == ("", "")
