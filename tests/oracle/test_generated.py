"""kadmit against Kueue on random clusters (tests/oracle/generate.py): flavors, cohorts, quotas with
borrowing and lending limits, preemption policies, queueing strategies, fungibility, admitted and
pending workloads, minimum counts. Kueue runs twice; a workload whose outcome differs between the
runs (Kueue's own map order) is compared with neither. More seeds: bench/oracle_fuzz.py."""

from __future__ import annotations

import pytest

from oracle.generate import cluster
from oracle.differential import oracle_each
from oracle.harness import compare, from_kadmit, from_oracle, run_kadmit

SEEDS = range(8)


@pytest.fixture(scope="module")
def clusters(kueue_oracle, request, tmp_path_factory) -> dict:
    """Each selected seed's cluster written to a file, and Kueue's answer (two runs) for all of them from
    one oracle process (`--each`: each file a cluster of its own) rather than a process per seed."""
    folder = tmp_path_factory.mktemp("generated")
    paths = {}
    for item in request.session.items:
        if getattr(item, "originalname", None) == "test_random_cluster" and item.module is request.module:
            seed = item.callspec.params["seed"]
            paths[seed] = folder / f"cluster-{seed}.yaml"
            paths[seed].write_text(cluster(seed))
    kueue = oracle_each(kueue_oracle, list(paths.values()), runs=2) if paths else {}
    return {seed: (path, kueue.get(str(path))) for seed, path in paths.items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_random_cluster(clusters, seed):
    path, kueue = clusters[seed]
    code, kadmit = run_kadmit([str(path)])
    assert kadmit is not None, f"kadmit refused seed {seed} (exit {code})"
    assert kueue is not None and "error" not in kueue, f"the oracle on seed {seed}: {kueue}"
    assert kueue["skipped"] == [], kueue["skipped"]
    varies = {w["workload"] for w in kueue["variance"]["workloads"]}
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q)
    result.differ = {n: d for n, d in result.differ.items() if n not in varies}
    assert result.agree, f"seed {seed}:\n{result.report(k, q)}\n{path.read_text()}"
