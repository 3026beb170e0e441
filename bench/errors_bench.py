"""Issue 20 item 4: errors at scale. One file of 15,000 v1beta2 Workloads, each carrying the v1beta1
fields `spec.priorityClassName` and `spec.priorityClassSource` (30,000 KAD162 errors), as `check`,
`admit` and `why` run it end to end (reading, scoping the errors, rendering what the CLI prints),
each as a multiple of PyYAML's C loader on the same file (process CPU time, same process, same run).

A loop over every object for every error once made `admit` take more than ten minutes here; the
target is 4x the C loader for each verb. `--n` sets the Workloads (default 15,000; errors = 2n).
Run: `.venv/bin/python bench/errors_bench.py` (or `--n 2000` for a quick look).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from robustness import hostile  # noqa: E402  (the tests' generator of the same file)

import kadmit.engine.decide  # noqa: E402,F401 -- imported up front: first use is not what is measured
import kadmit.manifests  # noqa: E402,F401
import kadmit.validate  # noqa: E402,F401
from kadmit import api  # noqa: E402
from kadmit.render import render  # noqa: E402
from kadmit.render.decisions import admit_human  # noqa: E402
from kadmit.render.human import render_human  # noqa: E402


def cpu(fn):
    t0 = time.process_time()
    got = fn()
    return time.process_time() - t0, got


def check(path: str) -> str:
    got = api.check([path])
    out = render(got.diagnostics, got.sources, "human")
    return f"exit {got.exit_code}, {len(got.diagnostics):,} diagnostics, {len(out.splitlines()):,} lines printed"


def check_json(path: str) -> str:
    got = api.check([path])
    out = json.loads(render(got.diagnostics, got.sources, "json"))
    return f"exit {got.exit_code}, {len(out['diagnostics']):,} diagnostics in the JSON"


def admit(path: str) -> str:
    got = api.admit([path])
    shown = [d for d in got.diagnostics if d.severity.value != "note"]
    err = render_human(shown, got.loaded.sources, files_checked=None)
    skipped = (*got.loaded.workspace.model.skipped, *got.held)
    out = admit_human(got.result, skipped) if got.result is not None else ""
    return f"exit {got.exit_code}, {len(got.held):,} workloads not decided, {len((err + out).splitlines()):,} lines printed"


def why(path: str) -> str:
    got = api.why("ns-0001/w-000001", [path])
    err = render_human(got.diagnostics, got.loaded.sources, files_checked=None)
    return f"exit {got.exit_code}, {len(got.diagnostics):,} errors reported (its cohort tree has errors), {len(err.splitlines()):,} lines printed"


VERBS = [("check (human)", check), ("check --format json", check_json), ("admit", admit),
         ("why ns-0001/w-000001", why)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=15_000)
    n = ap.parse_args().n
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workloads.yaml"
        path.write_text(hostile.wrong_version_workloads(n))
        text = path.read_text()
        base, _ = cpu(lambda: list(yaml.load_all(text, Loader=yaml.CSafeLoader)))
        print(f"{n:,} Workloads, {2 * n:,} errors, {len(text) / 1e6:.1f} MB; PyYAML C loader {base:.2f} s CPU")
        print(f"{'verb':<24} {'CPU s':>7} {'x C loader':>10}  result")
        for name, run in VERBS:
            spent, what = cpu(lambda: run(str(path)))
            print(f"{name:<24} {spent:>7.2f} {spent / base:>10.2f}  {what}")


if __name__ == "__main__":
    main()
