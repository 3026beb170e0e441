"""With every workload there at the start and nothing finishing, a replay is `admit`: it ends where
`admit` ends — the same workloads hold quota, in the same queues with the same flavors and counts,
the same ones were evicted, the same are undecided, and the rest wait for the reasons `admit` gives.

Generated states with preemption (chains of it: a victim admitted again evicts in turn), cohorts
with borrowing and fair sharing, topology-aware placement, and the bench's 2,000-Job GPU cluster."""

from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.test_differential_preemption import with_fair_sharing
from engine.test_placement_props import tas_models
from kadmit.effective import effective
from kadmit.engine.decide import admit
from kadmit.model import Model, PodSet, Workload
from kadmit.simulate.run import Options, Simulator
from reference.strategies import admission_models
from reference.test_preemption import cohort_models, preempting_models
from sim_helpers import POLICY, START, load_cluster


def _run_sets(counts: dict, flavors: dict) -> tuple:
    return tuple(sorted((ps, counts.get(ps, 0), tuple(sorted(fl.items()))) for ps, fl in flavors.items()))


def admit_end(model: Model) -> dict:
    result = admit(model)
    decided = {d.key: d for d in result.decisions}
    state = effective(model)
    held = {w.key: (w.admission.cluster_queue, None) for w in state.workloads
            if w.admitted and not w.evicted and w.key not in decided}
    held |= {d.key: (d.cluster_queue, _run_sets(d.assignment.counts, d.assignment.flavors))
             for d in result.decisions if d.admitted}
    return {"held": held,
            "evicted": {v.key for d in result.decisions for v in d.preempted}
            | {d.key for d in result.decisions if d.preempted_by},
            "undecided": {d.key for d in result.decisions if d.unknown},
            "reasons": {k: [(r.code, r.message) for r in rs] for k, rs in result.reasons.items()
                        if not decided[k].admitted}}


def simulate_end(model: Model) -> dict:
    start = max(w.created for w in model.workloads)
    sim = Simulator(model, start, [], options=Options())
    sim.run()
    assert sim.instants <= 1  # everything happens at t=0
    evicted_in_input = {w.key for w in sim.state.workloads if w.admitted and w.evicted}
    held = {}
    for key in sim.running:
        r = sim.records[key]
        new = r.admitted_at is not None and (r.evictions or key not in {w.key for w in sim.state.workloads
                                                                           if w.admitted})
        held[key] = (r.cluster_queue, _run_sets({p.name: p.count for p in r.pod_sets},
                                                {p.name: p.flavor_map for p in r.pod_sets}) if new else None)
    return {"held": held,
            "evicted": {k for k, r in sim.records.items() if len(r.evictions) > (k in evicted_in_input)},
            "undecided": set(sim.undecided),
            "reasons": {k: r.reasons for k, r in sim.records.items()
                        if r.kind == "kueue" and k not in sim.running and r.arrived is not None}}


def assert_simulate_is_admit(model: Model) -> None:
    if not model.workloads:
        return
    want, got = admit_end(model), simulate_end(model)
    for part in ("held", "evicted", "undecided", "reasons"):
        assert got[part] == want[part], part


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(preempting_models())
def test_preempting_models(model):
    assert_simulate_is_admit(model)


@SETTINGS
@given(cohort_models(), st.booleans())
def test_cohort_models_with_and_without_fair_sharing(model, fair):
    assert_simulate_is_admit(with_fair_sharing(model) if fair else model)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(admission_models(max_workloads=10))
def test_admission_models(model):
    assert_simulate_is_admit(model)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tas_models(max_workloads=4))
def test_topology_aware_models(model):
    assert_simulate_is_admit(model)


@pytest.mark.slow
def test_the_2000_job_gpu_state(tmp_path: Path):
    """bench/gpu_states.py's preempting GPU cluster (bench/simulate_admit.py prints the figures):
    about 280 running Jobs, the rest pending, preemption within queues and reclaim across them."""
    import gpu_states

    from kadmit import workspace

    gpu_states.write_state(gpu_states.gpu_state(2000), tmp_path)
    model = workspace.load([str(tmp_path)]).model
    want, got = admit_end(model), simulate_end(model)
    assert len(want["evicted"]) > 100 and len(want["held"]) > 300
    for part in ("held", "evicted", "undecided", "reasons"):
        assert got[part] == want[part], part


def test_a_workload_evicted_in_the_input_and_admitted_again_keeps_its_quota(tmp_path_factory):
    """The input shows `w` being evicted: it gives its quota back before Kueue's first cycle and is
    admitted again at once. A later arrival must not release it a second time (the session's
    holder is this run's admission, not the input's)."""
    model = load_cluster(tmp_path_factory, POLICY + """
workload a/w {
  queue = lq
  created = "2026-01-01T00:00:00Z"
  evicted = true
  pod_group main { requests = { cpu = 3 } }
  admitted { cluster_queue = q  pod_group main { count = 1  flavor = default } }
}
""")
    late = Workload(namespace="a", name="late", queue="lq", created=START + timedelta(seconds=5),
                    pod_sets=(PodSet(name="main", requests={"cpu": 3000}),))
    sim = Simulator(model, START, [(5000, late)], options=Options())
    sim.run()
    assert sim.records["a/w"].evictions == [(0, 0)] and "a/w" in sim.running
    assert "a/late" not in sim.running  # 3 of the queue's 4 cpu are w's
