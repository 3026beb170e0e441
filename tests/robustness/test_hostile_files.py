"""Hostile NodePools, sweep files, traces, capacity files and policy test files: whatever is wrong
with them, the verb exits 0-3, says what is wrong with a KAD code at a line of the file, in kadmit's
words (no Python exception names or reprs), and never reaches the CLI's last-resort handler.

Every mutation of every kind is run by `bench/hostile_bench.py --files` (a table of exit codes);
here a fixed sample of them, and a property test over random edits."""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.cli import Kadmit

from . import hostile_files as H

SAMPLE = {"kadtest": 8}  # mutations run per kind (policy tests decide and explain: slower)


@pytest.fixture(autouse=True)
def no_last_resort(monkeypatch):
    """Reaching the CLI's last-resort handler (exit 70) is a failure: the exception surfaces."""
    def internal(ctx, e):
        raise e
    monkeypatch.setattr(Kadmit, "_internal", staticmethod(internal))


def _sample(kind: str) -> list[tuple[str, object]]:
    found = H.mutations(kind)
    text = [m for m in found if " = " not in m[0] and " removed" not in m[0]][:6]
    rest = [m for m in found if m not in text]
    n = SAMPLE.get(kind, 20) - len(text)
    return text + rest[:: max(1, math.ceil(len(rest) / max(n, 1)))][:max(n, 0)]


@pytest.mark.parametrize("kind", sorted(H.KINDS))
def test_a_sample_of_every_kinds_mutations(kind: str, tmp_path: Path) -> None:
    bad = []
    for i, (what, make) in enumerate(_sample(kind)):
        code, out = H.run(tmp_path / str(i), kind, make())
        problems = H.problems(code, out)
        if problems:
            bad.append((what[:80], code, problems, out[:300]))
    assert bad == []


def test_the_seeds_are_valid(tmp_path: Path) -> None:
    for kind in H.KINDS:
        code, out = H.run(tmp_path / kind, kind, H.KINDS[kind].seed)
        assert code == 0, (kind, out[:500])


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**40, 10**40) | st.floats() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3), max_leaves=6)
EDITS = st.lists(st.tuples(st.integers(0, 10_000), st.one_of(st.just(H.DELETE), VALUES)), min_size=1, max_size=3)


@pytest.mark.parametrize("kind", sorted(set(H.KINDS) - {"nodepool-why"}))
@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=EDITS)
def test_random_edits_get_a_located_diagnostic_or_run(kind: str, edits) -> None:
    if kind == "kadtest" and len(edits) > 1:
        edits = edits[:1]
    content = H.edited(kind, edits)
    with tempfile.TemporaryDirectory() as tmp:
        code, out = H.run(Path(tmp), kind, content)
    assert H.problems(code, out) == [], (code, out[:600])


@pytest.mark.parametrize("args", [["check", "{long}"], ["admit", "{long}"], ["why", "a/b", "{long}"], ["test", "{long}"],
                                  ["fmt", "--check", "{long}"], ["diff", "{long}", "{dir}"],
                                  ["simulate", "{dir}/policy.kad", "--compare", "{long}"],
                                  ["simulate", "{dir}/policy.kad", "--add-nodes", "1h:{long}"],
                                  ["simulate", "{dir}/policy.kad", "--trace", "{long}"]])
def test_a_path_no_file_system_allows_is_unreadable_input(args: list[str], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kadmit.cli import cli

    (tmp_path / "policy.kad").write_text(H.POLICY)
    argv = [a.format(long="x" * 5000, dir=str(tmp_path)) for a in args]
    got = CliRunner().invoke(cli, argv, catch_exceptions=False)
    assert got.exit_code == 2 and re.search(r"KAD00[14]", got.output), got.output[:300]
    assert not H.EXCEPTION.search(got.output)  # an argument has no line to point at: only the words are checked


def test_the_inputs_own_words_in_an_excerpt_are_no_exception(tmp_path: Path) -> None:
    """bench/fuzz_cli.py --seed 12's case 21: a KubeRay sample's script (`except Exception as e:`) on a line
    a doubled quote made malformed; check quotes the line under its error, in the input's words."""
    from click.testing import CliRunner

    from kadmit.cli import cli

    (tmp_path / "cm.yaml").write_text('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n'
                                      '  run.py: "f(\\"x\\"")\\nexcept Exception as e: pass"\n  b: c\n')
    got = CliRunner().invoke(cli, ["check", str(tmp_path)], catch_exceptions=False)
    assert got.exit_code == 1 and "6 |   run.py: \"f(\\\"x\\\"\")\\nexcept Exception" in got.output, got.output
    assert H.problems(got.exit_code, got.output) == []
    assert H.problems(got.exit_code, got.output + "\nValueError: boom\n") == ["prints `ValueError`"]


JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: a, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: x
          resources:
            requests:
              KEY: [1]
"""


def _quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar: what YAML does not allow written as is, escaped (json.dumps
    would write a character past the BMP as a surrogate pair, which YAML reads as two)."""
    def char(c: str) -> str:
        if c in '"\\':
            return "\\" + c
        n = ord(c)
        return f"\\u{n:04x}" if n < 0x20 or 0x7f <= n <= 0x9f or n in (0x2028, 0x2029, 0xfffe, 0xffff) else c
    return '"' + "".join(char(c) for c in text) + '"'


def _one_header_each(key: str, folder: Path) -> None:
    """A Job whose `requests` key is `key` (its value a list: KAD156 names the key): in the human and github
    formats each diagnostic is one header line holding its code, location and message, the key's line breaks
    and control characters escaped (the key quoted as JSON, `diagnostics.field_key`; the rest by `one_line`), and no
    other line reads as a header."""
    from kadmit import api
    from kadmit.diagnostics import field_key
    from kadmit.render.diagnostics import render
    from kadmit.render.excerpt import one_line
    from kadmit.render.github import escape_data

    path = folder / "job.yaml"
    path.write_text(JOB.replace("KEY", _quoted(key)), encoding="utf-8")
    result = api.check([str(path)])
    ds = result.diagnostics
    named = field_key("requests", key)  # `requests.cpu`, `requests["a\\nb"]`
    assert any(d.code == "KAD156" and f"{named}`" in d.message for d in ds), [d.message for d in ds]
    human = render(ds, result.sources, "human", files_checked=1).splitlines()
    headers = [i for i, line in enumerate(human) if re.match(r"(error|warning|note)\[KAD\d{3}\]: ", line)]
    assert [human[i] for i in headers] == [f"{d.severity.value}[{d.code}]: {one_line(d.message)}" for d in ds]
    assert [human[i + 1].split("--> ")[-1] for i in headers] == [f"{d.span}" for d in ds]
    github = [line for line in render(ds, result.sources, "github", files_checked=1).splitlines()
              if line.startswith("::")]
    assert [re.sub(r"::\w+ .*title=(KAD\d{3})::", r"\1 ", line).split("%0A")[0] for line in github] == [
        f"{d.code} {escape_data(one_line(d.message))}" for d in ds]


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.text(st.characters(blacklist_categories=("Cs",)), max_size=5))
def test_a_key_s_text_stays_on_its_diagnostic_s_header_line(key: str, tmp_path: Path) -> None:
    _one_header_each(key, tmp_path)


@pytest.mark.parametrize("key", ["a\nb", "\r\n", "\t", "\x1b[2J", "\u2028", "\x85", "a\\nb"])
def test_a_job_key_holding_a_line_break_keeps_kad156_on_one_header_line(key: str, tmp_path: Path) -> None:
    _one_header_each(key, tmp_path)


def test_a_path_that_spells_its_escape_is_not_escaped_twice(tmp_path: Path) -> None:
    """`diagnostics.field_key` (simulate.yamlread.dotted before) already names a NodePool limit keyed "\\n" as `spec.limits["\\n"]` (d44d1cf): the
    header shows that as written, its backslash not doubled."""
    code, out = H.run(tmp_path, "nodepool", H.NODEPOOL.replace("nvidia.com/gpu: 32", 'nvidia.com/gpu: 32\n    "\\n": x'))
    assert code == 2 and re.search(r'^error\[KAD710\]: `spec\.limits\["\\n"\]`: ', out, re.M), out[:600]
    assert H.problems(code, out) == []


def test_an_object_not_decided_is_listed_on_one_line_whatever_its_names_hold(tmp_path: Path) -> None:
    """A Job named "a\\nb" in namespace "x\\ty" whose queue label is "l\\nq" (refused by the API server, its label
    value before Kueue's webhook sees it: KAD196): `admit` lists it as not decided on one line, its names and the
    server's words escaped."""
    from click.testing import CliRunner

    from kadmit.cli import cli

    (tmp_path / "job.yaml").write_text(JOB.replace("KEY", "cpu").replace("[1]", "1").replace(
        "{name: j, namespace: a, labels: {kueue.x-k8s.io/queue-name: lq}}",
        '{name: "a\\nb", namespace: "x\\ty", labels: {kueue.x-k8s.io/queue-name: "l\\nq"}}'))
    got = CliRunner().invoke(cli, ["admit", str(tmp_path / "job.yaml")], catch_exceptions=False)
    (line,) = [line for line in got.stdout.splitlines() if line.startswith("  Job ")]
    assert line.startswith("  Job x\\ty/a\\nb (") and 'Invalid value: "l\\nq": a valid label' in line, got.stdout
    assert got.exit_code == 1 and H.problems(got.exit_code, got.output) == []


def test_a_policy_test_named_with_control_characters_reports_on_one_line_and_in_xml(tmp_path: Path) -> None:
    """A test named "the gang\\x1b[31m is\\nadmitted" expecting a cluster queue "q\\x01\\nz": `kadmit test` says it
    failed on one line (its name escaped) with its expectation on one line, and its JUnit XML parses."""
    import xml.etree.ElementTree as ET

    from kadmit import api
    from kadmit.render.tests_report import tests_human, tests_junit

    tests = H.TESTS.replace("name: the gang is admitted", 'name: "the gang\\e[31m is\\nadmitted"').replace(
        "a/gang: {admitted: {cluster_queue: q,", 'a/gang: {admitted: {cluster_queue: "q\\x01\\nz",', 1)
    H.setup(tmp_path, "kadtest", tests)
    outcome = api.test([str(tmp_path)])
    out = tests_human(outcome)
    assert f"FAIL  {tmp_path}/policy.kadtest.yaml:2 the gang\\x1b[31m is\\nadmitted\n" in out, out
    assert "        expected: admitted (cluster_queue: q\\x01\\nz, flavors" in out, out
    cases = ET.fromstring(tests_junit(outcome)).findall(".//testcase")
    assert cases[0].get("name") == "the gang\\x1b[31m is admitted"  # a line break in an attribute reads as a space
