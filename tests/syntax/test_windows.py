"""Reading a file with syntax errors in windows (`syntax.windows`: the fast reader, Lark's recovery around
what it gives up on) against Lark's recovery over the whole file (`lower.parse_file_lark`): the same syntax
tree, comments and diagnostics — every field, every span, in the same order — on the corpus and on random
mutations of it, one file or many files run together."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from opcount import calls

from kadmit.diagnostics import Diagnostics
from kadmit.syntax import lower, windows
from kadmit.syntax.recover import MAX_ERRORS

from .test_descent import CORPUS, ROOT, comments, dump

TEXTS = [p.read_text(encoding="utf-8") for p in CORPUS]
PIECES = ["{", "}", "(", ")", "[", "]", '"', "=", "->", ",", "@", "\n}\n", "\n", "\nflavr x {\n", "\nflavor\n",
          "\ncluster_queue q {\n", " cohort = ", "\nrequire r: ", " and ", "\\q", "# {\n", '"\\q"', "\t}"]


def reading(read, text: str) -> tuple:
    diags = Diagnostics()
    tree, toks = read(text, "t.kad", diags)
    return dump(tree), comments(toks), [dump(d) for d in diags.items]


def same(text: str) -> bool:
    """Whether the two readings agree (asserted); whether the windows read it (not all of it Lark's)."""
    used = []
    real = windows.parse

    def spy(*args):
        got = real(*args)
        used.append(got is not None)
        return got
    windows.parse = spy
    try:
        fast = reading(lower.parse_file, text)
    finally:
        windows.parse = real
    assert fast == reading(lower.parse_file_lark, text), text
    return any(used)


def mutate(rnd: random.Random, text: str, n: int) -> str:
    """`n` random cuts, copies, moves and insertions of pieces that break statements."""
    for _ in range(n):
        if not text:
            return rnd.choice(PIECES)
        i, j = sorted((rnd.randrange(len(text) + 1), rnd.randrange(len(text) + 1)))
        j = min(j, i + rnd.choice([1, 3, 10, 40]))
        op = rnd.randrange(4)
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 2:
            k = rnd.randrange(len(text) + 1)
            text = text[:i] + text[j:] if k >= j else text[:k] + text[i:j] + text[k:i] + text[j:]
        else:
            text = text[:i] + rnd.choice(PIECES) + text[i:]
    return text


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_corpus_read_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    same(text)
    same(text.replace("\n", "\r\n"))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 5))
@example(seed=0, files=3, mutations=2)
def test_mutated_corpus_read_the_same(seed: int, files: int, mutations: int) -> None:
    rnd = random.Random(seed)
    text = "\n".join(rnd.choice(TEXTS) for _ in range(files))
    same(mutate(rnd, text, mutations))


def test_the_windows_read_most_mutations() -> None:
    """The comparison above isn't vacuous: most broken files are read in windows, not all by Lark."""
    rnd = random.Random(7)
    used = sum(same(mutate(rnd, "\n".join(rnd.choice(TEXTS) for _ in range(3)), 2)) for _ in range(60))
    assert used >= 40, used


def _big(statements: int) -> str:
    return "".join(f"flavor f{i} {{\n  node_labels = {{ pool = \"p{i}\" }}\n}}\n" for i in range(statements))


def test_an_unclosed_block_swallowing_the_next_statements_grows_the_window() -> None:
    text = _big(30)
    at = text.index("flavor f10")
    broken = text[:at] + "cluster_queue half {\n  cohort = \n" + text[at:]
    assert same(broken)
    deep = text[:at] + "cluster_queue open {\n  x = {\n" + text[at:]  # never closed: Lark reads to the end
    assert same(deep)


def test_too_many_errors_across_windows_stop_where_lark_stops() -> None:
    text = _big(2 * MAX_ERRORS)
    broken = text.replace("node_labels = {", "node_labels = {{", MAX_ERRORS + 5)
    assert same(broken)
    diags = Diagnostics()
    assert lower.parse_file(broken, "t.kad", diags) == (None, [])
    assert diags.items[-1].message == f"too many syntax errors; stopped after {MAX_ERRORS}"


def test_one_error_in_a_long_file_costs_a_fraction_of_lark_reading_it_all() -> None:
    # counted, not timed (bench/lsp_bench.py times a 5,000-line file): Lark's recovery parses the whole
    # file again after each error; the windows parse one statement
    text = _big(400)
    at = text.index("flavor f200")
    broken = text[:at] + "flavor half {\n  x = \n}\n" + text[at:]
    fast = calls(lambda: lower.parse_file(broken, "t.kad", Diagnostics()))
    whole = calls(lambda: lower.parse_file_lark(broken, "t.kad", Diagnostics()))
    assert fast * 4 < whole, (fast, whole)
