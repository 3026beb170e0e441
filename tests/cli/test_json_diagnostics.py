"""Every `--format json` command prints one JSON document on stdout with its diagnostics: `admit`'s answer
carries the warnings it shows on stderr as `diagnostics` (as `check --format json` writes each), as do `simulate`'s
(and its sweep's) and `diff`'s (the errors it shows), `test`'s the test files' and policies' own, and a command
refusing its input (exit 2) prints `{"diagnostics": [...]}` where it printed nothing."""

from __future__ import annotations

import json
import re

import pytest

from cli.test_admit_may_differ import CONFIG, REFUSED
from cli.test_diagnostics_about import _job
from jobs.helpers import SETUP

BROKEN = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cq\nspec:\n  x: [\n"
KEYS = ["code", "severity", "message", "file", "line", "column", "end_line", "end_column", "help", "notes",
        "labels", "about"]


def _headers(stderr: str) -> list[tuple[str, str, str]]:
    """The human diagnostics' header lines: (severity, code, message)."""
    return re.findall(r"^(error|warning)\[(KAD\d{3})\]: (.*)$", stderr, re.M)


def test_admit_json_carries_the_warnings_it_shows(run) -> None:
    run.write("in.yaml", CONFIG + SETUP + "---\n" + REFUSED.replace("NAME", "a"))
    out = run("admit", "--format", "json", "in.yaml")  # stderr as the human format's (test_admit_may_differ)
    assert out.exit_code == 0, out.output
    said = json.loads(out.stdout)["diagnostics"]
    assert [(d["severity"], d["code"], d["message"]) for d in said] == _headers(out.stderr)
    assert {d["code"] for d in said} == {"KAD161", "KAD199"}
    assert all(list(d) == KEYS and d["file"] == "in.yaml" and d["line"] for d in said)


def test_admit_json_without_warnings_has_an_empty_list(run) -> None:
    run.write("in.yaml", SETUP)
    out = run("admit", "--format", "json", "in.yaml")
    assert out.exit_code == 0 and json.loads(out.stdout)["diagnostics"] == [] and out.stderr == ""


@pytest.mark.parametrize("args", [("admit",), ("why", "default/a"), ("simulate",), ("test",),
                                  ("simulate", "--sweep", "bad.yaml")], ids=lambda a: " ".join(a))
def test_refused_input_prints_its_errors_as_json(run, args) -> None:
    run.write("bad.yaml", BROKEN)
    out = run(*args, "--format", "json", "bad.yaml")
    assert out.exit_code == 2, out.output
    said = [d for d in json.loads(out.stdout)["diagnostics"] if d["code"] == "KAD150"]
    assert said and said[0]["severity"] == "error" and said[0]["file"] == "bad.yaml" and said[0]["line"] == 7
    assert ("error", "KAD150", said[0]["message"]) in _headers(out.stderr)  # stderr as before


def test_why_unknown_workload_prints_its_error_as_json(run) -> None:
    run.write("in.yaml", SETUP)
    out = run("why", "default/nope", "--format", "json", "in.yaml")
    assert out.exit_code == 2
    assert [(d["code"], d["message"]) for d in json.loads(out.stdout)["diagnostics"]] == [
        ("KAD009", "no workload `default/nope` in the inputs")]


def test_diff_of_an_unreadable_side_prints_its_errors_as_json(run) -> None:
    run.write("base/in.yaml", SETUP)
    run.write("head/in.yaml", BROKEN)
    out = run("diff", "--format", "json", "base", "head")
    assert out.exit_code == 2, out.output
    assert [d["code"] for d in json.loads(out.stdout)["diagnostics"]] == ["KAD150"]


def test_test_json_lists_the_files_diagnostics_with_every_key(run) -> None:
    run.write("bad.yaml", BROKEN)
    said = json.loads(run("test", "--format", "json", "bad.yaml").stdout)["diagnostics"]
    assert "KAD150" in [d["code"] for d in said] and all(list(d) == KEYS for d in said)


def test_simulate_json_carries_the_warnings_it_shows(run) -> None:
    run.write("in.yaml", CONFIG + SETUP + "---\n" + REFUSED.replace("NAME", "a"))
    out = run("simulate", "--format", "json", "in.yaml")
    assert out.exit_code == 0, out.output
    said = json.loads(out.stdout)["diagnostics"]
    assert [(d["severity"], d["code"], d["message"]) for d in said] == _headers(out.stderr)
    assert {"KAD161", "KAD199"} <= {d["code"] for d in said}  # and KAD706 (no run time)
    assert all(sorted(d) == sorted(KEYS) for d in said)
    assert all(d["file"] == "in.yaml" and d["line"] for d in said if d["code"] != "KAD706")


def test_simulate_sweep_json_carries_its_diagnostics(run) -> None:
    """A sweep's own diagnostics (KAD413: a variant undecided within the solver's limits) and its variants' inputs'
    warnings (KAD161, KAD199 here; said once for the two variants that share them), which it left out."""
    run.write("in.yaml", CONFIG + SETUP + "---\n" + REFUSED.replace("NAME", "a") + _job("j"))
    run.write("sweep.yaml", "variants:\n  - name: today\n  - name: again\n")
    out = run("simulate", "--format", "json", "--sweep", "sweep.yaml", "--workers", "1", "--rlimit", "1", "in.yaml")
    assert out.exit_code == 3, out.output
    said = json.loads(out.stdout)
    assert [v["variant"] for v in said["variants"]] == ["today", "again"]
    assert [(d["severity"], d["code"], d["message"]) for d in said["diagnostics"]] == _headers(out.stderr)
    codes = [d["code"] for d in said["diagnostics"]]
    assert sorted(set(codes)) == ["KAD161", "KAD199", "KAD413", "KAD706"] and codes.count("KAD413") == 2
    assert codes.count("KAD161") == codes.count("KAD199") == 1, codes
    assert all("diagnostics" not in v for v in said["variants"])


def test_diff_json_carries_the_errors_it_shows(run) -> None:
    """`diff` shows the errors of an answer it gave (KAD412, undecided within the solver's limits; both sides'
    warnings would say each twice): its JSON carries them, an empty list where there are none."""
    run.write("base/in.yaml", SETUP)
    run.write("head/in.yaml", SETUP)
    out = run("diff", "--format", "json", "--no-envelopes", "base", "head")
    assert out.exit_code == 0 and json.loads(out.stdout)["diagnostics"] == [] and out.stderr == "", out.output
    run.write("head/in.yaml", SETUP + _job("j"))
    out = run("diff", "--format", "json", "--no-envelopes", "--rlimit", "1", "base", "head")
    assert out.exit_code == 3, out.output
    said = json.loads(out.stdout)["diagnostics"]
    assert [(d["severity"], d["code"], d["message"]) for d in said] == _headers(out.stderr)
    assert [d["code"] for d in said] == ["KAD412"]
