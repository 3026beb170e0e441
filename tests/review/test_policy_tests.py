"""`kadmit test`: the bundled examples pass, failures are reported with why, JUnit is XML."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from kadmit.cli import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _copy(tmp_path: Path, tests: str) -> Path:
    folder = tmp_path / "ml"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.kadtest.yaml"))
    (folder / "t.kadtest.yaml").write_text(tests, encoding="utf-8")
    return folder


def test_bundled_examples_pass():
    for folder in ("ml-platform", "ml-platform-kueue"):
        r = run("test", str(ROOT / "examples" / folder), "--format", "json")
        assert r.exit_code == 0, r.output
        data = json.loads(r.output)
        assert data["passed"] >= 3 and data["failed"] == 0 and data["errors"] == 0


def test_check_and_admit_ignore_test_files():
    assert run("check", str(EXAMPLE)).exit_code == 0
    assert run("admit", str(EXAMPLE)).exit_code == 0


WRONG = """\
tests:
  - name: vit-train lands on h100 (it doesn't)
    expect:
      team-vision/vit-train: {admitted: {flavors: h100}}
  - name: llm-pretrain is admitted (it isn't)
    expect:
      team-vision/llm-pretrain: admitted
  - name: a diagnostic that isn't reported
    expect:
      diagnostics: [KAD201]
  - name: this one holds
    expect:
      team-nlp/llama-eval: admitted
"""


def test_failures_are_reported_with_expected_got_and_why(tmp_path):
    folder = _copy(tmp_path, WRONG)
    r = run("test", str(folder), "--format", "json")
    assert r.exit_code == 1, r.output
    data = json.loads(r.output)
    status = [t["status"] for t in data["tests"]]
    assert status == ["fail", "fail", "fail", "pass"]
    first = data["tests"][0]["failures"][0]
    assert first["workload"] == "team-vision/vit-train"
    assert "a100" in first["got"] and "h100" in first["expected"]
    pretrain = data["tests"][1]["failures"][0]
    assert pretrain["got"].startswith("not admitted")
    assert any(line.startswith("blame: ") for line in pretrain["why"])  # why's explanation
    human = run("test", str(folder))
    assert human.exit_code == 1
    assert "expected: admitted" in human.output and "got:" in human.output and "3 failed" in human.output


def test_junit_is_xml_with_failures(tmp_path):
    folder = _copy(tmp_path, WRONG)
    r = run("test", str(folder), "--format", "junit")
    assert r.exit_code == 1
    root = ET.fromstring(r.output)
    assert root.tag == "testsuites" and root.get("tests") == "4" and root.get("failures") == "3"
    cases = root.findall(".//testcase")
    assert len(cases) == 4
    assert sum(1 for c in cases if c.find("failure") is not None) == 3


def test_setup_and_format_errors_exit_2(tmp_path):
    folder = _copy(tmp_path, """\
tests:
  - name: remove what isn't there
    given:
      remove: [node no-such-node]
    expect:
      team-nlp/llama-eval: admitted
""")
    r = run("test", str(folder), "--format", "json")
    assert r.exit_code == 2
    assert json.loads(r.output)["tests"][0]["diagnostics"][0]["code"] == "KAD804"
    (folder / "t.kadtest.yaml").write_text("tests:\n  - name: x\n    expect:\n      a/b: fits\n")
    r = run("test", str(folder))
    assert r.exit_code == 2 and "KAD802" in r.output
    (folder / "t.kadtest.yaml").unlink()
    r = run("test", str(folder))
    assert r.exit_code == 2 and "KAD803" in r.output


def test_without_paths_no_tests_is_a_note_and_passes(tmp_path, monkeypatch):
    """The kadmit-test pre-commit hook runs `kadmit test` in the repository: nothing to test passes,
    and says so; paths named that hold no tests stay an error."""
    folder = tmp_path / "repo"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.kadtest.yaml"))
    monkeypatch.chdir(folder)
    r = CliRunner().invoke(cli, ["test"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "note[KAD803]: no policy tests found (`*.kadtest.yaml`) under the working directory" in r.stderr
    r = CliRunner().invoke(cli, ["test", "--format", "json"], catch_exceptions=False)
    assert r.exit_code == 0 and json.loads(r.stdout)["tests"] == []
    r = CliRunner().invoke(cli, ["test", "."], catch_exceptions=False)
    assert r.exit_code == 2 and "error[KAD803]: no policy tests (`*.kadtest.yaml`) in `.`" in r.stderr
    (folder / "t.kadtest.yaml").write_text("tests:\n  - name: x\n    expect:\n      team-vision/a: fits\n")
    r = CliRunner().invoke(cli, ["test"], catch_exceptions=False)
    assert r.exit_code == 2 and "KAD802" in r.output  # found and run: a broken test still fails


def test_embedded_text_keeps_the_test_files_lines(tmp_path):
    folder = _copy(tmp_path, """\
tests:
  - name: broken kad text
    given:
      add: |
        workload team-nlp/x {
          queue = = training
        }
    expect:
      team-nlp/x: admitted
""")
    r = run("test", str(folder), "--format", "json")
    assert r.exit_code == 2
    d = json.loads(r.output)["tests"][0]["diagnostics"][0]
    assert d["file"].endswith("t.kadtest.yaml") and d["line"] == 6


def test_a_detail_of_the_wrong_type_is_an_error_at_it_not_a_test_that_cannot_fail(tmp_path):
    for detail, line in [("counts: two", "counts: two"), ("flavors: {workers: [h100, a100]}", "flavors:"),
                         ("borrowing: yes please", "borrowing:"), ("cluster_queue: [team-nlp]", "cluster_queue:")]:
        folder = _copy(tmp_path / str(abs(hash(detail))), "tests:\n  - name: t\n    expect:\n"
                       f"      team-nlp/llama-eval: {{admitted: {{{detail}}}}}\n")
        r = run("test", str(folder), "--format", "json")
        assert r.exit_code == 2 and "KAD810" in r.stderr, (detail, r.output)
        assert "t.kadtest.yaml:4:" in r.stderr and line.split(":")[0] in r.stderr


def test_added_text_written_as_a_quoted_string_is_read_as_its_value(tmp_path):
    kad = 'workload team-nlp/tiny {\\n  queue = training\\n  pod_group main { requests = { cpu = 1 } }\\n}\\n'
    folder = _copy(tmp_path, "tests:\n  - name: quoted\n    given:\n"
                   f'      add: "{kad}"\n    expect:\n      team-nlp/tiny: {{not_admitted: {{reason: KAD512}}}}\n')
    r = run("test", str(folder))
    assert r.exit_code == 0, r.output


def test_a_workload_waiting_for_admission_checks_is_not_admitted(tmp_path):
    """Quota reserved in a queue with admission checks is not Kueue's Admitted: `admitted` fails
    naming the checks, `not_admitted` holds (tests/oracle/features/admission-checks-reserve-quota.yaml,
    which both tools decide alike)."""
    folder = tmp_path / "ac"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "oracle" / "features" / "admission-checks-reserve-quota.yaml", folder / "c.yaml")
    (folder / "t.kadtest.yaml").write_text(
        "tests:\n"
        "  - name: checked waits\n    expect:\n      ns/checked: not_admitted\n"
        "  - name: checked is admitted (it isn't)\n    expect:\n      ns/checked: admitted\n"
        "  - name: plain is admitted\n    expect:\n      ns/plain: admitted\n", encoding="utf-8")
    r = run("test", str(folder), "--format", "json")
    data = json.loads(r.output)
    assert (data["passed"], data["failed"]) == (2, 1), r.output
    assert "not admitted: quota reserved, waiting for admission checks approval, capacity" in r.output
