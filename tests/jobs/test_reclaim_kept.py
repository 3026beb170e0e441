"""A job's reclaimable pods applied to the Workload it already has (Kueue's job reconciler, step 4:
JobWithReclaimablePods.ReclaimablePods -> workload.UpdateReclaimablePods), pending or holding quota, for every
kind that has them (batch Job, JobSet; pod groups: test_pods_prebuilt, TrainJob: test_trainjob). The oracle's
cases are tests/oracle/features/job-and-jobset-workloads-in-input-reclaim-finished-pods.yaml and
running-job-and-jobset-holding-quota-reclaim-finished-pods.yaml."""

from __future__ import annotations

from pathlib import Path

from kadmit.index import admitted_usage
from kadmit.workspace import load

FEATURES = Path(__file__).resolve().parents[1] / "oracle" / "features"
PENDING = FEATURES / "job-and-jobset-workloads-in-input-reclaim-finished-pods.yaml"
HELD = FEATURES / "running-job-and-jobset-holding-quota-reclaim-finished-pods.yaml"


def _workloads(path: Path) -> dict:
    ws = load([str(path)])
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    return {w.name: w for w in ws.model.workloads}


def _variant(tmp_path: Path, base: Path, *edits: tuple[str, str]) -> Path:
    text = base.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "c.yaml"


def test_a_pending_workload_a_job_keeps_is_counted_less_its_reclaimable_pods() -> None:
    wls = _workloads(PENDING)
    # Job a's own Workload (1 of 4), Job p's prebuilt one (2 of 3), JobSet js's (2 Jobs of 2 pods)
    assert [wls[n].pod_sets[0].count for n in ("job-a-1", "pre", "jobset-js-1")] == [3, 1, 2]
    assert "1 reclaimable (status.reclaimablePods)" in wls["job-a-1"].pod_sets[0].origin


def test_a_workload_holding_quota_books_the_pods_left() -> None:
    wls = _workloads(HELD)
    r, js = wls["job-r-1"], wls["jobset-js-2"]
    # r: its status says 1 reclaimable, the Job 3 (the Job's entry replaces it): 1 cpu of the 4 recorded
    assert r.pod_sets[0].count == 1 and r.admission.pod_sets[0].count == 1
    assert admitted_usage(r) == {("f0", "cpu"): 1000}
    assert js.pod_sets[0].count == 1 and admitted_usage(js) == {("f0", "cpu"): 1000}


def test_the_usage_is_booked_again_from_what_the_admission_records(tmp_path: Path) -> None:
    """The input's status says all 4 pods are reclaimable (the Workload books nothing as read); the Job says 3:
    the 4 cpu recorded give 1 (not 0 scaled from 0). Kueue's answer (oracle, 3 runs): later needs 1 more of 5."""
    wls = _workloads(_variant(tmp_path, HELD, ("reclaimablePods: [{name: main, count: 1}]",
                                               "reclaimablePods: [{name: main, count: 4}]")))
    assert admitted_usage(wls["job-r-1"]) == {("f0", "cpu"): 1000}


def test_a_job_kueue_does_not_manage_leaves_its_workload_as_read(tmp_path: Path) -> None:
    """Job r without a queue name: Kueue's reconciler ignores it before step 4 (oracle: later needs 2 more)."""
    wls = _workloads(_variant(tmp_path, HELD, (
        'creationTimestamp: "2026-11-01T00:00:01Z", labels: {kueue.x-k8s.io/queue-name: lq}}\nspec:\n  parallelism: 4',
        'creationTimestamp: "2026-11-01T00:00:01Z"}\nspec:\n  parallelism: 4')))
    assert admitted_usage(wls["job-r-1"]) == {("f0", "cpu"): 3000}  # the status's 1 reclaimable only
    assert admitted_usage(wls["jobset-js-2"]) == {("f0", "cpu"): 1000}


def test_a_finished_job_leaves_its_workload_as_read(tmp_path: Path) -> None:
    """A Job with its Complete condition: Kueue's reconciler finishes its Workload (step 2), never reaching step 4."""
    wls = _workloads(_variant(tmp_path, PENDING, (
        'status: {succeeded: 3, startTime: "2026-11-01T00:00:30Z"}',
        'status: {succeeded: 3, startTime: "2026-11-01T00:00:30Z", conditions: [{type: Complete, status: "True", reason: Complete, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}]}')))
    assert wls["job-a-1"].pod_sets[0].count == 4


def test_a_running_trainjobs_workload_is_kept_and_books_the_pods_left() -> None:
    """A TrainJob's pod sets come from its runtime: its Workload in the input is kept as read (no KAD175: Kueue
    finds it in step, oracle 3 runs) and books 1 worker pod of 3 (2 Jobs succeeded): 2 cpu of the 6 recorded."""
    path = FEATURES / "running-trainjob-workload-in-input-reclaims-succeeded-jobs.yaml"
    ws = load([str(path)])
    assert not [d for d in ws.diagnostics if d.code == "KAD175"], [str(d) for d in ws.diagnostics]
    wl = next(w for w in ws.model.workloads if w.name == "trainjob-tj-a2368")
    assert wl.pod_sets[0].count == 1 and admitted_usage(wl) == {("f0", "cpu"): 2000}


OUT_OF_STEP = FEATURES / "running-trainjob-workload-out-of-step.yaml"


def test_a_running_trainjobs_workload_out_of_step_with_its_runtime_is_deleted(tmp_path) -> None:
    """Compared with the runtime's pods as written (1 cpu against 2), the Workload is out of step: Kueue stops the
    TrainJob and deletes it, its quota freed (KAD175; oracle 3 runs: ml/later and ml/after admitted)."""
    ws = load([str(OUT_OF_STEP)])
    said = [str(d) for d in ws.diagnostics if d.code == "KAD175"]
    assert len(said) == 1 and "trainjob-tj-a2368" in said[0] and "quota is freed" in said[0], said
    assert not [d for d in ws.diagnostics if d.code == "KAD161"]


def test_a_torch_runtimes_trainjob_workload_is_compared_with_the_jobset_kueue_builds(tmp_path) -> None:
    """The torch plugin's env vars and ports never reach the JobSet Kueue compares (jobs/trainjobpods.py): under a
    torch runtime the Workload (1 cpu against 2) is out of step as without one (KAD175, no KAD161)."""
    path = _variant(tmp_path, OUT_OF_STEP, ("spec:\n  template:\n", "spec:\n  mlPolicy: {torch: {}}\n  template:\n"))
    ws = load([str(path)])
    said = [str(d) for d in ws.diagnostics if d.code == "KAD175"]
    assert len(said) == 1 and "trainjob-tj-a2368" in said[0] and "quota is freed" in said[0], said
    assert not [d for d in ws.diagnostics if d.code == "KAD161"]
