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
  const drawn = charts.filter(c => { const b = c.getBBox(); return b.width > 100 && b.height > 100
      && c.querySelectorAll('polyline, rect, line, text').length > 5; });
  document.body.dataset.charts = charts.length;
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
    assert charts == 2 * 5 + 1  # five per run, and the comparison's
    assert drawn == charts
    assert re.search(r'data-errors="0"', dom)
    console = [ln for ln in run.stderr.splitlines() if "CONSOLE" in ln]
    assert console == []
