"""`kadmit fmt`: the canonical layout of a `.kad` file, printed from its syntax tree with every
comment kept, idempotent, and checked to mean exactly what the input meant."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.source import Span
from kadmit.syntax import codes
from kadmit.syntax.ast import (Attr, Block, Decl, EBin, File, ImportStmt, ListV, LocalQueueStmt, MapV, Match,
                               Member, ModeV, PriorityStmt, Resources, RuleStmt, Scalar, SchedulerStmt, Value)
from kadmit.syntax.fmt_expr import expr_text
from kadmit.syntax.lower import lower_file, parse_file

INDENT = "  "
WIDTH = 100
_ONE_LINERS = (ImportStmt, PriorityStmt, LocalQueueStmt)


class _Comments:
    """Comment tokens in source order, handed out as the printer passes their positions."""

    def __init__(self, tokens) -> None:
        self.items = sorted(((t.line, t.column, str(t).rstrip()) for t in tokens))
        self.i = 0

    def before(self, line: int, column: int) -> list[tuple[int, str]]:
        out = []
        while self.i < len(self.items) and self.items[self.i][:2] < (line, column):
            out.append((self.items[self.i][0], self.items[self.i][2]))
            self.i += 1
        return out

    def trailing(self, line: int) -> str:
        """The comment that ends `line`, if the next one starts there."""
        if self.i < len(self.items) and self.items[self.i][0] == line:
            self.i += 1
            return "  " + self.items[self.i - 1][2]
        return ""

    def any_before(self, line: int, column: int) -> bool:
        return self.i < len(self.items) and self.items[self.i][:2] < (line, column)


def _end(span: Span) -> tuple[int, int]:
    return (span.end_line or span.line, span.end_column or span.column)


class Printer:
    def __init__(self, comments) -> None:
        self.c = _Comments(comments)
        self.comment_lines = {t.line for t in comments}
        self.out: list[str] = []
        self.last_line = 0  # the source line of the last thing printed

    def emit(self, depth: int, text: str) -> None:
        self.out.append(INDENT * depth + text if text else "")

    def blank(self) -> None:
        if self.out and self.out[-1] != "":
            self.out.append("")

    def leading(self, depth: int, line: int, column: int, gap_before: bool | None) -> None:
        """Comments before a position; `gap_before` forces (True), forbids (False) or keeps (None)
        a blank line before the first thing printed."""
        first = True
        for cline, text in self.c.before(line, column):
            self._gap(first, gap_before, cline)
            self.emit(depth, text)
            self.last_line = cline
            first = False
        self._gap(first, gap_before, line)
        self.last_line = line

    def _gap(self, first: bool, gap_before: bool | None, line: int) -> None:
        if first and gap_before is not None:
            if gap_before:
                self.blank()
        elif self.blank_between(self.last_line, line) and self.out and self.out[-1] != "" \
                and not self.out[-1].endswith("{"):
            self.blank()

    def blank_between(self, a: int, b: int) -> bool:
        """Whether a blank line separates source lines `a` and `b` (comment lines don't count:
        the printer keeps them, so this answer is the same for the input and for the output)."""
        return any(n not in self.comment_lines for n in range(a + 1, b))

    def inner(self, depth: int, line: int, column: int) -> None:
        """Comments inside something printed on fewer lines than its source: they go before it."""
        for _, text in self.c.before(line, column):
            self.emit(depth, text)

    # statements

    def file(self, f: File) -> str:
        prev = None
        for st in f.stmts:
            if prev is None:
                gap = None if self.out else False
            elif isinstance(st, _ONE_LINERS) and type(st) is type(prev):
                gap = None
            else:
                gap = True
            self.leading(0, st.span.line, st.span.column, gap)
            self.stmt(st, f.stmts)
            prev = st
        rest = self.c.before(10**9, 0)
        for cline, text in rest:
            self._gap(False, None, cline)
            self.emit(0, text)
            self.last_line = cline
        while self.out and self.out[-1] == "":
            self.out.pop()
        return "\n".join(self.out) + "\n" if self.out else ""

    def stmt(self, st, siblings) -> None:
        if isinstance(st, Decl):
            self.block(0, f"{st.kind} {st.label.text}", st.members, st.span, inline_ok=False)
            return
        if isinstance(st, SchedulerStmt):
            self.block(0, "scheduler", st.members, st.span, inline_ok=False)
            return
        end_line = _end(st.span)[0]
        if isinstance(st, RuleStmt):
            text = self.rule(st)
        else:
            text = self.one_liner(st, siblings)
        self.inner(0, *_end(st.span))
        lines = text.split("\n")
        for ln in lines[:-1]:
            self.emit(0, ln)
        self.emit(0, lines[-1] + self.c.trailing(end_line))
        self.last_line = end_line

    def one_liner(self, st, siblings) -> str:
        group = self._group(st, siblings)
        if isinstance(st, ImportStmt):
            return f"import {st.path.text}"
        if isinstance(st, LocalQueueStmt):
            width = max(len(s.name.text) for s in group)
            return f"local_queue {st.name.text.ljust(width)} -> {st.target.text}"
        width = max(len(s.name.text) for s in group)
        text = f"priority {st.name.text.ljust(width)} = {st.value.text}"
        return text + " default" if st.default else text

    def _group(self, st, siblings) -> list:
        """The run of same-kind one-liners around `st` with no blank line between them."""
        i = next(k for k, s in enumerate(siblings) if s is st)
        lo = hi = i
        while lo > 0 and type(siblings[lo - 1]) is type(st) and not self.blank_between(
                _end(siblings[lo - 1].span)[0], siblings[lo].span.line):
            lo -= 1
        while hi + 1 < len(siblings) and type(siblings[hi + 1]) is type(st) and not self.blank_between(
                _end(siblings[hi].span)[0], siblings[hi + 1].span.line):
            hi += 1
        return siblings[lo:hi + 1]

    def rule(self, st: RuleStmt) -> str:
        head = f"{st.kind} {st.name.text}"
        if st.weight is not None:
            head += f" weight {st.weight.text}"
        body = expr_text(st.expr)
        same_line = st.expr.span.line == st.name.span.line
        if same_line and len(head) + 2 + len(body) <= WIDTH:
            return f"{head}: {body}"
        e = st.expr
        if len(INDENT + body) > WIDTH and isinstance(e, EBin) and e.op in ("implies", "or", "and"):
            need = {"implies": 2, "or": 2, "and": 3}[e.op]
            right = expr_text(e.right, 0 if e.op == "implies" else need + 1)
            return f"{head}:\n{INDENT}{expr_text(e.left, need)}\n{INDENT * 2}{e.op} {right}"
        return f"{head}:\n{INDENT}{body}"

    # blocks and members

    def block(self, depth: int, header: str, members: list[Member], span: Span, inline_ok: bool,
              quotas: bool = False) -> None:
        end_line, end_col = _end(span)
        inline = self._inline(depth, header, members, span) if inline_ok else None
        if not members and not self.c.any_before(end_line, end_col):
            inline = f"{header} {{}}"
        if inline is not None:
            self.inner(depth, end_line, end_col)
            self.emit(depth, inline + self.c.trailing(end_line))
            self.last_line = end_line
            return
        first_line = members[0].span.line if members else end_line
        trail = self.c.trailing(span.line) if first_line > span.line else ""
        self.emit(depth, f"{header} {{" + trail)
        self.last_line = span.line
        self.members(depth + 1, members, quotas)
        for cline, text in self.c.before(end_line, end_col - 1):
            self._gap(False, None, cline)
            self.emit(depth + 1, text)
            self.last_line = cline
        self.emit(depth, "}" + self.c.trailing(end_line))
        self.last_line = end_line

    def _inline(self, depth: int, header: str, members: list[Member], span: Span) -> str | None:
        if not members or not all(isinstance(m, Attr) for m in members):
            return None
        if self.c.any_before(*_end(span)):
            return None
        text = f"{header} {{ " + "  ".join(self.attr_text(m, 0, 0) for m in members) + " }"
        return text if len(INDENT * depth + text) <= WIDTH and "\n" not in text else None

    def members(self, depth: int, members: list[Member], quotas: bool = False) -> None:
        """Fields one per line; a flavor's quota inside `resources` stays on one line if it fits."""
        widths = self._key_widths(members)
        for k, m in enumerate(members):
            self.leading(depth, m.span.line, m.span.column, False if k == 0 else None)
            end_line, end_col = _end(m.span)
            if isinstance(m, Block):
                header = m.kind.text + (f" {m.label.text}" if m.label else "")
                self.block(depth, header, m.members, m.span, inline_ok=quotas)
                continue
            if isinstance(m, Resources):
                header = "resources " + ", ".join(k.text for k in m.keys)
                self.block(depth, header, m.members, m.span, inline_ok=False, quotas=True)
                continue
            text = self.attr_text(m, depth, widths[k]) if isinstance(m, Attr) else self.match_text(m, depth)
            self.inner(depth, end_line, end_col)
            lines = text.split("\n")
            for ln in lines[:-1]:
                self.emit(depth, ln)
            self.emit(depth, lines[-1] + self.c.trailing(end_line))
            self.last_line = end_line

    def _key_widths(self, members: list[Member]) -> list[int]:
        """Align `=` across runs of adjacent fields (no blank line between them)."""
        widths = [0] * len(members)
        run: list[int] = []
        for k, m in enumerate(members + [None]):
            adjacent = (m is not None and isinstance(m, Attr) and run and not self.blank_between(
                _end(members[run[-1]].span)[0], m.span.line))
            if m is not None and isinstance(m, Attr) and (adjacent or not run):
                run.append(k)
                continue
            width = max((len(members[i].key.text) for i in run), default=0)
            for i in run:
                widths[i] = width
            run = [k] if m is not None and isinstance(m, Attr) else []
        return widths

    def attr_text(self, a: Attr, depth: int, width: int) -> str:
        prefix = f"{a.key.text.ljust(width)} = "
        value = self.value(a.value, depth, len(prefix))
        suffix = "".join(f" {s.kind} {self.value(s.value, depth, 0)}" for s in a.suffixes)
        return prefix + value + suffix

    def match_text(self, m: Match, depth: int) -> str:
        text = f"match {m.key.text} {m.op}"
        if m.values is not None:
            text += " " + self.value(m.values, depth, len(text) + 1)
        return text

    def value(self, v: Value, depth: int, used: int) -> str:
        """A value inline when it fits on the line, else one item per line."""
        flat = flat_value(v)
        if len(INDENT * depth) + used + len(flat) <= WIDTH or isinstance(v, (Scalar, ModeV)):
            return flat
        inner = INDENT
        if isinstance(v, ListV):
            items = [inner + self.value(x, depth + 1, 0).replace("\n", "\n" + inner) + "," for x in v.items]
            return "[\n" + "\n".join(items) + "\n]"
        assert isinstance(v, MapV)
        width = max(len(e.key.text) for e in v.entries)
        items = []
        for e in v.entries:
            prefix = f"{e.key.text.ljust(width)} = "
            items.append(inner + prefix + self.value(e.value, depth + 1, len(prefix)).replace("\n", "\n" + inner))
        return "{\n" + "\n".join(items) + "\n}"


def flat_value(v: Value) -> str:
    if isinstance(v, Scalar):
        return v.text
    if isinstance(v, ModeV):
        return f"{v.mode} {v.level.text}"
    if isinstance(v, ListV):
        return "[" + ", ".join(flat_value(x) for x in v.items) + "]"
    if not v.entries:
        return "{}"
    return "{ " + ", ".join(f"{e.key.text} = {flat_value(e.value)}" for e in v.entries) + " }"


def format_text(text: str, filename: str) -> tuple[str | None, Diagnostics]:
    """The canonical layout of `text`, or None and the syntax errors that prevent it."""
    diags = Diagnostics()
    try:
        tree, comments = parse_file(text, filename, diags)
        if tree is None or diags.has_errors:
            return None, diags
        out = Printer(comments).file(tree)
        if not _same_meaning(tree, len(comments), out, filename):
            diags.emit(codes.INTERNAL, "kadmit fmt would change what this file means; left it as is",
                       Span(file=filename, line=1, column=1))
            return None, diags
        return out, diags
    except RecursionError:
        diags.emit(codes.TOO_DEEP, "nested too deeply to format", Span(file=filename, line=1, column=1))
        return None, diags
    except Exception as err:  # never lose the user's file to a formatter bug
        diags.emit(codes.INTERNAL, f"kadmit fmt failed ({type(err).__name__})", Span(file=filename, line=1, column=1))
        return None, diags


def _same_meaning(tree: File, n_comments: int, out: str, filename: str) -> bool:
    before = lower_file(tree, Diagnostics())
    after_diags = Diagnostics()
    after_tree, after_comments = parse_file(out, filename, after_diags)
    if after_tree is None or after_diags.has_errors or len(after_comments) != n_comments:
        return False
    after = lower_file(after_tree, Diagnostics())
    return before.fragment == after.fragment and [i.path for i in before.imports] == [
        i.path for i in after.imports]
