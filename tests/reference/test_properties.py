"""Properties over generated models: admissions respect every quota, decisions are well formed."""

from hypothesis import HealthCheck, given, settings

from kadmit.index import ModelIndex, admitted_usage
from kadmit.reference import available, decide, potential_available
from kadmit.reference.quota import quotas_of

from .strategies import RESOURCES, admission_models, quota_trees

FRS = [(f, r) for f in ("f", "g") for r in RESOURCES]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def final_usage(model, decisions) -> dict[str, dict]:
    """Per cluster queue usage after the decisions, recomputed from the workloads."""
    usage: dict[str, dict] = {cq.name: {} for cq in model.cluster_queues}
    for wl in model.workloads:
        if wl.admitted:
            for fr, v in admitted_usage(wl).items():
                usage[wl.admission.cluster_queue][fr] = usage[wl.admission.cluster_queue].get(fr, 0) + v
    by_key = {w.key: w for w in model.workloads}
    for d in decisions:
        if not d.admitted:
            continue
        wl = by_key[d.workload]
        for ps, ref in zip(wl.pod_sets, d.pod_sets):
            for res, flavor in ref.flavors.items():
                u = usage[d.cluster_queue]
                u[(flavor, res)] = u.get((flavor, res), 0) + ps.requests.get(res, 0) * ref.count
    return usage


def check_tree(model, usage) -> None:
    """Recompute subtree quota and usage from scratch and check every limit: a root within its
    subtree quota, every node within subtree + borrowing limit, lending limits through the
    guaranteed part each node keeps out of its parent's subtree quota."""
    index = ModelIndex(model)
    children = index.cohort_children

    def node(name: str, is_cq: bool, fr):
        """(subtree, usage, guaranteed) of a node; asserts the node's own limits."""
        obj = index.cluster_queues[name] if is_cq else index.cohorts[name]
        q = quotas_of(obj.resource_groups).get(fr)
        nominal = q.nominal if q else 0
        if is_cq:
            subtree, used = nominal, usage[name].get(fr, 0)
            if q is None:
                assert used == 0, f"{name} uses undeclared {fr}"
        else:
            subtree, used = nominal, 0
            kids, cqs = children[name]
            for kid in kids:
                s, u, g = node(kid, False, fr)
                subtree, used = subtree + s - g, used + max(0, u - g)
            for cq in cqs:
                s, u, g = node(cq, True, fr)
                subtree, used = subtree + s - g, used + max(0, u - g)
        guaranteed = max(0, subtree - q.lending_limit) if q and q.lending_limit is not None else 0
        if q and q.borrowing_limit is not None:
            assert used <= subtree + q.borrowing_limit, f"{name} over its borrowing limit in {fr}"
        return subtree, used, guaranteed

    for fr in FRS:
        # only a root must stay within its subtree quota: a cohort below borrows from its parent
        for name, c in index.cohorts.items():
            if not c.parent:
                s, u, _ = node(name, False, fr)
                assert u <= s, f"root cohort {name} over its subtree quota in {fr}"
        for name, cq in index.cluster_queues.items():
            s, u, _ = node(name, True, fr)
            if not cq.cohort:
                assert u <= s, f"{name} over its nominal quota in {fr}"


@SETTINGS
@given(admission_models())
def test_admissions_respect_every_quota(model):
    decisions = decide(model)
    check_tree(model, final_usage(model, decisions))


@SETTINGS
@given(admission_models())
def test_decisions_are_well_formed(model):
    decisions = decide(model)
    pending = sorted(w.key for w in model.workloads if not w.admitted)
    assert [d.workload for d in decisions] == pending
    by_key = {w.key: w for w in model.workloads}
    index = ModelIndex(model)
    for d in decisions:
        if not d.admitted:
            assert d.reason and not d.pod_sets
            continue
        wl = by_key[d.workload]
        cq = index.cluster_queues[d.cluster_queue]
        assert d.reason == "" and index.cluster_queue_of(wl) == cq
        for ps, ref in zip(wl.pod_sets, d.pod_sets, strict=True):
            low = ps.min_count if ps.min_count is not None else ps.count
            assert low <= ref.count <= ps.count
            assert set(ref.flavors) == set(ps.requests)
            for flavor in ref.flavors.values():
                assert flavor in {fq.flavor for rg in cq.resource_groups for fq in rg.flavors}
    assert decide(model) == decisions


@SETTINGS
@given(quota_trees())
def test_nothing_admitted_means_available_is_maximum_capacity(model):
    for cq in model.cluster_queues:
        for fr in FRS:
            assert available(model, {}, cq.name, fr) == potential_available(model, cq.name, fr)


@SETTINGS
@given(admission_models(max_workloads=0))
def test_taking_what_is_available_keeps_quotas(model):
    usage = final_usage(model, [])
    for cq in model.cluster_queues:
        for fr in FRS:
            extra = available(model, usage, cq.name, fr)
            grown = {k: dict(v) for k, v in usage.items()}
            grown[cq.name][fr] = grown[cq.name].get(fr, 0) + extra
            check_tree(model, grown)
            assert extra <= potential_available(model, cq.name, fr)
