"""The SARIF 2.1.0 format, as GitHub code scanning reads it: rules from the code table, results."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import metadata
from pathlib import PurePosixPath
from urllib.parse import quote

from kadmit.diagnostics import Diagnostic, Severity, code_info
from kadmit.render.excerpt import MAX_LINE_WIDTH, one_line
from kadmit.source import SourceMap, Span

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/kadmit/kadmit"
SRCROOT = "%SRCROOT%"


def tool_version() -> str:
    try:
        return metadata.version("kadmit")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def _rule_name(title: str) -> str:
    """A title as an identifier, the way SARIF rule names are written: `LendingLimitTooHigh`."""
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^0-9A-Za-z]+", title) if w)


def rule(code: str) -> dict:
    """The reportingDescriptor of one code, from the code table."""
    info = code_info(code)
    if info is None:
        title, description, level, kueue = code, code, "error", None
    else:
        title, description, kueue = info.title, info.description, info.kueue_rule
        level = info.severity.value
    help_text = description + (f"\n\nMirrors Kueue: {kueue}" if kueue else "")
    return {
        "id": code,
        "name": _rule_name(title) or code,
        "shortDescription": {"text": title},
        "fullDescription": {"text": description},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": level},
    }


def artifact_location(file: str) -> dict:
    """Relative paths hang off %SRCROOT% with forward slashes; absolute ones become file URIs."""
    posix = file.replace("\\", "/")
    if PurePosixPath(posix).is_absolute():
        return {"uri": "file://" + quote(posix, safe="/")}
    return {"uri": quote(posix, safe="/"), "uriBaseId": SRCROOT}


def physical_location(span: Span) -> dict:
    region = {"startLine": span.line, "startColumn": span.column}
    if span.end_line is not None and span.end_column is not None:
        region |= {"endLine": span.end_line, "endColumn": span.end_column}
    return {"artifactLocation": artifact_location(span.file), "region": region}


def fingerprint(d: Diagnostic, sources: SourceMap) -> str:
    """A hash of code, file, the blamed line's text and the message: stable when lines move."""
    file = d.span.file if d.span else ""
    text = (sources.line(file, d.span.line) or "") if d.span else ""
    if len(text) > 4 * MAX_LINE_WIDTH:  # a long line: the part around the span (hashing stays cheap)
        start = max(d.span.column - 1, 0) if d.span else 0
        text = text[max(0, start - MAX_LINE_WIDTH):start + MAX_LINE_WIDTH]
    key = "\x00".join((d.code, file, text.strip(), d.message))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _message(d: Diagnostic) -> str:
    """The message on the first line (its line breaks escaped, `excerpt.one_line`), help and notes below."""
    return one_line(d.message) + (f"\nhelp: {d.help}" if d.help else "") + "".join(
        f"\nnote: {n}" for n in d.notes)


def _location(d: Diagnostic, span: Span) -> dict:
    """Where a result is: its span, and the objects it is about (`Diagnostic.about`) as logical locations (only
    beside a span: GitHub's code scanning takes a location by its physical location)."""
    out: dict = {"physicalLocation": physical_location(span)}
    if d.about:
        out["logicalLocations"] = [
            {"name": s.name, "fullyQualifiedName": "/".join(p for p in (s.kind, s.namespace, s.name) if p is not None),
             "kind": "object"} for s in d.about]
    return out


def sarif_log(diagnostics: list[Diagnostic], sources: SourceMap) -> dict:
    """The whole SARIF log: one run of kadmit."""
    codes = sorted({d.code for d in diagnostics})
    index = {c: i for i, c in enumerate(codes)}
    results = []
    seen: dict[str, int] = {}
    for d in diagnostics:
        result: dict = {"ruleId": d.code, "ruleIndex": index[d.code],
                        "level": {Severity.ERROR: "error", Severity.WARNING: "warning",
                                  Severity.NOTE: "note"}[d.severity],
                        "message": {"text": _message(d)}}
        if d.span is not None:
            result["locations"] = [_location(d, d.span)]
        if d.labels:
            result["relatedLocations"] = [
                {"id": i, "physicalLocation": physical_location(lb.span),
                 "message": {"text": lb.message}} for i, lb in enumerate(d.labels, 1)]
        digest = fingerprint(d, sources)
        seen[digest] = seen.get(digest, 0) + 1
        result["partialFingerprints"] = {"primaryLocationLineHash": f"{digest}:{seen[digest]}"}
        results.append(result)
    driver = {"name": "kadmit", "version": tool_version(), "informationUri": INFORMATION_URI,
              "rules": [rule(c) for c in codes]}
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints",
                      "results": results}]}


def render_sarif(diagnostics: list[Diagnostic], sources: SourceMap) -> str:
    return json.dumps(sarif_log(diagnostics, sources), indent=2, ensure_ascii=False) + "\n"
