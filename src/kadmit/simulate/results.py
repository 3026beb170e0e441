"""A replay's results as plain data: per workload, per queue, per flavor, totals, series, run figures.

Everything but the `"run"` key depends only on the inputs (times in seconds from the start, rounded
to the millisecond; lists sorted by name), so the same inputs give byte-identical JSON.
"""

from __future__ import annotations

import math

from kadmit.quantity import format_quantity, is_memory_like

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")


def sec(ms: int | None) -> float | None:
    return None if ms is None else round(ms / 1000, 3)


def percentile(values: list[int], p: float) -> int | None:
    """Nearest-rank percentile (p in 0..1)."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(p * len(s)) - 1)]


def results(sim, series_points: int = 200) -> dict:
    end = sim.recorder.end
    workloads = []
    by_queue: dict[str, list] = {}
    never: dict[str, int] = {}
    gpu_ms = 0
    for key in sorted(sim.records):
        r = sim.records[key]
        if r.arrived is None:
            continue  # arrives after --until
        gpu_ms += sum(r.requests.get(g, 0) for g in GPU_RESOURCES) * r.run_ms // 1000  # GPU-milliseconds
        entry = {
            "workload": key, "kind": r.kind, "priority": r.priority, "arrived": sec(r.arrived),
            "admitted_at": sec(r.admitted_at), "started_at": sec(r.started_at if r.kind == "kueue" else r.admitted_at),
            "finished_at": sec(r.finished_at), "wait": sec(r.waiting_ms), "duration": sec(r.duration),
            "cluster_queue": r.cluster_queue,
            "pod_sets": [{"name": p.name, "count": p.count, "flavors": p.flavors,
                          "placement": dict(sorted(p.placement.items()))} for p in r.pod_sets]
            if r.admitted_at is not None else [],
            "evictions": [{"at": sec(a), "admitted_at": sec(b)} for a, b in r.evictions],
            "state": _state(sim, r),
        }
        if entry["state"] == "checks":
            entry["checks"] = list(r.checks)
        if entry["state"] == "pending":
            why = r.reason or (NO_NODE if r.kind == "pod" else NOT_DECIDED)
            entry["reason"] = why
            entry["reasons"] = [{"code": c, "message": m} for c, m in r.reasons]
            if r.admitted_at is None:
                never[why] = never.get(why, 0) + 1
        workloads.append(entry)
        if r.kind == "kueue" and r.cluster_queue:
            by_queue.setdefault(r.cluster_queue, []).append(r)
    queues = [_queue(sim, name, by_queue.get(name, []), end) for name in sorted(sim.ix.cluster_queues)]
    flavors = _flavors(sim, end)
    admitted = sum(1 for w in workloads if w["admitted_at"] is not None)
    finished = [r.finished_at for r in sim.records.values() if r.finished_at is not None]
    summary = {
        "workloads": len(workloads), "admitted": admitted, "never_admitted": len(workloads) - admitted,
        "never_admitted_reasons": dict(sorted(never.items())),
        "finished": len(finished), "makespan": sec(max(finished, default=None)), "end": sec(end),
        "evictions": sum(len(r.evictions) for r in sim.records.values()),
        "gpu_hours": round(gpu_ms / 1000 / 3600, 3),
        "at_end": {state: sum(1 for w in workloads if w["state"] == state)
                   for state in ("finished", "running", "admitted", "checks", "pending")},
        "waiting": waiting(workloads),
    }
    if sim.undecided:  # decisions the solver's limits left unknown: the results may not be Kueue's (exit 3)
        summary["undecided"] = sorted(sim.undecided)
    if sim.stopped is not None:  # past the work budget: the replay ends early (exit 3)
        summary["stopped"] = {"at": sec(sim.stopped), "work": sim.work, "budget": sim.opt.work_budget}
    return {"summary": summary, "queues": queues, "flavors": flavors, "workloads": workloads,
            "capacity": [{"at": sec(t), "source": src, "nodes": names} for t, src, names in sim.recorder.added],
            "consolidated": [{"at": sec(t), "source": src, "nodes": names} for t, src, names in sim.recorder.removed],
            "series": _series(sim, end, series_points),
            "run": {"seconds": round(getattr(sim, "seconds", 0.0), 3),
                    "cpu_seconds": round(getattr(sim, "cpu_seconds", 0.0), 3), "decide_seconds": round(sim.decide_seconds, 3),
                    "instants": sim.instants, "decision_rounds": sim.rounds,
                    "events_per_second": round(sim.instants / sim.seconds, 1) if getattr(sim, "seconds", 0) else None,
                    "solver": sim.parts.stats().as_dict()}}


NO_NODE = "its pods fit on no node"
NOT_DECIDED = "not decided before the run ended"


def waiting(workloads: list[dict]) -> list[dict]:
    """The workloads pending at the end, grouped by their reasons' codes (in the order the reasons
    give them; pods no queue manages and workloads never decided have none): per group the codes,
    how many wait and how many of them were never admitted, the first one's reason in full, and the
    names in order."""
    groups: dict[tuple, dict] = {}
    for w in workloads:
        if w["state"] != "pending":
            continue
        codes = tuple(dict.fromkeys(r["code"] for r in w.get("reasons", [])))
        g = groups.get(codes)
        if g is None:
            g = groups[codes] = {"codes": list(codes), "count": 0, "never_admitted": 0, "example": w["reason"],
                                 "workloads": []}
        g["count"] += 1
        g["never_admitted"] += w["admitted_at"] is None
        g["workloads"].append(w["workload"])
    return sorted(groups.values(), key=lambda g: (-g["count"], g["codes"]))


def _state(sim, r) -> str:
    """Where a workload is when the run ends: `finished`, `running` (its pods bound), `admitted`
    (holding quota, pods waiting for nodes), `checks` (holding quota, waiting for admission checks
    their controllers decide at run time) or `pending`."""
    if r.finished_at is not None:
        return "finished"
    if r.kind == "pod":
        return "running" if sim.batches.get(r.key) else "pending"
    if r.key in sim.running:
        if r.checks:
            return "checks"
        return "running" if r.started_at is not None else "admitted"
    return "pending"


def _queue(sim, name: str, recs: list, end: int) -> dict:
    waits = [r.waiting_ms for r in recs if r.admitted_at is not None]
    tree = sim.tree
    usage = []
    for (cq, fl, res), s in sorted(sim.recorder.usage.items()):
        if cq != name:
            continue
        entry = tree.entry(f"cq:{name}", (fl, res))
        nominal = entry.nominal if entry.declared else 0
        borrowed = Series_over(s, nominal, end) / end if end else max(0, s.last - nominal)
        usage.append({"flavor": fl, "resource": res, "nominal": format_quantity(nominal, res),
                      "mean": _q(_mean(s, end), res), "max": format_quantity(s.maximum(), res),
                      "mean_fraction_of_nominal": round(_mean(s, end) / nominal, 4) if nominal else None,
                      "borrowed_mean": _q(borrowed, res),
                      "lent_mean": _q(_lent(sim, name, fl, res, nominal, end), res)})
    return {"name": name, "admitted": len(waits), "pending_at_end": sum(1 for r in recs if _state(sim, r) == "pending"),
            "wait_p50": sec(percentile(waits, 0.5)), "wait_p90": sec(percentile(waits, 0.9)),
            "wait_max": sec(max(waits, default=None) if waits else None),
            "wait_mean": sec(round(sum(waits) / len(waits)) if waits else None),
            "preemptions": sum(1 for _, cq in sim.recorder.evictions if cq == name),
            "usage": usage}


def _mean(s, end: int) -> float:
    """A series' mean over the run; for a run that ends where it starts (everything at t=0), its
    value at that instant."""
    return s.integral(end) / end if end else s.last


def Series_over(s, level: int, end: int) -> int:
    """∫ max(0, value - level) dt."""
    total = 0
    for (t, v), nxt in zip(s.points, s.points[1:] + [(end, 0)]):
        if v > level and nxt[0] > t:
            total += (v - level) * (min(end, nxt[0]) - t)
    return total


def _lent(sim, cq: str, fl: str, res: str, nominal: int, end: int) -> float:
    """Mean of what others in the cohort borrowed out of this queue's unused nominal quota: the
    others' borrowing, shared among the queues with unused quota in proportion to it (a run that
    ends where it starts: at that instant)."""
    if not nominal:
        return 0.0
    cohort = sim.ix.cluster_queues[cq].cohort
    if not cohort:
        return 0.0
    root = sim.tree.root(f"cq:{cq}")
    peers = sorted(c for c in sim.ix.cluster_queues if sim.tree.root(f"cq:{c}") == root)
    series = {c: sim.recorder.usage.get((c, fl, res)) for c in peers}
    noms = {c: (sim.tree.entry(f"cq:{c}", (fl, res)).nominal if sim.tree.entry(f"cq:{c}", (fl, res)).declared else 0)
            for c in peers}
    changes = sorted((t, c, v) for c, s in series.items() if s for t, v in s.points)
    vals = {c: 0 for c in peers}
    if not end:
        vals.update({c: s.last for c, s in series.items() if s})
        borrowed = sum(max(0, vals[p] - noms[p]) for p in peers if p != cq)
        unused = {p: max(0, noms[p] - vals[p]) for p in peers}
        pool = sum(unused.values())
        return min(borrowed, pool) * unused[cq] / pool if borrowed and pool and unused[cq] else 0.0
    total = 0.0
    for i, (t, c, v) in enumerate(changes):
        vals[c] = v
        nxt = changes[i + 1][0] if i + 1 < len(changes) else end
        if nxt <= t:
            continue
        borrowed = sum(max(0, vals[p] - noms[p]) for p in peers if p != cq)
        unused = {p: max(0, noms[p] - vals[p]) for p in peers}
        pool = sum(unused.values())
        if borrowed and pool and unused[cq]:
            total += min(borrowed, pool) * unused[cq] / pool * (min(end, nxt) - t)
    return total / end


def _q(v: float, res: str) -> str:
    """A mean as a quantity: memory-like resources to the whole byte (never milli-bytes), others
    to the milli-unit."""
    if is_memory_like(res):
        return format_quantity(round(v / 1000) * 1000, res)
    return format_quantity(int(round(v)), res)


def _flavors(sim, end: int) -> list[dict]:
    out = []
    quota: dict[tuple[str, str], int] = {}
    for name in sim.ix.cluster_queues:
        for fr, entry in sim.tree.nodes[f"cq:{name}"].quotas.items():
            if entry.declared:
                quota[fr] = quota.get(fr, 0) + entry.nominal
    for (fl, res), s in sorted(sim.recorder.allocated.items()):
        whole = sim.recorder.whole_free.get(fl)
        out.append({"flavor": fl, "resource": res, "nominal": format_quantity(quota.get((fl, res), 0), res),
                    "allocated_mean": _q(_mean(s, end), res),
                    "allocated_max": format_quantity(s.maximum(), res),
                    "utilisation": round(_mean(s, end) / quota[(fl, res)], 4) if quota.get((fl, res)) else None,
                    "whole_free_nodes_mean": round(_mean(whole, end), 2) if whole else None,
                    "whole_free_nodes_min": min((v for _, v in whole.points), default=None) if whole else None})
    return out


def _series(sim, end: int, points: int) -> dict:
    step = max(1, end // max(1, points))
    times = list(range(0, end + 1, step)) if end else [0]
    rec = sim.recorder
    return {
        "times": [sec(t) for t in times],
        "usage": {f"{cq}|{fl}|{res}": s.sampled(times) for (cq, fl, res), s in sorted(rec.usage.items())},
        "allocated": {f"{fl}|{res}": s.sampled(times) for (fl, res), s in sorted(rec.allocated.items())},
        "depth": {cq: s.sampled(times) for cq, s in sorted(rec.depth.items()) if cq},
        "running": rec.running_series.sampled(times),
        "whole_free_nodes": {fl or "*": s.sampled(times) for fl, s in sorted(rec.whole_free.items())},
        "node_allocated": {r: s.sampled(times) for r, s in sorted(rec.node_alloc.items())},
        "whole_free_gpu_nodes": {k: s.sampled(times) for k, s in sorted(rec.whole_gpu.items())},
        "evictions": [[sec(t), cq] for t, cq in rec.evictions],
    }
