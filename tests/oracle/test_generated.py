"""kadmit against Kueue on random clusters (tests/oracle/generate.py): flavors, cohorts, quotas with
borrowing and lending limits, preemption policies, queueing strategies, fungibility, admitted and
pending workloads, minimum counts. Kueue runs twice; a workload whose outcome differs between the
runs (Kueue's own map order) is compared with neither. More seeds: bench/oracle_fuzz.py."""

from __future__ import annotations

import pytest

from oracle.generate import cluster
from oracle.harness import compare, from_kadmit, from_oracle, run_kadmit, run_oracle

SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_cluster(kueue_oracle, tmp_path, seed):
    path = tmp_path / f"cluster-{seed}.yaml"
    path.write_text(cluster(seed))
    code, kadmit = run_kadmit([str(path)])
    assert kadmit is not None, f"kadmit refused seed {seed} (exit {code})"
    kueue = run_oracle(kueue_oracle, [str(path)], "--runs", "2")
    assert kueue["skipped"] == [], kueue["skipped"]
    varies = {w["workload"] for w in kueue["variance"]["workloads"]}
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q)
    result.differ = {n: d for n, d in result.differ.items() if n not in varies}
    assert result.agree, f"seed {seed}:\n{result.report(k, q)}\n{path.read_text()}"
