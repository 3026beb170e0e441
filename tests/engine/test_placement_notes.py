"""Pod sets admitted without topology-aware placement: Kueue admits on quota, kadmit says when their
pods can't all be scheduled on the nodes (kube-scheduler's view), without changing the decision."""

from __future__ import annotations

from placement.builders import node, pod
from reference.builders import build, cluster_queue, flavor, fq, group, pod_set, workload

from kadmit.engine.decide import admit
from kadmit.render.decisions import admit_dict

CQ = cluster_queue("cq", group(fq("plain", gpu=1000, cpu=1000)))


def test_quota_admits_an_8_gpu_pod_that_no_node_can_hold_and_kadmit_says_so():
    nodes = [node(f"n{i}", gpu=8, cpu=96) for i in range(4)]
    busy = [pod(f"p{i}", f"n{i}", gpu=2) for i in range(4)]  # 24 GPUs free, no node with 8
    m = build(CQ, flavor("plain"), *nodes, *busy, workload("big", pod_set("w", count=1, gpu=8), queue="cq"))
    d = admit_dict(admit(m))["decisions"][0]
    assert d["admitted"]  # Kueue admits on quota: no topology on the flavor
    assert d["pod_sets"][0]["placement"] == {}
    assert d["notes"] == ["pod set w: quota admits 1 pod(s), but the nodes hold only 0 now; the rest stay "
                          "Pending (0/4 nodes are available: 4 Insufficient nvidia.com/gpu.)"]


def test_no_note_when_the_pods_fit_or_when_the_state_has_no_nodes():
    nodes = [node(f"n{i}", gpu=8, cpu=96) for i in range(2)]
    wl = workload("ok", pod_set("w", count=2, gpu=8), queue="cq")
    assert admit_dict(admit(build(CQ, flavor("plain"), *nodes, wl)))["decisions"][0]["notes"] == []
    assert admit_dict(admit(build(CQ, flavor("plain"), wl)))["decisions"][0]["notes"] == []


def test_the_note_counts_pods_per_node_not_summed_capacity():
    nodes = [node(f"n{i}", gpu=8, cpu=96) for i in range(3)]
    busy = [pod(f"p{i}", f"n{i}", gpu=3) for i in range(3)]  # 15 GPUs free; 4-GPU pods: one per node
    m = build(CQ, flavor("plain"), *nodes, *busy, workload("w", pod_set("w", count=3, gpu=4), queue="cq"))
    assert admit_dict(admit(m))["decisions"][0]["notes"] == []
    m = build(CQ, flavor("plain"), *nodes, *busy, workload("w", pod_set("w", count=4, gpu=3), queue="cq"))
    note = admit_dict(admit(m))["decisions"][0]["notes"][0]
    assert "quota admits 4 pod(s), but the nodes hold only 3 now" in note
