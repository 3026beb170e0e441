"""Reading `.kad` files and, transitively, the files they `import`: each once, never outside the
workspace root, with cycles reported along their chain."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from kadmit.diagnostics import Diagnostics
from kadmit.model import Fragment
from kadmit.source import Span
from kadmit.syntax import codes
from kadmit.syntax.lower import Import, Lowered, lower_text

ReadText = Callable[[Path, "Span | None"], "str | None"]
Lower = Callable[[str, str, Diagnostics], Lowered]  # (text, display name, diagnostics) -> the file's objects


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def read_kad(files: list[Path], root: Path, read: ReadText, display_name: Callable[[Path], str],
             diags: Diagnostics) -> list[Fragment]:
    """One fragment per file read (given or imported), sorted by display name."""
    return [frag for _, frag in read_kad_named(files, root, read, display_name, diags)]


def read_kad_named(files: list[Path], root: Path, read: ReadText, display_name: Callable[[Path], str],
                   diags: Diagnostics, lower: Lower = lower_text) -> list[tuple[str, Fragment]]:
    """`read_kad`, each fragment with the display name of its file; `lower` reads one file's text (an
    editor's workspace passes one that remembers texts it has read)."""
    root = _resolve(root)
    done: dict[Path, tuple[str, Fragment | None]] = {}

    def open_file(path: Path, at: Span | None) -> list[Import] | None:
        name = display_name(path)
        text = read(path, at)
        if text is None:
            done[_resolve(path)] = (name, None)
            return None
        lowered = lower(text, name, diags)
        done[_resolve(path)] = (name, lowered.fragment)
        return lowered.imports

    for start in files:
        if _resolve(start) in done:
            continue
        imports = open_file(start, None)
        if imports is None:
            continue
        stack: list[tuple[Path, list[Import]]] = [(_resolve(start), list(reversed(imports)))]
        on_stack = {stack[0][0]}  # the import chain as a set: a deep chain costs its length
        while stack:
            here, pending = stack[-1]
            if not pending:
                on_stack.discard(stack.pop()[0])
                continue
            imp = pending.pop()
            target = _resolve(here.parent / imp.path)
            if not target.is_relative_to(root):
                diags.emit(codes.IMPORT_OUTSIDE, f"`{imp.path}` is outside the folder being checked",
                           imp.span, help=f"kadmit reads only files below `{display_name(root)}`")
            elif target in on_stack:
                chain = [p for p, _ in stack]
                names = [done[p][0] for p in chain[chain.index(target):]] + [done[target][0]]
                shown = [f"`{n}`" for n in names]
                if len(shown) > 12:  # a long cycle: its ends, and how many files between
                    shown = shown[:6] + [f"… {len(shown) - 11} more …"] + shown[-5:]
                diags.emit(codes.IMPORT_CYCLE, "import cycle: " + " → ".join(shown),
                           imp.span, help="remove one of these imports")
            elif target in done:
                continue
            elif not target.is_file():
                diags.emit(codes.IMPORT_NOT_FOUND, f"imported file `{imp.path}` not found", imp.span,
                           help=f"paths are relative to the importing file's folder (`{display_name(here.parent)}`)")
            else:
                more = open_file(target, imp.span)
                if more is not None:
                    stack.append((target, list(reversed(more))))
                    on_stack.add(target)
    found = [(name, frag) for name, frag in done.values() if frag is not None]
    return sorted(found, key=lambda nf: nf[0])
