"""The JSON diagnostic format: one object with every diagnostic and a summary, keys in fixed order."""

from __future__ import annotations

import json

from kadmit.diagnostics import Diagnostic, Severity
from kadmit.source import Span


def _place(span: Span | None) -> dict:
    if span is None:
        return {"file": None, "line": None, "column": None, "end_line": None, "end_column": None}
    return {"file": span.file, "line": span.line, "column": span.column,
            "end_line": span.end_line, "end_column": span.end_column}


def diagnostic_dict(d: Diagnostic) -> dict:
    """A diagnostic as plain data: code, severity, message, location, help, notes, labels, and the objects it is
    about (`Subject`: kind, namespace, name), where its producer names them."""
    return {"code": d.code, "severity": d.severity.value, "message": d.message, **_place(d.span),
            "help": d.help, "notes": list(d.notes),
            "labels": [{**_place(lb.span), "message": lb.message} for lb in d.labels],
            "about": [s.as_dict() for s in d.about]}


def summary_dict(diagnostics: list[Diagnostic], files_checked: int) -> dict:
    counts = {s: sum(1 for d in diagnostics if d.severity is s) for s in Severity}
    return {"files": files_checked, "errors": counts[Severity.ERROR],
            "warnings": counts[Severity.WARNING], "notes": counts[Severity.NOTE]}


def render_json(diagnostics: list[Diagnostic], *, files_checked: int) -> str:
    """`{"diagnostics": [...], "summary": {...}}`, indented, ending with a newline."""
    doc = {"diagnostics": [diagnostic_dict(d) for d in diagnostics],
           "summary": summary_dict(diagnostics, files_checked)}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def diagnostics_json(diagnostics: list[Diagnostic]) -> str:
    """`{"diagnostics": [...]}`: what a `--format json` command prints on stdout when it refuses its input
    (exit 2), so stdout is always one JSON document."""
    return json.dumps({"diagnostics": [diagnostic_dict(d) for d in diagnostics]}, indent=2, ensure_ascii=False) + "\n"
