"""Start-up (issue 19 item 1): `kadmit check|admit|why` on the bundled examples in a fresh process,
this tree against another revision, least CPU of `--repeats` per verb.

For each tree (this one, and `--before REV` exported with `git archive` into a temporary folder) and
each command, `python -m kadmit VERB ...` runs `--repeats` times in a fresh process, the two trees
interleaved run by run so that the machine's load falls on both alike; the figure is the least
process CPU (user + system, from `getrusage(RUSAGE_CHILDREN)`) per tree and command. Also printed,
deterministic: how many modules (and how many of kadmit's own) the command loads.

Bytecode: by default each tree's modules are compiled once, into a cache of its own
(`PYTHONPYCACHEPREFIX`, after a warm-up run), as an installed kadmit's are; `--compile` measures with
no bytecode cache for kadmit instead, its modules compiled from source in every run (the libraries'
installed bytecode still read), which is what `PYTHONDONTWRITEBYTECODE=1` over a source tree
without `__pycache__` gives (this machine's sessions
set it, and the start-up figures measured before 2026-12-04 were taken that way).

`--instructions` also counts the instructions of one run per tree and command under valgrind's
callgrind (when installed): a figure the machine's load does not move, ~50x slower to take.
Target: 0.4 s per command. Nothing here asserts a time.
Run: `PYTHONPATH=src .venv/bin/python bench/startup_bench.py [--before REV] [--repeats 5] [--compile]`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [
    ("check", ["examples/ml-platform-kueue"]),
    ("admit", ["examples/ml-platform-kueue"]),
    ("why", ["team-infra/gpu-smoke", "examples/ml-platform-kueue"]),
    ("check", ["examples/ml-platform"]),
    ("admit", ["examples/ml-platform"]),
    ("why", ["team-infra/gpu-smoke", "examples/ml-platform"]),
]
_MODULES = """
import json, runpy, sys
sys.argv = ["kadmit", *sys.argv[2:]]
try:
    runpy.run_module("kadmit", run_name="__main__")
except SystemExit:
    pass
with open(OUT, "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""


def export(rev: str, into: Path) -> Path:
    """`rev`'s src/ as files (git archive), so that its modules are the ones imported."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def env_for(src: Path, cache: Path | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(src))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if cache is None:  # the libraries' own bytecode is read, kadmit's is compiled (no __pycache__ in `src`)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def cpu_of(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def modules_of(args: list[str], env: dict[str, str], tmp: Path) -> tuple[int, int]:
    out = tmp / "modules.json"
    code = _MODULES.replace("OUT", repr(str(out)))
    subprocess.run([sys.executable, "-c", code, "-", *args], cwd=ROOT, env=env, capture_output=True)
    mods = json.loads(out.read_text())
    return len(mods), sum(1 for m in mods if m == "kadmit" or m.startswith("kadmit."))


def instructions(argv: list[str], env: dict[str, str]) -> int | None:
    if shutil.which("valgrind") is None:
        return None
    got = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], cwd=ROOT,
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", got.stderr)
    return int(m.group(1)) if m else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", metavar="REV", help="also measure this git revision (e.g. main, a commit)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--compile", action="store_true", help="no bytecode cache: every module compiled in every run")
    p.add_argument("--instructions", action="store_true", help="also count instructions under valgrind")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kadmit-startup-") as d:
        tmp = Path(d)
        trees = {"this tree": ROOT / "src"}
        if a.before:
            (tmp / "before").mkdir()
            trees = {f"{a.before}": export(a.before, tmp / "before"), **trees}
        envs = {}
        for i, (name, src) in enumerate(trees.items()):
            envs[name] = env_for(src, None if a.compile else tmp / f"pyc{i}")
            for verb, args in COMMANDS:  # warm-up: fills the bytecode cache and the OS's file cache
                cpu_of([sys.executable, "-m", "kadmit", verb, *args], envs[name])
        cache = "no bytecode cache" if a.compile else "bytecode cached"
        print(f"least CPU of {a.repeats} fresh processes per command ({cache}), target 0.4 s; "
              f"modules loaded (kadmit's own)")
        width = max(len(f"kadmit {verb} {' '.join(args)}") for verb, args in COMMANDS)
        print(f"{'command':{width}}" + "".join(f" | {name:>22}" for name in trees))
        for verb, args in COMMANDS:
            argv_ = [sys.executable, "-m", "kadmit", verb, *args]
            best = {name: float("inf") for name in trees}
            for _ in range(a.repeats):
                for name in trees:
                    best[name] = min(best[name], cpu_of(argv_, envs[name]))
            cells = []
            for name in trees:
                n, own = modules_of([verb, *args], envs[name], tmp)
                cell = f"{best[name]:.3f} s {n:4d} ({own:3d})"
                if a.instructions:
                    ir = instructions(argv_, envs[name])
                    cell += f" {ir / 1e6:,.0f} M instr" if ir else " (no valgrind)"
                cells.append(cell)
            command = f"kadmit {verb} {' '.join(args)}"
            print(f"{command:{width}}" + "".join(f" | {c:>22}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
