"""`kadmit why` for a workload whose pod-set group (Kueue's podSetGroupName: a leader and its workers
placed as one) topology-aware scheduling can't place: blame names the group, and every proven fix,
applied to the input, is a cluster in which Kueue's own scheduler (tools/kueue-oracle) admits the
workload as kadmit says."""

from __future__ import annotations

import pytest

from oracle.harness import ROOT, compare, from_kadmit, from_oracle, run_kadmit, run_oracle

CASES = {
    # r1 holds one GPU, r2 three: the leader and 3 workers fit no rack together
    "tests/oracle/features/pod-set-group-tas.yaml": ("team/group", {"group", "count", "topology", "domain"}, 3),
    # one host each: 4 workers and the leader fit no host; two cores (the holder of n1, the group)
    "tests/oracle/features/pod-set-group-tas-required-host.yaml": (
        "team/host-too-big", {"group", "count", "topology", "domain", "holder"}, 3),
    # a LeaderWorkerSet's third replica: the first two hold racks r2 and r3 (kadmit's Workload name)
    # (the fixes proven are node capacity: kadmit proposes no change of the LeaderWorkerSet itself here)
    "tests/oracle/features/pod-set-group-tas-lws-third-replica.yaml": (
        "team/serve:group-2", {"group", "count", "domain", "holder"}, 2),
}


@pytest.mark.parametrize("path", sorted(CASES))
def test_group_blame_and_fixes_agree_with_kueue(kueue_oracle, path, tmp_path):
    from kadmit import api
    from kadmit.edits import apply

    workload, blamed, least = CASES[path]
    out = api.why(workload, [str(ROOT / path)], fixes=5)
    r = out.result
    assert r is not None and not r.admitted and r.blame_kind == "placement"
    kinds = {o.kind for o in r.blame}
    assert kinds == blamed, kinds
    assert r.placement is not None and r.placement.unsat
    assert len(r.fixes) >= least, [f.changes for f in r.fixes]
    text = (ROOT / path).read_text()
    for i, fix in enumerate(r.fixes):
        edits = [c.edit for c in fix.changes if c.edit is not None]
        assert edits, fix
        changed = tmp_path / f"fix{i}.yaml"
        changed.write_text(apply(text, edits))
        code, kadmit = run_kadmit([str(changed)])
        kueue = run_oracle(kueue_oracle, [str(changed)])
        k, q = from_kadmit(kadmit), from_oracle(kueue)
        result = compare(k, q)
        assert result.agree, f"fix {i + 1} ({fix}):\n" + result.report(k, q)
        # kadmit admits it, and Kueue agrees (a job's Workloads compared by object: Kueue hashes names its own way)
        assert k.outcomes[workload].admitted, f"fix {i + 1} does not admit `{workload}`"
