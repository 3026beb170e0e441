"""Properties of topology-aware placement inside admission, on random tiny clusters.

`tas_models` draws up to 6 nodes in one block and one or two racks (a few lacking the rack label,
so outside the topology; some tainted, not ready or cordoned; some with few `pods`), bound pods
that may fill them, a TAS flavor (with or without node labels and a toleration of the GPU taint),
two TAS-only cluster queues with quota to spare, and 1–3 pending workloads of one or two pod sets
of at most 4 pods, each `required`/`preferred` at some level, `unconstrained`, or without a request
(implicit). Quota never binds, so what decides is node capacity and topology. The oracle is the
brute-force placer `kadmit.placement.reference`.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit.engine.decide import admit
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.index import ModelIndex
from kadmit.model import Model, PodSet, TopologyRequest, Workload
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import add, model_inventory, pod_usage, subtract
from kadmit.placement.reference import Gang, check_placement, feasible
from kadmit.render.decisions import admit_dict
from placement.builders import DC, node, pod, taint, tol
from reference.builders import T0, build, cluster_queue, flavor, fq, group

GPU_TAINT_KEY = "nvidia.com/gpu"
SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
REQUESTS = (("required", "rack"), ("required", "block"), ("required", "host"), ("preferred", "rack"),
            ("preferred", "host"), ("unconstrained", None), None)


def rarely(draw, one_in: int) -> bool:
    """True about once in `one_in` draws; shrinks to False (so minimal examples are ordinary)."""
    return draw(st.integers(0, one_in - 1)) == one_in - 1


@st.composite
def cluster(draw) -> list:
    """Nodes and bound pods: at most 6 nodes, block b1, racks r1/r2."""
    objs = []
    for i in range(draw(st.integers(1, 6))):
        name = f"n{i}"
        extra = {"pods": draw(st.integers(1, 3))} if rarely(draw, 6) else {}
        objs.append(node(
            name, block="b1", rack=None if rarely(draw, 10) else draw(st.sampled_from(("r1", "r2"))),
            labels={"model": draw(st.sampled_from(("a", "b")))},
            taints=[taint(GPU_TAINT_KEY, "present")] if rarely(draw, 4) else [],
            ready=not rarely(draw, 10), unschedulable=rarely(draw, 10),
            gpu=draw(st.integers(0, 4)), cpu=draw(st.integers(1, 4)), **extra))
        for j in range(draw(st.integers(0, 2))):
            objs.append(pod(f"{name}-p{j}", name, phase=draw(st.sampled_from(("Running", "Running", "Succeeded"))),
                            gpu=draw(st.integers(0, 2)), cpu=draw(st.integers(0, 2))))
    return objs


@st.composite
def tas_pod_set(draw, name: str, partial: bool, requests=REQUESTS) -> PodSet:
    count = draw(st.integers(1, 4))
    req = draw(st.sampled_from(requests))
    return PodSet(
        name=name, count=count,
        min_count=draw(st.one_of(st.none(), st.integers(1, count))) if partial else None,
        requests={"cpu": draw(st.integers(1, 2)) * 1000, "nvidia.com/gpu": draw(st.integers(0, 2)) * 1000},
        node_selector=draw(st.sampled_from(({}, {}, {"model": "a"}, {"model": "b"}))),
        tolerations=(tol(GPU_TAINT_KEY),) if draw(st.booleans()) else (),
        topology=None if req is None else TopologyRequest(mode=req[0], level=req[1]))


@st.composite
def tas_models(draw, max_workloads: int = 3, single: bool = False, requests=REQUESTS) -> Model:
    """A TAS cluster with pending workloads; `single`: one workload of one pod set, no min_count;
    `requests`: the topology requests to draw from."""
    fl = flavor("tas", topology="dc", labels=draw(st.sampled_from(({}, {"model": "a"}))),
                tolerations=(tol(GPU_TAINT_KEY),) if rarely(draw, 4) else ())
    queues = [cluster_queue(q, group(fq("tas", cpu=1000, gpu=1000))) for q in ("qa", "qb")]
    workloads = []
    for i in range(1 if single else draw(st.integers(1, max_workloads))):
        n_sets = 1 if single else draw(st.integers(1, 2))
        workloads.append(Workload(
            namespace="default", name=f"w{i}", queue=draw(st.sampled_from(("qa", "qb"))),
            priority=draw(st.integers(0, 2)), created=T0 + timedelta(minutes=draw(st.integers(0, 5))),
            pod_sets=tuple(draw(tas_pod_set(f"p{j}", not single, requests)) for j in range(n_sets))))
    return build(DC, fl, *queues, *draw(cluster()), *workloads)


def gang_of(ix, wl: Workload, ps: PodSet, count: int, flavors) -> Gang:
    """The pod set as the reference placer sees it: its pod with the flavors' labels and
    tolerations, the admitted count, and its topology request (`unconstrained` when implicit)."""
    template = PodTemplate.build(ps, [ix.flavors[f] for f in sorted(set(flavors))])
    req = ps.topology or TopologyRequest(mode="unconstrained")
    return Gang(f"{wl.key}/{ps.name}", template, count, req.mode, req.level)


# --- (i) and (ii): what a run admits is placeable, together, and whole ----------------------------

@settings(max_examples=35, **SETTINGS)
@given(tas_models())
def test_admitted_placements_are_valid_together_and_whole(model):
    session = Session(model)
    decisions = decide_ordered(session)
    ix, pool = session.index, session.pool
    inv = model_inventory(model)
    gangs, placement = [], {}
    usage: dict[str, dict[str, int]] = {}
    for d in decisions:
        if not d.admitted:
            assert d.key not in pool.placed and all(d.key not in h for h in pool.holders.values())
            continue
        a = d.assignment
        nodes = a.placement.nodes() if a.placement is not None else {}
        for ps in d.workload.pod_sets:
            count = a.counts[ps.name]
            # every flavor of these queues is TAS: every admitted pod set is placed, whole
            assert sum(nodes.get(ps.name, {}).values()) == count, (d.key, ps.name, nodes)
            assert all(k > 0 and n not in inv.excluded for n, k in nodes[ps.name].items())
            gang = gang_of(ix, d.workload, ps, count, a.flavors[ps.name].values())
            gangs.append(gang)
            placement[gang.name] = nodes[ps.name]
            for n, k in nodes[ps.name].items():
                usage[n] = add(usage.get(n, {}), pod_usage(gang.template.request_map, k))
    # all admitted pod sets as gangs at once on the initial nodes: no node over-committed across
    # workloads, every filter and every required domain respected
    assert check_placement(inv.nodes, gangs, placement, DC) == []
    # the pool handed out exactly that: free = initial free - what the admitted placements take
    for n in inv.nodes:
        assert {k: v for k, v in pool.free[n.name].items() if v} == \
            {k: v for k, v in subtract(n.free, usage.get(n.name, {})).items() if v}, n.name


# --- (iii): a single workload is admitted iff the brute-force placer finds room -------------------

@settings(max_examples=70, **SETTINGS)
@given(tas_models(single=True))
def test_single_workload_admitted_iff_the_reference_finds_a_placement(model):
    """Quota is ample, so the pod set is admitted exactly when its gang fits: in one domain of the
    level for `required`, anywhere in the topology for `preferred`, `unconstrained` and implicit. Not where a
    running pod overcommits its node: Kueue then counts the node's room for pods negative and sums it into its
    domain's (c1934dba, the oracle's -negative-count-* cases), which the brute-force placer does not."""
    used: dict[tuple[str, str], int] = {}
    for p in model.pods:
        if p.node_name and p.phase not in ("Succeeded", "Failed"):
            for r, q in p.requests.items():
                used[p.node_name, r] = used.get((p.node_name, r), 0) + q
    assume(all(q <= n.allocatable.get(r, 0) for n in model.nodes for (name, r), q in used.items() if name == n.name))
    wl = model.workloads[0]
    ps = wl.pod_sets[0]
    session = Session(model)
    (d,) = decide_ordered(session)
    ix = session.index
    gang = gang_of(ix, wl, ps, ps.count, ["tas"])
    fits = feasible(model_inventory(model).usable, [gang], DC)
    assert d.admitted == fits, (gang.mode, gang.level, session.placement_failures.get(wl.key))
    if d.admitted:
        assert sum(d.assignment.placement.nodes()[ps.name].values()) == ps.count


# --- (iv): determinism ----------------------------------------------------------------------------

def stable(result) -> dict:
    out = admit_dict(result)
    out.pop("solver")  # timings
    return out


@settings(max_examples=12, **SETTINGS)
@given(tas_models())
def test_admitting_twice_gives_identical_json_whatever_the_input_order(model):
    first = stable(admit(model))
    shuffled = model.model_copy(update={k: tuple(reversed(getattr(model, k)))
                                        for k in ("nodes", "pods", "workloads", "cluster_queues")})
    assert stable(admit(shuffled)) == first


@pytest.mark.parametrize("requests", [REQUESTS[:3], REQUESTS[3:5], REQUESTS[5:6], REQUESTS[6:]],
                         ids=["required", "preferred", "unconstrained", "implicit"])
def test_the_strategy_draws_each_kind_of_request_with_and_without_room(requests):
    """Guard against a strategy that never exercises the properties above: with a fixed seed, each
    kind of request comes both with and without room (the oracle's answer, which the differential
    property equates with admission)."""
    seen: set[bool] = set()

    @settings(max_examples=20, derandomize=True, **SETTINGS)
    @given(tas_models(single=True, requests=requests))
    def sample(model):
        wl = model.workloads[0]
        ps = wl.pod_sets[0]
        seen.add(feasible(model_inventory(model).usable, [gang_of(ModelIndex(model), wl, ps, ps.count, ["tas"])], DC))

    sample()
    assert seen == {True, False}
