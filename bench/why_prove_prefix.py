"""How much of a `why`'s fix proving repeats the base run: the profile behind the finding that sharing a
re-decision's prefix with the base run saves little.

For one pending workload of a state written by gpu_states (`--dir`, made if missing from gpu_state(2000)), in
this process, process time: `api.why` end to end; per re-decision of a candidate fix (`replay.decide_again`)
its time and the workloads decided again; and per re-decision how many of its nominations (the scheduling
loop's questions, `Session._nominate`, in order, with their answers: mode, flavors, counts, victims) are the
base run's before the first that differs: what sharing the run up to the change could save.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_prove_prefix.py --dir /tmp/state team-09/train-00296`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gpu_states

from kadmit import api
from kadmit.engine.admission import session as S
from kadmit.engine.explain import prove, replay


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("key")
    p.add_argument("--dir", type=Path, required=True)
    p.add_argument("--jobs", type=int, default=2000)
    a = p.parse_args()
    if not a.dir.exists():
        a.dir.mkdir(parents=True)
        gpu_states.write_state(gpu_states.gpu_state(a.jobs, 0), a.dir)
    logs: dict[int, list] = {}
    runs: list[tuple[float, int]] = []
    nominate, again = S.Session._nominate, replay.decide_again

    def logged(self, wl, preemption):
        got = nominate(self, wl, preemption)
        x = got[0]
        logs.setdefault(id(self), []).append((wl.key, preemption, None if x is None else (
            x.mode, repr(sorted(x.flavors.items())), tuple(sorted(x.counts.items())),
            tuple(sorted(t.key for t in x.targets)))))
        return got

    def timed(*args, **kw):
        t0 = time.process_time()
        r = again(*args, **kw)
        runs.append((time.process_time() - t0, r.redecided))
        return r

    S.Session._nominate, replay.decide_again, prove.decide_again = logged, timed, timed
    t0 = time.process_time()
    out = api.why(a.key, [str(a.dir)])
    total = time.process_time() - t0
    S.Session._nominate, replay.decide_again, prove.decide_again = nominate, again, again
    seqs = list(logs.values())
    base = seqs[0]
    print(f"why {a.key}: {total:.2f} s, exit {out.exit_code}; base run {len(base)} nominations; "
          f"{len(runs)} re-decisions, {sum(t for t, _ in runs):.2f} s")
    for (t, n), seq in zip(runs, seqs[1:]):
        same = next((i for i, (x, y) in enumerate(zip(base, seq)) if x != y), min(len(base), len(seq)))
        print(f"  re-decision {t:.2f} s, {n} workloads, {len(seq)} nominations, the first {same} the base run's")


if __name__ == "__main__":
    main()
