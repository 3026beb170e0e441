"""Properties: validation never raises on any structurally valid model, and is deterministic."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.index import ModelIndex
from kadmit.model import (Admission, BorrowWithinCohort, ClusterQueue, Cohort, FairSharing, FlavorQuotas,
                          LabelSelector, LocalQueue, Model, Namespace, PodSet, PodSetAssignment, Preemption,
                          PriorityClass, ResourceFlavor, ResourceGroup, ResourceQuota, Rule, Taint, Topology,
                          TopologyRequest, Workload)
from kadmit.validate import rule_scope, typecheck_rule, validate

from .exprs import ALL, ANY, B, I, IN, N, NEG, NOT, Q, R, S, T

NAMES = st.sampled_from(["a", "b", "c", "ab", "h100", "h10", "team-a", "org"])
RESOURCES = st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "pods", "example.com/fpga"])
MILLI = st.integers(-3000, 10_000)
LIMIT = st.none() | MILLI
LEVELS = st.sampled_from(["block", "rack", "kubernetes.io/hostname", "zone"])


@st.composite
def resource_groups(draw):
    groups = []
    for _ in range(draw(st.integers(0, 3))):
        covered = tuple(draw(st.lists(RESOURCES, min_size=0, max_size=3)))
        flavors = []
        for _ in range(draw(st.integers(0, 3))):
            names = covered if draw(st.booleans()) else tuple(draw(st.lists(RESOURCES, max_size=3)))
            flavors.append(FlavorQuotas(flavor=draw(NAMES), resources=tuple(
                ResourceQuota(resource=r, nominal=draw(MILLI), borrowing_limit=draw(LIMIT), lending_limit=draw(LIMIT))
                for r in names)))
        groups.append(ResourceGroup(covered_resources=covered, flavors=tuple(flavors)))
    return tuple(groups)


@st.composite
def pod_sets(draw):
    out = []
    for _ in range(draw(st.integers(0, 10))):
        topo = draw(st.none() | st.builds(TopologyRequest, mode=st.sampled_from(["required", "preferred"]),
                                          level=st.none() | LEVELS))
        out.append(PodSet(name=draw(NAMES), count=draw(st.integers(-2, 5)),
                          min_count=draw(st.none() | st.integers(-1, 6)),
                          requests=draw(st.dictionaries(RESOURCES, MILLI, max_size=3)), topology=topo))
    return tuple(out)


@st.composite
def workloads(draw):
    ps = draw(pod_sets())
    admission = None
    if draw(st.booleans()):
        admission = Admission(cluster_queue=draw(NAMES), pod_sets=tuple(
            PodSetAssignment(name=draw(NAMES), count=draw(st.integers(0, 6)),
                             flavors=draw(st.dictionaries(RESOURCES, NAMES, max_size=2)))
            for _ in range(draw(st.integers(0, 2)))))
    return Workload(namespace=draw(NAMES), name=draw(NAMES), queue=draw(NAMES), pod_sets=ps,
                    priority_class=draw(st.none() | NAMES), priority=draw(st.none() | st.integers(-2**32, 2**32)),
                    admission=admission)


@st.composite
def exprs(draw, depth=2):
    leaves = st.one_of(
        st.builds(R, st.sampled_from([
            "workload.name", "workload.priority", "workload.requests[cpu]", "workload.pod_groups", "pod_group.count",
            "pod_group.requests[nvidia.com/gpu]", "pod_group.requests", "flavor", "flavor[cpu]", "cluster_queue",
            "cohort", "g.count", "g.flavor", "namespace.labels[team]", "pod_group.topology", "wrkload.x"])),
        st.builds(N, NAMES | st.sampled_from(["required", "research"])), st.builds(I, st.integers(-5, 5)),
        st.builds(Q, st.integers(0, 3000)), st.builds(S, NAMES), st.builds(T, st.booleans()))
    if depth == 0:
        return draw(leaves)
    sub = exprs(depth=depth - 1)
    return draw(st.one_of(
        leaves,
        st.builds(B, sub, st.sampled_from(["and", "or", "implies", "==", "!=", "<", ">=", "+", "-", "*", "/"]), sub),
        st.builds(NOT, sub), st.builds(NEG, sub),
        st.builds(lambda e, items: IN(e, *items), sub, st.lists(sub, max_size=3)),
        st.builds(ALL, st.sampled_from(["g", "pod_group", "h"]), sub),
        st.builds(ANY, st.sampled_from(["g", "flavor"]), sub,
                  st.sampled_from(["workload.pod_groups", "workload.requests"]))))


@st.composite
def models(draw):
    cohorts = tuple(Cohort(name=draw(NAMES), parent=draw(st.none() | NAMES), resource_groups=draw(resource_groups()),
                           fair_sharing=draw(st.none() | st.builds(FairSharing, weight=MILLI)))
                    for _ in range(draw(st.integers(0, 4))))
    cqs = tuple(ClusterQueue(
        name=draw(NAMES), cohort=draw(st.none() | NAMES), resource_groups=draw(resource_groups()),
        namespace_selector=draw(st.none() | st.just(LabelSelector()) | st.builds(
            LabelSelector, match_labels=st.dictionaries(NAMES, NAMES, max_size=1))),
        preemption=Preemption(reclaim_within_cohort=draw(st.sampled_from(["Never", "Any"])),
                              borrow_within_cohort=draw(st.none() | st.builds(
                                  BorrowWithinCohort, policy=st.sampled_from(["Never", "LowerPriority"])))))
        for _ in range(draw(st.integers(0, 4))))
    flavors = tuple(ResourceFlavor(name=draw(NAMES), topology=draw(st.none() | NAMES), node_taints=tuple(
        Taint(key=draw(NAMES), effect="NoSchedule") for _ in range(draw(st.integers(0, 2)))))
        for _ in range(draw(st.integers(0, 4))))
    topologies = tuple(Topology(name=draw(NAMES), levels=tuple(draw(st.lists(LEVELS, max_size=4))))
                       for _ in range(draw(st.integers(0, 2))))
    lqs = tuple(LocalQueue(namespace=draw(NAMES), name=draw(NAMES), cluster_queue=draw(NAMES))
                for _ in range(draw(st.integers(0, 3))))
    pcs = tuple(PriorityClass(name=draw(NAMES), value=draw(st.integers(-2**32, 2**32)),
                              kind=draw(st.sampled_from(["workload", "pod"])), global_default=draw(st.booleans()))
                for _ in range(draw(st.integers(0, 3))))
    nss = tuple(Namespace(name=draw(NAMES), labels=draw(st.dictionaries(NAMES, NAMES, max_size=1)))
                for _ in range(draw(st.integers(0, 2))))
    wls = tuple(draw(workloads()) for _ in range(draw(st.integers(0, 3))))
    rules = tuple(Rule(name=draw(NAMES), kind=draw(st.sampled_from(["require", "forbid", "prefer"])),
                       weight=draw(st.integers(-1, 3)), expr=draw(exprs()))
                  for _ in range(draw(st.integers(0, 2))))
    return Model(topologies=topologies, flavors=flavors, cohorts=cohorts, cluster_queues=cqs, local_queues=lqs,
                 priority_classes=pcs, namespaces=nss, workloads=wls, rules=rules)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models())
def test_validate_never_raises_and_is_deterministic(m):
    first, second = Diagnostics(), Diagnostics()
    validate(m, first)
    validate(m, second)
    assert first.sorted() == second.sorted()
    for d in first:
        assert d.code.startswith("KAD2") and d.message == d.message.strip()


@settings(max_examples=120, deadline=None)
@given(exprs(), st.sampled_from(["require", "forbid", "prefer"]))
def test_typecheck_never_raises_and_agrees_with_diagnostics(expr, kind):
    rule = Rule(name="r", kind=kind, weight=1 if kind == "prefer" else 0, expr=expr)
    d = Diagnostics()
    ok = typecheck_rule(rule, ModelIndex(Model()), d)
    assert ok == (not d.has_errors)
    assert rule_scope(rule) in ("workload", "pod_group")
