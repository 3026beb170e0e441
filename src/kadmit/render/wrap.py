"""Human text fitted to a terminal's width: each line wrapped between words under a hanging indent that
keeps its structure readable (`= note:` and `N.` text under its own start); source excerpts never."""

from __future__ import annotations

import re
import textwrap

MIN_WIDTH = 40  # narrower terminals get text wrapped at this width (names never cut)
PIPE_ITEMS = 160  # a comma-separated list's line width where no terminal width is given
MAX_LABEL = 16  # `= LABEL: ` aligns its continuation after the label only for a label this short

# what a line's continuation goes under: after `= label: `, `= `, `N. `, `- `, `--> ` or `then: `
_MARK = re.compile(r"( *)(= [a-z][a-z0-9 ._-]{0,%d}: |= |\d+\. |- |--> |then: )" % MAX_LABEL)
# a blame line: `  file:line:column  statement`, or at several places `  file:30:23, :116, :204:5  statement`
_PLACE = re.compile(r" +\S+:\d+:\d+(?:, :\d+(?::\d+)?)*  ")


class Verbatim(str):
    """A line printed as it is at any width: a line of input quoted and its marks (`excerpt.window`
    already fits it)."""


def hang(line: str, width: int) -> int:
    """The column a wrapped line's continuation starts at: under the text after its mark; four past a
    blame line's indent (under its location) or a title's (a line that starts at the margin, above
    lines indented by two); else two past its own indent. At most half the width, so the continuation
    keeps room for its words."""
    m = _MARK.match(line)
    lead = len(line) - len(line.lstrip(" "))
    at = m.end() if m else lead + 4 if lead == 0 or _PLACE.match(line) else lead + 2
    return min(at, width // 2)


def wrap_line(line: str, width: int | None) -> list[str]:
    """`line` in lines of at most `width` characters, broken between words under its hanging indent; a
    word longer than the room is never cut (its line runs over instead)."""
    if width is None or isinstance(line, Verbatim) or len(line) <= width:
        return [line]
    width = max(width, MIN_WIDTH)
    if len(line) <= width:
        return [line]
    return textwrap.wrap(line, width=width, subsequent_indent=" " * hang(line, width), break_long_words=False,
                         break_on_hyphens=False) or [line]


def fit(lines: list[str], width: int | None) -> list[str]:
    """Every line wrapped to `width` (None: a pipe, every line whole, as rustc and ruff print there)."""
    if width is None:
        return list(lines)
    return [part for line in lines for part in wrap_line(line, width)]


def fill_items(head: str, items: list[str], indent: str, width: int | None, sep: str = ",") -> list[str]:
    """`head` then `items` joined by `sep` and a space, in lines of at most `width` broken between items
    (None: one line); continuations at `indent`. An item that fits no line is left for `fit` to wrap on
    its words. `head` ends with the space it needs before its first item."""
    if width is None:
        return [head + f"{sep} ".join(items)]
    room = max(width, MIN_WIDTH)
    lines: list[str] = []
    text, fresh = head, True
    for i, item in enumerate(items):
        piece = item + (sep if i < len(items) - 1 else "")
        candidate = text + piece if fresh else f"{text} {piece}"
        if len(candidate) <= room or not text.strip():
            text, fresh = candidate, False
        else:
            lines.append(text.rstrip())
            text, fresh = indent + piece, False
    lines.append(text)
    return lines
