"""Diagnostics: user mistakes as values with a stable code, a span and help, and the code table."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Iterator

from kadmit.source import Span


def field_key(what: str, key: object) -> str:
    """The path of `what`'s field `key` as a message names it: `spec.limits.cpu`, or, for a key a dot would not
    show as written (empty, holding a dot, a space, a quote, a bracket or a control character),
    `spec.limits["nvidia.com/gpu"]`, `spec.limits["a\\nb"]`: the path reads one way, and a key holding a line break
    cannot split a message's first line from its location. `what` "" names a top-level key (`x`, `["a b"]`)."""
    text = str(key)
    if text and text.isprintable() and not any(c.isspace() or c in '".[]' for c in text):
        return f"{what}.{text}" if what else text
    return f"{what}[{json.dumps(text)}]"


def field_path(path: Iterable[str | int]) -> str:
    """A field's path from the object's top as a message names it: keys by `field_key`, list indices `[0]`
    (`spec.containers[0].resources.requests["nvidia.com/gpu"]`)."""
    out = ""
    for part in path:
        out = f"{out}[{part}]" if isinstance(part, int) else field_key(out, part)
    return out


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "note": 2}[self.value]


@dataclass(frozen=True)
class CodeInfo:
    """One row of the code table: what a code means, and which rule it enforces."""

    code: str
    title: str
    severity: Severity
    description: str
    kueue_rule: str | None = None  # the Kueue webhook / CEL rule this mirrors, when there is one


_CODES: dict[str, CodeInfo] = {}


def register(code: str, title: str, severity: Severity | str, description: str,
             kueue_rule: str | None = None) -> str:
    """Register a diagnostic code; each stage registers its own range at import time."""
    info = CodeInfo(code, title, Severity(severity), description, kueue_rule)
    existing = _CODES.get(code)
    if existing is not None and existing != info:
        raise ValueError(f"diagnostic code {code} registered twice with different meanings")
    _CODES[code] = info
    return code


def code_info(code: str) -> CodeInfo | None:
    return _CODES.get(code)


def load_all_codes() -> None:
    """Register every code of every stage by importing the stages' `codes` modules, found by file
    name (every code is registered in one: `tests/test_codes_registry.py`), not every module."""
    import importlib
    from pathlib import Path

    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("codes.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        importlib.import_module(".".join(parts))


def all_codes() -> list[CodeInfo]:
    return [_CODES[c] for c in sorted(_CODES)]


@dataclass(frozen=True)
class Label:
    """A secondary location attached to a diagnostic ("first defined here")."""

    span: Span
    message: str


@dataclass(frozen=True)
class Subject:
    """An object a diagnostic is about, by its identity: what a caller picks diagnostics by (`api.out_of_step`),
    where the message names it only in words (`Job `ns/j`` is also in `RayJob `ns/j``)."""

    kind: str
    namespace: str | None
    name: str

    def as_dict(self) -> dict:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name}


# a diagnostic's note quoting what the API server says of an object it refuses (`kubectl apply`'s answer), after
# kadmit's own words (`scope.refusal_reason` quotes it in the object's skipped reason)
SERVER_WORDS = "the API server's words: "


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span | None = None
    help: str | None = None
    notes: tuple[str, ...] = ()
    labels: tuple[Label, ...] = ()
    about: tuple[Subject, ...] = ()  # the objects it concerns, where its producer names them

    def sort_key(self) -> tuple:
        if self.span is None:
            return ("", 0, 0, self.severity.rank, self.code, self.message)
        return (self.span.file, self.span.line, self.span.column, self.severity.rank,
                self.code, self.message)


@dataclass
class Diagnostics:
    """An accumulating, sortable list of diagnostics."""

    items: list[Diagnostic] = field(default_factory=list)
    # the objects a diagnostic emitted without `about` is about: set by a stage while it reads one object
    # (`manifests.reader`), so every check it runs names that object
    concerning: tuple[Subject, ...] = ()

    def add(self, diagnostic: Diagnostic) -> None:
        self.items.append(diagnostic)

    def emit(self, code: str, message: str, span: Span | None = None, *,
             help: str | None = None, notes: Iterable[str] = (),
             labels: Iterable[Label] = (), severity: Severity | str | None = None,
             about: Iterable[Subject] = ()) -> Diagnostic:
        """Add a diagnostic; its severity defaults to the code table's."""
        info = _CODES.get(code)
        if severity is None:
            if info is None:
                raise KeyError(f"unregistered diagnostic code {code}")
            severity = info.severity
        d = Diagnostic(code, Severity(severity), message, span, help, tuple(notes), tuple(labels),
                       tuple(about) or self.concerning)
        self.items.append(d)
        return d

    def error(self, code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
        return self.emit(code, message, span, severity=Severity.ERROR, **kw)

    def warning(self, code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
        return self.emit(code, message, span, severity=Severity.WARNING, **kw)

    def extend(self, other: Iterable[Diagnostic]) -> None:
        self.items.extend(other)

    def sorted(self) -> list[Diagnostic]:
        seen: set[tuple] = set()
        out = []
        for d in sorted(self.items, key=Diagnostic.sort_key):
            k = d.sort_key() + (d.help,)
            if k not in seen:
                seen.add(k)
                out.append(d)
        return out

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.items if d.severity is severity)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A "did you mean `x`?" help line when a candidate is close to `name`."""
    match = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{match[0]}`?" if match else None


_SUGGESTED = re.compile(r"did you mean `([^`]+)`\?")


def suggestion(d: Diagnostic) -> str | None:
    """The name a diagnostic's "did you mean" help proposes (`did_you_mean`'s), for editors to offer
    as a fix."""
    m = _SUGGESTED.search(d.help or "")
    return m.group(1) if m else None


# Codes owned by no single stage: input and output.
KAD001 = register("KAD001", "unreadable input", "error",
                  "A path could not be read: it does not exist, is not a regular file, or "
                  "permission was denied.")
KAD002 = register("KAD002", "not UTF-8 text", "error",
                  "A policy or manifest file is binary or not valid UTF-8.")
KAD003 = register("KAD003", "input too large", "error",
                  "A file is larger than kadmit reads (see --max-file-size); or one object would make more "
                  "Workloads than kadmit reads from one (a Deployment's pods or a LeaderWorkerSet's groups: "
                  "`replicas` above 100,000), and that object is skipped; or the inputs together pass a bound "
                  "(more than 20,000 files, 256 MiB, 500,000 objects or 200,000 Workloads by default; the totals "
                  "grow with --max-file-size), and kadmit reads no further and decides nothing: the error is at "
                  "the first file or object not read and counts the rest (docs/LIMITS.md).")
KAD004 = register("KAD004", "no input files", "error",
                  "None of the given paths holds a `.kad`, `.yaml`, `.yml` or `.json` file; or, for a verb "
                  "that decides (`admit`, `why`, `simulate`, `export`, `import`, `diff`), the files read hold "
                  "no object kadmit reads (each file not read is listed with the reason, KAD020).")
