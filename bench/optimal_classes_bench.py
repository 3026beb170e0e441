"""Process CPU of building optimal mode's placement model (NodePool + PlacementModel: Kueue's leaves,
their classes, the pools' constraints) on `tas_states.gpu_gang_state()` (5,000 nodes, 500 gangs).

    PYTHONPATH=src:bench .venv/bin/python bench/optimal_classes_bench.py [--repeats 3]

Compare two trees by pointing PYTHONPATH's first entry at each one's `src` (same machine, interleaved).
"""

from __future__ import annotations

import argparse
import time

from tas_states import gpu_gang_state

from kadmit.engine.optimal.model import build_global
from kadmit.engine.optimal.placement import PlacementModel
from kadmit.engine.placing.pool import NodePool


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    model = gpu_gang_state()[0]
    gm = build_global(model, [w for w in model.workloads if not w.admitted])
    t0 = time.process_time()
    for _ in range(args.repeats):
        pm = PlacementModel(NodePool(model, gm.compiler.index), gm.compiler.index, gm.problems)
    cpu = (time.process_time() - t0) / args.repeats
    print(f"classes {len(pm.classes)}, pools {len(pm.groups)}, constraints {len(pm.hard)}: "
          f"{cpu:.3f} s process CPU per build")


if __name__ == "__main__":
    main()
