"""Where a `why`'s re-decisions spend their cycles, on gpu_state(N) (bench/gpu_states.py).

`api.why(KEY, [STATE], budget=B)` runs once with `replay.decide_again` wrapped to keep its arguments;
each re-decision then runs again with `Session.cycle_started` timed, printing per re-decision its
cycles, the first cycle whose decisions (admitted, cycle, evicted by) differ from the base run's (the
most a run resumed from a checkpoint could skip), and whether the target is admitted; then the process
CPU per range of cycles over all of them (set-up: before cycle 1). Run with `PYTHONPATH=OTHER/src:bench`
for another tree.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_cycles.py team-00/train-00930 --budget 60`
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import gpu_states
from why_redecisions import recorded_redecisions

from kadmit.engine.admission import session as session_module
from kadmit.engine.explain import replay

RANGES = ((1, 10), (11, 50), (51, 100), (101, 200), (201, None))


def first_difference(base, decisions) -> int | None:
    """The first cycle where a decision differs from the base run's (None: none differs)."""
    first = None
    for key, d in decisions.items():
        b = base.get(key)
        if b is not None and (b.admitted, b.cycle, b.preempted_by) != (d.admitted, d.cycle, d.preempted_by):
            c = min(b.cycle, d.cycle)
            first = c if first is None else min(first, c)
    return first


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("key")
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--budget", type=int, default=60)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kadmit-why-cycles-") as d:
        gpu_states.write_state(gpu_states.gpu_state(args.jobs, 0), Path(d))
        calls, _ = recorded_redecisions(args.key, d, args.budget)
        decide_again = replay.decide_again
        marks: list[tuple[int, float]] = []
        started = session_module.Session.cycle_started

        def timed(self, cycle):
            marks.append((cycle, time.process_time()))
            return started(self, cycle)
        session_module.Session.cycle_started = timed
        spent = {r: 0.0 for r in RANGES}
        setup, firsts = 0.0, []
        try:
            for i, (a, k) in enumerate(calls):
                marks.clear()
                t0 = time.process_time()
                r = decide_again(*a, **k)
                end = time.process_time()
                first = first_difference(a[0].decisions, r.decisions)
                firsts.append(first)
                setup += (marks[0][1] if marks else end) - t0
                for (c, ta), (_, tb) in zip(marks, marks[1:] + [(None, end)]):
                    for lo, hi in RANGES:
                        if c >= lo and (hi is None or c <= hi):
                            spent[lo, hi] += tb - ta
                target = r.states.get(args.key)
                print(f"{i + 1:3d} {end - t0:6.3f} s  cycles {marks[-1][0] if marks else 0:4d}  "
                      f"first difference at cycle {first}  target admitted: {bool(target and target.admitted)}")
        finally:
            session_module.Session.cycle_started = started
    total = setup + sum(spent.values())
    known = [f for f in firsts if f is not None]
    print(f"{len(calls)} re-decisions, {total:.2f} s; first difference: median "
          f"{statistics.median(known) if known else None}, min {min(known, default=None)}, max {max(known, default=None)}")
    print(f"  set-up {100 * setup / total:.0f}%  " + "  ".join(
        f"cycles {lo}-{hi or ''}: {100 * v / total:.0f}%" for (lo, hi), v in spent.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
