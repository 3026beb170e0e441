"""Random edits of the corpus, typed into `kadmit lsp` as an editor sends them (incremental changes,
UTF-16 ranges): the server answers every request, logs no internal error, and its diagnostics are
`kadmit check`'s of the same text."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, Workspace, key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.syntax.complete import keywords

CORPUS = sorted((ROOT / "tests" / "corpus" / "syntax").rglob("*.kad")) + sorted((ROOT / "examples" / "ml-platform").glob("*.kad"))
SNIPPETS = sorted(set(keywords().values())) + [
    "{", "}", "{\n", "}\n", "=", " = ", "\n", "[", "]", ",", '"', ":", "->", "#", "//", " ", "  ", "\t",
    "cohort = research", "flavor h100 { cpu = 1 }", "resources cpu {", "nvidia.com/gpu = 8 borrow 2",
    "workload.requests[cpu] > 2", "😋", "é", "\x00", "500m", "64Gi", "2e3", "-1", "team-vision/training",
    "required rack", "import \"nodes.kad\"\n", "require r: flavor == h100\n"]
# line breaks the protocol and Python's `splitlines` disagree on are left out of incremental edits
_ODD_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory):
    ws = Workspace(tmp_path_factory.mktemp("lsp-property"))
    path = ws.path("edited.kad")
    path.write_text("")
    uri = ws.editor.open(path, "")
    ws.editor.diagnostics(uri, ws.editor.versions[uri])
    yield ws, path, uri
    errors = ws.editor.errors()
    assert ws.editor.stop() == 0
    assert errors == []


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return line, sum(2 if ord(c) > 0xFFFF else 1 for c in text[start:offset])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_edits_answer_every_request_and_diagnose_as_check(typed, data) -> None:
    ws, path, uri = typed
    ed = ws.editor
    text = data.draw(st.sampled_from(CORPUS), label="file").read_text(encoding="utf-8")
    ed.change(uri, text)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        start = data.draw(st.integers(0, len(text)), label="start")
        end = data.draw(st.integers(start, min(len(text), start + 40)), label="end")
        new = data.draw(st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=8)), label="new")
        after = text[:start] + new + text[end:]
        if any(c in after for c in _ODD_BREAKS):
            ed.change(uri, after)
        else:
            ed.edit(uri, _position(text, start), _position(text, end), new, after)
        text = after
    published = ed.diagnostics(uri, ed.versions[uri])
    path.write_text(text, encoding="utf-8", errors="surrogatepass", newline="")
    expected = ws.expected()
    assert sorted(map(key, published)) == sorted(expected.get(uri, []))
    for other, found in expected.items():  # the other files' diagnostics (the example's, now with `edited.kad`'s names)
        if other and other != uri:
            assert sorted(map(key, ed.latest(other) or [])) == sorted(found)
    lines = text.split("\n")
    for _ in range(3):
        line = data.draw(st.integers(0, len(lines)), label="line")
        char = data.draw(st.integers(0, len(lines[line]) + 2 if line < len(lines) else 3), label="character")
        ed.hover(uri, line, char)
        ed.definition(uri, line, char)
        ed.references(uri, line, char)
        ed.completion(uri, line, char)
        ed.code_actions(uri, (line, char))
    ed.code_lens(uri)
    ed.formatting(uri)
    assert ed.errors() == []


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) >= 30 and all(Path(p).stat().st_size for p in CORPUS)
