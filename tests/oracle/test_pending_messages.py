"""The message Kueue leaves on a pending workload (its Workload's QuotaReserved=False condition, the
oracle's `pending.message`) against the reason kadmit's `admit` gives it. test_admit compares
outcomes only; these cases compare the words a user reads: kadmit's reasons, Kueue's own (KAD533's
words on which preemption policies evict nobody are kadmit's, left aside), must be Kueue's message,
or Kueue's message with kadmit's detail after it (`: …`, ` (…)`). A bounded sample of
bench/pending_messages.py, which runs every feature case (the agreement figure is in bench/README.md).
Known differences are strict xfails; where Kueue's message varies with Go's map order, kadmit's must be one its
runs give (`VARIANTS`)."""

from __future__ import annotations

from functools import cache

import pytest

from oracle.differential import each_selected
from oracle.harness import ROOT, run_kadmit, run_oracle, run_oracle_until
from oracle.pending import kueue_words, observed_messages, undecided, verdict

F = "tests/oracle/features/"
CASES = [
    # newuser: Kueue nominated ns/gang on cycle 1's snapshot (b/big's 16 GPUs not yet counted) and its
    # topology refused it; the run's end state would give a quota message (`run_reasons`)
    (F + "tas-reason-of-a-head-nominated-beside-a-borrower.yaml", "ns/gang"),
    # the quota its last cycle met, before a later admission of its tree took more (`run_reasons`)
    (F + "admitted-under-limit-range.yaml", "other/big"),
    (F + "pod-level-limits-default-a-pods-requests.yaml", "team/big"),
    # nominated in its last cycle and then skipped: Kueue's setSkipped message (`Decision.skipped`)
    (F + "fit-status-over-quota.yaml", "team/wl"),
    (F + "tas-transformed-resource-no-node-has-never-fits.yaml", "team/b"),
    # a stopped LocalQueue: "LocalQueue held is inactive", kadmit's stopPolicy after it
    (F + "strict-fifo-behind-a-stopped-local-queue.yaml", "team/big"),
    # Kueue's counts of the nodes excluded end its topology messages (`placement.exclusions`)
    (F + "tas-node-without-ready-condition.yaml", "team/w2"),
    (F + "tas-hostname-label-is-not-the-node-name.yaml", "ns/big"),
    (F + "admission-check-delayed-in-input-second-pass.yaml", "ns/wb"),
    # a victim requeued and tried again: its later try's message, not the eviction's (`Decision.tried_again`);
    # one never tried again (behind a StrictFIFO head) keeps the eviction's, the preemptor's name after it
    (F + "preempted-victim-tried-again-keeps-that-message.yaml", "ns/low-b"),
    (F + "preempted-victim-tried-again-keeps-that-message.yaml", "ns/s-low"),
    # a required node affinity NewNodeSelector cannot parse: the Go-printed NodeSelector and the parse errors
    (F + "tas-node-affinity-match-fields-unparsable.yaml", "team/exists"),
    (F + "tas-node-affinity-match-fields-unparsable.yaml", "team/twovalues"),
    (F + "tas-node-affinity-match-expressions-unparsable.yaml", "team/gttwo"),
    (F + "tas-node-affinity-match-expressions-unparsable.yaml", "team/nilnotin"),
    (F + "tas-node-affinity-label-key-and-value-unparsable.yaml", "team/badkey"),
    (F + "tas-node-affinity-label-key-and-value-unparsable.yaml", "team/badvalue"),
    (F + "tas-node-affinity-label-key-and-value-unparsable.yaml", "team/prefix"),
    # without topology-aware scheduling: the flavor assigner's LazyErrorNodeSelector error, expressions numbered
    # as flavorSelector keeps them, the search ended at the flavor that errs
    (F + "node-affinity-match-expressions-unparsable-flavor-search.yaml", "team/emptyin"),
    (F + "node-affinity-match-expressions-unparsable-flavor-search.yaml", "team/notinnil"),
    (F + "node-affinity-match-expressions-unparsable-flavor-search.yaml", "team/firstfull"),
    (F + "node-affinity-match-expressions-unsupported-operator.yaml", "team/equals"),
    (F + "node-affinity-match-expressions-unsupported-operator.yaml", "team/lowerin"),
    (F + "node-affinity-match-expressions-unsupported-operator.yaml", "team/badkey"),
    (F + "trainjob-runtime-patch-node-affinity-unparsable.yaml", "ml/gtx"),
    (F + "preemption-fits-keeps-flavor.yaml", "team/wv"),
    # behind a StrictFIFO head that came back after Kueue had tried it: that try's message (`Decision.tried`)
    (F + "strict-fifo-tried-before-its-head-came-back.yaml", "ns/w"),
    # one whose LocalQueue doesn't exist: the workload controller's message, written after the eviction's
    (F + "preempted-victim-without-local-queue.yaml", "ns/old"),
    # a preemptor evicted in turn and tried again: that try's message, not "Pending the preemption"
    (F + "fair-sharing-mutual-eviction.yaml", "team/urgent0"),
    # a preemptor behind a StrictFIFO head since its preemptions were issued: that try's assignment message,
    # ". Pending the preemption of N workload(s)" after it (`preempting_reasons`); its victim names its metadata.uid
    (F + "preemptor-behind-a-head-pending-its-preemptions.yaml", "ns/preemptor"),
    (F + "preemptor-behind-a-head-pending-its-preemptions.yaml", "ns/low"),
    # flavorassigner.go: a pod set whose flavors fit only by preempting doesn't end the search (the next
    # pod set's message follows), a resource group that fits says nothing, one with no flavor replaces
    # the pod set's other reasons (`reasons.flavor_reasons`)
    (F + "trainjob-reclaimable-pods.yaml", "ml/over"),
    (F + "pod-group-succeeded-member-reclaimed.yaml", "ns/b"),
    (F + "preempted-victim-requeued-with-overhead.yaml", "ns/old"),
    # slices as Kueue counts them (notFitMessage), a Workload's own negative size with Go's division
    (F + "tas-slices-that-dont-fit-as-kueue-counts-them.yaml", "ns/pos"),
    (F + "tas-slices-that-dont-fit-as-kueue-counts-them.yaml", "ns/neg-rack"),
    # (workload-slice-fields-as-the-scheduler-reads-them.yaml's w6 was here: Kueue no longer tries it, its head's
    # admission write is refused every cycle (`refused_write`), and it has no condition, so no message)
    # a prebuilt Workload a job takes: its job-uid label is the job's UID (EnsurePrebuiltWorkloadOwnership), one
    # the job controlled already keeps its own
    (F + "prebuilt-workload-taken-gets-the-jobs-uid-label.yaml", "ns/low"),
    (F + "prebuilt-workload-taken-gets-the-jobs-uid-label.yaml", "ns/low2"),
    # several reasons: Kueue's one first (its workload controller's queue checks, then its scheduler's), kadmit's after
    (F + "pending-reasons-in-kueues-order.yaml", "ns/off-in-a-stopped-queue"),
    (F + "pending-reasons-in-kueues-order.yaml", "ns/invalid-in-a-held-queue"),
    (F + "pending-reasons-in-kueues-order.yaml", "ns/invalid-in-another-teams-queue"),
    # a failed admission check and invalid resources: the scheduler's nominate names the check first
    (F + "failed-check-before-invalid-resources.yaml", "ns/retry-and-requests-over-limits"),
    (F + "failed-check-before-invalid-resources.yaml", "limited/rejected-and-over-the-limit-range"),
    (F + "failed-check-before-invalid-resources.yaml", "ns/retry-in-another-teams-queue-and-invalid"),
    # a pod-set group: the group's summed requests, its status given to each member
    (F + "pod-set-group-quota-message-for-each-member.yaml", "ns/group-over-quota"),
    (F + "pod-set-group-quota-message-for-each-member.yaml", "ns/busy-group"),
    # a negative size whose count a node "holds": given more pods than it holds, nominated, then skipped
    (F + "tas-negative-slice-size-nominated-then-skipped.yaml", "ns/over"),
    # ElasticJobsViaWorkloadSlicesWithTAS: a slice's new pods placed with its old pods counted twice; a required
    # topology's error is the whole message of a workload needing preemption (placement.slices)
    (F + "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-delta-does-not-fit.yaml", "ns/new"),
    (F + "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-required-refused.yaml", "ns/over"),
    (F + "feature-gate-elastic-jobs-via-workload-slices-with-tas-on-negative-count-message.yaml", "ns/new"),
    (F + "feature-gate-elastic-jobs-via-workload-slices-on-two-pod-sets-message.yaml", "ns/new"),
    # behind a refused admission write whose topology assignment holds nodes for the rest of the cycle
    (F + "tas-negative-count-write-refused-holds-its-nodes.yaml", "ns/late"),
    # an elastic RayJob with in-tree autoscaling counted as its RayCluster counts its worker groups (slices._autoscaled)
    (F + "feature-gate-elastic-jobs-via-workload-slices-on-rayjob-autoscaled-counts-from-its-raycluster.yaml", "ns/rj"),
    # a placement failure whose preemption search finds no victims: the placement's message, not the search's
    (F + "tas-preemption-without-victims-keeps-the-placements-message.yaml", "ns/w"),
]

# where Kueue's message depends on timing the oracle's harness fixes one way (docs/KUEUE-DIFFERENCES.md §1,
# "The last message of a reservation taken back and made again"): strict xfails
TIMING = [
    pytest.param(F + "local-queue-being-deleted-with-admission-checks-cohort.yaml", "ns/holder",
                 marks=pytest.mark.xfail(strict=True, reason="the take-back's timing: KUEUE-DIFFERENCES §1")),
]


RUNS = {"test_pending_message_is_kueues": 3}


@pytest.fixture(scope="module")
def kueue_each(kueue_oracle, request) -> dict[tuple[str, int], dict]:
    """Kueue's answer for each path the selected cases ask, by (path, runs): one oracle process per number of
    runs (`each_selected`) rather than one per case."""
    def asks(item):
        runs = RUNS.get(getattr(item, "originalname", None))
        return None if runs is None else ((item.callspec.params["path"], runs), item.callspec.params["path"], runs)
    return each_selected(kueue_oracle, request, asks)


@cache
def _kadmit(path: str) -> dict:
    """kadmit's answer for `path`, once for the cases that read two of its workloads (not changed by them)."""
    return run_kadmit([path])[1]


@pytest.mark.parametrize("path,workload", CASES + TIMING)
def test_pending_message_is_kueues(kueue_each, path: str, workload: str) -> None:
    kueue, kadmit = kueue_each[(path, RUNS["test_pending_message_is_kueues"])], _kadmit(path)
    theirs = next(d for d in kueue["decisions"] if d["workload"] == workload)
    ours = next(d for d in kadmit["decisions"] if d["workload"] == workload)
    assert not theirs["admitted"] and not ours["admitted"]
    message, mine = theirs["pending"]["message"], kueue_words(ours["reasons"])
    assert verdict(message, mine) in ("equal", "more"), mine


# Kueue's message varies with Go's map order here (docs/KUEUE-DIFFERENCES.md §1, "Messages"): kadmit's must
# be one of those its runs give, and the runs must give more than one (else it is no variant: compare it above)
VARIANTS = {  # (up to 64 runs of Kueue's: 16 miss `workers` now and then, 64 at 13 of 64 less than once in 10^6)
    # the pod set of a topology-aware group its message names (`leader` in 47-51 runs of 64, `workers` in 13-17)
    F + "pod-set-group-tas.yaml": "team/group",
    F + "pod-set-group-tas-required-host.yaml": "team/host-too-big",
    F + "pod-set-group-tas-unparsable-affinity.yaml": "team/badworkers",  # the workers' affinity Kueue cannot parse
    # the resource a flavor's check stops at (`for rName := range requests`: the first over its capacity)
    F + "multi-pod-set-head-searches-again.yaml": "team/head",
}


@pytest.mark.parametrize("path,workload", sorted(VARIANTS.items()))
def test_pending_message_is_one_of_kueues(kueue_oracle, path: str, workload: str) -> None:
    kadmit = _kadmit(path)
    ours = next(d for d in kadmit["decisions"] if d["workload"] == workload)

    def shown(kueue: dict) -> bool:  # what is asserted below: the runs so far give it (their messages only grow)
        observed = observed_messages(kueue, workload)
        return len(observed) > 1 and verdict(observed[0], kueue_words(ours["reasons"]), observed) != "differs"
    kueue = run_oracle_until(kueue_oracle, [path], shown, runs=64)  # until shown, at most 64 runs
    observed = observed_messages(kueue, workload)
    assert len(observed) > 1, observed
    assert verdict(observed[0], kueue_words(ours["reasons"]), observed) != "differs", (observed, ours["reasons"])


def test_a_loops_messages_are_where_the_bound_cuts_it(kueue_oracle) -> None:
    """A preemption loop has no last message: cut one cycle apart, Kueue leaves team/low admitted or evicted
    ("Preempted to accommodate ..."), so kadmit's undecided workloads (KAD535/536) are counted apart from the
    differences (bench/pending_messages.py `undecided`; docs/KUEUE-DIFFERENCES.md §1, "Preemption loops")."""
    path = F + "admission-fair-sharing-sticky.yaml"
    cut = [{d["workload"]: d for d in run_oracle(kueue_oracle, [path], "--max-cycles", str(n))["decisions"]}
           for n in (60, 61)]
    assert cut[0]["team/low"]["admitted"] != cut[1]["team/low"]["admitted"]
    assert all(not c["team/high"]["admitted"] for c in cut)
    _, kadmit = run_kadmit([path])
    ours = {d["workload"]: d for d in kadmit["decisions"]}
    assert undecided(ours["team/high"]) and undecided(ours["team/low"])


def test_a_uid_the_api_server_gives_is_unknown_to_kadmit(kueue_oracle) -> None:
    """A preemptor's Workload or job being submitted has the API server's UIDs, which no input holds: kadmit's
    Preempted message writes UNKNOWN for each, the input's own (pre's metadata.uid) as written, and
    tests/oracle/pending.py counts it as `uid`, not `differs` (docs/KUEUE-DIFFERENCES.md §1)."""
    path = F + "preemptor-uids-the-api-server-gives.yaml"
    kueue = {d["workload"]: d for d in run_oracle(kueue_oracle, [path], "--runs", "1")["decisions"]}
    _, kadmit = run_kadmit([path])
    ours = {d["workload"]: d for d in kadmit["decisions"]}
    given = (ROOT / path).read_text(encoding="utf-8")
    uids = {"ns/low": "UID: 7d1e0b20-0000-4000-8000-00000000000a, JobUID: UNKNOWN",
            "ns/low2": "UID: UNKNOWN, JobUID: UNKNOWN"}
    for workload, written in uids.items():
        message, mine = kueue[workload]["pending"]["message"], kueue_words(ours[workload]["reasons"])
        assert f"({written})" in mine, mine
        assert (verdict(message, mine), verdict(message, mine, given=given)) == ("differs", "uid"), (message, mine)
