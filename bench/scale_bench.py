"""Scale (issue 11): `kadmit admit` against reading the input, and each front end's speed and memory.

For each state of `states.kueue_perf_state` (Kueue's scheduler performance shape), written as one
manifest file and as a `.kad` tree:
1. PyYAML's C loader on the file (`yaml.load_all(text, Loader=CSafeLoader)`), then `workspace.load`
   (manifests with positions) and `api.admit` end to end on the same file, in this process; process
   time (CPU), so other work on a shared machine doesn't skew the ratios. Targets: loading within
   1.3x the C loader, admit within 2x (3x at 1,000 queues). Then `api.why` end to end on the same
   file for one pending workload (`--why`), with proven fixes, as `kadmit why` runs it: its time as
   a ratio to the C loader, split into loading, deciding and explaining, and proving fixes.
2. Per front end, in a fresh subprocess: lines per second and peak resident memory (VmHWM) above
   the same front end reading a one-object file, as a multiple of the input's size
   (target: under 20x; `.kad` at 50,000 lines/s or more).
Nothing here asserts a time. Run: `.venv/bin/python bench/scale_bench.py` (`--large` adds
(1000, 50, 50,000); `--quick` is small).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

import gen
from states import kueue_perf_state

import kadmit.engine.decide  # noqa: F401 -- imported up front: first use is not what is measured
import kadmit.engine.explain.part  # noqa: F401 -- (`why`'s own modules)
import kadmit.manifests  # noqa: F401
import kadmit.syntax  # noqa: F401
import kadmit.validate  # noqa: F401
from kadmit import api, workspace

BASE = (30, 5, 15_000)
LARGE = (1000, 50, 50_000)
QUICK = (6, 2, 600)
WHY = "ns-0028/medium-006898"  # pending in the baseline state (the why_bench profile's workload)

_PROBE = """
import json, resource, sys, time
from kadmit import manifests, syntax, validate, workspace  # imported before the baseline is taken

def peak_kb():  # this process's own high-water mark (ru_maxrss would count the parent's, via exec)
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

t0 = time.process_time()
limits = workspace.Limits(max_file_bytes=int(sys.argv[2]))
got = None if sys.argv[1] == "-" else workspace.load([sys.argv[1]], limits=limits)
cpu = time.process_time() - t0
print(json.dumps({"peak_kb": peak_kb(), "cpu": cpu, "diagnostics": len(got.diagnostics) if got else 0}))
"""


def cpu(fn):
    t0 = time.process_time()
    got = fn()
    return time.process_time() - t0, got


def write_state(cqs: int, cohorts: int, workloads: int, root: Path) -> tuple[Path, Path, int, int]:
    """The state as one manifest file and as a `.kad` tree; their sizes in bytes and `.kad` lines."""
    model = kueue_perf_state(cqs, cohorts, workloads)
    files = gen.manifest_files(model)
    one = root / "state.yaml"
    one.write_text("\n---\n".join(t.strip().removeprefix("---\n") for _, t in sorted(files.items())) + "\n")
    kad = gen.kad_files(model)
    gen.write_files(kad, root / "kad")
    kad_bytes = sum(len(t.encode()) for t in kad.values())
    return one, root / "kad", kad_bytes, gen.count_lines(kad)


def probe(path: str, max_bytes: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE, path, str(max_bytes)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def why_phases(key: str, paths: list[str], max_bytes: int) -> tuple[float, dict, object]:
    """`api.why` end to end in process time, and how much of it went to loading and to proving fixes."""
    from kadmit.engine.explain import part
    spent = {"load": 0.0, "prove": 0.0}
    load, prove = api.load_for_engine, part.prove_fixes

    def timed(name, fn):
        def run(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.process_time() - t0
        return run
    api.load_for_engine, part.prove_fixes = timed("load", load), timed("prove", prove)
    try:
        t, outcome = cpu(lambda: api.why(key, paths, max_file_bytes=max_bytes))
    finally:
        api.load_for_engine, part.prove_fixes = load, prove
    return t, spent, outcome


def run_state(cqs: int, cohorts: int, workloads: int, root: Path, why: str | None = None) -> dict:
    print(f"\n=== kueue_perf_state({cqs}, {cohorts}, {workloads:,}) ===")
    manifest, kad, kad_bytes, kad_lines = write_state(cqs, cohorts, workloads, root)
    size = manifest.stat().st_size
    # the large state's one file (69 MB) is over the default 64 MiB limit: raised, as `--max-file-size` does
    max_bytes = max(workspace.DEFAULT_MAX_FILE_BYTES, size)
    text = manifest.read_text()
    t_c, docs = cpu(lambda: sum(1 for _ in yaml.load_all(text, Loader=yaml.CSafeLoader)))
    t_load, loaded = cpu(lambda: workspace.load([str(manifest)], limits=workspace.Limits(max_file_bytes=max_bytes)))
    assert not loaded.input_error, [str(d) for d in loaded.diagnostics][:3]
    del loaded
    t_admit, outcome = cpu(lambda: api.admit([str(manifest)], max_file_bytes=max_bytes))
    decided = outcome.result.decisions if outcome.result is not None else []
    print(f"1. one manifest file, {size / 1e6:.1f} MB, {docs:,} documents (process time):")
    print(f"   C loader {t_c:.2f} s; kadmit load {t_load:.2f} s = {t_load / t_c:.2f}x (target 1.3x); "
          f"kadmit admit {t_admit:.2f} s = {t_admit / t_c:.2f}x (target {3 if cqs >= 1000 else 2}x); "
          f"{len(decided):,} decided, {sum(d.admitted for d in decided):,} admitted, exit {outcome.exit_code}")
    out = {"c_loader_s": t_c, "load_s": t_load, "admit_s": t_admit, "load_ratio": t_load / t_c,
           "admit_ratio": t_admit / t_c}
    key = why if why is not None else (WHY if (cqs, cohorts, workloads) == BASE else None)
    if key is None:  # another state: its first pending workload
        key = next((d.key for d in decided if not d.admitted), None)
    del outcome, decided
    if key is not None:
        t_why, spent, got = why_phases(key, [str(manifest)], max_bytes)
        r = got.result
        t_decide = t_why - spent["load"] - spent["prove"]
        print(f"   kadmit why {key}: {t_why:.2f} s = {t_why / t_c:.2f}x the C loader (target 2-3x): "
              f"load {spent['load']:.2f} s, decide and explain {t_decide:.2f} s, prove fixes {spent['prove']:.2f} s "
              f"({r.fixes_checked if r is not None else 0} re-decisions, "
              f"{len(r.fixes) if r is not None else 0} fixes); exit {got.exit_code}")
        out.update({"why_s": t_why, "why_ratio": t_why / t_c, "why_load_s": spent["load"],
                    "why_decide_s": t_decide, "why_prove_s": spent["prove"]})
    (root / "tiny.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tiny\n")
    (root / "tiny.kad").write_text('namespace tiny {}\n')
    for name, path, nbytes, lines in (("manifests", manifest, size, text.count("\n")),
                                      (".kad", kad, kad_bytes, kad_lines)):
        base = probe(str(root / ("tiny.yaml" if name == "manifests" else "tiny.kad")), max_bytes)  # warmed
        got = probe(str(path), max_bytes)
        grown = max(0, got["peak_kb"] - base["peak_kb"]) * 1024
        print(f"2. {name}: {lines:,} lines in {got['cpu']:.2f} s ({lines / got['cpu']:,.0f} lines/s), "
              f"peak memory {got['peak_kb'] / 1024:,.0f} MB, {grown / 1e6:,.0f} MB above reading one object "
              f"= {grown / nbytes:.1f}x the input's {nbytes / 1e6:.1f} MB (target under 20x); "
              f"{got['diagnostics']} diagnostics")
        out[f"{name}_lines_per_s"] = lines / got["cpu"]
        out[f"{name}_memory_x"] = grown / nbytes
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a small state (seconds)")
    p.add_argument("--large", action="store_true", help="also (1000, 50, 50,000)")
    p.add_argument("--why", default=None, help=f"the workload `why` explains (default {WHY}, or a pending one)")
    a = p.parse_args(argv)
    states = [QUICK] if a.quick else [BASE] + ([LARGE] if a.large else [])
    t0 = time.perf_counter()
    for cqs, cohorts, wls in states:
        with tempfile.TemporaryDirectory(prefix="kadmit-scale-bench-") as d:
            run_state(cqs, cohorts, wls, Path(d), a.why)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
