"""`kadmit export` proven both ways: `check` on the export is clean, and `admit` on it decides as on
the `.kad` (without the rules the cluster can't enforce) — on the bundled example, every `.kad` of the
tests that reads without errors, and generated clusters."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from kadmit import api
from kadmit.engine.decide import admit as decide_all
from kadmit.engine.solver.z3backend import Limits
from kadmit.export import export_model
from kadmit.render.decisions import admit_json

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
from fix_clusters import kad_clusters  # noqa: E402


@pytest.fixture
def tmp_path(scratch: Path) -> Path:
    """This module's tests write their exports in a `scratch` folder (tests/conftest.py): each file kadmit writes
    is two fsyncs, some 500 of them in test_every_clean_kad_of_the_tests."""
    return scratch


def decisions(model) -> list:
    return json.loads(admit_json(decide_all(model, "ordered", Limits()), []))["decisions"]


def roundtrip(paths: list[str], out: Path, **kw):
    """Export `paths` into `out`; (the `.kad` model without the rules left unenforced, the export read back)."""
    got = api.export(paths, str(out), allow_unenforced=True, **kw)
    assert got.exit_code == 0, [d.message for d in got.diagnostics]
    source = api.load_for_engine(paths).workspace.model
    unenforced = set(export_model(source, allow_unenforced=True).unenforced)
    expected = source.model_copy(update={"rules": tuple(r for r in source.rules if r.name not in unenforced)})
    back = api.check([str(out)])
    assert back.exit_code == 0, [f"{d.code} {d.message}" for d in back.diagnostics]
    said = {(d.code, d.message) for d in api.check(paths).diagnostics}  # the policy's own warnings, if any
    assert [d for d in back.diagnostics if (d.code, d.message) not in said] == []
    return expected, back.workspace.model


def test_example_decides_the_same(tmp_path: Path) -> None:
    expected, back = roundtrip(["examples/ml-platform/"], tmp_path, workloads=True, nodes=True)
    assert {r.name for r in back.rules} == {"production-only-for-research-teams"}
    assert decisions(back) == decisions(expected)


def test_every_clean_kad_of_the_tests(tmp_path: Path) -> None:
    found = sorted(p for p in (ROOT / "tests").rglob("*.kad"))
    assert found
    exported = 0
    for i, path in enumerate(found):
        loaded = api.load_for_engine([str(path)])
        out = tmp_path / str(i)
        if loaded.exit_code != api.EXIT_OK:  # syntax or validation errors: nothing is written
            got = api.export([str(path)], str(out), workloads=True, nodes=True)
            assert got.exit_code == api.EXIT_INPUT and not out.exists(), path
            continue
        expected, back = roundtrip([str(path)], out, workloads=True, nodes=True)
        assert decisions(back) == decisions(expected), path
        exported += 1
    assert exported >= 1


def test_unenforced_rules_refuse_the_export(tmp_path: Path) -> None:
    got = api.export(["examples/ml-platform/"], str(tmp_path / "out"))
    assert got.exit_code == api.EXIT_FINDINGS
    assert not (tmp_path / "out").exists()
    assert [d.code for d in got.diagnostics if d.severity.value == "error"] == ["KAD902"]


def test_export_is_deterministic_and_removes_its_stale_files(tmp_path: Path) -> None:
    a = api.export(["examples/ml-platform/"], str(tmp_path), allow_unenforced=True, workloads=True)
    first = {p.name: p.read_text() for p in tmp_path.iterdir()}
    assert "11-workloads.yaml" in first
    (tmp_path / "mine.yaml").write_text("kept: true\n")
    b = api.export(["examples/ml-platform/"], str(tmp_path), allow_unenforced=True)
    assert a.files["07-cluster-queues.yaml"] == b.files["07-cluster-queues.yaml"]
    now = {p.name for p in tmp_path.iterdir()}
    assert "11-workloads.yaml" not in now and "mine.yaml" in now


def test_json_export_reads_back_the_same(tmp_path: Path) -> None:
    got = api.export(["examples/ml-platform/"], str(tmp_path), allow_unenforced=True, workloads=True,
                            nodes=True, format="json")
    assert got.exit_code == 0
    back = api.load_for_engine([str(tmp_path)])
    assert back.exit_code == 0
    expected, _ = roundtrip(["examples/ml-platform/"], tmp_path / "yaml", workloads=True, nodes=True)
    assert decisions(back.workspace.model) == decisions(expected)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=kad_clusters())
def test_generated_clusters_decide_the_same(scratch_root, text: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="gen", dir=scratch_root))
    (folder / "cluster.kad").write_text(text)
    expected, back = roundtrip([str(folder / "cluster.kad")], folder / "out", workloads=True)
    assert decisions(back) == decisions(expected)


def test_fair_sharing_without_strategies_exports_kueues_default_pair(tmp_path: Path) -> None:
    """Kueue refuses a v1beta2 Configuration whose `fairSharing` names no preemption strategies
    ("fairSharing.preemptionStrategies: Required value"); `fair_sharing = true` alone means the pair
    Kueue defaults to in v1beta1, and the export writes it."""
    (tmp_path / "p.kad").write_text("scheduler { fair_sharing = true }\nflavor f {}\n")
    got = api.export([str(tmp_path / "p.kad")], str(tmp_path / "out"))
    assert got.exit_code == 0, [d.message for d in got.diagnostics]
    [config] = [o for p in sorted((tmp_path / "out").rglob("*.yaml")) for o in yaml.safe_load_all(p.read_text())
                if o and o.get("kind") == "Configuration"]
    assert config["fairSharing"] == {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}


def test_a_topology_group_is_exported_as_kueues_pod_set_group_name(tmp_path: Path) -> None:
    """`topology_group` (Kueue's `podSetGroupName`) is written in the Workload's topologyRequest: left
    out, Kueue places the leader on its own (bench/kad_checks_soak.py seed 2 found Kueue on the export
    of an imported `.kad` placing a leader on another flavor than kadmit on the `.kad`)."""
    (tmp_path / "p.kad").write_text("""\
topology dc { levels = ["kubernetes.io/hostname"] }
flavor f { topology = dc  node_labels = { pool = "tas" } }
cluster_queue q { resources cpu { flavor f { cpu = 8 } } }
local_queue ns/lq -> q
node n1 { labels = { pool = "tas", "kubernetes.io/hostname" = "n1" }  allocatable = { cpu = 8, pods = 110 } }
workload ns/w {
  queue = lq
  pod_group leader { count = 1  requests = { cpu = 1 }  topology = required kubernetes.io/hostname  topology_group = g }
  pod_group main { count = 2  requests = { cpu = 1 }  topology = required kubernetes.io/hostname  topology_group = g }
}
""")
    expected, back = roundtrip([str(tmp_path / "p.kad")], tmp_path / "out", workloads=True, nodes=True)
    [wl] = [o for o in yaml.safe_load_all((tmp_path / "out" / "11-workloads.yaml").read_text()) if o]
    assert [ps["topologyRequest"]["podSetGroupName"] for ps in wl["spec"]["podSets"]] == ["g", "g"]
    assert [ps.topology for ps in back.workloads[0].pod_sets] == [ps.topology for ps in expected.workloads[0].pod_sets]
    assert decisions(back) == decisions(expected)
