"""The syntax tree of a `.kad` file: Lark's parse tree turned into small located dataclasses that
lowering (to the model) and `fmt` (back to text) both read."""

from __future__ import annotations

from dataclasses import dataclass, field
from sys import intern
from typing import TYPE_CHECKING, Union

from kadmit.diagnostics import Diagnostics
from kadmit.source import Span, located
from kadmit.syntax import codes
from kadmit.syntax.scanner import unquote

if TYPE_CHECKING:  # Lark's trees are read only by `Builder`, after Lark parsed (`syntax.recover` imports it)
    from lark import Token, Tree

MAX_TREE_DEPTH = 150


@dataclass
class Word:
    """A name or string as written: `text` is the source text, `value` the decoded string."""

    text: str
    value: str
    quoted: bool
    span: Span


@dataclass
class Scalar:
    kind: str  # "number", "string", "name", "bool"
    text: str  # source text; a negative number includes its `-`
    value: str  # decoded strings; same as text otherwise
    span: Span


@dataclass
class ListV:
    items: list["Value"]
    span: Span


@dataclass
class Entry:
    key: Word
    value: "Value"
    span: Span


@dataclass
class MapV:
    entries: list[Entry]
    span: Span


@dataclass
class ModeV:
    mode: str  # "required" | "preferred"
    level: Word
    span: Span


Value = Union[Scalar, ListV, MapV, ModeV]


@dataclass
class Suffix:
    kind: str  # "borrow" | "lend"
    value: Value
    span: Span


@dataclass
class Attr:
    key: Word
    value: Value
    suffixes: list[Suffix]
    span: Span


@dataclass
class Block:
    kind: Word
    label: Word | None
    members: list["Member"]
    span: Span
    body: Span  # from `{` to `}`


@dataclass
class Resources:
    keys: list[Word]
    members: list["Member"]
    span: Span
    body: Span


@dataclass
class Match:
    key: Word
    op: str  # "in", "not in", or the name written (`exists`, `not_in`, …)
    op_span: Span
    values: ListV | None
    span: Span


Member = Union[Attr, Block, Resources, Match]


@dataclass
class Decl:
    kind: str
    label: Word
    members: list[Member]
    span: Span


@dataclass
class SchedulerStmt:
    """`scheduler { … }`: cluster-wide settings, a block without a name."""

    members: list[Member]
    span: Span


@dataclass
class LocalQueueStmt:
    name: Word
    target: Word
    span: Span


@dataclass
class PriorityStmt:
    name: Word
    value: Scalar
    default: bool
    span: Span


@dataclass
class ImportStmt:
    path: Word
    span: Span


# --- expressions ---


@dataclass
class ELit:
    kind: str  # "number" | "string" | "bool"
    text: str
    value: str
    span: Span


@dataclass
class ERef:
    name: Word
    indexes: list[Word]
    span: Span


@dataclass
class EUn:
    op: str  # "not" | "-"
    arg: "Expr"
    span: Span


@dataclass
class EBin:
    op: str
    left: "Expr"
    right: "Expr"
    span: Span


@dataclass
class EIn:
    elem: "Expr"
    items: list["Expr"]
    negated: bool
    span: Span


@dataclass
class EQuant:
    kind: str  # "all" | "any"
    var: Word
    domain: ERef
    body: "Expr"
    span: Span


Expr = Union[ELit, ERef, EUn, EBin, EIn, EQuant]


@dataclass
class RuleStmt:
    kind: str  # "require" | "forbid" | "prefer"
    name: Word
    weight: Scalar | None
    expr: Expr
    legacy: bool  # written `rule NAME: require EXPR`
    span: Span


Stmt = Union[Decl, SchedulerStmt, LocalQueueStmt, PriorityStmt, ImportStmt, RuleStmt]


@dataclass
class File:
    name: str
    stmts: list[Stmt] = field(default_factory=list)
    broken: list = field(default_factory=list)  # `recover.Broken`: statements left out for syntax errors


# --- spans ---

make_span = located  # (file, line, column, end_line, end_column), positional


# --- building from Lark's tree ---

_SCALAR_KINDS = {"NUMBER": "number", "STRING": "string", "NAME": "name"}


class Builder:
    """Turns one Lark tree into a `File`, reporting bad escapes and over-deep trees."""

    def __init__(self, filename: str, diags: Diagnostics) -> None:
        self.file = filename
        self.diags = diags

    def span(self, item: Tree | Token) -> Span:
        m = item if isinstance(item, str) else item.meta  # a Token is a str, a Tree is not
        # Positions come from Lark as ints; skip validation, it dominates on large files.
        return make_span(self.file, m.line, m.column, m.end_line, m.end_column)

    def unquote(self, tok: Token) -> str:
        def bad(esc: str, at: int) -> str:
            col = tok.column + at
            self.diags.emit(codes.BAD_ESCAPE, f"invalid escape `\\{esc}` in string",
                            Span(file=self.file, line=tok.line, column=col, end_line=tok.line,
                                 end_column=col + 1 + len(esc)),
                            help="write `\\\\` for a backslash")
            return esc
        return unquote(str(tok), bad)

    def word(self, tok: Token) -> Word:
        if tok.type == "STRING":
            return Word(str(tok), self.unquote(tok), True, self.span(tok))
        text = intern(str(tok))  # names repeat (`queue = lq`, `cpu`): one string each, as `descent` keeps them
        return Word(text, text, False, self.span(tok))

    # statements

    def build(self, tree: Tree) -> File:
        """The file's statements; each statement's parse tree is let go (taken out of `tree`) as
        soon as it is built, so a file's parse tree and its syntax tree are not both whole at once."""
        out = File(self.file)
        children = tree.children
        for i, st in enumerate(children):
            children[i] = None
            try:
                if too_deep(st):
                    self.diags.emit(codes.TOO_DEEP, "nested too deeply: this statement's expression is "
                                    f"more than {MAX_TREE_DEPTH} levels deep", self.span(st),
                                    help="split the rule into simpler rules")
                    continue
                out.stmts.append(self.stmt(st))
            except RecursionError:
                self.diags.emit(codes.TOO_DEEP, "nested too deeply", self.span(st))
        return out

    def stmt(self, t: Tree) -> Stmt:
        kind = t.data
        c = t.children
        if kind == "decl":
            return Decl(str(c[0].children[0]), self.word(c[1]), [self.member(m) for m in c[2:]],
                        self.span(t))
        if kind == "scheduler":
            return SchedulerStmt([self.member(m) for m in c], self.span(t))
        if kind == "local_queue":
            return LocalQueueStmt(self.word(c[0]), self.word(c[2]), self.span(t))
        if kind == "priority":
            return PriorityStmt(self.word(c[0]), self.signed(c[1]), len(c) > 2, self.span(t))
        if kind == "import_stmt":
            return ImportStmt(self.word(c[0]), self.span(t))
        if kind == "prefer_rule":
            return RuleStmt("prefer", self.word(c[1]), self.scalar_tok(c[3]), self.expr(c[4]),
                            False, self.span(t))
        if kind == "legacy_rule":
            return RuleStmt(str(c[2]), self.word(c[1]), None, self.expr(c[3]), True, self.span(t))
        return RuleStmt(str(c[0]), self.word(c[1]), None, self.expr(c[2]), False, self.span(t))

    def signed(self, t: Tree) -> Scalar:
        toks = t.children
        text = "".join(str(x) for x in toks)
        return Scalar("number", text, text, self.span(t))

    def scalar_tok(self, tok: Token) -> Scalar:
        text = str(tok)
        return Scalar("number", text, text, self.span(tok))

    # members

    def members(self, body: Tree) -> list[Member]:
        return [self.member(m) for m in body.children]

    def member(self, t: Tree) -> Member:
        c = t.children
        if t.data == "attr":
            return Attr(self.word(c[0]), self.value(c[1]), [self.suffix(s) for s in c[2:]], self.span(t))
        if t.data == "block":
            label = self.word(c[1]) if len(c) == 3 else None
            return Block(self.word(c[0]), label, self.members(c[-1]), self.span(t), self.span(c[-1]))
        if t.data == "resources":
            body = c[-1]
            return Resources([self.word(k) for k in c[1:-1]], self.members(body), self.span(t),
                             self.span(body))
        op = c[2]
        if op.data == "match_in":
            return Match(self.word(c[1]), "in", self.span(op.children[0]), self.value(op.children[1]),
                         self.span(t))
        if op.data == "match_not_in":
            return Match(self.word(c[1]), "not in", self.span(op), self.value(op.children[2]),
                         self.span(t))
        values = self.value(op.children[1]) if len(op.children) > 1 else None
        return Match(self.word(c[1]), str(op.children[0]), self.span(op.children[0]), values,
                     self.span(t))

    def suffix(self, t: Tree) -> Suffix:
        return Suffix(t.data, self.value(t.children[1]), self.span(t))

    def value(self, t: Tree | Token) -> Value:
        if t.data == "scalar":
            toks = t.children
            if len(toks) == 2:
                text = "-" + str(toks[1])
                return Scalar("number", text, text, self.span(t))
            tok = toks[0]
            kind = _SCALAR_KINDS.get(tok.type, "bool")
            text = intern(str(tok)) if kind == "name" or kind == "bool" else str(tok)
            return Scalar(kind, text, self.unquote(tok) if kind == "string" else text, self.span(t))
        if t.data == "list":
            return ListV([self.value(v) for v in t.children], self.span(t))
        if t.data == "map":
            entries = [Entry(self.word(e.children[0]), self.value(e.children[1]), self.span(e))
                       for e in t.children]
            return MapV(entries, self.span(t))
        return ModeV(str(t.children[0]), self.word(t.children[1]), self.span(t))

    # expressions

    def expr(self, t: Tree | Token) -> Expr:
        d = t.data
        c = t.children
        sp = self.span(t)
        if d == "literal":
            tok = c[0]
            kind = {"NUMBER": "number", "STRING": "string"}.get(tok.type, "bool")
            value = self.unquote(tok) if kind == "string" else str(tok)
            return ELit(kind, str(tok), value, sp)
        if d == "ref":
            return ERef(self.word(c[0]), [self.word(i.children[0]) for i in c[1:]], sp)
        if d == "paren":
            return self.expr(c[0])
        if d == "not_op":
            return EUn("not", self.expr(c[1]), sp)
        if d == "neg_op":
            return EUn("-", self.expr(c[1]), sp)
        if d in ("binop", "implies_op"):
            return EBin(str(c[1]), self.expr(c[0]), self.expr(c[2]), sp)
        if d == "in_op":
            return EIn(self.expr(c[0]), [self.expr(x) for x in c[2].children], False, sp)
        if d == "not_in_op":
            return EIn(self.expr(c[0]), [self.expr(x) for x in c[3].children], True, sp)
        if d == "quantifier":
            return EQuant(str(c[0]), self.word(c[1]), self.expr(c[3]), self.expr(c[4]), sp)
        raise ValueError(f"unknown expression node {d}")


def too_deep(tree: Tree, limit: int = MAX_TREE_DEPTH) -> bool:
    """Whether the tree is deeper than `limit`, measured without recursion."""
    from lark import Tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((ch, depth + 1) for ch in node.children if isinstance(ch, Tree))
    return False
