"""`kadmit diff`: semantic changes, changed decisions with why, envelopes with witnesses, git revisions."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.cli import cli
from kadmit.engine.analysis.envelope import envelopes, keys_of
from kadmit.model import (ClusterQueue, Cohort, FlavorQuotas, LabelSelector, LocalQueue, Model, Namespace, PodSet,
                          ResourceFlavor, ResourceGroup, ResourceQuota, Workload)
from kadmit.reference import decide

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _edit(tmp_path: Path, old: str, new: str) -> Path:
    head = tmp_path / "head"
    shutil.copytree(EXAMPLE, head)
    text = (head / "policy.kad").read_text()
    assert old in text
    (head / "policy.kad").write_text(text.replace(old, new))
    return head


def test_a_policy_against_itself_is_empty():
    r = run("diff", str(EXAMPLE), str(EXAMPLE), "--format", "json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["changes"] == [] and data["decisions"] == [] and data["envelopes"] == []


def test_quota_cut_changes_numbers_and_envelope_with_witness(tmp_path):
    head = _edit(tmp_path, "nvidia.com/gpu = 24 borrow 8 lend 8", "nvidia.com/gpu = 16 borrow 0 lend 8")
    r = run("diff", str(EXAMPLE), str(head), "--format", "json")
    assert r.exit_code == 1
    data = json.loads(r.output)
    fields = {(c["name"], c["field"], c["before"], c["after"]) for c in data["changes"]}
    assert ("team-vision", "nominal quota of nvidia.com/gpu in h100", "24", "16") in fields
    assert ("team-vision", "borrowing limit of nvidia.com/gpu in h100", "8", "0") in fields
    env = [e for e in data["envelopes"] if (e["cluster_queue"], e["flavor"], e["resource"])
           == ("team-vision", "h100", "nvidia.com/gpu")]
    assert len(env) == 1 and env[0]["before"] == "32" and env[0]["after"] == "16"
    w = env[0]["witness"]
    assert w["admitted"] == "before" and w["total"] == "32" and "workload" in w["kad"]
    md = run("diff", str(EXAMPLE), str(head), "--format", "markdown", "--no-envelopes")
    assert md.exit_code == 1 and "| cluster_queue `team-vision` |" in md.output


def test_decisions_lists_exactly_the_changed_workloads_with_why(tmp_path):
    # without a100 in team-vision, vit-train (3 × a100, borrowing) can't be admitted any more
    head = _edit(tmp_path, "    flavor a100 { cpu = 128  memory = 1Ti  nvidia.com/gpu = 8 }\n", "")
    r = run("diff", str(EXAMPLE), str(head), "--format", "json", "--no-envelopes")
    assert r.exit_code == 1
    data = json.loads(r.output)
    changed = {d["workload"] for d in data["decisions"]}
    assert "team-vision/vit-train" in changed
    base_all = json.loads(run("admit", str(EXAMPLE), "--format", "json").output)["decisions"]
    head_all = json.loads(run("admit", str(head), "--format", "json").output)["decisions"]

    def view(d):
        return (d["admitted"], d["cluster_queue"], [(p["name"], p["count"], p["flavors"]) for p in d["pod_sets"]],
                d.get("preempted_by"))
    expected = {d["workload"] for d in base_all
                if view(d) != view(next(x for x in head_all if x["workload"] == d["workload"]))}
    assert changed == expected
    vit = next(d for d in data["decisions"] if d["workload"] == "team-vision/vit-train")
    assert vit["before"]["admitted"] is True and vit["after"]["admitted"] is False
    assert vit["why"]["side"] == "after" and vit["why"]["lines"]


def test_git_revisions(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo / "policy")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "base"], check=True)
    text = (repo / "policy" / "policy.kad").read_text()
    (repo / "policy" / "policy.kad").write_text(text.replace("queueing   = strict_fifo", "queueing   = best_effort_fifo"))
    monkeypatch.chdir(repo / "policy")  # PATH is from the repository's root, wherever kadmit runs
    r = run("diff", "git:HEAD:policy", str(repo / "policy"), "--format", "json", "--no-envelopes")
    assert r.exit_code == 1, r.output
    assert any(c["field"] == "queueing_strategy" for c in json.loads(r.output)["changes"])
    same = run("diff", "git:HEAD:policy", "git:HEAD:policy", "--no-envelopes")
    assert same.exit_code == 0
    for bad in ("git:no-such-rev", "git:--output=/tmp/x", "git:HEAD:no/such/path"):
        r = run("diff", bad, str(repo / "policy"))
        assert r.exit_code == 2 and "KAD805" in r.output


# --- envelopes against brute force ---------------------------------------------------------------

GPU = "nvidia.com/gpu"


@st.composite
def small_policies(draw):
    """Two or three queues, one flavor, an optional cohort pool, in one cohort; quotas in GPUs."""
    n = draw(st.integers(2, 3))
    cohort_pool = draw(st.integers(0, 4))
    queues = []
    for i in range(n):
        nominal = draw(st.integers(0, 6))
        borrow = draw(st.one_of(st.none(), st.integers(0, 6)))
        lend = draw(st.one_of(st.none(), st.integers(0, nominal)))
        queues.append(ClusterQueue(
            name=f"q{i}", cohort="c", namespace_selector=LabelSelector(),
            resource_groups=(ResourceGroup(covered_resources=(GPU,), flavors=(FlavorQuotas(flavor="gpu", resources=(
                ResourceQuota(resource=GPU, nominal=nominal * 1000,
                              borrowing_limit=None if borrow is None else borrow * 1000,
                              lending_limit=None if lend is None else lend * 1000),)),)),)))
    cohorts = (Cohort(name="c", resource_groups=(ResourceGroup(covered_resources=(GPU,), flavors=(FlavorQuotas(
        flavor="gpu", resources=(ResourceQuota(resource=GPU, nominal=cohort_pool * 1000),)),)),)),)
    return Model(flavors=(ResourceFlavor(name="gpu"),), cohorts=cohorts, cluster_queues=tuple(queues),
                 namespaces=(Namespace(name="ns"),),
                 local_queues=tuple(LocalQueue(namespace="ns", name=q.name, cluster_queue=q.name) for q in queues))


def _brute(model: Model, cq: str) -> int:
    """The largest whole-GPU gang the plain-Python reference admits alone, trying every size."""
    best = 0
    for pods in range(1, 40):
        wl = Workload(namespace="ns", name="g", queue=cq, pod_sets=(PodSet(
            name="gang", count=pods, min_count=pods, requests={GPU: 1000}),))
        got = decide(model.model_copy(update={"workloads": (wl,)}))
        if got and got[0].admitted:
            best = pods * 1000
    return best


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_policies())
def test_envelope_matches_brute_force(model):
    got = envelopes(model)
    for key in keys_of(model):
        gang = got[key]
        assert (gang.total if gang else 0) == _brute(model, key[0]), key


def test_state_is_added_to_both_sides(tmp_path):
    head = _edit(tmp_path, "    flavor a100 { cpu = 128  memory = 1Ti  nvidia.com/gpu = 8 }\n", "")
    state = tmp_path / "state.kad"
    state.write_text('workload team-vision/extra {\n  queue = training\n  priority = production\n'
                     '  created = "2026-11-20T08:30:00Z"\n'
                     '  pod_group main {\n    requests = { cpu = 1, nvidia.com/gpu = 8 }\n'
                     '    tolerations = ["nvidia.com/gpu:NoSchedule"]\n'
                     '    node_selector = { "gpu.example.com/model" = "a100" }\n  }\n}\n')
    r = run("diff", str(EXAMPLE), str(head), "--state", str(state), "--format", "json", "--no-envelopes")
    assert r.exit_code == 1
    extra = [d for d in json.loads(r.output)["decisions"] if d["workload"] == "team-vision/extra"]
    assert extra and extra[0]["before"]["admitted"] is True and extra[0]["after"]["admitted"] is False


def test_admission_checks_and_their_configs_are_changes(tmp_path):
    """A check added, a provisioning config changed, a queue's checks changed: each a change of its kind."""
    good = (ROOT / "tests" / "corpus" / "syntax" / "good" / "admission-checks.kad").read_text()
    (tmp_path / "base").mkdir()
    (tmp_path / "head").mkdir()
    (tmp_path / "base" / "p.kad").write_text(good)
    (tmp_path / "head" / "p.kad").write_text(good.replace("backoff_limit_count  = 2", "backoff_limit_count  = 5")
                                             .replace("admission_checks = [approval]", "admission_checks = [approval, gate]")
                                             + "\nadmission_check gate {\n  controller = \"example.com/gate\"\n  active = true\n}\n")
    r = run("diff", str(tmp_path / "base"), str(tmp_path / "head"), "--format", "json", "--no-envelopes")
    changes = {(c["kind"], c["name"], c["change"], c["field"]) for c in json.loads(r.output)["changes"]}
    assert {("admission_check", "gate", "added", None), ("provisioning_config", "gpu-capacity", "changed", "retry_strategy"),
            ("cluster_queue", "checked", "changed", "admission_checks")} <= changes
