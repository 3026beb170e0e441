"""`kadmit lsp` on one mutated input (tests/fuzz/test_fuzz_lsp.py, bench/fuzz_lsp.py): a server
started over a folder of the mutated files, each text file opened as written, then edited as typed
(a line cut, dropped or doubled), with hover, definition, references, completion, code actions,
code lens and formatting asked at a few places. Findings: an internal error the server logged (an
exception it caught: a bug), a request or publication that never came, the server not ending cleanly,
and the diagnostics of an opened file differing from `kadmit check`'s of the same files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

LSP_TESTS = Path(__file__).resolve().parents[1] / "lsp"
if str(LSP_TESTS) not in sys.path:
    sys.path.insert(0, str(LSP_TESTS))

from lsp_editor import Editor  # noqa: E402

_spec = importlib.util.spec_from_file_location("lsp_conftest", LSP_TESTS / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
checked, key = _conftest.checked, _conftest.key

TEXT = (".kad", ".yaml", ".yml", ".json")


def _places(text: str, rng, n: int = 4) -> list[tuple[int, int]]:
    lines = text.split("\n")
    out = [(0, 0), (len(lines) + 3, 7)]
    for _ in range(n):
        i = rng.randrange(len(lines))
        out.append((i, rng.randrange(len(lines[i]) + 2)))
    return out


def _typed(text: str, rng) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    how = rng.choice(["cut", "drop", "double", "join"])
    if how == "cut":
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    elif how == "drop":
        del lines[i]
    elif how == "double":
        lines.insert(i, lines[i])
    elif i + 1 < len(lines):
        lines[i:i + 2] = [lines[i] + lines[i + 1]]
    return "\n".join(lines)


def run_lsp_case(base: Path, files: dict[str, str | bytes], rng, *, edits: int = 2, compare: bool = True) -> list[str]:
    """Findings of `kadmit lsp` over `files` written to `base`/ws (`base` must be new)."""
    ws = base / "ws"
    ws.mkdir(parents=True)
    for name, text in files.items():
        (ws / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    found: list[str] = []
    ed = Editor(ws, cwd=base)
    try:
        opened = {}
        for name in sorted(files):
            text = files[name]
            if isinstance(text, bytes) or not name.endswith(TEXT):
                continue
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: no editor holds it as text
                continue
            opened[name] = (ed.open(ws / name, text), text)
        expected = checked(ws, base) if compare else {}
        for name, (uri, text) in opened.items():
            try:
                got = ed.diagnostics(uri, ed.versions[uri], timeout=120)
            except TimeoutError:
                found.append(f"no diagnostics published for {name} as opened")
                continue
            if compare and sorted(map(key, got)) != sorted(expected.get(uri, [])):
                mine, theirs = set(map(key, got)), set(expected.get(uri, []))
                found.append(f"{name}: the server's diagnostics differ from check's: only the server's "
                             f"{sorted(mine - theirs)[:2]}, only check's {sorted(theirs - mine)[:2]}"[:600])
        for name, (uri, text) in opened.items():
            for _ in range(edits):
                text = _typed(text, rng)
                version = ed.change(uri, text)
                for line, char in _places(text, rng):
                    ed.hover(uri, line, char)
                    ed.definition(uri, line, char)
                    ed.references(uri, line, char)
                    ed.completion(uri, line, char)
                    ed.code_actions(uri, (line, char))
                ed.code_lens(uri)
                ed.formatting(uri)
                try:
                    ed.diagnostics(uri, version, timeout=120)
                except TimeoutError:
                    found.append(f"no diagnostics published for {name} after an edit")
        found += [f"internal error: {e[:500]}" for e in ed.errors()]
    except TimeoutError as e:
        found.append(f"no answer: {e}")
    finally:
        try:
            code = ed.stop()
        except Exception as e:  # noqa: BLE001 - the harness reports a server it could not stop
            found.append(f"the server did not stop: {type(e).__name__}: {e}")
        else:
            if code != 0:
                found.append(f"the server ended with exit {code}")
    return found
