"""Admission speed on states shaped like Kueue's scheduler performance test (issue 3).

For each state: load it from files, decide every pending workload in `ordered` mode, try one more
workload warm and cold, explain not-admitted workloads, and run the plain-Python reference on the
same state (its decisions must agree with the engine's). Figures are printed beside the targets;
nothing here asserts a time. Run: `.venv/bin/python bench/admission_bench.py` (full) or `--quick`.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import gen
from states import PRIORITIES, kueue_perf_state

from kadmit import reference, workspace
from kadmit.engine.decide import explain_decision
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.model import Model, PodSet, Workload

FULL = ((30, 5, 15_000), (1000, 50, 50_000))
QUICK = ((6, 2, 300), (20, 4, 800))
TARGET_RATE = 15_000 / 15.0  # workloads decided per second
TARGET_VS_LOAD = 2.0  # deciding within 2x of loading
TARGET_ONE_MORE_MS = 5.0
TARGET_WHY_MS = 100.0


def clock(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def new_workloads(model: Model, n: int, seed: int) -> list[Workload]:
    """`n` extra pending workloads of varied sizes, each in an existing namespace and local queue,
    created after every workload of the state."""
    rnd = random.Random(seed)
    last = max((w.created for w in model.workloads), default=None)
    lqs = sorted(model.local_queues, key=lambda q: q.key)
    out = []
    for i in range(n):
        lq = rnd.choice(lqs)
        pod_sets = [PodSet(name="main", count=rnd.choice((1, 1, 2, 4)),
                           requests={"cpu": rnd.choice((1, 2, 3, 5, 10, 20, 50)) * 1000})]
        if rnd.random() < 0.3:
            pod_sets.append(PodSet(name="driver", count=1, requests={"cpu": 500}))
        out.append(Workload(namespace=lq.namespace, name=f"extra-{i:03d}", queue=lq.name,
                            priority_class=rnd.choice(list(PRIORITIES)), priority_class_kind="workload",
                            created=(last or Workload.model_fields["created"].default) + timedelta(seconds=i + 1),
                            pod_sets=tuple(pod_sets)))
    return out


def engine_view(decisions: list[Decision]) -> dict[str, tuple]:
    out = {}
    for d in decisions:
        a = d.assignment if d.admitted else None
        out[d.key] = (d.admitted, d.cluster_queue if d.admitted else None,
                      tuple(sorted((ps, a.counts[ps], tuple(sorted(fl.items()))) for ps, fl in a.flavors.items()))
                      if a else ())
    return out


def reference_view(decisions: list[reference.RefDecision]) -> dict[str, tuple]:
    return {d.workload: (d.admitted, d.cluster_queue if d.admitted else None,
                         tuple(sorted((p.name, p.count, tuple(sorted(p.flavors.items()))) for p in d.pod_sets))
                         if d.admitted else ())
            for d in decisions}


def disagreements(engine: dict[str, tuple], ref: dict[str, tuple]) -> list[str]:
    """Workload keys whose decisions differ (admitted, cluster queue, counts and flavors per pod set)."""
    return sorted(k for k in engine.keys() | ref.keys() if engine.get(k) != ref.get(k))


def top_functions(profile: cProfile.Profile, n: int = 15) -> str:
    buf = io.StringIO()
    pstats.Stats(profile, stream=buf).sort_stats("tottime").print_stats(n)
    return "\n".join(line for line in buf.getvalue().splitlines() if line.strip())


class Failures:
    """Counts exceptions raised by engine calls (a bench reports them and goes on)."""

    def __init__(self, step: str) -> None:
        self.step = step
        self.errors: list[str] = []

    def __enter__(self) -> "Failures":
        return self

    def __exit__(self, kind, err, tb) -> bool:
        if err is not None and isinstance(err, Exception):
            self.errors.append(f"{type(err).__name__}: {str(err)[:200]}")
            return True
        return False

    def report(self) -> int:
        if self.errors:
            print(f"   {self.step} ENGINE ERRORS: {len(self.errors)} calls raised; first: {self.errors[0]}")
        return len(self.errors)


def run_state(cluster_queues: int, cohorts: int, workloads: int, root: Path, *, manifests: bool,
              extra: int, whys: int, seed: int, profile: bool) -> dict:
    out: dict = {}
    title = f"kueue_perf_state({cluster_queues}, {cohorts}, {workloads:,})"
    print(f"\n=== {title} ===")
    model = kueue_perf_state(cluster_queues, cohorts, workloads, seed)

    # 1. load from files
    files = gen.kad_files(model)
    gen.write_files(files, root / "kad")
    t_load, loaded = clock(lambda: workspace.load([str(root / "kad")]))
    print(f"1. load .kad ({len(files):,} files, {gen.count_lines(files):,} lines): {t_load:.2f} s, "
          f"{len(loaded.diagnostics)} diagnostics, {len(loaded.model.workloads):,} workloads")
    out |= {"load_kad_s": t_load, "load_diagnostics": len(loaded.diagnostics)}
    if manifests:
        mfiles = gen.manifest_files(model)
        gen.write_files(mfiles, root / "manifests")
        t_man, from_man = clock(lambda: workspace.load([str(root / "manifests")]))
        same = set(from_man.model.workloads) == set(loaded.model.workloads)
        print(f"   load manifests ({len(mfiles):,} files, {gen.count_lines(mfiles):,} lines): {t_man:.2f} s, "
              f"{len(from_man.diagnostics)} diagnostics, same workloads as .kad: {same}")
        out["load_manifests_s"] = t_man
        del from_man
    model = loaded.model

    # 2. decide every pending workload
    prof = cProfile.Profile() if profile else None
    t0, c0 = time.perf_counter(), time.process_time()
    if prof:
        prof.enable()
    session = Session(model)
    decisions = decide_ordered(session)
    if prof:
        prof.disable()
    t_decide, c_decide = time.perf_counter() - t0, time.process_time() - c0
    admitted = sum(d.admitted for d in decisions)
    print(f"2. decide (ordered): {len(decisions):,} decided, {admitted:,} admitted in {t_decide:.2f} s "
          f"({len(decisions) / t_decide:,.0f}/s; target {TARGET_RATE:,.0f}/s, i.e. 15,000 in 15 s)")
    print(f"   decide / load: {t_decide / t_load:.2f}x (target: within {TARGET_VS_LOAD:.0f}x)")
    print(f"   solver: {session.stats.as_dict()}")
    out |= {"decide_s": t_decide, "decided": len(decisions), "admitted": admitted, **session.stats.as_dict()}
    if prof:
        print("   profile of deciding (top by own time):\n" + top_functions(prof))

    # 3. one more workload, warm vs cold
    warm, cold, failed = [], [], Failures("3.")
    for wl in new_workloads(model, extra, seed + 1):
        with_wl = model.model_copy(update={"workloads": model.workloads + (wl,)})
        with failed:
            warm.append(clock(lambda: session.try_admit(wl))[0])
            cold.append(clock(lambda: Session(with_wl).try_admit(wl))[0])
    if warm and cold:
        w_med, c_med = statistics.median(warm), statistics.median(cold)
        print(f"3. one more workload (median of {len(cold)}): warm {ms(w_med)} (target < {TARGET_ONE_MORE_MS:.0f} ms), "
              f"cold {ms(c_med)}, cold / warm {c_med / w_med:,.0f}x")
        out |= {"one_more_warm_ms": w_med * 1000, "one_more_cold_ms": c_med * 1000}
    out["one_more_errors"] = failed.report()

    # 4. why, warm
    by_key = {d.key: d for d in decisions}
    waiting = sorted(d.key for d in decisions if not d.admitted)
    picked = random.Random(seed + 2).sample(waiting, min(whys, len(waiting)))
    times, first, failed = [], None, Failures("4.")
    for key in picked:
        with failed:
            t_y, result = clock(lambda: explain_decision(session, by_key, key))
            times.append(t_y)
            first = first or result
    if times:
        print(f"4. why (median of {len(times)} not-admitted): {ms(statistics.median(times))} "
              f"(target < {TARGET_WHY_MS:.0f} ms), slowest {ms(max(times))}")
        print(f"   e.g. {first.workload}: {first.reasons[0].message if first.reasons else '(no reason)'}; "
              f"{len(first.blame)} blamed statements")
        out["why_ms"] = statistics.median(times) * 1000
    elif not picked:
        print("4. why: every workload was admitted; nothing to explain")
    out["why_errors"] = failed.report()

    # 5. the plain-Python reference
    c0 = time.process_time()
    t_ref, ref = clock(lambda: reference.decide(model, preemption=True))
    c_ref = time.process_time() - c0
    diff = disagreements(engine_view(decisions), reference_view(ref))
    print(f"5. reference: {t_ref:.2f} s, {sum(d.admitted for d in ref):,} admitted; "
          f"disagreements with the engine: {len(diff)} (must be 0){' e.g. ' + ', '.join(diff[:3]) if diff else ''}")
    print(f"   engine / reference: {t_decide / t_ref:.2f}x wall, {c_decide / c_ref:.2f}x process time "
          "(read this one on a shared machine)")
    out |= {"reference_s": t_ref, "disagreements": len(diff)}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small states, for a smoke run")
    p.add_argument("--state", action="append", metavar="CQS,COHORTS,WORKLOADS",
                   help="a state to run instead of the defaults (repeatable)")
    p.add_argument("--no-manifests", action="store_true", help="skip loading from manifests")
    p.add_argument("--manifests-up-to", type=int, default=20_000,
                   help="load from manifests only for states with at most this many workloads")
    p.add_argument("--extra", type=int, default=50, help="new workloads for warm/cold timing")
    p.add_argument("--whys", type=int, default=30, help="not-admitted workloads to explain")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", action="store_true", help="print a cProfile summary of deciding")
    a = p.parse_args(argv)
    chosen = [tuple(int(x) for x in s.split(",")) for s in a.state] if a.state else (QUICK if a.quick else FULL)
    results = []
    t0 = time.perf_counter()
    for cqs, cohorts, wls in chosen:
        with tempfile.TemporaryDirectory(prefix="kadmit-admission-bench-") as d:
            manifests = not a.no_manifests and wls <= a.manifests_up_to
            results.append(run_state(cqs, cohorts, wls, Path(d), manifests=manifests, extra=a.extra,
                                     whys=a.whys, seed=a.seed, profile=a.profile))
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 1 if any(r["disagreements"] or r["why_errors"] or r["one_more_errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
