"""Issue 19: `admit` and `why` where preemption is real (bench/gpu_states.py), and the CLI's start-up.

For `gpu_state(N)` (2,000 Jobs; `--large` adds 15,000) written to a temporary folder, in this process,
process time (CPU), so that other work on a shared machine skews little:
1. `workspace.load` and `api.admit` end to end (as `kadmit admit` runs it);
2. `api.why` end to end with proven fixes (as `kadmit why` runs it) for `--whys` pending workloads
   drawn with a seed from the admit run, among them the StrictFIFO queues' (whose fixes search their
   blocking head too): per why its time, re-decisions and fixes, and the time from its decision (the
   run of the workload's cohort tree) to its first lines (what a terminal shows first: the decision,
   what it needs and can reach, its place in line) and to its explanation (reasons and blame);
   median, p95 and max;
3. start-up: `kadmit check`, `admit` and `why` in a fresh process on a one-Job manifest file and on
   the bundled example (`examples/ml-platform-kueue`), the least CPU of `--repeats` runs.
Targets printed beside the figures: admit <= 3 s and why <= 10 s at 2,000 Jobs; why <= 30 s at 15,000;
decision to first lines <= 1 s; start-up <= 0.4 s. Nothing here asserts a time.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/gpu_bench.py [--large] [--whys 6] [--quick]`;
`--jobs 2000 --keys team-00/train-00930,... --no-startup` times the named whys only (of one state),
`PYTHONPATH=OTHER/src:bench` another tree's (the before of a change).
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
import time
from pathlib import Path

import gpu_states

import kadmit.engine.decide  # noqa: F401 -- imported up front: first use is not what is measured
import kadmit.engine.explain.part  # noqa: F401 -- (`why`'s own modules)
import kadmit.manifests  # noqa: F401
import kadmit.validate  # noqa: F401
from kadmit import api, workspace
from kadmit.engine import decide

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ml-platform-kueue"
ONE_JOB = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 10}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: default, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {parallelism: 2, template: {spec: {restartPolicy: Never, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}}
"""


def cpu(fn):
    t0 = time.process_time()
    got = fn()
    return time.process_time() - t0, got


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def timed_why(key: str, paths: list[str]) -> dict:
    """`api.why` end to end, and when its decision and its explanation were ready (process time); how much
    of it went to loading the input and to proving fixes (as scale_bench.py's `why_phases` splits it)."""
    from kadmit.engine.explain import part
    marks: dict[str, float] = {}
    spent = {"load": 0.0, "prove": 0.0}
    run, explain = decide.decide_ordered, decide.explain_decision
    load, prove = api.load_for_engine, part.prove_fixes

    def timed(name, fn):
        def go(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.process_time() - t0
        return go

    def first_run(*a, **k):
        got = run(*a, **k)
        marks.setdefault("decided", time.process_time())
        return got

    def explained(*a, **k):
        got = explain(*a, **k)
        marks.setdefault("explained", time.process_time())
        return got
    def stage(what, result, loaded):  # what `kadmit why` on a terminal shows before proving fixes
        marks.setdefault("first", time.process_time())
    decide.decide_ordered, decide.explain_decision = first_run, explained
    api.load_for_engine, part.prove_fixes = timed("load", load), timed("prove", prove)
    try:
        t0 = time.process_time()
        out = api.why(key, paths, stages=stage)
        total = time.process_time() - t0
    finally:
        decide.decide_ordered, decide.explain_decision = run, explain
        api.load_for_engine, part.prove_fixes = load, prove
    r = out.result
    return {"key": key, "s": total, "exit": out.exit_code, "load_s": spent["load"], "prove_s": spent["prove"],
            "to_first": marks.get("first", t0) - marks.get("decided", t0),
            "to_explained": marks.get("explained", t0) - marks.get("decided", t0),
            "redecisions": getattr(r, "fixes_checked", None) or 0, "refused": getattr(r, "fixes_refused", 0),
            "fixes": len(getattr(r, "fixes", []) or [])}


def run_state(jobs: int, whys: int, seed: int, named: list[str] | None = None) -> dict:
    print(f"\n=== gpu_state({jobs:,}) ===", flush=True)
    with tempfile.TemporaryDirectory(prefix="kadmit-gpu-bench-") as d:
        root = Path(d)
        gpu_states.write_state(gpu_states.gpu_state(jobs, seed), root)
        paths = [str(root)]
        t_load, loaded = cpu(lambda: workspace.load(paths))
        assert not loaded.diagnostics.has_errors, [str(x) for x in loaded.diagnostics][:3]
        del loaded
        t_admit, outcome = cpu(lambda: api.admit(paths))
        decided = outcome.result.decisions
        pending = sorted(x.key for x in decided if not x.admitted)
        print(f"1. load {t_load:.2f} s; admit {t_admit:.2f} s (target 3 s at 2,000): {len(decided):,} decided, "
              f"{sum(x.admitted for x in decided):,} admitted, "
              f"{sum(1 for x in decided if x.preempted_by)} preempted, exit {outcome.exit_code}", flush=True)
        strict = sorted(k for k in pending if k.split("/")[0] in ("team-00", "team-05"))
        rnd = random.Random(seed)
        keys = rnd.sample(pending, min(whys, len(pending)))
        keys = sorted(set(keys[: max(1, whys - 1)]) | set(rnd.sample(strict, min(1, len(strict)))))
        if named:
            keys = [k for k in named if k in set(pending)]
            if len(keys) < len(named):
                print(f"   not pending here: {', '.join(sorted(set(named) - set(keys)))}", flush=True)
        del outcome, decided
        rows = []
        for key in keys:
            row = timed_why(key, paths)
            rows.append(row)
            print(f"   why {key}: {row['s']:.2f} s (load {row['load_s']:.2f} s, prove fixes {row['prove_s']:.2f} s), "
                  f"decision to first lines {row['to_first']:.2f} s, "
                  f"to explanation {row['to_explained']:.2f} s, "
                  f"{row['redecisions']} re-decisions ({row['refused']} more refused by arithmetic), "
                  f"{row['fixes']} fixes, exit {row['exit']}", flush=True)
        ts = [r["s"] for r in rows]
        print(f"2. why, {len(rows)} workloads: median {statistics.median(ts):.2f} s, p95 {p95(ts):.2f} s, "
              f"max {max(ts):.2f} s (target {10 if jobs <= 2000 else 30} s); decision to first lines max "
              f"{max(r['to_first'] for r in rows):.2f} s (target 1 s), to explanation max "
              f"{max(r['to_explained'] for r in rows):.2f} s", flush=True)
        return {"jobs": jobs, "load_s": t_load, "admit_s": t_admit, "whys": rows}


def startup(repeats: int) -> dict:
    """The least CPU of `repeats` fresh `kadmit` processes per verb and input."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="kadmit-startup-") as d:
        one = Path(d) / "one.yaml"
        one.write_text(ONE_JOB)
        runs = [("check", [str(one)]), ("admit", [str(one)]), ("why", ["default/j", str(one)]),
                ("check", [str(EXAMPLE)]), ("admit", [str(EXAMPLE)]), ("why", ["team-infra/gpu-smoke", str(EXAMPLE)])]
        for verb, args in runs:
            best = None
            for _ in range(repeats):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([sys.executable, "-m", "kadmit", verb, *args], capture_output=True, cwd=ROOT)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                best = t if best is None else min(best, t)
            what = "one Job" if args[-1] == str(one) else "the example"
            out[f"{verb} {what}"] = best
            print(f"3. kadmit {verb} on {what}: {best:.2f} s of CPU (least of {repeats}; target 0.4 s)", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--large", action="store_true", help="also gpu_state(15000)")
    p.add_argument("--quick", action="store_true", help="gpu_state(400), two whys, one start-up run")
    p.add_argument("--whys", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", type=Path, help="also write the figures here")
    p.add_argument("--jobs", type=int, help="this state only (gpu_state(JOBS))")
    p.add_argument("--keys", help="comma-separated workloads to ask why about (instead of a draw)")
    p.add_argument("--no-startup", action="store_true", help="leave out step 3")
    a = p.parse_args(argv)
    sizes = [400] if a.quick else [2000] + ([15000] if a.large else [])
    if a.jobs:
        sizes = [a.jobs]
    whys = 2 if a.quick else a.whys
    named = a.keys.split(",") if a.keys else None
    figures = {"states": [run_state(n, whys, a.seed, named) for n in sizes],
               "startup": {} if a.no_startup else startup(1 if a.quick else a.repeats)}
    if a.json:
        a.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
