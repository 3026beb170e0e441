"""`read_kad`: imports followed once each, relative to the importing file, never outside the root."""

from __future__ import annotations

from pathlib import Path

from kadmit.diagnostics import Diagnostics
from kadmit.source import Span
from kadmit.syntax import read_kad


def load(files: list[Path], root: Path):
    diags = Diagnostics()
    reads: list[str] = []

    def read(path: Path, at: Span | None) -> str | None:
        reads.append(path.name)
        return path.read_text()

    frags = read_kad(files, root, read, lambda p: p.resolve().relative_to(root.resolve()).as_posix()
                     if p.resolve().is_relative_to(root.resolve()) else p.as_posix(), diags)
    return frags, [(d.code, d.span.file, d.span.line, d.message) for d in diags.sorted()], reads


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_imports_are_read_once_relative_to_the_importer(tmp_path: Path) -> None:
    main = write(tmp_path, "main.kad", 'import "sub/a.kad"\nimport "sub/b.kad"\nflavor m {}\n')
    write(tmp_path, "sub/a.kad", 'import "b.kad"\nflavor a {}\n')
    write(tmp_path, "sub/b.kad", "flavor b {}\n")
    frags, diags, reads = load([main, tmp_path / "sub" / "b.kad"], tmp_path)
    assert diags == []
    assert sorted(reads) == ["a.kad", "b.kad", "main.kad"]  # b.kad imported twice, given once: read once
    assert [f.flavors[0].name for f in frags] == ["m", "a", "b"]  # sorted by display name


def test_cycle_is_reported_with_its_chain(tmp_path: Path) -> None:
    a = write(tmp_path, "a.kad", 'import "b.kad"\n')
    write(tmp_path, "b.kad", 'flavor b {}\nimport "a.kad"\n')
    frags, diags, _ = load([a], tmp_path)
    assert diags == [("KAD117", "b.kad", 2, "import cycle: `a.kad` → `b.kad` → `a.kad`")]
    assert len(frags) == 2


def test_self_import_is_a_cycle(tmp_path: Path) -> None:
    a = write(tmp_path, "a.kad", 'import "a.kad"\n')
    _, diags, _ = load([a], tmp_path)
    assert diags == [("KAD117", "a.kad", 1, "import cycle: `a.kad` → `a.kad`")]


def test_missing_and_outside_imports_point_at_the_import(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    a = write(root, "a.kad", 'flavor a {}\nimport "nope.kad"\nimport "../secret.kad"\n')
    write(tmp_path, "secret.kad", "flavor secret {}\n")
    frags, diags, reads = load([a], root)
    assert [(c, line) for c, _, line, _ in diags] == [("KAD115", 2), ("KAD116", 3)]
    assert reads == ["a.kad"] and len(frags) == 1


def test_unreadable_file_is_skipped(tmp_path: Path) -> None:
    a = write(tmp_path, "a.kad", 'import "b.kad"\n')
    write(tmp_path, "b.kad", "flavor b {}\n")
    diags = Diagnostics()
    frags = read_kad([a], tmp_path, lambda p, at: None if p.name == "b.kad" else p.read_text(),
                     lambda p: p.name, diags)
    assert len(frags) == 1 and not diags.items  # the reader reports its own I/O errors
