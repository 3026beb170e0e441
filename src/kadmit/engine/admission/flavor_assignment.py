"""Kueue's flavor assignment (docs/PREEMPTION.md §2): pod sets in order, each resource group's flavors
in order with flavor fungibility, modes from quota and the preemption oracle, partial admission, and
the nomination the scheduling cycle acts on. Z3 answers "is this flavor admissible"; the session holds
the compiled problems and the usage."""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from kadmit.engine.quota import FR, node_id
from kadmit.engine.compile.problem import Problem
from kadmit.engine.compile.split import Fixed, Pins
from kadmit.engine.placing.pool import WorkloadPlacement
from kadmit.engine.preemption.candidates import Preemptor, Victim
from kadmit.engine.preemption.search import NO_CANDIDATES, find_targets, may_preempt, oracle
from kadmit.engine.preemption.snapshot import Snapshot
from kadmit.model import ClusterQueue, Workload

MODES = {"NoFit": 0, "NoCandidates": 1, "Preempt": 2, "Reclaim": 3, "Fit": 4}  # Kueue's order


def preferred(a: tuple, b: tuple, preference: str = "BorrowingOverPreemption") -> bool:
    """Kueue v0.17.0's isPreferred (options here are never NoFit): BorrowingOverPreemption (the
    default): the better mode, then the lower borrowing height; PreemptionOverBorrowing: the lower
    borrowing height, then the better mode. Equals keep the first. NoCandidates is a mode like the
    others (below Preempt): v0.17 has no preference for a mode with candidates over one without
    (docs/PREEMPTION.md A3)."""
    if preference == "PreemptionOverBorrowing" and a[1] != b[1]:
        return a[1] < b[1]
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1]


def try_next(mode: int, height: int, fung) -> bool:
    """Kueue's shouldTryNextFlavor: go on past NoCandidates, past a flavor that needs preemption
    unless whenCanPreempt is Preempt, and past one that borrows (whatever its mode) unless
    whenCanBorrow is Borrow."""
    if mode <= MODES["NoCandidates"]:
        return True
    if mode < MODES["Fit"] and fung.when_can_preempt == "TryNextFlavor":
        return True
    return height > 0 and fung.when_can_borrow == "TryNextFlavor"


@dataclass
class Assignment:
    """One way to admit a workload: a count and a flavor per requested resource, per pod set."""

    cluster_queue: str
    counts: dict[str, int]
    flavors: dict[str, dict[str, str]]  # pod set -> resource -> flavor
    borrowing: bool
    usage: dict[FR, int]  # milli-units taken
    height: int = 0  # Kueue's borrowing height: 0 without borrowing
    placement: WorkloadPlacement | None = None  # nodes of the pod sets that topology-aware scheduling placed
    mode: str = "Fit"  # Kueue's representative mode: "Fit", or "Preempt" (some flavor needs preemption)
    needs: frozenset[FR] = frozenset()  # flavor-resources assigned in Preempt mode
    targets: list[Victim] = field(default_factory=list)  # Kueue's victims, when mode is Preempt


def nominate(session, wl: Workload, preemption: bool = True) -> tuple[Assignment | None, Problem]:
    """Kueue's nomination of `wl` (docs/PREEMPTION.md §2 A7): the full counts if they fit, or
    need preemption and Kueue finds victims; else the largest partial counts that do; else the
    full assignment in Preempt mode without victims (it then holds capacity for the cycle), or
    None when nothing can be assigned. With `preemption` off, only Fit assignments count."""
    loaded = session._loaded_shape(wl)
    prob = loaded.problem
    cq = session.index.cluster_queue_of(wl)
    if prob.cluster_queue is None or cq is None:
        return None, prob
    numbers = prob.number_values(session.compiler, session.usage, cq.name)
    full = {ps.name: ps.count for ps in wl.pod_sets}
    first = assign_with_counts(session, loaded, wl, cq, numbers, full, preemption)
    got = with_targets(session, wl, first)
    if got is None and any(ps.min_count is not None and ps.min_count < ps.count for ps in wl.pod_sets):
        got = partial(session, loaded, wl, cq, numbers, preemption)
    if got is None and first is not None and first.mode != "Fit":
        got = first  # Preempt mode, no victims: Kueue holds its capacity for the cycle
    return got, prob


def with_targets(session, wl: Workload, a: Assignment | None) -> Assignment | None:
    """`a` if it fits, or needs preemption and Kueue finds victims (then set); else None."""
    if a is None or a.mode == "Fit":
        return a
    p = Preemptor(wl.key, a.cluster_queue, session.index.priority(wl), wl.created, dict(a.usage), a.needs)
    placeable = None
    requests = session.pool.requests(wl, session.index.cluster_queues[a.cluster_queue], a.counts, a.flavors) \
        if session._tas else []
    if requests:  # Kueue's workloadFits asks topology-aware scheduling too, victims' nodes freed
        failures: list = []

        def placeable(gone: frozenset[str]) -> bool:
            free = session.pool.free_without(gone)
            got = session.pool.place(requests, free=free)
            if got.failure is not None:
                failures.append(got.failure)
            return got.failure is None

    a.targets = find_targets(session, p, placeable)
    if not a.targets and requests and failures:
        session.placement_failures[wl.key] = failures[-1]
    return a if a.targets else None


def partial(session, loaded, wl: Workload, cq: ClusterQueue,
             numbers: dict[str, int], preemption: bool = False) -> Assignment | None:
    """Kueue's partial admission (PodSetReducer): reduce the pod sets that have a min_count
    together, each by floor(delta * k / total deltas), binary-searching the least k that fits."""
    pss = list(wl.pod_sets)
    deltas = {ps.name: ps.count - ps.min_count if ps.min_count is not None else 0 for ps in pss}
    total = sum(deltas.values())
    if total <= 0 or any(d < 0 for d in deltas.values()):
        return None
    # like Go's sort.Search over k in [0, total]: the least reduction k that fits
    lo, hi, best = 0, total + 1, None
    while lo < hi:
        mid = (lo + hi) // 2
        counts = {ps.name: ps.count - deltas[ps.name] * mid // total for ps in pss}
        got = with_targets(session, wl, assign_with_counts(session, loaded, wl, cq, numbers, counts, preemption))
        if got is not None:
            best, hi = got, mid
        else:
            lo = mid + 1
    return best


def assign_with_counts(session, loaded, wl: Workload, cq: ClusterQueue, numbers: dict[str, int],
                        counts: dict[str, int], preemption: bool = False) -> Assignment | None:
    """Kueue's flavor assignment at these counts (docs/PREEMPTION.md §2): pod sets in order,
    each resource group's flavors in order. A flavor Z3 finds admissible is Fit; with
    `preemption`, one that is admissible but for quota gets a mode per resource from the quota
    arithmetic and the preemption oracle (NoFit, NoCandidates, Preempt, Reclaim), and flavor
    fungibility picks among them. The result is in Preempt mode when some flavor-resource needs
    preemption, else Fit; None when some group gets no flavor."""
    prob = loaded.problem
    low = loaded.low
    assert low is not None
    quota_free = loaded.quota_free_lits()
    pins = dict(numbers)
    own = {ps.name: ps for ps in wl.pod_sets}  # the workload's sizes; the problem may be shared
    for pv in prob.pod_sets:
        ps = own[pv.pod_set.name]
        n = counts[ps.name]
        pins[pv.count.name] = n  # type: ignore[attr-defined]
        if pv.need is not None:
            pins[pv.need.name] = ps.min_count if ps.min_count is not None else ps.count  # type: ignore[attr-defined]
        per_pod = session.compiler.requests(ps, pv.group_of)
        for res, var in pv.amounts.items():
            pins[var.name] = session.compiler.units(res, per_pod[res]) * n
    question_pins = Pins(pins)
    fung = cq.flavor_fungibility
    tree = session.compiler.tree
    chosen: list[z3.BoolRef] = []
    chosen_names: list[str] = []  # the chosen flavor variables, for quota by arithmetic (`Session._ask`)
    flavors: dict[str, dict[str, str]] = {}
    usage: dict[FR, int] = {}
    needs: set[FR] = set()
    fit = True  # every group's chosen flavor is Fit as a whole: Kueue's pod-set status is Fit
    height = 0
    base = [low(prob.admitted)] + quota_free  # every statement but quota, which `fixed` adds
    for i, pv in enumerate(prob.pod_sets):
        skips = [low(q.skip) for q in prob.pod_sets[i + 1:]]
        later = frozenset(range(i + 1, len(prob.pod_sets)))
        mine = [loaded.takes_part(pv)]
        flavors[pv.pod_set.name] = {}
        requests = session.compiler.requests(own[pv.pod_set.name], pv.group_of)
        n = counts[pv.pod_set.name]
        for gi in sorted(pv.flavors):
            group_res = sorted(r for r, g in pv.group_of.items() if g == gi)
            best: tuple[int, int, str, z3.BoolRef, dict[str, str], str, int] | None = None
            for fname, var in pv.flavors[gi]:
                fv = low(var)
                question = base + chosen + skips + mine + [fv]
                fixed = Fixed(frozenset(chosen_names + [var.name]), frozenset({i}), later)
                if session._ask(loaded, question_pins, question, fixed) == "sat":
                    # it fits; how far up the cohort tree the quota comes from is arithmetic
                    h = max((tree.borrowing_height(cq.name, (fname, r), session.usage,
                                                   usage.get((fname, r), 0) + requests[r] * n)
                             for r in group_res), default=0)
                    option = (MODES["Fit"], h, fname, fv, {r: "Fit" for r in group_res}, var.name, h)
                elif not preemption or session._ask(loaded, question_pins, question) != "sat":
                    continue  # NoFit whatever the quota: a taint, selector, topology, rule
                else:
                    option = quota_modes(session, wl, cq, fname, group_res,
                                               {r: usage.get((fname, r), 0) + requests[r] * n for r in group_res})
                    if option is None:
                        continue
                    option = (option[0], option[1], fname, fv, option[2], var.name, option[3])
                if best is None or preferred(option, best, fung.preference):
                    best = option
                if not try_next(option[0], option[1], fung):
                    break
            if best is None:
                return None
            chosen.append(best[3])
            chosen_names.append(best[5])
            height = max(height, best[6])  # Kueue's Assignment.Borrowing: the most any resource borrows
            fit = fit and best[0] == MODES["Fit"]
            for r in group_res:
                flavors[pv.pod_set.name][r] = best[2]
                usage[(best[2], r)] = usage.get((best[2], r), 0) + requests[r] * n
                if best[4][r] != "Fit":
                    needs.add((best[2], r))
    # the whole workload: workload-wide rules apply now (quota aside when preemption is needed)
    goal = loaded.goal() + quota_free + chosen
    everyone = frozenset(range(len(prob.pod_sets)))
    if session._ask(loaded, question_pins, goal, None if needs else Fixed(frozenset(chosen_names), everyone)) != "sat":
        return None
    if needs:
        # A flavor whose worst resource by isPreferred is Fit (PreemptionOverBorrowing: one that
        # borrows ranks below one that needs preemption without borrowing) leaves its pod set's
        # status Fit although a resource of it needs preemption: Kueue then takes the assignment
        # as Fit, finds no victims, and its scheduler's `fits` check refuses it ("Workload no
        # longer fits after processing another workload"), cycle after cycle.
        return Assignment(cq.name, dict(counts), flavors, height > 0, usage, height, None,
                          "Fit" if fit else "Preempt", frozenset(needs))
    placement = None
    if session._tas:
        requests = session.pool.requests(wl, cq, counts, flavors)
        if requests:
            placement = session.pool.place(requests)
            if placement.failure is not None:
                if all(counts[ps.name] == ps.count for ps in wl.pod_sets):
                    session.placement_failures[wl.key] = placement.failure
                return None
    if all(counts[ps.name] == ps.count for ps in wl.pod_sets):
        session.placement_failures.pop(wl.key, None)
    return Assignment(cq.name, dict(counts), flavors, height > 0, usage, height, placement)


def quota_modes(session, wl: Workload, cq: ClusterQueue, fname: str, group_res: list[str],
                 vals: dict[str, int]) -> tuple[int, int, dict[str, str], int] | None:
    """Kueue's fitsResourceQuota per resource for a flavor Z3 found admissible but for quota
    (§2 A2): NoFit above the maximum capacity; Fit within what is available; else the
    preemption oracle's answer when preemption may help, else NoFit. Returns the flavor's
    representative (worst) mode, its borrowing height, each resource's mode, and the highest
    borrowing height of any resource (what the assignment's borrowing counts); None if NoFit."""
    tree = session.compiler.tree
    quota = Snapshot.reading(session)  # §1's predicates over the current usage
    nid = node_id(cq.name, False)
    modes: dict[str, str] = {}
    rep = (MODES["Fit"], 0)  # Kueue's representativeMode: the worst resource by isPreferred
    most = 0  # Kueue's maxBorrow
    pref = cq.flavor_fungibility.preference
    for r in group_res:
        fr, val = (fname, r), vals[r]
        if not tree.entry(nid, fr).declared or val > tree.available(nid, fr, None):
            return None
        h, may_reclaim = quota.lowest_subtree_that_fits(cq.name, fr, val)
        if val <= tree.available(nid, fr, session.usage):
            modes[r] = "Fit"
            most = max(most, h)
            if preferred(rep, (MODES["Fit"], h), pref):
                rep = (MODES["Fit"], h)
            continue
        p = cq.preemption
        fair = bool(session.model.config and session.model.config.fair_sharing)
        if not (tree.entry(nid, fr).nominal >= val or may_reclaim
                or (p.borrow_within_cohort is not None and p.borrow_within_cohort.policy != "Never")
                or (fair and p.reclaim_within_cohort != "Never")):
            return None
        if may_preempt(cq, tree.nodes[nid].parent is not None):
            mode, h = oracle(session, cq.name, wl.key, session.index.priority(wl), wl.created, fr, val)
        else:  # no candidate can exist: the oracle's NoCandidates, at the height computed above
            mode = NO_CANDIDATES
        modes[r] = mode
        most = max(most, h)
        if preferred(rep, (MODES[mode], h), pref):
            rep = (MODES[mode], h)
    return rep[0], rep[1], modes, most
