"""Two trees' reading of Kueue's perf shape, in one run: `kueue_perf_state` written as one manifest file (as
scale_bench.py writes it), then, in fresh subprocesses taking the trees in turn (A B, B A, ...), process time of
PyYAML's C loader, `workspace.load` and `api.admit` on it (each the least of a few tries), and their ratios to
the C loader. For a change of the read path measured before and after on a busy machine: each tree's own C
loader time is the unit, and the two trees run side by side.

    git archive REV src bench | tar -x -C /tmp/before     # the tree before the change
    PYTHONPATH=src:bench .venv/bin/python bench/read_ab.py /tmp/before/src src [--workloads 5000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import scale_bench

_PROBE = r'''
import gc, json, sys, time, yaml
import kadmit.engine.decide, kadmit.manifests, kadmit.syntax, kadmit.validate  # imported before timing
from kadmit import api, workspace
path, tries = sys.argv[1], int(sys.argv[2])
text = open(path).read()
def t(fn):
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0
c = min(t(lambda: sum(1 for _ in yaml.load_all(text, Loader=yaml.CSafeLoader))) for _ in range(tries))
load = min(t(lambda: workspace.load([path])) for _ in range(tries))
admit = min(t(lambda: api.admit([path])) for _ in range(max(1, tries - 1)))
print(json.dumps({"c": c, "load": load, "admit": admit}))
'''


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before", help="the src folder of one tree")
    p.add_argument("after", help="the src folder of the other")
    p.add_argument("--workloads", type=int, default=5000, help="kueue_perf_state(30, 5, N)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tries", type=int, default=3, help="per process: the least of this many")
    a = p.parse_args(argv)
    trees = [str(Path(a.before).resolve()), str(Path(a.after).resolve())]
    runs: dict[str, list[dict]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory(prefix="kadmit-read-ab-") as d:
        path, *_ = scale_bench.write_state(30, 5, a.workloads, Path(d))
        print(f"kueue_perf_state(30, 5, {a.workloads:,}): {path.stat().st_size / 1e6:.1f} MB")
        for r in range(a.rounds):
            for tree in trees if r % 2 == 0 else trees[::-1]:
                out = subprocess.run([sys.executable, "-c", _PROBE, str(path), str(a.tries)], capture_output=True,
                                     text=True, check=True, env={"PYTHONPATH": tree, "PATH": "/usr/bin:/bin"})
                runs[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for name, tree in zip(("before", "after"), trees):
        rs = runs[tree]
        c, load, admit = (min(x[k] for x in rs) for k in ("c", "load", "admit"))
        per_load = " ".join(f"{x['load'] / x['c']:.3f}" for x in rs)
        per_admit = " ".join(f"{x['admit'] / x['c']:.3f}" for x in rs)
        print(f"{name}: C loader {c:.2f} s, load {load:.2f} s = {load / c:.3f}x, admit {admit:.2f} s = {admit / c:.3f}x "
              f"(per round: load {per_load}; admit {per_admit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
