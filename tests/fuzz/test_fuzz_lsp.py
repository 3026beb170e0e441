"""`kadmit lsp` on mutated inputs (tests/fuzz/lsp_case.py): no internal error, every request answered,
the diagnostics of an opened file `kadmit check`'s. Two fixed cases, a manifest and a `.kad` file;
bench/fuzz_lsp.py runs many more."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from .lsp_case import run_lsp_case
from .mutate import mutate, seeds

SEEDS = {s.name: s for s in seeds()}


@pytest.mark.parametrize("name, draw", [("features/tas-same-cycle-two-resources.yaml", 29),
                                         ("examples/ml-platform", 3)])
def test_mutated_inputs_in_the_editor(name: str, draw: int, tmp_path: Path) -> None:
    rng = random.Random(draw)
    files, what = mutate(SEEDS[name].files, rng)
    assert run_lsp_case(tmp_path / "c", files, rng, edits=1) == [], what
