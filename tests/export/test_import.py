"""`kadmit import` proven: its `.kad` files are formatted (`fmt --check` clean), `check` on them is clean,
`admit` on them decides as on the manifests (the bundled Kueue example, every Kueue manifest of the
tests that reads without errors, generated clusters), and exporting the import gives back the objects."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from kadmit import api
from kadmit.engine.decide import admit as decide_all
from kadmit.engine.solver.z3backend import Limits
from kadmit.index import ModelIndex
from kadmit.render.decisions import admit_json

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
from fix_clusters import yaml_tas_clusters  # noqa: E402


@pytest.fixture
def tmp_path(scratch: Path) -> Path:
    """This module's tests write their imports in a `scratch` folder (tests/conftest.py): each file kadmit writes
    is two fsyncs, 4,328 of them in test_every_clean_manifest_of_the_tests (36 s of waiting on this machine's
    disk under load, 0.05 s in RAM)."""
    return scratch


# What the `.kad` language can't say changes decisions only through these (reported as KAD920).
DECIDING = ("bound to node", "gang kube-scheduler places", "pod-set slices", "DRA claims", "recorded usage",
            "resources (excluded", "LimitRange", "RuntimeClass",
            "inadmissible", "admissionFairSharing", "the UIDs of", "Requeued condition", "eviction time",
            "Kueue cannot parse",
            "admission-gated-by", "preemption gate", "priority-boost", "Preempted condition", "DeviceClass",
            "SchedulingEquivalenceHashing compares", "maximum execution time")


def decisions(model) -> list:
    out = json.loads(admit_json(decide_all(model, "ordered", Limits()), []))["decisions"]
    for d in out:
        d.pop("object")  # the job a workload stands for: a `.kad` workload stands for itself
        for r in d["reasons"]:
            if r["code"] == "KAD535":  # a loop's settings, as each syntax writes them (`reclaim_within_cohort = Any`)
                r["message"] = r["message"].split("; the loop is allowed by ")[0]
        # the Workload's name in Kueue (a job's, or the cluster's to give: null), where a `.kad` workload has its own
        for named in (d, *d["preempted"]):
            named.pop("kueue_workload")
            named.pop("kueue_workload_unknown", None)
    return out


def kad_words(message: str) -> str:
    """A Configuration's gate warned (KAD161) as the `.kad` scheduler's `feature_gates` says it."""
    return message.replace("`featureGates.", "`feature_gates.").replace(
        "` of the Configuration is not modelled", "` of the scheduler is not modelled")


def imported(paths: list[str], out: Path, source: api.Loaded | None = None):
    """`source`: `api.load_for_engine(paths)` where the caller has it (read once: `check` without `deep` reads
    and sorts the diagnostics as it does, and these paths load without errors, so no KAD004)."""
    source = source or api.load_for_engine([str(p) for p in paths])
    got = api.import_(paths, str(out), workloads=True)
    assert got.exit_code == 0, [f"{d.code} {d.message}" for d in got.diagnostics]
    if not got.files:  # nothing in the input that a `.kad` file says (objects of unread kinds only)
        return got, source.workspace.model.model_copy(update={"skipped": ()})
    fmt = api.fmt([str(out)], "check")
    assert fmt.exit_code == 0 and not fmt.changed
    back = api.check([str(out)])
    said = {(d.code, kad_words(d.message)) for d in source.diagnostics}
    assert [f"{d.code} {d.message}" for d in back.diagnostics if (d.code, d.message) not in said] == []
    return got, back.workspace.model


def test_kueue_example(tmp_path: Path) -> None:
    source = api.load_for_engine(["examples/ml-platform-kueue/"])
    got, back = imported(["examples/ml-platform-kueue/"], tmp_path, source)
    # frameworks, and the Workloads' UIDs
    assert [d.code for d in got.diagnostics if d.severity.value == "warning"] == ["KAD920", "KAD920"]
    assert decisions(back) == decisions(source.workspace.model)


def test_every_clean_manifest_of_the_tests(tmp_path: Path) -> None:
    # (tests/corpus/upstream's files are clusters only with their folder's set-up: read per folder
    # by tests/oracle/test_upstream.py)
    found = sorted(p for p in (ROOT / "tests").rglob("*.yaml")
                   if not p.name.endswith(".kadtest.yaml") and "kube" not in p.parts
                   and not p.is_relative_to(ROOT / "tests" / "corpus" / "upstream"))
    compared = 0
    for i, path in enumerate(found):
        source = api.load_for_engine([str(path)])
        if source.exit_code != api.EXIT_OK:
            got = api.import_([str(path)], str(tmp_path / f"bad{i}"), workloads=True)
            assert got.exit_code == api.EXIT_INPUT and not (tmp_path / f"bad{i}").exists(), path
            continue
        got, back = imported([str(path)], tmp_path / str(i), source)
        if any(w in d.message for d in got.diagnostics for w in DECIDING):
            continue
        assert decisions(back) == decisions(source.workspace.model), path
        compared += 1
    assert compared >= 5


def test_a_deployment_alone_round_trips_with_the_same_diagnostics(tmp_path: Path) -> None:
    """Kueue's site hami example without its set-up: KAD300 for the resources no queue covers names the
    workload as the import writes it, not the Deployment (a `.kad` workload stands for itself)."""
    path = ROOT / "tests" / "corpus" / "upstream" / "kueue-serving-sample-hami" / "sample-hami.yaml"
    source = api.load_for_engine([str(path)])
    got, back = imported([str(path)], tmp_path, source)
    assert sorted(d.code for d in got.diagnostics if d.code == "KAD300") == ["KAD300", "KAD300"]
    assert decisions(back) == decisions(source.workspace.model)


def test_export_of_the_import_gives_back_the_objects(tmp_path: Path) -> None:
    imported(["examples/ml-platform-kueue/"], tmp_path / "kad")
    got = api.export([str(tmp_path / "kad")], str(tmp_path / "yaml"), workloads=True, nodes=True)
    assert got.exit_code == 0, [d.message for d in got.diagnostics]
    a = api.load_for_engine(["examples/ml-platform-kueue/"]).workspace.model
    b = api.load_for_engine([str(tmp_path / "yaml")]).workspace.model
    for field in ("topologies", "flavors", "cohorts", "cluster_queues", "local_queues", "priority_classes",
                  "namespaces", "nodes"):
        def order(x):
            return (getattr(x, "kind", ""), getattr(x, "namespace", ""), x.name)
        assert sorted(getattr(a, field), key=order) == sorted(getattr(b, field), key=order), field
    strip = {"origin": None, "uid": "", "job_uid": "", "kueue_name": None, "part": None}

    # the exported Workload carries the value its job's Workload takes from its class as spec.priority,
    # which is what Kueue reads of a Workload object
    def plain(w, ix):
        return w.model_copy(update={**strip, "priority": ix.priority(w), "pod_sets": tuple(
            p.model_copy(update={"origin": None, "resources": None}) for p in w.pod_sets)})
    ia, ib = ModelIndex(a), ModelIndex(b)
    assert sorted((plain(w, ia) for w in a.workloads), key=lambda w: w.key) == \
        sorted((plain(w, ib) for w in b.workloads), key=lambda w: w.key)


def test_match_fields_are_exported_and_imported(tmp_path: Path) -> None:
    """`matchFields` decide TAS placement (tests/oracle/features/tas-node-affinity-match-fields-terms.yaml):
    export writes them back and the import writes them as a term's `match_fields { … }` block, so both decide
    alike; the terms of every operator and value count (Kueue fails those it cannot parse) read back as written."""
    path = str(ROOT / "tests" / "oracle" / "features" / "tas-node-affinity-match-fields-terms.yaml")
    loaded = api.load_for_engine([path])
    source = loaded.workspace.model
    got = api.export([path], str(tmp_path / "yaml"), workloads=True, nodes=True)
    assert got.exit_code == 0, [d.message for d in got.diagnostics]
    assert decisions(api.load_for_engine([str(tmp_path / "yaml")]).workspace.model) == decisions(source)
    got, back = imported([path], tmp_path / "kad", loaded)
    assert not [d.message for d in got.diagnostics if d.code == "KAD920" and "matchFields" in d.message]
    written = (tmp_path / "kad" / "workloads.kad").read_text()
    assert 'match_fields {\n' in written and 'match "metadata.name" not_in ["n2"]' in written

    def fields(model) -> dict:
        return {w.key: [[(r.key, r.operator, r.values) for r in t.match_fields] for p in w.pod_sets
                        for t in p.node_affinity] for w in model.workloads}
    assert fields(back) == fields(source) and any(fields(source).values())
    assert decisions(back) == decisions(source)


def test_import_refuses_input_with_errors_and_its_own_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {queueingStrategy: Nope}\n")
    got = api.import_([str(bad)], str(tmp_path / "out"))
    assert got.exit_code == api.EXIT_INPUT and "KAD921" in [d.code for d in got.diagnostics]
    kad = tmp_path / "k"
    kad.mkdir()
    (kad / "queues.kad").write_text("flavor f {}\n")
    got = api.import_([str(kad)], str(kad))
    assert got.exit_code == api.EXIT_INPUT and (kad / "queues.kad").read_text() == "flavor f {}\n"


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=yaml_tas_clusters())
def test_generated_clusters_decide_the_same(scratch_root, text: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="gen", dir=scratch_root))
    (folder / "cluster.yaml").write_text(text)
    source = api.load_for_engine([str(folder / "cluster.yaml")])
    if source.exit_code != api.EXIT_OK:
        return
    got, back = imported([str(folder / "cluster.yaml")], folder / "out", source)
    if any(w in d.message for d in got.diagnostics for w in DECIDING):
        return
    assert decisions(back) == decisions(source.workspace.model)


def test_nothing_to_import_is_said(tmp_path: Path) -> None:
    """bench/fuzz_cli.py --n 120 --seed 12's case 51: a JobSet naming no queue, in a namespace without a
    LocalQueue `default` (Kueue does not manage it), and no Kueue object: import wrote nothing and said nothing."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "js.yaml").write_text(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js, namespace: default}\n"
        "spec:\n  replicatedJobs:\n  - name: w\n    template:\n      spec:\n        template:\n          spec:\n"
        "            restartPolicy: Never\n            containers: [{name: c, image: i}]\n")
    got = api.import_([str(tmp_path / "in")], str(tmp_path / "out"), workloads=True)
    assert got.exit_code == api.EXIT_OK and not got.files and not (tmp_path / "out").exists()
    assert [d.code for d in got.diagnostics] == ["KAD922"]
