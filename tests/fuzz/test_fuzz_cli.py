"""The CLI fuzz, bounded: a few mutated real inputs through check, admit, why and fmt (tests/fuzz/runner.py's
findings must be none). bench/fuzz_cli.py runs every verb on many more."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .mutate import mutate, seeds
from .runner import run_case

SEEDS = seeds()
SMALL = [s for s in SEEDS if sum(len(t) for t in s.files.values()) < 6000]


def test_the_seeds_cover_every_source() -> None:
    names = {s.name.split("/")[0] for s in SEEDS}
    assert names == {"examples", "features", "upstream", "syntax"}
    assert len(SMALL) > 100


@pytest.mark.parametrize("name", ["examples/ml-platform", "examples/ml-platform-kueue"])
def test_the_examples_unmutated_have_no_findings(name: str, tmp_path: Path) -> None:
    seed = next(s for s in SEEDS if s.name == name)
    out = run_case(tmp_path, seed.files, seed.files, whys=1, again=False,
                   verbs={"check", "admit-json", "why", "fmt"}, rng=random.Random(0))
    assert out.findings == []
    assert {c.verb for c in out.calls} >= {"check", "admit-json", "why"}


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, len(SMALL) - 1), draw=st.integers(0, 2 ** 32))
def test_mutated_inputs_neither_crash_hang_nor_contradict(which: int, draw: int, tmp_path: Path) -> None:
    rng = random.Random(draw)
    seed = SMALL[which]
    files, what = mutate(seed.files, rng)
    out = run_case(tmp_path / "w", seed.files, files, timeout=60, whys=1,
                   verbs={"check", "admit", "admit-json", "why", "fmt"}, rng=rng)
    assert out.findings == [], (seed.name, what)
