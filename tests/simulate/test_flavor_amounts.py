"""simulate's flavor table shows CPU past 10 cores with its decimal, so quota, mean and max agree
with the utilisation beside them (GKE kueue-cohort repeated: 19.5 of 20 cores, 97.5%)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from kadmit.cli import cli
from kadmit.quantity import readable_quantity

COHORT = Path(__file__).resolve().parents[1] / "corpus" / "upstream" / "gke-samples-kueue-cohort-repeated"


def test_cpu_amounts_keep_one_decimal():
    got = [readable_quantity(m, "cpu") for m in (0, 500, 3222, 9960, 19500, 20000, 19960, 703640)]
    assert got == ["0", "500m", "3.2", "10", "19.5", "20", "20", "703.6"]


def test_flavor_row_agrees_with_its_utilisation():
    out = CliRunner().invoke(cli, ["simulate", str(COHORT)], catch_exceptions=False).output
    row = re.search(r"on-demand cpu\s*│\s*(\S+)\s*│\s*(\S+)\s*│\s*(\S+)\s*│\s*(\S+)%", out)
    assert row, out
    quota, mean, top, util = (float(v) for v in row.groups())
    assert (quota, mean, top, util) == (20, 19.5, 19.5, 97.5)
    assert round(top / quota * 100, 1) == util


def test_no_duration_warning_names_repeats_by_number(tmp_path):
    for f in COHORT.glob("*.yaml"):
        if f.name.startswith("job-") and f.name != "job-team-a.yaml":
            continue
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    job = (COHORT / "job-team-a.yaml").read_text(encoding="utf-8")
    for i in range(2, 12):
        (tmp_path / f"job-team-a-{i}.yaml").write_text(job, encoding="utf-8")
    out = CliRunner().invoke(cli, ["simulate", str(tmp_path)], catch_exceptions=False).output
    assert ("11 workload(s) have no duration and run until the end once admitted: team-a/sample-job-team-a-, "
            "team-a/sample-job-team-a-#2, team-a/sample-job-team-a-#3, team-a/sample-job-team-a-#4, "
            "team-a/sample-job-team-a-#5 and 6 more") in out, out
