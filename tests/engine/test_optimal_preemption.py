"""`optimal` mode preempts: minimal victim sets chosen by the solver (src/kadmit/engine/optimal_preempt.py).

Hand cases show the policies at work; the properties check, on generated preempting models
(`preempting_models` and `cohort_models` of the reference tests, trimmed to three pending gangs), that
every eviction follows the rules the module docstring states and that the victim set is optimal under
the stated order — for the pending set the solution admits, no other valid victim set does better,
by brute force — and that it never does worse than the ordered run's victims for the same set."""

from __future__ import annotations

from itertools import combinations, product

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kadmit.engine.decide import admit
from kadmit.engine.optimal.model import is_pending
from kadmit.engine.optimal.solve import ordered_victims, solve_optimal
from kadmit.engine.quota import QuotaTree, Usage, node_id
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import SchedulerConfig
from kadmit.render.decisions import admit_dict, admit_human
from reference.builders import build, cohort, fq, group, pod_set, workload
from reference.test_preemption import cohort_models, cqp, preempting_models, running

BUDGET = 5


def by_key(result):
    return {d.key.split("/")[1]: d for d in result.decisions}


def victims_of(result):
    return [k.split("/")[1] for k in result.optimal["victims"]]


# --- hand cases -----------------------------------------------------------------------------------

def one_big_or_two_small(within="LowerPriority"):
    # all three at priority 1; Kueue's candidate order takes the most recently admitted first
    return build(cqp("cq", group(fq("f", cpu=8)), within=within),
                 running("big", "cq", 4, priority=1, at=1),
                 running("small1", "cq", 2, priority=1, at=5), running("small2", "cq", 2, priority=1, at=6),
                 workload("gang", pod_set(count=4, cpu=1), queue="cq", priority=10, minute=20))


def test_a_gang_evicts_one_large_workload_where_kueue_evicts_two_small_ones():
    m = one_big_or_two_small()
    ordered = admit(m, "ordered")
    assert ordered_victims(ordered.decisions) == ["default/small1", "default/small2"]
    got = solve_optimal(m, ordered, time_budget=BUDGET)
    assert got.optimal["proven_optimal"]
    d = by_key(got)
    assert d["gang"].admitted and d["gang"].assignment.counts == {"main": 4}
    assert [(v.key, v.reason, v.priority) for v in d["gang"].preempted] == [("default/big", "InClusterQueue", 1)]
    assert not d["big"].admitted and d["big"].preempted_by == "default/gang"
    assert d["big"].preemption_reason == "InClusterQueue"
    assert "small1" not in d and "small2" not in d  # kept: no decision about them
    assert [r.code for r in got.reasons["default/big"]] == ["KAD531"]
    assert "due to prioritization in the ClusterQueue; preemptor path: /cq; preemptee path: /cq" \
        in got.reasons["default/big"][0].message
    o = got.optimal
    assert (o["victims"], o["victims_ordered"]) == (["default/big"], ["default/small1", "default/small2"])
    assert o["victims_beyond_ordered"] == ["default/big"]
    assert o["victims_spared_vs_ordered"] == ["default/small1", "default/small2"]
    stages = [s["name"] for s in o["stages"]]
    assert stages == ["priority 10: workloads", "priority 10: pods", "priority 1: workloads", "priority 1: pods",
                      "victims", "victims' pods"]
    text = admit_human(got)
    assert "1 of 1 pending workloads admitted, 1 admitted workload(s) preempted" in text
    assert "victims: default/big (ordered preempts default/small1, default/small2)" in text
    row = next(r for r in admit_dict(got)["decisions"] if r["workload"] == "default/gang")
    assert row["preempted"] == [{"workload": "default/big", "kueue_workload": "default/big", "cluster_queue": "cq",
                                 "reason": "InClusterQueue"}]


def test_policy_never_evicts_nothing():
    got = admit(one_big_or_two_small(within="Never"), "optimal", time_budget=BUDGET)
    assert got.optimal["victims"] == [] and got.optimal["evictable"] == 0
    assert not by_key(got)["gang"].admitted
    assert [d.key for d in got.decisions] == ["default/gang"]


def test_nothing_is_evicted_for_a_preemptor_that_would_not_fit_anyway():
    # evicting `low` frees 2 of the 4 the gang needs; `vip` may not be preempted
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("low", "cq", 2, priority=1), running("vip", "cq", 2, priority=20),
              workload("gang", pod_set(count=4, cpu=1), queue="cq", priority=10, minute=20))
    got = admit(m, "optimal", time_budget=BUDGET)
    assert got.optimal["evictable"] == 1  # `low` may be preempted, but to no avail
    assert got.optimal["victims"] == [] and not by_key(got)["gang"].admitted
    # nor for a gang that fits without evicting anyone
    m = build(cqp("cq", group(fq("f", cpu=8)), within="LowerPriority"),
              running("low", "cq", 2, priority=1), workload("gang", pod_set(count=4, cpu=1), queue="cq",
                                                           priority=10, minute=20))
    got = admit(m, "optimal", time_budget=BUDGET)
    assert by_key(got)["gang"].admitted and got.optimal["victims"] == []


def test_within_cluster_queue_never_evicts_equal_or_higher_priority():
    for policy, prio, minute, evicted in [("LowerPriority", 10, 0, False), ("LowerPriority", 11, 0, False),
                                          ("LowerPriority", 9, 0, True),
                                          ("LowerOrNewerEqualPriority", 10, 30, True),  # equal, newer
                                          ("LowerOrNewerEqualPriority", 10, 0, False)]:  # equal, older
        # evicting `w` admits two workloads of priority 10 instead of one
        m = build(cqp("cq", group(fq("f", cpu=4)), within=policy),
                  running("w", "cq", 4, priority=prio, minute=minute),
                  workload("p", pod_set(cpu=2), queue="cq", priority=10, minute=20),
                  workload("q", pod_set(cpu=2), queue="cq", priority=10, minute=21))
        got = admit(m, "optimal", time_budget=BUDGET)
        assert victims_of(got) == (["w"] if evicted else []), (policy, prio, minute)


def lender(reclaim, within_a="Never"):
    """`a` lends its 4 to `b`, whose `w` (priority 5) borrows them all; `p0` (priority 0) in `a` would
    reclaim them; `p1` (priority 9) in `d` may preempt nobody but borrows what `a` doesn't use."""
    return build(cohort("c"),
                 cqp("a", group(fq("f", cpu=4)), cohort="c", reclaim=reclaim, within=within_a),
                 cqp("b", group(fq("f", cpu=0)), cohort="c"),
                 cqp("d", group(fq("f", cpu=0)), cohort="c"),
                 running("w", "b", 4, priority=5),
                 workload("p0", pod_set(cpu=2), queue="a", priority=0, minute=20),
                 workload("p1", pod_set(cpu=2), queue="d", priority=9, minute=20))


def test_a_higher_priority_is_evicted_only_under_reclaim_within_cohort_any():
    for reclaim in ("Never", "LowerPriority"):
        got = admit(lender(reclaim), "optimal", time_budget=BUDGET)
        assert got.optimal["victims"] == [] and not any(d.admitted for d in got.decisions), reclaim
    got = admit(lender("Any"), "optimal", time_budget=BUDGET)
    d = by_key(got)
    assert victims_of(got) == ["w"] and d["p0"].admitted and d["p1"].admitted
    assert (d["w"].preempted_by, d["w"].preemption_reason) == ("default/p0", "InCohortReclamation")
    assert "reclamation within the cohort; preemptor path: /c/a; preemptee path: /c/b" \
        in got.reasons["default/w"][0].message
    # Any alone doesn't trade priorities: without `p1`, evicting `w` (5) for `p0` (0) is a loss
    m = lender("Any")
    m = m.model_copy(update={"workloads": tuple(w for w in m.workloads if w.name != "p1")})
    got = admit(m, "optimal", time_budget=BUDGET)
    assert got.optimal["victims"] == [] and not by_key(got)["p0"].admitted


def test_reclaim_needs_the_victims_queue_to_borrow():
    # `b` uses 2 of its own nominal 2 and nothing borrowed: `a`'s high-priority workload can't reclaim
    m = build(cohort("c"),
              cqp("a", group(fq("f", cpu=2)), cohort="c", reclaim="LowerPriority"),
              cqp("b", group(fq("f", cpu=2)), cohort="c"),
              running("mine", "a", 2, priority=9), running("theirs", "b", 2, priority=0),
              workload("p", pod_set(cpu=2), queue="a", priority=10, minute=20))
    got = admit(m, "optimal", time_budget=BUDGET)
    assert got.optimal["victims"] == [] and got.optimal["evictable"] == 1 and not by_key(got)["p"].admitted


def test_a_borrowing_preemptor_reclaims_only_under_borrow_within_cohort():
    # `a` (nominal 2) wants 4: it would borrow; `b` lent out its 2 to... itself, borrowing from a
    def model(bwc):
        return build(cohort("c"),
                     cqp("a", group(fq("f", cpu=2)), cohort="c", reclaim="LowerPriority", bwc=bwc),
                     cqp("b", group(fq("f", cpu=2)), cohort="c"),
                     running("borrower", "b", 4, priority=0),
                     workload("p", pod_set(cpu=4), queue="a", priority=10, minute=20))
    got = admit(model(None), "optimal", time_budget=BUDGET)
    assert got.optimal["victims"] == [] and not by_key(got)["p"].admitted
    got = admit(model("LowerPriority"), "optimal", time_budget=BUDGET)
    d = by_key(got)
    assert d["p"].admitted and d["p"].assignment.borrowing
    assert (d["borrower"].preempted_by, d["borrower"].preemption_reason) == (
        "default/p", "InCohortReclaimWhileBorrowing")


def test_fewest_victims_then_lowest_priorities():
    # p (priority 10) needs 4: two priority-1 workloads of 2, or one priority-2 workload of 4
    m = build(cqp("cq", group(fq("f", cpu=8)), within="LowerPriority"),
              running("a", "cq", 2, priority=1), running("b", "cq", 2, priority=1),
              running("c", "cq", 4, priority=2),
              workload("p", pod_set(cpu=4), queue="cq", priority=10, minute=20))
    got = admit(m, "optimal", time_budget=BUDGET)
    assert sorted(victims_of(got)) == ["a", "b"]  # paid at priority 1, not at 2
    # with equal priorities, one victim beats two
    m = m.model_copy(update={"workloads": tuple(w.model_copy(update={"priority": 1}) if w.name == "c" else w
                                                for w in m.workloads)})
    got = admit(m, "optimal", time_budget=BUDGET)
    assert victims_of(got) == ["c"]


def test_workloads_marked_evicted_are_pending_again():
    # `going` is being evicted: its quota is released (not counted twice) and it competes again, as
    # in ordered mode
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("going", "cq", 2, priority=5, evicted=True),
              workload("p", pod_set(cpu=2), queue="cq", priority=1, minute=20))
    got = admit(m, "optimal", time_budget=BUDGET)
    d = by_key(got)
    assert d["going"].admitted and d["p"].admitted and got.optimal["victims"] == []


# --- properties -----------------------------------------------------------------------------------

def trimmed(model, pending=3):
    """At most `pending` pending workloads (the first by key), each pod set a gang, so a brute force
    over victim sets and flavors stays small and the pods admitted are fixed by the pending set."""
    keep = sorted(w.key for w in model.workloads if w.admission is None)[:pending]
    out = []
    for w in model.workloads:
        if w.admission is None:
            if w.key not in keep:
                continue
            w = w.model_copy(update={"pod_sets": tuple(ps.model_copy(update={"min_count": None})
                                                       for ps in w.pod_sets)})
        out.append(w)
    return model.model_copy(update={"workloads": tuple(out)})


def allows(policy, p, w, ix):
    """C1, written out again: `p` (pending) may preempt `w` (admitted) under `policy`."""
    pp, pw = ix.priority(p), ix.priority(w)
    if policy == "LowerPriority":
        return pp > pw
    if policy == "LowerOrNewerEqualPriority":
        return pp > pw or (pp == pw and p.created < w.created)
    return policy == "Any"


class World:
    """The rules of optimal mode's preemption, in plain Python, for one model and one pending set."""

    def __init__(self, model, admitted_keys):
        self.ix = ix = ModelIndex(model)
        self.tree = QuotaTree(ix)
        self.fair = bool(model.config and model.config.fair_sharing)
        self.base = Usage()
        self.held = {}
        for w in model.workloads:
            if w.admitted and not w.evicted:
                self.base.add(w.admission.cluster_queue, admitted_usage(w))
                amounts = {fr: v for fr, v in admitted_usage(w).items() if v > 0}
                if amounts:
                    self.held[w.key] = (w, w.admission.cluster_queue, amounts)
        self.pending = [ix.workloads[k] for k in sorted(admitted_keys)]

    def options(self, wl):
        """Every flavor choice of a pending workload: per pod set, a flavor its queue's group lists
        that the pod set tolerates and selects."""
        cq = self.ix.cluster_queue_of(wl)
        per_set = []
        for ps in wl.pod_sets:
            ok = []
            for f in cq.resource_groups[0].flavors:
                fl = self.ix.flavors[f.flavor]
                tolerated = all(any(t.tolerates(x) for t in ps.tolerations) for x in fl.node_taints)
                selected = all(fl.node_labels.get(k, v) == v for k, v in ps.node_selector.items())
                if tolerated and selected:
                    ok.append(f.flavor)
            per_set.append(ok)
        return [dict(zip([ps.name for ps in wl.pod_sets], pick)) for pick in product(*per_set)]

    def usage_of(self, wl, pick):
        out = {}
        for ps in wl.pod_sets:
            for res, q in ps.requests.items():
                fr = (pick[ps.name], res)
                out[fr] = out.get(fr, 0) + q * ps.count
        return out

    def valid(self, picks, victims):
        """Quota holds with `victims` gone and the pending set admitted with `picks`, and every
        victim is linked to an admitted preemptor as the module docstring says."""
        ix, tree = self.ix, self.tree
        final, kept = self.base.copy(), self.base.copy()
        for key in victims:
            _, cq, amounts = self.held[key]
            final.add(cq, {fr: -v for fr, v in amounts.items()})
            kept.add(cq, {fr: -v for fr, v in amounts.items()})
        takes = {}
        for wl, pick in zip(self.pending, picks):
            use = self.usage_of(wl, pick)
            final.add(ix.cluster_queue_of(wl).name, use)
            takes[wl.key] = {fr for fr, v in use.items() if v > 0}
        if not within_quota(tree, final):
            return False

        def nominal(cq, fr):
            return tree.subtree(node_id(cq, False), fr)

        for key in victims:
            w, wcq, amounts = self.held[key]
            linked = False
            for p in self.pending:
                pcq = ix.cluster_queue_of(p)
                shared = [fr for fr in amounts if fr in takes[p.key]]
                if not shared:
                    continue
                if pcq.name == wcq:
                    linked |= allows(pcq.preemption.within_cluster_queue, p, w, ix)
                    continue
                p_nid, w_nid = node_id(pcq.name, False), node_id(wcq, False)
                if tree.nodes[p_nid].parent is None or tree.root(p_nid) != tree.root(w_nid):
                    continue
                if not allows(pcq.preemption.reclaim_within_cohort, p, w, ix):
                    continue
                if not any(kept.get(wcq, fr) + amounts[fr] > nominal(wcq, fr) for fr in shared):
                    continue
                bwc = pcq.preemption.borrow_within_cohort
                while_borrowing = (bwc is not None and bwc.policy != "Never" and ix.priority(w) < ix.priority(p)
                                   and (bwc.max_priority_threshold is None
                                        or ix.priority(w) <= bwc.max_priority_threshold))
                within = all(final.get(pcq.name, fr) <= nominal(pcq.name, fr) for fr in takes[p.key])
                linked |= self.fair or while_borrowing or within
            if not linked:
                return False
        return True

    def score(self, victims):
        """The admission stages and the victim count, to maximise: per priority from the highest,
        admitted pending and kept workloads, then their pods; then fewer victims."""
        levels = sorted({self.ix.priority(w) for w in self.ix.workloads.values()}, reverse=True)
        out = []
        for p in levels:
            mine = [w for w in self.pending if self.ix.priority(w) == p]
            kept = [w for k, (w, _, _) in self.held.items() if k not in victims and self.ix.priority(w) == p]
            out += [len(mine) + len(kept), sum(ps.count for w in mine for ps in w.pod_sets)
                    + sum(psa.count for w in kept for psa in w.admission.pod_sets)]
        return tuple(out) + (-len(victims),)

    def key(self, victims):
        """The objective for a fixed pending set of gangs: per priority from the highest, fewer
        victims, then fewer evicted pods (the admission stages, which count kept workloads)."""
        levels = sorted({self.ix.priority(w) for w, _, _ in self.held.values()}, reverse=True)
        out = []
        for p in levels:
            mine = [self.held[k][0] for k in victims if self.ix.priority(self.held[k][0]) == p]
            out += [len(mine), sum(psa.count for w in mine for psa in w.admission.pod_sets)]
        return tuple(out)


def within_quota(tree, usage):
    for nid in sorted(tree.nodes):
        node = tree.nodes[nid]
        for fr in sorted({fr for row in usage.data.values() for fr in row}):
            used, s = tree.usage(nid, fr, usage), tree.subtree(nid, fr)
            if not node.is_cohort and used > 0 and not tree.entry(nid, fr).declared:
                return False
            if node.parent is None:
                if used > s:
                    return False
            elif tree.entry(nid, fr).borrowing_limit is not None and used > s + tree.entry(nid, fr).borrowing_limit:
                return False
    return True


def with_fair_sharing(model, fair):
    return model.model_copy(update={"scheduler_configs": (SchedulerConfig(fair_sharing=True),)}) if fair else model


def boosted(model, by):
    """Pending workloads' priorities raised by `by`, so more of them may preempt."""
    return model.model_copy(update={"workloads": tuple(
        w.model_copy(update={"priority": (w.priority or 0) + by}) if w.admission is None else w
        for w in model.workloads)})


@st.composite
def preempting(draw):
    """`preempting_models` (random policies, busy queues) and `cohort_models` (queues of one cohort
    borrowing from each other; these preempt more often), trimmed, with fair sharing on or off."""
    model = draw(st.one_of(preempting_models(), cohort_models()))
    model = boosted(trimmed(model), draw(st.sampled_from((0, 0, 2))))
    model = with_fair_sharing(model, draw(st.booleans()))
    world = World(model, [])
    assume(within_quota(world.tree, world.base))  # the input respects every quota
    return model


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(preempting())
def test_victims_are_optimal_by_brute_force_and_never_worse_than_ordered(model):
    ordered = admit(model, "ordered")
    got = solve_optimal(model, ordered, time_budget=BUDGET)
    assert got.optimal["proven_optimal"]
    admitted = {d.key: d for d in got.decisions if d.admitted}
    world = World(model, admitted)
    victims = frozenset(got.optimal["victims"])
    assert victims <= set(world.held)
    picks = [flavors_of(admitted[w.key]) for w in world.pending]
    # the solution itself follows the rules, and names a preemptor that may evict each victim
    assert world.valid(picks, victims)
    decided = {d.key: d for d in got.decisions}
    for key in victims:
        by = decided[key].preempted_by
        assert by in admitted and key in [v.key for v in admitted[by].preempted]
    assert all(v.key in victims for d in admitted.values() for v in d.preempted)
    # no valid victim set is better for the same pending set (any flavors): brute force
    options = [world.options(w) for w in world.pending]
    candidates = sorted(world.held)
    assume(len(candidates) <= 8)
    best = world.key(victims)
    for n in range(len(candidates) + 1):
        for subset in combinations(candidates, n):
            s = frozenset(subset)
            if world.key(s) < best:
                assert not any(world.valid(list(p), s) for p in product(*options)), (sorted(s), sorted(victims))
            if s < victims:  # in particular, no strict subset would do
                assert not any(world.valid(list(p), s) for p in product(*options))
    # ordered mode: when its end state is one this model allows (its victims are gone, not admitted
    # again, were admitted in the input, and were evicted under rules this model encodes), optimal's
    # objective is at least as good; for the same pending set, its victims are no worse in the
    # stated order, and no more of them when they all have one priority
    ordered_admitted = {d.key for d in ordered.decisions if d.admitted and is_pending(d.workload)}
    gone = frozenset(ordered_victims(ordered.decisions))
    if gone <= set(world.held) and not any(d.admitted for d in ordered.decisions if d.key in gone):
        theirs = World(model, ordered_admitted)
        by_ordered = {d.key: d for d in ordered.decisions if d.admitted}
        if theirs.valid([flavors_of(by_ordered[w.key]) for w in theirs.pending], gone):
            assert world.score(victims) >= theirs.score(gone)
            if ordered_admitted == set(admitted):
                assert world.key(victims) <= world.key(gone)
                if len({world.ix.priority(world.held[k][0]) for k in victims | gone}) <= 1:
                    assert len(victims) <= len(gone)


def flavors_of(decision):
    """pod set -> its flavor (one resource group: one flavor per pod set)."""
    return {ps: next(iter(fl.values()), None) for ps, fl in decision.assignment.flavors.items()}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(preempting())
def test_two_runs_evict_the_same(model):
    def run():
        got = admit(model, "optimal", time_budget=BUDGET)
        return [(d.key, d.admitted, d.preempted_by, d.preemption_reason, d.preempted) for d in got.decisions]
    assert run() == run()


def test_workloads_placed_by_topology_aware_scheduling_are_never_evicted():
    from placement.builders import DC, node
    from reference.builders import admitted, flavor
    nodes = [node(f"r0-{i}", rack="r0", block="b1", gpu=8, cpu=96) for i in range(2)]
    placed = admitted(workload("placed", pod_set("w", count=2, gpu=8), queue="cq", priority=1), "cq",
                      {"gpu": "tas"})
    placed = placed.model_copy(update={"admission": placed.admission.model_copy(update={"pod_sets": (
        placed.admission.pod_sets[0].model_copy(update={"placement": {"r0-0": 1, "r0-1": 1}}),)})})
    m = build(cqp("cq", group(fq("tas", gpu=16, cpu=1000)), within="LowerPriority"), flavor("tas", topology="dc"),
              DC, *nodes, placed, workload("vip", pod_set("w", count=2, gpu=8), queue="cq", priority=10, minute=5))
    got = admit(m, "optimal", time_budget=BUDGET)
    assert got.optimal["evictable"] == 0 and got.optimal["victims"] == []
    assert not by_key(got)["vip"].admitted


def test_a_queue_over_its_quota_takes_more_only_once_back_within_it():
    # `cq` holds 6 of its 4: evicting one workload of 3 leaves it at 3, too full for `p` (2); Kueue too
    # evicts both, and then `small` fits as well
    m = build(cqp("cq", group(fq("f", cpu=4)), within="LowerPriority"),
              running("w1", "cq", 3, priority=1), running("w2", "cq", 3, priority=1),
              workload("p", pod_set(cpu=2), queue="cq", priority=10, minute=20),
              workload("small", pod_set(cpu=1), queue="cq", priority=0, minute=20))
    got = admit(m, "optimal", time_budget=BUDGET)
    d = by_key(got)
    assert sorted(victims_of(got)) == ["w1", "w2"] and d["p"].admitted and d["small"].admitted
    assert ordered_victims(admit(m, "ordered").decisions) == ["default/w1", "default/w2"]
    # without `p`, nobody may preempt: the queue stays over its quota and takes nothing more
    m = m.model_copy(update={"workloads": tuple(w for w in m.workloads if w.name != "p")})
    got = admit(m, "optimal", time_budget=BUDGET)
    assert got.optimal["victims"] == [] and not by_key(got)["small"].admitted


def test_without_a_solution_in_time_the_ordered_evictions_stand_if_this_model_allows_them(monkeypatch):
    import kadmit.engine.solver.cpsat as cpsat
    monkeypatch.setattr(cpsat, "solve_staged", lambda *a, **kw: cpsat.StagedResult(None))
    m = one_big_or_two_small()
    got = admit(m, "optimal", time_budget=BUDGET)
    d = by_key(got)
    assert got.unknown and got.optimal["status"] == "unknown"
    assert d["gang"].admitted and sorted(victims_of(got)) == ["small1", "small2"]
    assert d["small1"].preempted_by == "default/gang"
    # ordered evicts `w` and admits it again on flavor g: not a state this model has (victims stay
    # out), so nothing is admitted and nothing evicted
    from reference.builders import flavor
    m = build(cqp("cq", group(fq("f", cpu=4), fq("g", cpu=4)), within="LowerPriority"),
              flavor("f", labels={"m": "f"}), flavor("g", labels={"m": "g"}), running("w", "cq", 4, priority=1),
              workload("p", pod_set(cpu=4, node_selector={"m": "f"}), queue="cq", priority=10, minute=5))
    ordered = admit(m, "ordered")
    assert [(d.key, d.admitted) for d in ordered.decisions] == [("default/p", True), ("default/w", True)]
    got = solve_optimal(m, ordered, time_budget=BUDGET)
    assert got.optimal["victims"] == [] and not any(d.admitted for d in got.decisions)
