"""`kadmit simulate` output: JSON (stable bytes), a human summary table, and a progress bar (rich)."""

from __future__ import annotations

import io
import json
from contextlib import contextmanager
from typing import Iterator


def simulate_json(result: dict, compare: dict | None = None, diagnostics=()) -> str:
    """Sorted keys, fixed separators: the same result gives the same bytes. `diagnostics`: those the command
    shows on stderr, as `check --format json` writes each (`diagnostics`, beside the result's keys)."""
    from kadmit.render.json_report import diagnostic_dict

    out = dict(result)
    if compare is not None:
        out = {"baseline": result, "compare": compare, "differences": differences(result, compare)}
    out["diagnostics"] = [diagnostic_dict(d) for d in diagnostics]
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
    """A rich table; each cell one line of plain text (`excerpt.one_line`: a variant's name or error holding a line
    break stays in its row) that rich does not read as markup (`[red]`, `[/x]`)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from kadmit.render.excerpt import one_line
    t = Table(title=title, title_justify="left")
    for i, c in enumerate(columns):
        t.add_column(c, justify="left" if i == 0 else "right")
    for r in rows:
        t.add_row(*[Text("-" if v is None else one_line(str(v))) for v in r])
    buf = io.StringIO()
    Console(file=buf, width=120, color_system="standard" if color else None, force_terminal=color).print(t)
    return buf.getvalue()


def duration_text(v) -> str | None:
    """Seconds for people: `0s`, `850ms`, `2m30s`, `3h12m` (to the second past a minute, to the
    minute past an hour)."""
    if v is None:
        return None
    from kadmit.durations import format_seconds
    ms = int(round(v * 1000))
    if ms == 0:
        return "0s"
    if ms >= 3_600_000:
        ms = round(ms / 60_000) * 60_000
    elif ms >= 60_000:
        ms = round(ms / 1000) * 1000
    return format_seconds(ms)


def amount(text: str | None, resource: str) -> str | None:
    """A quantity of the results (exact, or a mean in milli-units) as people read it."""
    if text is None:
        return None
    from kadmit.quantity import parse_quantity, readable_quantity
    return readable_quantity(parse_quantity(text), resource)


def headline(s: dict) -> str:
    """The summary in one sentence: where the workloads are at the end, then the run's totals."""
    at = s.get("at_end", {})
    held = at.get("running", 0) + at.get("admitted", 0) + at.get("checks", 0)
    where = (f"at the end {held} hold quota ({at.get('running', 0)} running"
             + (f", {at['admitted']} waiting for nodes" if at.get("admitted") else "")
             + (f", {at['checks']} waiting for admission checks" if at.get("checks") else "")
             + f"), {at.get('finished', 0)} finished, {at.get('pending', 0)} pending") if at else ""
    if at.get("checks"):  # the replay rests on what no snapshot holds: when a check turns Ready, Retry, Rejected
        where += (" (their checks' controllers decide at run time, which kadmit does not model: Kueue's replay "
                  "may differ from there on)")
    return (f"{s['workloads']} workload(s) from {s['start']} ({s['mode']} mode): {where}; "
            f"{s['admitted']} admitted at some point, {s['never_admitted']} never, {s['evictions']} eviction(s), "
            f"makespan {duration_text(s['makespan']) or '- (nothing finished)'}, {s['gpu_hours']} GPU-hours run")


def waiting_groups(s: dict) -> list[dict]:
    """Pending at the end, grouped by their reasons' codes (results' `waiting`; older results:
    the never-admitted reasons)."""
    if "waiting" in s:
        return s["waiting"]
    return [{"codes": [], "count": n, "never_admitted": n, "example": why, "workloads": []}
            for why, n in sorted(s["never_admitted_reasons"].items(), key=lambda kv: (-kv[1], kv[0]))]


def brief(reason: str) -> str:
    """A reason of several parts (`CODE: message; CODE: message`) cut to the first part of each code."""
    seen: dict[str, str] = {}
    for part in reason.split("; "):
        code = part.split(":", 1)[0] if part[:3] == "KAD" else part
        seen.setdefault(code, part)
    return "; ".join(seen.values())


def codes_label(codes: list[str]) -> str:
    return " + ".join(codes) if codes else "no code"


NAMES_SHOWN = 12  # names per group in the human format (every name is in the JSON and the HTML)


def simulate_human(result: dict, compare: dict | None = None, color: bool = False) -> str:
    s = result["summary"]
    out = [f"simulated {headline(s)}\n"]
    if compare is None:
        rows = [[q["name"], q["admitted"], q["pending_at_end"], duration_text(q["wait_p50"]), duration_text(q["wait_p90"]),
                 duration_text(q["wait_max"]), q["preemptions"]] for q in result["queues"]]
        out.append(_table("cluster queues", ["queue", "admitted", "pending", "wait p50", "wait p90", "wait max",
                                             "preempted"], rows, color))
        frows = [[f"{f['flavor']} {f['resource']}", amount(f["nominal"], f["resource"]),
                  amount(f["allocated_mean"], f["resource"]), amount(f["allocated_max"], f["resource"]),
                  None if f["utilisation"] is None else f"{f['utilisation'] * 100:.1f}%",
                  f["whole_free_nodes_mean"]] for f in result["flavors"]]
        out.append(_table("flavors", ["flavor resource", "quota", "mean", "max", "utilisation",
                                      "whole free nodes"], frows, color))
        groups = waiting_groups(s)
        if groups:
            out.append("pending at the end, by reason:\n")
            for g in groups:
                never = "" if g["never_admitted"] == g["count"] else f", {g['never_admitted']} never admitted"
                names = g["workloads"][:NAMES_SHOWN]
                more = len(g["workloads"]) - len(names)
                out.append(f"  {g['count']} x {codes_label(g['codes'])}{never}"
                           + (f": {', '.join(names)}" if names else "") + (f" and {more} more" if more else "") + "\n"
                           + f"      e.g. {brief(g['example'])}\n")
    else:
        d = differences(result, compare)
        rows = [[q["name"], *[f"{x} -> {y}" for x, y in [q["admitted"], map(duration_text, q["wait_p50"]),
                                                       map(duration_text, q["wait_p90"]), q["preemptions"]]]]
                for q in d["queues"]]
        out.append(_table("cluster queues: baseline -> compare", ["queue", "admitted", "wait p50", "wait p90",
                                                                  "preempted"], rows, color))
        out.append(_table("summary: baseline -> compare", ["", "value"],
                          [[k, f"{duration_text(v[0]) if k == 'makespan' else v[0]} -> "
                               f"{duration_text(v[1]) if k == 'makespan' else v[1]}"] for k, v in d["summary"].items()], color))
        if d["worse"]:
            out.append(f"{len(d['worse'])} workload(s) wait longer under the second policy; the most:\n" +
                       "".join(f"  {w['workload']}: {duration_text(w['wait'][0])} -> {duration_text(w['wait'][1]) or 'never admitted'}\n"
                               for w in d["worse"][:10]))
    for c in result.get("capacity", []):
        out.append(f"at {duration_text(c['at'])}: {len(c['nodes'])} node(s) {c['source']}\n")
    for c in result.get("consolidated", []):
        out.append(f"at {duration_text(c['at'])}: {len(c['nodes'])} empty node(s) removed by {c['source']}\n")
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
        rows.append([r["variant"], r["admitted"], r["never_admitted"], r["evictions"], duration_text(r["makespan"]),
                     duration_text(r["worst_queue_wait_p90"]), util])
    return _table("sweep", ["variant", "admitted", "never", "evictions", "makespan", "worst p90 wait",
                            "utilisation"], rows, False)
