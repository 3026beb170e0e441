"""A set of policy and manifest paths kept open: the files on disk, with an editor's unsaved texts in
their place, read again only where a text changed, merged and validated as `kadmit check` does."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from kadmit import workspace as ws
from kadmit.diagnostics import Diagnostic
from kadmit.index import ModelIndex
from kadmit.symbols import Symbols


@dataclass
class Snapshot:
    """The project read once: its workspace, every diagnostic (sorted, as `kadmit check` lists them),
    and what is looked up in its model, computed when first asked."""

    workspace: ws.Workspace
    diagnostics: list[Diagnostic]
    version: int
    read: set[str] = field(default_factory=set)  # the files parsed for this snapshot (the others' readings were kept)
    _answers: dict = field(default_factory=dict)  # results of the engine on this snapshot (decisions, why)

    @property
    def model(self):
        return self.workspace.model

    @property
    def sources(self):
        return self.workspace.sources

    @cached_property
    def index(self) -> ModelIndex:
        return ModelIndex(self.model)

    @cached_property
    def symbols(self) -> Symbols:
        return Symbols(self.model, self.index)

    @cached_property
    def by_file(self) -> dict[str, list[Diagnostic]]:
        """Diagnostics by the file their span names ("" for those without one)."""
        out: dict[str, list[Diagnostic]] = {}
        for d in self.diagnostics:
            out.setdefault(d.span.file if d.span is not None else "", []).append(d)
        return out

    def text(self, name: str) -> str | None:
        return self.workspace.sources.text(name)

    @property
    def has_errors(self) -> bool:
        return any(d.severity.value == "error" for d in self.diagnostics)


class Project:
    """The paths an editor checks (a workspace folder, or a file opened alone) and the texts of the
    files open in it. `snapshot()` reads what changed since the last one."""

    def __init__(self, paths: list[str], *, limits: ws.Limits | None = None) -> None:
        self.paths = list(paths)
        self.limits = limits
        self.overlay: dict[Path, str] = {}
        self.cache = ws.ReadCache()
        self.version = 0
        self._snapshot: Snapshot | None = None
        self._folders = [Path(p).resolve() for p in self.paths if Path(p).is_dir()]
        self._files = {Path(p).resolve() for p in self.paths if not Path(p).is_dir()}

    def contains(self, path: Path) -> bool:
        """Whether `path` is one of the project's inputs (or would be, once saved)."""
        path = path.resolve()
        return path in self._files or any(path.is_relative_to(d) for d in self._folders)

    def set_text(self, path: Path, text: str | None) -> None:
        """The text an editor holds for `path` (None: the file's own again, once closed)."""
        path = path.resolve()
        if text is None:
            self.overlay.pop(path, None)
        else:
            self.overlay[path] = text
        self.changed()

    def changed(self) -> None:
        """Something changed (a buffer, or files on disk): the next snapshot reads again."""
        self._snapshot = None

    @property
    def fresh(self) -> Snapshot | None:
        """The snapshot, if nothing changed since it was read."""
        return self._snapshot

    def snapshot(self) -> Snapshot:
        if self._snapshot is None:
            self.cache.read = set()
            loaded = ws.load(self.paths, limits=self.limits, overlay=self.overlay, cache=self.cache)
            from kadmit.api import add_stall

            add_stall(loaded)  # KAD542 as `kadmit check` gives it
            self.cache.keep({name for name, _ in loaded.sources.items()})
            self.version += 1
            self._snapshot = Snapshot(loaded, loaded.diagnostics.sorted(), self.version, set(self.cache.read))
        return self._snapshot
