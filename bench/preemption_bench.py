"""Preemption speed and victim counts on a full cluster shaped like Kueue's performance test (issue 5).

For each state (`preempt_states.kueue_preempt_state`: Kueue's baseline queues with
`reclaimWithinCohort: Any` and `withinClusterQueue: LowerPriority`, full of low-priority work,
higher-priority work pending):

1. **baseline**: the same pending workloads on the empty cluster (everything fits: no borrowing, no
   preemption), decided with `Session` + `decide_ordered`; wall time and time per admitting decision.
2. **preempting**: the full cluster, decided the same way; wall time, time per *preempting decision*
   (a queue head that issues preemptions in a cycle: its nomination — flavor assignment, preemption
   oracle, victim search — plus the re-checks the cycle makes for it: recomputing overlapping targets
   and the quota check with this cycle's victims gone; the loop's bookkeeping is not timed), median
   and p95, and the ratios to the baseline; the number of preempting decisions, preemptors, victims
   and evicted workloads.
3. **greedy reference**: `kadmit.reference.decide(model, preemption=True)` on the same model: its
   time, and the victims of each preemptor compared with the engine's (ordered mode is Kueue's
   greedy choice, so they must be equal), and who evicted each victim.
4. **optimal**: `admit(model, "optimal")` — its victim count if optimal mode reports victims
   (`result.optimal["victims"]`), else a line saying it doesn't preempt yet.

Nothing here asserts a time; exit code 1 when the engine and the reference disagree (decisions or
victims) or an engine call raised. Run: `.venv/bin/python bench/preemption_bench.py` (full) or
`--quick` (seconds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from admission_bench import Failures, disagreements, engine_view, reference_view
from preempt_states import kueue_preempt_state

from kadmit.engine.admission import ordered
from kadmit import reference
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.model import Model

BASELINE = (30, 5)  # Kueue's baseline: 5 cohorts of 6 cluster queues
FULL = (BASELINE, (100, 20), (300, 20))  # then 20 cohorts (Kueue's large-scale count) of 5 and 15 queues
QUICK = ((12, 2), BASELINE)


@dataclass
class HeadRecord:
    """One queue head in one cycle: the time spent nominating it and re-checking it, and what came of it."""

    key: str
    cluster_queue: str
    nominate_s: float
    mode: str | None  # the nomination's mode (None: nothing assignable)
    targets: int
    recheck_s: float = 0.0
    recomputed: bool = False
    preempting: bool = False  # it issued preemptions this cycle (passed the quota check with its victims gone)
    admitted: bool = False

    @property
    def seconds(self) -> float:
        return self.nominate_s + self.recheck_s


@dataclass
class Probe:
    """Times every queue head of a `decide_ordered` run without changing it: wraps the session's
    `nominate` and `nomination`, `suspended` and `commit`, and `ordered._quota_fits` (the quota check a preempting
    head passes), attributing each call to the head of its cluster queue in the current cycle.
    First-phase nominations are the ones made outside `suspended` (the cycle's re-checks run
    inside it)."""

    session: Session
    records: list[HeadRecord] = field(default_factory=list)
    current: dict[str, HeadRecord] = field(default_factory=dict)
    depth: int = 0
    block: list[str] = field(default_factory=list)  # cluster queues a re-check block served

    def _cq(self, wl) -> str:
        cq = self.session.index.cluster_queue_of(wl)
        return cq.name if cq is not None else ""

    @contextmanager
    def installed(self):
        s = self.session
        nominate, nomination = s.nominate, s.nomination
        suspended, commit, quota_fits = s.suspended, s.commit, ordered._quota_fits

        def timed(call, assignment):
            def timed_call(wl, preemption: bool = True):
                t0 = time.perf_counter()
                got = call(wl, preemption)
                dt = time.perf_counter() - t0
                cq = self._cq(wl)
                a = assignment(got)
                if self.depth == 0:
                    rec = HeadRecord(wl.key, cq, dt, a.mode if a is not None else None,
                                     len(a.targets) if a is not None else 0)
                    self.records.append(rec)
                    self.current[cq] = rec
                else:
                    self.block.append(cq)
                    rec = self.current.get(cq)
                    if rec is not None and rec.key == wl.key and preemption:  # overlapping targets: recomputed
                        rec.recomputed = True
                        rec.targets = len(a.targets) if a is not None else 0
                return got
            return timed_call

        timed_nominate, timed_nomination = timed(nominate, lambda got: got[0]), timed(nomination, lambda got: got)

        @contextmanager
        def timed_suspended(keys):
            t0 = time.perf_counter()
            self.depth += 1
            outer = self.block
            self.block = []
            try:
                with suspended(keys):
                    yield
            finally:
                self.depth -= 1
                dt = time.perf_counter() - t0
                if self.block and self.block[0] in self.current:  # one head's re-check per block
                    self.current[self.block[0]].recheck_s += dt
                self.block = outer

        def timed_commit(wl, a):
            t0 = time.perf_counter()
            commit(wl, a)
            rec = self.current.get(a.cluster_queue)
            if rec is not None and rec.key == wl.key:
                rec.recheck_s += time.perf_counter() - t0
                rec.admitted = True

        def timed_quota_fits(session, cq, usage):
            ok = quota_fits(session, cq, usage)
            self.block.append(cq)
            rec = self.current.get(cq)
            if rec is not None and ok:
                rec.preempting = True
            return ok

        s.nominate, s.nomination, s.suspended, s.commit = timed_nominate, timed_nomination, timed_suspended, timed_commit
        ordered._quota_fits = timed_quota_fits
        try:
            yield self
        finally:
            del s.nominate, s.nomination, s.suspended, s.commit
            ordered._quota_fits = quota_fits


def quantiles(xs: list[float]) -> tuple[float, float]:
    """Median and 95th percentile (nearest rank) of `xs` (non-empty)."""
    ys = sorted(xs)
    return statistics.median(ys), ys[min(len(ys) - 1, max(0, -(-95 * len(ys) // 100) - 1))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def run(model: Model) -> tuple[float, list[Decision], list[HeadRecord], Session]:
    t0 = time.perf_counter()
    session = Session(model)
    with Probe(session).installed() as probe:
        decisions = decide_ordered(session)
    return time.perf_counter() - t0, decisions, probe.records, session


def victims_by_preemptor(rows) -> dict[str, tuple[str, ...]]:
    """Preemptor -> the keys of the victims it evicted, in the order reported."""
    return {k: v for k, v in rows if v}


def evicted_by(rows) -> dict[str, str]:
    return {k: by for k, by in rows if by}


def compare_victims(engine: list[Decision], ref: list[reference.RefDecision]) -> dict:
    """Per preemptor, the engine's victims against the reference's, and per victim its preemptor."""
    ev = victims_by_preemptor((d.key, tuple(v.key for v in d.preempted)) for d in engine)
    rv = victims_by_preemptor((d.workload, tuple(t.key for t in d.preempted)) for d in ref)
    eb = evicted_by((d.key, d.preempted_by) for d in engine)
    rb = evicted_by((d.workload, d.preempted_by) for d in ref)
    differ = sorted(k for k in ev.keys() | rv.keys() if ev.get(k) != rv.get(k))
    by_differ = sorted(k for k in eb.keys() | rb.keys() if eb.get(k) != rb.get(k))
    return {"engine_preemptors": len(ev), "reference_preemptors": len(rv),
            "engine_victims": sum(map(len, ev.values())), "reference_victims": sum(map(len, rv.values())),
            "engine_evicted": len(eb), "reference_evicted": len(rb),
            "equal_lists": sum(1 for k in ev.keys() & rv.keys() if ev[k] == rv[k]),
            "differ": differ, "evicted_by_differ": by_differ, "ev": ev, "rv": rv}


def optimal_victims(model: Model, budget: float) -> str:
    """A line on optimal mode's victims, whether or not it preempts yet (guarded: any error is printed)."""
    from kadmit.engine.decide import admit
    t0 = time.perf_counter()
    try:
        result = admit(model, "optimal", time_budget=budget)
    except Exception as err:  # noqa: BLE001 -- the bench reports engine failures and goes on
        return f"optimal mode raised {type(err).__name__}: {str(err)[:200]}"
    t = time.perf_counter() - t0
    info = result.optimal or {}
    admitted = sum(d.admitted for d in result.decisions if d.workload.admission is None)
    if "victims" not in info:
        return (f"optimal mode ({t:.2f} s, status {info.get('status')}): {admitted} pending admitted; "
                "it does not preempt yet (no 'victims' in its result)")
    victims = info["victims"]
    n = len(victims) if isinstance(victims, (list, tuple, set, dict)) else victims
    ordered_n = info.get("victims_ordered")
    ordered_n = len(ordered_n) if isinstance(ordered_n, (list, tuple, set, dict)) else ordered_n
    by_priority = ", ".join(f"{row['priority']}: {row['admitted']} (ordered {row['ordered_admitted']})"
                            for row in info.get("per_priority", []) if "ordered_admitted" in row)
    return (f"optimal mode ({t:.2f} s, status {info.get('status')}): {admitted} pending admitted"
            f"{' by priority ' + by_priority if by_priority else ''}; {n} victims (ordered mode: {ordered_n})")


def run_state(cluster_queues: int, cohorts: int, *, seed: int, with_reference: bool, optimal_budget: float) -> dict:
    out: dict = {"failures": 0}
    print(f"\n=== kueue_preempt_state({cluster_queues}, {cohorts}) ===")
    full = kueue_preempt_state(cluster_queues, cohorts, seed)
    empty = kueue_preempt_state(cluster_queues, cohorts, seed, empty=True)
    pending = [w for w in full.workloads if w.admission is None]
    running = len(full.workloads) - len(pending)
    print(f"   {running:,} admitted low-priority workloads fill every cohort; {len(pending):,} pending "
          f"(each queue asks for its nominal quota)")

    # 1. baseline: the same pending workloads, empty cluster
    failed = Failures("1.")
    with failed:
        t_base, base_ds, base_rec, _ = run(empty)
        admits = [r.seconds for r in base_rec if r.admitted]
        b_med, b_p95 = quantiles(admits)
        print(f"1. baseline (empty cluster): {len(base_ds):,} decided, {sum(d.admitted for d in base_ds):,} admitted, "
              f"{sum(len(d.preempted) for d in base_ds)} victims in {t_base:.3f} s; per admitting decision "
              f"median {ms(b_med)}, p95 {ms(b_p95)} ({len(admits)} decisions)")
        out |= {"baseline_s": t_base, "baseline_median_ms": b_med * 1000, "baseline_p95_ms": b_p95 * 1000}
    out["failures"] += failed.report()
    if failed.errors:
        return out

    # 2. the full cluster
    failed = Failures("2.")
    with failed:
        t_full, ds, rec, session = run(full)
        pre = [r for r in rec if r.preempting]
        others = [r.seconds for r in rec if not r.preempting and not r.admitted]
        admitted_now = [r.seconds for r in rec if r.admitted]
        victims = sum(r.targets for r in pre)
        evicted = sum(1 for d in ds if d.preempted_by)
        print(f"2. preempting (full cluster): {len(ds):,} decided, "
              f"{sum(d.admitted for d in ds if d.workload.admission is None):,} of {len(pending):,} pending admitted "
              f"in {t_full:.2f} s, {max((d.cycle for d in ds), default=0)} cycles; solver {session.stats.as_dict()}")
        print(f"   {len(pre):,} preempting decisions by {len({r.key for r in pre}):,} preemptors chose {victims:,} "
              f"victims ({victims / max(1, len(pre)):.1f} per decision); {evicted:,} workloads evicted at the end")
        if pre:
            p_med, p_p95 = quantiles([r.seconds for r in pre])
            n_med, _ = quantiles([r.nominate_s for r in pre])
            print(f"   per preempting decision: median {ms(p_med)} (nominate {ms(n_med)}), p95 {ms(p_p95)}; "
                  f"{sum(r.recomputed for r in pre)} recomputed for overlapping targets")
            print(f"   vs baseline: preempting decision / admitting decision {p_med / b_med:.1f}x (median), "
                  f"{p_p95 / b_p95:.1f}x (p95); wall {t_full / t_base:.1f}x")
            out |= {"preempt_median_ms": p_med * 1000, "preempt_p95_ms": p_p95 * 1000}
        if admitted_now:
            a_med, _ = quantiles(admitted_now)
            print(f"   admitting decisions in the same run: median {ms(a_med)} ({len(admitted_now)})")
        if others:
            o_med, o_p95 = quantiles(others)
            print(f"   heads neither admitted nor preempting: median {ms(o_med)}, p95 {ms(o_p95)} ({len(others)})")
        out |= {"full_s": t_full, "preempting_decisions": len(pre), "victims": victims, "evicted": evicted}
    out["failures"] += failed.report()
    if failed.errors:
        return out

    # 3. the greedy reference
    if with_reference:
        t0 = time.perf_counter()
        ref = reference.decide(full, preemption=True)
        t_ref = time.perf_counter() - t0
        diff = disagreements(engine_view(ds), reference_view(ref))
        cmp = compare_victims(ds, ref)
        print(f"3. reference (greedy, plain Python): {t_ref:.2f} s; engine / reference {t_full / t_ref:.2f}x; "
              f"decisions that differ: {len(diff)} (must be 0){' e.g. ' + ', '.join(diff[:3]) if diff else ''}")
        per = lambda v, p: v / max(1, p)
        print(f"   victims: engine {cmp['engine_victims']:,} by {cmp['engine_preemptors']:,} preemptors "
              f"({per(cmp['engine_victims'], cmp['engine_preemptors']):.2f} each), reference "
              f"{cmp['reference_victims']:,} by {cmp['reference_preemptors']:,} "
              f"({per(cmp['reference_victims'], cmp['reference_preemptors']):.2f} each); equal victim lists "
              f"{cmp['equal_lists']:,}, different {len(cmp['differ'])} (must be 0); evicted workloads engine "
              f"{cmp['engine_evicted']:,}, reference {cmp['reference_evicted']:,}, evicted by a different "
              f"preemptor {len(cmp['evicted_by_differ'])} (must be 0)")
        for key in cmp["differ"][:3]:
            print(f"     {key}: engine {len(cmp['ev'].get(key, ()))} victims, reference {len(cmp['rv'].get(key, ()))}")
        out |= {"reference_s": t_ref, "disagreements": len(diff), "victim_lists_differ": len(cmp["differ"]),
                "evicted_by_differ": len(cmp["evicted_by_differ"])}

    # 4. optimal mode, if it preempts
    if optimal_budget > 0:
        print(f"4. {optimal_victims(full, optimal_budget)}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small states (seconds)")
    p.add_argument("--state", action="append", metavar="CQS,COHORTS",
                   help="a state to run instead of the defaults (repeatable)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-reference", action="store_true", help="skip the reference replay")
    p.add_argument("--optimal-budget", type=float, default=5.0,
                   help="seconds for optimal mode per state (0: skip it)")
    a = p.parse_args(argv)
    chosen = [tuple(int(x) for x in s.split(",")) for s in a.state] if a.state else (QUICK if a.quick else FULL)
    t0 = time.perf_counter()
    results = [run_state(cqs, cohorts, seed=a.seed, with_reference=not a.no_reference,
                         optimal_budget=a.optimal_budget) for cqs, cohorts in chosen]
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    bad = any(r["failures"] or r.get("disagreements") or r.get("victim_lists_differ") or r.get("evicted_by_differ")
              for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
