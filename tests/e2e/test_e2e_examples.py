"""End to end through the CLI on the bundled example, in `.kad` and as Kueue manifests."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kadmit.cli import cli
from kadmit.index import resolve_level
from kadmit.workspace import load

ROOT = Path(__file__).resolve().parents[2]
KAD = str(ROOT / "examples" / "ml-platform")
KUEUE = str(ROOT / "examples" / "ml-platform-kueue")


def run(*args):
    return CliRunner().invoke(cli, list(args))


def without_rules(model):
    return model.model_copy(update={"rules": ()})


def test_both_front_ends_load_the_same_cluster():
    kad, kueue = load([KAD]), load([KUEUE])
    assert not kad.diagnostics.has_errors and not kueue.diagnostics.has_errors
    a, b = without_rules(kad.model), without_rules(kueue.model)
    for field in ("flavors", "cohorts", "cluster_queues", "local_queues", "namespaces", "topologies", "nodes"):
        key = lambda o: getattr(o, "name", None) or getattr(o, "key")  # noqa: E731
        assert sorted(getattr(a, field), key=key) == sorted(getattr(b, field), key=key), field
    topo = a.topologies[0]

    def canonical(model):  # `rack` in .kad and the full label key in annotations name one level;
        # a job's pod sets say where they come from, and a minimum equal to the count is no minimum
        return {w.key: tuple(p.model_copy(update={"origin": None, "min_count": None if p.min_count == p.count
                                                  else p.min_count, **({"topology": p.topology.model_copy(
                    update={"level": resolve_level(topo, p.topology.level)})} if p.topology else {})})
                    for p in w.pod_sets) for w in model.workloads}
    assert canonical(a) == canonical(b)
    assert {w.key: (w.created, w.priority_class, w.queue, w.admission) for w in a.workloads} == \
        {w.key: (w.created, w.priority_class, w.queue, w.admission) for w in b.workloads}


@pytest.mark.parametrize("path", [KAD, KUEUE])
def test_check_is_clean(path):
    r = run("check", path, str(ROOT / "policies"))
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("path", [KAD, KUEUE])
def test_admit_json(path):
    r = run("admit", path, "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    by = {d["workload"]: d for d in out["decisions"]}
    assert by["team-vision/llm-pretrain"]["admitted"] is False
    assert by["team-nlp/llama-eval"]["admitted"] is True
    assert by["team-nlp/llama-eval"]["pod_sets"][0]["flavors"]["nvidia.com/gpu"] == "h100"
    assert by["team-infra/log-compaction"]["pod_sets"][0]["count"] < 24  # partial admission
    assert by["team-nlp/shared-vision"]["reasons"][0]["message"] == \
        "Workload namespace doesn't match ClusterQueue selector"
    for d in out["decisions"]:
        assert set(d) >= {"workload", "admitted", "cluster_queue", "pod_sets", "borrowing", "preempted", "reasons"}


def test_admit_agrees_across_front_ends():
    a = json.loads(run("admit", KAD, "--format", "json").output)["decisions"]
    b = json.loads(run("admit", KUEUE, "--format", "json").output)["decisions"]
    view = lambda ds: [(d["workload"], d["admitted"], d["pod_sets"]) for d in ds]  # noqa: E731
    assert view(a) == view(b)


@pytest.mark.parametrize("path", [KAD, KUEUE])
def test_why_blames_located_lines(path):
    r = run("why", "team-vision/llm-pretrain", path, "--format", "json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert out["admitted"] is False and out["blame"]
    # .kad: lowering min_count is proven; the Kueue example's JobSet has no minCount: its replicas at
    # one and its template's parallelism lowered (one replica of 8 eight-GPU pods is too big) are
    [fix] = out["fixes"][:1]
    assert [(c["old"], c["new"]) for c in fix["changes"]] == ([("32", "3")] if path == KAD else [("4", "1"), ("8", "3")])
    for b in out["blame"]:
        assert b["file"] and b["line"] >= 1 and b["column"] >= 1
    assert any("maximum capacity" in x["message"] for x in out["reasons"])


def test_scenario_shows_why_as_it_is_said():
    """examples/SCENARIO.md's sample of `why` is the command's output, word for word, in a few lines.
    Run as a user runs it, in a fresh process: which six of the many minimal blame sets the enumeration
    finds before it stops depends on the Z3 context's history within a process."""
    text = (ROOT / "examples" / "SCENARIO.md").read_text()
    sample = text.split("## What `why` says", 1)[1].split("```\n", 2)[1]
    r = subprocess.run([sys.executable, "-m", "kadmit", "why", "team-vision/llm-pretrain", "examples/ml-platform/"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 1, r.stderr
    assert r.stdout == sample
    assert len(sample.splitlines()) <= 30


def test_why_admitted_exits_zero():
    r = run("why", "team-nlp/llama-eval", KAD)
    assert r.exit_code == 0, r.output
    assert "is admitted" in r.output


def test_why_unknown_workload_is_usage_error():
    r = run("why", "team-nlp/llama-evals", KAD)
    assert r.exit_code == 2
    assert "llama-eval" in r.output


def test_output_is_byte_identical_across_runs():
    cmd = [sys.executable, "-m", "kadmit", "why", "team-vision/llm-pretrain", KAD]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    second = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 1 and first.stdout == second.stdout and "blame" in first.stdout


def test_admit_optimal_reports_proof_and_agrees_on_the_example():
    r = run("admit", KAD, "--mode", "optimal", "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["mode"] == "optimal" and out["optimal"]["proven_optimal"] is True
    ordered = json.loads(run("admit", KAD, "--format", "json").output)
    assert [d["admitted"] for d in out["decisions"]] == [d["admitted"] for d in ordered["decisions"]]
    human = run("admit", KAD, "--mode", "optimal")
    assert "proven optimal" in human.output


def test_readme_quick_start_asks_about_a_jobset_by_its_name():
    r = run("why", "team-vision/llm-pretrain", KUEUE, "--format", "json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.stdout)
    assert out["object"] == {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                             "namespace": "team-vision", "name": "llm-pretrain"}
    assert out["pod_set_origins"]["workers"].startswith("replicated job `workers`") and out["skipped"] == []
    kinds = {d["object"]["kind"] for d in json.loads(run("admit", KUEUE, "--format", "json").stdout)["decisions"]}
    assert kinds >= {"JobSet", "LeaderWorkerSet", "Pod", "PyTorchJob", "Job", "RayJob"}
