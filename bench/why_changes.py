"""Every change one `why` decides again on gpu_state(N) (bench/gpu_states.py), in order: its process CPU,
whether it admits the workload, which search asked for it, and the values it sets.

`api.why(KEY, [STATE])` runs once with `Prover.replay` wrapped: a change decided again (not one answered
from the prover's cache or refused by arithmetic) prints a line; then the why's CPU, the re-decisions'
sum and count. What the whyfast sections of bench/README.md count ("own numbers", "the head's own
fixes", "group raises", "lender raises", "switch pairs") is the caller column.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_changes.py team-05/train-00907 [--dir /tmp/g2000]`
"""

from __future__ import annotations

import argparse
import tempfile
import time
import traceback
from pathlib import Path

import gpu_states

from kadmit import api
from kadmit.engine.explain import prove

# the searches a change comes from, as their functions are named (the outermost one named is shown:
# `_singles` inside `_head_fixes` is the head's own fixes; directly under `proven_fixes`, the workload's own)
SEARCHES = ("_head_fixes", "_after_switch", "group_raises", "lender_raises", "flavor_raises", "_pairs", "_singles")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("key")
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--dir", help="a state written already (`python bench/gpu_states.py DIR`)")
    args = p.parse_args(argv)
    rows: list[tuple[float, bool, str, str]] = []
    real = prove.Prover.replay

    def replay(self, changes):
        tried = self.tried
        t0 = time.process_time()
        r = real(self, changes)
        spent = time.process_time() - t0
        if self.tried > tried:  # decided again (not cached, not refused by arithmetic)
            names = [f.name for f in traceback.extract_stack()]
            by = next((n for n in names if n in SEARCHES), "proven_fixes")
            mine = r.states.get(self.target) if r is not None else None
            values = "; ".join(f"{c.knob.subject} {c.knob.field} = "
                               f"{c.knob.render(c.new) if isinstance(c.new, int) else c.new}" for c in changes)
            rows.append((spent, bool(mine and mine.admitted), by, values))
        return r
    prove.Prover.replay = replay
    try:
        with tempfile.TemporaryDirectory(prefix="kadmit-why-changes-") as d:
            root = args.dir
            if root is None:
                gpu_states.write_state(gpu_states.gpu_state(args.jobs, 0), Path(d))
                root = d
            t0 = time.process_time()
            api.why(args.key, [root])
            total = time.process_time() - t0
    finally:
        prove.Prover.replay = real
    for spent, admits, by, values in rows:
        print(f"{spent:6.2f} s  {'admits' if admits else 'pending'}  {by:<14} {values}")
    print(f"{args.key}: why {total:.2f} s, {len(rows)} re-decisions {sum(r[0] for r in rows):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
