"""`kadmit simulate` output: JSON (stable bytes), a human summary table, and a progress bar (rich)."""

from __future__ import annotations

import io
import json
from contextlib import contextmanager
from typing import Iterator


def simulate_json(result: dict, compare: dict | None = None) -> str:
    """Sorted keys, fixed separators: the same result gives the same bytes."""
    out = dict(result)
    if compare is not None:
        out = {"baseline": result, "compare": compare, "differences": differences(result, compare)}
    return json.dumps(out, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def differences(a: dict, b: dict) -> dict:
    """What changed from the first policy to the second: per queue waits and preemptions,
    utilisation per flavor, and the workloads whose wait grew."""
    qa = {q["name"]: q for q in a["queues"]}
    qb = {q["name"]: q for q in b["queues"]}
    queues = []
    for name in sorted(set(qa) | set(qb)):
        x, y = qa.get(name, {}), qb.get(name, {})
        queues.append({"name": name, "admitted": [x.get("admitted"), y.get("admitted")],
                       "wait_p50": [x.get("wait_p50"), y.get("wait_p50")],
                       "wait_p90": [x.get("wait_p90"), y.get("wait_p90")],
                       "wait_max": [x.get("wait_max"), y.get("wait_max")],
                       "preemptions": [x.get("preemptions"), y.get("preemptions")]})
    fa = {(f["flavor"], f["resource"]): f for f in a["flavors"]}
    fb = {(f["flavor"], f["resource"]): f for f in b["flavors"]}
    flavors = [{"flavor": k[0], "resource": k[1],
                "utilisation": [fa.get(k, {}).get("utilisation"), fb.get(k, {}).get("utilisation")]}
               for k in sorted(set(fa) | set(fb))]
    wa = {w["workload"]: w for w in a["workloads"]}
    worse = []
    for w in b["workloads"]:
        x = wa.get(w["workload"])
        if x is None:
            continue
        before = x["wait"] if x["admitted_at"] is not None else None
        after = w["wait"] if w["admitted_at"] is not None else None
        if (before is not None and after is None) or (before is not None and after is not None and after > before):
            worse.append({"workload": w["workload"], "wait": [before, after]})
    worse.sort(key=lambda e: (-(e["wait"][1] if e["wait"][1] is not None else float("inf")) +
                              (e["wait"][0] or 0), e["workload"]))
    keys = ("admitted", "never_admitted", "makespan", "evictions", "gpu_hours")
    return {"summary": {k: [a["summary"].get(k), b["summary"].get(k)] for k in keys},
            "queues": queues, "flavors": flavors, "worse": worse}


def _table(title: str, columns: list[str], rows: list[list], color: bool) -> str:
    from rich.console import Console
    from rich.table import Table
    t = Table(title=title, title_justify="left")
    for i, c in enumerate(columns):
        t.add_column(c, justify="left" if i == 0 else "right")
    for r in rows:
        t.add_row(*["-" if v is None else str(v) for v in r])
    buf = io.StringIO()
    Console(file=buf, width=120, color_system="standard" if color else None, force_terminal=color).print(t)
    return buf.getvalue()


def _s(v) -> str | None:
    if v is None:
        return None
    from kadmit.durations import format_seconds
    return format_seconds(int(round(v * 1000)))


def simulate_human(result: dict, compare: dict | None = None, color: bool = False) -> str:
    s = result["summary"]
    out = [f"simulated {s['workloads']} workload(s) from {s['start']} ({s['mode']} mode): "
           f"{s['admitted']} admitted, {s['never_admitted']} never admitted, {s['evictions']} eviction(s), "
           f"makespan {_s(s['makespan']) or '- (nothing finished)'}, {s['gpu_hours']} GPU-hours run\n"]
    if compare is None:
        rows = [[q["name"], q["admitted"], q["pending_at_end"], _s(q["wait_p50"]), _s(q["wait_p90"]),
                 _s(q["wait_max"]), q["preemptions"]] for q in result["queues"]]
        out.append(_table("cluster queues", ["queue", "admitted", "pending", "wait p50", "wait p90", "wait max",
                                             "preempted"], rows, color))
        frows = [[f"{f['flavor']} {f['resource']}", f["nominal"], f["allocated_mean"], f["allocated_max"],
                  None if f["utilisation"] is None else f"{f['utilisation'] * 100:.1f}%",
                  f["whole_free_nodes_mean"]] for f in result["flavors"]]
        out.append(_table("flavors", ["flavor resource", "quota", "mean", "max", "utilisation",
                                      "whole free nodes"], frows, color))
        if s["never_admitted_reasons"]:
            out.append("never admitted:\n" + "".join(f"  {n} x {why}\n" for why, n in
                                                     sorted(s["never_admitted_reasons"].items(),
                                                            key=lambda kv: (-kv[1], kv[0]))))
    else:
        d = differences(result, compare)
        rows = [[q["name"], *[f"{x} -> {y}" for x, y in [q["admitted"], map(_s, q["wait_p50"]),
                                                       map(_s, q["wait_p90"]), q["preemptions"]]]]
                for q in d["queues"]]
        out.append(_table("cluster queues: baseline -> compare", ["queue", "admitted", "wait p50", "wait p90",
                                                                  "preempted"], rows, color))
        out.append(_table("summary: baseline -> compare", ["", "value"],
                          [[k, f"{v[0]} -> {v[1]}"] for k, v in d["summary"].items()], color))
        if d["worse"]:
            out.append(f"{len(d['worse'])} workload(s) wait longer under the second policy; the most:\n" +
                       "".join(f"  {w['workload']}: {_s(w['wait'][0])} -> {_s(w['wait'][1]) or 'never admitted'}\n"
                               for w in d["worse"][:10]))
    for c in result.get("capacity", []):
        out.append(f"at {_s(c['at'])}: {len(c['nodes'])} node(s) {c['source']}\n")
    for c in result.get("consolidated", []):
        out.append(f"at {_s(c['at'])}: {len(c['nodes'])} empty node(s) removed by {c['source']}\n")
    return "".join(out)


@contextmanager
def progress_bar(enabled: bool) -> Iterator:
    """A rich progress bar on stderr (events done of events known), or a no-op."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as p:
        task = p.add_task("simulate", total=None)
        last = [0]

        def update(done: int, total: int) -> None:
            if done - last[0] >= 200 or done == total:
                last[0] = done
                p.update(task, completed=done, total=total)
        yield update


def sweep_human(result: dict) -> str:
    """One row per variant."""
    rows = []
    for r in result["variants"]:
        if "error" in r:
            rows.append([r["variant"], "error: " + r["error"], None, None, None, None, None])
            continue
        util = ", ".join(f"{k} {v * 100:.0f}%" for k, v in sorted(r["utilisation"].items()) if v is not None)
        rows.append([r["variant"], r["admitted"], r["never_admitted"], r["evictions"], _s(r["makespan"]),
                     _s(r["worst_queue_wait_p90"]), util])
    return _table("sweep", ["variant", "admitted", "never", "evictions", "makespan", "worst p90 wait",
                            "utilisation"], rows, False)
