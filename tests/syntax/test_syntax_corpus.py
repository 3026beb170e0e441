"""The syntax corpus: every bad file gives exactly the diagnostics its `# expect:` lines name,
and every good file parses cleanly and survives `fmt` unchanged in meaning."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.model import merge
from kadmit.syntax import format_text, parse_text
from kadmit.validate import validate

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "syntax"
BAD = sorted((CORPUS / "bad").glob("*.kad"))
GOOD = sorted((CORPUS / "good").glob("*.kad"))
_EXPECT = re.compile(r"^# expect: (KAD\d{3}) (\d+):(\d+)$", re.MULTILINE)


def expectations(text: str) -> list[tuple[str, int, int]]:
    return sorted((c, int(line), int(col)) for c, line, col in _EXPECT.findall(text))


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_file_reports_expected_diagnostics(path: Path) -> None:
    """`# expect:` lines name every diagnostic of reading the file; with `# check: whole`, of reading
    and validating it (what `kadmit check` reports: no follow-on errors of a broken statement)."""
    text = path.read_text()
    want = expectations(text)
    assert want, f"{path.name} has no `# expect:` line"
    diags = Diagnostics()
    fragment = parse_text(text, path.name, diags)
    if re.search(r"^# check: whole$", text, re.MULTILINE):
        validate(merge([fragment]), diags)
    got = sorted((d.code, d.span.line, d.span.column) for d in diags.sorted())
    assert got == want, [f"{d.code} {d.span}: {d.message}" for d in diags.sorted()]
    for d in diags:
        assert "$END" not in d.message and "__ANON" not in d.message and "RBRACE" not in d.message
        assert d.message == d.message[0].lower() + d.message[1:]


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_file_parses_cleanly_and_formats_to_the_same_model(path: Path) -> None:
    text = path.read_text()
    diags = Diagnostics()
    before = parse_text(text, path.name, diags)
    assert not diags.items, [f"{d.code} {d.span}: {d.message}" for d in diags.items]
    out, fdiags = format_text(text, path.name)
    assert out is not None, [d.message for d in fdiags]
    assert parse_text(out, path.name, Diagnostics()) == before
    assert format_text(out, path.name)[0] == out
