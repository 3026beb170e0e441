"""Parsing one text with error recovery: Lark's errors become located diagnostics, one per
broken statement, and the parse resumes at the next line that starts a statement."""

from __future__ import annotations

import re
import difflib
from dataclasses import dataclass, field

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from kadmit.diagnostics import Diagnostics, Label
from kadmit.source import Span
from kadmit.syntax import codes
from kadmit.syntax.grammar import (COMMENTS, TOP_KEYWORDS, describe_token, expected_list,
                                   parser)

MAX_BRACKET_DEPTH = 200
MAX_ERRORS = 50

_SYNC = re.compile(r"^(?:%s)(?![A-Za-z0-9_\-./])" % "|".join(TOP_KEYWORDS), re.MULTILINE)
_CLOSE = {"}": "{", "]": "[", ")": "("}


@dataclass(frozen=True)
class Broken:
    """A statement that failed to parse and was left out: its keyword as written, the statement kind
    it is or most likely means (None when no keyword is close), its name when the header shows one."""

    keyword: str
    kind: str | None
    name: str | None
    line: int


@dataclass
class Parsed:
    tree: Tree | None
    comments: list[Token]
    clean: bool  # no syntax errors at all
    broken: list[Broken] = field(default_factory=list)  # statements left out for their errors


@dataclass(frozen=True)
class Opener:
    char: str
    offset: int
    line: int
    column: int


def scan_brackets(text: str, stop: int | None = None) -> tuple[list[Opener], Opener | None]:
    """The brackets still open at offset `stop` (default: the end), and the first opener nested
    deeper than MAX_BRACKET_DEPTH, skipping strings and comments. Iterative: any depth is fine."""
    stack: list[Opener] = []
    too_deep: Opener | None = None
    end = len(text) if stop is None else stop
    i, line, line_start = 0, 1, 0
    while i < end:
        c = text[i]
        if c == "\n":
            line += 1
            line_start = i + 1
        elif c == '"':
            i += 1
            while i < end and text[i] not in '"\n':
                i += 2 if text[i] == "\\" and i + 1 < end and text[i + 1] != "\n" else 1
            if i < end and text[i] == "\n":
                continue
        elif c == "#" or text.startswith("//", i):
            nl = text.find("\n", i)
            i = end if nl < 0 else min(nl, end)
            continue
        elif c in "{[(":
            stack.append(Opener(c, i, line, i - line_start + 1))
            if len(stack) > MAX_BRACKET_DEPTH and too_deep is None:
                too_deep = stack[-1]
        elif c in _CLOSE and stack and stack[-1].char == _CLOSE[c]:
            stack.pop()
        i += 1
    return stack, too_deep


def left_open(text: str, stop: int | None = None) -> Opener | None:
    """The bracket the author left open at offset `stop` (default: the end), by structure and, where
    the text is laid out in lines, by indentation: a closer that starts its line closes the opener of
    the same kind whose line is indented as it is, so the openers between them were left open (a
    block whose `}` is missing inside one that is closed). The innermost of the brackets left open;
    None when all are closed. Strings and comments are skipped as in `scan_brackets`."""
    stack, skipped = open_at(text, stop)
    still = skipped + stack
    return max(still, key=lambda o: o.offset) if still else None


def open_at(text: str, stop: int | None = None) -> tuple[list[Opener], list[Opener]]:
    """`left_open`'s reading at offset `stop`: the brackets still open, and the ones a closer laid out
    as an outer opener passed over."""
    stack: list[tuple[Opener, int]] = []  # opener, its line's indentation
    skipped: list[Opener] = []
    end = len(text) if stop is None else stop
    i, line, line_start, indent = 0, 1, 0, None  # indent: of the line's first character, once met
    while i < end:
        c = text[i]
        if c == "\n":
            line += 1
            line_start = i + 1
            indent = None
            i += 1
            continue
        if indent is None and c not in " \t\r":
            indent = i - line_start
            first = True
        else:
            first = False
        if c == '"':
            i += 1
            while i < end and text[i] not in '"\n':
                i += 2 if text[i] == "\\" and i + 1 < end and text[i + 1] != "\n" else 1
            if i < end and text[i] == "\n":
                continue
        elif c == "#" or text.startswith("//", i):
            nl = text.find("\n", i)
            i = end if nl < 0 else min(nl, end)
            continue
        elif c in "{[(":
            stack.append((Opener(c, i, line, i - line_start + 1), indent or 0))
        elif c in _CLOSE:
            want = _CLOSE[c]
            k = len(stack) - 1
            if first and stack and stack[-1][1] != indent:  # find the opener laid out as this closer is
                k = next((j for j in range(len(stack) - 1, -1, -1)
                          if stack[j][0].char == want and stack[j][1] == indent), len(stack) - 1)
            if stack and stack[k][0].char == want:
                skipped.extend(o for o, _ in stack[k + 1:])
                del stack[k:]
        i += 1
    return [o for o, _ in stack], skipped


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _span(filename: str, text: str, offset: int, length: int = 1) -> Span:
    line, col = _position(text, offset)
    return Span(file=filename, line=line, column=col, end_line=line, end_column=col + max(length, 1))


def _offset(err: UnexpectedInput, text: str) -> int:
    if isinstance(err, UnexpectedToken) and err.token.type == "$END":
        return len(text)
    if isinstance(err, UnexpectedToken):
        return err.token.start_pos or 0
    pos = getattr(err, "pos_in_stream", None)
    return pos if isinstance(pos, int) else 0


def _expected(err: UnexpectedToken) -> set[str]:
    """What the parser could really take here: Lark's own set holds every lookahead of the
    merged LALR state, so simulate the reductions to narrow it."""
    try:
        return set(err.interactive_parser.accepts()) or set(err.expected)
    except Exception:
        return set(err.expected)


def _help(expected: set[str]) -> str:
    if all(k.upper() in expected for k in TOP_KEYWORDS):
        rest = expected - {k.upper() for k in TOP_KEYWORDS} - {"$END"}
        more = f", or {expected_list(rest)}" if rest else ""
        return "expected a statement (`flavor`, `cluster_queue`, `workload`, `require`, …)" + more
    if len(expected) > 1:
        return f"expected one of: {expected_list(expected)}"
    return f"expected {expected_list(expected)}"


def _report(err: UnexpectedInput, text: str, filename: str, diags: Diagnostics,
            next_stmt: int | None = None) -> int:
    """Emit one diagnostic for a Lark error; returns the offset it points at. With `next_stmt`,
    the error is the end of `text[:next_stmt]`: a statement cut short by the next one."""
    offset = _offset(err, text)
    open_stack, _ = scan_brackets(text, offset if next_stmt is None else next_stmt)
    at_eof = offset >= len(text) or not text[offset:].strip()
    if next_stmt is not None:
        line, col = _position(text, next_stmt)
        here = Span(file=filename, line=line, column=col, end_line=line, end_column=col + 1)
        if open_stack:
            opener = left_open(text, next_stmt) or open_stack[-1]
            closer = {"{": "}", "[": "]", "(": ")"}[opener.char]
            diags.emit(codes.SYNTAX, f"`{opener.char}` is never closed before the next statement",
                       Span(file=filename, line=opener.line, column=opener.column,
                            end_line=opener.line, end_column=opener.column + 1),
                       help=f"add `{closer}` to close it",
                       labels=[Label(here, "the next statement starts here")])
        else:
            last = len(text[:next_stmt].rstrip()) - 1
            diags.emit(codes.SYNTAX, "this statement is incomplete", _span(filename, text, max(last, 0)),
                       help=_help(_expected(err)).replace("expected", "expected after it", 1),
                       labels=[Label(here, "the next statement starts here")])
        return offset
    if isinstance(err, UnexpectedCharacters):
        char = text[offset] if offset < len(text) else ""
        if char == '"':
            diags.emit(codes.UNTERMINATED_STRING, "unterminated string: the line ends before the closing `\"`",
                       _span(filename, text, offset), help="close the string with `\"` on the same line")
            return offset
        if char.isdigit() or char == ".":
            word = re.match(r"[A-Za-z0-9_.\-+]+", text[offset:])
            shown = word.group(0) if word else char
            diags.emit(codes.SYNTAX, f"`{shown}` is not a number or quantity",
                       _span(filename, text, offset, len(shown)),
                       help="write numbers and quantities like `16`, `1.5`, `500m`, `64Gi` or `2e3`; "
                            "names start with a letter")
            return offset
        shown = "a control character" if not char.isprintable() else f"`{char}`"
        diags.emit(codes.SYNTAX, f"unexpected character {shown}", _span(filename, text, offset))
        return offset
    assert isinstance(err, UnexpectedToken)
    token = err.token
    if at_eof and open_stack:
        opener = left_open(text) or open_stack[-1]
        closer = {"{": "}", "[": "]", "(": ")"}[opener.char]
        eof_line, eof_col = _position(text, len(text))
        diags.emit(codes.UNEXPECTED_EOF, f"unexpected end of file: `{opener.char}` is never closed",
                   Span(file=filename, line=opener.line, column=opener.column,
                        end_line=opener.line, end_column=opener.column + 1),
                   help=f"add `{closer}` to close it",
                   labels=[Label(Span(file=filename, line=eof_line, column=eof_col), "end of file")])
        return offset
    if at_eof:
        diags.emit(codes.UNEXPECTED_EOF, "unexpected end of file",
                   _span(filename, text, max(len(text.rstrip()) - 1, 0)),
                   help=_help(_expected(err)))
        return offset
    span = _span(filename, text, offset, len(str(token)))
    if open_stack and span.column == 1 and _SYNC.match(text, offset):
        opener = left_open(text, offset) or open_stack[-1]
        closer = {"{": "}", "[": "]", "(": ")"}[opener.char]
        diags.emit(codes.SYNTAX, f"expected `{closer}` before `{token}`: `{opener.char}` is never closed",
                   Span(file=filename, line=opener.line, column=opener.column,
                        end_line=opener.line, end_column=opener.column + 1),
                   help=f"add `{closer}` to close it",
                   labels=[Label(span, "the next statement starts here")])
        return offset
    expected = _expected(err)
    meant = _keyword_meant(token, span, expected)
    diags.emit(codes.SYNTAX, f"unexpected {describe_token(token)}", span,
               help=f"did you mean `{meant}`? (a statement starts with its keyword)" if meant else _help(expected))
    return offset


def _at_statement(expected: set[str]) -> bool:
    """Whether the parser was between statements (any statement keyword could come next)."""
    return all(k.upper() in expected for k in TOP_KEYWORDS)


def _keyword_meant(token: Token, span: Span, expected: set[str]) -> str | None:
    """The statement keyword a name at the start of a line, where a statement must start, is close to."""
    if token.type != "NAME" or span.column != 1 or not _at_statement(expected):
        return None
    return _close_keyword(str(token))


def _close_keyword(word: str) -> str | None:
    got = difflib.get_close_matches(word, TOP_KEYWORDS, n=1, cutoff=0.6)
    return got[0] if got else None


_HEADER = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]+([A-Za-z0-9_][A-Za-z0-9_.\-/]*))?")


def _broken(text: str, start: int) -> Broken | None:
    """The statement starting at `start` as its header tells it: keyword (or the one meant) and name."""
    m = _HEADER.match(text, start)
    if m is None:
        return None
    word = m.group(1)
    kind = word if word in TOP_KEYWORDS else _close_keyword(word)
    return Broken(word, kind, m.group(2), text.count("\n", 0, start) + 1)


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _resync(text: str, offset: int, here: bool = False) -> tuple[str, int]:
    """Blank out the statement broken at `offset`, keeping line and column numbers; and where that
    statement starts. `here`: the statement starts at `offset` (a line that should have started a
    statement, such as one with a misspelt keyword), so the one before it, complete, stays."""
    starts = [m.start() for m in _SYNC.finditer(text)]
    before = [s for s in starts if s < offset]
    after = sorted(set(s for s in starts if s > offset) | set(_misspelt_starts(text, offset)))
    if here:
        start, end = offset, after[0] if after else len(text)
    elif offset in starts:  # the statement before this one never ended
        start = before[-1] if before else 0
        end = offset
    else:
        start = before[-1] if before else 0
        end = after[0] if after else len(text)
    out = _blank(text, start, end)
    if out == text:
        start = offset
        out = _blank(text, offset, after[0] if after else len(text))
    return out, start


_WORD_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)[ \t]+[A-Za-z0-9_\"]", re.MULTILINE)


def _misspelt_starts(text: str, after: int) -> list[int]:
    """Lines after `after` that start, at column 1, with a word close to a statement keyword and then
    a name (`flavr h100 {`): statements of their own, where a broken statement before them ends, so
    that their own error is reported rather than swallowed with it."""
    return [m.start() for m in _WORD_LINE.finditer(text, after + 1)
            if m.group(1) not in TOP_KEYWORDS and _close_keyword(m.group(1)) is not None]


def _cut_short(text: str, offset: int) -> tuple[int, int, UnexpectedInput] | None:
    """When the error lies in a statement after one that never ended (so its keyword was read as
    a name), the start of that earlier statement, the next one's, and the earlier one's error."""
    starts = [m.start() for m in _SYNC.finditer(text, 0, offset)]
    if len(starts) < 2 or starts[-1] >= offset:
        return None
    stmt = starts[-1]
    COMMENTS.tokens = []
    try:
        parser().parse(text[:stmt])
    except UnexpectedToken as err:
        if err.token.type == "$END":
            return starts[-2], stmt, err
    except LarkError:
        pass
    return None


def parse_with_recovery(text: str, filename: str, diags: Diagnostics) -> Parsed:
    """Parse `text`; on errors, report each and parse what remains. Never raises for any input."""
    if too_deep(text, filename, diags):
        return Parsed(None, [], False)
    got = recover(text, filename, diags)
    if got.tree is None:
        return Parsed(None, [], False)
    return Parsed(got.tree, got.comments, got.errors == 0, got.broken)


def too_deep(text: str, filename: str, diags: Diagnostics) -> bool:
    """Whether brackets nest beyond MAX_BRACKET_DEPTH (reported: the file is not read)."""
    _, deep = scan_brackets(text)
    if deep is None:
        return False
    diags.emit(codes.TOO_DEEP, f"nested too deeply: more than {MAX_BRACKET_DEPTH} levels of brackets",
               Span(file=filename, line=deep.line, column=deep.column, end_line=deep.line,
                    end_column=deep.column + 1),
               help="kadmit didn't read this file; flatten the nesting")
    return True


@dataclass
class Recovered:
    """What `recover` made of a text: the tree of what parsed (None when nothing could be: too many
    errors, no way forward, the parser failed), its comments, the errors so far, the statements left
    out, and the text as last parsed (those statements blanked). `grow`: an error at `stop` or past it."""

    tree: Tree | None
    comments: list[Token]
    errors: int
    broken: list[Broken]
    work: str
    grow: bool = False
    reach: bool = False


def _looks_before(work: str, offset: int, floor: int) -> bool:
    """Whether recovering from an error at `offset` may read a statement start before `floor`, where
    `work` is blank: `_resync` when no statement starts before the error, `_cut_short` when fewer than
    two do, unless that one is at `floor` (the text before it, whole statements, parses)."""
    if not any(m.start() < offset for m in _SYNC.finditer(work)):  # as `_resync` finds them
        return True
    starts = [m.start() for m in _SYNC.finditer(work, 0, offset)]
    return len(starts) < 2 and starts != [floor]


def recover(text: str, filename: str, diags: Diagnostics, errors: int = 0, stop: int | None = None,
            floor: int = 0) -> Recovered:
    """Parse, and after each error report it, blank the statement it broke (lines and columns kept) and
    parse again. `errors`: the errors found before (MAX_ERRORS counts them all). For `syntax.windows`,
    the text may be a window of a longer one, blank before `floor` and cut at `stop`: an error at `stop`
    or past it may not be the longer text's (stop, `grow`), nor a resync that looks for a statement
    start before the window's first (stop, `reach`)."""
    work = text
    broken: list[Broken] = []
    while True:
        COMMENTS.tokens = []
        try:
            tree = parser().parse(work)
            return Recovered(tree, list(COMMENTS.tokens), errors, broken, work)
        except UnexpectedInput as err:
            offset = _offset(err, work)
            if stop is not None and offset >= stop:
                return Recovered(None, [], errors, broken, work, grow=True)
            if floor and _looks_before(work, offset, floor):
                return Recovered(None, [], errors, broken, work, reach=True)
            errors += 1
            if errors > MAX_ERRORS:
                diags.emit(codes.TOO_MANY, f"too many syntax errors; stopped after {MAX_ERRORS}",
                           Span(file=filename, line=1, column=1))
                return Recovered(None, [], errors, broken, work)
            cut = _cut_short(work, offset)
            if cut is not None:
                start, stmt, prefix_err = cut
                _report(prefix_err, work[:stmt], filename, diags, next_stmt=stmt)
                new = _blank(work, start, stmt)
            else:
                # a line that should start a statement and doesn't is a statement of its own
                here = (isinstance(err, UnexpectedToken) and err.token.type != "$END"
                        and _position(work, offset)[1] == 1 and _at_statement(_expected(err)))
                new, start = _resync(work, _report(err, work, filename, diags), here)
            if new == work:
                return Recovered(None, [], errors, broken, work)
            got = _broken(work, start)
            if got is not None:
                broken.append(got)
            work = new
        except (LarkError, RecursionError, ValueError) as err:
            diags.emit(codes.INTERNAL, f"the parser failed: {type(err).__name__}",
                       Span(file=filename, line=1, column=1))
            return Recovered(None, [], errors, broken, work)
