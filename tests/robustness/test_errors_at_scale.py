"""Thousands of errors in one file (every Workload carrying v1beta1 fields under v1beta2): every one
reported, grouped in the human output, and the work linear in the input — counted in operations
(spans compared to find the object an error is in), not timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kadmit import api, scope
from kadmit.render import render
from kadmit.render.human import SHOWN_PER_CODE

from . import hostile


def _write(tmp_path: Path, n: int) -> str:
    path = tmp_path / f"w{n}.yaml"
    path.write_text(hostile.wrong_version_workloads(n))
    return str(path)


@pytest.fixture
def comparisons(monkeypatch) -> list[int]:
    """How many times an error's span is compared with an object's."""
    calls = [0]
    inside = scope._inside

    def counted(inner, outer) -> bool:
        calls[0] += 1
        return inside(inner, outer)

    monkeypatch.setattr(scope, "_inside", counted)
    return calls


def test_every_error_is_reported_and_the_human_report_groups_them(tmp_path: Path) -> None:
    path = _write(tmp_path, 60)
    got = api.check([path])
    assert got.exit_code == 1
    assert [d.code for d in got.diagnostics] == ["KAD162"] * 120
    assert all(d.span is not None and d.span.line > 1 for d in got.diagnostics)
    assert len(json.loads(render(got.diagnostics, got.sources, "json"))["diagnostics"]) == 120
    assert len(json.loads(render(got.diagnostics, got.sources, "sarif"))["runs"][0]["results"]) == 120
    human = render(got.diagnostics, got.sources, "human")
    assert human.count("error[KAD162]") == SHOWN_PER_CODE + 1
    assert f"error[KAD162]: {120 - SHOWN_PER_CODE} more (field of another API version) not shown" in human
    assert human.endswith("error: 120 errors found\n")


def test_one_more_than_shown_is_shown_not_counted(tmp_path: Path) -> None:
    """GKE's shift-left-cost testdata hpa-v2beta1.yaml: 11 HorizontalPodAutoscalers in a removed API version
    (KAD171); the 11th was a line `1 more (API version not served) not shown`, as long as the one it hid."""
    from kadmit.diagnostics import Diagnostic, Severity

    ds = [Diagnostic(code="KAD171", severity=Severity.ERROR, message=f"m{i}") for i in range(SHOWN_PER_CODE + 1)]
    human = render(ds, {}, "human")
    assert human.count("error[KAD171]") == SHOWN_PER_CODE + 1 and "not shown" not in human and "m10" in human
    human = render(ds + ds[:1], {}, "human")
    assert human.count("error[KAD171]: m") == SHOWN_PER_CODE and "2 more (" in human


def test_admit_lists_every_touched_workload_and_why_names_the_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, 60)
    admitted = api.admit([path])
    assert admitted.exit_code == 1 and admitted.result is not None
    assert admitted.result.decisions == [] and len(admitted.held) == 60
    why = api.why("ns-0001/w-000001", [path])
    assert why.exit_code == 2 and why.result is None
    assert {d.code for d in why.diagnostics} == {"KAD162"}


@pytest.mark.parametrize("verb", ["admit", "why"])
def test_finding_the_object_each_error_is_in_is_linear(tmp_path: Path, comparisons: list[int], verb: str) -> None:
    """A loop over every object for every error made 30,000 errors in 15,000 Workloads take minutes:
    4x the Workloads (and errors) must cost about 4x the comparisons, not 16x."""
    def run(n: int) -> int:
        path = _write(tmp_path, n)
        comparisons[0] = 0
        got = api.admit([path]) if verb == "admit" else api.why("ns-0001/w-000001", [path])
        assert got.exit_code in (1, 2)
        return comparisons[0]

    small, large = run(100), run(400)
    assert 0 < small and large <= 4.5 * small, (small, large)
