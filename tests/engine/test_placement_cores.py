"""Gangs that can't be placed are explained by minimal unsat cores over the topology's capacity:
every core, made concrete (the statements outside it dropped from the cluster), is infeasible for
the brute-force reference placer, and dropping any one of its statements makes it feasible. Where
the hostname is the lowest level the reference places node by node; where a rack is, on one node
per rack holding the rack's summed capacity, with no taint (Kueue's rack leaves, unfiltered)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.engine.explain.placement_cores import GangQuestion, Holding, gang_cores
from kadmit.placement.domains import build_domains
from kadmit.placement.filters import PodTemplate, filter_node
from kadmit.placement.inventory import add, node_state, pod_usage
from kadmit.placement.reference import Gang, feasible
from placement.builders import BLOCK, DC, DC_RACKS, GPU, HOST, RACK, node, taint, tol

BIG = 10**9


@st.composite
def gang_clusters(draw):
    """2–5 GPU nodes in 1–2 blocks and up to 3 racks, some tainted, a few holders, and a gang of
    up to 4 one-GPU pods asking for a rack, or for anything."""
    n = draw(st.integers(2, 5))
    nodes = []
    for i in range(n):
        rack = draw(st.sampled_from(["r1", "r2", "r3"]))
        taints = [taint("spot", "true")] if draw(st.integers(0, 4)) == 0 else []
        nodes.append(node(f"n{i}", rack=rack, block="b1" if rack != "r3" else "b2", taints=taints,
                          gpu=draw(st.integers(1, 3)), cpu=16))
    holdings = []
    for j in range(draw(st.integers(0, 3))):
        on = draw(st.sampled_from(nodes))
        gpus = draw(st.integers(1, 2))
        holdings.append(Holding(f"ns/h{j}", "pod", {on.name: pod_usage({GPU: gpus * 1000})}, None))
    need = draw(st.integers(2, 4))
    required = draw(st.booleans())
    tolerate = draw(st.booleans())
    return nodes, holdings, need, required, tolerate


def _template(tolerate: bool) -> PodTemplate:
    return PodTemplate("main", ((GPU, 1000), ("pods", 1000)), tolerations=(tol("spot"),) if tolerate else ())


def _question(nodes, holdings, need, required, tolerate, topology=DC_RACKS):
    states = [node_state(n) for n in nodes]
    tree = build_domains(topology, states)
    free = {}
    for s in states:
        f = dict(s.free)
        for h in holdings:
            for k, v in h.usage.get(s.name, {}).items():
                f[k] = f.get(k, 0) - v
        free[s.name] = f
    return GangQuestion("pod set `main` of `ns/g`", _template(tolerate), need, None,
                        "required" if required else "unconstrained", 1 if required else None,
                        "required rack" if required else "unconstrained", None, tree, free, holdings)


def _concrete(q: GangQuestion, nodes, active: set[str]) -> list:
    """The cluster with every statement outside `active` dropped: its nodes (Kueue's leaves where the
    hostname is the lowest level), or one node per rack with the rack's summed capacity and no taint."""
    unlimited = {n for oid in _domain_ids(q) if oid not in active for n in _domain_nodes(q, oid)}
    states = []
    for n in nodes:
        used = {}
        for h in q.holdings:
            if f"gang|holder|{h.kind}|{h.key}" in active:
                for k, v in h.usage.get(n.name, {}).items():
                    used[k] = used.get(k, 0) + v
        taints = tuple(t for t in n.taints if f"gang|taint|{t.key}={t.value}:{t.effect}" in active)
        alloc = dict(n.allocatable)
        if n.name in unlimited:
            alloc = {k: BIG for k in alloc}
        states.append((n.model_copy(update={"taints": taints, "allocatable": alloc}), used))
    if q.tree.host_lowest:
        return [node_state(n, used) for n, used in states]
    racks: dict[tuple, tuple[dict, dict]] = {}
    for n, used in states:
        where = (n.labels[BLOCK], n.labels[RACK])
        alloc, took = racks.get(where, ({}, {}))
        racks[where] = (add(alloc, n.allocatable), add(took, used))
    return [node_state(node(f"{b}-{r}", rack=r, block=b).model_copy(update={"allocatable": alloc}), used)
            for (b, r), (alloc, used) in sorted(racks.items())]


def _concrete_feasible(q: GangQuestion, nodes, active: set[str]) -> bool:
    """The concrete cluster (`_concrete`) asked of the reference placer."""
    states = _concrete(q, nodes, active)
    count = q.need if "gang|count" in active else 1
    one_rack = q.level_idx is not None and "gang|topology" in active
    gang = Gang("g", q.template, count, "required" if one_rack else "unconstrained", RACK if one_rack else None)
    return feasible(states, [gang], q.tree.topology)


def _domain_ids(q):
    if q.level_idx is None:
        return ["gang|domain|*"]
    return [f"gang|domain|{d.path}" for d in q.tree.by_level[q.level_idx]]


def _domain_nodes(q, oid):
    if oid == "gang|domain|*":
        return list(q.tree.nodes)
    path = oid.split("|", 2)[2]
    return next(d.nodes for d in q.tree.by_level[q.level_idx] if d.path == path)


@pytest.mark.parametrize("topology", [DC, DC_RACKS], ids=["host-lowest", "rack-lowest"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gang_clusters())
def test_every_placement_core_is_unsat_and_minimal_for_the_reference_placer(topology, case):
    nodes, holdings, need, required, tolerate = case
    q = _question(nodes, holdings, need, required, tolerate, topology)
    found, unsat = gang_cores(q, most=10)
    everything = {f"gang|holder|pod|{h.key}" for h in holdings} | {"gang|count", "gang|topology"} \
        | set(_domain_ids(q)) | {f"gang|taint|spot=true:NoSchedule"}
    assert unsat == (not _concrete_feasible(q, nodes, everything))
    if not unsat:
        assert not found.cores
        return
    assert found.cores
    for core in found.cores:
        ids = set(core.ids)
        assert not _concrete_feasible(q, nodes, ids), ids
        for oid in ids:
            assert _concrete_feasible(q, nodes, ids - {oid}), (ids, oid)


def test_frame_extract_core_names_both_racks_the_count_and_the_request():
    from pathlib import Path

    from kadmit.engine.decide import why
    from kadmit.workspace import load
    model = load([str(Path(__file__).resolve().parents[2] / "examples" / "ml-platform")]).model
    r = why(model, "team-vision/frame-extract")
    assert r.placement is not None and r.placement.unsat
    first = r.blame_groups[0]
    assert {o.kind for o in first} == {"domain", "count", "topology"}
    assert sum(1 for o in first if o.kind == "domain") == 2
    assert all(o.span is not None for o in first)
    # with the topology request dropped, the holders of rack r1 keep it out: another core
    assert any("topology" not in {o.kind for o in g} and any(o.kind == "holder" for o in g)
               for g in r.blame_groups[1:])


# --- pod-set groups: a leader placed with the workers (Kueue's podSetGroupName) ---------------------

def _group_question(nodes, holdings, need, required, tolerate, leader_gpus, topology=DC_RACKS):
    q = _question(nodes, holdings, need, required, tolerate, topology)
    q.leader = PodTemplate("leader", ((GPU, leader_gpus * 1000), ("pods", 1000)), tolerations=q.template.tolerations)
    q.leader_subject, q.group = "pod set `leader` of `ns/g`", "g"
    return q


def _concrete_group_feasible(q: GangQuestion, nodes, active: set[str]) -> bool:
    """The group placed by brute force on the concrete cluster (statements outside `active` dropped):
    the leader on some node, then the workers (required: in the leader's rack) by the reference placer."""
    if "gang|group" not in active:
        return _concrete_feasible(q, nodes, active)
    states = _concrete(q, nodes, active)
    count = q.need if "gang|count" in active else 1
    one_rack = q.level_idx is not None and "gang|topology" in active
    for i, s in enumerate(states):
        if filter_node(q.leader, s, s.free):
            continue
        after = node_state(s.node.model_copy(update={"taints": s.taints, "allocatable": dict(s.allocatable)}),
                           add(s.used, q.leader.request_map))
        rest = states[:i] + [after] + states[i + 1:]
        if one_rack:
            rest = [x for x in rest if x.labels.get(RACK) == s.labels.get(RACK)]
        gang = Gang("g", q.template, count, "required" if one_rack else "unconstrained", RACK if one_rack else None)
        if feasible(rest, [gang], q.tree.topology):
            return True
    return False


@pytest.mark.parametrize("topology", [DC, DC_RACKS], ids=["host-lowest", "rack-lowest"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gang_clusters(), st.integers(1, 2))
def test_every_group_core_is_unsat_and_minimal_for_the_reference_placer(topology, case, leader_gpus):
    nodes, holdings, need, required, tolerate = case
    q = _group_question(nodes, holdings, need, required, tolerate, leader_gpus, topology)
    found, unsat = gang_cores(q, most=10)
    everything = {f"gang|holder|pod|{h.key}" for h in holdings} | {"gang|count", "gang|topology", "gang|group"} \
        | set(_domain_ids(q)) | {"gang|taint|spot=true:NoSchedule"}
    assert unsat == (not _concrete_group_feasible(q, nodes, everything))
    if not unsat:
        assert not found.cores
        return
    assert found.cores
    for core in found.cores:
        ids = set(core.ids)
        assert not _concrete_group_feasible(q, nodes, ids), ids
        for oid in ids:
            assert _concrete_group_feasible(q, nodes, ids - {oid}), (ids, oid)


def test_a_group_core_names_the_leader_where_the_workers_alone_fit():
    """Rack r1 holds 1 GPU, r2 3: three workers fit r2 alone, not beside their leader."""
    nodes = [node("n1", rack="r1", block="b1", gpu=1, cpu=16)] + \
        [node(f"n{i}", rack="r2", block="b1", gpu=1, cpu=16) for i in (2, 3, 4)]
    q = _group_question(nodes, [], 3, True, False, 1)
    found, unsat = gang_cores(q, most=10)
    assert unsat
    assert [sorted(core.ids) for core in found.cores] == [
        ["gang|count", "gang|domain|b1/r1", "gang|domain|b1/r2", "gang|group", "gang|topology"]]
    texts = {o.id: o.message for o in found.cores[0].origins}
    assert texts["gang|domain|b1/r2"].endswith("it fits 3 of the 3 pods now, 2 beside the leader")
    assert "in the same rack (pod-set group `g`)" in texts["gang|group"]
    q.leader = None  # the workers alone fit r2
    assert gang_cores(q)[1] is False
