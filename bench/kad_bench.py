"""The `.kad` front end (issue 11 item 4): lines per second and peak memory as a multiple of the input.

Writes `states.kueue_perf_state(30, 5, 15000)` (Kueue's scheduler performance shape) as a `.kad` tree
and reads it with `workspace.load` (read, lower, merge, validate) in fresh processes, each reader beside
the other in the same run: the fast reader (`syntax.descent`, the default) and Lark for every file
(`syntax.lower.READER = "lark"`, the reference). Per reader: process time, lines per second, and the
peak resident memory (VmHWM) above the same process reading a one-object file, as a multiple of the
input's bytes. Targets printed beside the figures: 50,000 lines/s, under 20x. Nothing is asserted.

Run: `.venv/bin/python bench/kad_bench.py` (`--quick`: 1,500 workloads; `--state CQS,COHORTS,WORKLOADS`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import gen
from states import kueue_perf_state

_PROBE = """
import json, resource, sys, time
from kadmit import manifests, syntax, validate, workspace  # imported before the baseline is taken
from kadmit.syntax import lower
lower.READER = sys.argv[2]

def peak_kb():  # this process's own high-water mark (ru_maxrss would count the parent's, via exec)
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

t0 = time.process_time()
got = workspace.load([sys.argv[1]])
cpu = time.process_time() - t0
print(json.dumps({"peak_kb": peak_kb(), "cpu": cpu, "diagnostics": len(got.diagnostics),
                  "workloads": len(got.model.workloads)}))
"""


def probe(path: Path, reader: str) -> dict:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _PROBE, str(path), reader], capture_output=True, text=True,
                         check=True, env=env)
    return json.loads(out.stdout)


def run(cqs: int, cohorts: int, workloads: int, root: Path) -> dict:
    files = gen.kad_files(kueue_perf_state(cqs, cohorts, workloads))
    gen.write_files(files, root / "kad")
    nbytes = sum(len(t.encode()) for t in files.values())
    lines = gen.count_lines(files)
    (root / "tiny.kad").write_text("namespace tiny {}\n")
    print(f"kueue_perf_state({cqs}, {cohorts}, {workloads:,}) as .kad: {len(files)} files, {lines:,} lines, "
          f"{nbytes / 1e6:.2f} MB")
    out = {}
    for reader in ("fast", "lark"):
        base = probe(root / "tiny.kad", reader)
        got = probe(root / "kad", reader)
        grown = max(0, got["peak_kb"] - base["peak_kb"]) * 1024
        out[reader] = {"s": got["cpu"], "lines_per_s": lines / got["cpu"], "memory_x": grown / nbytes}
        print(f"  {reader:4}: {got['cpu']:6.2f} s  {lines / got['cpu']:>8,.0f} lines/s (target 50,000)  "
              f"peak {got['peak_kb'] / 1024:,.0f} MB, {grown / 1e6:,.1f} MB above reading one object = "
              f"{grown / nbytes:.1f}x the input (target under 20x); {got['workloads']:,} workloads, "
              f"{got['diagnostics']} diagnostics")
    print(f"  fast / lark: {out['lark']['s'] / out['fast']['s']:.2f}x the speed, "
          f"{out['fast']['memory_x'] / out['lark']['memory_x']:.2f}x the memory")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1,500 workloads")
    p.add_argument("--state", help="CQS,COHORTS,WORKLOADS (default 30,5,15000)")
    a = p.parse_args(argv)
    state = (6, 2, 1500) if a.quick else (30, 5, 15000)
    if a.state:
        state = tuple(int(x) for x in a.state.split(","))
    with tempfile.TemporaryDirectory(prefix="kadmit-kad-bench-") as d:
        run(*state, Path(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
