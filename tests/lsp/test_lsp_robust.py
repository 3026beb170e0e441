"""Text as it is while being typed, and worse: `kadmit lsp` publishes `kadmit check`'s diagnostics for
it and answers every request, without an internal error."""

from __future__ import annotations

import random
import sys

import pytest
from conftest import ROOT, checked, key
from lsp_editor import Editor
from lsprotocol import types

sys.path.insert(0, str(ROOT / "bench"))
import check_bench  # noqa: E402
import gen  # noqa: E402

GARBAGE = bytes(random.Random(7).randrange(256) for _ in range(3000)).decode("latin-1")


def five_thousand_lines() -> str:
    """A generated policy of ~5,000 lines in one file, cut in the middle of a block (as typed)."""
    files = gen.kad_files(check_bench.check_state(cluster_queues=340, cohorts=34))
    text = "".join(files[name] for name in sorted(files))
    assert text.count("\n") >= 5000
    cut = text.index("cluster_queue", len(text) // 2)
    return text[:cut] + "cluster_queue half-typed {\n  cohort = \n  resources cpu, memory {\n    flavor h1" + text[cut:]


TEXTS = {
    "unclosed": "cluster_queue x {\n  cohort = research\n  resources cpu {\n    flavor spot-cpu { cpu = 1 \n",
    "half-keyword": "cluster_qu",
    "half-statement": "flavor h100\n\nworkload team-a/x { queue = \n",
    "empty": "",
    "garbage": GARBAGE,
    "no-nul-garbage": GARBAGE.replace("\x00", ""),
    "only-newlines": "\n\n\n",
    "unicode": 'flavor "😋é" { node_labels = { "k" = "😋" } }\ncohort 😋 {}\n',
}


def _requests(ed: Editor, uri: str, text: str) -> None:
    lines = text.split("\n")
    places = [(0, 0), (len(lines) - 1, len(lines[-1])), (len(lines), 0), (len(lines) + 5, 99)]
    places += [(i, len(lines[i]) // 2) for i in range(0, len(lines), max(1, len(lines) // 7))]
    for line, char in places:
        ed.hover(uri, line, char)
        ed.definition(uri, line, char)
        ed.references(uri, line, char)
        ed.completion(uri, line, char)
        ed.code_actions(uri, (line, char))
    ed.code_lens(uri)
    ed.formatting(uri)


@pytest.fixture(scope="module")
def editor(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("lsp-robust") / "ws"
    root.mkdir()
    ed = Editor(root, cwd=root.parent)
    yield ed, root
    errors = ed.errors()
    assert ed.stop() == 0
    assert errors == []


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_malformed_text(editor, name: str) -> None:
    ed, root = editor
    path = root / f"{name}.kad"
    text = TEXTS[name]
    path.write_text(text, encoding="utf-8", newline="")
    uri = ed.open(path, text)
    published = ed.diagnostics(uri, ed.versions[uri])
    assert sorted(map(key, published)) == sorted(checked(root, root.parent).get(uri, []))
    _requests(ed, uri, text)
    assert ed.errors() == []
    ed.close_document(uri)
    path.unlink()


def test_a_five_thousand_line_file_half_typed(editor) -> None:
    ed, root = editor
    path = root / "big.kad"
    text = five_thousand_lines()
    path.write_text(text)
    uri = ed.open(path, text)
    published = ed.diagnostics(uri, ed.versions[uri])
    assert published and sorted(map(key, published)) == sorted(checked(root, root.parent).get(uri, []))
    _requests(ed, uri, text)
    assert ed.errors() == []
    ed.close_document(uri)
    path.unlink()


def test_a_file_opened_alone_is_checked_alone(tmp_path) -> None:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "other.kad").write_text("cohort dup {}\n")  # not read: the file is opened alone
    path = folder / "alone.kad"
    path.write_text("cohort dup {}\nflavor x { node_labels = { pool = \"a\" }  topology = missing }\n")
    ed = Editor(None, cwd=tmp_path)
    try:
        uri = ed.open(path)
        published = ed.diagnostics(uri, ed.versions[uri])
        assert sorted(map(key, published)) == sorted(checked(path, tmp_path).get(uri, []))
        assert sorted(d.code for d in published) == ["KAD205", "KAD270"]  # no duplicate `dup`: other.kad is not read
    finally:
        errors = ed.errors()
        assert ed.stop() == 0
    assert errors == []


def test_a_folder_added_to_the_workspace_is_checked_whole(tmp_path) -> None:
    folder = tmp_path / "policy"
    folder.mkdir()
    (folder / "other.kad").write_text("cohort dup {}\n")
    path = folder / "alone.kad"
    path.write_text("cohort dup {}\n")
    ed = Editor(None, cwd=tmp_path)
    try:
        uri = ed.open(path)
        assert ed.diagnostics(uri, ed.versions[uri]) == []  # alone: no duplicate
        ed.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(ed.uri(folder), "policy")], removed=[])))
        ed.diagnostics(uri, ed.versions[uri], timeout=60, after=1)
        other = ed.uri(folder / "other.kad")  # published before the open document
        expected = checked(folder, tmp_path)
        assert sorted(map(key, ed.latest(other))) == sorted(expected[other])
        assert [d.code for d in ed.latest(other)] == ["KAD220"]  # the duplicate, now that other.kad is read
    finally:
        errors = ed.errors()
        assert ed.stop() == 0
    assert errors == []
