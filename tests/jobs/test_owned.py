"""A job's own Workload out of step with the job (jobframework ensureOneWorkload; docs/INTEGRATIONS.md J13): kept
where equivalent, updated to the job's spec where it holds no quota, deleted and made again (after the input)
where it does; kept as read where kadmit does not model what Kueue does. Each Workload updated or deleted gets a
warning (KAD175) at it, which `admit` and `why` show. Against the oracle:
tests/oracle/features/owned-workload*-out-of-step-*.yaml."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kadmit.workspace import load

from .helpers import model_of, run, write
from .test_start import CLUSTER, UID

HELD = """\
status:
  admission: {clusterQueue: cq, podSetAssignments: [{name: main, count: 3, flavors: {cpu: f0}, resourceUsage: {cpu: "3"}}]}
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: x, lastTransitionTime: "2026-11-01T00:01:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: x, lastTransitionTime: "2026-11-01T00:01:00Z"}
"""


def _input(count: int = 3, *, suspend: bool = True, status: str = "") -> str:
    """A Job of 2 pods (running where not `suspend`) and its Workload `wl` of `count` pods, created at 00:00;
    a Workload `late` created at 00:09."""
    running = "" if suspend else "status: {startTime: \"2026-11-01T00:02:00Z\", active: 2}\n"
    return CLUSTER + f"""\
---
apiVersion: batch/v1
kind: Job
metadata: {{name: j, namespace: default, uid: {UID}, creationTimestamp: "2026-11-01T00:00:00Z", labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  suspend: {str(suspend).lower()}
  parallelism: 2
  template: {{spec: {{restartPolicy: Never, containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}
{running}---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: wl
  namespace: default
  uid: 00000000-0000-0000-0003-000000000001
  creationTimestamp: "2026-11-01T00:00:00Z"
  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: j, uid: {UID}, controller: true}}]
spec:
  queueName: lq
  podSets: [{{name: main, count: {count}, template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
{status}---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: late, namespace: default, creationTimestamp: "2026-11-01T00:09:00Z"}}
spec:
  queueName: lq
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, image: x}}]}}}}}}]
"""


def _workloads(tmp_path, text: str) -> dict:
    return {w.name: w for w in model_of(tmp_path, cluster__yaml=text).workloads}


def test_an_equivalent_workload_is_kept_as_read(tmp_path):
    wls = _workloads(tmp_path, _input(2, status=HELD.replace("count: 3", "count: 2")))
    assert wls["wl"].admission is not None and wls["wl"].pod_sets[0].count == 2


def test_a_pending_workload_out_of_step_is_updated_to_the_job(tmp_path):
    wls = _workloads(tmp_path, _input(3))
    wl = wls["wl"]
    assert (wl.pod_sets[0].count, wl.uid, wl.created) == (
        2, "00000000-0000-0000-0003-000000000001", datetime(2026, 11, 1, tzinfo=timezone.utc))
    assert set(wls) == {"wl", "late"}


def test_an_admitted_workload_out_of_step_is_deleted_and_made_again_after_the_input(tmp_path):
    wls = _workloads(tmp_path, _input(3, status=HELD))
    assert "wl" not in wls
    (new,) = [w for w in wls.values() if w.name != "late"]
    assert new.admission is None and new.pod_sets[0].count == 2
    assert new.created > wls["late"].created


def test_a_running_jobs_workload_out_of_step_is_deleted_and_the_job_waits_for_its_pods(tmp_path):
    """Kueue stops the job, deletes the Workload (its quota freed at once) and makes none while the job's pods are
    active: the job is listed as skipped (oracle: owned-workload-out-of-step-with-its-running-job.yaml)."""
    model = model_of(tmp_path, cluster__yaml=_input(3, suspend=False, status=HELD))
    assert {w.name for w in model.workloads} == {"late"}
    reasons = {s.object.name: s.reason for s in model.skipped}
    assert reasons["j"].startswith("it runs and its Workload `default/wl` is out of step with it: Kueue's job "
                                   "reconciler stops it (StopReasonNoMatchingWorkload) and deletes the Workload")
    (d,) = _out_of_step(tmp_path, _input(3, suspend=False, status=HELD))
    assert "none in step and the job running: Kueue stops the job" in d.message
    assert "its status shows its pods active, so Kueue makes it no new Workload until they have ended" in d.message
    assert d.message.endswith("; its quota is freed") and reasons["wl"] == d.message


@pytest.mark.parametrize("status", [HELD, ""])
def test_a_running_job_with_no_pod_active_gets_a_new_workload_after_the_input(tmp_path, status):
    """Holding quota or not, the out-of-step Workload of a job not suspended is deleted (Kueue updates one only for
    a suspended job), and the job, its pods ended, gets a new Workload of its own spec, queued after the input's."""
    text = _input(3, suspend=False, status=status).replace("active: 2", "active: 0")
    wls = _workloads(tmp_path, text)
    (new,) = [w for w in wls.values() if w.name != "late"]
    assert new.name != "wl" and new.admission is None and new.pod_sets[0].count == 2
    assert new.created > wls["late"].created
    (d,) = _out_of_step(tmp_path, text)
    assert "its status shows no pod active, so Kueue makes it a new Workload, queued after the input's" in d.message


def _out_of_step(tmp_path, text: str) -> list:
    return [d for d in load(write(tmp_path, cluster__yaml=text)).diagnostics if d.code == "KAD175"]


def test_an_equivalent_workload_gets_no_warning(tmp_path):
    assert _out_of_step(tmp_path, _input(2, status=HELD.replace("count: 3", "count: 2"))) == []
    assert _out_of_step(tmp_path, _input(2, suspend=False, status=HELD.replace("count: 3", "count: 2"))) == []


def test_an_updated_workload_is_warned_at_with_what_differs(tmp_path):
    (d,) = _out_of_step(tmp_path, _input(3))
    assert d.severity.value == "warning" and d.span.line == 20 + 8  # the Workload `wl`, after the Job
    assert "updates Workload `default/wl` to the spec of Job `default/j`" in d.message
    assert "pod set 0: its count 2 against 3" in d.message and "quota is freed" not in d.message
    for args in (("admit",), ("why", "default/j")):
        r = run(*args, str(tmp_path / "cluster.yaml"))
        assert r.exit_code == 0 and "warning[KAD175]" in r.output and "count 2 against 3" in r.output, r.output


def test_a_deleted_workload_holding_quota_is_warned_at_and_why_answers_with_it(tmp_path):
    (d,) = _out_of_step(tmp_path, _input(3, status=HELD))
    assert "deletes Workload `default/wl` of Job `default/j`" in d.message and "count 2 against 3" in d.message
    assert "the job gets a new Workload, queued after the input's; its quota is freed" in d.message
    r = run("why", "default/wl", str(tmp_path / "cluster.yaml"))
    assert r.exit_code == 1 and "KAD009" not in r.output, r.output
    assert "error[KAD011]: Workload `default/wl` is not pending work: Kueue's job reconciler deletes" in r.output
    r = run("admit", str(tmp_path / "cluster.yaml"))
    assert r.exit_code == 0 and "warning[KAD175]" in r.output and "Workload default/wl (" in r.output, r.output


def test_a_second_workload_is_deleted_for_the_first_in_step(tmp_path):
    (second,) = [doc for doc in _input(2).split("---\n") if "name: wl\n" in doc]
    second = second.replace("name: wl\n", "name: wl2\n").replace("0003-000000000001", "0003-000000000002")
    (d,) = _out_of_step(tmp_path, _input(2) + "---\n" + second)
    assert d.message == ("Kueue's job reconciler deletes Workload `default/wl2` of Job `default/j`: the job owns "
                         "more than one Workload and keeps `default/wl`, the first in step with it")


def test_a_running_jobs_new_workload_is_made_of_its_template_restored_from_the_old():
    """Kueue's stopJob restores a batch Job's template from its one Workload before the new Workload is made: the node
    selector and tolerations the Workload's spec has, and, where the Job may be partially admitted, its count."""
    from pathlib import Path

    path = Path(__file__).parents[1] / "oracle" / "features" / "owned-workload-out-of-step-running-job-templates-restored.yaml"
    wls = {w.origin.name: w for w in load([str(path)]).model.workloads if w.origin is not None}
    assert wls["sel"].pod_sets[0].node_selector == {} and wls["sel"].pod_sets[0].count == 2
    assert wls["part"].pod_sets[0].count == 3 and wls["part"].pod_sets[0].min_count == 1
