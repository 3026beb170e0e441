"""The fast `.kad` reader's scanner (`syntax.descent` parses its tokens): one compiled master regex
read line by line into tokens and comments, and a string token's escapes. What it is not sure of
(an escape Lark reports) raises `Fallback`, and the caller hands the file to Lark.
"""

from __future__ import annotations

import re
from sys import intern
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from lark import Token


class Fallback(Exception):
    """This file is not one the fast reader is sure of; read it with Lark."""


# Kinds: "S" string, "#" number, "N" name or keyword, "C" comparison, else the punctuation itself.
# Every token of the language lies on one line, so the text is read line by line; a character no
# terminal takes, or a string left open, is an "E" token, which no statement takes.
_TOKEN = re.compile(
    r"[ \t\r\f]*(?:"
    r"(#[^\n]*|//[^\n]*)"  # 1 COMMENT (before `/`)
    r'|("(?:[^"\\\n]|\\.)*")'  # 2 STRING
    r"|([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?(?![A-Za-z0-9_.]))"  # 3 NUMBER
    r"|([A-Za-z_][A-Za-z0-9_]*(?:[-./][A-Za-z0-9_]+)*)"  # 4 NAME
    r"|(==|!=|<=|>=|<|>)"  # 5 CMP
    r"|(->|[-+*/={}\[\](),:])"  # 6 punctuation, `->` before `-`
    r"|([^ \t\r\f]))"  # 7 anything else
)
_KIND = (None, None, "S", "#", "N", "C", None, "E")

_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "/": "/"}
_ESCAPE_RE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)")
END = "$"  # the last token's kind


def comment_tokens(comments: list[tuple]) -> list[Token]:
    """`scan`'s comments as the Lark tokens Lark's parse gives (what `fmt` reads; Lark is imported
    here only: reading a clean file for its objects asks for no comment)."""
    from lark import Token
    return [Token("COMMENT", s, start, line, col, line, end, stop) for s, start, line, col, end, stop in comments]


def scan(text: str) -> tuple[list[tuple], list[tuple]]:
    """Tokens as (kind, text, line, column), comments as (text, start, line, column, end column, end)."""
    toks: list[tuple] = []
    comments: list[tuple] = []
    add = toks.append
    finditer = _TOKEN.finditer
    offset = 0
    line_no = 0
    for line_no, line in enumerate(text.split("\n"), 1):
        for m in finditer(line):
            k = m.lastindex
            if k is None:
                break
            s = m.group(k)
            col = m.start(k) + 1
            if k == 4:  # names repeat (`queue = lq`, `cpu`): one string each
                add(("N", intern(s), line_no, col))
            elif k == 6:
                add((s, s, line_no, col))
            elif k == 1:
                end = col + len(s)
                comments.append((s, offset + col - 1, line_no, col, end, offset + end - 1))
            else:
                add((_KIND[k], s, line_no, col))
        offset += len(line) + 1
    last = text.rfind("\n") + 1
    add((END, "", line_no, len(text) - last + 1))
    return toks, comments


def _bad_escape(esc: str, at: int) -> str:
    raise Fallback  # Lark's path reports it


def unquote(raw: str, bad: Callable[[str, int], str] = _bad_escape) -> str:
    """A STRING token's text without its quotes, escapes read; an escape the language lacks is `bad(esc, at)`'s
    (`at`: its offset in the token's text), which by default raises `Fallback` (the fast reader hands the file to
    Lark, whose `ast.Builder` reports it with this same function)."""
    body = raw[1:-1]
    if "\\" not in body:
        return body

    def repl(m: re.Match) -> str:
        esc = m.group(1)
        if esc[0] == "u" and len(esc) == 5:
            return chr(int(esc[1:], 16))
        if esc in _ESCAPES:
            return _ESCAPES[esc]
        return bad(esc, m.start() + 1)
    return _ESCAPE_RE.sub(repl, body)
