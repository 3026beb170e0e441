"""Capacity what-ifs: nodes added at a time, and Karpenter NodePools provisioning for pods that wait."""

from pathlib import Path

from kadmit import api

DATA = Path(__file__).parent / "data"
TRACE = ("time,namespace,name,queue,priority,pods,duration,cpu,nvidia.com/gpu\n"
         "0,a,j1,lq,,2,600,8,8\n0,a,j2,lq,,1,600,4,4\n10,a,j3,lq,,4,600,8,8\n700,a,j4,lq,,1,60,4,4\n")


def test_karpenter_provisions_the_fewest_cheapest_nodes_within_limits(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    out = api.simulate([str(DATA / "karpenter-policy.kad")], trace=str(trace),
                       nodepools=[str(DATA / "karpenter-pool.yaml")])
    assert out.exit_code == 0, out.diagnostics
    r = out.result
    # At 0: j1 (2 x 8 GPUs) and j2 (4 GPUs) are admitted on quota and wait for nodes: two g.8x and
    # one g.4x (the cheapest shapes that hold them), ready after the pool's 60 s delay. At 10: j3
    # wants 4 x 8 GPUs but the pool's limit (32 GPUs) leaves room for one more g.8x only.
    assert [(c["at"], c["nodes"]) for c in r["capacity"]] == [
        (60.0, ["gpu-g-4x-3", "gpu-g-8x-1", "gpu-g-8x-2"]), (70.0, ["gpu-g-8x-4"])]
    w = {x["workload"]: x for x in r["workloads"]}
    assert (w["a/j1"]["started_at"], w["a/j1"]["finished_at"]) == (60.0, 660.0)
    assert (w["a/j2"]["started_at"], w["a/j2"]["finished_at"]) == (60.0, 660.0)
    assert w["a/j3"]["admitted_at"] == 10.0 and w["a/j3"]["started_at"] is None  # 3 of its 4 pods bound
    assert (w["a/j4"]["started_at"], w["a/j4"]["finished_at"]) == (700.0, 760.0)  # on the freed g.4x
    assert r["summary"]["gpu_hours"] == 3.4  # (16 + 4) GPUs x 600 s + 4 x 60 s; j3 never ran


def test_nodes_added_at_a_time(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    nodes = tmp_path / "nodes.kad"
    nodes.write_text("".join(f'node n{i} {{ labels = {{ "karpenter.sh/nodepool" = "gpu" }} '
                             f'allocatable = {{ cpu = 96, nvidia.com/gpu = 8, pods = 110 }} }}\n' for i in range(4)))
    out = api.simulate([str(DATA / "karpenter-policy.kad")], trace=str(trace), add_nodes=[f"30:{nodes}"])
    w = {x["workload"]: x for x in out.result["workloads"]}
    assert [c["at"] for c in out.result["capacity"]] == [30.0]
    assert w["a/j1"]["started_at"] == 30.0 and w["a/j3"]["started_at"] == 630.0


def test_why_with_capacity_counts_the_fewest_nodes(tmp_path):
    state = tmp_path / "state.kad"
    state.write_text((DATA / "karpenter-policy.kad").read_text() + """
workload a/gang {
  queue = lq
  pod_group workers {
    count = 3
    requests = { cpu = 8, nvidia.com/gpu = 8 }
  }
}
node n0 {
  labels = { "karpenter.sh/nodepool" = "gpu" }
  allocatable = { cpu = 96, nvidia.com/gpu = 8, pods = 110 }
}
""")
    answer, diags = api.why_capacity("a/gang", [str(state)], str(DATA / "karpenter-pool.yaml"))
    assert answer is not None, diags
    # quota admits it; its 3 pods of 8 GPUs need 3 nodes: n0 and two new g.8x
    assert answer.possible and answer.shapes == {"g.8x": 2}
    bigger = tmp_path / "bigger.kad"
    bigger.write_text(state.read_text().replace("count = 3", "count = 9"))
    answer, _ = api.why_capacity("a/gang", [str(bigger)], str(DATA / "karpenter-pool.yaml"))
    assert not answer.possible and "can't hold all its pods" in answer.reason  # 32-GPU limit: 4 nodes
