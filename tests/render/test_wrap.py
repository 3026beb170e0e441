"""`why` and `admit` on a terminal fit its width: every line of real answers at every width from 60 to
200 columns, wrapped between words with hanging indents that keep `= note:` and `N.` text under its
own start, every word kept in order; source excerpts as they are; on a pipe (no width) every line whole."""

from __future__ import annotations

import pytest

from kadmit import api
from kadmit.render.decisions import admit_human
from kadmit.render.why import WhyStream, why_human
from kadmit.render.wrap import Verbatim, fill_items, fit, hang, wrap_line

KAD = "examples/ml-platform/"
KUEUE = "examples/ml-platform-kueue/"
WHYS = [(KAD, "team-vision/llm-pretrain"), (KAD, "team-vision/frame-extract"), (KAD, "team-infra/gpu-smoke"),
        (KUEUE, "team-vision/llm-pretrain"), (KUEUE, "team-nlp/tokenize"), (KUEUE, "team-infra/gpu-smoke")]
WIDTHS = range(60, 201)


@pytest.fixture(scope="module")
def answers():
    """Each why's result, its sources and workload, and what it renders to on a pipe, plain and `--all`."""
    out = []
    for path, key in WHYS:
        r = api.why(key, [path])
        model = r.loaded.workspace.model
        wl = next(w for w in model.workloads if w.key == r.result.workload)
        out.append((key, r, wl, model.skipped))
    return out


def _render(answer, width, full=False):
    key, r, wl, skipped = answer
    return why_human(r.result, r.loaded.sources, wl.span, wl, skipped, full=full, width=width)


def _fits(text: str, width: int) -> None:
    for line in text.splitlines():
        if len(line) > width:  # only a word longer than the room: names are never cut
            assert " " not in line.strip(), (width, line)


def test_every_line_of_a_why_fits_every_width_and_keeps_every_word(answers):
    for answer in answers:
        for full in (False, True):
            whole = _render(answer, None, full)
            words = whole.split()
            for width in WIDTHS:
                text = _render(answer, width, full)
                _fits(text, width) if not full else _fits(_without_excerpts(text), width)
                assert text.split() == words, (answer[0], width, full)
                assert len(text.splitlines()) >= len(whole.splitlines()) - 1  # fix changes may group tighter


def _without_excerpts(text: str) -> str:
    """`--all`'s quoted lines of input (`  12 | text`, their marks) are shown as they are."""
    return "\n".join(line for line in text.splitlines() if " | " not in line and not line.rstrip().endswith(" |"))


def test_the_same_width_gives_the_same_text(answers):
    for answer in answers:
        assert _render(answer, 100) == _render(answer, 100)


def _pieces(answer, width):
    """Each line of the answer on a pipe with the lines it wraps to at `width` (told apart by their words)."""
    whole, lines = _render(answer, None).splitlines(), _render(answer, width).splitlines()
    out, at = [], 0
    for line in whole:
        want, got = len(line.split()), []
        while sum(len(x.split()) for x in got) < want:
            got.append(lines[at])
            at += 1
        assert sum(len(x.split()) for x in got) == want, (line, got)
        out.append((line, got))
    assert at == len(lines)
    return out


def test_continuations_hang_under_their_marks(answers):
    pieces = _pieces(answers[0], 80)  # llm-pretrain: standing, reasons, blame, a fix and a note over 80 columns
    marks = {"   = note: ": 11, "   = reason: ": 13, "   = ": 5, "  1. ": 5, "     then ": 7, "  examples/": 6,
             "     side effects": 7}
    wrapped = 0
    for line, got in pieces:
        assert got[0].startswith(line[:len(line) - len(line.lstrip())] + line.split()[0])  # starts as it did
        at = next((n for m, n in marks.items() if line.startswith(m)), None if line.startswith(" ") else 4)
        for cont in got[1:]:
            wrapped += 1
            assert at is not None and cont[:at] == " " * at and cont[at] != " ", (line, cont)
    assert wrapped >= 10


def test_a_terminal_shown_why_in_stages_adds_up_to_the_wrapped_answer():
    chunks: list[str] = []
    stream = WhyStream(chunks.append, width=72)
    r = api.why("team-vision/llm-pretrain", [KAD], stages=stream.stage)
    model = r.loaded.workspace.model
    wl = next(w for w in model.workloads if w.key == r.result.workload)
    whole = why_human(r.result, r.loaded.sources, wl.span, wl, model.skipped, width=72)
    assert len(chunks) >= 1 and whole.startswith("".join(chunks))
    assert "".join(chunks) + stream.rest(whole) == whole
    _fits(whole, 72)


def test_admit_fits_the_width_below_its_table():
    result = api.admit([KAD]).result
    for width in (60, 80, 100, 140):
        text = admit_human(result, width=width, unmodelled=2)  # its KAD161 line: 87 columns
        below = text.split("\n\n", 1)[1]  # the table's notes are cut to fit (test_digest)
        _fits(below, width)
        assert below.split() == admit_human(result, unmodelled=2).split("\n\n", 1)[1].split()
    assert "(KAD161):\n    Kueue's answer may differ" in admit_human(result, width=60, unmodelled=2)


def test_a_pipe_gets_every_line_whole_and_quoted_input_is_never_wrapped():
    long = "   = note: " + " ".join(["word"] * 60)
    assert fit([long], None) == [long]
    quoted = Verbatim("12 | " + "x " * 80)
    assert wrap_line(quoted, 60) == [quoted]
    lines = wrap_line(long, 60)
    assert all(len(x) <= 60 for x in lines) and all(x.startswith(" " * 11) for x in lines[1:])


def test_hanging_indents():
    assert hang("   = note: some words", 100) == len("   = note: ")
    assert hang("   = needs 4 nvidia.com/gpu; team-04 can reach", 100) == len("   = ")
    assert hang("  12. change all 6 of ClusterQueue", 100) == len("  12. ")
    assert hang("     then: `a/b` is admitted", 100) == len("     then: ")
    assert hang("  cluster-queues.yaml:30:23  cluster queue `team-00`", 100) == 6  # under its location
    assert hang("blame (a minimal set ...):", 100) == 4
    assert hang("     side effects on 3 other workloads:", 100) == 7
    assert hang("   = a label longer than sixteen: x", 100) == len("   = ")
    assert hang("   = note: x", 16) == 8  # at most half the width


def test_items_break_between_items():
    items = [f"item{i} {'x' * 20}" for i in range(6)]
    lines = fill_items("     head: ", items, "       ", 60)
    assert all(len(x) <= 60 for x in lines) and lines[0].startswith("     head: item0")
    assert " ".join(" ".join(lines).split()) == "head: " + ", ".join(items)
    assert all(x.startswith("       item") for x in lines[1:])
    assert fill_items("     head: ", items, "       ", None) == ["     head: " + ", ".join(items)]
    # the first item too long for the head's line: the head alone, the items below it
    assert fill_items("h" * 50 + ": ", ["y" * 20], "  ", 60) == ["h" * 50 + ":", "  " + "y" * 20]


def test_a_fixs_changes_to_different_objects_each_start_a_line_on_a_terminal(answers):
    smoke = answers[WHYS.index((KUEUE, "team-infra/gpu-smoke"))]
    n = len(smoke[1].result.fixes[0].changes)
    assert n > 1
    lines = _render(smoke, 100).splitlines()
    at = lines.index(f"  1. change all {n}:")
    then = next(j for j in range(at, len(lines)) if lines[j].startswith("     then "))
    body = lines[at + 1:then]
    assert sum(1 for line in body if line.startswith("       examples/")) == n  # each change at the indent
    assert all(line.startswith("       examples/") or line.startswith("         ") for line in body)  # and below it
    assert sum(1 for line in _render(smoke, None).splitlines() if line.startswith(f"  1. change all {n}: ")) == 1
