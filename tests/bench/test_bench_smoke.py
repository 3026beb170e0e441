"""The benchmarks keep working: their generators round-trip and a tiny run of each completes."""

from pathlib import Path

import pytest

import admission_bench
import check_bench
import gen
from states import kueue_perf_state

from kadmit import workspace
from kadmit.model import Model


def _normal(model: Model) -> Model:
    """The front ends record which kind of class a workload names, and the job a Workload's owner
    reference names; the in-memory states don't. A Workload object's priority is its `spec.priority`
    (the writers set it to its class's value, as Kueue does when it makes one); the in-memory states
    leave it to the class."""
    values = {p.name: p.value for p in model.priority_classes}
    return model.model_copy(update={"workloads": tuple(
        w.model_copy(update={"priority_class_kind": w.priority_class_kind
                             or ("workload" if w.priority_class else None), "origin": None,
                             "priority": values.get(w.priority_class) if w.priority is None else w.priority})
        for w in model.workloads)})


def _same(a: Model, b: Model) -> None:
    # the writers invent UIDs (as an export has them); the in-memory states have none
    b = b.model_copy(update={"workloads": tuple(w.model_copy(update={"uid": "", "job_uid": ""}) for w in b.workloads)})
    for field in Model.model_fields:  # creation_times: the writers stamp what an in-memory state leaves untimed
        if field not in ("span", "spans", "creation_times"):
            left, right = getattr(a, field), getattr(b, field)
            assert len(left) == len(right) and set(left) == set(right), field


@pytest.mark.parametrize("write", [gen.kad_files, gen.manifest_files], ids=["kad", "manifests"])
@pytest.mark.parametrize("state", [lambda: check_bench.check_state(12, 4, seed=3), lambda: kueue_perf_state(4, 2, 40),
                                   lambda: check_bench.big_workloads_state(30, seed=1)],
                         ids=["check", "perf", "big"])
def test_written_state_reads_back_as_the_same_model(tmp_path: Path, write, state) -> None:
    model = state()
    gen.write_files(write(model), tmp_path)
    loaded = workspace.load([str(tmp_path)])
    assert [d.message for d in loaded.diagnostics] == []
    _same(_normal(model), _normal(loaded.model))


def test_writers_refuse_what_they_do_not_write() -> None:
    model = kueue_perf_state(2, 1, 2)
    wl = model.workloads[0].model_copy(update={"priority": 7, "priority_class": None})
    odd = model.model_copy(update={"workloads": (wl,)})
    with pytest.raises(ValueError, match="not written"):
        gen.kad_files(odd)
    with pytest.raises(ValueError, match="not written"):
        gen.manifest_files(odd)


def test_big_manifest_reaches_its_size() -> None:
    text = check_bench.big_manifest(200_000)
    assert 200_000 <= len(text) < 230_000
    assert text.count("kind: Workload\n") > 50


def test_yaml_writer_quotes_what_yaml_would_misread() -> None:
    import yaml

    data = {"a": "20", "b": "yes", "c": "64Gi", "d": ["x", {"e": "null", "f": 3}], "g": {}, "h": True}
    assert yaml.safe_load("\n".join(gen.to_yaml(data))) == data


def test_disagreements_name_the_differing_workloads() -> None:
    engine = {"a/x": (True, "cq", ()), "a/y": (False, None, ())}
    ref = {"a/x": (True, "cq", ()), "a/y": (True, "cq", ()), "a/z": (False, None, ())}
    assert admission_bench.disagreements(engine, ref) == ["a/y", "a/z"]


def test_check_bench_tiny_run(tmp_path: Path, capsys) -> None:
    figures = check_bench.run(6, 2, 0.05, 1, tmp_path, cli=False)
    assert figures["kad_diagnostics"] == figures["manifest_diagnostics"] == figures["big_diagnostics"] == 0
    assert figures["big_bytes"] >= 0.05 * 2**20
    assert "lines/s" in capsys.readouterr().out


def test_admission_bench_tiny_run(tmp_path: Path, capsys) -> None:
    figures = admission_bench.run_state(3, 2, 40, tmp_path, manifests=True, extra=3, whys=2, seed=0,
                                        profile=False)
    assert figures["disagreements"] == figures["why_errors"] == figures["one_more_errors"] == 0
    assert figures["decided"] == 40 and 0 < figures["admitted"] < 40
    assert "reference" in capsys.readouterr().out


def test_second_pass_soak_tiny_run() -> None:
    """bench/second_pass_soak.py draws a soak's clusters and counts the second passes kadmit ran."""
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(root / "bench" / "second_pass_soak.py"), "--n", "2", "--seed", "1",
                          "--require", "admission_checks"], capture_output=True, text=True, cwd=root, check=True)
    assert out.stdout.startswith("seed 1 (--require admission_checks): 2 clusters; a second pass queued in ")
