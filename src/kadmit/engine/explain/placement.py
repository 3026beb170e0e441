"""Why a workload waits on topology-aware placement: what the scheduler sees, who holds the room,
and verified fixes.

Kueue assigns flavors on quota first and then places the pod sets on nodes (`placing`). When
quota would admit a workload but a pod set doesn't fit its topology, the quota explanation has
nothing to say (every statement is satisfiable); this module explains the placement instead,
against the run's final node state:

- kube-scheduler's histogram for one pod of the failing pod set over every node of the cluster;
- the topology view (`required rack: no rack has room for 3 pods; best rack r2 fits 2`) and the
  domains of the requested level with the pods each fits;
- blame as minimal unsat cores over the topology's capacity (`placement_cores`): the pod set's
  count and topology request, each candidate domain's capacity, the workloads and pods holding
  it, untolerated taints and the node selector — each core checked and shrunk by deletion;
- fixes, each verified by placing again with `NodePool.place` on a what-if (a changed request or
  a free map with a holder's usage released; the pool is never changed): relax `required` to
  `preferred` or to a higher level, shrink the pod set, wait for a holder (or two), tolerate a taint.

Pure Python: the only solver questions are the session's own `try_admit` calls.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import combinations

from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain.placement_case import (_Case, _Holder, _case, _current_failure, _fit_nodes, _histogram,
                                                  _holders, _kueue_message, _request_text, _scarce)
from kadmit.engine.explain.placement_layers import layered_view
from kadmit.engine.explain.placement_cores import GangQuestion, Holding, gang_cores
from kadmit.engine.explain.fixes import Change, Fix
from kadmit.engine.placing.pool import PodSetPlacement, TASRequest, WorkloadPlacement, pod_set_of
from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.reasons import KAD502, Reason
from kadmit.engine.admission.session import Session
from kadmit.model import Taint, Toleration, Workload
from kadmit.modelscheduling import parse_errors
from kadmit.placement.domains import Domain, DomainTree, domain_fits, level_label, topology_view
from kadmit.placement.inventory import NodeState, add
from kadmit.placement.slices import refused_topology
from kadmit.quantity import format_quantity
from kadmit.source import Span

TOP_DOMAINS = 5  # domains listed with their fit counts
BEST_DOMAINS = 3  # domains whose capacity holders are blamed
MAX_WAIT_SINGLES = 8  # holders tried alone for a "wait for" fix, most capacity first
MAX_WAIT_PAIRS = 6  # the biggest holders tried in pairs when none frees enough alone
MAX_FIXES = 5
MAX_PER_KIND = 2



@dataclass
class PlacementExplanation:
    """The placement side of `why` for the first pod set that topology-aware scheduling can't place."""

    workload: str
    pod_set: str
    flavor: str
    topology: str
    request: str  # e.g. `required rack`, `implicit unconstrained`
    count: int
    message: str  # Kueue's: couldn't assign flavors to pod set workers: topology "dc" allows ...
    histogram: str  # kube-scheduler's FitError text for one pod over every node
    topology_view: str
    level: str | None  # short name of the level the domains are at
    domains: list[tuple[str, int]] = field(default_factory=list)  # best first: (domain, pods it fits)
    scarce: str | None = None  # the resource that runs out first in the best domains
    blame: list[Origin] = field(default_factory=list)  # every core's origins once
    fixes: list[Fix] = field(default_factory=list)
    cores: list[list[Origin]] = field(default_factory=list)  # minimal unsat cores of the gang's placement
    unsat: bool = True  # False: by per-node counting the gang fits; Kueue's greedy placement still failed
    group: str | None = None  # the failing pod set's pod-set group, placed as one (`PlacementFailure.group`)
    racks: bool = False  # the topology's lowest level is a rack: Kueue counts racks on their summed capacity
    unparsable: bool = False  # its required node affinity does not parse: no room counts (`parse_errors`)
    unit: str = ""  # what `domains` count where not pods: Kueue's slices (`placement_layers`, `slice(s) of 4`)
    slices_short: bool = False  # counted in slices, no domain holds them all (though pods may fit)
    # a workload slice's pods its old slice keeps on their nodes (ElasticJobsViaWorkloadSlicesWithTAS): Kueue places
    # only the other `count - kept`, the kept ones counted twice on their nodes (`placement_case._Case.kept`)
    kept: int = 0
    kept_from: str = ""

    def as_dict(self) -> dict:
        return {"pod_set": self.pod_set, "flavor": self.flavor, "topology": self.topology,
                "request": self.request, "count": self.count, "message": self.message,
                "histogram": self.histogram, "topology_view": self.topology_view, "level": self.level,
                "domains": [{"domain": d, "fits": n} for d, n in self.domains],
                "scarce_resource": self.scarce, "counted_unsat": self.unsat, "group": self.group,
                "affinity_unparsable": self.unparsable, "unit": self.unit or "pods",
                "kept": {"pods": self.kept, "slice": self.kept_from} if self.kept else None}


def unplaced(session: Session, d: Decision) -> list[Reason]:
    """An admitted workload's pod sets that the engine left without nodes for being on more than one
    topology-aware flavor (`NodePool.tas_flavors`): Kueue admits them on quota alone, as the decision shows;
    and those whose topology assignment holds fewer pods than their count, which Kueue admits so too."""
    assert d.assignment is not None
    placed = {p.request.pod_set for p in d.assignment.placement.pod_sets} if d.assignment.placement else set()
    out = [_fewer(p) for p in (d.assignment.placement.pod_sets if d.assignment.placement else [])
           if 0 <= sum(p.nodes.values()) < p.request.count]
    for ps in d.workload.pod_sets:
        tas = session.pool.tas_flavors(d.assignment.flavors.get(ps.name, {}))
        if len(tas) > 1 and ps.name not in placed:
            out.append(Reason(KAD502, f"pod set {ps.name} is on {len(tas)} topology-aware flavors ({', '.join(tas)}): "
                                      f"Kueue admits it with no topology assignment (its onlyTASFlavor errs \"more than "
                                      f"one TAS flavor assigned: {', '.join(tas)}\" after the assignment was taken as "
                                      "Fit), so its pods take no node capacity in Kueue's topology-aware placement"))
        elif len(tas) == 1 and ps.name not in placed and (err := refused_topology(session.pool.elastic, ps)):
            out.append(Reason(KAD502, f"pod set {ps.name} is admitted with no topology assignment: with "
                                      f"ElasticJobsViaWorkloadSlicesWithTAS on Kueue refuses its topology request (\"{err}\") "
                                      "after the assignment was taken as Fit, so its pods take no node capacity in Kueue's "
                                      "topology-aware placement"))
    return out


def _fewer(p: PodSetPlacement) -> Reason:
    """A pod set Kueue admits with fewer pods in its topology assignment than its count: whole slices only, or
    (TASBalancedPlacement and slice layers) a domain given more groups than its children hold (placement.balanced)."""
    count, placed, why = p.request.count, sum(p.nodes.values()), p.unplaced
    return Reason(KAD502, f"pod set {p.request.pod_set} has {count} pods, {placed} of them in its "
                          f"topology assignment ({why}): Kueue assigns it so, the other pods on no node")


def explain_placement(session: Session, wl: Workload) -> PlacementExplanation | None:
    """The placement explanation of a pending workload whose quota fits at the run's final
    state but whose topology-aware placement doesn't; None otherwise (it fits, or quota or
    something else stops it). Raises SolverUnknown like `try_admit`."""
    if not session.pool.active:
        return None
    failure = _current_failure(session, wl)
    if failure is None:
        return None
    case = _case(session, wl, failure)
    if case is None:
        return PlacementExplanation(wl.key, failure.pod_set, failure.request.flavor, failure.request.topology,
                                    _request_text(failure.request), failure.request.count,
                                    _kueue_message(failure), _histogram(session, failure.request, session.pool.free),
                                    failure.message, None)
    req, tree = case.req, case.tree
    level_key = tree.levels[case.level_idx]
    fits = domain_fits(tree, req.template, level_key, case.seen)
    best_nodes = sorted({n for d, _ in fits[:BEST_DOMAINS] for n in d.nodes})
    scarce = _scarce(case, best_nodes)
    view = topology_view(tree, req.template, case.need, req.request.mode, req.request.level, free=case.seen)
    if unparsable := bool(parse_errors(req.template.node_affinity)):  # no room counts: Kueue fits it nowhere
        view = f"{view.split(': ', 1)[0]}: its required node affinity cannot be parsed (Kueue's NewNodeSelector " \
            "refuses a term), so Kueue's TAS fits it on no node"
        fits = []
    shown, unit, unit_short = fits, "", False
    if not unparsable and failure.group is None and (lay := layered_view(tree, req.template, case.need, req.request, case.seen)) is not None:
        view, shown, unit = lay.view, lay.domains, lay.unit  # in Kueue's slices and layers, not pods
        unit_short = not lay.room
    out = PlacementExplanation(
        wl.key, req.pod_set, req.flavor, req.topology, _request_text(req), req.count, _kueue_message(failure),
        _histogram(session, req, case.seen if case.once is None else case.once), view, level_label(level_key),
        [(tree.display(d), n) for d, n in shown[:TOP_DOMAINS]], scarce, unit=unit, slices_short=unit_short,
        kept=case.kept, kept_from=(wl.replaces or "") if case.kept else "")
    out.unparsable = unparsable
    out.group = failure.group
    out.racks = not tree.host_lowest
    out.cores, out.unsat = _gang_cores(case)  # on Kueue's leaves: nodes, or racks on their nodes' sums
    out.blame = _union(out.cores)
    out.fixes = _fixes(case, scarce)
    return out


# --- blame ---------------------------------------------------------------------------------------

def _gang_cores(case: _Case) -> tuple[list[list[Origin]], bool]:
    """Minimal cores of the failing pod set's placement (`placement_cores`), at its least count
    (min_count when partial admission may shrink it), else at its full count."""
    wl, req, tree = case.wl, case.req, case.tree
    ps = pod_set_of(wl, req.pod_set)
    if parse_errors(req.template.node_affinity):  # Kueue's NewNodeSelector refuses it: no node counts
        return [[Origin("gang|affinity-unparsable", "selector", f"the required node affinity of pod set "
                        f"`{req.pod_set}` of `{wl.key}` has a term Kubernetes' node-affinity parser refuses, so "
                        "Kueue's TAS fits it nowhere (even where another term matches)",
                        ps.field_span("node_affinity") or ps.span)]], True
    racks = sorted(k for k in tree.leaves if k not in tree.nodes)  # a rack leaf's admitted pods, under its key
    # the slice a workload slice replaces: its kept pods counted twice on their nodes (`_Case.kept`)
    holdings = [Holding(h.key, h.kind, h.usage, h.span, h.new, 2 if case.kept and h.key == wl.replaces else 1)
                for h in _holders(case, sorted(tree.nodes) + racks)]
    r = req.request
    required = r.mode == "required" and not req.implicit
    counts = [case.need]
    if ps.min_count is not None and ps.min_count < req.count and not case.kept:
        counts.insert(0, ps.min_count)
    leader = _leader(case)
    lps = pod_set_of(wl, leader.pod_set) if leader is not None else None
    for need in counts:
        q = GangQuestion(
            f"pod set `{req.pod_set}` of `{wl.key}`", req.template, need,
            ps.field_span("min_count") if need != case.need else ps.field_span("count") or ps.span,
            r.mode, case.level_idx if required else None, _request_text(req),
            ps.field_span("topology") or ps.span, tree, case.seen, holdings,
            ps.field_span("node_selector") or ps.field_span("node_affinity") or ps.span)
        q.kept = case.kept
        if leader is not None and lps is not None:
            q.leader, q.leader_subject, q.group = leader.template, f"pod set `{leader.pod_set}` of `{wl.key}`", req.group
            q.group_span = _group_span(lps)
        found, unsat = gang_cores(q)
        if unsat:
            return [list(c.origins) for c in found.cores], True
    return [], False


def _leader(case: _Case) -> TASRequest | None:
    """The leader placed with the failing pod set (the workers) as one pod-set group, if any."""
    req = case.req
    if req.group is None:
        return None
    return next((r for r in case.requests if r is not req and r.group == req.group and r.flavor == req.flavor), None)


def _group_span(ps) -> Span | None:
    t = ps.topology
    return (t.spans.get("group") if t is not None else None) or ps.spans.get("topology_group") or ps.span


def _union(groups: list[list[Origin]]) -> list[Origin]:
    seen: dict[str, Origin] = {}
    for g in groups:
        for o in g:
            seen.setdefault(o.id, o)
    return list(seen.values())


def _first_taint(req: TASRequest, node: NodeState) -> Taint | None:
    """The node's first NoSchedule/NoExecute taint the pod doesn't tolerate (kube-scheduler's reason)."""
    for t in node.taints:
        if t.effect in ("NoSchedule", "NoExecute") and not any(x.tolerates(t) for x in req.template.tolerations):
            return t
    return None


def _taint_groups(case: _Case) -> list[tuple[Taint, list[str]]]:
    """Nodes of the topology rejected by a taint, grouped by the (first) taint, most nodes first."""
    groups: dict[tuple[str, str, str], tuple[Taint, list[str]]] = {}
    for name in sorted(case.tree.nodes):
        t = _first_taint(case.req, case.tree.nodes[name])
        if t is not None:
            groups.setdefault((t.key, t.value, t.effect), (t, []))[1].append(name)
    return sorted(groups.values(), key=lambda tn: (-len(tn[1]), _taint_text(tn[0])))


def _taint_text(t: Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def _display(tree: DomainTree, idx: int, values: tuple[str, ...]) -> str:
    dom: Domain | None = next((d for d in tree.by_level[idx] if d.values == values), None)
    return tree.display(dom) if dom is not None else "/".join(values)


# --- fixes ---------------------------------------------------------------------------------------

def _fixes(case: _Case, scarce: str | None) -> list[Fix]:
    """Verified fixes, cheapest kind first: wait for a holder, tolerate a taint, relax the
    request, shrink the pod set. Each one is reported only if placing again succeeds."""
    out: list[Fix] = []
    for make in (_wait_fixes, _tolerate_fixes, _relax_fixes, _shrink_fixes):
        if len(out) >= MAX_FIXES:
            break
        out += make(case, scarce)[:min(MAX_PER_KIND, MAX_FIXES - len(out))]
    return out


def _landed(case: _Case, got: WorkloadPlacement) -> PodSetPlacement | None:
    if not got.ok:
        return None
    return next((p for p in got.pod_sets if p.request.pod_set == case.req.pod_set), None)


def _where(case: _Case, p: PodSetPlacement, idx: int | None = None) -> str:
    """Where the pod set lands, at the requested level: `in rack r1 on n1:1, n2:1` or
    `over 2 racks (r1 2, r2 1) on n1:1, n2:1, n5:1`."""
    tree = case.tree
    idx = case.level_idx if idx is None else idx
    by_dom: Counter = Counter()
    for node, pods in p.nodes.items():  # a node, or a rack leaf's key
        by_dom[tree.key_values(node)[:idx + 1]] += pods
    short = level_label(tree.levels[idx])
    names = [(_display(tree, idx, v), n) for v, n in sorted(by_dom.items())]
    leaves = p.assignment  # by the lowest level's values, as Kueue's assignment names them
    what = "nodes" if tree.host_lowest else level_label(tree.levels[-1]) + "s"
    nodes = ", ".join(f"{k}:{v}" for k, v in sorted(leaves.items())[:4])
    nodes = f"on {nodes}" + (f", … {len(leaves) - 4} more {what}" if len(leaves) > 4 else "")
    if short == "host":
        return nodes
    if len(names) == 1:
        return f"in {short} {names[0][0]} {nodes}"
    listed = ", ".join(f"{d} {n}" for d, n in names[:5]) + (", …" if len(names) > 5 else "")
    return f"over {len(names)} {short}s ({listed}) {nodes}"


def _wait_fixes(case: _Case, scarce: str | None) -> list[Fix]:
    """Release one holder's capacity (the biggest first), then pairs if no one alone frees enough,
    then everything held in one of the best domains of the requested level."""
    fit = _fit_nodes(case, case.tree.nodes)
    fit_set = set(fit)
    # (not the slice a workload slice replaces: its pods go only once the replacement is admitted)
    holders = [h for h in _holders(case, fit) if h.amount(scarce, fit_set) > 0 and h.key != case.wl.replaces]
    holders.sort(key=lambda h: (-h.amount(scarce, fit_set), h.key))
    out: list[Fix] = []

    def attempt(group: tuple[_Holder, ...], names: str = "") -> None:
        free = {n: dict(f) for n, f in case.base.items()}
        for h in group:
            for node, use in h.usage.items():
                free[node] = add(free.get(node, {}), use)
        p = _landed(case, case.place(free=free))
        if p is None:
            return
        names = names or " and ".join(h.label for h in group)
        freed = sum(h.amount(scarce, fit_set) for h in group)
        nodes = sorted({n for h in group for n in h.usage if n in fit_set})
        them = "them" if len(group) > 1 else "it"
        verb = "they free" if len(group) > 1 else "it frees"
        out.append(Fix(f"wait for {names} to finish (or preempt {them}): {verb} "
                       f"{format_quantity(freed, scarce or '')} {scarce} on {len(nodes)} node(s), and "
                       f"pod set `{case.req.pod_set}` then lands {_where(case, p)}",
                       [Change("wait", f"{h.kind} {h.key}", "capacity", origin=f"placement|holder|{h.kind}|{h.key}")
                        for h in group]))

    for h in holders[:MAX_WAIT_SINGLES]:
        if len(out) >= MAX_PER_KIND:
            return out
        attempt((h,))
    if out:
        return out
    pairs = sorted(combinations(holders[:MAX_WAIT_PAIRS], 2),
                   key=lambda ab: (-(ab[0].amount(scarce, fit_set) + ab[1].amount(scarce, fit_set)),
                                   ab[0].key, ab[1].key))
    for pair in pairs:
        if len(out) >= MAX_PER_KIND:
            break
        attempt(pair)
    if out:
        return out
    tree, short = case.tree, level_label(case.tree.levels[case.level_idx])
    for dom, _ in domain_fits(tree, case.req.template, tree.levels[case.level_idx], case.seen)[:BEST_DOMAINS]:
        inside = set(dom.nodes) & fit_set
        group = tuple(h for h in holders if any(n in inside for n in h.usage))
        if len(group) <= 2 or len(out) >= MAX_PER_KIND:
            continue  # one or two were tried above
        shown = ", ".join(h.label for h in group[:3]) + (", …" if len(group) > 3 else "")
        attempt(group, f"everything holding {scarce} in {short} {tree.display(dom)} ({len(group)} holders: {shown})")
    return out


def _tolerate_fixes(case: _Case, scarce: str | None) -> list[Fix]:
    """Tolerate one taint that keeps nodes of the topology away from the pod set."""
    out = []
    req = case.req
    for taint, nodes in _taint_groups(case):
        tol = Toleration(key=taint.key, operator="Equal" if taint.value else "Exists", value=taint.value,
                         effect=taint.effect)
        tpl = replace(req.template, tolerations=req.template.tolerations + (tol,))
        p = _landed(case, case.place(case.with_request(replace(req, template=tpl))))
        if p is None:
            continue
        text = _taint_text(taint)
        out.append(Fix(f"add a toleration for `{text}` to pod set `{req.pod_set}` "
                       f"({len(nodes)} node(s) of the topology carry that taint): it then lands {_where(case, p)}",
                       [Change("tolerate", case.subject, "tolerations", None, text,
                               f"placement|taint|{text}")]))
    return out


def _relax_fixes(case: _Case, scarce: str | None) -> list[Fix]:
    """`required L` -> `preferred L`; then `required` at the nearest higher level that fits."""
    req, tree = case.req, case.tree
    r = req.request
    if r.mode != "required" or req.implicit:
        return []
    out = []
    old = f"required {r.level}"
    short = level_label(tree.levels[case.level_idx])
    soft = replace(req, request=r.model_copy(update={"mode": "preferred"}))  # its slices and their layers kept
    p = _landed(case, case.place(case.with_request(soft)))
    if p is not None:
        out.append(Fix(f"relax the topology request of pod set `{req.pod_set}` from `{old}` to "
                       f"`preferred {r.level}`: its {_pods(req.count)} then land {_where(case, p)}",
                       [Change("edit", case.subject, "topology", old, f"preferred {r.level}",
                               f"placement|topology|{req.pod_set}")]))
    for up in range(case.level_idx - 1, -1, -1):
        higher = replace(req, request=r.model_copy(update={"level": tree.levels[up]}))
        p = _landed(case, case.place(case.with_request(higher)))
        if p is None:
            continue
        up_short = level_label(tree.levels[up])
        dom = _display(tree, up, tree.key_values(next(iter(p.nodes)))[:up + 1]) if p.nodes else "?"
        out.append(Fix(f"require one {up_short} instead of one {short} for pod set `{req.pod_set}` "
                       f"(`required {up_short}`): its {_pods(req.count)} then land in {up_short} {dom}, "
                       f"{_where(case, p)}",
                       [Change("edit", case.subject, "topology", old, f"required {up_short}",
                               f"placement|topology|{req.pod_set}")]))
        break
    return out


def _shrink_fixes(case: _Case, scarce: str | None) -> list[Fix]:
    """The largest count of the pod set that places, by bisection (fewer pods never fit worse),
    as a smaller count or as partial admission."""
    req = case.req

    def attempt(n: int) -> PodSetPlacement | None:
        return _landed(case, case.place(case.with_request(replace(req, count=n))))

    if req.count <= 1 or attempt(1) is None:
        return []
    lo, hi = 1, req.count - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if attempt(mid) is not None:
            lo = mid
        else:
            hi = mid - 1
    p = attempt(lo)
    if p is None:  # not verified: don't offer it
        return []
    ps = pod_set_of(case.wl, req.pod_set)
    where = _where(case, p)
    if ps.min_count is not None and ps.min_count < ps.count:
        return [Fix(f"lower `min_count` of pod set `{req.pod_set}` from {ps.min_count} to {lo}: partial "
                    f"admission can then admit {lo} of its {_pods(req.count)}, {where}",
                    [Change("lower", case.subject, "min_count", str(ps.min_count), str(lo),
                            f"placement|count|{req.pod_set}")])]
    return [Fix(f"reduce count of pod set `{req.pod_set}` from {req.count} to {lo}, or allow partial "
                f"admission: min_count = {lo}; {_pods(lo)} land{'s' if lo == 1 else ''} {where}",
                [Change("lower", case.subject, "count", str(req.count), str(lo),
                        f"placement|count|{req.pod_set}")])]


def _pods(n: int) -> str:
    return f"{n} pod" if n == 1 else f"{n} pods"
