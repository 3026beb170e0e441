"""`simulate` with no trace ends where `admit` ends, and which of the two Kueue agrees with (issue 20).

With every workload there at the start and none finishing, a replay is one instant: the engine
decides as `admit` does, and nothing happens after. This bench builds a state, runs both in this
process and prints how many workloads hold quota when each is done (admitted in the input and not
preempted, or admitted by the run), the workloads on which they differ, and — with `--oracle` —
Kueue v0.17.0's own answer on the same files (`tools/kueue-oracle`), and on each differing workload
the side Kueue takes.

States: `gpu` (default), bench/gpu_states.py's preempting GPU cluster of `--jobs` batch Jobs (2,000:
the 2,000-Job state); `perf`, bench/states.py's shape of Kueue's scheduler performance test (the
oracle needs files: `gpu` only).

Run: `PYTHONPATH=src .venv/bin/python bench/simulate_admit.py [--state gpu|perf] [--jobs N] [--seed N]
[--oracle [BINARY]] [--list]`. It imports kadmit from PYTHONPATH, so the same command measures
another tree (`PYTHONPATH=/elsewhere/src`). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpu_states import gpu_state, write_state

from kadmit import workspace as ws
from kadmit.engine.decide import admit
from kadmit.model import Model
from kadmit.simulate.run import Options, Simulator


def held_by_admit(model: Model) -> tuple[set[str], float]:
    """The workloads holding quota once `admit` is done, and its process CPU seconds."""
    c0 = time.process_time()
    result = admit(model)
    cpu = time.process_time() - c0
    decided = {d.key: d for d in result.decisions}
    held = {d.key for d in result.decisions if d.admitted}
    held |= {w.key for w in model.workloads if w.admitted and not w.evicted and w.key not in decided}
    return held, cpu


def held_by_simulate(model: Model) -> tuple[set[str], float]:
    """The workloads holding quota when a replay of the state with no trace ends (all at t=0)."""
    c0 = time.process_time()
    start = max((w.created for w in model.workloads), default=None)
    sim = Simulator(model, start, [], options=Options())
    sim.run()
    return set(sim.running), time.process_time() - c0


def _job_name(key: str) -> str:
    """kadmit names the Workload of an admitted Job by the Workload (`job-NAME-hash`), the oracle by its Job."""
    ns, name = key.split("/", 1)
    m = re.fullmatch(r"job-(.*)-[0-9a-f]{5}", name)
    return f"{ns}/{m.group(1)}" if m else key


def held_by_kueue(binary: str, root: Path, keys: set[str]) -> tuple[set[str], dict]:
    proc = subprocess.run([binary, "admit", "--format", "json", str(root)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"kueue-oracle exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    data = json.loads(proc.stdout)
    decided = {_job_name(d["workload"]): d for d in data["decisions"]}
    held = {k for k in keys if _job_name(k) not in decided}  # admitted in the input and never evicted
    held |= {k for k in keys if decided.get(_job_name(k), {}).get("admitted")}
    return held, data["oracle"]


def _oracle_binary(given: str | None) -> str:
    if given:
        return given
    wrapper = Path(__file__).resolve().parents[1] / "tools" / "kueue-oracle" / "kueue-oracle"
    got = subprocess.run([str(wrapper), "--build-only"], capture_output=True, text=True)
    if got.returncode != 0:
        sys.exit(f"building the Kueue oracle failed:\n{got.stderr[-2000:]}")
    return got.stdout.strip().splitlines()[-1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--state", choices=["gpu", "perf"], default="gpu")
    p.add_argument("--jobs", type=int, default=2000, help="gpu: batch Jobs; perf: workloads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--oracle", nargs="?", const="", default=None,
                   help="also ask Kueue (the oracle binary given, else tools/kueue-oracle's build)")
    p.add_argument("--list", action="store_true", help="print every differing workload")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        if a.state == "gpu":
            write_state(gpu_state(a.jobs, a.seed), root)
            loaded = ws.load([str(root)])
            model = loaded.model
        else:
            from states import kueue_perf_state
            model = kueue_perf_state(30, 5, a.jobs, a.seed)
        A, admit_cpu = held_by_admit(model)
        S, sim_cpu = held_by_simulate(model)
        keys = {w.key for w in model.workloads}
        print(f"{a.state} state, {len(keys)} workloads (seed {a.seed}): holding quota at the end: admit {len(A)} "
              f"(CPU {admit_cpu:.1f} s), simulate {len(S)} (CPU {sim_cpu:.1f} s); they differ on {len(A ^ S)}")
        K = None
        if a.oracle is not None and a.state == "gpu":
            c0 = time.perf_counter()
            K, info = held_by_kueue(_oracle_binary(a.oracle), root, keys)
            print(f"Kueue {info['kueue']} ({info['cycles']} cycles, stop: {info['stop']}, "
                  f"{time.perf_counter() - c0:.0f} s wall): holding {len(K)}; differs from admit on {len(A ^ K)}, "
                  f"from simulate on {len(S ^ K)}")
            D = A ^ S
            if D:
                print(f"  on the {len(D)} where admit and simulate differ, Kueue sides with admit on "
                      f"{sum(1 for k in D if (k in A) == (k in K))}, with simulate on "
                      f"{sum(1 for k in D if (k in S) == (k in K))}")
        if a.list:
            for k in sorted(A ^ S):
                kueue = "" if K is None else ("  Kueue: holds" if k in K else "  Kueue: pending")
                print(f"  {k}: {'admit holds, simulate not' if k in A else 'simulate holds, admit not'}{kueue}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
