"""The simulation report: one self-contained HTML file (jinja2), charts as inline SVG."""

from __future__ import annotations

from pathlib import Path

import jinja2
from markupsafe import Markup

from kadmit.render.simulation import (amount, brief, codes_label, differences, duration_text, headline,
                                     waiting_groups)
from kadmit.render.svgcharts import grouped_bars, histogram, step_lines

TEMPLATES = Path(__file__).parent / "templates"
MAX_LINES = 10  # series per chart: the largest, the rest are in the JSON


def _top(series: dict[str, list[float]], n: int = MAX_LINES) -> dict[str, list[float]]:
    ranked = sorted(series.items(), key=lambda kv: (-max(kv[1], default=0), kv[0]))
    return dict(ranked[:n])


def _charts(result: dict) -> list[dict]:
    """The run's charts; one with nothing to draw (no waits, no evictions, no nodes) is its caption
    saying so, without a drawing."""
    s = result["series"]
    times = s["times"]
    nominal = {(f["flavor"], f["resource"]): f for f in result["flavors"]}
    util = {}
    from kadmit.quantity import parse_quantity
    for key, values in s["allocated"].items():
        fl, res = key.split("|", 1)
        quota = parse_quantity(nominal[(fl, res)]["nominal"]) if (fl, res) in nominal else 0
        if quota:
            util[f"{fl} {res}"] = [100 * v / quota for v in values]
    charts = [
        {"caption": "Utilisation per flavor: quota in use, % of the cluster queues' nominal quota (over 100 % "
                    "when borrowing from cohort quota)",
         "svg": step_lines("utilisation per flavor", times, _top(util),
                           max([100.0] + [max(v, default=0) for v in util.values()]), unit="%") if util else None},
        {"caption": f"Queue depth: pending workloads per cluster queue (the {MAX_LINES} deepest)",
         "svg": step_lines("queue depth", times, _top({k: [float(x) for x in v] for k, v in s["depth"].items()}))
         if s["depth"] else None},
    ]
    qs = sorted(result["queues"], key=lambda q: (-(q["wait_max"] or 0), q["name"]))[:20]
    waited = any(q["wait_max"] for q in qs)
    charts.append({"caption": "Waits per cluster queue: p50, p90 and max of the admitted workloads' waits (the 20 "
                              "longest)" + ("" if waited else ": no admitted workload waited"),
                   "svg": grouped_bars("waits per queue", [q["name"] for q in qs],
                                       {"p50": [q["wait_p50"] for q in qs], "p90": [q["wait_p90"] for q in qs],
                                        "max": [q["wait_max"] for q in qs]}) if waited else None})
    end = result["summary"]["end"] or 0
    charts.append({"caption": f"Preemptions over time: {len(s['evictions'])} evictions",
                   "svg": histogram("preemptions", [e[0] for e in s["evictions"]], end) if s["evictions"] else None})
    whole = {k: [float(x) for x in v] for k, v in s["whole_free_nodes"].items()}
    charts.append({"caption": "Fragmentation: nodes with nothing bound, per flavor (`*`: every node)"
                              + ("" if whole else ": the inputs have no nodes"),
                   "svg": step_lines("whole free nodes", times, _top(whole)) if whole else None})
    for c in charts:
        c["svg"] = Markup(c["svg"]) if c["svg"] else None
    return charts


def _run(label: str, result: dict) -> dict:
    s = result["summary"]
    flavors = [{"name": f"{f['flavor']} {f['resource']}", "nominal": amount(f["nominal"], f["resource"]),
                "mean": amount(f["allocated_mean"], f["resource"]), "max": amount(f["allocated_max"], f["resource"]),
                "utilisation": None if f["utilisation"] is None else f"{f['utilisation'] * 100:.1f}%",
                "whole_free": f["whole_free_nodes_mean"]} for f in result["flavors"]]
    queues = [dict(q, p50=duration_text(q["wait_p50"]), p90=duration_text(q["wait_p90"]),
                   max=duration_text(q["wait_max"])) for q in result["queues"]]
    return {"label": label, "headline": headline(s), "summary": s, "queues": queues, "flavors": flavors,
            "charts": _charts(result), "waiting": [dict(g, label=codes_label(g["codes"]), brief=brief(g["example"]))
                                                   for g in waiting_groups(s)],
            "capacity": [dict(c, at=duration_text(c["at"])) for c in result.get("capacity", [])]}


def simulate_html(result: dict, compare: dict | None = None, title: str = "replay") -> str:
    from kadmit.render.sarif import tool_version
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["dur"] = lambda v: duration_text(v) or "-"
    runs = [_run("baseline" if compare else "replay", result)]
    diff = None
    diff_charts = []
    if compare is not None:
        runs.append(_run("compare", compare))
        diff = differences(result, compare)
        qs = diff["queues"][:20]
        diff_charts = [{"caption": "p90 wait per cluster queue, baseline against compare",
                        "svg": Markup(grouped_bars("p90 wait: baseline vs compare", [q["name"] for q in qs],
                                                   {"baseline": [q["wait_p90"][0] for q in qs],
                                                    "compare": [q["wait_p90"][1] for q in qs]}))}]
    return env.get_template("simulation_report.html.j2").render(
        title=title, runs=runs, diff=diff, diff_charts=diff_charts, version=tool_version())
