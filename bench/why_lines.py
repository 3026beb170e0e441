"""Issue 19, item 3: how many lines `kadmit why` answers in, as a user runs it (a fresh process, its
human text on a pipe, default options), on the bundled examples, on gpu_state(2000) and on Kueue's
15,000-workload perf shape (`states.kueue_perf_state`, written as .kad files).

For each state, a seeded sample of the workloads `admit` leaves pending (on the bundled examples:
every one), per `why` its lines, the longest line, its exit code and the process CPU time; then the
largest and the median. `--src DIR` runs another checkout's kadmit (e.g. a worktree of an older commit)
for the baseline, in the same run when `--baseline DIR` is given: the figures side by side.
Targets printed beside: 40 lines on gpu_state(2000). Nothing here asserts.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_lines.py [--whys 6] [--baseline DIR] [--skip-large]`.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import gen
import gpu_states
from states import kueue_perf_state

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [ROOT / "examples" / "ml-platform", ROOT / "examples" / "ml-platform-kueue"]


def kadmit(src: Path, *args: str) -> tuple[str, int, float]:
    """`kadmit ARGS` in a fresh process on `src`'s code: (stdout, exit code, CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "kadmit", *args], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "COLUMNS": "200"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p.stdout, p.returncode, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def pending(src: Path, path: str) -> list[str]:
    out, code, _ = kadmit(src, "admit", path, "--format", "json")
    assert code in (0, 1), out[:500]
    return sorted(d["workload"] for d in json.loads(out)["decisions"] if not d["admitted"])


def whys(srcs: dict[str, Path], path: str, keys: list[str]) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {name: [] for name in srcs}
    for key in keys:
        shown = []
        for name, src in srcs.items():
            out, code, t = kadmit(src, "why", key, path)
            lines = out.splitlines()
            row = {"key": key, "lines": len(lines), "widest": max((len(x) for x in lines), default=0),
                   "exit": code, "cpu_s": t}
            rows[name].append(row)
            shown.append(f"{name}: {row['lines']} lines ({row['cpu_s']:.1f} s, exit {code})")
        print(f"   why {key}: " + "; ".join(shown), flush=True)
    return rows


def summary(title: str, rows: dict[str, list[dict]], target: int | None = None) -> None:
    for name, rs in rows.items():
        ls = [r["lines"] for r in rs]
        print(f"-> {title}, {name}: {len(rs)} whys, lines median {statistics.median(ls):g}, max {max(ls)}"
              + (f" (target {target})" if target else ""), flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--whys", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--src", type=Path, default=ROOT / "src")
    p.add_argument("--baseline", type=Path, help="another checkout's src/ to compare with")
    p.add_argument("--skip-large", action="store_true", help="leave out the 15,000-workload perf shape")
    a = p.parse_args(argv)
    srcs = {"now": a.src.resolve()}
    if a.baseline:
        srcs["baseline"] = a.baseline.resolve()
    for ex in EXAMPLES:
        print(f"\n=== {ex.relative_to(ROOT)} ===", flush=True)
        rel = str(ex.relative_to(ROOT)) + "/"
        summary(rel, whys(srcs, rel, pending(srcs["now"], rel)))
    with tempfile.TemporaryDirectory(prefix="kadmit-why-lines-") as d:
        root = Path(d) / "gpu"
        gpu_states.write_state(gpu_states.gpu_state(2000, a.seed), root)
        print("\n=== gpu_state(2000) ===", flush=True)
        keys = random.Random(a.seed).sample(pending(srcs["now"], str(root)), a.whys)
        summary("gpu_state(2000)", whys(srcs, str(root), sorted(keys)), 40)
        if not a.skip_large:
            perf = Path(d) / "perf"
            gen.write_files(gen.kad_files(kueue_perf_state()), perf)
            print("\n=== kueue_perf_state(30, 5, 15,000), medium workloads ===", flush=True)
            medium = [k for k in pending(srcs["now"], str(perf)) if "/medium-" in k]
            keys = random.Random(a.seed).sample(medium, max(1, a.whys // 2))
            summary("kueue_perf_state", whys(srcs, str(perf), sorted(keys)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
