"""`kadmit lsp` under test: a copy of the bundled example as the editor's workspace folder, and
`kadmit check`'s diagnostics of the same texts, as the protocol shows them, to compare with."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from lsp_editor import Editor

from kadmit import api
from kadmit.lsp.convert import Lines, diagnostic, uri_of

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ml-platform"


@contextmanager
def cwd(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def key(d) -> tuple:
    """A published diagnostic, comparable."""
    r = d.range
    related = tuple((x.location.uri, x.location.range.start.line, x.location.range.start.character,
                     x.message) for x in d.related_information or ())
    return (r.start.line, r.start.character, r.end.line, r.end.character, d.severity, d.code, d.message, related)


def checked(folder: Path, workdir: Path) -> dict[str, list[tuple]]:
    """`kadmit check FOLDER` run from `workdir` (as the server runs), each file's diagnostics as the
    protocol shows them, by URI."""
    with cwd(workdir):
        result = api.check([os.path.relpath(folder, workdir)])
        out: dict[str, list[tuple]] = {}
        for d in result.diagnostics:
            name = d.span.file if d.span is not None else ""
            text = result.sources.text(name) or ""

            def lines_of(other: str) -> Lines | None:
                t = result.sources.text(other)
                return Lines(t) if t is not None else None

            out.setdefault(uri_of(name) if name else "", []).append(key(diagnostic(d, Lines(text), lines_of)))
        return out


class Workspace:
    """An editor over a copy of the bundled example (`root`), its server started from `root`'s parent."""

    def __init__(self, base: Path) -> None:
        self.root = base / "ml-platform"
        shutil.copytree(EXAMPLE, self.root)
        self.editor = Editor(self.root, cwd=base)

    def path(self, name: str) -> Path:
        return self.root / name

    def expected(self) -> dict[str, list[tuple]]:
        return checked(self.root, self.root.parent)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):
    ws = Workspace(tmp_path_factory.mktemp("lsp"))
    yield ws
    errors = ws.editor.errors()
    code = ws.editor.stop()
    assert errors == []
    assert code == 0


def copy_example(folder: Path) -> Path:
    shutil.copytree(EXAMPLE, folder)
    return folder
