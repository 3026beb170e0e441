"""What strict field validation and the field-type check cost: reading Kueue's perf-state manifests with
and without `schema.check`, in the same run (ratio), and the check's walk alone over the parsed objects
(process CPU, best of 5: the part that grows with the check's work, apart from the load's noise).

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
from kadmit.diagnostics import Diagnostics
from kadmit.manifests import schema
from kadmit.manifests.yamltree import parse_documents


def timed(path: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        workspace.load([path])
        best = min(best, time.process_time() - t0)
    return best


def walk_alone(path: Path, repeat: int = 5) -> tuple[int, float]:
    """The objects and the CPU seconds of `check`'s first walk (`_all_known`, all a valid input costs)."""
    objects = []
    for file in sorted(path.rglob("*.yaml")):
        for doc in parse_documents(file.read_text(), str(file), Diagnostics()):
            if doc is None:
                continue
            group, _, version = doc.v["apiVersion"].v.rpartition("/")
            kind = doc.v["kind"].v
            objects.append((doc, schema.schema_for(group, version, kind), schema._is_crd(group, version, kind)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for doc, tree, crd in objects:
            if tree is not None:
                assert schema._all_known(doc, tree, ("status",), crd)
        best = min(best, time.process_time() - t0)
    return len(objects), best


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
        objects, walk = walk_alone(Path(tmp))
    print(f"{workloads} workloads, {size / 1e6:.1f} MB: load {checked:.2f} s CPU with strict field validation, "
          f"{unchecked:.2f} s without: x{checked / unchecked:.2f}; the check's walk alone over {objects} objects "
          f"{walk:.3f} s CPU ({walk / checked * 100:.1f}% of the load)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
