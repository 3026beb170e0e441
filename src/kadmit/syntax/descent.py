"""The fast `.kad` reader: a recursive-descent parser over its scanner's tokens (`syntax.scanner`) that builds the
same syntax tree (every span included) as Lark's parse of grammar/kadmit.lark, for clean files.

It never reports anything. Whatever it is not sure of — a syntax error, an invalid escape, a tree
deeper than the limits, a word the grammar reserves somewhere (`match`, `true`, `in`, …) written as
a name — raises `Fallback`, and the caller hands the file to the Lark parser, which owns every
diagnostic and error recovery: the whole file (`parse`), or from the statement it gave up on
(`read`, which `syntax.windows` uses). `tests/syntax/test_descent.py` holds the two to the same trees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kadmit.syntax.ast import (MAX_TREE_DEPTH, Attr, Block, Decl, EBin, EIn, ELit, EQuant, ERef, EUn, Entry,
                               File, ImportStmt, ListV, LocalQueueStmt, MapV, Match, ModeV, PriorityStmt,
                               Resources, RuleStmt, Scalar, SchedulerStmt, Suffix, Word, make_span)
from kadmit.syntax.scanner import END, Fallback, comment_tokens, scan, unquote

if TYPE_CHECKING:
    from lark import Token


_DECLS = frozenset("topology flavor cohort cluster_queue namespace node workload admission_check provisioning_config multikueue_config multikueue_cluster".split())
# Words some parser state of the grammar lexes as keywords while it also takes a name (Lark's
# contextual lexer then prefers the keyword). Written as a name, they go to Lark, which knows the state.
SOFT = frozenset(("true", "false", "borrow", "lend", "match", "resources", "all", "any", "not",
                  "required", "preferred", "in"))


class Reader:
    """One file's tokens -> `File`. Methods returning expressions give (node, height, start, end):
    the height of the subtree Lark would build and its extent, which includes parentheses."""

    def __init__(self, filename: str, toks: list[tuple]) -> None:
        self.fname = filename
        self.t = toks
        self.i = 0

    # tokens and spans

    def expect(self, kind: str) -> tuple:
        tok = self.t[self.i]
        if tok[0] != kind:
            raise Fallback
        self.i += 1
        return tok

    def keyword(self, word: str) -> tuple:
        tok = self.t[self.i]
        if tok[0] != "N" or tok[1] != word:
            raise Fallback
        self.i += 1
        return tok

    def tok_span(self, tok: tuple):
        return make_span(self.fname, tok[2], tok[3], tok[2], tok[3] + len(tok[1]))

    def span(self, first: tuple, last: tuple):
        return make_span(self.fname, first[2], first[3], last[2], last[3] + len(last[1]))

    def word(self, tok: tuple) -> Word:
        kind, text = tok[0], tok[1]
        if kind == "N":
            if text in SOFT:
                raise Fallback
            return Word(text, text, False, self.tok_span(tok))
        if kind == "S":
            return Word(text, unquote(text), True, self.tok_span(tok))
        raise Fallback

    def name(self) -> tuple[Word, tuple]:
        """NAME | STRING (Lark's `?name`, `?key`, `?label`): the word and its token."""
        tok = self.t[self.i]
        self.i += 1
        return self.word(tok), tok

    # statements

    def file(self) -> File:
        out = File(self.fname)
        self.statements(out.stmts, [])
        return out

    def statements(self, stmts: list, starts: list[int]) -> None:
        """Statements to the end of the file into `stmts`, the index of each one's first token into
        `starts` (on `Fallback`, `starts` ends with the one it gave up on)."""
        t = self.t
        while True:
            tok = t[self.i]
            starts.append(self.i)
            if tok[0] != "N":
                if tok[0] == END:
                    starts.pop()
                    return
                raise Fallback
            w = tok[1]
            self.i += 1
            if w in _DECLS:
                label, _ = self.name()
                self.expect("{")
                members = self.members(2)
                stmts.append(Decl(w, label, members, self.span(tok, self.expect("}"))))
            elif w == "scheduler":
                self.expect("{")
                members = self.members(2)
                stmts.append(SchedulerStmt(members, self.span(tok, self.expect("}"))))
            elif w == "local_queue":
                name, _ = self.name()
                self.expect("->")
                target, last = self.name()
                stmts.append(LocalQueueStmt(name, target, self.span(tok, last)))
            elif w == "priority":
                stmts.append(self.priority(tok))
            elif w == "import":
                path = self.expect("S")
                stmts.append(ImportStmt(self.word(path), self.span(tok, path)))
            elif w in ("require", "forbid", "prefer", "rule"):
                stmts.append(self.rule(tok))
            else:
                raise Fallback

    def priority(self, kw: tuple) -> PriorityStmt:
        name, _ = self.name()
        self.expect("=")
        first = self.t[self.i]
        if first[0] == "-":
            self.i += 1
        num = self.expect("#")
        text = num[1] if first is num else "-" + num[1]
        value = Scalar("number", text, text, self.span(first, num))
        nxt = self.t[self.i]
        if nxt[0] == "N" and nxt[1] == "default":
            self.i += 1
            return PriorityStmt(name, value, True, self.span(kw, nxt))
        return PriorityStmt(name, value, False, self.span(kw, num))

    def rule(self, kw: tuple) -> RuleStmt:
        kind = kw[1]
        name, _ = self.name()
        weight = None
        legacy = kind == "rule"
        if kind == "prefer":
            self.keyword("weight")
            num = self.expect("#")
            weight = Scalar("number", num[1], num[1], self.tok_span(num))
        self.expect(":")
        if legacy:
            tok = self.t[self.i]
            if tok[0] != "N" or tok[1] not in ("require", "forbid"):
                raise Fallback
            self.i += 1
            kind = tok[1]
        node, height, _, end = self.expr()
        if 1 + height > MAX_TREE_DEPTH:
            raise Fallback  # Lark's path reports the statement as nested too deeply
        return RuleStmt(kind, name, weight, node, legacy, self.span(kw, end))

    # members (`depth` is the depth of the member's own node in Lark's tree)

    def members(self, depth: int) -> list:
        out: list = []
        t = self.t
        while True:
            tok = t[self.i]
            kind = tok[0]
            if kind == "}":
                return out
            if depth > MAX_TREE_DEPTH:
                raise Fallback
            if kind == "N":
                w = tok[1]
                if w == "resources":
                    out.append(self.resources(depth))
                    continue
                if w == "match":
                    out.append(self.match(depth))
                    continue
                if t[self.i + 1][0] != "=":
                    out.append(self.block(depth))
                    continue
            elif kind != "S":
                raise Fallback
            out.append(self.attr(depth))

    def attr(self, depth: int) -> Attr:
        t = self.t
        key, first = self.name()
        self.expect("=")
        value = self.value(depth + 1)
        suffixes = []
        while True:
            tok = t[self.i]
            if tok[0] != "N" or (tok[1] != "borrow" and tok[1] != "lend"):
                break
            self.i += 1
            if depth + 1 > MAX_TREE_DEPTH:
                raise Fallback
            v = self.value(depth + 2)
            suffixes.append(Suffix(tok[1], v, make_span(self.fname, tok[2], tok[3], v.span.end_line,
                                                         v.span.end_column)))
        end = (suffixes[-1] if suffixes else value).span
        return Attr(key, value, suffixes, make_span(self.fname, first[2], first[3], end.end_line,
                                                    end.end_column))

    def body(self, depth: int) -> tuple[list, tuple, tuple]:
        if depth + 1 > MAX_TREE_DEPTH:
            raise Fallback
        opening = self.expect("{")
        members = self.members(depth + 2)
        return members, opening, self.expect("}")

    def block(self, depth: int) -> Block:
        first = self.t[self.i]
        self.i += 1
        kind = self.word(first)
        label = None
        if self.t[self.i][0] in ("N", "S"):
            label, _ = self.name()
        members, opening, closing = self.body(depth)
        return Block(kind, label, members, self.span(first, closing), self.span(opening, closing))

    def resources(self, depth: int) -> Resources:
        first = self.t[self.i]
        self.i += 1
        keys = [self.name()[0]]
        while self.t[self.i][0] == ",":
            self.i += 1
            keys.append(self.name()[0])
        members, opening, closing = self.body(depth)
        return Resources(keys, members, self.span(first, closing), self.span(opening, closing))

    def match(self, depth: int) -> Match:
        if depth + 1 > MAX_TREE_DEPTH:
            raise Fallback
        first = self.t[self.i]
        self.i += 1
        key, _ = self.name()
        op = self.t[self.i]
        if op[0] != "N":
            raise Fallback
        self.i += 1
        if op[1] == "in":
            values = self.list_value(depth + 2)
            return Match(key, "in", self.tok_span(op), values, self._to(first, values))
        if op[1] == "not":
            self.keyword("in")
            values = self.list_value(depth + 2)
            return Match(key, "not in", self._to(op, values), values, self._to(first, values))
        if op[1] in SOFT:
            raise Fallback
        if self.t[self.i][0] == "[":
            values = self.list_value(depth + 2)
            return Match(key, op[1], self.tok_span(op), values, self._to(first, values))
        return Match(key, op[1], self.tok_span(op), None, self.span(first, op))

    def _to(self, first: tuple, node):
        return make_span(self.fname, first[2], first[3], node.span.end_line, node.span.end_column)

    # values

    def value(self, depth: int):
        if depth > MAX_TREE_DEPTH:
            raise Fallback
        tok = self.t[self.i]
        kind = tok[0]
        if kind == "#":
            self.i += 1
            return Scalar("number", tok[1], tok[1], self.tok_span(tok))
        if kind == "N":
            w = tok[1]
            self.i += 1
            # Where a value starts, the grammar reserves only these four words (`any` is a name).
            if w == "true" or w == "false":
                return Scalar("bool", w, w, self.tok_span(tok))
            if w == "required" or w == "preferred":
                level, last = self.name()
                return ModeV(w, level, self.span(tok, last))
            return Scalar("name", w, w, self.tok_span(tok))
        if kind == "S":
            self.i += 1
            return Scalar("string", tok[1], unquote(tok[1]), self.tok_span(tok))
        if kind == "{":
            return self.map_value(depth)
        if kind == "[":
            return self.list_value(depth)
        if kind == "-":
            self.i += 1
            num = self.expect("#")
            text = "-" + num[1]
            return Scalar("number", text, text, self.span(tok, num))
        raise Fallback

    def list_value(self, depth: int) -> ListV:
        if depth > MAX_TREE_DEPTH:
            raise Fallback
        t = self.t
        first = self.expect("[")
        items = []
        if t[self.i][0] != "]":
            items.append(self.value(depth + 1))
            while t[self.i][0] == ",":
                self.i += 1
                if t[self.i][0] == "]":
                    break
                items.append(self.value(depth + 1))
        return ListV(items, self.span(first, self.expect("]")))

    def map_value(self, depth: int) -> MapV:
        t = self.t
        first = self.expect("{")
        entries = []
        if t[self.i][0] != "}":
            entries.append(self.entry(depth + 1))
            while True:
                kind = t[self.i][0]
                if kind == ",":
                    self.i += 1
                    kind = t[self.i][0]
                if kind == "}":
                    break
                entries.append(self.entry(depth + 1))
        return MapV(entries, self.span(first, self.expect("}")))

    def entry(self, depth: int) -> Entry:
        key, first = self.name()
        self.expect("=")
        value = self.value(depth + 1)
        return Entry(key, value, self._to(first, value))

    # expressions: (node, height, first token, last token)

    def expr(self) -> tuple:
        tok = self.t[self.i]
        if tok[0] == "N" and (tok[1] == "all" or tok[1] == "any"):
            return self.quantifier(tok)
        left = self.or_expr()
        tok = self.t[self.i]
        if tok[0] == "N" and tok[1] == "implies":
            self.i += 1
            return self._bin(left, tok, self.expr())
        return left

    def _bin(self, left: tuple, op: tuple, right: tuple) -> tuple:
        first, last = left[2], right[3]
        return (EBin(op[1], left[0], right[0], self.span(first, last)), 1 + max(left[1], right[1]),
                first, last)

    def quantifier(self, kw: tuple) -> tuple:
        self.i += 1
        var = self.expect("N")
        word = self.word(var)
        self.keyword("in")
        domain = self.ref()
        self.expect(":")
        body = self.expr()
        return (EQuant(kw[1], word, domain[0], body[0], self.span(kw, body[3])),
                1 + max(domain[1], body[1]), kw, body[3])

    def or_expr(self) -> tuple:
        left = self.and_expr()
        t = self.t
        while True:
            tok = t[self.i]
            if tok[0] != "N" or tok[1] != "or":
                return left
            self.i += 1
            left = self._bin(left, tok, self.and_expr())

    def and_expr(self) -> tuple:
        left = self.not_expr()
        t = self.t
        while True:
            tok = t[self.i]
            if tok[0] != "N" or tok[1] != "and":
                return left
            self.i += 1
            left = self._bin(left, tok, self.not_expr())

    def not_expr(self) -> tuple:
        tok = self.t[self.i]
        if tok[0] == "N" and tok[1] == "not":
            self.i += 1
            arg = self.not_expr()
            return EUn("not", arg[0], self.span(tok, arg[3])), 1 + arg[1], tok, arg[3]
        return self.compare()

    def compare(self) -> tuple:
        left = self.sum()
        tok = self.t[self.i]
        if tok[0] == "C":
            self.i += 1
            return self._bin(left, tok, self.sum())
        if tok[0] == "N" and (tok[1] == "in" or tok[1] == "not"):
            self.i += 1
            if tok[1] == "not":
                self.keyword("in")
            first = self.expect("{")
            items, height = [], 0
            t = self.t
            if t[self.i][0] != "}":
                while True:
                    item = self.sum()
                    items.append(item[0])
                    height = max(height, item[1])
                    if t[self.i][0] != ",":
                        break
                    self.i += 1
                    if t[self.i][0] == "}":
                        break
            last = self.expect("}")
            set_height = 1 + height
            return (EIn(left[0], items, tok[1] == "not", self.span(left[2], last)),
                    1 + max(left[1], set_height), left[2], last)
        return left

    def sum(self) -> tuple:
        left = self.product()
        t = self.t
        while True:
            tok = t[self.i]
            if tok[0] != "+" and tok[0] != "-":
                return left
            self.i += 1
            left = self._bin(left, tok, self.product())

    def product(self) -> tuple:
        left = self.unary()
        t = self.t
        while True:
            tok = t[self.i]
            if tok[0] != "*" and tok[0] != "/":
                return left
            self.i += 1
            left = self._bin(left, tok, self.unary())

    def unary(self) -> tuple:
        tok = self.t[self.i]
        if tok[0] == "-":
            self.i += 1
            arg = self.unary()
            return EUn("-", arg[0], self.span(tok, arg[3])), 1 + arg[1], tok, arg[3]
        return self.atom()

    def atom(self) -> tuple:
        tok = self.t[self.i]
        kind = tok[0]
        if kind == "#":
            self.i += 1
            return ELit("number", tok[1], tok[1], self.tok_span(tok)), 1, tok, tok
        if kind == "S":
            self.i += 1
            return ELit("string", tok[1], unquote(tok[1]), self.tok_span(tok)), 1, tok, tok
        if kind == "N" and (tok[1] == "true" or tok[1] == "false"):
            self.i += 1
            return ELit("bool", tok[1], tok[1], self.tok_span(tok)), 1, tok, tok
        if kind == "N":
            return self.ref()
        if kind == "(":
            self.i += 1
            inner = self.expr()
            last = self.expect(")")
            return inner[0], 1 + inner[1], tok, last  # Lark's `paren` node: one level, no object
        raise Fallback

    def ref(self) -> tuple:
        first = self.expect("N")
        name = self.word(first)
        indexes = []
        last = first
        t = self.t
        while t[self.i][0] == "[":
            self.i += 1
            indexes.append(self.name()[0])
            last = self.expect("]")
        return ERef(name, indexes, self.span(first, last)), 2 if indexes else 1, first, last


class Read:
    """A file read as far as the fast reader is sure of it: the statements before the first one it
    gave up on, the token index where each starts, that statement's first token (`stop`; None when it
    read to the end), and every token and comment (`raw`: `scan`'s; `comments`: Lark tokens, made when
    asked for) of the file (`syntax.windows` reads on from them)."""

    __slots__ = ("stmts", "starts", "stop", "toks", "raw", "_comments")

    def __init__(self, stmts: list, starts: list[int], stop: int | None, toks: list[tuple],
                 raw: list[tuple]) -> None:
        self.stmts, self.starts, self.stop, self.toks, self.raw = stmts, starts, stop, toks, raw
        self._comments: list[Token] | None = None

    @property
    def comments(self) -> list[Token]:
        if self._comments is None:
            self._comments = comment_tokens(self.raw)
        return self._comments


def read(text: str, filename: str) -> Read:
    """The file's statements up to the first the fast reader isn't sure of."""
    toks, comments = scan(text)
    return read_from(filename, toks, comments, 0)


def read_from(filename: str, toks: list[tuple], comments: list[tuple], i: int) -> Read:
    """`read` from token `i`, which starts a statement (`comments`: `scan`'s)."""
    reader = Reader(filename, toks)
    reader.i = i
    stmts: list = []
    starts: list[int] = []
    try:
        reader.statements(stmts, starts)
        return Read(stmts, starts, None, toks, comments)
    except (Fallback, IndexError, RecursionError):  # see `parse`
        stop = starts[len(stmts)] if len(starts) > len(stmts) else reader.i
        return Read(stmts, starts[:len(stmts)], stop, toks, comments)


def parse(text: str, filename: str) -> tuple[File, list[Token]]:
    """The file's syntax tree and comments, or `Fallback` if Lark should read it."""
    toks, comments = scan(text)
    try:
        return Reader(filename, toks).file(), comment_tokens(comments)
    except (IndexError, RecursionError) as err:  # ran past the end; nested beyond Python's stack
        raise Fallback from err
