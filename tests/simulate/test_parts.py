"""Deciding each independent part of the cluster in its own session (`simulate.parts`) gives the
replay one session over the whole cluster gives, byte for byte outside `"run"`: on generated traces
over cohort trees with and without topology-aware flavors, preemption, borrowing, StrictFIFO, and
pods no queue manages sharing the nodes."""


from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.model import PodSet, TopologyRequest, Workload
from kadmit.render.simulation import simulate_json
from kadmit.simulate.results import results
from kadmit.simulate.run import Options, Simulator
from sim_helpers import NODES, START, load_cluster

QUEUE = """
cluster_queue {name} {{
  {cohort}
  namespaces = {{}}
  {queueing}
  preemption {{
    within_cluster_queue  = lower_priority
    reclaim_within_cohort = any
  }}
  resources cpu, nvidia.com/gpu {{
    {gpu}
    flavor cpu {{ cpu = {cpu}{borrow}  nvidia.com/gpu = 0 }}
  }}
}}
namespace {ns} {{}}
local_queue {ns}/lq -> {name}
"""

CLUSTER = """
topology dc { levels = ["rack", "kubernetes.io/hostname"] }
flavor gpu { node_labels = { kind = "gpu" }  topology = dc }
flavor cpu { node_labels = { kind = "cpu" } }
priority low = 10
priority high = 100
cohort tas {}
cohort plain {}
""" + "".join(QUEUE.format(name=name, ns=ns, cohort=f"cohort = {co}" if co else "", cpu=cpu,
                           borrow=" borrow 4" if co else "", queueing="queueing = strict_fifo" if strict else "",
                           gpu=f"flavor gpu {{ cpu = 8  nvidia.com/gpu = 4{' borrow 4' if co else ''} }}" if gpu else "")
              for name, ns, co, cpu, strict, gpu in [
                  ("qa", "a", "tas", 4, False, True), ("qb", "b", "tas", 4, True, True),
                  ("qc", "c", "plain", 2, False, False), ("qd", "d", "plain", 3, False, False),
                  ("qe", "e", "", 4, False, False), ("qf", "f", "", 2, True, True)]) + NODES


def _model(tmp_path_factory):
    return load_cluster(tmp_path_factory, CLUSTER)


row = st.tuples(st.integers(0, 8), st.sampled_from(["a", "b", "c", "d", "e", "f", ""]),
                st.sampled_from([None, "low", "high"]), st.integers(1, 3), st.integers(1, 12), st.integers(1, 4),
                st.integers(0, 4), st.sampled_from([None, "required", "preferred"]))


def _arrivals(rows):
    out = []
    for i, (at, ns, prio, pods, dur, cpu, gpu, topo) in enumerate(rows):
        requests = {"cpu": cpu * 500}
        if gpu:
            requests["nvidia.com/gpu"] = gpu * 500
        topology = TopologyRequest(mode=topo, level="rack") if topo and ns in ("a", "b", "f") else None
        ps = PodSet(name="main", count=pods, requests=requests, topology=topology)
        out.append((at * 1000, Workload(namespace=ns or "a", name=f"w{i}", queue="lq" if ns else "",
                                        priority_class=prio, created=START.replace(second=at),
                                        pod_sets=(ps,), duration_ms=dur * 1000)))
    return out


def _json(model, rows, split: bool) -> tuple[str, Simulator]:
    sim = Simulator(model, START, _arrivals(rows), options=Options(split=split)).run()
    out = results(sim)
    out.pop("run")
    return simulate_json(out), sim


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(row, min_size=8, max_size=24))
def test_parts_decide_as_the_whole_cluster(tmp_path_factory, rows):
    model = _model(tmp_path_factory)
    split, sim = _json(model, rows, True)
    whole, _ = _json(model, rows, False)
    assert split == whole
    # the parts: the TAS cohort tree and the TAS queue without a cohort share the nodes; the other
    # tree and the plain queue stand alone
    assert len(sim.parts.sessions) == 3
    assert sim.parts.part("qa") == sim.parts.part("qb") == sim.parts.part("qf")
    assert sim.parts.part("qc") == sim.parts.part("qd") != sim.parts.part("qe")
    assert sim.parts.tas_queues == {"qa", "qb", "qf"}
