"""An object with an error is reported once, where it is defined: references to it don't add
follow-on diagnostics, and `why` answers about a workload whose cohort tree the errors don't touch."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import api

from . import hostile


def _input(tmp_path: Path) -> list[str]:
    items = [hostile.flavor("f"), hostile.namespace("t"),
             hostile.cluster_queue("q", flavor_name="missing"), hostile.local_queue("lq", "t", "q"),
             hostile.workload("w", "t", "lq"),
             hostile.cluster_queue("other"), hostile.local_queue("lo", "t", "other"),
             hostile.workload("ok", "t", "lo"),
             hostile.cluster_queue("broken", cpu="2x"), hostile.local_queue("lb", "t", "broken"),
             hostile.workload("inbroken", "t", "lb")]
    hostile.write(tmp_path, "in.json", items)
    return [str(tmp_path)]


def test_a_broken_cluster_queue_is_reported_once_not_again_by_its_local_queue(tmp_path: Path) -> None:
    codes = sorted(d.code for d in api.check(_input(tmp_path)).diagnostics)
    assert codes == ["KAD158", "KAD200"]  # the bad quantity, the missing flavor; no KAD201 for `lb`


@pytest.mark.parametrize("workload, exit_code, admitted", [
    ("t/ok", 0, True),  # another tree: the errors don't touch it
    ("t/w", 1, False),  # its queue names a missing flavor: Kueue keeps the queue inactive
])
def test_why_answers_where_the_errors_dont_reach(tmp_path: Path, workload: str, exit_code: int,
                                                  admitted: bool) -> None:
    got = api.why(workload, _input(tmp_path))
    assert got.exit_code == exit_code and got.result is not None and got.result.admitted is admitted
    if not admitted:
        assert any("inactive" in r.message and "missing" in r.message for r in got.result.reasons)


def test_why_refuses_a_workload_whose_own_queue_is_broken(tmp_path: Path) -> None:
    got = api.why("t/inbroken", _input(tmp_path))
    assert got.exit_code == 2 and got.result is None
    assert "KAD158" in {d.code for d in got.diagnostics}


def test_every_bad_quota_of_a_cluster_queue_is_reported_in_one_run(tmp_path: Path) -> None:
    q = hostile.cluster_queue("q", cpu="2x")
    q["spec"]["resourceGroups"][0]["coveredResources"].append("memory")
    q["spec"]["resourceGroups"][0]["flavors"][0]["resources"].append(
        {"name": "memory", "nominalQuota": "-1Gi", "borrowingLimit": "lots"})
    hostile.write(tmp_path, "in.json", [hostile.flavor("f"), q])
    got = api.check([str(tmp_path)]).diagnostics
    assert [d.code for d in got] == ["KAD158"] * 3  # and no "flavor `f` is unused": `q` may use it
    assert len({d.span.line for d in got}) == 3
