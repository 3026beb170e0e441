"""Re-reading an edited manifest file by document (`manifests.documents`) gives what reading the
whole edited text gives: the same objects at the same places, the same diagnostics in the same order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit import edited, workspace
from kadmit.diagnostics import Diagnostics
from kadmit.edits import Edit, EditConflict, apply
from kadmit.manifests import read_manifest_text
from kadmit.manifests.documents import read_indexed, reread, segments

from jobs.helpers import SETUP
from jobs.test_trainjob import RUNTIME, TRAINJOB

ROOT = Path(__file__).parent.parent.parent
_SEP = re.compile(r"^---(?=[ \t\n]|$)[^\n]*\n?", re.M)


def _documents(text: str) -> list[str]:
    return [d.strip("\n") for d in _SEP.split(text) if d.strip()]


# Documents to build files from: the manifest corpus (good and bad: errors, Lists, empty ones, a
# Configuration), the example cluster (jobs, workloads, nodes, ConfigMap) and a TrainJob with the
# runtime it takes its pods from (resolved across documents).
POOL = sorted({d for f in sorted((ROOT / "tests/corpus/manifests").glob("*.yaml"))
               + sorted((ROOT / "examples/ml-platform-kueue").glob("*.yaml"))
               for d in _documents(f.read_text()) if len(d) < 3000}
              | set(_documents(SETUP))
              | {RUNTIME.format(kind="ClusterTrainingRuntime").strip(), TRAINJOB.format(kind="ClusterTrainingRuntime").strip(),
                 "# only a comment", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n1\n  labels: {a: '1'}"})
REPLACEMENTS = ["0", "1", "7", "-3", "250m", "64Gi", "1.5", "2e3", "x", "team-b", '"3"', "'q'", "true", "null",
                "2026-13-45", "", "abc def", "{", "[", '"', "'", "*a", "&a b", "!!python/int 3", "#", ": x",
                "- y", "---", "...", "%YAML 1.1", "\t1", "default", "ClusterQueue", "v1beta1", "9999999999999"]
TOKEN = re.compile(r"-?\d+(?:\.\d+)?[A-Za-z]*|\"[^\"\n]*\"|'[^'\n]*'|[A-Za-z][\w./-]*")


@st.composite
def files(draw) -> str:
    docs = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=6))
    seps = draw(st.lists(st.sampled_from(["---", "--- ", "--- # next"]), min_size=len(docs), max_size=len(docs)))
    lead = draw(st.sampled_from(["", "---\n", "# head\n---\n"]))
    body = "".join((sep + "\n" if i else "") + doc + "\n" for i, (sep, doc) in enumerate(zip(seps, docs)))
    return lead + body + draw(st.sampled_from(["", "---\n", "\n"]))


@st.composite
def edits(draw, text: str) -> list[Edit]:
    lines = text.split("\n")
    out = []
    for _ in range(draw(st.integers(1, 3))):
        line = draw(st.integers(0, len(lines) - 1))
        tokens = list(TOKEN.finditer(lines[line]))
        if tokens:
            m = tokens[draw(st.integers(0, len(tokens) - 1))]
            at, old = m.start(), m.group()
        else:
            at, old = draw(st.integers(0, len(lines[line]))), ""
        new = draw(st.one_of(st.sampled_from(REPLACEMENTS), st.integers(-5, 10**6).map(str)))
        out.append(Edit("f.yaml", line + 1, at + 1, old, new))
    return out


def _read(text: str) -> tuple[dict, list]:
    diags = Diagnostics()
    frag = read_manifest_text(text, "f.yaml", diags)
    return frag.model_dump(), diags.items


def _edited(text: str, changes: list[Edit]):
    """(whole read of the edited text, partial re-read or None); None, None when the edits conflict."""
    _, index = read_indexed(text, "f.yaml", Diagnostics())
    try:
        new = apply(text, changes)
    except EditConflict:
        if index is not None:
            with pytest.raises(EditConflict):
                if reread(index, changes) is None:
                    raise EditConflict("fallback: the whole file's apply raises")
        return None, None
    got = reread(index, changes) if index is not None else None
    return _read(new), got


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_partial_reread_equals_reading_the_edited_text(data):
    text = data.draw(files())
    frag, index = read_indexed(text, "f.yaml", diags := Diagnostics())
    assert (frag.model_dump(), diags.items) == _read(text)  # the indexed read is the plain read
    whole, got = _edited(text, data.draw(edits(text)))
    if got is not None:
        assert (got[0].model_dump(), got[1]) == whole


def test_the_pool_reads_mostly_by_document():
    """Most generated files are indexed and most of their number edits re-read by document (the
    property above is not only about falling back)."""
    indexed = sum(read_indexed(d, "f.yaml", Diagnostics())[1] is not None for d in POOL)
    assert indexed >= 0.8 * len(POOL)


def _numbers(text: str) -> list[Edit]:
    out = []
    for i, line in enumerate(text.split("\n")):
        m = re.search(r"(?<=: )\"?(\d+)\"?$", line)
        if m:
            out.append(Edit("f.yaml", i + 1, m.start(1) + 1, m.group(1), str(int(m.group(1)) + 7)))
    return out


def test_number_edits_of_a_multi_document_file_reread_only_their_document():
    text = "\n---\n".join(_documents(SETUP) + [RUNTIME.format(kind="ClusterTrainingRuntime"),
                                                 TRAINJOB.format(kind="ClusterTrainingRuntime")]) + "\n"
    _, index = read_indexed(text, "f.yaml", Diagnostics())
    assert index is not None and len(index.lines) == 5
    changes = _numbers(text)
    assert len(changes) >= 3
    for e in changes:
        whole, got = _edited(text, [e])
        assert got is not None and (got[0].model_dump(), got[1]) == whole
    whole, got = _edited(text, changes)  # all at once, in several documents
    assert got is not None and (got[0].model_dump(), got[1]) == whole


@pytest.mark.parametrize("line, old, new", [
    (7, "ClusterQueue", "ClusterQueue\n---"),  # lines change
    (5, "---", "-- "),  # a document joins the one before
    (9, '"cluster-queue"', "*a"),  # an alias (expansion is bounded per file)
    (9, '"cluster-queue"', '"cluster-queue'),  # a quoted string runs into the next document
    (10, "spec:", "--- x"),  # too close to a separator: a new document
])
def test_edits_that_change_the_structure_read_the_whole_file(line, old, new):
    text = SETUP
    assert text.split("\n")[line - 1].find(old) >= 0
    _, index = read_indexed(text, "f.yaml", Diagnostics())
    col = text.split("\n")[line - 1].find(old) + 1
    assert reread(index, [Edit("f.yaml", line, col, old, new)]) is None


@pytest.mark.parametrize("text", [
    "a: 1\r---\nb: 2\n",  # a lone carriage return breaks lines for YAML, not for the index
    "kind: x\n...\n---\nkind: y\n",  # a document end
    "%YAML 1.1\n---\nkind: x\n",  # a directive
    "a: 1\n--- b\n---\n[1, 2\n",  # a parse error
    "a: !!int x\n---\nkind: y\n",  # a tag reported while parsing (go-yaml refuses the value)
])
def test_files_that_are_not_plain_documents_are_not_indexed(text):
    frag, index = read_indexed(text, "f.yaml", diags := Diagnostics())
    assert (frag.model_dump(), diags.items) == _read(text)
    assert index is None


def test_aliases_are_refused_per_edited_document():
    text = "a: &x 1\nb: *x\n---\nkind: y\n"
    _, index = read_indexed(text, "f.yaml", Diagnostics())
    assert index is not None
    assert reread(index, [Edit("f.yaml", 1, 7, "1", "2")]) is None
    assert reread(index, [Edit("f.yaml", 4, 7, "y", "z")]) is not None


def test_workspace_reload_by_document_equals_loading_the_edited_file(tmp_path, monkeypatch):
    """Through the workspace (merge, jobs resolved through other documents, validation): the model
    and diagnostics once a runtime's sidecar cpu changes are those of loading the edited file, and
    only the runtime's document was read again."""
    from kadmit.manifests import documents

    text = "\n---\n".join(_documents(SETUP) + [RUNTIME.format(kind="ClusterTrainingRuntime"),
                                                 TRAINJOB.format(kind="ClusterTrainingRuntime"),
                                                 "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n1"]) + "\n"
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    (tmp_path / "a" / "f.yaml").write_text(text)
    monkeypatch.chdir(tmp_path / "a")
    ws = workspace.load(["f.yaml"])
    assert ws.documents["f.yaml"] is not None and not ws.diagnostics.has_errors
    partial = []
    real = documents.reread
    monkeypatch.setattr(documents, "reread", lambda *a: partial.append(real(*a)) or partial[-1])
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if "cpu: 500m" in t)
    for new, cpu in (("700m", 2700), ("x", None)):  # a change, then an error (KAD158 at its place)
        e = Edit("f.yaml", line + 1, lines[line].index("500m") + 1, "500m", new)
        model, diags = edited.with_edits(ws, [e])
        assert partial[-1] is not None
        (tmp_path / "b" / "f.yaml").write_text(apply(text, [e]))
        monkeypatch.chdir(tmp_path / "b")
        fresh = workspace.load(["f.yaml"])
        monkeypatch.chdir(tmp_path / "a")
        assert fresh.model.model_dump() == model.model_dump()
        assert fresh.diagnostics.sorted() == diags.sorted()
        if cpu is None:
            assert model.workloads == () and diags.has_errors
        else:
            assert model.workloads[0].pod_sets[1].requests["cpu"] == cpu
