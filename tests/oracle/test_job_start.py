"""Kueue's job reconciler starting an admitted Workload's job (docs/INTEGRATIONS.md J12) on the oracle: a start
that fails for good finishes the Workload with Kueue's error, word for word; which of several conflicting keys
that error names is Go's map order, and which member of a pod group goroutine scheduling (docs/KUEUE-DIFFERENCES.md
§1, "A job Kueue cannot start"). The timing of a
start the run admits is tests/oracle/test_timing.py."""

from __future__ import annotations

from oracle.harness import compare, from_kadmit, from_oracle, run_kadmit, run_oracle, variants


def test_a_job_kueue_cannot_start_is_skipped_with_kueues_error(kueue_oracle):
    """Jobs whose admitted Workload Kueue's startJob cannot start (docs/INTEGRATIONS.md J12): the oracle lists
    each as skipped with the Finished condition Kueue set (FailedToStart and its error, tools/kueue-oracle
    internal/jobs/convert.go `collect`); kadmit's reason carries the same error, word for word — a template's
    node selector against the flavor, and an admission check's podSetUpdate against it."""
    path = "tests/oracle/features/admitted-job-start-fails.yaml"
    kueue = {s["name"]: s["reason"] for s in run_oracle(kueue_oracle, [path])["skipped"]}
    code, kadmit = run_kadmit([path])
    ours = {s["name"]: s["reason"] for s in kadmit["skipped"]}
    assert sorted(kueue) == sorted(ours) == ["sel", "upd"]
    for name, reason in kueue.items():
        prefix = f"its Workload ns/job-{name}-{1 if name == 'sel' else 2} is Finished (FailedToStart): "
        assert reason.startswith(prefix) and f": {reason.removeprefix(prefix)}. The failure is permanent" in ours[name]


def test_which_conflicting_key_kueue_names_goes_either_way(kueue_oracle):
    """Eight Jobs Kueue cannot start, each template's node selector conflicting with its flavor's node labels
    on eight keys (docs/INTEGRATIONS.md J12): Kueue's error names the first key utilmaps.HaveConflict meets in
    Go's map order, so one run's eight starts name several keys (all alike about once in 2*10^6 runs); kadmit
    names the first as written, k0, one of Kueue's, with Kueue's words around it. The decisions agree: every
    Workload is Finished and ns/after takes the 8 cpu they free."""
    path = "tests/oracle/features/tie-job-start-conflicts-on-several-keys.yaml"
    kueue = run_oracle(kueue_oracle, [path])
    error = "invalid admission check PodSetUpdate: conflict for nodeSelector: conflict for key={}, value1=x, value2=f0"
    theirs = {s["name"]: s["reason"].rsplit("key=", 1)[1].split(",")[0] for s in kueue["skipped"]}
    assert sorted(theirs) == [f"j{i}" for i in range(1, 9)] and len(set(theirs.values())) > 1
    assert set(theirs.values()) <= {f"k{i}" for i in range(8)}
    assert all(s["reason"].endswith(error.format(theirs[s["name"]])) for s in kueue["skipped"])
    code, kadmit = run_kadmit([path])
    assert sorted(s["name"] for s in kadmit["skipped"]) == sorted(theirs)
    assert all(f": {error.format('k0')}. The failure is permanent" in s["reason"] for s in kadmit["skipped"])
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert code == 0 and result.agree and k.outcomes["ns/after"].admitted, result.report(k, q)


def test_which_pod_group_member_kueue_names_goes_either_way(kueue_oracle):
    """Thirty-two admitted pod groups Kueue cannot start, member g<i>-0 labelled `kueue.x-k8s.io/podset: m0`,
    g<i>-1 `m1`, each conflicting with the pod set name Kueue's start merges in: Pod.Run starts a group's members in
    one parallelize.Until and keeps the first error, so which member the Finished message names is goroutine
    scheduling (16 runs named m1 for 5 to 14 of the 32 groups, a loaded machine's runs as few as 1). A run naming
    one member only is run again (twice at most): Kueue names both within three runs. kadmit names the first member
    as written, m0, one of Kueue's, and decides alike: every group's Workload Finished, ns/after admitted on the 64
    cpu they free."""
    path = "tests/oracle/features/tie-pod-group-start-fails-member-named.yaml"
    error = ("invalid admission check PodSetUpdate: conflict for labels: conflict for key=kueue.x-k8s.io/podset, "
             "value1={}, value2=705f0fa5")
    named: set[str] = set()
    for _ in range(3):
        kueue = run_oracle(kueue_oracle, [path])
        theirs = {s["name"]: s["reason"].rsplit("value1=", 1)[1].split(",")[0] for s in kueue["skipped"]}
        assert sorted(theirs) == sorted(f"g{g}-{i}" for g in range(1, 33) for i in range(2))
        assert all(theirs[f"g{g}-0"] == theirs[f"g{g}-1"] for g in range(1, 33))  # the group's one message
        assert all(s["reason"].endswith(error.format(theirs[s["name"]])) for s in kueue["skipped"])
        named |= set(theirs.values())
        if len(named) > 1:
            break
    assert named == {"m0", "m1"}
    code, kadmit = run_kadmit([path])
    assert sorted(s["name"] for s in kadmit["skipped"]) == sorted(f"g{g}" for g in range(1, 33))
    assert all(f": {error.format('m0')}. The failure is permanent" in s["reason"] for s in kadmit["skipped"])
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q, alternatives=variants(kueue))
    assert code == 0 and result.agree and k.outcomes["ns/after"].admitted, result.report(k, q)


def test_a_workload_whose_start_fails_in_the_run_is_admitted_and_finished(kueue_oracle):
    """Job `bad`'s Workload, admitted in cycle 1 and then not startable (its template's `kueue.x-k8s.io/podset`
    label), with Kueue's job reconciler answering after the scheduler's run (`--reconcile-jobs-every 100`): at the end
    its QuotaReserved and Admitted conditions stay True and its admission stays in its status, but it is Finished
    (FailedToStart, the start's error) and Kueue's workload controller has dropped it from the cache, so it holds no
    quota (`--end-state`'s `holding` leaves it out). The oracle's decision says so (`finished`, beside `admitted`), and
    kadmit's (KAD161's Workload) too, Kueue's words, and none other is finished."""
    path = "tests/oracle/features/tie-job-start-fails-reconcile-timing.yaml"
    kueue = run_oracle(kueue_oracle, [path], "--reconcile-jobs-every", "100", "--end-state")
    theirs = {d["workload"]: d for d in kueue["decisions"]}
    assert theirs["ns/bad"]["admitted"] and theirs["ns/bad"]["quota_reserved"]
    assert theirs["ns/bad"]["finished"] == {"reason": "FailedToStart", "message": (
        "invalid admission check PodSetUpdate: conflict for labels: conflict for key=kueue.x-k8s.io/podset, "
        "value1=other, value2=main")}
    assert sorted(h["workload"] for h in kueue["holding"]) == ["ns/w1", "ns/w2"]
    code, kadmit = run_kadmit([path])
    ours = {d["workload"]: d for d in kadmit["decisions"]}
    assert {n: d["finished"] for n, d in ours.items()} == {n: d["finished"] for n, d in theirs.items()}
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q)
    assert code == 0 and result.agree and k.outcomes["ns/bad"].finished == "FailedToStart", result.report(k, q)
