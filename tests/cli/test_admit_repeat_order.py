"""Repeats of one `generateName` job (`name-#2`, …) are listed by number in admit's table and JSON,
in ordered and optimal mode alike: `#2` before `#10`, not after it as text would sort them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

COHORT = Path(__file__).resolve().parents[1] / "corpus" / "upstream" / "gke-samples-kueue-cohort-repeated"
COPIES = 11


@pytest.fixture
def eleven(run):
    for f in sorted(COHORT.glob("*.yaml")):
        if not f.name.startswith("job-team-a-"):
            run.write(f"in/{f.name}", f.read_text(encoding="utf-8"))
    job = (COHORT / "job-team-a.yaml").read_text(encoding="utf-8")
    for i in range(2, COPIES + 1):
        run.write(f"in/job-team-a-{i}.yaml", job)
    return "in"


def _expected() -> list[str]:
    return ["team-a/sample-job-team-a-"] + [f"team-a/sample-job-team-a-#{i}" for i in range(2, COPIES + 1)]


@pytest.mark.parametrize("mode", ["ordered", "optimal"])
def test_json_lists_repeats_by_number(run, eleven, mode):
    result = run("admit", "--mode", mode, "--format", "json", eleven)
    got = [d["workload"] for d in json.loads(result.stdout)["decisions"] if d["workload"].startswith("team-a/")]
    assert got == _expected()


def test_table_lists_repeats_by_number(run, eleven):
    result = run("admit", eleven)
    got = [m.group(1) for m in re.finditer(r"^(team-a/\S+)", result.output, re.M)]
    assert got == _expected()
