"""The kube-scheduler model's default profile: NodeResourcesFit + NodeResourcesBalancedAllocation
(weight 1 each) + TaintToleration (weight 3, PreferNoSchedule), with hand-computed scores."""

import pytest

from kadmit import api
from kadmit.simulate.kube import balanced, score

GI = 1024 ** 3


def test_balanced_allocation_by_hand():
    alloc = {"cpu": 4000, "memory": 8 * GI}
    # an empty node, a pod of 1 cpu and 1Gi: fractions 0.25 and 0.125, std 0.0625 -> int(93.75)
    assert balanced({"cpu": 1000, "memory": GI}, alloc, alloc) == 93
    # a resource the node doesn't have is left out: one fraction, std 0
    assert balanced({"cpu": 1000, "memory": GI}, {"cpu": 4000}, {"cpu": 4000}) == 100
    # fractions are capped at 1
    assert balanced({"cpu": 8000, "memory": GI}, alloc, alloc) == int((1 - (1 - 0.125) / 2) * 100)
    # a best-effort pod (no cpu, no memory) is skipped
    assert balanced({"nvidia.com/gpu": 1000}, alloc, alloc) == 0
    # LeastAllocated (75 + 87) // 2 = 81, plus 93
    assert score("LeastAllocated", {"cpu": 1000, "memory": GI}, alloc, alloc) == 81 + 93


NODES = """
namespace a {}
node a-node {
  labels = { host = "a", "kubernetes.io/hostname" = "a-node" }
  %s
  allocatable = { cpu = 8, memory = 8Gi, pods = 110 }
}
node b-node {
  labels = { host = "b", "kubernetes.io/hostname" = "b-node" }
  allocatable = { cpu = 8, memory = 8Gi, pods = 110 }
}
"""
HEADER = "time,namespace,name,queue,priority,pods,duration,cpu,memory,node_selector,tolerations\n"


def _placed(tmp_path, rows, taint="", scoring="LeastAllocated"):
    (tmp_path / "p.kad").write_text(NODES % taint)
    (tmp_path / "t.csv").write_text(HEADER + "\n".join(rows) + "\n")
    out = api.simulate([str(tmp_path / "p.kad")], trace=str(tmp_path / "t.csv"), scoring=scoring)
    assert out.exit_code == 0, out.diagnostics
    return {w["workload"]: w["pod_sets"][0]["placement"] for w in out.result["workloads"]}


@pytest.mark.parametrize("scoring", ["LeastAllocated", "MostAllocated"])
def test_balanced_allocation_breaks_a_fit_tie(tmp_path, scoring):
    # a-node holds 4Gi, b-node 2 cpu and 2Gi. A pod of 2 cpu and 2Gi: on a-node cpu 2/8, memory
    # 6/8; on b-node 4/8 and 4/8. NodeResourcesFit scores both 50 under either strategy (a tie
    # kube-scheduler alone would give to a-node here, the first by name); BalancedAllocation gives
    # a-node 75 (std 0.25) and b-node 100: b-node.
    got = _placed(tmp_path, ["0,a,pre-a,,,1,100,0,4Gi,host=a,", "0,a,pre-b,,,1,100,2,2Gi,host=b,",
                             "1,a,pod,,,1,100,2,2Gi,,"], scoring=scoring)
    assert got["a/pod"] == {"b-node": 1}


def test_prefer_no_schedule_taints_score_with_weight_3(tmp_path):
    taint = 'taints = ["spot=true:PreferNoSchedule"]'
    # identical empty nodes: a-node's untolerated PreferNoSchedule taint scores it 0, b-node 100 (x3)
    assert _placed(tmp_path, ["0,a,pod,,,1,100,1,1Gi,,"], taint)["a/pod"] == {"b-node": 1}
    # tolerated: a tie, to the first by name
    assert _placed(tmp_path, ["0,a,pod,,,1,100,1,1Gi,,spot:PreferNoSchedule"], taint)["a/pod"] == {"a-node": 1}
    # the normalization is over the nodes with room: once b-node is full, a-node takes the pods
    got = _placed(tmp_path, ["0,a,big,,,1,100,8,1Gi,,", "1,a,pod,,,2,100,1,1Gi,,"], taint)
    assert got == {"a/big": {"b-node": 1}, "a/pod": {"a-node": 2}}
