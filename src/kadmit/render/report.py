"""The simulation report: one self-contained HTML file (jinja2), charts as inline SVG."""

from __future__ import annotations

from pathlib import Path

import jinja2
from markupsafe import Markup

from kadmit.render.simulation import differences
from kadmit.render.svgcharts import grouped_bars, histogram, step_lines

TEMPLATES = Path(__file__).parent / "templates"
MAX_LINES = 10  # series per chart: the largest, the rest are in the JSON


def _top(series: dict[str, list[float]], n: int = MAX_LINES) -> dict[str, list[float]]:
    ranked = sorted(series.items(), key=lambda kv: (-max(kv[1], default=0), kv[0]))
    return dict(ranked[:n])


def _charts(result: dict) -> list[dict]:
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
         "svg": step_lines("utilisation per flavor", times, _top(util), max([100.0] + [max(v, default=0) for v in util.values()]))},
        {"caption": f"Queue depth: pending workloads per cluster queue (the {MAX_LINES} deepest)",
         "svg": step_lines("queue depth", times, _top({k: [float(x) for x in v] for k, v in s["depth"].items()}))},
    ]
    qs = sorted(result["queues"], key=lambda q: (-(q["wait_max"] or 0), q["name"]))[:20]
    charts.append({"caption": "Wait-time distribution per cluster queue: p50, p90 and max of the admitted "
                              "workloads' waits (seconds; the 20 longest)",
                   "svg": grouped_bars("waits per queue", [q["name"] for q in qs],
                                       {"p50": [q["wait_p50"] for q in qs], "p90": [q["wait_p90"] for q in qs],
                                        "max": [q["wait_max"] for q in qs]})})
    end = result["summary"]["end"] or 1
    charts.append({"caption": f"Preemptions over time: {len(s['evictions'])} evictions",
                   "svg": histogram("preemptions", [e[0] for e in s["evictions"]], end)})
    whole = {k: [float(x) for x in v] for k, v in s["whole_free_nodes"].items()}
    charts.append({"caption": "Fragmentation: nodes with nothing bound, per flavor (`*`: every node)"
                              + ("" if whole else " (the inputs have no nodes)"),
                   "svg": step_lines("whole free nodes", times, _top(whole))})
    for c in charts:
        c["svg"] = Markup(c["svg"])
    return charts


def _run(label: str, result: dict) -> dict:
    never = sorted(result["summary"]["never_admitted_reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
    return {"label": label, "summary": result["summary"], "queues": result["queues"], "charts": _charts(result),
            "never": never, "capacity": result.get("capacity", [])}


def simulate_html(result: dict, compare: dict | None = None, title: str = "replay") -> str:
    from kadmit.render.sarif import tool_version
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    runs = [_run("baseline" if compare else "replay", result)]
    diff = None
    diff_charts = []
    if compare is not None:
        runs.append(_run("compare", compare))
        diff = differences(result, compare)
        qs = diff["queues"][:20]
        diff_charts = [{"caption": "p90 wait per cluster queue, baseline against compare (seconds)",
                        "svg": Markup(grouped_bars("p90 wait: baseline vs compare", [q["name"] for q in qs],
                                                   {"baseline": [q["wait_p90"][0] for q in qs],
                                                    "compare": [q["wait_p90"][1] for q in qs]}))}]
    return env.get_template("simulation_report.html.j2").render(
        title=title, runs=runs, diff=diff, diff_charts=diff_charts, version=tool_version())
