"""Issue 19, item 3: how many lines `kadmit why` answers in, as a user runs it (a fresh process, its
human text with `$COLUMNS` set to `--columns`, 100 by default, as a terminal of that width gives it;
default options), on the bundled examples, on gpu_state(2000) and on Kueue's 15,000-workload perf shape
(`states.kueue_perf_state`, written as .kad files).

For each state the workloads asked about (on the bundled examples: every one `admit` leaves pending; on
gpu_state(2000): the six keys of gpu_bench.py, or a seeded sample of `--whys N`; on the perf shape a
seeded sample of medium ones), per `why` its lines, the rows a terminal of that width shows them in
(a line longer than the width takes more rows: what a text that does not wrap itself costs), the
longest line, its exit code and the process CPU time; then the largest and the median. `--src DIR` runs
another checkout's kadmit (e.g. a worktree of an older commit) for the baseline, in the same run when
`--baseline DIR` is given: the figures side by side. Targets printed beside: 40 lines on
gpu_state(2000). Nothing here asserts.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_lines.py [--columns 100] [--whys N] [--baseline DIR]
[--skip-large]`.
"""

from __future__ import annotations

import argparse
import json
import math
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
GPU_KEYS = ["team-00/train-00930", "team-03/job-run-00116-9499b", "team-04/train-01071", "team-05/train-00300",
            "team-05/train-00907", "team-09/train-00289"]  # gpu_bench.py's: three StrictFIFO, one preempted
COLUMNS = 100


def kadmit(src: Path, *args: str) -> tuple[str, int, float]:
    """`kadmit ARGS` in a fresh process on `src`'s code: (stdout, exit code, CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "kadmit", *args], capture_output=True, text=True, cwd=ROOT,
                       env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "COLUMNS": str(COLUMNS)})
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
                   "rows": sum(max(1, math.ceil(len(x) / COLUMNS)) for x in lines), "exit": code, "cpu_s": t}
            rows[name].append(row)
            shown.append(f"{name}: {row['lines']} lines, {row['rows']} rows, widest {row['widest']} "
                         f"({row['cpu_s']:.1f} s, exit {code})")
        print(f"   why {key}: " + "; ".join(shown), flush=True)
    return rows


def summary(title: str, rows: dict[str, list[dict]], target: int | None = None) -> None:
    for name, rs in rows.items():
        ls, rows_ = [r["lines"] for r in rs], [r["rows"] for r in rs]
        print(f"-> {title}, {name}: {len(rs)} whys, lines median {statistics.median(ls):g}, max {max(ls)}; "
              f"rows at {COLUMNS} columns median {statistics.median(rows_):g}, max {max(rows_)}; widest "
              f"{max(r['widest'] for r in rs)}" + (f" (target {target})" if target else ""), flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--columns", type=int, default=100, help="the terminal width ($COLUMNS)")
    p.add_argument("--whys", type=int, default=0, help="on gpu_state(2000): a seeded sample of N (0: GPU_KEYS)")
    p.add_argument("--skip-examples", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--src", type=Path, default=ROOT / "src")
    p.add_argument("--baseline", type=Path, help="another checkout's src/ to compare with")
    p.add_argument("--skip-large", action="store_true", help="leave out the 15,000-workload perf shape")
    a = p.parse_args(argv)
    global COLUMNS  # noqa: PLW0603 (kadmit() reads it)
    COLUMNS = a.columns
    srcs = {"now": a.src.resolve()}
    if a.baseline:
        srcs["baseline"] = a.baseline.resolve()
    for ex in [] if a.skip_examples else EXAMPLES:
        print(f"\n=== {ex.relative_to(ROOT)} ===", flush=True)
        rel = str(ex.relative_to(ROOT)) + "/"
        summary(rel, whys(srcs, rel, pending(srcs["now"], rel)))
    with tempfile.TemporaryDirectory(prefix="kadmit-why-lines-") as d:
        root = Path(d) / "gpu"
        gpu_states.write_state(gpu_states.gpu_state(2000, a.seed), root)
        print("\n=== gpu_state(2000) ===", flush=True)
        keys = random.Random(a.seed).sample(pending(srcs["now"], str(root)), a.whys) if a.whys else GPU_KEYS
        summary("gpu_state(2000)", whys(srcs, str(root), sorted(keys)), 40)
        if not a.skip_large:
            perf = Path(d) / "perf"
            gen.write_files(gen.kad_files(kueue_perf_state()), perf)
            print("\n=== kueue_perf_state(30, 5, 15,000), medium workloads ===", flush=True)
            medium = [k for k in pending(srcs["now"], str(perf)) if "/medium-" in k]
            keys = random.Random(a.seed).sample(medium, max(1, (a.whys or len(GPU_KEYS)) // 2))
            summary("kueue_perf_state", whys(srcs, str(perf), sorted(keys)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
