"""The GitHub Actions format: one workflow command per diagnostic, shown as an annotation."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostic, Severity
from kadmit.render.excerpt import clean, one_line

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message: `%`, carriage return and newline."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value: as for data, plus `:` and `,`, which delimit properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    """`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`.

    GitHub takes columns only for single-line regions, and its end column is inclusive.
    """
    props: list[tuple[str, object]] = []
    span = d.span
    if span is not None:
        props += [("file", span.file), ("line", span.line)]
        end_line = span.end_line if span.end_line is not None else span.line
        if end_line == span.line:
            props.append(("col", span.column))
            if span.end_column is not None:
                props += [("endLine", end_line), ("endColumn", max(span.end_column - 1, span.column))]
        else:
            props.append(("endLine", end_line))
    props.append(("title", d.code))
    # the message on its first line, escaped as the human header is (GitHub shows a `%0A` as a line break); help
    # and notes on lines of their own, as the human format shows them
    message = one_line(d.message) + clean((f"\nhelp: {d.help}" if d.help else "") + "".join(
        f"\nnote: {n}" for n in d.notes))
    rendered = ",".join(f"{k}={escape_property(str(v))}" for k, v in props)
    return f"::{_COMMANDS[d.severity]} {rendered}::{escape_data(message)}"


def render_github(diagnostics: list[Diagnostic]) -> str:
    """Every diagnostic as a workflow command line."""
    return "".join(annotation(d) + "\n" for d in diagnostics)
