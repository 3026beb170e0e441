"""`admit` gives a pending workload the reasons of the state it met when Kueue last tried it, as `why`
explains it (engine/explain/decision.py `run_reasons`, `explain_decision` under `as_met`): for every
workload `admit` leaves pending, `why`'s reasons begin with `admit`'s (it may add its own after them).
On the feature cases whose end-state reason differed from the one of their last cycle, and on the
bundled examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import api

ROOT = Path(__file__).resolve().parents[2]
FEATURES = ROOT / "tests" / "oracle" / "features"

# the feature cases where a later admission (same cohort tree, or nodes) changed the quota or the
# nodes a pending workload met in its last cycle, and the end state's reason was not Kueue's (the
# oracle's `pending.message`, bench/pending_messages.py)
MET_CHANGED = {
    "tas-reason-of-a-head-nominated-beside-a-borrower.yaml": ("ns/gang", "topology \"dc\" allows to fit only 2"),
    "admitted-under-limit-range.yaml": ("other/big", "cpu in flavor f0, 1 more needed"),
    "pod-level-limits-default-a-pods-requests.yaml": ("team/big", "cpu in flavor f0, 1 more needed"),
    "multi-pod-set-head-searches-again.yaml": ("team/head", "couldn't assign flavors to pod set worker"),
    # nominated in its last cycle and skipped (Kueue's setSkipped): the skip's message
    "fit-status-over-quota.yaml": ("team/wl", "Workload no longer fits after processing another workload"),
    "tas-transformed-resource-no-node-has-never-fits.yaml": ("team/b", "Workload no longer fits after processing"),
    "tas-preempt-holds-nodes.yaml": ("ns1/c", "Workload no longer fits after processing another workload"),
}
SAME = sorted(MET_CHANGED) + ["stopped-local-queues.yaml", "admission-fair-sharing-preemption.yaml"]
EXAMPLES = [ROOT / "examples" / "ml-platform", ROOT / "examples" / "ml-platform-kueue"]


def _pending(paths: list[str]) -> dict[str, list[str]]:
    out = api.admit(paths)
    assert out.result is not None, out.diagnostics
    return {d.key: [r.message for r in out.result.reasons.get(d.key, [])]
            for d in out.result.decisions if not d.admitted}


def _why(paths: list[str], key: str) -> list[str]:
    got = api.why(key, paths, fixes=0)
    assert got.result is not None, got.diagnostics
    return [r.message for r in got.result.reasons]


@pytest.mark.parametrize("name", sorted(MET_CHANGED))
def test_admit_reason_is_the_cycles(name: str) -> None:
    """The reason names what Kueue's last nomination of it met (Kueue's message, the oracle's)."""
    key, said = MET_CHANGED[name]
    reasons = _pending([str(FEATURES / name)])[key]
    assert said in reasons[0]


@pytest.mark.parametrize("name", SAME)
def test_why_begins_with_admits_reasons(name: str) -> None:
    paths = [str(FEATURES / name)]
    pending = _pending(paths)
    assert pending
    for key, reasons in pending.items():
        assert _why(paths, key)[:len(reasons)] == reasons, key


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_why_begins_with_admits_reasons_in_the_examples(example: Path) -> None:
    paths = [str(example)]
    pending = _pending(paths)
    assert pending
    for key, reasons in sorted(pending.items()):
        assert _why(paths, key)[:len(reasons)] == reasons, key


# skipped as no longer fitting where the workload's own nomination is what Kueue's fits check refuses: a
# placement that gives a node more pods than it holds, a Fit assignment over quota
OVER_FULL = {
    "tas-transformed-resource-no-node-has-never-fits.yaml": ("team/b", "pod set main 1 pod(s) on n0, which holds 0"),
    "tas-negative-slice-size-nominated-then-skipped.yaml": ("ns/over", "pod set main 16 pod(s) on n0, which holds 8"),
    "fit-status-over-quota.yaml": ("team/wl", "a Fit assignment although cpu in flavor f0 fits only by preempting"),
}


@pytest.mark.parametrize("name", sorted(OVER_FULL))
def test_why_says_where_kueues_fits_check_refuses_the_nomination(name: str) -> None:
    """Not "fits on its own; it waited for workloads ahead of it" (no workload is ahead of it): what of its own
    nomination Kueue's fits check refuses, every cycle (explain/decision.py `_refused_by_fits`, placing/pool.py
    `over_full`); a skip another workload caused keeps it."""
    key, said = OVER_FULL[name]
    reasons = _why([str(FEATURES / name)], key)
    assert said in reasons[1] and "fits check" in reasons[1], reasons
    assert not any("fits on its own" in r for r in reasons), reasons
    assert any("fits on its own" in r for r in _why([str(FEATURES / "tas-preempt-holds-nodes.yaml")], "ns1/c"))


def test_why_says_the_api_server_refuses_an_empty_topology_assignment() -> None:
    """A nomination whose topology assignment has no slices (a negative podSetSliceSize that runs out on the way
    down): Kueue's admission write is refused by the API server, so `why` says so with the API server's message
    (KAD537, explain/decision.py; admission/decisions.py `refused_write`), and the workload is not admitted."""
    got = api.why("ns/rack", [str(FEATURES / "tas-negative-slice-size-nominated-then-skipped.yaml")], fixes=0)
    assert got.result is not None and not got.result.admitted, got.diagnostics
    codes = [r.code for r in got.result.reasons]
    assert codes == ["KAD537"], got.result.reasons
    said = got.result.reasons[0].message
    assert "refused by the API server" in said, said
    assert ('Workload.kueue.x-k8s.io "rack" is invalid: [status.admission.podSetAssignments[0].topologyAssignment'
            ".slices: Required value") in said, said


def test_why_says_the_api_server_refuses_a_count_below_one() -> None:
    """Kueue's greedy pass takes nodes of negative room (overcommitted by pods not Kueue's) and writes their
    negative counts: the Workload CRD's podCounts minimum of 1 refuses each, in the order Kueue lists the domains
    (the API server's words as kueue-oracle admit -v 2 logs them)."""
    got = api.why("ns/new", [str(FEATURES / "tas-negative-counts-write-refused-message.yaml")], fixes=0)
    assert got.result is not None and not got.result.admitted, got.diagnostics
    assert [r.code for r in got.result.reasons] == ["KAD537"], got.result.reasons
    field = "admission.podSetAssignments[0].topologyAssignment.slices[0].podCounts.individual"
    refused = [f"status.{field}[{j}]: Invalid value: -1: {field}[{j}] in body should be greater than or equal to 1"
               for j in (0, 1)]
    assert f'Workload.kueue.x-k8s.io "new" is invalid: [{", ".join(refused)}]' in got.result.reasons[0].message


def test_the_ones_behind_a_refused_head_wait_behind_it() -> None:
    """Kueue requeues a head whose admission write is refused at once (FailedAfterNomination), so it stays its
    queue's head every cycle and the ones behind it are never tried: they wait behind it, said as such (not
    "flavors left to try")."""
    reasons = _pending([str(FEATURES / "workload-slice-fields-as-the-scheduler-reads-them.yaml")])
    assert "refused by the API server" in reasons["ns/w1-size-above-count"][0]
    said = reasons["ns/w3-level-alone"][0]
    assert said.startswith("waiting behind ns/w1-size-above-count") and "refuses Kueue's admission write" in said, said
