"""Golden tests for the human (rustc-style) diagnostic format."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from kadmit.diagnostics import Diagnostic, Label, Severity
from kadmit.render.human import render_human, render_one, summary_line
from kadmit.source import SourceMap, Span

ML = "policies/ml.kad"


def span(line: int, col: int, end_line: int | None = None, end_col: int | None = None,
         file: str = ML) -> Span:
    return Span(file=file, line=line, column=col, end_line=end_line, end_column=end_col)


def diag(message: str, at: Span | None, *, severity=Severity.ERROR, code="KAD203", **kw) -> Diagnostic:
    return Diagnostic(code, severity, message, at, **kw)


ML_TEXT = "\n" * 39 + "    flavor h100 { nvidia.com/gpu = 8 lend 12 }\n"


def ml_sources() -> SourceMap:
    sm = SourceMap()
    sm.add(ML, ML_TEXT)
    return sm


def test_primary_span_with_label_and_help():
    at = span(40, 38, 40, 45)
    d = diag("lending limit 12 exceeds nominal quota 8", at, help="lower `lend` to at most 8",
             labels=(Label(at, "lending limit set here"),))
    assert render_one(d, ml_sources()) == (
        "error[KAD203]: lending limit 12 exceeds nominal quota 8\n"
        "  --> policies/ml.kad:40:38\n"
        "   |\n"
        "40 |     flavor h100 { nvidia.com/gpu = 8 lend 12 }\n"
        "   |                                      ^^^^^^^ lending limit set here\n"
        "   |\n"
        "   = help: lower `lend` to at most 8\n")


def test_no_help_ends_after_the_marks():
    d = diag("unknown flavor `h100`", span(40, 12, 40, 16), severity=Severity.WARNING,
             code="KAD201")
    assert render_one(d, ml_sources()) == (
        "warning[KAD201]: unknown flavor `h100`\n"
        "  --> policies/ml.kad:40:12\n"
        "   |\n"
        "40 |     flavor h100 { nvidia.com/gpu = 8 lend 12 }\n"
        "   |            ^^^^\n")


def test_tabs_are_expanded_and_carets_follow():
    sm = SourceMap()
    sm.add("a.kad", "\tx\t= 1\n")
    d = diag("bad", span(1, 4, 1, 5, file="a.kad"))
    assert render_one(d, sm).splitlines()[3:5] == [
        "1 |     x    = 1",
        "  |          ^",
    ]


def test_span_past_end_of_line_gets_one_caret_after_it():
    sm = SourceMap()
    sm.add("a.kad", "cohort a {\n")
    d = diag("expected `}`", span(1, 40, 1, 41, file="a.kad"))
    assert render_one(d, sm).splitlines()[3:5] == [
        "1 | cohort a {",
        "  |           ^",
    ]


def test_multiline_span_is_marked_to_the_end_of_its_first_line():
    sm = SourceMap()
    sm.add("a.kad", "cohort a {\n  parent = b\n}\n")
    d = diag("cycle", span(1, 8, 3, 2, file="a.kad"))
    assert render_one(d, sm).splitlines()[4] == "  |        ^^^"


def test_empty_and_reversed_spans_still_get_one_caret():
    sm = SourceMap()
    sm.add("a.kad", "abc\n")
    for at in (span(1, 2, 1, 2, file="a.kad"), span(1, 2, 1, 1, file="a.kad"),
               span(1, 2, file="a.kad")):
        assert render_one(diag("x", at), sm).splitlines()[4] == "  |  ^"


def test_wide_characters_take_two_columns():
    sm = SourceMap()
    sm.add("a.kad", 'x = "日本" y\n')
    d = diag("x", span(1, 10, 1, 11, file="a.kad"))
    assert render_one(d, sm).splitlines()[4] == "  |            ^"


def test_control_characters_in_source_are_neutralised():
    sm = SourceMap()
    sm.add("a.kad", "a\x1b[31mb\n")
    out = render_one(diag("x", span(1, 1, file="a.kad")), sm)
    assert "\x1b" not in out and "\ufffd" in out


def test_long_lines_are_cut_around_the_mark():
    sm = SourceMap()
    sm.add("a.kad", "x" * 500 + "TARGET" + "y" * 500 + "\n")
    out = render_one(diag("x", span(1, 501, 1, 507, file="a.kad")), sm).splitlines()
    source, marks = out[3], out[4]
    assert source.startswith("1 | …") and source.endswith("…")
    assert len(source) < 200
    assert source[marks.index("^"):marks.index("^") + 6] == "TARGET"
    assert marks.count("^") == 6


def test_no_span_prints_header_and_footer_only():
    d = diag("no `.kad` files in `x`", None, code="KAD004", help="pass a folder",
             notes=("kadmit reads .kad, .yaml, .yml and .json",))
    assert render_one(d, SourceMap()) == (
        "error[KAD004]: no `.kad` files in `x`\n"
        "  = help: pass a folder\n"
        "  = note: kadmit reads .kad, .yaml, .yml and .json\n")


def test_span_in_a_file_that_was_not_read_shows_the_location_only():
    d = diag("binary file", span(1, 1, file="bin.kad"), code="KAD002")
    assert render_one(d, SourceMap()) == "error[KAD002]: binary file\n --> bin.kad:1:1\n"
    d = diag("not UTF-8", span(1, 1, file="bin.kad"), code="KAD002", help="save as UTF-8")
    assert render_one(d, SourceMap()) == (
        "error[KAD002]: not UTF-8\n --> bin.kad:1:1\n  = help: save as UTF-8\n")


def test_labels_in_the_same_file_other_files_and_unread_files():
    sm = SourceMap()
    sm.add("a.kad", "cluster_queue q {\n}\n\n\n\ncluster_queue q {\n}\n")
    sm.add("b.kad", "cluster_queue q {}\n")
    d = diag("duplicate cluster queue `q`", span(6, 15, 6, 16, file="a.kad"), code="KAD210",
             labels=(Label(span(1, 15, 1, 16, file="a.kad"), "first defined here"),
                     Label(span(1, 1, 1, 19, file="b.kad"), "and here"),
                     Label(span(3, 1, file="gone.kad"), "and in a file not read")))
    assert render_one(d, sm) == (
        "error[KAD210]: duplicate cluster queue `q`\n"
        " --> a.kad:6:15\n"
        "  |\n"
        "1 | cluster_queue q {\n"
        "  |               - first defined here\n"
        "...\n"
        "6 | cluster_queue q {\n"
        "  |               ^\n"
        "  |\n"
        " ::: b.kad:1:1\n"
        "  |\n"
        "1 | cluster_queue q {}\n"
        "  | ------------------ and here\n"
        "  |\n"
        "  = note: and in a file not read (gone.kad:3:1)\n")


def test_two_marks_on_one_line_are_ordered_by_column():
    sm = SourceMap()
    sm.add("a.kad", "a == b\n")
    d = diag("x", span(1, 6, 1, 7, file="a.kad"), labels=(Label(span(1, 1, 1, 2, file="a.kad"), "left"),))
    assert render_one(d, sm).splitlines()[3:6] == ["1 | a == b", "  | - left", "  |      ^"]


def test_gutter_widens_for_large_line_numbers():
    sm = SourceMap()
    sm.add("a.kad", "\n" * 999 + "x\n")
    lines = render_one(diag("x", span(1000, 1, file="a.kad")), sm).splitlines()
    assert lines[1:5] == ["    --> a.kad:1000:1", "     |", "1000 | x", "     | ^"]


def test_summary_lines():
    e = diag("e", None)
    w = diag("w", None, severity=Severity.WARNING)
    n = diag("n", None, severity=Severity.NOTE)
    assert summary_line([e, e, w], 3) == "error: 2 errors, 1 warning found"
    assert summary_line([w], 1) == "warning: 1 warning found"
    assert summary_line([], 3) == "ok: 3 files checked, no problems"
    assert summary_line([], 1) == "ok: 1 file checked, no problems"
    assert summary_line([n, n], 2) == "ok: 2 files checked, 2 notes"


def test_whole_report_separates_blocks_and_ends_with_the_summary():
    out = render_human([diag("a", None), diag("b", None)], SourceMap(), files_checked=2)
    assert out == ("error[KAD203]: a\n\nerror[KAD203]: b\n\nerror: 2 errors found\n")
    assert render_human([], SourceMap(), files_checked=None) == ""


def test_colour_only_when_asked():
    d = diag("lending", span(40, 38, 40, 45), help="h")
    plain = render_human([d], ml_sources(), files_checked=1)
    painted = render_human([d], ml_sources(), files_checked=1, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31m" in painted
    assert re.sub(r"\x1b\[[0-9;]*m", "", painted) == plain


@given(text=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=120),
       col=st.integers(1, 140), width=st.integers(-3, 30), extra_lines=st.integers(0, 2))
def test_caret_row_is_aligned_under_the_span(text, col, width, extra_lines):
    sm = SourceMap()
    sm.add("p.kad", text + "\n")
    at = span(1, col, 1 + extra_lines, col + width, file="p.kad")
    lines = render_one(diag("x", at), sm).splitlines()
    marks = lines[4][len("  | "):]
    start = min(col - 1, len(text))
    assert marks.index("^") == start
    carets = marks.count("^")
    assert carets >= 1
    if extra_lines:
        assert carets == max(len(text) - start, 1)
    else:
        assert carets == max(min(col - 1 + width, len(text)) - start, 1)


def test_end_of_file_spans_point_at_the_line_after_the_last():
    sm = SourceMap()
    sm.add("a.kad", "cohort org {\n\tparent =\n")
    d = diag("`{` is never closed", span(1, 12, 1, 13, file="a.kad"),
             labels=(Label(span(3, 1, file="a.kad"), "end of file"),))
    assert render_one(d, sm).splitlines()[3:] == [
        "1 | cohort org {", "  |            ^", "2 |     parent =", "3 |", "  | - end of file"]
