"""`kueue-oracle admit --report-every N` and the harness's run_oracle_until, which the `tie-` tests use to stop
the oracle once its runs show the outcomes they wait for: the answer so far after N runs is the answer of
`--runs N` (the same seeds), and the last is the whole answer."""

from __future__ import annotations

import subprocess

from oracle.harness import ROOT, run_oracle, run_oracle_until

# The Workloads' UIDs are drawn from each run's seed and decide which job is admitted, so the runs' outcomes are
# the same whenever they are decided (test_jobs_created_in_one_second_go_either_way): answers compare equal.
PATH = "tests/oracle/features/tie-jobs-created-in-one-second.yaml"


def _without_cpu(answer: dict) -> dict:
    oracle = {k: v for k, v in answer["oracle"].items() if not k.endswith("_cpu_seconds")}
    return dict(answer, oracle=oracle)


def test_the_answer_so_far_is_the_answer_of_as_many_runs(kueue_oracle):
    seen: list[dict] = []
    answer = run_oracle_until(kueue_oracle, [PATH], lambda d: seen.append(d) or len(seen) == 2, runs=16, every=4)
    assert [d["oracle"]["runs"] for d in seen] == [4, 8] and answer is seen[-1]
    eight = run_oracle(kueue_oracle, [PATH], "--runs", "8")
    assert _without_cpu(answer) == _without_cpu(eight)
    assert eight["variance"]["outcomes"] == 2  # something to compare: both jobs' outcomes vary
    # never shown: the whole answer, after every run
    whole = run_oracle_until(kueue_oracle, [PATH], lambda d: False, runs=8, every=4)
    assert _without_cpu(whole) == _without_cpu(eight)


def test_report_every_is_refused_with_each(kueue_oracle):
    proc = subprocess.run([kueue_oracle, "admit", "--report-every", "2", "--each", PATH],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "usage: kueue-oracle admit" in proc.stderr
