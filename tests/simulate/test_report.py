"""The HTML report opened in a real headless browser (Debian's `chromium`): every chart renders and
the page logs no errors. Without a browser the test is skipped with the reason (pytest prints it:
`-rs` in pyproject.toml), except under CI: `.ci/run` installs chromium and exports KADMIT_CI=1,
and there a missing browser fails the test, so the check can't silently go away."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from sim_helpers import write_trace

PROBE = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message)));
window.addEventListener('load', () => {
  const charts = [...document.querySelectorAll('svg.chart')];
  const drawn = charts.filter(c => { const b = c.getBBox(); return b.width > 100 && b.height > 40
      && c.querySelectorAll('polyline, rect, line, text').length > 5; });
  document.body.dataset.charts = charts.length;
  document.body.dataset.figures = document.querySelectorAll('figure').length;
  document.body.dataset.drawn = drawn.length;
  document.body.dataset.errors = window.__errors.length;
});
</script>"""


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    reason = ("no headless browser (`chromium`, `chromium-browser` or `google-chrome`) on PATH to open the "
              "simulation report in; on Debian: apt-get install chromium")
    if os.environ.get("KADMIT_CI") == "1":
        pytest.fail(f"{reason} (KADMIT_CI=1: CI must run this test; .ci/run installs chromium)")
    pytest.skip(reason)


def test_report_renders_every_chart_without_errors(policy, tmp_path):
    browser = _browser()
    trace = write_trace(tmp_path, [f"{i % 9},a,w{i},lq,{'high' if i % 4 == 0 else 'low'},1,{2 + i % 5},{1 + i % 3}"
                                   for i in range(40)])
    other = tmp_path / "other.kad"
    other.write_text(open(policy).read().replace("cpu = 4", "cpu = 6"))
    report = tmp_path / "report.html"
    got = subprocess.run([sys.executable, "-m", "kadmit", "simulate", policy, "--trace", trace, "--compare",
                          str(other), "--report", str(report)], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert "cluster queues: baseline -> compare" in got.stdout and "wait longer" in got.stdout
    html = report.read_text()
    assert "<script" not in html and "http" not in html.split("</style>")[0]  # self-contained, no scripts
    probed = tmp_path / "probed.html"
    probed.write_text(html.replace("</body>", PROBE + "</body>"))
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                          "--v=0", "--virtual-time-budget=5000", "--dump-dom", probed.as_uri()],
                         capture_output=True, text=True, timeout=120)
    dom = run.stdout
    charts = int(re.search(r'data-charts="(\d+)"', dom).group(1))
    drawn = int(re.search(r'data-drawn="(\d+)"', dom).group(1))
    figures = int(re.search(r'data-figures="(\d+)"', dom).group(1))
    assert figures == 2 * 5 + 1  # five per run, and the comparison's
    assert charts == figures - 2  # the inputs have no nodes: no fragmentation to draw, in either run
    assert drawn == charts
    assert re.search(r'data-errors="0"', dom)
    console = [ln for ln in run.stderr.splitlines() if "CONSOLE" in ln]
    assert console == []


# What a reader at a 1,400-pixel window sees: every chart at nearly the page's width, no two labels
# of a chart overlapping, data marks in every drawing, nothing wider than the window.
LAYOUT_PROBE = """<script>
window.addEventListener('load', () => {
  const overlaps = [];
  const charts = [...document.querySelectorAll('svg.chart')];
  charts.forEach((svg, n) => {
    const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [ta, a] = boxes[i], [tb, b] = boxes[j];
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
        overlaps.push(`chart ${n}: "${ta}" / "${tb}"`);
    }
  });
  const probe = {
    charts: charts.length,
    figures: document.querySelectorAll('figure').length,
    widths: charts.map(c => Math.round(c.getBoundingClientRect().width)),
    marks: charts.map(c => [...c.querySelectorAll('.mark')].filter(m => {
      const b = m.getBoundingClientRect(); return b.width > 0 && b.height > 0; }).length),
    overlaps: overlaps,
    scroll_width: document.documentElement.scrollWidth,
    names: [...document.querySelectorAll('.waiting details .names')].map(p => p.textContent),
  };
  document.body.setAttribute('data-probe', JSON.stringify(probe));
});
</script>"""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--window-size=1400,2400"]


def _layout(browser: str, report, tmp_path) -> dict:
    """The report opened at 1,400 pixels: what LAYOUT_PROBE measured, and a screenshot beside it, both of one
    browser run (one start of chromium, not two: about 1 s of CPU each)."""
    import html
    import json
    probed = tmp_path / (report.stem + "-probed.html")
    probed.write_text(report.read_text().replace("</body>", LAYOUT_PROBE + "</body>"))
    flags = CHROMIUM_FLAGS + [f"--user-data-dir={tmp_path / 'chromium'}"]
    shot = tmp_path / (report.stem + ".png")
    run = subprocess.run([browser, *flags, "--virtual-time-budget=5000", "--dump-dom", f"--screenshot={shot}",
                          probed.as_uri()], capture_output=True, text=True, timeout=120)
    probe = json.loads(html.unescape(re.search(r"data-probe=\"([^\"]*)\"", run.stdout).group(1)))
    probe["screenshot"] = shot.read_bytes()[:8] if shot.exists() else b""
    return probe


def _simulate_report(tmp_path, name: str, *args: str):
    report = tmp_path / f"{name}.html"
    got = subprocess.run([sys.executable, "-m", "kadmit", "simulate", *args, "--report", str(report)],
                         capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    return report, got.stdout


EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


@pytest.mark.parametrize("example", ["ml-platform", "ml-platform-kueue"])
def test_the_bundled_example_with_its_trace_reads_at_1400_pixels(tmp_path, example):
    """The example's shipped trace gives every chart something to draw: lines over six hours,
    waits, preemptions; quantities and times in people's units."""
    browser = _browser()
    folder = os.path.join(EXAMPLES, example)
    report, stdout = _simulate_report(tmp_path, example, folder, "--trace", os.path.join(folder, "trace.csv"))
    text = report.read_text()
    assert "finished" in stdout and "makespan 7h55m" in stdout
    assert not re.search(r"<td>\d{4,}m</td>", text)  # no milli-units
    assert not re.search(r"\(s\)</th>", text)  # no columns of raw seconds
    assert re.search(r"<td>\d+(\.\d)?[GT]i</td>", text)  # memory in Gi / Ti
    assert re.search(r">3h30m<", text)  # team-vision's longest wait, as a duration
    probe = _layout(browser, report, tmp_path)
    assert probe["charts"] == probe["figures"] == 5
    assert all(1100 <= w <= 1300 for w in probe["widths"]), probe["widths"]
    assert all(m > 0 for m in probe["marks"]), probe["marks"]
    assert probe["overlaps"] == []
    assert probe["scroll_width"] <= 1400
    assert any("team-nlp/llm-sft" in names for names in probe["names"])  # StrictFIFO, behind tokenize
    assert probe["screenshot"] == b"\x89PNG\r\n\x1a\n"


def test_a_replay_where_everything_happens_at_the_start_draws_its_instant(tmp_path):
    """No trace, no durations: the run ends where it starts. The time charts become the values at
    that instant, charts with nothing to say are their captions, and the never-admitted are grouped
    by code with their names."""
    browser = _browser()
    report, stdout = _simulate_report(tmp_path, "instant", os.path.join(EXAMPLES, "ml-platform"))
    assert "pending at the end, by reason:" in stdout and "KAD512: team-nlp/tokenize, team-vision/no-toleration" in stdout
    text = report.read_text()
    assert "everything happened at the start" in text and "no admitted workload waited" in text
    probe = _layout(browser, report, tmp_path)
    assert probe["figures"] == 5 and probe["charts"] == 3  # utilisation and depth as bars; fragmentation
    assert all(m > 0 for m in probe["marks"]), probe["marks"]
    assert probe["overlaps"] == []
    assert probe["scroll_width"] <= 1400
    # (frame-extract and llm-pretrain: both KAD511 alone, Kueue's check of a flavor stopping at its first
    # resource over capacity)
    assert sorted(probe["names"]) == sorted(["team-nlp/tokenize, team-vision/no-toleration", "team-infra/gpu-smoke",
                                             "team-nlp/shared-vision",
                                             "team-vision/frame-extract, team-vision/llm-pretrain"])
    assert probe["screenshot"] == b"\x89PNG\r\n\x1a\n"


def test_charts_of_many_long_named_queues_keep_their_labels_apart(tmp_path):
    """30 queues with long names in a bar chart, 20 series in a line chart over two days: every
    label readable, none on another."""
    from kadmit.render.svgcharts import bars, duration, step_lines
    browser = _browser()
    names = [f"research-team-{i:02d}-long-queue-name" for i in range(30)]
    charts = [bars("waits", names, {"p50": [60.0 * i for i in range(30)], "p90": [90.0 * i for i in range(30)],
                                    "max": [7200.0 + i for i in range(30)]}, fmt=duration),
              step_lines("depth", [3600.0 * h for h in range(49)],
                         {n: [float((h * 7 + i) % 13) for h in range(49)] for i, n in enumerate(names[:20])})]
    page = tmp_path / "charts.html"
    page.write_text("<!DOCTYPE html><html><body style='margin:1.5em auto;max-width:1300px'>"
                    + "".join(f"<figure>{c}</figure>" for c in charts) + "</body></html>")
    probe = _layout(browser, page, tmp_path)
    assert probe["charts"] == 2 and all(m > 0 for m in probe["marks"])
    assert probe["overlaps"] == []
    assert probe["scroll_width"] <= 1400
