"""What is being written at a place in `.kad` text, for completion: the blocks around it, the field
whose value it is, the part of a name already typed, and the keywords the grammar accepts there
(Lark's LALR parser asked, so the list follows grammar/kadmit.lark and never drifts from it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lark.exceptions import LarkError

from kadmit.syntax.grammar import COMMENTS, TOP_KEYWORDS, parser

_TOKEN = re.compile(r'''
    (?P<ws>[ \t\r\f]+) | (?P<nl>\n) | (?P<comment>\#[^\n]*|//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:[-./][A-Za-z0-9_]+)*)
  | (?P<number>[0-9][A-Za-z0-9_.]*)
  | (?P<punct>->|==|!=|<=|>=|[{}\[\](),=:<>+\-*/])
  | (?P<other>.)''', re.VERBOSE)
_PREFIX = re.compile(r'[A-Za-z0-9_.\-/]*\Z')
_WORD = re.compile(r"[a-z_]+\Z")
_RULES = ("require", "forbid", "prefer", "rule")
_START = re.compile(r"^(?:%s)(?![A-Za-z0-9_\-./])" % "|".join(TOP_KEYWORDS), re.MULTILINE)


@lru_cache(maxsize=1)
def keywords() -> dict[str, str]:
    """Every keyword of the grammar: terminal name -> the word (`REQUIRE` -> `require`)."""
    out = {}
    for term in parser().terminals:
        if term.pattern.type == "str" and _WORD.match(term.pattern.value):
            out[term.name] = term.pattern.value
    return out


def accepted(text: str) -> set[str] | None:
    """The terminals the grammar accepts after `text` (None: `text` isn't the start of a file)."""
    saved = list(COMMENTS.tokens)
    try:
        ip = parser().parse_interactive(text)
        ip.exhaust_lexer()
        return set(ip.accepts())
    except (LarkError, RecursionError):
        return None
    finally:
        COMMENTS.tokens[:] = saved


@dataclass(frozen=True)
class Context:
    """Where the cursor is, in the words of the language."""

    blocks: tuple[tuple[str, ...], ...]  # the open blocks, outermost first: the words before each `{`
    words: tuple[str, ...]  # the current member's words before the cursor (`topology`, `=`, `required`)
    prefix: str  # the part of a name typed before the cursor
    prefix_start: int  # its offset in the text
    keywords: tuple[str, ...]  # the keywords the grammar accepts here, sorted
    statement: str  # the keyword of the statement the cursor is in ("" between statements)

    @property
    def field(self) -> str | None:
        """The field whose value is being written: `cohort` in `cohort = re|`."""
        if len(self.words) >= 2 and self.words[1] == "=":
            return self.words[0]
        return None

    @property
    def value(self) -> tuple[str, ...]:
        """The words of the value written so far after `field =`."""
        return self.words[2:] if self.field is not None else ()

    @property
    def in_rule(self) -> bool:
        return self.statement in _RULES and ":" in self.words

    def inside(self, *kinds: str) -> bool:
        """Whether the innermost blocks are of these kinds (outermost of them first)."""
        heads = tuple(b[0] if b else "" for b in self.blocks[-len(kinds):]) if kinds else ()
        return len(self.blocks) >= len(kinds) and heads == kinds


def _statement_start(text: str, offset: int) -> int:
    """The offset where the statement holding `offset` starts: the last line before it that starts
    with a statement's keyword (where recovery re-syncs too), else the start of the text."""
    last = 0
    for m in _START.finditer(text, 0, offset):
        last = m.start()
    return last


def context(text: str, offset: int) -> Context:
    """The completion context at `offset` (a character index) of `text`."""
    offset = max(0, min(offset, len(text)))
    before = text[:offset]
    line_start = before.rfind("\n") + 1
    in_string = _open_quote(before[line_start:])
    if in_string is not None:
        prefix_start = line_start + in_string + 1
    else:
        prefix_start = offset - len(_PREFIX.search(before).group())
    prefix = text[prefix_start:offset]
    start = _statement_start(text, prefix_start)
    blocks: list[tuple[str, ...]] = []
    words: list[str] = []
    statement = ""
    for m in _TOKEN.finditer(text, start, prefix_start - (1 if in_string is not None else 0)):
        kind, tok = m.lastgroup, m.group()
        if kind in ("ws", "comment"):
            continue
        rule = statement in _RULES
        if kind == "nl":
            if not rule:
                words = []  # a member ends with its line (a rule's expression goes on)
            continue
        if not statement and not blocks and not words and kind == "name":
            statement = tok
            rule = tok in _RULES
        if rule:
            words.append(tok)  # a rule's braces are sets, not blocks
        elif tok == "{":
            blocks.append(_header(words))
            words = []
        elif tok == "}":
            if blocks:
                blocks.pop()
            words = []
            if not blocks:
                statement = ""
        elif tok == "," and blocks and blocks[-1][:1] == ("=",):
            words = []  # the next entry of a map
        else:
            if (kind == "name" and len(words) >= 3 and words[1] == "=" and tok not in ("borrow", "lend")
                    and not _takes_more(words)):
                words = []  # `cpu = 256  memory = …`: a member ended, the next began
            words.append(tok)
    found = accepted(text[start:prefix_start - (1 if in_string is not None else 0)])
    if found is None and not blocks and not words:
        found = accepted("")
    names = keywords()
    kws = tuple(sorted({names[t] for t in found or () if t in names} |
                       {t.strip('"').lower() for t in found or () if t.startswith('"') and _WORD.match(t.strip('"'))}))
    return Context(tuple(blocks), tuple(words), prefix, prefix_start, kws, statement)


def _header(words: list[str]) -> tuple[str, ...]:
    """What a `{` opens: the block's words (`flavor`, `h100`), or `=` and the field for a map."""
    if len(words) >= 2 and words[-1] == "=":
        return ("=", words[-2])
    return tuple(w for w in words if w != ",")


def _takes_more(words: list[str]) -> bool:
    """A value that goes on after one word: `required LEVEL`, `preferred LEVEL`, `- NUMBER`, and
    `borrow`/`lend` limits after a quota."""
    return words[-1] in ("required", "preferred", "-", "borrow", "lend", "[", ",")


def _open_quote(line: str) -> int | None:
    """The column of a string opened and not closed on `line`, outside comments."""
    i, open_at = 0, None
    while i < len(line):
        c = line[i]
        if open_at is None and (c == "#" or line.startswith("//", i)):
            break
        if c == "\\" and open_at is not None:
            i += 2
            continue
        if c == '"':
            open_at = i if open_at is None else None
        i += 1
    return open_at
