"""Checks and decisions cost in proportion to the input: each hostile shape at n and 10n, with the
time ratio held well under what a quadratic walk would take (100x), generously for a busy machine."""

from __future__ import annotations

import time
from pathlib import Path

from kadmit import api

from . import hostile

LINEAR_RATIO = 30  # 10x the input: ~10x for linear work, ~100x for quadratic; fixed costs only lower it


def _seconds(run) -> float:
    t0 = time.perf_counter()
    run()
    return time.perf_counter() - t0


def _ratio(make, run, n: int, tmp_path: Path) -> tuple[float, float]:
    small, large = tmp_path / "small", tmp_path / "large"
    make(small, n)
    make(large, 10 * n)
    run(small)  # imports and caches warm up on the small input
    return _seconds(lambda: run(small)), _seconds(lambda: run(large))


def _chain(folder: Path, depth: int) -> None:
    hostile.write(folder, "chain.json", hostile.cohort_chain(depth))


def test_a_deep_cohort_chain_is_checked_decided_and_explained_in_linear_time(tmp_path: Path) -> None:
    def run(folder: Path) -> None:
        paths = [str(folder)]
        assert api.check(paths).exit_code == 0
        admitted = api.admit(paths)
        assert admitted.exit_code == 0 and admitted.result is not None
        why = api.why("t/big", paths)
        assert why.exit_code == 1 and why.result is not None and not why.result.admitted

    small, large = _ratio(_chain, run, 100, tmp_path)
    assert large < LINEAR_RATIO * max(small, 0.05), (small, large)


def test_a_cohort_chain_deeper_than_pythons_recursion_limit_is_decided(tmp_path: Path) -> None:
    _chain(tmp_path, 3000)
    got = api.admit([str(tmp_path)])
    decided = {d.key: d.admitted for d in got.result.decisions}
    assert decided == {"t/big": False, "t/mid": True}
