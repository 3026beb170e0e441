"""Changes an editor offers to make: `kadmit fmt`'s layout of a file, the name a diagnostic's
"did you mean" proposes, and the fixes `kadmit why` proves — each as text edits at spans
(`kadmit.edits.Edit`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from kadmit.diagnostics import Diagnostic, suggestion
from kadmit.edits import Edit
from kadmit.editor.project import Snapshot

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[-./][A-Za-z0-9_]+)*\Z")
_QUOTED = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Action:
    title: str
    edits: list[Edit]
    diagnostic: Diagnostic | None = None  # the diagnostic it fixes
    preferred: bool = False


def formatted(text: str, name: str) -> str | None:
    """`kadmit fmt`'s text for `.kad` text `text` (None when it doesn't parse)."""
    from kadmit.syntax import format_text

    return format_text(text, name)[0]


def did_you_mean(d: Diagnostic, text: str | None) -> Action | None:
    """The edit a diagnostic's "did you mean `x`?" stands for: the misspelled name (the first name the
    message quotes that is written at the diagnostic's place) replaced by `x`."""
    new = suggestion(d)
    span = d.span
    if new is None or span is None or text is None or (span.end_line or span.line) != span.line:
        return None
    lines = text.splitlines()
    if not 1 <= span.line <= len(lines):
        return None
    line = lines[span.line - 1]
    start = span.column - 1
    end = span.end_column - 1 if span.end_column is not None else len(line)
    written = line[start:end]
    quoted_names = _QUOTED.findall(d.message)
    for old in quoted_names + [q.rpartition(".")[2] for q in quoted_names if "." in q]:  # `spec.cohortName`
        for quoted in (json.dumps(old), old):
            at = _word(written, quoted)
            if at < 0:
                continue
            replacement = new if quoted == old and (_NAME.match(new) or not span.file.endswith(".kad")) \
                else json.dumps(new)
            return Action(f"replace `{old}` with `{new}`", [Edit(span.file, span.line, span.column + at, quoted, replacement)],
                          d, preferred=True)
    return None


def _word(text: str, word: str) -> int:
    """Where `word` is written in `text` as a whole name (not inside a longer one), or -1."""
    for m in re.finditer(re.escape(word), text):
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if not re.match(r"[A-Za-z0-9_]", before) and not re.match(r"[A-Za-z0-9_]", after):
            return m.start()
    return -1


def why(snap: Snapshot, workload: str):
    """`kadmit why` on the snapshot (kept with it): the api's outcome."""
    key = ("why", workload)
    if key not in snap._answers:
        from kadmit import api

        snap._answers[key] = api.why(workload, [], workspace=snap.workspace)
    return snap._answers[key]


def known_why(snap: Snapshot, workload: str):
    """The `why` outcome already computed on this snapshot, or None (asking is the user's to do)."""
    return snap._answers.get(("why", workload))


def why_fixes(snap: Snapshot, workload: str) -> list[Action]:
    """The proven fixes of a `why` already asked on this snapshot, as edits (a fix that only waits
    for a running workload has none and is left out)."""
    outcome = known_why(snap, workload)
    result = outcome.result if outcome is not None else None
    out = []
    for i, fix in enumerate(result.fixes if result is not None else (), 1):
        edits = [c.edit for c in fix.changes if c.edit is not None]
        if edits and len(edits) == len(fix.changes):
            out.append(Action(f"kadmit why fix {i}: {fix.message}", edits,
                              preferred=i == 1))
    return out
