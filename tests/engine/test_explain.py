"""Explanations: every reported core is unsatisfiable and minimal; every reported fix admits."""

from hypothesis import HealthCheck, given, settings

from kadmit.engine.decide import explain_decision, why
from kadmit.engine.explain.cores import symbolic_problem
from kadmit.engine.explain.met import as_met
from kadmit.engine.admission.ordered import decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.solver.z3backend import make_solver
from kadmit.model import Admission, PodSetAssignment, Toleration
from kadmit.quantity import parse_quantity
from reference.builders import admitted, build, cluster_queue, cohort, fq, group, pod_set, q, workload
from reference.strategies import admission_models


def with_run_admissions(model, decisions):
    """The model as it stands after the run: workloads the run admitted hold their quota."""
    by_key = {d.key: d for d in decisions if d.admitted}
    out = []
    for w in model.workloads:
        d = by_key.get(w.key)
        if d is not None and w.admission is None:
            a = d.assignment
            w = w.model_copy(update={"admission": Admission(cluster_queue=a.cluster_queue, pod_sets=tuple(
                PodSetAssignment(name=ps, flavors=fl, count=a.counts[ps]) for ps, fl in a.flavors.items()))})
        out.append(w)
    return model.model_copy(update={"workloads": tuple(out)})


def apply_change(model, target_key, change):
    """Apply one fix's change to the model; None when the change has no model-level form here."""
    oid = change.origin
    if change.kind == "raise" and oid.startswith("quota|"):
        _, nid, fname, res, which = oid.split("|")
        kind, name = nid.split(":", 1)
        new = parse_quantity(change.new)
        holders = "cohorts" if kind == "cohort" else "cluster_queues"

        def edit(h):
            if h.name != name:
                return h
            groups = tuple(g.model_copy(update={"flavors": tuple(
                fqs.model_copy(update={"resources": tuple(
                    r.model_copy(update={which: new}) if (fqs.flavor, r.resource) == (fname, res) else r
                    for r in fqs.resources)}) for fqs in g.flavors)}) for g in h.resource_groups)
            return h.model_copy(update={"resource_groups": groups})
        return model.model_copy(update={holders: tuple(edit(h) for h in getattr(model, holders))})

    def edit_target(fn):
        return model.model_copy(update={"workloads": tuple(fn(w) if w.key == target_key else w
                                                           for w in model.workloads)})
    if change.kind == "lower" and oid.startswith("gang|"):
        ps_name = oid.split("|", 1)[1]
        return edit_target(lambda w: w.model_copy(update={"pod_sets": tuple(
            p.model_copy(update={"min_count": int(change.new)}) if p.name == ps_name else p
            for p in w.pod_sets)}))
    if change.kind == "wait" and oid.startswith("usage|cq:"):
        cq = oid.split("|")[1].split(":", 1)[1]
        return model.model_copy(update={"workloads": tuple(
            w for w in model.workloads if not (w.admission and w.admission.cluster_queue == cq))})
    if change.kind == "wait" and oid.startswith("usage|"):
        holder = oid.split("|")[1]
        return model.model_copy(update={"workloads": tuple(w for w in model.workloads if w.key != holder)})
    if change.kind == "tolerate" and oid.startswith("taint|"):
        _, ps_name, taint = oid.split("|", 2)
        key, effect = taint.split("=")[0].split(":")[0], taint.rsplit(":", 1)[1]
        return edit_target(lambda w: w.model_copy(update={"pod_sets": tuple(
            p.model_copy(update={"tolerations": p.tolerations + (
                Toleration(key=key, operator="Exists", effect=effect),)}) if p.name == ps_name else p
            for p in w.pod_sets)}))
    return None


def fits_alone(model, key) -> bool:
    """Whether the workload's symbolic problem is satisfiable with every statement standing."""
    s = Session(model)
    loaded = s.load(symbolic_problem(s, s.index.workloads[key]), make_solver(s.limits))
    return s.check(*loaded.goal(), *loaded.lits.values(), solver=loaded.solver) == "sat"


def check_explanations(model):
    session = Session(model)
    decisions = {d.key: d for d in decide_ordered(session)}
    after = with_run_admissions(model, decisions.values())
    checked = 0
    for key, d in sorted(decisions.items()):
        if d.admitted or d.waiting_behind or d.cluster_queue is None:
            continue
        result = explain_decision(session, decisions, key)
        if not result.blame_groups:
            continue
        loaded = session.load(symbolic_problem(session, d.workload), make_solver(session.limits))
        goal = loaded.goal()
        relaxed: set[str] = set()
        for blamed in result.blame_groups:
            ids = [o.id for o in blamed]
            lits = [loaded.lits[i] for i in ids]
            assert session.check(*goal, *lits, solver=loaded.solver) == "unsat", (key, ids)
            for i in range(len(lits)):
                rest = lits[:i] + lits[i + 1:]
                assert session.check(*goal, *rest, solver=loaded.solver) == "sat", (key, ids[i], "not minimal")
            relaxed |= set(ids)
        for fix in result.candidates:
            fixed = after
            for change in fix.changes:
                fixed = apply_change(fixed, key, change) if fixed is not None else None
            if fixed is not None:
                # the fix, applied to the inputs, lets the workload fit alongside what the run admitted
                assert fits_alone(fixed, key), (key, fix.message)
                checked += 1
    return checked


def check_met_explanations(model) -> int:
    """With the run's journal kept (as `why` keeps it), each pending workload is explained at the state
    it met when Kueue last tried it: its cores are unsatisfiable and minimal there, and the session is
    the run's end state again afterwards."""
    session = Session(model)
    session.keep_journal()
    decisions = {d.key: d for d in decide_ordered(session)}
    end = (dict(session.holders), {k: dict(v) for k, v in session.usage.data.items()})
    checked = 0
    for key, d in sorted(decisions.items()):
        if d.admitted or d.waiting_behind or d.cluster_queue is None or d.preempted_by or d.preempted:
            continue
        result = explain_decision(session, decisions, key)
        assert (dict(session.holders), {k: dict(v) for k, v in session.usage.data.items()}) == end
        if not result.met or not result.blame_groups or result.placement is not None:
            continue
        with as_met(session, d.cycle):
            loaded = session.load(symbolic_problem(session, d.workload), make_solver(session.limits))
            goal = loaded.goal()
            for blamed in result.blame_groups:
                lits = [loaded.lits[o.id] for o in blamed]
                assert session.check(*goal, *lits, solver=loaded.solver) == "unsat", key
                for i in range(len(lits)):
                    assert session.check(*goal, *(lits[:i] + lits[i + 1:]), solver=loaded.solver) == "sat", key
        checked += 1
    return checked


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(admission_models(max_workloads=6))
def test_cores_are_unsat_and_minimal_and_fixes_admit(model):
    check_explanations(model)
    check_met_explanations(model)


def test_blame_is_the_state_the_workload_met_when_last_tried():
    """`big` is tried in the second cycle, when only `first` holds quota; small workloads admitted in
    later cycles fill the rest. Its blame names `first` alone, and its standing says what was in use then."""
    model = build(
        cluster_queue("a", group(fq("f", cpu=10))),
        workload("first", pod_set(cpu=6), queue="a", priority=300),
        workload("big", pod_set(cpu=6), queue="a", priority=200),
        *[workload(f"small{i}", pod_set(cpu=1), queue="a", priority=100, minute=i) for i in range(4)],
    )
    r = why(model, "default/big")
    assert not r.admitted and r.met
    holders = [o.message for o in r.blame if o.kind == "usage"]
    assert len(holders) == 1 and "default/first" in holders[0], holders
    assert r.standing is not None and r.standing.held is not None
    assert r.standing.held.used == 6000 and r.standing.held.holders == 1
    assert check_met_explanations(model) >= 1


def test_quota_explanation_names_limits_holders_and_gang():
    model = build(
        cohort("c"),
        cluster_queue("a", group(fq("h100", gpu=q(8, borrow=4)), fq("a100", gpu=4)), cohort="c"),
        cluster_queue("b", group(fq("h100", gpu=q(8, lend=2))), cohort="c"),
        admitted(workload("held", pod_set(count=2, gpu=1), queue="b"), "b", {"gpu": "h100"}),
        workload("w0", pod_set(count=6, gpu=1), queue="a"),
        workload("w1", pod_set(count=6, gpu=1), queue="a", minute=1),
    )
    r = why(model, "default/w1")
    assert not r.admitted
    kinds = {o.kind for o in r.blame}
    assert "min_count" in kinds and "nominal" in kinds
    assert any(o.kind == "usage" and "default/w0" in o.message for o in r.blame)
    assert any(c.kind == "wait" for f in r.candidates for c in f.changes)
    assert r.reasons[0].message.startswith("couldn't assign flavors to pod set main")
    assert check_explanations(model) >= 1


def test_why_is_deterministic():
    model = build(cluster_queue("a", group(fq("f", cpu=2))), workload("w", pod_set(count=4, cpu=1), queue="a"))
    a, b = why(model, "default/w"), why(model, "default/w")
    assert [o.message for o in a.blame] == [o.message for o in b.blame]
    assert [f.message for f in a.candidates] == [f.message for f in b.candidates]
    assert any("min_count" in f.message for f in a.candidates)


def test_many_holders_are_blamed_per_cluster_queue():
    """Past GROUP_HOLDERS_OVER holders in a cohort tree, usage is one statement per queue, and the
    core and fixes still check out."""
    held = [admitted(workload(f"h{i:02d}", pod_set(cpu=1), queue="a" if i % 2 else "b", minute=i),
                     "a" if i % 2 else "b", {"cpu": "f"}) for i in range(30)]
    model = build(cohort("c"), cluster_queue("a", group(fq("f", cpu=15)), cohort="c"),
                  cluster_queue("b", group(fq("f", cpu=15)), cohort="c"),
                  *held, workload("late", pod_set(cpu=2), queue="a", minute=60))
    r = why(model, "default/late")
    usage = [o for o in r.blame if o.kind == "usage"]
    assert usage and all("admitted workloads in cluster queue" in o.message for o in usage)
    assert any("wait for the workloads admitted to cluster queue" in f.message for f in r.candidates)
    assert check_explanations(model) >= 1
