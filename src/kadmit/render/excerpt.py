"""Source excerpts of bounded size: a window of a long line around its marks, carets clipped with it.

Everything here costs in proportion to what is shown, never to the line's length: a diagnostic on
a one-line JSON file of megabytes prints (and spends) as much as one on a short line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

TAB_WIDTH = 4
MAX_LINE_WIDTH = 160  # longer source lines are cut to a window around the marks
LEAD = 20  # columns shown before the first mark of a cut line
MAX_CHARS = 4 * MAX_LINE_WIDTH  # characters a window spans at most (zero-width characters count here)

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """Replace control characters, so source text can't drive the terminal."""
    return _CONTROL.sub("\ufffd", text)


# every character that ends a line for a terminal or for `str.splitlines` (and the other control characters)
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(ch: str) -> str:
    """A character as its escape: `\\n`, `\\t`, `\\r`, `\\x1b`, `\\u2028`."""
    return _ESCAPES.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def one_line(text: str) -> str:
    """Text shown on a line of its own (a diagnostic's message in its header): each line break, tab and other
    control character written as its escape (`\\n`, `\\t`, `\\x1b`, `\\u2028`), so that it stays one line
    whatever it quotes (a key holding a line break) and can't drive the terminal. A backslash is left as it is:
    text that already spells an escape (`spec.limits["\\n"]`, `diagnostics.field_key`) is shown as written."""
    return _BREAKS.sub(lambda m: escaped(m.group(0)), text)


def char_width(ch: str) -> int:
    if ch == "\t":
        return TAB_WIDTH
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


@dataclass(frozen=True)
class Window:
    """Characters [start, end) of a line, shown as `text` (with `…` where the line goes on)."""

    start: int
    end: int
    length: int  # the whole line's length, in characters
    text: str
    offsets: tuple[int, ...]  # display column of each character start..end, within `text`

    def column(self, char: int) -> int:
        """Display column of character `char` in `text` (a character past the window: its end)."""
        return self.offsets[min(max(char, self.start), self.end) - self.start]

    def marks(self, start: int, end: int) -> tuple[int, int]:
        """(column, width) of the characters [start, end) clipped to the window: at least one
        column wide; a run past the window's cut end covers the `…`; one past the line's end
        (an end-of-line span) one column after it."""
        column = self.column(start)
        stop = self.column(end)
        if end > self.end and self.end < self.length:
            stop += 1  # over the `…`
        elif end > self.length:
            stop += min(end - self.length, 1)
        return column, max(stop - column, 1)


def window(line: str, first: int) -> Window:
    """The window of `line` to show for marks starting at character `first` or later."""
    n = len(line)
    first = min(max(first, 0), n)
    head = line[:MAX_CHARS + 1]
    if n <= MAX_CHARS and sum(char_width(ch) for ch in head) <= MAX_LINE_WIDTH:
        a, b = 0, n
    else:
        a, used = first, 0
        while a > 0 and first - a < MAX_CHARS and used + char_width(line[a - 1]) <= LEAD:
            used += char_width(line[a - 1])
            a -= 1
        b, used = a, 0
        while b < n and b - a < MAX_CHARS and used + char_width(line[b]) <= MAX_LINE_WIDTH:
            used += char_width(line[b])
            b += 1
    prefix = "…" if a > 0 else ""
    suffix = "…" if b < n else ""
    offsets = [len(prefix)]
    for ch in line[a:b]:
        offsets.append(offsets[-1] + char_width(ch))
    shown = clean(line[a:b]).replace("\t", " " * TAB_WIDTH)
    return Window(a, b, n, prefix + shown + suffix, tuple(offsets))


def clip(line: str) -> str:
    """A line shown without marks: its start, cut at the window's width."""
    return window(line, 0).text
