"""The oracle's harness against Kueue's own expectations: cases of Kueue v0.17.0's TestSchedule
(pkg/scheduler/scheduler_test.go) as YAML (tests/oracle/kueue_cases/, with the test's shared
cluster in setup.yaml), run for one cycle with victims keeping their quota — what TestSchedule
runs — and the workloads holding quota, the victims and the workloads left pending compared with
the test's wantAssignments, evictions and wantLeft / wantInadmissibleLeft. This checks the
harness (loading, defaults, webhooks, one cycle), not kadmit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from oracle.harness import run_each, run_oracle

CASES = Path(__file__).parent / "kueue_cases"

# case file -> (held: {workload: (cluster queue, {pod set: (count, {resource: flavor})})},
#               evicted, pending): TestSchedule's wantAssignments (cache after the cycle,
# victims included), the workloads it evicts, and its wantLeft + wantInadmissibleLeft.
EXPECT = {
    "admit-in-different-cohorts": (
        {"sales/new": ("sales", {"one": (1, {"cpu": "default"})}),
         "eng-alpha/new": ("eng-alpha", {"one": (51, {"cpu": "on-demand"})})}, set(), set()),
    "assign-multiple-resources-and-flavors": (
        {"eng-beta/new": ("eng-beta", {"one": (10, {"cpu": "on-demand", "example.com/gpu": "model-a"}),
                                       "two": (40, {"cpu": "spot"})})}, set(), set()),
    "can-borrow-without-overadmission": (
        {"eng-alpha/new": ("eng-alpha", {"one": (45, {"cpu": "on-demand"})}),
         "eng-beta/new": ("eng-beta", {"one": (55, {"cpu": "on-demand"})})}, set(), set()),
    "workload-exceeds-lending-limit": (
        {"lend/a": ("lend-b", {"main": (1, {"cpu": "default"})})}, set(), {"lend/b"}),
    "preempt-in-cluster-queue-and-cohort": (
        {"eng-alpha/use-all-spot": ("eng-alpha", {"main": (1, {"cpu": "spot"})}),
         "eng-beta/low-1": ("eng-beta", {"main": (1, {"cpu": "on-demand"})}),
         "eng-beta/low-2": ("eng-beta", {"main": (1, {"cpu": "on-demand"})}),
         "eng-alpha/borrower": ("eng-alpha", {"main": (1, {"cpu": "on-demand"})})},
        {"eng-alpha/borrower", "eng-beta/low-2"}, {"eng-beta/preemptor"}),
    "fallback-to-next-flavor": (
        {"eng-alpha/new": ("eng-alpha", {"one": (60, {"cpu": "spot"})}),
         "eng-beta/existing": ("eng-beta", {"one": (45, {"cpu": "on-demand"})})}, set(), set()),
    "partial-admission-single-pod-set": (
        {"sales/new": ("sales", {"one": (25, {"cpu": "default"})})}, set(), set()),
    "fair-sharing-lowest-share-first": (
        {"eng-alpha/all-nominal": ("eng-alpha", {"one": (50, {"cpu": "on-demand"})}),
         "eng-beta/borrowing": ("eng-beta", {"one": (55, {"cpu": "on-demand"})}),
         "eng-alpha/new": ("eng-alpha", {"one": (5, {"cpu": "on-demand"})})}, set(), {"eng-beta/older-new"}),
}


@pytest.fixture(scope="module")
def one_cycle(kueue_oracle, request, tmp_path_factory) -> dict[str, dict]:
    """Kueue's one cycle on each selected case, all from one oracle process (`--each` over a folder per
    case holding setup.yaml then the case, read in that order as the two files are) rather than a
    process per case."""
    folders = {}
    for item in request.session.items:
        if getattr(item, "originalname", None) == "test_one_cycle_as_kueue_expects" and item.module is request.module:
            case = item.callspec.params["case"]
            folders[case] = tmp_path_factory.mktemp(case)
            shutil.copy(CASES / "setup.yaml", folders[case] / "1-setup.yaml")
            shutil.copy(CASES / f"{case}.yaml", folders[case] / f"2-{case}.yaml")
    out = run_each(kueue_oracle, "admit", list(folders.values()), "--max-cycles", "1", "--keep-victims",
                   "--end-state") if folders else {}
    return {case: out.get(str(folder)) for case, folder in folders.items()}


@pytest.mark.parametrize("case", sorted(EXPECT))
def test_one_cycle_as_kueue_expects(one_cycle, case):
    held, evicted, pending = EXPECT[case]
    out = one_cycle[case]
    assert out is not None and "error" not in out, out
    assert out["skipped"] == [] and out["problems"] == []
    got = {h["kueue_workload"]: (h["cluster_queue"], {p["name"]: (p["count"], p["flavors"]) for p in h["pod_sets"]})
           for h in out.get("holding", [])}
    assert got == held
    assert {h["kueue_workload"] for h in out.get("holding", []) if h["evicted"]} == evicted
    assert {d["kueue_workload"] for d in out["decisions"] if not d["admitted"]} == pending
    assert out["oracle"]["cycles"] == 1


def test_a_second_min_count_is_refused_by_kueues_webhook(kueue_oracle):
    """TestSchedule's "partial admission multiple variable pod sets" gives two pod sets a
    minCount; the unit test never calls Kueue's Workload webhook, which refuses that."""
    out = run_oracle(kueue_oracle, [str(CASES / "setup.yaml"), str(CASES / "partial-admission-multiple-pod-sets.yaml")])
    assert [(s["kind"], s["name"]) for s in out["skipped"]] == [("Workload", "new")]
    assert "at most one podSet can use minCount" in out["skipped"][0]["reason"]


def test_the_preemptor_is_admitted_once_the_victims_are_gone(kueue_oracle):
    """Run to the end, the victims' jobs stop (their quota released between cycles, as Kueue's
    job reconcilers do) and the preemptor is admitted in the next cycle."""
    out = run_oracle(kueue_oracle, [str(CASES / "setup.yaml"), str(CASES / "preempt-in-cluster-queue-and-cohort.yaml")])
    by = {d["kueue_workload"]: d for d in out["decisions"]}
    preemptor = by["eng-beta/preemptor"]
    assert preemptor["admitted"] and preemptor["cluster_queue"] == "eng-beta"
    assert preemptor["pod_sets"][0]["flavors"] == {"cpu": "on-demand"}
    assert preemptor["cycle"] == 2
    assert sorted(v["workload"] for v in preemptor["preempted"]) == ["eng-alpha/borrower", "eng-beta/low-2"]
    assert {v["workload"]: v["reason"] for v in preemptor["preempted"]} == {
        "eng-alpha/borrower": "InCohortReclamation", "eng-beta/low-2": "InClusterQueue"}
    for victim in ("eng-alpha/borrower", "eng-beta/low-2"):
        assert by[victim]["preempted_by"] == "eng-beta/preemptor"


def test_admission_fair_sharing_orders_by_local_queue_usage(kueue_oracle):
    """The LocalQueue status's consumed resources reach Kueue's queue ordering
    (AfsConsumedResources, as scheduler_afs_test.go sets them): the newer workload of the light
    queue goes first."""
    out = run_oracle(kueue_oracle, [str(Path(__file__).parent / "features" / "admission-fair-sharing.yaml")])
    assert {d["workload"]: d["admitted"] for d in out["decisions"]} == {"team/from-heavy": False, "team/from-light": True}
