"""SchedulingEquivalenceHashing between instants (simulate/queues.py `Queues.hashes`): a workload arriving with
a scheduling hash its BestEffortFIFO queue found inadmissible is parked at once, untried (Kueue's
cluster_queue.go PushOrUpdate), until quota is released in its tree (queueInadmissibleWorkloads clears the
set; a workload whose namespace the queue does not select stays parked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import api

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests/oracle/features/feature-gate-scheduling-equivalence-hashing-on-spec-shape.yaml"
# its cluster (cq: 8 cpu, selecting namespace mine only; a local queue q in mine and in other), not its Workloads
CLUSTER = CASE.read_text().split("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload")[0]


@pytest.mark.parametrize("gate", ["true", "false"])
def test_an_arrival_with_a_recorded_hash_waits_for_a_release(tmp_path, gate):
    # at 0 other/a (2 cpu) fails the namespaceSelector: its hash is recorded. mine/b (its shape) arrives at 1
    # and would fit (w1 holds 6 of 8 cpu): parked untried, KAD538. mine/c (1 cpu, another hash) is admitted at 2
    # and finishes at 7: the release clears the set and b is tried (a stays parked), admitted at 7.
    # Gate off: b admitted at 1, c waits for b's end at 6.
    gated = CLUSTER.replace("SchedulingEquivalenceHashing: true", f"SchedulingEquivalenceHashing: {gate}")
    (tmp_path / "cluster.yaml").write_text(gated)
    (tmp_path / "trace.csv").write_text("time,namespace,name,queue,priority,pods,duration,cpu\n"
                                        "0,mine,w1,q,,1,10,6\n0,other,a,q,,1,5,2\n1,mine,b,q,,1,5,2\n2,mine,c,q,,1,5,1\n")
    out = api.simulate([str(tmp_path / "cluster.yaml")], trace=str(tmp_path / "trace.csv"))
    assert out.exit_code == 0, out.diagnostics
    got = {w["workload"]: w["admitted_at"] for w in out.result["workloads"]}
    if gate == "true":
        assert got == {"mine/w1": 0.0, "other/a": None, "mine/b": 7.0, "mine/c": 2.0}
    else:
        assert got == {"mine/w1": 0.0, "other/a": None, "mine/b": 1.0, "mine/c": 6.0}


def test_a_hash_parked_arrival_says_which_head_it_waits_with(tmp_path):
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "trace.csv").write_text("time,namespace,name,queue,priority,pods,duration,cpu\n"
                                        "0,other,a,q,,1,5,2\n1,mine,b,q,,1,5,2\n")
    out = api.simulate([str(tmp_path / "cluster.yaml")], trace=str(tmp_path / "trace.csv"))
    (b,) = [w for w in out.result["workloads"] if w["workload"] == "mine/b"]
    assert b["admitted_at"] is None and b["reason"].startswith("KAD538: set aside with other/a")
