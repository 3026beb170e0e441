"""Issue 19 item 3: `why` in one screen. Lines of one shape naming different queues are one line with
every number of each; Kueue's reasons that differ in a word or two are one; each fix's outcome and side
effects are one line, and the text says what it leaves to `--all`, which (with JSON) keeps everything."""

from __future__ import annotations

import json

from kadmit.engine.explain.digest import Line
from kadmit.render.why import _one_word_apart
from kadmit.render.why_blame import _by_shape
from kadmit.source import Span

from tests.cli.test_why_lender_raise import POLICY


def _line(text: str, at: int, file: str = "q.yaml") -> Line:
    return Line(text, Span(file, at, 23))


def test_lines_of_one_shape_are_one_line_with_every_number_of_each_queue_in_order():
    lines = [_line("(`ns/head`) cluster queue `a`: nominal quota 64 nvidia.com/gpu in h100, 48 in a100; in use 63 in "
                   "h100 (26 workloads), 48 in a100 (9)", 30),
             _line("(`ns/head`) cluster queue `b`: nominal quota 96 nvidia.com/gpu in h100, 48 in a100; in use 96 in "
                   "h100 (26 workloads), 48 in a100 (15)", 116),
             _line("`ns/head` is ahead of it in the queue", 5),
             _line("(`ns/head`) cluster queue `c`: nominal quota 32 nvidia.com/gpu in h100, 48 in a100; in use 32 in "
                   "h100 (11 workloads), 41 in a100 (15)", 380)]
    assert _by_shape(lines) == [
        ("q.yaml:30:23, :116, :380", "(`ns/head`) cluster queues `a`, `b`, `c`: nominal quota 64/96/32 nvidia.com/gpu "
         "in h100, 48/48/48 in a100; in use 63/96/32 in h100 (26/26/11 workloads), 48/48/41 in a100 (9/15/15)"),
        ("q.yaml:5:23", "`ns/head` is ahead of it in the queue")]


def test_lines_are_kept_apart_in_other_files_of_other_shapes_or_naming_the_same_thing():
    a, b = "cluster queue `a`: nominal quota 4 cpu in f", "cluster queue `b`: nominal quota 8 cpu in f"
    assert _by_shape([_line(a, 1), _line(b, 2, "r.yaml")]) == [("q.yaml:1:23", a), ("r.yaml:2:23", b)]
    other = "cluster queue `b`: nominal quota 8 cpu in f; borrowing limit 2 cpu in f"
    assert _by_shape([_line(a, 1), _line(other, 2)]) == [("q.yaml:1:23", a), ("q.yaml:2:23", other)]
    again = "cluster queue `a`: nominal quota 5 cpu in f"  # the same queue: which number is whose is unclear
    assert _by_shape([_line(a, 1), _line(again, 2)]) == [("q.yaml:1:23", a), ("q.yaml:2:23", again)]


def test_several_names_take_the_plural_and_its_verb():
    lines = [_line("admitted workload `ns/a` holds 4 cpu in f", 1), _line("admitted workload `ns/b` holds 8 cpu in f", 2)]
    assert _by_shape(lines) == [("q.yaml:1:23, :2", "admitted workloads `ns/a`, `ns/b` hold 4/8 cpu in f")]


def test_reasons_that_differ_in_the_same_word_or_two_are_one():
    a = ("couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, "
         "4 more needed")
    assert _one_word_apart([a, a.replace("a100", "h100"), "needs 4 more"]) == [
        a.replace("a100,", "a100/h100,"), "needs 4 more"]
    b = a.replace("a100", "h100").replace("4 more", "5 more")
    assert _one_word_apart([a, b]) == [a.replace("a100,", "a100/h100,").replace("4 more", "4/5 more")]
    c = b.replace("unused", "free")  # three words apart: each whole
    assert _one_word_apart([a, c]) == [a, c]
    assert _one_word_apart([a, b, a.replace("4 more", "6 more")]) == [  # another word: apart
        a.replace("a100,", "a100/h100,").replace("4 more", "4/5 more"), a.replace("4 more", "6 more")]


def test_the_text_shows_three_fixes_each_on_a_line_and_says_what_all_adds(run):
    run.write("p.kad", POLICY)
    full = json.loads(run("why", "t/mine", ".", "--format", "json").output)
    assert len(full["fixes"]) == 3
    text = run("why", "t/mine", ".").output.splitlines()
    assert [x[:5] for x in text if x[:5] in ("  1. ", "  2. ", "  3. ")] == ["  1. ", "  2. ", "  3. "]
    # each fix's outcome and side effects on one line (on a pipe), what --all adds said last
    then = [x for x in text if x.startswith("     then ")]
    assert len(then) == 3 and all("side effects" in x for x in then)
    assert text[-1].startswith("   = note: ") and "`--all`: " in text[-1] and "each fix in full" in text[-1]
    every = run("why", "t/mine", ".", "--all").output
    assert every.count("     side effects on ") + every.count("     side effects: none") == 3
