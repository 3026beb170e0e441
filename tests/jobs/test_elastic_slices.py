"""ElasticJobsViaWorkloadSlices: an elastic job's Workloads as Kueue's reconciler keeps them (manifests/jobs/slices.py)
and a replacement slice in the scheduling cycle (engine/admission/slices.py). Kueue's own answers for the same inputs:
tests/oracle/features/feature-gate-elastic-jobs-via-workload-slices-*.yaml through tests/oracle/test_admit.py; here
what the model holds and says, without the oracle."""

from __future__ import annotations

from pathlib import Path

from kadmit.index import admitted_usage
from kadmit.workspace import load

from .helpers import admit_json, run

FEATURES = Path(__file__).resolve().parents[1] / "oracle" / "features"
CASE = str(FEATURES / "feature-gate-elastic-jobs-via-workload-slices-{}.yaml")


def _model(name: str, gate: bool | None = None, tmp: Path | None = None):
    path = CASE.format(name)
    if gate is not None:
        assert tmp is not None
        text = Path(path).read_text().replace("ElasticJobsViaWorkloadSlices: true", f"ElasticJobsViaWorkloadSlices: {str(gate).lower()}")
        path = str(tmp / "case.yaml")
        Path(path).write_text(text)
    ws = load([path])
    return ws, {w.key: w for w in ws.model.workloads}


def test_a_scaled_up_job_gets_a_slice_replacing_its_admitted_workload() -> None:
    ws, wls = _model("on-scale-up-fits")
    new = wls["ns/e"]  # the job's; Kueue's name hashes the job's generation (0 where unset), as the oracle names it
    assert new.kueue_name == "job-e-9d070" and new.replaces == "ns/job-e-1" and new.admission is None and [ps.count for ps in new.pod_sets] == [4]
    assert wls["ns/job-e-1"].admitted and new.created > wls["ns/later"].created  # queued after the input's
    (note,) = [d for d in ws.diagnostics.items if d.code == "KAD175"]
    assert "makes it a new Workload slice `ns/job-e-9d070` to replace it" in note.message
    assert not [d for d in ws.diagnostics.items if d.code == "KAD161"]  # the gate is modelled: no warning


def test_with_the_gate_off_the_job_is_out_of_step_and_gets_no_slice(tmp_path: Path) -> None:
    ws, wls = _model("on-scale-up-fits", gate=False, tmp=tmp_path)
    assert not any(w.replaces for w in wls.values()) and "ns/job-e-1" not in wls  # deleted as out of step
    assert any("out of step with the job" in d.message for d in ws.diagnostics.items if d.code == "KAD175")


def test_a_scale_down_books_the_admission_at_the_new_count() -> None:
    _, wls = _model("on-scale-down")
    assert [psa.count for psa in wls["ns/job-e-1"].admission.pod_sets] == [1]
    assert admitted_usage(wls["ns/job-e-1"]) == {("f0", "cpu"): 1000}  # 1 cpu of 2 held
    out = admit_json(CASE.format("on-scale-down"))
    assert [(d["workload"], d["admitted"]) for d in out["decisions"]] == [("ns/later", True)]


def test_the_replacement_is_admitted_for_the_quota_beyond_its_old_slice_which_finishes() -> None:
    out = admit_json(CASE.format("on-both-slices"))
    (d,) = out["decisions"]
    assert d["admitted"] and d["usage"] == {"f0/cpu": "4"}  # its own whole usage; the old slice's 2 are freed


def test_the_replacement_keeps_its_old_slices_flavor_in_kueues_words() -> None:
    out = admit_json(CASE.format("on-scale-up-keeps-flavor"))
    (d,) = out["decisions"]
    assert not d["admitted"]
    assert [(r["code"], r["message"]) for r in d["reasons"]][:2] == [
        ("KAD528", "couldn't assign flavors to pod set main: could not assign f1 flavor since the original workload "
                   "is assigned: f0"),
        ("KAD510", "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor f0, 1 more "
                   "needed")]


def test_optimal_mode_says_it_decides_a_slice_as_a_workload_of_its_own() -> None:
    from kadmit.engine.optimal.placement import unhonoured
    ws, _ = _model("on-both-slices")
    (d,) = [d for d in unhonoured(ws.model, []) if d.code == "KAD527"]
    assert d.message.startswith("optimal mode decides Workload `ns/job-e-2` as a workload of its own beside the "
                                "admitted slice `ns/job-e-1` it replaces")


def test_the_replacement_annotation_is_exported_and_said_lacking_in_kad(tmp_path: Path) -> None:
    r = run("export", "--workloads", "-o", str(tmp_path / "out"), CASE.format("on-both-slices"))
    assert r.exit_code == 0, r.output
    assert "kueue.x-k8s.io/workload-slice-replacement-for: ns/job-e-1" in (tmp_path / "out" / "11-workloads.yaml").read_text()
    r = run("import", "--workloads", "-o", str(tmp_path / "kad"), CASE.format("on-both-slices"))
    assert "`ns/job-e-2`'s workload-slice-replacement-for annotation has no `.kad` form yet" in r.output
