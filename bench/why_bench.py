"""`why` with proven fixes on Kueue's 15,000-workload performance state (issue 10).

The state (`states.kueue_perf_state`, 30 cluster queues in 5 cohorts) is written as `.kad` files and
loaded once; the run is decided once (as every `why` does first) and reused. For a seeded sample of
pending workloads it times `why`'s own work on the warm run: Kueue's reasons, blame and one-workload
candidates (`explain_decision`), then proving fixes (`prove_fixes`: each candidate change applied to the
files, the edited file read again, the cluster decided again). Printed per `why`: median and p95, the
re-decisions made, the workloads each re-decision decided, and the fixes found. The baseline in the same
run: the same proofs re-deciding the whole cluster (`incremental=False`) for the first few workloads.
Run: `.venv/bin/python bench/why_bench.py` (or `--quick`, `--whys N`, `--state CQS,COHORTS,WORKLOADS`).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import gen
from states import kueue_perf_state

from kadmit import edited, workspace
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.decide import explain_decision, prove_fixes

TARGET_MEDIAN_S = 1.0


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def one_why(session, decisions, ws, key: str, incremental: bool) -> tuple[float, float, object]:
    t0 = time.perf_counter()
    result = explain_decision(session, decisions, key)
    t1 = time.perf_counter()
    if not result.admitted and not result.unknown:
        prove_fixes(session, decisions, result, edited.Reloader(ws), incremental=incremental)
    return t1 - t0, time.perf_counter() - t1, result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 1,500-workload state and 5 whys")
    ap.add_argument("--state", default=None, help="CQS,COHORTS,WORKLOADS (default 30,5,15000)")
    ap.add_argument("--whys", type=int, default=20)
    ap.add_argument("--baseline", type=int, default=2, help="whys also proven by re-deciding everything")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cqs, cohorts, n = (6, 2, 1500) if args.quick else (30, 5, 15_000)
    if args.state:
        cqs, cohorts, n = (int(x) for x in args.state.split(","))
    whys = 5 if args.quick and args.whys == 20 else args.whys

    model = kueue_perf_state(cqs, cohorts, n, args.seed)
    root = Path(tempfile.mkdtemp(prefix="kadmit-why-bench-"))
    files = gen.kad_files(model)
    gen.write_files(files, root)
    t0 = time.perf_counter()
    ws = workspace.load([str(root)])
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    session = Session(ws.model)
    decisions = {d.key: d for d in decide_ordered(session)}
    t_decide = time.perf_counter() - t0
    pending = sorted(k for k, d in decisions.items() if not d.admitted)
    print(f"state kueue_perf_state({cqs}, {cohorts}, {n:,}): {len(files)} .kad files loaded in {t_load:.2f} s; "
          f"decided once in {t_decide:.2f} s ({len(decisions) - len(pending):,} admitted, {len(pending):,} pending)")
    sample = random.Random(args.seed + 2).sample(pending, min(whys, len(pending)))

    explain_s, prove_s, total_s, replays, per_replay, found = [], [], [], [], [], []
    results = {}
    for i, key in enumerate(sample):
        t_e, t_p, r = one_why(session, decisions, ws, key, True)
        results[key] = r
        explain_s.append(t_e)
        prove_s.append(t_p)
        total_s.append(t_e + t_p)
        replays.append(r.fixes_checked or 0)
        found.append(len(r.fixes))
        per_replay.extend(f.redecided for f in r.fixes)
        first = r.fixes[0].message if r.fixes else "(none proven)"
        print(f"  {i + 1:2d}. {key}: {t_e + t_p:.2f} s (explain {t_e:.2f}, prove {t_p:.2f}); "
              f"{r.fixes_checked} re-decisions, {len(r.fixes)} fixes; first: {first[:140]}")
    print(f"why with proven fixes, {len(total_s)} pending workloads: median {statistics.median(total_s):.2f} s, "
          f"p95 {p95(total_s):.2f} s (target: median < {TARGET_MEDIAN_S:.0f} s)")
    print(f"   explain (reasons, blame, candidates): median {statistics.median(explain_s):.2f} s; "
          f"prove: median {statistics.median(prove_s):.2f} s, p95 {p95(prove_s):.2f} s")
    minimal = [c.minimal for key in sample for f in results[key].fixes for c in f.changes if c.minimal is not None]
    print(f"   searched numbers in the fixes shown: {len(minimal)}, proven minimal (one step less refused: "
          f"decided again, or below the arithmetic bound of explain.bounds): {sum(minimal)}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"   re-decisions per why: median {statistics.median(replays):.0f}, max {max(replays)}; "
          f"fixes per why: median {statistics.median(found):.0f}; workloads decided per proven fix's "
          f"re-decision: {statistics.median(per_replay) if per_replay else 0:,.0f} of {len(ws.model.workloads):,}")

    base, inc = [], []
    for key in sample[:args.baseline]:
        _, t_whole, r_whole = one_why(session, decisions, ws, key, False)
        _, t_inc, r_inc = one_why(session, decisions, ws, key, True)
        same = [f.message for f in r_whole.fixes] == [f.message for f in r_inc.fixes]
        base.append(t_whole)
        inc.append(t_inc)
        print(f"   baseline {key}: prove re-deciding everything {t_whole:.2f} s vs touched cohort trees "
              f"{t_inc:.2f} s ({t_whole / max(t_inc, 1e-9):.1f}x); same fixes: {same}")
    if base:
        print(f"   whole / touched: {sum(base) / max(sum(inc), 1e-9):.1f}x")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
