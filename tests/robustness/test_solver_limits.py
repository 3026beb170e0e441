"""Every verb that solves takes `--rlimit` and `--timeout`, and with a limit of 1 (nothing decided)
exits 3 naming what it could not decide — never an internal error, never a clean answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kadmit import api
from kadmit.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "ml-platform")
KUEUE = str(ROOT / "examples" / "ml-platform-kueue")
DATA = ROOT / "tests" / "simulate" / "data"


def kadmit(*args: str):
    got = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert "internal error" not in got.output and "Traceback" not in got.output
    return got


@pytest.mark.parametrize("verb", [["check", "--deep"], ["admit"], ["why", "team-vision/vit-train"], ["test"],
                                  ["diff", EXAMPLE], ["simulate"]])
def test_every_solving_verb_takes_the_solver_limits(verb: list[str]) -> None:
    text = kadmit(verb[0], "--help").output
    assert "--rlimit" in text and "--timeout" in text


def test_check_deep_lists_undecided_analyses_and_exits_3() -> None:
    got = kadmit("check", "--deep", "--rlimit", "1", EXAMPLE)
    assert got.exit_code == 3
    assert "KAD410" in got.output and "ok:" not in got.output
    assert "whether cluster queue `team-vision` can ever assign flavor `h100`" in got.output
    assert "whether the rules contradict each other" in got.output
    assert kadmit("check", "--rlimit", "5", EXAMPLE).exit_code == 2  # the limits need --deep


def test_admit_and_why_exit_3_naming_the_workload() -> None:
    got = kadmit("admit", "--rlimit", "1", EXAMPLE)
    assert got.exit_code == 3 and re.search(r"team-vision/vit-train\s+unknown", got.output)
    got = kadmit("why", "team-vision/vit-train", EXAMPLE, "--rlimit", "1")
    assert got.exit_code == 3 and "KAD503" in got.output and "team-vision/vit-train" in got.output


def test_policy_tests_are_undecided_not_passed() -> None:
    got = kadmit("test", "--rlimit", "1", EXAMPLE, "--format", "json")
    assert got.exit_code == 3
    tests = json.loads(got.stdout)
    assert tests["undecided"] >= 1 and tests["passed"] + tests["undecided"] == len(tests["tests"])
    undecided = [t for t in tests["tests"] if t["status"] == "unknown"]
    assert all(t["diagnostics"][0]["code"] == "KAD411" and "`team-" in t["diagnostics"][0]["message"]
               for t in undecided)
    assert "UNKNOWN" in kadmit("test", "--rlimit", "1", EXAMPLE).output


def test_diff_names_undecided_decisions_and_envelopes() -> None:
    got = kadmit("diff", EXAMPLE, KUEUE, "--rlimit", "1", "--format", "json")
    assert got.exit_code == 3
    undecided = json.loads(got.stdout)["undecided"]
    assert any(u["what"].startswith("the decision of workload `team-vision/vit-train`") for u in undecided)
    assert any(u["what"].startswith("the largest gang of") for u in undecided)
    assert "KAD412" in got.stderr
    same = kadmit("diff", EXAMPLE, EXAMPLE, "--rlimit", "1")
    assert same.exit_code == 3 and "no changes" not in same.stdout  # nothing is claimed unchanged


def test_simulate_and_its_sweep_exit_3_naming_workloads_and_variants(tmp_path: Path) -> None:
    got = kadmit("simulate", EXAMPLE, "--rlimit", "1", "--format", "json")
    assert got.exit_code == 3 and "KAD413" in got.stderr
    assert "team-vision/vit-train" in json.loads(got.stdout)["summary"]["undecided"]
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("variants:\n  - name: today\n")
    got = kadmit("simulate", EXAMPLE, "--sweep", str(sweep), "--workers", "1", "--rlimit", "1")
    assert got.exit_code == 3 and "variant `today`" in got.stderr and "KAD413" in got.stderr
    assert kadmit("simulate", EXAMPLE, "--sweep", str(sweep), "--workers", "1").exit_code == 0


def test_why_with_capacity_is_undecided_within_a_limit_of_1(tmp_path: Path) -> None:
    state = tmp_path / "state.kad"
    state.write_text((DATA / "karpenter-policy.kad").read_text()
                     + "workload a/gang {\n  queue = lq\n  pod_group workers {\n    count = 3\n"
                     "    requests = { cpu = 8, nvidia.com/gpu = 8 }\n  }\n}\n")
    answer, diags = api.why_capacity("a/gang", [str(state)], str(DATA / "karpenter-pool.yaml"), rlimit=1)
    assert answer is not None and answer.undecided and [d.code for d in diags] == ["KAD414"]
    assert "is not known" in answer.text()


def test_a_fix_asked_of_an_undecided_why_is_undecided_not_missing() -> None:
    for extra in (["--apply-fix", "1"], ["--format", "patch"]):
        got = kadmit("why", "team-vision/vit-train", EXAMPLE, "--rlimit", "1", *extra)
        assert got.exit_code == 3 and got.stdout == "", extra  # no patch, and no "0 proven fixes" (exit 1)
        assert "KAD503" in got.stderr and "team-vision/vit-train" in got.stderr and "no fix" not in got.stderr


def test_optimal_mode_is_undecided_where_the_ordered_run_it_compares_with_is() -> None:
    got = kadmit("admit", "--mode", "optimal", "--rlimit", "1", EXAMPLE, "--format", "json")
    assert got.exit_code == 3
    result = json.loads(got.stdout)
    waiting = [d for d in result["decisions"] if not d["admitted"]]
    assert waiting and all(d["unknown"] for d in waiting)
    assert "team-vision/vit-train" in result["optimal"]["ordered_undecided"]
    human = kadmit("admit", "--mode", "optimal", "--rlimit", "1", EXAMPLE)
    assert human.exit_code == 3 and "ordered mode could not decide" in human.stdout
    assert kadmit("admit", "--mode", "optimal", EXAMPLE).exit_code == 0
    got = kadmit("simulate", EXAMPLE, "--mode", "optimal", "--rlimit", "1")
    assert got.exit_code == 3 and "KAD413" in got.stderr
