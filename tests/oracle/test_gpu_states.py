"""bench/gpu_states.py's preempting GPU cluster, small, decided by kadmit and by Kueue's own scheduler
(tools/kueue-oracle): the states where gpu_state(2000)'s differences were found (bench/README.md,
"oracle_bench.py"). Each ran into one of them before it was fixed:

- 2 queues, 80 jobs, seed 1: a head whose preemption targets overlap an earlier head's in the same
  cycle is skipped in Kueue v0.17.0 (kadmit recomputed it as v0.20 does: 12 workloads differed);
- 2 queues, 120 jobs, seed 2: the oracle stopped as "loop" after 28 of 97 cycles (a preemptor
  evicting a workload admitted the cycle before brings the admitted set back, and the run goes on),
  and a workload preempted twice is a victim of both preemptors;
- 3 queues, 150 jobs, seed 1: both, over 126 cycles.
"""

from __future__ import annotations

from pathlib import Path

import gpu_states
import pytest

from oracle.harness import compare, from_kadmit, from_oracle, run_kadmit, run_oracle


@pytest.mark.parametrize("jobs, seed, cluster_queues", [(80, 1, 2), (120, 2, 2), (150, 1, 3)])
def test_small_gpu_states_decided_as_kueue(kueue_oracle, tmp_path: Path, jobs, seed, cluster_queues):
    gpu_states.write_state(gpu_states.gpu_state(jobs, seed, cluster_queues, 1), tmp_path)
    code, kadmit = run_kadmit([str(tmp_path)])
    assert kadmit is not None and code in (0, 1)
    kueue = run_oracle(kueue_oracle, [str(tmp_path)])
    assert kueue["oracle"]["stop"] in ("settled", "stalled"), kueue["oracle"]
    assert not kadmit["loops"]
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q)
    assert result.agree, result.report(k, q)
    assert sum(len(d["preempted"]) for d in kueue["decisions"]) > 10  # preemption is what this decides
