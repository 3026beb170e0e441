"""The reference is a second reading of Kueue, not a copy of the engine: it imports only the
shared input (the model, its index, the effective state, quantities) and itself."""

from __future__ import annotations

import ast
from pathlib import Path

import kadmit.reference

ALLOWED = ("kadmit.model", "kadmit.index", "kadmit.effective", "kadmit.quantity", "kadmit.reference")


def test_the_reference_imports_only_the_model_and_itself():
    folder = Path(kadmit.reference.__file__).parent
    outside = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.startswith("kadmit") and not any(name == a or name.startswith(a + ".") for a in ALLOWED):
                    outside.append(f"{path.name}:{node.lineno} imports {name}")
    assert outside == []
