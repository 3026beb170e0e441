"""`status.reclaimablePods` of a Workload: Kueue's scheduler counts a pod set less its reclaimable
pods (`podSetsCountsAfterReclaim`), and books an admission's recorded usage per pod times the pods
left where that is fewer than admitted (`totalRequestsFromAdmission`);
tests/oracle/features/workload-reclaimable-pods.yaml is the oracle's case."""

from __future__ import annotations

from pathlib import Path

from kadmit.index import admitted_usage
from kadmit.workspace import load

CASE = Path(__file__).resolve().parents[1] / "oracle" / "features" / "workload-reclaimable-pods.yaml"


def test_reclaimable_pods_come_off_the_count_and_the_booked_usage() -> None:
    ws = load([str(CASE)])
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    wls = {w.name: w for w in ws.model.workloads}
    running, evicted, later = wls["running"], wls["evicted"], wls["later"]
    assert running.pod_sets[0].count == 1 and running.admission.pod_sets[0].count == 1
    assert admitted_usage(running) == {("f0", "cpu"): 1000}
    assert evicted.pod_sets[0].count == 2 and "2 reclaimable (status.reclaimablePods)" in evicted.pod_sets[0].origin
    assert later.pod_sets[0].count == 3 and later.pod_sets[0].origin is None


def test_an_admission_of_fewer_pods_than_left_keeps_its_usage(tmp_path: Path) -> None:
    """A partial admission of 2 pods, 1 of 4 reclaimable (3 left): the usage stays as recorded."""
    text = CASE.read_text(encoding="utf-8").replace(
        "podSetAssignments: [{name: main, count: 4, flavors: {cpu: f0}, resourceUsage: {cpu: '4'}}]",
        "podSetAssignments: [{name: main, count: 2, flavors: {cpu: f0}, resourceUsage: {cpu: '2'}}]").replace(
        "reclaimablePods: [{name: main, count: 3}]", "reclaimablePods: [{name: main, count: 1}]")
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    running = next(w for w in load([str(tmp_path / "c.yaml")]).model.workloads if w.name == "running")
    assert running.pod_sets[0].count == 3 and running.admission.pod_sets[0].count == 2
    assert admitted_usage(running) == {("f0", "cpu"): 2000}
