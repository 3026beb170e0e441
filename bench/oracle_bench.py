"""kadmit's `admit` against Kueue's own scheduler on the same states (issue 18, item 6).

Kueue's answer comes from the Kueue oracle (tools/kueue-oracle: Kueue v0.17.0's scheduler, queue
manager and controllers in process over a fake API client), run on the very files kadmit reads:

- Kueue's scheduler performance shape (states.kueue_perf_state: 30 queues in 5 cohorts, 15,000
  pending workloads of 1/5/20 cpu), written as manifests by gen.manifest_files;
- a preempting GPU cluster as users submit it (bench/gpu_states.py: 2,000 batch Jobs over 10
  preempting queues, some already admitted), when that generator is present.

Figures are process CPU time, measured in this run: kadmit's reading and deciding in this process
(`api.load_for_engine`, then the engine's `decide.admit` on what was read, as `api.admit` runs it); the oracle's
own report of its loading (reading, defaulting, the fake client, Kueue's caches and the job
integrations) and of its scheduling (the cycles and the controllers between them), and its whole
process time. The ratios are kadmit's deciding to Kueue's scheduling, and end to end. The number
of workloads on which the two disagree is printed too (tests/oracle/ holds the differences).
Nothing here asserts a time. Run: `.venv/bin/python bench/oracle_bench.py [--quick | --gpu-jobs N]`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import gen  # noqa: E402
from states import kueue_perf_state  # noqa: E402

import kadmit.engine.decide  # noqa: E402,F401 -- imported up front: first use is not what is measured
import kadmit.manifests  # noqa: E402,F401
from kadmit import api  # noqa: E402
from kadmit.render.decisions import admit_dict  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary  # noqa: E402


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def kadmit_side(paths: list[str]) -> tuple[float, float, dict]:
    """(reading, deciding) CPU seconds and admit's JSON, as `api.admit` runs them."""
    from kadmit import workspace
    from kadmit.engine.decide import admit as decide_all
    from kadmit.engine.solver.z3backend import Limits
    from kadmit.scope import decidable

    t0 = time.process_time()
    loaded = api.load_for_engine(paths)
    scoped = decidable(loaded.workspace.model, loaded.diagnostics, loaded.workspace.input_error)
    read = time.process_time() - t0
    if scoped is None:
        return read, 0.0, {}
    model, held = scoped
    t0 = time.process_time()
    with workspace.long_lived():
        result = decide_all(model, "ordered", Limits())
    decide = time.process_time() - t0
    return read, decide, admit_dict(result, tuple(model.skipped) + tuple(held))


def oracle_side(binary: str, paths: list[str]) -> tuple[float, dict]:
    """The oracle's whole process CPU seconds and its JSON."""
    before = children_cpu()
    proc = subprocess.run([binary, "admit", "--format", "json", *paths], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"kueue-oracle failed:\n{proc.stderr[-2000:]}")
    return children_cpu() - before, json.loads(proc.stdout)


def states(quick: bool, gpu_jobs: int | None = None):
    if gpu_jobs is not None:
        from gpu_states import gpu_state
        yield f"gpu {gpu_jobs:,} jobs", gpu_state(gpu_jobs)
        return
    if quick:
        yield "perf 6 queues / 600 workloads", gen.manifest_files(kueue_perf_state(6, 2, 600))
    else:
        yield "perf 30 queues / 15,000 workloads", gen.manifest_files(kueue_perf_state())
    try:
        from gpu_states import gpu_state
    except ImportError:
        print("(bench/gpu_states.py is not here yet: the preempting GPU state is left out)")
        return
    # quick: 300 Jobs over 4 queues in 1 cohort, about 200 of them pending (gpu_state(200) of 10 queues
    # has no pending Job: its ~280 admitted ones fill it, so it decided nothing)
    yield (("gpu 300 jobs, 4 queues", gpu_state(300, 0, 4, 1)) if quick else ("gpu 2,000 jobs", gpu_state(2000)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small states")
    parser.add_argument("--gpu-jobs", type=int, metavar="N",
                        help="only gpu_state(N) (e.g. 15000, issue 19's large state)")
    args = parser.parse_args(argv)
    binary = oracle_binary()
    print(f"{'state':36} {'kadmit read':>11} {'decide':>8} {'total':>8} | {'Kueue load':>10} {'schedule':>9} "
          f"{'process':>8} | {'decide/sched':>12} {'total/total':>11} | differ")
    for name, files in states(args.quick, args.gpu_jobs):
        with tempfile.TemporaryDirectory() as tmp:
            gen.write_files(files, Path(tmp))
            paths = [tmp]
            read, decide, kjson = kadmit_side(paths)
            whole = read + decide
            oproc, ojson = oracle_side(binary, paths)
        load, sched = ojson["oracle"]["load_cpu_seconds"], ojson["oracle"]["schedule_cpu_seconds"]
        differ = len(compare(from_kadmit(kjson), from_oracle(ojson)).differ) if kjson else "?"
        print(f"{name:36} {read:10.2f}s {decide:7.2f}s {whole:7.2f}s | {load:9.2f}s {sched:8.2f}s {oproc:7.2f}s | "
              f"{decide / sched if sched else float('nan'):11.2f}x {whole / oproc:10.2f}x | {differ}")
        print(f"{'':36} Kueue: {ojson['oracle']['cycles']} cycles ({ojson['oracle']['stop']}); "
              f"decisions {len(ojson['decisions'])} (kadmit {len(kjson.get('decisions', []))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
