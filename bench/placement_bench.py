"""Topology-aware placement inside admission: speed and packing (issue 4, item 10).

(a) Kueue's TAS performance-test shape (`tas_states.kueue_tas_state`: 640 nodes, 6 cluster queues
    in 2 cohorts, 1,050 workloads of 2/4/8 pods asking for a rack, required or preferred): the wall
    time of `admit(model, "ordered")`, decisions per second, the time per workload decision
    (`session.try_admit` + `session.commit`, summed per workload over the run), admitted workloads;
    and the same for the same workloads without topology requests on a flavor without a topology
    (quota only) as the baseline, with the ratios.
(b) 5,000 GPU nodes (10 blocks x 25 racks x 20 nodes of 8 GPUs) and 500 gangs of 8-256 pods
    (`tas_states.gpu_gang_state`): the time per gang decision, and single big gangs tried on the
    empty and on the packed cluster; then whole free 8-GPU nodes and admitted gangs after packing
    every gang in order, against a greedy first-fit placer (below) on the same gangs.
    With `--optimal BUDGET`: the same gangs also in `optimal` mode (CP-SAT with placement, its budget
    in CP-SAT deterministic time, one worker, fixed seed), side by side with greedy and BestFit, its
    stages, a digest of its placements (same input and budget, same digest), and the bounds that GPU
    counts alone put on any placer (most gangs, most GPUs at that many gangs, GPUs vs whole nodes).

Both check, cheaply, that no node's capacity is handed out twice and that every admitted pod set
with a topology request is placed whole (in one domain when required). Times are printed beside
the baseline and the aim; nothing asserts a time (these machines are noisy).
Run: `.venv/bin/python bench/placement_bench.py` (full) or `--quick`.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from admission_bench import top_functions
from tas_states import (BLOCK, GPU, NODE_GPUS, RACK, Gang, gang_requests, gang_workload, gpu_gang_state,
                        kueue_tas_state)

from kadmit.engine.decide import admit
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.index import resolve_level
from kadmit.model import Model, Node, Topology, Workload
from kadmit.placement.inventory import PODS, add, model_inventory, pod_usage, subtract

FULL_A = {"racks": 10, "nodes_per_rack": 64, "workloads_per_queue": 175}
QUICK_A = {"racks": 4, "nodes_per_rack": 16, "workloads_per_queue": 30}
FULL_B = {"blocks": 10, "racks": 25, "nodes_per_rack": 20, "gangs": 500, "max_pods": 256}
QUICK_B = {"blocks": 3, "racks": 10, "nodes_per_rack": 20, "gangs": 64, "max_pods": 128}
AIM_BIG_GANG_MS = 250.0  # a 256-pod gang with a required rack


def clock(fn: Callable):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def p95(values: Sequence[float]) -> float:
    """The 95th percentile (nearest rank)."""
    v = sorted(values)
    return v[max(0, -(-len(v) * 95 // 100) - 1)] if v else 0.0


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


class DecisionClock:
    """Times `session.try_admit` and `session.commit` per workload (summed over the run: a workload
    may be tried in several cycles), and `session.pool.place` overall, by wrapping the instance's
    methods; `decide_ordered` calls them through the instance."""

    def __init__(self, session: Session) -> None:
        self.per_workload: dict[str, float] = {}
        self.place_seconds = 0.0
        self.place_calls = 0
        try_admit, commit, place = session.try_admit, session.commit, session.pool.place

        def timed_try(wl: Workload):
            t0 = time.perf_counter()
            try:
                return try_admit(wl)
            finally:
                self._add(wl.key, time.perf_counter() - t0)

        def timed_commit(wl: Workload, a) -> None:
            t0 = time.perf_counter()
            try:
                commit(wl, a)
            finally:
                self._add(wl.key, time.perf_counter() - t0)

        def timed_place(*args, **kw):
            t0 = time.perf_counter()
            try:
                return place(*args, **kw)
            finally:
                self.place_seconds += time.perf_counter() - t0
                self.place_calls += 1

        session.try_admit = timed_try  # type: ignore[method-assign]
        session.commit = timed_commit  # type: ignore[method-assign]
        session.pool.place = timed_place  # type: ignore[method-assign]

    def _add(self, key: str, seconds: float) -> None:
        self.per_workload[key] = self.per_workload.get(key, 0.0) + seconds


class GCClock:
    """Wall time spent in Python's garbage collector while active (gc.callbacks), full collections
    (generation 2) apart: with a big session alive they cost a lot each, and placing allocates
    enough objects to trigger them."""

    def __init__(self) -> None:
        self.seconds = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]
        self._t0 = 0.0

    def _cb(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.seconds[info["generation"]] += time.perf_counter() - self._t0
            self.count[info["generation"]] += 1

    def __enter__(self) -> "GCClock":
        gc.callbacks.append(self._cb)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self._cb)

    def text(self) -> str:
        return (f"garbage collector {sum(self.seconds):.2f} s, of which {self.count[2]} full collections "
                f"{self.seconds[2]:.2f} s")


@dataclass
class Run:
    session: Session
    decisions: list[Decision]
    seconds: float  # Session(model) + decide_ordered, wall
    cpu: float  # the same, process time
    clock: DecisionClock
    gc: GCClock

    @property
    def admitted(self) -> int:
        return sum(d.admitted for d in self.decisions)

    def times(self) -> list[float]:
        return list(self.clock.per_workload.values())


GC_FREEZE = False  # --gc-freeze: an experiment, not what the engine does


def decide(model: Model, profile: cProfile.Profile | None = None) -> Run:
    """A fresh session over `model`, every pending workload decided in `ordered` mode, timed. With
    GC_FREEZE, the objects alive once the session is built are moved out of the collector's reach
    (`gc.freeze()`), to show what full collections cost."""
    t0, c0 = time.perf_counter(), time.process_time()
    if profile:
        profile.enable()
    with GCClock() as collector:
        session = Session(model)
        if GC_FREEZE:
            gc.freeze()
        timer = DecisionClock(session)
        decisions = decide_ordered(session)
    if profile:
        profile.disable()
    if GC_FREEZE:
        gc.unfreeze()
    return Run(session, decisions, time.perf_counter() - t0, time.process_time() - c0, timer, collector)


# --- invariants -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Placed:
    """One pod set placed on nodes, as either placer reports it."""

    key: str  # workload/pod set
    requests: dict  # per pod
    count: int
    mode: str | None  # topology mode, None without a request
    level: str | None  # the requested level's node-label key
    nodes: dict  # node -> pods


def check_placements(nodes: Sequence[Node], free0: dict[str, dict[str, int]], placed: Iterable[Placed],
                     levels: Sequence[str]) -> dict[str, int]:
    """Assert that every pod set is placed whole, in one domain of its level when required, and
    that no node is given more than it had free at the start. Returns pod sets and nodes used."""
    labels = {n.name: n.labels for n in nodes}
    used: dict[str, dict[str, int]] = {}
    n_sets = 0
    for p in placed:
        n_sets += 1
        got = sum(p.nodes.values())
        assert got == p.count, f"{p.key}: {got} of {p.count} pods placed"
        if p.mode == "required" and p.level is not None:
            depth = list(levels).index(p.level) + 1
            domains = {tuple(labels[n][k] for k in levels[:depth]) for n in p.nodes}
            assert len(domains) == 1, f"{p.key}: required {p.level} but placed in {sorted(domains)}"
        for node, pods in p.nodes.items():
            assert node in free0, f"{p.key}: unknown node {node}"
            used[node] = add(used.get(node, {}), pod_usage(p.requests, pods))
    for node, use in used.items():
        over = {r: q - free0[node].get(r, 0) for r, q in use.items() if q > free0[node].get(r, 0)}
        assert not over, f"node {node} over-committed by {over}"
    return {"pod_sets": n_sets, "nodes_used": len(used)}


def engine_placed(decisions: Iterable[Decision], topology: Topology) -> list[Placed]:
    """The placements of admitted workloads; asserts that every pod set with a topology request
    of an admitted workload got one."""
    out = []
    for d in decisions:
        if not d.admitted or d.assignment is None:
            continue
        wl, a = d.workload, d.assignment
        by_set = {p.request.pod_set: p for p in (a.placement.pod_sets if a.placement else [])}
        assert a.placement is None or a.placement.ok, f"{wl.key}: admitted with a failed placement"
        for ps in wl.pod_sets:
            p = by_set.get(ps.name)
            if p is None:
                assert ps.topology is None, f"{wl.key}/{ps.name}: admitted without a placement"
                continue
            level = p.request.request.level
            key = resolve_level(topology, level)
            out.append(Placed(f"{wl.key}/{ps.name}", dict(ps.requests), a.counts[ps.name],
                              p.request.request.mode, key, dict(p.nodes)))
    return out


def start_free(model: Model) -> dict[str, dict[str, int]]:
    return {n.name: n.free for n in model_inventory(model).nodes}


# --- (a) Kueue's TAS perf-test shape --------------------------------------------------------------

def scenario_a(racks: int, nodes_per_rack: int, workloads_per_queue: int, *, seed: int = 0,
               profile: bool = False) -> dict:
    out: dict = {}
    tas = kueue_tas_state(racks, nodes_per_rack, workloads_per_queue=workloads_per_queue, seed=seed)
    quota = kueue_tas_state(racks, nodes_per_rack, workloads_per_queue=workloads_per_queue, seed=seed, tas=False)
    n = len(tas.workloads)
    print(f"\n=== (a) Kueue TAS perf shape: {len(tas.nodes)} nodes (1 block x {racks} racks x {nodes_per_rack}), "
          f"{len(tas.cluster_queues)} cluster queues, {n:,} workloads of 2/4/8 pods ===")

    t_admit, res = clock(lambda: admit(tas, "ordered"))
    t_admit_q, res_q = clock(lambda: admit(quota, "ordered"))
    adm, adm_q = sum(d.admitted for d in res.decisions), sum(d.admitted for d in res_q.decisions)
    print(f"1. admit (ordered), wall: TAS {t_admit:.2f} s ({n / t_admit:,.0f} decisions/s, {adm:,} admitted); "
          f"quota only {t_admit_q:.2f} s ({n / t_admit_q:,.0f}/s, {adm_q:,} admitted); TAS / quota {ratio(t_admit, t_admit_q)}")
    out |= {"admit_s": t_admit, "admit_quota_s": t_admit_q, "admitted": adm, "admitted_quota": adm_q, "workloads": n}

    prof = cProfile.Profile() if profile else None
    run, run_q = decide(tas, prof), decide(quota)
    med, med_q = statistics.median(run.times()), statistics.median(run_q.times())
    hi, hi_q = p95(run.times()), p95(run_q.times())
    print(f"2. per workload decision (try_admit + commit, summed over cycles): TAS median {ms(med)}, p95 {ms(hi)}; "
          f"quota only median {ms(med_q)}, p95 {ms(hi_q)}; TAS / quota median {ratio(med, med_q)}, p95 {ratio(hi, hi_q)}")
    print(f"   decide only (Session + decide_ordered): TAS {run.seconds:.2f} s ({n / run.seconds:,.0f}/s; process time "
          f"{run.cpu:.2f} s), quota only {run_q.seconds:.2f} s (process time {run_q.cpu:.2f} s); TAS / quota "
          f"{ratio(run.seconds, run_q.seconds)}")
    print(f"   TAS: placing {run.clock.place_calls:,} calls, {run.clock.place_seconds:.2f} s "
          f"({run.clock.place_seconds / run.seconds:.0%} of deciding); {run.gc.text()}")
    out |= {"decision_median_ms": med * 1000, "decision_p95_ms": hi * 1000, "decision_quota_median_ms": med_q * 1000,
            "decision_quota_p95_ms": hi_q * 1000, "decide_s": run.seconds, "decide_quota_s": run_q.seconds}
    assert run.admitted == adm and run_q.admitted == adm_q, "the timed run decided differently from admit()"

    free0 = start_free(tas)
    placed = engine_placed(run.decisions, tas.topologies[0])
    assert len(placed) == adm, f"{adm} admitted but {len(placed)} pod sets placed"
    checked = check_placements(tas.nodes, free0, placed, tas.topologies[0].levels)
    cap = {r: sum(f.get(r, 0) for f in free0.values()) for r in ("cpu", "memory")}
    left = {r: sum(f.get(r, 0) for f in run.session.pool.free.values()) for r in ("cpu", "memory")}
    use = {r: 1 - left[r] / cap[r] for r in cap}
    print(f"3. checked: {checked['pod_sets']:,} pod sets placed whole, none over-committing a node; "
          f"{checked['nodes_used']}/{len(free0)} nodes used; cluster cpu {use['cpu']:.0%}, memory {use['memory']:.0%} taken")
    out |= {"placed_pod_sets": checked["pod_sets"], "memory_used": use["memory"]}
    if prof:
        print("   profile of the TAS run (top by own time):\n" + top_functions(prof))
    return out


# --- (b) GPU gangs ----------------------------------------------------------------------------------

PROBES = (  # name, pods, per-pod requests, mode, level
    ("256 x 1 GPU, required block", 256, gang_requests(1), "required", BLOCK),
    ("160 x 1 GPU, required rack (a rack's GPUs)", 160, gang_requests(1), "required", RACK),
    ("256 x 1 cpu, no GPU, required rack", 256, gang_requests(0, 1), "required", RACK),
    ("256 x 8 GPU, required block", 256, gang_requests(8), "required", BLOCK),
)
BIG_RACK_PROBE = PROBES[2][0]


def probe_workloads(after: int) -> list[tuple[str, Workload]]:
    return [(name, gang_workload(Gang(f"probe-{i}", pods, dict(req), mode, level), after + i + 1))
            for i, (name, pods, req, mode, level) in enumerate(PROBES)]


def time_probes(session: Session, probes: list[tuple[str, Workload]], repeats: int) -> dict[str, tuple]:
    """Per probe: (first try, median of `repeats` more, admitted?) of `session.try_admit`; nothing
    is committed, so the state stays as it was."""
    out = {}
    for name, wl in probes:
        def attempt(w: Workload = wl):
            return session.try_admit(w)
        first, (got, _) = clock(attempt)
        again = [clock(attempt)[0] for _ in range(repeats)]
        out[name] = (first, statistics.median(again) if again else first, got is not None)
    return out


def print_probes(title: str, timed: dict[str, tuple]) -> None:
    print(f"   {title}:")
    for name, (first, med, ok) in timed.items():
        print(f"     {name:<44} first {ms(first):>10}, then median {ms(med):>10}  "
              f"{'admitted' if ok else 'does not fit'}")


def greedy_first_fit(nodes: Sequence[Node], gangs: Sequence[Gang]) -> tuple[dict[str, dict[str, int]],
                                                                            dict[str, dict[str, int]]]:
    """The plain baseline: each gang in order, its pods one by one onto the first node by name with
    room, trying the domains its topology request allows in name order (required: its level's
    domains; preferred: those, then the level above, up to the whole cluster); a gang that doesn't
    fit whole is skipped. Returns (gang -> node -> pods, free capacity per node after)."""
    free = {n.name: dict(n.allocatable) for n in sorted(nodes, key=lambda n: n.name)}
    labels = {n.name: n.labels for n in nodes}

    def domains(keys: tuple[str, ...]) -> list[list[str]]:
        groups: dict[tuple, list[str]] = {}
        for name in free:  # sorted by name
            groups.setdefault(tuple(labels[name][k] for k in keys), []).append(name)
        return [groups[k] for k in sorted(groups)]

    tiers = {RACK: [domains((BLOCK, RACK)), domains((BLOCK,)), [list(free)]],
             BLOCK: [domains((BLOCK,)), [list(free)]]}
    placed: dict[str, dict[str, int]] = {}
    for g in gangs:
        per_pod = {**{r: q for r, q in g.requests.items() if q}, PODS: 1000}
        levels = tiers[g.level][:1] if g.mode == "required" else tiers[g.level]
        for doms in levels:
            got = next((fit for dom in doms if (fit := _first_fit(dom, free, per_pod, g.pods))), None)
            if got:
                for node, pods in got.items():
                    for r, q in per_pod.items():
                        free[node][r] -= q * pods
                placed[g.name] = got
                break
    return placed, free


def _first_fit(nodes: list[str], free: dict[str, dict[str, int]], per_pod: dict[str, int],
               pods: int) -> dict[str, int] | None:
    """Identical pods one by one onto the first node with room: node by node, as many as fit."""
    out, left = {}, pods
    for node in nodes:
        room = min(free[node].get(r, 0) // q for r, q in per_pod.items())
        if room > 0:
            out[node] = min(room, left)
            left -= out[node]
            if left == 0:
                return out
    return None


def whole_free_gpu_nodes(free: dict[str, dict[str, int]]) -> int:
    return sum(1 for f in free.values() if f.get(GPU, 0) >= NODE_GPUS * 1000)


def scenario_b(blocks: int, racks: int, nodes_per_rack: int, gangs: int, max_pods: int, *, seed: int = 0,
               repeats: int = 3, profile: bool = False, optimal: float | None = None) -> dict:
    out: dict = {}
    model, chosen = gpu_gang_state(blocks, racks, nodes_per_rack, gangs, max_pods, seed=seed)
    n_nodes = len(model.nodes)
    demand = sum(g.pods * g.requests.get(GPU, 0) for g in chosen) / 1000
    print(f"\n=== (b) GPU gangs: {n_nodes:,} nodes ({blocks} blocks x {racks} racks x {nodes_per_rack}, "
          f"{NODE_GPUS} GPUs each), {gangs} gangs of {min(g.pods for g in chosen)}-{max(g.pods for g in chosen)} pods "
          f"asking for {demand:,.0f} GPUs ({demand / (n_nodes * NODE_GPUS):.0%} of the cluster's) ===")
    probes = probe_workloads(len(chosen))

    empty = Session(model)
    timed_empty = time_probes(empty, probes, repeats)
    print("1. single gangs tried on the empty cluster (session.try_admit; first includes compiling its shape)")
    print_probes("empty cluster", timed_empty)

    prof = cProfile.Profile() if profile else None
    run = decide(model, prof)
    times = run.times()
    med, hi = statistics.median(times), p95(times)
    slowest = max(run.clock.per_workload.items(), key=lambda kv: kv[1])
    print(f"2. all {gangs} gangs in order: {run.seconds:.2f} s (process time {run.cpu:.2f} s), {run.admitted} admitted; "
          f"per gang decision median {ms(med)}, p95 {ms(hi)}, slowest {ms(slowest[1])} ({slowest[0]})")
    print(f"   placing {run.clock.place_seconds:.2f} s over {run.clock.place_calls} calls "
          f"({run.clock.place_seconds / run.seconds:.0%} of deciding); {run.gc.text()}")
    out |= {"decide_s": run.seconds, "admitted": run.admitted, "gang_median_ms": med * 1000, "gang_p95_ms": hi * 1000,
            "gc_full_s": run.gc.seconds[2]}

    free0 = start_free(model)
    placed = engine_placed(run.decisions, model.topologies[0])
    assert len(placed) == run.admitted
    checked = check_placements(model.nodes, free0, placed, model.topologies[0].levels)
    print(f"   checked: {checked['pod_sets']} gangs placed whole (required ones in one domain), no node over-committed")

    timed_full = time_probes(run.session, probes, repeats)
    print("3. single gangs tried on the packed cluster (after step 2; nothing committed)")
    print_probes("packed cluster", timed_full)
    big = timed_empty[BIG_RACK_PROBE][1]
    print(f"   aim: a 256-pod gang with a required rack < {AIM_BIG_GANG_MS:.0f} ms. Measured: 256 x 1 cpu (the 256-pod "
          f"gang that fits a rack) {ms(big)} empty / {ms(timed_full[BIG_RACK_PROBE][1])} packed; 256 x 1 GPU can't "
          f"fit a rack ({nodes_per_rack * NODE_GPUS} GPUs), so it asks for a block: "
          f"{ms(timed_empty[PROBES[0][0]][1])} empty; 160 x 1 GPU required rack {ms(timed_empty[PROBES[1][0]][1])} empty")
    out |= {f"probe_empty_ms[{k}]": v[1] * 1000 for k, v in timed_empty.items()}
    out |= {f"probe_packed_ms[{k}]": v[1] * 1000 for k, v in timed_full.items()}
    out["big_rack_gang_ms"] = big * 1000

    t_greedy, (g_placed, g_free) = clock(lambda: greedy_first_fit(model.nodes, chosen))
    by_name = {g.name: g for g in chosen}
    check_placements(model.nodes, free0, [
        Placed(name, by_name[name].requests, by_name[name].pods, by_name[name].mode, by_name[name].level, nodes)
        for name, nodes in g_placed.items()], model.topologies[0].levels)
    tas_free, greedy_free = whole_free_gpu_nodes(run.session.pool.free), whole_free_gpu_nodes(g_free)
    tas_gpus = sum(p.count * p.requests.get(GPU, 0) for p in placed) / 1000
    greedy_gpus = sum(by_name[k].pods * by_name[k].requests.get(GPU, 0) for k in g_placed) / 1000
    print(f"4. packing, all gangs in order, TAS (Kueue's Mixed profile: BestFit) vs greedy first-fit (took {t_greedy:.2f} s, "
          f"checked too):")
    print(f"   whole free {NODE_GPUS}-GPU nodes {tas_free} vs {greedy_free} (TAS / greedy {ratio(tas_free, greedy_free)}); "
          f"admitted gangs {run.admitted} vs {len(g_placed)} ({ratio(run.admitted, len(g_placed))}); "
          f"GPUs placed {tas_gpus:,.0f} vs {greedy_gpus:,.0f} ({ratio(tas_gpus, greedy_gpus)})")
    if run.admitted < gangs or len(g_placed) < gangs:
        print(f"   gangs left waiting: {gangs - run.admitted} vs {gangs - len(g_placed)}: whole free nodes are then capacity "
              f"that waiting gangs could not use in the topology they ask for, not spare room")
    out |= {"whole_free_tas": tas_free, "whole_free_greedy": greedy_free, "admitted_greedy": len(g_placed),
            "gpus_tas": tas_gpus, "gpus_greedy": greedy_gpus}
    if optimal is not None:
        rows = {"greedy first-fit": (len(g_placed), greedy_gpus, greedy_free, t_greedy),
                "BestFit (ordered)": (run.admitted, tas_gpus, tas_free, run.seconds)}
        out |= compare_optimal(model, free0, rows, optimal, chosen)

    if prof or big * 1000 > AIM_BIG_GANG_MS:
        p = cProfile.Profile()
        wl = dict(probes)[BIG_RACK_PROBE]
        p.enable()
        empty.try_admit(wl)
        p.disable()
        print(f"   profile of one try of '{BIG_RACK_PROBE}' on the empty cluster (top by own time):\n"
              + top_functions(p))
    if prof:
        print("   profile of step 2 (top by own time):\n" + top_functions(prof))
    return out


def compare_optimal(model: Model, free0: dict[str, dict[str, int]], rows: dict[str, tuple], budget: float,
                    gangs: Sequence[Gang]) -> dict:
    """`admit(model, "optimal")` on the gang state, its placements checked like the others', printed
    beside `rows` (name -> admitted gangs, GPUs placed, whole free GPU nodes, seconds), and whether
    it places at least as many gangs and GPUs as each and keeps at least BestFit's whole free nodes;
    then the bounds that say how far any placer could go (from the numbers alone, no solver)."""
    t_opt, res = clock(lambda: admit(model, "optimal", time_budget=budget))
    opt = res.optimal or {}
    placed = engine_placed(res.decisions, model.topologies[0])
    admitted = sum(d.admitted for d in res.decisions)
    assert len(placed) == admitted, f"{admitted} admitted but {len(placed)} gangs placed"
    check_placements(model.nodes, free0, placed, model.topologies[0].levels)
    free = {n: dict(f) for n, f in free0.items()}
    for p in placed:
        for node, pods in p.nodes.items():
            free[node] = subtract(free[node], pod_usage(p.requests, pods))
    gpus = sum(p.count * p.requests.get(GPU, 0) for p in placed) / 1000
    rows = {**rows, "optimal (CP-SAT)": (admitted, gpus, whole_free_gpu_nodes(free), t_opt)}
    place = opt.get("placement", {})
    print(f"5. optimal mode, deterministic budget {budget:g} (CP-SAT deterministic time, {res.solver.get('workers')} "
          f"worker, seed {res.solver.get('seed')}): status {opt.get('status')}, deterministic time used "
          f"{opt.get('deterministic_time')}, started from the {place.get('start')} assignment, {place.get('pools')} pools "
          f"over {place.get('classes')} node classes, {place.get('rounds')} solve/decode rounds, {place.get('cuts')} cuts; "
          f"placements checked (whole, in one domain when required, no node over-committed)")
    for st in opt.get("stages", []):
        print(f"   stage {st['name']:<28} {st['status']:<9} value {st['value']}, bound {st['bound']}, "
              f"deterministic time {st['deterministic_time']}, {st['seconds']:.1f} s")
    digest = hashlib.sha256(repr(sorted((p.key, sorted(p.nodes.items())) for p in placed)).encode()).hexdigest()[:12]
    print(f"   placements digest {digest} (the same input and budget give the same digest, whatever the load)")
    print(f"   optimal mode's own time {opt.get('seconds')} s (the ordered run it starts from, building, the greedy start, "
          f"solving, decoding)")
    cap = sum(f.get(GPU, 0) for f in free0.values()) / 1000
    print(f"   {'placer':<20} {'gangs':>6} {'GPUs placed':>12} {'whole free nodes':>17} {'free GPUs off whole nodes':>26} {'time':>9}")
    for name, (g, u, w, t) in rows.items():
        print(f"   {name:<20} {g:>6} {u:>12,.0f} {w:>17} {cap - u - w * NODE_GPUS:>26,.0f} {t:>8.2f}s")
    print("   (optimal's time includes the ordered run it starts from; greedy's is the plain-Python placer)")
    og, ou, ow, _ = rows["optimal (CP-SAT)"]
    for name, (g, u, w, _) in rows.items():
        if name == "optimal (CP-SAT)":
            continue
        verdict = [f"gangs {'>=' if og >= g else '<'} ({og} vs {g})", f"GPUs {'>=' if ou >= u else '<'} ({ou:,.0f} vs {u:,.0f})"]
        if name.startswith("BestFit"):
            verdict.append(f"whole free nodes {'>=' if ow >= w else '<'} ({ow} vs {w})")
        print(f"   optimal vs {name}: " + ", ".join(verdict))
    bounds(gangs, cap, rows)
    return {"optimal_admitted": og, "optimal_gpus": ou, "optimal_whole_free": ow, "optimal_s": t_opt,
            "optimal_status": opt.get("status"), "optimal_work": opt.get("deterministic_time"), "optimal_digest": digest}


def bounds(gangs: Sequence[Gang], cap: float, rows: dict[str, tuple]) -> None:
    """What no placer can beat, from GPU counts alone: the most gangs whose GPUs fit the cluster,
    the most GPUs with that many gangs when it is all but one, and the trade between GPUs placed and
    whole free nodes (GPUs + 8 x whole free nodes <= the cluster's GPUs)."""
    need = sorted(g.pods * g.requests.get(GPU, 0) / 1000 for g in gangs)
    total, most, acc = sum(need), 0, 0.0
    for x in need:
        if acc + x > cap:
            break
        acc, most = acc + x, most + 1
    print(f"   bounds: {len(gangs)} gangs ask for {total:,.0f} GPUs of {cap:,.0f}; at most {most} gangs fit by GPUs alone")
    if most == len(gangs) - 1:
        drop = min(x for x in need if total - x <= cap)
        print(f"   with {most} gangs, at most {total - drop:,.0f} GPUs: the gang left out must hold {total - cap:,.0f} or more, "
              f"and the smallest that does asks for {drop:,.0f}")
    for name, (g, u, w, _) in rows.items():
        print(f"   {name}: GPUs placed + {NODE_GPUS} x whole free nodes = {u + NODE_GPUS * w:,.0f} of {cap:,.0f}, so keeping its "
              f"{w} whole free nodes allows at most {cap - NODE_GPUS * w:,.0f} GPUs placed")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small clusters, for a smoke run (< 20 s)")
    p.add_argument("--only", choices=("a", "b"), help="run one scenario")
    p.add_argument("--repeats", type=int, default=5, help="tries of each single gang after the first")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", action="store_true", help="print cProfile summaries")
    p.add_argument("--gc-freeze", action="store_true",
                   help="experiment: gc.freeze() once each session is built (shows what full collections cost)")
    p.add_argument("--optimal", type=float, metavar="BUDGET", default=None,
                   help="also run optimal mode on (b) with this CP-SAT deterministic-time budget, beside greedy and BestFit")
    a = p.parse_args(argv)
    global GC_FREEZE
    GC_FREEZE = a.gc_freeze
    t0 = time.perf_counter()
    if a.only != "b":
        scenario_a(**(QUICK_A if a.quick else FULL_A), seed=a.seed, profile=a.profile)
    if a.only != "a":
        scenario_b(**(QUICK_B if a.quick else FULL_B), seed=a.seed, repeats=a.repeats, profile=a.profile,
                   optimal=a.optimal)
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
