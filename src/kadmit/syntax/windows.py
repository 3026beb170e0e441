"""Reading a `.kad` file with syntax errors fast: the fast reader (`descent`) for the statements it is
sure of, Lark's recovery (`recover`) only in windows around the others. The result — syntax tree,
comments, every diagnostic in order — is the one Lark's recovery over the whole file gives
(`recover.parse_with_recovery`, which parses the whole file again after each error:
tests/syntax/test_windows.py holds the two equal).

The file is cut where a statement keyword starts a line (where recovery resyncs). The fast reader
reads statements until one it gives up on; Lark reads the window from the last cut at or before that
statement where a statement starts, to the next cut, with the text before it blanked (lines and
columns kept) and the text after it left out; then the fast reader goes on at the window's end.
Recovery in the window is the whole file's because:
- at the window's start the whole file's parse is between statements, and no bracket before it is
  open as `scan_brackets` and `left_open` read them (checked: if one is, the whole file goes to
  Lark), so the brackets open at an error are the window's; a resync that looks for a statement
  start before the window's first makes the window start at an earlier cut (`recover`'s `reach`);
- an error before the window's end is found on the same tokens, and what recovery looks at after it
  reaches no further than the next cut; an error at the end may be the cut's own (a statement the
  text left out would close): the window then takes twice as many cuts and is read again.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from lark import Token

from kadmit.diagnostics import Diagnostics
from kadmit.source import Span
from kadmit.syntax import codes, descent
from kadmit.syntax.ast import Builder, File
from kadmit.syntax.recover import _SYNC, _blank, open_at, recover, scan_brackets, too_deep


_NEWLINE = re.compile("\n")


def parse(text: str, filename: str, diags: Diagnostics, read: descent.Read) -> tuple[File | None, list] | None:
    """The file's syntax tree and comments as Lark's recovery gives them, its diagnostics into `diags`,
    from `read` (the fast reader's, which gave up somewhere); None when a window's start isn't clean
    (then nothing is reported: read the whole file with Lark)."""
    if too_deep(text, filename, Diagnostics()):
        return None  # Lark's path reports it
    own = Diagnostics()
    cuts = [m.start() for m in _SYNC.finditer(text)]
    cut_set = set(cuts)
    lines = [0]
    lines.extend(m.end() for m in _NEWLINE.finditer(text))
    toks = read.toks

    def offset(i: int) -> int:
        tok = toks[i]
        return lines[tok[2] - 1] + tok[3] - 1

    pieces: list = []  # statement lists (the fast reader's) and Lark trees, in file order
    comments: list[Token] = []
    broken: list = []
    errors = 0
    work = text  # as the whole file's recovery has it: the broken statements blanked
    pos = 0  # where the fast reader started
    clean = 0  # the brackets are closed here
    while True:
        if read.stop is None:
            pieces.append(read.stmts)
            comments.extend(_comments(read.comments, pos, len(text)))
            break
        # where the window may start: the cuts where statements read here start, and the failed one's
        starts = [(at, n) for n, at in enumerate(map(offset, read.starts + [read.stop])) if at in cut_set]
        start, kept = starts.pop() if starts else (pos, 0)
        while True:
            if not _closed(work, clean, start):
                return None
            got, end, scratch = _window(work, filename, errors, cuts, start)
            if not got.reach:
                break
            if starts:  # recovery looked for a statement start before the window: start it there
                start, kept = starts.pop()
            elif start > pos:
                start, kept = pos, 0
            else:  # before the fast reader's start: Lark reads the whole file
                return None
        pieces.append(read.stmts[:kept])
        comments.extend(_comments(read.comments, pos, start))
        own.items.extend(scratch.items)
        if got.tree is None:  # too many errors, or none can be got past: nothing is read
            diags.items.extend(own.items)
            return None, []
        errors = got.errors
        broken.extend(got.broken)
        pieces.append(got.tree)
        comments.extend(got.comments)
        work = work[:start] + got.work[start:] + work[end:]
        clean = start
        if end >= len(text):
            break
        pos = end
        line = text.count("\n", 0, end) + 1
        read = descent.read_from(filename, toks, read.raw, bisect_left(toks, (line, 1), key=_where))
    out = File(filename)
    builder = Builder(filename, own)
    try:
        for piece in pieces:
            out.stmts.extend(piece if isinstance(piece, list) else builder.build(piece).stmts)
    except Exception as err:  # as `lower.parse_file_lark`: a bug must not cost the other diagnostics
        own.emit(codes.INTERNAL, f"kadmit failed reading this file ({type(err).__name__})",
                 Span(file=filename, line=1, column=1))
        diags.items.extend(own.items)
        return None, []
    out.broken = broken
    diags.items.extend(own.items)
    return out, comments


def _window(work: str, filename: str, errors: int, cuts: list[int], start: int):
    """Lark's recovery on `work` from cut `start` to as few cuts after it as give the whole text's
    errors: what it got, where the window ends, its diagnostics."""
    first = bisect_right(cuts, start)
    take = 1
    while True:
        last = first + take - 1
        end = cuts[last] if last < len(cuts) else len(work)
        scratch = Diagnostics()
        got = recover(_blank(work[:end], 0, start), filename, scratch, errors,
                      stop=end if end < len(work) else None, floor=start)
        if not got.grow:
            return got, end, scratch
        take *= 2


def _where(tok: tuple) -> tuple[int, int]:
    return tok[2], tok[3]


def _comments(tokens: list[Token], start: int, end: int) -> list[Token]:
    """The fast reader's comments that start in [start, end)."""
    lo = bisect_left(tokens, start, key=lambda t: t.start_pos)
    hi = bisect_left(tokens, end, key=lambda t: t.start_pos)
    return tokens[lo:hi]


def _closed(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]`, from a line start where no bracket is open, leaves none open as both
    `scan_brackets` and `left_open` read it (`left_open` may have passed over some: they are before
    any it will find open in a window, so it never returns them)."""
    piece = text[start:end]
    return not scan_brackets(piece)[0] and not open_at(piece)[0]
