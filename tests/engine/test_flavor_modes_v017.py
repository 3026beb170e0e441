"""Flavor assignment as Kueue v0.17.0 has it, where the soak found kadmit apart (the two cases in
tests/oracle/features are decided by Kueue's own code too; here by the engine and the reference):
isPreferred has no preference for a mode with preemption candidates, a pod set whose flavors are
each Fit as a whole is Fit though a resource needs preemption (and the scheduler's `fits` then
refuses it), an assignment's Borrowing is the highest height any resource borrows at, and the
flavor at which the search stops is taken even when one tried before it was preferred."""

from __future__ import annotations

from pathlib import Path

from kadmit import workspace
from kadmit.engine.admission.flavor_assignment import MODES, preferred, try_next
from kadmit.engine.decide import admit
from kadmit.model import FlavorFungibility
from kadmit.reference.replay import decide

FEATURES = Path(__file__).resolve().parents[1] / "oracle" / "features"


def _admitted(path: Path) -> tuple[dict[str, bool], dict[str, bool]]:
    model = workspace.load([str(path)]).model
    engine = {d.key: d.admitted for d in admit(model).decisions}
    reference = {d.workload: d.admitted for d in decide(model, preemption=True)}
    return engine, reference


def test_no_candidates_is_a_mode_like_the_others():
    no_candidates, fit_borrowing = (MODES["NoCandidates"], 0), (MODES["Fit"], 1)
    assert preferred(no_candidates, fit_borrowing, "PreemptionOverBorrowing")  # lower height first
    assert not preferred(no_candidates, fit_borrowing, "BorrowingOverPreemption")
    assert preferred((MODES["Preempt"], 0), no_candidates, "BorrowingOverPreemption")


def test_a_fit_pod_set_over_quota_is_refused_every_cycle():
    engine, reference = _admitted(FEATURES / "fit-status-over-quota.yaml")
    assert engine == reference == {"team/wl": False}


def test_borrowing_counts_every_resource_of_the_assignment():
    engine, reference = _admitted(FEATURES / "borrowing-of-a-preempting-assignment.yaml")
    assert engine == reference == {"team-a/a1": False, "team-b/b1": True}


def _placed(path: Path) -> tuple[dict, dict]:
    """Per workload, (admitted, flavors of its pod sets, whom it preempted), by the engine and the reference."""
    model = workspace.load([str(path)]).model
    engine = {d.key: (d.admitted, [sorted(f.items()) for f in d.assignment.flavors.values()] if d.admitted else [],
                      sorted(v.key for v in d.preempted)) for d in admit(model).decisions}
    reference = {d.workload: (d.admitted, [sorted(ps.flavors.items()) for ps in d.pod_sets] if d.admitted else [],
                              sorted(t.key for t in d.preempted)) for d in decide(model, preemption=True)}
    return engine, reference


def test_the_flavor_that_stops_the_search_is_taken():
    stop = FlavorFungibility(when_can_borrow="TryNextFlavor", when_can_preempt="Preempt")
    assert try_next(MODES["Fit"], 1, stop) and not try_next(MODES["Preempt"], 0, stop)
    assert preferred((MODES["Fit"], 1), (MODES["Preempt"], 0))  # yet Preempt on `own` wins: it stopped the search
    engine, reference = _placed(FEATURES / "flavor-that-stops-the-search-wins.yaml")
    assert engine["team/high"] == reference["team/high"] == (True, [[("cpu", "own")]], ["team/low"])


def test_under_fair_sharing_the_queue_preempts_in_its_own_flavor():
    engine, reference = _placed(FEATURES / "fair-sharing-borrow-or-preempt-in-own-queue.yaml")
    assert engine["ns-cq1/w01"] == reference["ns-cq1/w01"] == (True, [[("cpu", "f0")]], ["ns-cq1/w03"])
    assert engine["ns-cq1/w03"][0] is reference["ns-cq1/w03"][0] is False
