"""The bounds on the inputs together: bytes read, objects and Workloads, counted while the front ends
read so that a run past a bound stops before it builds what it would not decide (docs/LIMITS.md).

One file's size (`--max-file-size`) and one object's Workloads (`replicas`) have their own bounds where
they are read; these hold for every file, document, list item and `.kad` statement of one load
together. `workspace.load` opens a budget (`counting`) and reports what it refused as one KAD003 error
at the first thing refused, with a count of the rest; the front ends ask `current()`, which is None
outside a load (a library reading one text alone is not bounded here).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator

from kadmit.source import Span

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FILES = 20_000
INPUT_FILES = 4  # the inputs together hold at most this many largest files' bytes
MAX_OBJECTS = 500_000  # documents and list items of manifests, statements of `.kad` files
MAX_WORKLOADS = 200_000  # Workload objects, jobs, and the Workloads a Deployment's or LWS's replicas make


@dataclass
class Refused:
    """What one bound turned away: the first thing (its place) and how many in all."""

    first: str
    span: Span | None
    count: int = 0


@dataclass
class Budget:
    max_bytes: int
    max_objects: int = MAX_OBJECTS
    max_workloads: int = MAX_WORKLOADS
    bytes: int = 0
    objects: int = 0
    workloads: int = 0
    refused: dict[str, Refused] = field(default_factory=dict)  # "bytes" / "objects" / "workloads" -> what

    @property
    def exceeded(self) -> bool:
        return bool(self.refused)

    def _refuse(self, bound: str, what: str, span: Span | None, n: int = 1) -> bool:
        got = self.refused.get(bound)
        if got is None:
            got = self.refused[bound] = Refused(what, span)
        got.count += n
        return False

    def take_bytes(self, n: int, name: str) -> bool:
        """Whether a file of `n` bytes is read (False: refused, counted)."""
        if "bytes" in self.refused or self.bytes + n > self.max_bytes:
            return self._refuse("bytes", f"`{name}` ({n:,} bytes)", Span(name, 1, 1))
        self.bytes += n
        return True

    def take_object(self, span_of) -> bool:
        """Whether one more object is read; `span_of()` places it when it is the first refused."""
        if self.objects >= self.max_objects:
            return self._refuse("objects", "here", None if "objects" in self.refused else span_of())
        self.objects += 1
        return True

    def take_workloads(self, n: int, span_of) -> bool:
        """Whether `n` more Workloads are made (an object that makes them); refused whole otherwise."""
        if self.workloads + n > self.max_workloads or "workloads" in self.refused:
            return self._refuse("workloads", "here", None if "workloads" in self.refused else span_of())
        self.workloads += n
        return True

    def save(self) -> tuple:
        """What was counted so far, for `restore`."""
        return self.bytes, self.objects, self.workloads, {k: (r.first, r.span, r.count) for k, r in self.refused.items()}

    def restore(self, saved: tuple) -> None:
        """Back to what `save` gave: what was counted since (a text read again) is forgotten."""
        self.bytes, self.objects, self.workloads, refused = saved
        self.refused = {k: Refused(*r) for k, r in refused.items()}

    def take_file(self, name: str, objects: int, workloads: int) -> bool:
        """Whether one file's objects, read already (a `.kad` file, a file read in an earlier load of an
        editor's workspace), are kept."""
        at = Span(name, 1, 1)
        if self.objects + objects > self.max_objects or "objects" in self.refused:
            return self._refuse("objects", f"in `{name}`", at, objects)
        if self.workloads + workloads > self.max_workloads or "workloads" in self.refused:
            return self._refuse("workloads", f"in `{name}`", at, workloads)
        self.objects += objects
        self.workloads += workloads
        return True

    def report(self, diags) -> None:
        """One KAD003 error per bound passed, at the first thing it refused, with how much was not read."""
        from kadmit.diagnostics import KAD003

        for bound in ("bytes", "objects", "workloads"):
            got = self.refused.get(bound)
            if got is None:
                continue
            n = got.count
            if bound == "bytes":
                text = (f"the inputs hold more than {self.max_bytes:,} bytes together: {n:,} "
                        f"file{'' if n == 1 else 's'} not read, the first {got.first}")
            elif bound == "objects":
                text = (f"the inputs hold more than {self.max_objects:,} objects together: {n:,} more not read, "
                        f"the first {got.first}")
            else:
                text = (f"the inputs make more than {self.max_workloads:,} Workloads together (Workload objects, "
                        f"jobs, the replicas of Deployments and LeaderWorkerSets): {n:,} more object"
                        f"{'' if n == 1 else 's'} making them not read, the first {got.first}")
            diags.emit(KAD003, text, got.span,
                       help="read fewer inputs at once (a folder per cluster), or raise every bound with "
                            "--max-file-size (the totals grow with it: docs/LIMITS.md)")


@dataclass
class Limits:
    """What one load reads at most (docs/LIMITS.md): a file's bytes and the files; and together, the
    bytes, objects and Workloads of every input (`budget`), which grow with `max_file_bytes` above its
    default unless given."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_files: int = MAX_FILES
    max_input_bytes: int | None = None  # default: INPUT_FILES times max_file_bytes
    max_objects: int | None = None
    max_workloads: int | None = None

    def __post_init__(self) -> None:
        scale = max(1.0, self.max_file_bytes / DEFAULT_MAX_FILE_BYTES)
        if self.max_input_bytes is None:
            self.max_input_bytes = INPUT_FILES * self.max_file_bytes
        if self.max_objects is None:
            self.max_objects = int(MAX_OBJECTS * scale)
        if self.max_workloads is None:
            self.max_workloads = int(MAX_WORKLOADS * scale)

    def budget(self) -> Budget:
        return Budget(self.max_input_bytes, self.max_objects, self.max_workloads)


_current: ContextVar[Budget | None] = ContextVar("kadmit_budget", default=None)


def current() -> Budget | None:
    """The budget of the load under way, if any."""
    return _current.get()


@contextmanager
def counting(budget: Budget) -> Iterator[Budget]:
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)
