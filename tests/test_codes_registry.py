"""Every code any command can print is registered in a stage's `codes` module, listed by `kadmit
codes` and documented in docs/codes.md; registering them imports the `codes` modules, nothing else
of the engine (no solver)."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

from kadmit.diagnostics import all_codes, load_all_codes

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "kadmit"
CODE = re.compile(r"\bKAD\d{3}\b")
RANGE = re.compile(r"KAD\d{3}\s*[-–]\s*KAD\d{3}")  # "KAD150-KAD199": a range named in prose


@functools.lru_cache(maxsize=1)
def _trees() -> list[tuple[Path, ast.AST]]:
    """The source files that write a code (`KAD` in their text: a third of them), parsed once for the module."""
    texts = [(path, path.read_text()) for path in sorted(SRC.rglob("*.py"))]
    return [(path, ast.parse(text, str(path))) for path, text in texts if "KAD" in text]


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _source_codes() -> dict[str, str]:
    """Every code written in a string of the source (docstrings and prose ranges aside), and where."""
    found: dict[str, str] = {}
    for path, tree in _trees():
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                for code in CODE.findall(RANGE.sub("", node.value)):
                    found.setdefault(code, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@functools.lru_cache(maxsize=1)
def _registrations() -> list[tuple[str, str]]:
    """(code, module file) of every `register("KAD…", …)` call."""
    out = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "register"
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and CODE.fullmatch(str(node.args[0].value))):
                out.append((node.args[0].value, str(path.relative_to(SRC))))
    return out


def test_codes_are_registered_in_codes_modules_only() -> None:
    wrong = [(c, f) for c, f in _registrations() if f != "diagnostics.py" and not f.endswith("codes.py")]
    assert wrong == []


def test_every_code_in_the_source_is_registered_and_documented() -> None:
    load_all_codes()
    registered = {c.code for c in all_codes()}
    documented = set(re.findall(r"^\| (KAD\d{3}) \|", (ROOT / "docs" / "codes.md").read_text(), re.M))
    used = _source_codes()
    assert {c: at for c, at in used.items() if c not in registered} == {}
    assert registered - documented == set()
    assert {c for c, _ in _registrations()} <= registered


def test_kadmit_codes_lists_every_code_without_loading_the_solver() -> None:
    script = ("import sys; from kadmit.cli import main; sys.argv = ['kadmit', 'codes'];\n"
              "try:\n    main()\nexcept SystemExit:\n    pass\n"
              "print('SOLVER' if {'z3', 'ortools'} & set(sys.modules) else 'NO SOLVER')")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT / "src")}).stdout.splitlines()
    assert out[-1] == "NO SOLVER"
    listed = {line.split()[0] for line in out[:-1] if line.startswith("KAD")}
    assert set(_source_codes()) <= listed
    assert {"KAD501", "KAD510", "KAD524", "KAD535"} <= listed
