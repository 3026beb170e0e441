"""`kadmit check`: exit codes, output formats, bad inputs, and the internal-error guard."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kadmit import api
from kadmit.diagnostics import Diagnostic, Severity

CLEAN = "priority research = 100 default\n"
BROKEN = "cohort org {\n  parent = \n"
WARNS = "flavor h100 {}\n"  # an unused flavor: a warning, not an error


def codes_of(result) -> list[str]:
    return [d["code"] for d in json.loads(result.stdout)["diagnostics"]]


def test_clean_policy_exits_0(run):
    run.write("p/a.kad", CLEAN)
    result = run("check", "p")
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: 1 file checked, no problems\n"


def test_errors_exit_1_with_human_snippets(run):
    run.write("p/a.kad", BROKEN)
    result = run("check", "p/a.kad")
    assert result.exit_code == 1
    assert "--> p/a.kad:" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("error: ")


def test_warnings_pass_unless_strict(run):
    run.write("a.kad", WARNS)
    loose = run("check", "a.kad", "--format", "json")
    assert loose.exit_code == 0
    assert {d["severity"] for d in json.loads(loose.stdout)["diagnostics"]} == {"warning"}
    assert run("check", "--strict", "a.kad").exit_code == 1


@pytest.mark.parametrize("name, content, code", [
    ("bin.kad", b"cohort\x00\x01\x02", "KAD002"),
    ("latin1.kad", "cohort caf\xe9 {}\n".encode("latin-1"), "KAD002"),
])
def test_unreadable_input_exits_2(run, name, content, code):
    run.write(name, content)
    result = run("check", name, "--format", "json")
    assert result.exit_code == 2
    assert codes_of(result) == [code]


def test_missing_path_exits_2(run):
    result = run("check", "nowhere.kad")
    assert result.exit_code == 2
    assert "error[KAD001]: no such file or folder: `nowhere.kad`" in result.stdout


def test_empty_folder_exits_2(run):
    (run.root / "empty").mkdir()
    result = run("check", "empty", "--format", "json")
    assert result.exit_code == 2 and codes_of(result) == ["KAD004"]


def test_too_large_file_exits_2(run):
    run.write("a.kad", CLEAN)
    result = run("check", "a.kad", "--max-file-size", "5", "--format", "json")
    assert result.exit_code == 2 and codes_of(result) == ["KAD003"]


def test_unreadable_input_wins_over_findings(run):
    run.write("p/a.kad", BROKEN)
    run.write("p/b.kad", b"\x00\x00")
    result = run("check", "p", "--format", "json")
    assert result.exit_code == 2
    assert "KAD002" in codes_of(result) and len(codes_of(result)) > 1


@pytest.mark.parametrize("args", [[], ["--bogus", "x"], ["x", "--format", "xml"],
                                  ["x", "--max-file-size", "0"]])
def test_bad_usage_exits_2_with_click_usage(run, args):
    result = run("check", *args)
    assert result.exit_code == 2
    assert "Usage: kadmit check" in result.stderr


def test_every_format_renders(run):
    run.write("a.kad", BROKEN)
    human = run("check", "a.kad", "--format", "human")
    as_json = run("check", "a.kad", "--format", "json")
    sarif = run("check", "a.kad", "--format", "sarif")
    github = run("check", "a.kad", "--format", "github")
    assert {r.exit_code for r in (human, as_json, sarif, github)} == {1}
    found = json.loads(as_json.stdout)["diagnostics"]
    assert found and all(d["file"] == "a.kad" for d in found)
    log = json.loads(sarif.stdout)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == [d["code"] for d in found]
    assert github.stdout.startswith("::error file=a.kad,line=")


def test_colour_follows_the_option_and_no_color(run):
    run.write("a.kad", BROKEN)
    assert "\x1b[" not in run("check", "a.kad").stdout  # not a terminal
    assert "\x1b[" in run("check", "a.kad", "--color", "always").stdout
    assert "\x1b[" not in run("check", "a.kad", "--color", "always", "--format", "json").stdout


def test_internal_errors_exit_70_without_a_traceback(run, monkeypatch):
    def broken(*a, **kw):
        raise RuntimeError("index out of range in the solver")

    monkeypatch.setattr(api, "check", broken)
    result = run("check", "x.kad")
    assert result.exit_code == 70
    assert "internal error: RuntimeError: index out of range in the solver" in result.stderr
    assert "report" in result.stderr


def test_exit_code_rules():
    err = Diagnostic("KAD001", Severity.ERROR, "e")
    warn = Diagnostic("KAD001", Severity.WARNING, "w")
    note = Diagnostic("KAD001", Severity.NOTE, "n")
    assert api.exit_code([], input_error=False) == 0
    assert api.exit_code([warn, note], input_error=False) == 0
    assert api.exit_code([note], input_error=False, strict=True) == 0
    assert api.exit_code([warn], input_error=False, strict=True) == 1
    assert api.exit_code([err], input_error=False) == 1
    assert api.exit_code([err], input_error=True) == 2
    assert api.exit_code([], input_error=True) == 2


def test_api_check_returns_sorted_diagnostics(run):
    run.write("b.kad", BROKEN)
    run.write("a.kad", BROKEN)
    result = api.check(["."])
    assert result.files == ["a.kad", "b.kad"]
    assert result.diagnostics == sorted(result.diagnostics, key=Diagnostic.sort_key)
    assert result.exit_code == 1


def test_python_dash_m_in_a_real_process(tmp_path):
    (tmp_path / "bin.kad").write_bytes(b"\x00binary")
    proc = subprocess.run([sys.executable, "-m", "kadmit", "check", "bin.kad", "missing"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "error[KAD001]" in proc.stdout and "error[KAD002]" in proc.stdout
    version = subprocess.run([sys.executable, "-m", "kadmit", "--version"],
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("kadmit, version ")


class _Tty:
    def isatty(self) -> bool:
        return True


def test_auto_colour_needs_a_terminal_and_no_no_color(monkeypatch):
    from kadmit.cli import use_color

    monkeypatch.setattr(sys, "stdout", _Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color("auto")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto")
    assert use_color("always") and not use_color("never")
    monkeypatch.setattr(sys, "stdout", object())
    monkeypatch.delenv("NO_COLOR")
    assert not use_color("auto")
