"""A repository kept as people keep one — Kueue manifests and a `.kad` beside a Helm chart, CI workflows,
kadmit's own outputs and other tools' settings — checks clean: the objects are read, every other
file is listed as not read with what it is (KAD020, a note), and the pre-commit hooks' exact
commands (.pre-commit-hooks.yaml) pass on it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from click.testing import CliRunner

from kadmit.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform-kueue"

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: team-queues\ndescription: a LocalQueue per team\nversion: 0.1.0\n",
    "values.yaml": "teams:\n  - name: team-vision\n    clusterQueue: team-vision\n",
    "templates/localqueue.yaml": (
        "{{- range .Values.teams }}\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\n"
        "kind: LocalQueue\n"
        "metadata:\n"
        "  name: {{ .name }}-extra\n"
        "  namespace: {{ .name }}\n"
        "spec:\n"
        "  clusterQueue: {{ .clusterQueue }}\n"
        "---\n"
        "{{- end }}\n"),
    "templates/_helpers.tpl": '{{- define "team-queues.name" -}}team-queues{{- end -}}\n',
    "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    "charts/sub/values.yaml": "replicas: 1\n",
}


def kadmit(*args: str, cwd: Path) -> SimpleNamespace:
    """`kadmit ARGS` run in `cwd` (in-process: the command line's own code, without a start-up each)."""
    before = os.getcwd()
    os.chdir(cwd)
    try:
        got = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(before)
    return SimpleNamespace(returncode=got.exit_code, stdout=got.stdout, stderr=got.stderr)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("gitops")
    shutil.copytree(EXAMPLE, root / "cluster")
    shutil.copy(ROOT / "policies" / "gang-size.kad", root / "cluster" / "gang-size.kad")
    for name, text in CHART.items():
        (root / "charts" / "team-queues" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "charts" / "team-queues" / name).write_text(text)
    workflow = (ROOT / "examples" / "ci" / "kadmit.yml").read_text()
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "kadmit.yml").write_text(workflow)
    (root / "ci").mkdir()
    (root / "ci" / "kadmit.yml").write_text(workflow)  # a workflow kept outside .github
    (root / "renovate.json").write_text('{"extends": ["config:recommended"]}\n')
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - {id: kadmit-check, name: kadmit, entry: kadmit check, language: system}\n")
    (root / "reports").mkdir()
    for name, args in (("admit.json", ("admit", "cluster", "--format", "json")),
                       ("check.json", ("check", "cluster", "--format", "json")),
                       ("check.sarif.json", ("check", "cluster", "--format", "sarif")),
                       ("why.json", ("why", "team-infra/gpu-smoke", "cluster", "--format", "json"))):
        got = kadmit(*args, cwd=root)
        assert got.returncode in (0, 1), got.stderr
        (root / "reports" / name).write_text(got.stdout)
    return root


def notes(stdout: str) -> dict[str, str]:
    """KAD020 notes of `check --format json`: file -> message."""
    return {d["file"]: d["message"] for d in json.loads(stdout)["diagnostics"] if d["code"] == "KAD020"}


def test_check_reads_the_objects_and_lists_the_rest(repo: Path) -> None:
    whole = kadmit("check", ".", "--format", "json", cwd=repo)
    alone = kadmit("check", "cluster", "--format", "json", cwd=repo)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    listed = notes(whole.stdout)
    assert set(listed) == {"charts/team-queues/Chart.yaml", "ci/kadmit.yml", "renovate.json",
                           "reports/admit.json", "reports/check.json", "reports/check.sarif.json",
                           "reports/why.json"}
    assert "Helm chart `charts/team-queues` (6 files" in listed["charts/team-queues/Chart.yaml"]
    assert "a GitHub Actions workflow" in listed["ci/kadmit.yml"]
    assert "`kadmit admit --format json`" in listed["reports/admit.json"]
    assert "`kadmit check --format json`" in listed["reports/check.json"]
    assert "`kadmit check --format sarif`" in listed["reports/check.sarif.json"]
    assert "`kadmit why --format json`" in listed["reports/why.json"]
    assert listed["renovate.json"] == "not read: no `apiVersion` or `kind`, so not a Kubernetes object"
    rest = [d for d in json.loads(whole.stdout)["diagnostics"] if d["code"] != "KAD020"]
    assert rest == json.loads(alone.stdout)["diagnostics"]  # the objects read as when named alone
    human = kadmit("check", ".", cwd=repo)
    assert human.returncode == 0 and human.stdout.rstrip().endswith("notes")
    assert kadmit("check", ".", "--strict", cwd=repo).returncode == 0  # notes are not findings


def test_decisions_are_those_of_the_objects_alone(repo: Path) -> None:
    whole = json.loads(kadmit("admit", ".", "--format", "json", cwd=repo).stdout)
    alone = json.loads(kadmit("admit", "cluster", "--format", "json", cwd=repo).stdout)
    assert whole["decisions"] == alone["decisions"] and whole["decisions"]


def test_files_of_a_chart_named_alone_are_listed_not_read(repo: Path) -> None:
    got = kadmit("check", "charts/team-queues/templates/localqueue.yaml", cwd=repo)
    assert got.returncode == 0, got.stdout
    assert "not read: Helm chart `charts/team-queues` (1 file" in got.stdout
    (repo / "standalone.yaml").write_text(CHART["templates/localqueue.yaml"])
    try:
        got = kadmit("check", "standalone.yaml", cwd=repo)
    finally:
        (repo / "standalone.yaml").unlink()
    assert got.returncode == 0, got.stdout
    assert "note[KAD020]: not read: a Go template (`{{ … }}`), not a manifest" in got.stdout
    assert "--> standalone.yaml:1:1" in got.stdout


def _hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}


@pytest.mark.parametrize("hook", sorted(_hooks()))
def test_pre_commit_hooks_pass_unchanged(repo: Path, hook: str) -> None:
    """Each hook's own command, as pre-commit runs it: `entry`, `args`, and the staged files that
    match `files` when it takes file names (here: every file of the repository)."""
    spec = _hooks()[hook]
    command = shlex.split(spec["entry"]) + list(spec.get("args", []))
    assert command[0] == "kadmit"
    if spec.get("pass_filenames", True):
        pattern = re.compile(spec.get("files", ""))
        command += sorted(str(p.relative_to(repo)) for p in repo.rglob("*")
                          if p.is_file() and pattern.search(str(p.relative_to(repo))))
    got = kadmit(*command[1:], cwd=repo)
    assert got.returncode == 0, (command, got.stdout, got.stderr)


def test_the_test_hook_passes_on_a_repository_without_policy_tests(tmp_path: Path) -> None:
    spec = _hooks()["kadmit-test"]
    command = shlex.split(spec["entry"]) + list(spec.get("args", []))
    shutil.copytree(EXAMPLE, tmp_path / "cluster", ignore=shutil.ignore_patterns("*.kadtest.yaml"))
    got = kadmit(*command[1:], cwd=tmp_path)
    assert got.returncode == 0, (command, got.stdout, got.stderr)
    assert "no policy tests found" in got.stderr
