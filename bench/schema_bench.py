"""What strict field validation costs: reading Kueue's perf-state manifests with and without the
known-field check, in the same run (ratio).

    PYTHONPATH=src:bench python bench/schema_bench.py [workloads]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import gen
from states import kueue_perf_state

from kadmit import workspace
from kadmit.manifests import schema


def timed(path: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        workspace.load([path])
        best = min(best, time.perf_counter() - t0)
    return best


def main(workloads: int = 3000) -> None:
    model = kueue_perf_state(30, 10, workloads)
    with tempfile.TemporaryDirectory() as tmp:
        gen.write_files(gen.manifest_files(model), Path(tmp))
        size = sum(p.stat().st_size for p in Path(tmp).rglob("*.yaml"))
        checked = timed(tmp)
        original = schema.check
        schema.check = lambda *a, **k: 0
        try:
            unchecked = timed(tmp)
        finally:
            schema.check = original
    print(f"{workloads} workloads, {size / 1e6:.1f} MB: load {checked:.2f} s with strict field validation, "
          f"{unchecked:.2f} s without: x{checked / unchecked:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
