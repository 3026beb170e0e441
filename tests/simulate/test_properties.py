"""Guarantees of a replay: nothing over-committed at any instant, runs last their duration, the
same input gives the same bytes, and with no arrivals the first instant is `admit`."""


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit import api
from kadmit.engine.quota import node_id
from kadmit.model import PodSet, TopologyRequest, Workload
from kadmit.render.simulation import simulate_json
from kadmit.simulate.run import Options, Simulator
from sim_helpers import NODES, START, load_cluster, write_trace

CLUSTER = """
topology dc { levels = ["rack", "kubernetes.io/hostname"] }
flavor gpu { node_labels = { kind = "gpu" }  topology = dc }
flavor cpu { node_labels = { kind = "cpu" } }
priority low = 10
priority high = 100
namespace a {}
namespace b {}
cohort all {}
cluster_queue qa {
  cohort = all
  namespaces = {}
  preemption {
    within_cluster_queue  = lower_priority
    reclaim_within_cohort = any
  }
  resources cpu, nvidia.com/gpu {
    flavor gpu { cpu = 16  nvidia.com/gpu = 8 borrow 8 }
    flavor cpu { cpu = 8  nvidia.com/gpu = 0 }
  }
}
cluster_queue qb {
  cohort = all
  namespaces = {}
  queueing = strict_fifo
  resources cpu, nvidia.com/gpu {
    flavor gpu { cpu = 16  nvidia.com/gpu = 8 }
    flavor cpu { cpu = 8  nvidia.com/gpu = 0 }
  }
}
local_queue a/lq -> qa
local_queue b/lq -> qb
""" + NODES


def _model(tmp_path_factory):
    return load_cluster(tmp_path_factory, CLUSTER)


row = st.tuples(st.integers(0, 30), st.sampled_from(["a", "b", ""]), st.sampled_from([None, "low", "high"]),
                st.integers(1, 4), st.integers(1, 20), st.integers(1, 6), st.integers(0, 4),
                st.sampled_from([None, "required", "preferred"]))


def _arrivals(rows):
    out = []
    for i, (at, ns, prio, pods, dur, cpu, gpu, topo) in enumerate(rows):
        requests = {"cpu": cpu * 500}
        if gpu:
            requests["nvidia.com/gpu"] = gpu * 1000 // 2
        topology = TopologyRequest(mode=topo, level="rack") if topo and ns else None
        ps = PodSet(name="main", count=pods, requests=requests, topology=topology)
        out.append((at * 1000, Workload(namespace=ns or "a", name=f"w{i}", queue="lq" if ns else "",
                                        priority_class=prio, created=START.replace(second=at),
                                        pod_sets=(ps,), duration_ms=dur * 1000)))
    return out


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(row, min_size=1, max_size=14))
def test_nothing_over_committed_and_runs_last_their_duration(tmp_path_factory, rows):
    model = _model(tmp_path_factory)
    sim = Simulator(model, START, _arrivals(rows), options=Options())
    tree = sim.tree
    checked = []

    def check(t):
        for name, node in sim.pool.free.items():
            assert all(v >= 0 for v in node.values()), (t, name, node)
        for cq in sim.ix.cluster_queues:
            for fr in tree.nodes[node_id(cq, False)].quotas:
                assert tree.available(node_id(cq, False), fr, sim.parts.session(cq).usage) >= 0, (t, cq, fr)
        checked.append(t)

    sample = sim.recorder.sample
    sim.recorder.sample = lambda t: (check(t), sample(t))
    sim.run()
    assert checked
    for r in sim.records.values():
        if r.kind == "kueue" and r.finished_at is not None:
            assert r.finished_at - r.started_at == r.duration, r
            assert r.admitted_at <= r.started_at
        for at, admitted in r.evictions:
            assert admitted <= at


def test_same_input_same_bytes(policy, tmp_path):
    """Two processes with different hash seeds print the same JSON once `run` is set aside."""
    import json
    import os
    import subprocess
    import sys
    trace = write_trace(tmp_path, [f"{i % 7},a,w{i},lq,{'high' if i % 5 == 0 else 'low'},1,{3 + i % 4},{1 + i % 3}"
                                   for i in range(30)])
    texts = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        got = subprocess.run([sys.executable, "-m", "kadmit", "simulate", policy, "--trace", trace, "--format",
                              "json"], capture_output=True, text=True, env=env, check=True)
        result = json.loads(got.stdout)
        assert "seconds" in result.pop("run")
        assert result["summary"]["evictions"] > 0
        texts.append(got.stdout[:got.stdout.index('"run"')] + got.stdout[got.stdout.index('"series"'):])
    assert texts[0] == texts[1]


def test_no_arrivals_is_admit():
    """The example cluster, no trace: the first instant decides exactly what `admit` decides."""
    paths = ["examples/ml-platform"]
    admitted = api.admit(paths)
    decided = {d.key: d for d in admitted.result.decisions}
    out = api.simulate(paths, until="0")
    assert out.exit_code == 0
    model = admitted.loaded.workspace.model
    for w in out.result["workloads"]:
        d = decided.get(w["workload"])
        if d is None:  # admitted in the input: running from the start
            assert next(m for m in model.workloads if m.key == w["workload"]).admitted
            assert w["admitted_at"] == 0.0
            continue
        assert (w["admitted_at"] == 0.0) == d.admitted, w["workload"]
        if d.admitted:
            flavors = {ps["name"]: ps["flavors"] for ps in w["pod_sets"]}
            assert flavors == {ps: sorted(set(f.values())) for ps, f in d.assignment.flavors.items()}
            assert w["cluster_queue"] == d.cluster_queue
        else:
            assert w["reason"]
