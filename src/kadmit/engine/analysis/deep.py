"""`check --deep`: what the policy can never do, each finding a located diagnostic with its witness.

- KAD750 a pending workload no state admits: it isn't admitted alone on an empty cluster (other
  workloads only take capacity away; on an empty cluster nothing can be preempted); the notes are
  `why`'s reasons and minimal core on that empty cluster.
- KAD751 a flavor a cluster queue can never assign: not even one unit of any resource its group
  covers is admitted there on an empty cluster (the envelope probe of `envelope`).
- KAD752 nominal quota above what the flavor's nodes hold; KAD753 a flavor no node matches;
  KAD754 a topology level no node of a topology flavor carries.
- KAD755 / KAD756 borrowing and lending limits that can never bind.
Rules are analysed in `rules` (KAD757–KAD761).
"""

from __future__ import annotations

from collections import defaultdict

from kadmit.diagnostics import Diagnostic, Diagnostics, Label, Severity
from kadmit.engine.analysis.codes import KAD750, KAD751, KAD752, KAD753, KAD754, KAD755, KAD756
from kadmit.engine.admission.session import SolverUnknown
from kadmit.engine.analysis.alone import UNDECIDED, admissible_alone, empty_cluster
from kadmit.engine.analysis.envelope import Prober
from kadmit.engine.quota import QuotaTree, node_id
from kadmit.engine.solver.codes import KAD410
from kadmit.engine.solver.z3backend import Limits
from kadmit.index import ModelIndex
from kadmit.model import ClusterQueue, Model
from kadmit.placement.inventory import build_inventory
from kadmit.quantity import format_quantity

WARNING = Severity.WARNING
MAX_CORES = 50  # never-admissible workloads explained with their core in one run


def _roots(model: Model) -> dict[str, str]:
    """Each cohort's root (itself at the top; a cycle stops where it closes)."""
    parents = {c.name: c.parent for c in model.cohorts}
    out: dict[str, str] = {}
    for name in sorted(parents.keys() | {q.cohort for q in model.cluster_queues if q.cohort}):
        seen, at = set(), name
        while parents.get(at) and at not in seen:
            seen.add(at)
            at = parents[at]
        out[name] = at
    return out


def never_admissible(model: Model, diags: Diagnostics, limits: Limits | None = None) -> None:
    from kadmit.engine.decide import why

    pending = [w.key for w in model.workloads if w.admission is None and not w.finished and w.active]
    if not pending:
        return
    alone = admissible_alone(model, pending, limits)
    by_key = {w.key: w for w in model.workloads}
    for key in sorted(k for k, a in alone.items() if a is UNDECIDED):
        diags.add(Diagnostic(KAD410, Severity.ERROR, f"could not decide within the solver's limits whether "
                             f"workload `{key}` is ever admissible (KAD750: admitted alone on an empty cluster)",
                             by_key[key].span, help="raise --rlimit or --timeout"))
    for n, key in enumerate(sorted(k for k, a in alone.items() if a is None)):
        notes: tuple[str, ...] = ()
        labels: tuple[Label, ...] = ()
        if n < MAX_CORES:  # each core is a `why` of its own; past this many, the command says where
            w = why(empty_cluster(model, [key]), key, limits)
            notes = tuple(f"{r.code}: {r.message}" for r in w.reasons[:4])
            labels = tuple(Label(o.span, o.message) for o in w.blame if o.span is not None)[:6]
            if w.unknown:
                notes += ("the statements responsible could not all be found within the solver's limits",)
        diags.add(Diagnostic(KAD750, WARNING, f"workload `{key}` can never be admitted: not even alone "
                             "on an empty cluster", by_key[key].span,
                             help=f"witness: `kadmit why {key}` on an empty cluster gives the core below",
                             notes=notes, labels=labels))


def unusable_flavors(model: Model, diags: Diagnostics, limits: Limits | None = None) -> None:
    prober = Prober(model, limits)
    for cq in sorted(model.cluster_queues, key=lambda q: q.name):
        if cq.stop_policy != "None" or cq.terminating:
            continue
        for g in cq.resource_groups:
            for fq in g.flavors:
                admitted, undecided = False, []
                for r in g.covered_resources:
                    try:
                        admitted = prober.admits(prober.gang(cq.name, fq.flavor, r, 1))
                    except SolverUnknown:
                        undecided.append(r)
                    if admitted:
                        break
                if admitted:
                    continue
                if undecided:
                    diags.add(Diagnostic(KAD410, Severity.ERROR, "could not decide within the solver's limits "
                                         f"whether cluster queue `{cq.name}` can ever assign flavor `{fq.flavor}` "
                                         f"(KAD751: a one-pod workload asking for {', '.join(undecided)})",
                                         fq.span or cq.span, help="raise --rlimit or --timeout"))
                    continue
                units = ", ".join(f"{format_quantity(prober.unit(fq.flavor, r), r)} {r}" for r in g.covered_resources)
                diags.add(Diagnostic(KAD751, WARNING, f"cluster queue `{cq.name}` can never assign flavor "
                                     f"`{fq.flavor}`", fq.span or cq.span,
                                     help=f"witness: a one-pod workload asking for any one of {units} on "
                                     f"`{fq.flavor}` isn't admitted even on an empty cluster"))


def node_capacity(model: Model, diags: Diagnostics) -> None:
    if not model.nodes:
        return
    usable = build_inventory(model.nodes, ()).usable
    used_flavors = {fq.flavor for h in (*model.cluster_queues, *model.cohorts) for g in h.resource_groups
                    for fq in g.flavors}
    for fl in sorted(model.flavors, key=lambda f: f.name):
        if fl.name not in used_flavors:
            continue
        nodes = [n for n in usable if all(n.labels.get(k) == v for k, v in fl.node_labels.items())]
        if not nodes:
            labels = ", ".join(f"{k}={v}" for k, v in sorted(fl.node_labels.items()))
            diags.add(Diagnostic(KAD753, WARNING, f"no ready, schedulable node carries the labels of "
                                 f"flavor `{fl.name}` ({labels})", fl.field_span("node_labels") or fl.span,
                                 help=f"witness: none of the {len(usable)} usable nodes has them"))
            continue
        if fl.topology:
            topo = next((t for t in model.topologies if t.name == fl.topology), None)
            for level in topo.levels if topo else ():
                if not any(level in n.labels for n in nodes):
                    diags.add(Diagnostic(KAD754, WARNING, f"topology `{topo.name}` level `{level}` is on "
                                         f"none of the {len(nodes)} nodes of flavor `{fl.name}`",
                                         topo.field_span("levels") or topo.span,
                                         help=f"witness: e.g. node `{nodes[0].name}` has no label `{level}`"))
        promised: dict[str, list] = defaultdict(list)
        for h in (*model.cluster_queues, *model.cohorts):
            for g in h.resource_groups:
                for fq in g.flavors:
                    if fq.flavor == fl.name:
                        for r in fq.resources:
                            if r.nominal > 0:
                                promised[r.resource].append((r.nominal, h, r))
        for res, items in sorted(promised.items()):
            total = sum(n for n, _, _ in items)
            hold = sum(n.allocatable.get(res, 0) for n in nodes)
            if total <= hold:
                continue
            items.sort(key=lambda x: (-x[0], x[1].name))
            first = items[0]
            labels = tuple(Label(r.span or h.span, f"{format_quantity(n, res)} in `{h.name}`")
                           for n, h, r in items[1:6] if (r.span or h.span) is not None)
            diags.add(Diagnostic(KAD752, WARNING, f"nominal quota of {res} in flavor `{fl.name}` totals "
                                 f"{format_quantity(total, res)}, but its {len(nodes)} nodes hold "
                                 f"{format_quantity(hold, res)}", first[2].span or first[1].span,
                                 help="witness: the quotas listed here against the nodes' allocatable",
                                 labels=labels))


def _borrowable(model: Model) -> dict[tuple[str, str, str], int]:
    """Per (cluster queue, flavor, resource) with a borrowing limit, the most it could borrow on an
    empty cluster were the limit gone (Kueue's maximum capacity, less its nominal quota)."""
    def unlimited(groups):
        return tuple(g.model_copy(update={"flavors": tuple(fq.model_copy(update={"resources": tuple(
            r.model_copy(update={"borrowing_limit": None}) for r in fq.resources)}) for fq in g.flavors)})
            for g in groups)
    free = model.model_copy(update={"cluster_queues": tuple(
        q.model_copy(update={"resource_groups": unlimited(q.resource_groups)}) for q in model.cluster_queues)})
    tree = QuotaTree(ModelIndex(free))
    out = {}
    for q in model.cluster_queues:
        if node_id(q.name, False) not in tree.nodes:
            continue
        for g in q.resource_groups:
            for fq in g.flavors:
                for r in fq.resources:
                    if r.borrowing_limit is not None and q.cohort:
                        cap = tree.available(node_id(q.name, False), (fq.flavor, r.resource), None)
                        out[(q.name, fq.flavor, r.resource)] = max(0, cap - r.nominal)
    return out


def idle_limits(model: Model, diags: Diagnostics) -> None:
    borrowable = _borrowable(model)
    roots = _roots(model)
    members: dict[str, int] = defaultdict(int)
    for q in model.cluster_queues:
        if q.cohort:
            members[roots[q.cohort]] += 1
    for cq in sorted(model.cluster_queues, key=lambda q: q.name):
        for g in cq.resource_groups:
            for fq in g.flavors:
                for r in fq.resources:
                    what = f"{r.resource} in `{fq.flavor}`"
                    span = r.span or fq.span or cq.span
                    others = members[roots[cq.cohort]] - 1 if cq.cohort else 0
                    lendable = borrowable.get((cq.name, fq.flavor, r.resource), 0)
                    if r.borrowing_limit is not None and r.borrowing_limit > 0:
                        if not cq.cohort:
                            why = "it has no cohort to borrow from"
                        elif lendable <= r.borrowing_limit:
                            why = (f"its cohort tree could lend it at most {format_quantity(lendable, r.resource)} "
                                   f"on an empty cluster (limit {format_quantity(r.borrowing_limit, r.resource)})")
                        else:
                            why = ""
                        if why:
                            diags.add(Diagnostic(KAD755, WARNING, f"borrowing limit of {what} in cluster "
                                                 f"queue `{cq.name}` never takes effect: {why}", span,
                                                 help="remove the limit, or lower it below what the queue could "
                                                 "borrow if it should bind"))
                    if r.lending_limit is not None:
                        if not cq.cohort:
                            why = "it has no cohort to lend to"
                        elif others == 0:
                            why = "no other cluster queue in its cohort tree could borrow"
                        elif r.lending_limit >= r.nominal:
                            why = (f"it is at least the nominal quota ({format_quantity(r.nominal, r.resource)})")
                        else:
                            why = ""
                        if why:
                            diags.add(Diagnostic(KAD756, WARNING, f"lending limit of {what} in cluster "
                                                 f"queue `{cq.name}` never takes effect: {why}", span,
                                                 help="remove the limit, or lower it below the nominal quota if "
                                                 "it should bind"))


def deep_check(model: Model, limits: Limits | None = None) -> list[Diagnostic]:
    """Every deep finding of `model`, sorted."""
    from kadmit.engine.analysis.rules import rule_findings

    diags = Diagnostics()
    idle_limits(model, diags)
    node_capacity(model, diags)
    unusable_flavors(model, diags, limits)
    never_admissible(model, diags, limits)
    rule_findings(model, diags, limits)
    return diags.sorted()
