"""Places between kadmit (1-based lines, columns in characters) and the protocol (0-based, columns in
UTF-16 code units unless the client negotiated another encoding)."""

from __future__ import annotations

from lsprotocol import types

from kadmit.diagnostics import Diagnostic, Label, Severity, Subject
from kadmit.edits import Edit
from kadmit.lsp.convert import Lines, diagnostic, text_edits, uri_of
from kadmit.source import Span

TEXT = 'flavor "😋é" {\n  topology = x\n}'


def test_columns_count_utf16_units_beyond_the_basic_plane() -> None:
    lines = Lines(TEXT)
    # `é` is the 10th character of line 1; before it `😋` takes two UTF-16 units
    assert lines.position(1, 10) == types.Position(0, 10)
    assert lines.place(types.Position(0, 10)) == (1, 10)
    assert Lines(TEXT, "utf-32").position(1, 10) == types.Position(0, 9)
    assert Lines(TEXT, "utf-8").position(1, 10) == types.Position(0, 12)
    assert lines.offset(types.Position(1, 2)) == TEXT.index("topology")


def test_places_outside_the_text_are_clamped() -> None:
    lines = Lines(TEXT)
    assert lines.position(0, 5) == types.Position(0, 0)
    assert lines.position(9, 1) == types.Position(2, 1)
    assert lines.place(types.Position(99, 99)) == (3, 2)
    assert lines.place(types.Position(0, 99)) == (1, len('flavor "😋é" {') + 1)


def test_a_span_without_an_end_covers_its_word() -> None:
    lines = Lines(TEXT)
    assert lines.range(Span("f.kad", 2, 14)) == types.Range(types.Position(1, 13), types.Position(1, 14))
    assert lines.range(Span("f.kad", 2, 3, 2, 11)) == types.Range(types.Position(1, 2), types.Position(1, 10))


def test_a_diagnostic_keeps_code_help_notes_and_labels() -> None:
    d = Diagnostic("KAD205", Severity.ERROR, "unknown topology `x`", Span("f.kad", 2, 14, 2, 15),
                   help="did you mean `y`?", notes=("a note",), labels=(Label(Span("g.kad", 1, 1, 1, 2), "here"),))
    got = diagnostic(d, Lines(TEXT), lambda name: Lines("x\n") if name == "g.kad" else None)
    assert (got.code, got.source, got.severity) == ("KAD205", "kadmit", types.DiagnosticSeverity.Error)
    assert got.message == "unknown topology `x`\nhelp: did you mean `y`?\nnote: a note"
    (rel,) = got.related_information
    assert rel.location.uri == uri_of("g.kad") and rel.message == "here"


def test_a_diagnostic_says_what_it_is_about() -> None:
    """`about` (the objects a diagnostic concerns) on a line of its own after the notes, and as `data.about`, each
    as `--format json` gives it; none where it names no object."""
    about = (Subject("Job", "ns", "j"), Subject("ClusterQueue", None, "cq"))
    d = Diagnostic("KAD202", Severity.WARNING, "workload `ns/j` is queued to `q`", Span("f.kad", 2, 14, 2, 15),
                   notes=("a note",), about=about)
    got = diagnostic(d, Lines(TEXT), lambda name: None)
    assert got.message == "workload `ns/j` is queued to `q`\nnote: a note\nabout: Job `ns/j`, ClusterQueue `cq`"
    assert got.data == {"about": [{"kind": "Job", "namespace": "ns", "name": "j"},
                                  {"kind": "ClusterQueue", "namespace": None, "name": "cq"}]}
    plain = diagnostic(Diagnostic("KAD150", Severity.ERROR, "bad YAML", Span("f.kad", 1, 1)), Lines(TEXT), None)
    assert plain.message == "bad YAML" and plain.data is None


def test_edits_cover_their_old_text() -> None:
    (edits,) = text_edits([Edit("f.kad", 2, 14, "x", "datacenter")], lambda name: Lines(TEXT)).values()
    assert edits == [types.TextEdit(types.Range(types.Position(1, 13), types.Position(1, 14)), "datacenter")]


def test_a_lone_carriage_return_ends_a_protocol_line_not_a_kadmit_line() -> None:
    text = "a\rbc\r\nd😋e\n"
    lines = Lines(text)
    # kadmit's line 1 is `a\rbc\r`: `c` is its 4th character, on the protocol's line 1
    assert lines.position(1, 4) == types.Position(1, 1)
    assert lines.place(types.Position(1, 1)) == (1, 4)
    assert lines.position(2, 3) == types.Position(2, 3)  # `e`, after the two units of `😋`
    assert lines.place(types.Position(2, 3)) == (2, 3)
    assert lines.offset(types.Position(1, 99)) == text.index("\r\n")  # clamped to the line's end
    assert lines.place(types.Position(1, 99)) == (1, 5)
    assert lines.position(1, 6) == types.Position(1, 2)  # past the `\r`: the protocol line's end
    assert lines.whole().end == types.Position(3, 0)
    for off in range(len(text) + 1):
        if text[off - 1:off + 1] != "\r\n":
            assert lines.offset(lines.at(off)) == off
