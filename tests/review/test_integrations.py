"""CI and laptop integrations: pre-commit hooks, the example workflow, kubectl plugin, completion."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kadmit.cli import cli, kubectl_main

ROOT = Path(__file__).resolve().parents[2]


def test_pre_commit_hooks_name_real_commands():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"kadmit-check", "kadmit-fmt", "kadmit-test"}
    for h in hooks:
        verb = h["entry"].split()[1]
        assert verb in cli.commands


def test_example_workflow_checks_tests_uploads_sarif_and_comments_the_diff():
    flow = yaml.safe_load((ROOT / "examples" / "ci" / "kadmit.yml").read_text())
    steps = flow["jobs"]["kadmit"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    uses = " ".join(s.get("uses", "") for s in steps)
    assert "kadmit check --deep --strict --format sarif" in runs
    assert "kadmit test --format junit" in runs
    assert "kadmit diff" in runs and "--format markdown" in runs
    assert "upload-sarif" in uses and "github-script" in uses


def test_completion_scripts():
    for shell in ("bash", "zsh", "fish"):
        r = CliRunner().invoke(cli, ["completion", shell])
        assert r.exit_code == 0 and "_KADMIT_COMPLETE" in r.output


def test_kubectl_plugin_entry_point(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["kubectl-kadmit", "--help"])
    with pytest.raises(SystemExit) as e:
        kubectl_main()
    assert e.value.code == 0
    assert "kubectl kadmit" in capsys.readouterr().out
