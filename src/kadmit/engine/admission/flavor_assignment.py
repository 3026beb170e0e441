"""Kueue's flavor assignment (docs/PREEMPTION.md §2): pod sets in order, each resource group's flavors
in order with flavor fungibility, modes from quota and the preemption oracle, partial admission, and
the nomination the scheduling cycle acts on. Z3 answers "is this flavor admissible"; the session holds
the compiled problems and the usage."""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from kadmit.engine.quota import FR, node_id
from kadmit.engine.compile.problem import (Problem, flavor_error, group_label_keys, selector_conflicts, tas_only,
                                           topology_mismatch, untolerated_taints)
from kadmit.engine.compile.split import Fixed, Pins
from kadmit.engine.placing.pool import PlacementFailure, WorkloadPlacement
from kadmit.engine.admission import slices
from kadmit.engine.preemption.candidates import Preemptor, Victim, buffer
from kadmit.engine.preemption.search import NO_CANDIDATES, find_targets, may_preempt, oracle
from kadmit.engine.preemption.snapshot import Snapshot
from kadmit.featuregates import enabled
from kadmit.model import ClusterQueue, Workload
from kadmit.modelscheduling import parse_errors

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


def pick(option: tuple, best: tuple | None, fung, fungible: bool = True) -> tuple[tuple | None, bool]:
    """The flavor option a search keeps once it has seen `option` (a mode first, a borrowing height second),
    and whether the search stops there. With the FlavorFungibility gate on: shouldTryNextFlavor, then
    isPreferred (Kueue takes the flavor that stops the search, preferred or not). Off (findFlavorForPodSets'
    other branch): the first flavor of a strictly better mode, the search stopping at the first that fits,
    borrowing or not; the ClusterQueue's flavorFungibility is not read."""
    if not fungible:
        if best is None or option[0] > best[0]:
            return option, option[0] == MODES["Fit"]
        return best, False
    if not try_next(option[0], option[1], fung):
        return option, True
    return (option if best is None or preferred(option, best, fung.preference) else best), False


def fungible(session) -> bool:
    """Whether Kueue's FlavorFungibility gate is on (its default): flavor searches go on from the flavor
    after the last tried (LastTriedFlavorIdx) and follow the ClusterQueue's flavorFungibility."""
    return enabled(session.model.config, "FlavorFungibility")


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
    tried: "Tried | None" = None  # the flavors this assignment tried (Kueue's LastState)
    # Preempt mode: the nodes its topology-aware pod sets take while the cycle lasts (Kueue's
    # updateAssignmentForTAS: placed with its victims gone, or on empty nodes when it has none)
    held: WorkloadPlacement | None = None


@dataclass(frozen=True)
class Tried:
    """What one flavor assignment leaves behind in Kueue v0.17 (workload.AssignmentClusterQueueState):
    per pod set (in order, up to the one whose assignment failed) and resource group, the index of the
    last flavor tried, -1 once the search reached the group's last flavor (Kueue's
    LastTriedFlavorIdx); and what the Pending message it writes is made of (`message`: per pod set
    that didn't fit, the reasons of the flavors considered, or the topology's), so that a caller can
    tell when the message changes."""

    idx: tuple[tuple[str, tuple[tuple[int, int], ...]], ...]
    message: tuple = ()
    # the messages other walks write: Kueue's assignFlavors takes a pod set's resources in Go map order
    # and writes the reasons of the first group it reaches that gets no flavor (groupStatus = *status)
    others: tuple = ()

    def messages(self) -> frozenset:
        """Every Pending message this search can write, whatever the order of its resources."""
        return frozenset((self.message,) + self.others)

    @property
    def pending(self) -> bool:
        """Kueue's PendingFlavors: some group stopped before its last flavor (its next try goes on)."""
        return any(i != -1 for _, groups in self.idx for _, i in groups)

    def start(self) -> dict[str, dict[int, int]]:
        """Where the next search starts, per pod set and group (NextFlavorToTryForPodSetResource)."""
        return {ps: {gi: i + 1 for gi, i in groups} for ps, groups in self.idx}


def pod_set_units(wl: Workload, order: list[str]) -> list[list[int]]:
    """The pod sets (indices into `order`) in the units Kueue's flavor assigner takes them: each on
    its own, but the pod sets of one group (`PodSet.flavor_group`, Kueue's podSetGroupName) together,
    at the place of the first of them (flavorassigner.go, groupedRequests.InOrder)."""
    by_name = {ps.name: ps for ps in wl.pod_sets}
    units: dict[str, list[int]] = {}
    for i, name in enumerate(order):
        group = by_name[name].flavor_group
        units.setdefault(f"group {group}" if group else f"pod set {i}", []).append(i)
    return list(units.values())


def group_member_fits(session, cq: ClusterQueue, gi: int, fname: str, pod_sets: list) -> bool:
    """Kueue's checkFlavorForPodSets for the pod sets of a group that request nothing of resource
    group `gi`: the group's flavor for it must still suit them (taints, node selector and affinity
    on its resource group's label keys, the topology-aware match), as it must the others (whose checks are
    the compiled problem's)."""
    fl = session.index.flavors.get(fname)
    if fl is None:
        return True  # the compiled problem says the flavor is missing
    implied = tas_only(cq, session.index)
    covered = cq.resource_groups[gi].covered_resources
    keys = group_label_keys(session.index, cq.resource_groups[gi])
    return not any(untolerated_taints(ps, fl) or selector_conflicts(ps, fl, keys)
                   or topology_mismatch(ps, fl, session.index, implied, covered) for ps in pod_sets)


def nominate(session, wl: Workload, preemption: bool = True) -> tuple[Assignment | None, Problem]:
    """Kueue's nomination of `wl` (docs/PREEMPTION.md §2 A7): the full counts if they fit, or
    need preemption and Kueue finds victims; else the largest partial counts that do; else the
    full assignment in Preempt mode without victims (it then holds capacity for the cycle), or
    None when nothing can be assigned. With `preemption` off, only Fit assignments count."""
    loaded = session._loaded_shape(wl)
    prob = loaded.problem
    cq = session.index.cluster_queue_of(wl)
    if prob.cluster_queue is None or cq is None:
        session.attempt = None
        return None, prob
    numbers = prob.number_values(session.compiler, session.usage, cq.name)
    full = {ps.name: ps.count for ps in wl.pod_sets}
    start = session.last_tried.get(wl.key)
    attempts: list[Tried] = []
    before = session.placement_failures.get(wl.key)
    first = assign_with_counts(session, loaded, wl, cq, numbers, full, preemption, start, attempts)
    placed = session.placement_failures.get(wl.key)  # the topology's failure this try met, if it met one
    got = with_targets(session, wl, first, placed if placed is not before else None)
    if got is None and any(ps.min_count is not None and ps.min_count < ps.count for ps in wl.pod_sets):
        got = partial(session, loaded, wl, cq, numbers, preemption, start)
    if got is None and first is not None and first.mode != "Fit":
        got = first  # Preempt mode, no victims: Kueue holds its capacity for the cycle
    if got is not None and got.mode == "Preempt" and session._tas:
        got.held = held_nodes(session, wl, got)
    # Kueue keeps the LastState of the assignment it returns: the partial one found, else the full one
    session.attempt = got.tried if got is not None and got.tried is not None else attempts[0]
    return got, prob


def held_nodes(session, wl: Workload, a: Assignment) -> WorkloadPlacement | None:
    """Where a Preempt assignment's topology-aware pod sets go in Kueue's updateAssignmentForTAS:
    placed with its victims' nodes freed, or, without victims, on the nodes as if empty (every
    topology-aware workload gone) so that it reserves them; None when nothing is placed. A workload slice's
    victims come with the slice it replaces (getInitialAssignments: ReplacedWorkloadSlice's target first), whose
    pods are gone too (feature-gate-elastic-jobs-via-workload-slices-on-preempt-held-nodes-without-old-slice.yaml)."""
    requests = session.pool.requests(wl, session.index.cluster_queues[a.cluster_queue], a.counts, a.flavors)
    if not requests:
        return None
    gone = [*slices.replacing(session, wl), *(t.key for t in a.targets)] if a.targets else list(session.pool.placed)
    got = session.pool.place(requests, free=session.pool.free_without(gone))
    return got if got.failure is None else None


def with_targets(session, wl: Workload, a: Assignment | None, placed: PlacementFailure | None = None) -> Assignment | None:
    """`a` if it fits, or needs preemption and Kueue finds victims (then set); else None. Without victims, the
    workload's placement failure is the preemption search's last, unless `a` needs preemption because its
    placement failed (`placed`): Kueue's message is then that failure's (the assignment's reason, recorded
    before its preemption search)."""
    if a is None or a.mode == "Fit":
        return a
    p = Preemptor(wl.key, a.cluster_queue, session.index.priority(wl), wl.created, dict(a.usage), a.needs,
                  buffer(session))
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
        session.placement_failures[wl.key] = placed or failures[-1]
    return a if a.targets else None


def partial(session, loaded, wl: Workload, cq: ClusterQueue,
             numbers: dict[str, int], preemption: bool = False,
             start: dict[str, dict[int, int]] | None = None) -> Assignment | None:
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
        got = with_targets(session, wl, assign_with_counts(session, loaded, wl, cq, numbers, counts, preemption,
                                                           start))
        if got is not None:
            best, hi = got, mid
        else:
            lo = mid + 1
    return best


def assign_with_counts(session, loaded, wl: Workload, cq: ClusterQueue, numbers: dict[str, int],
                        counts: dict[str, int], preemption: bool = False,
                        start: dict[str, dict[int, int]] | None = None,
                        attempts: list[Tried] | None = None) -> Assignment | None:
    """Kueue's flavor assignment at these counts (docs/PREEMPTION.md §2): pod sets in order,
    each resource group's flavors in order, from the flavor after the one its last try stopped at
    (`start`, Kueue's LastTriedFlavorIdx). A flavor Z3 finds admissible is Fit; with
    `preemption`, one that is admissible but for quota gets a mode per resource from the quota
    arithmetic and the preemption oracle (NoFit, NoCandidates, Preempt, Reclaim), and flavor
    fungibility picks among them. The result is in Preempt mode when some flavor-resource needs
    preemption, else Fit; None when some group gets no flavor. What it tried is appended to
    `attempts` (and set on the assignment returned)."""
    tried_idx: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    message: list[tuple] = []

    others: list[tuple] = []

    def done(a: Assignment | None) -> Assignment | None:
        t = Tried(tuple(tried_idx), tuple(message), tuple(others))
        if attempts is not None:
            attempts.append(t)
        if a is not None:
            a.tried = t
        return a

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
    searching_on = fungible(session)
    tree = session.compiler.tree
    chosen: list[z3.BoolRef] = []
    chosen_names: list[str] = []  # the chosen flavor variables, for quota by arithmetic (`Session._ask`)
    flavors: dict[str, dict[str, str]] = {}
    usage: dict[FR, int] = {}
    needs: set[FR] = set()
    fit = True  # every group's chosen flavor is Fit as a whole: Kueue's pod-set status is Fit
    height = 0
    base = [low(prob.admitted)] + quota_free  # every statement but quota, which `fixed` adds
    done_idx: set[int] = set()
    for unit in pod_set_units(wl, [pv.pod_set.name for pv in prob.pod_sets]):
        # a unit is one pod set, or the pod sets of one group (Kueue's podSetGroupName): one flavor
        # per resource group for all of them, chosen on their summed requests
        pvs = {i: prob.pod_sets[i] for i in unit}
        names = {i: pv.pod_set.name for i, pv in pvs.items()}
        later = frozenset(j for j in range(len(prob.pod_sets)) if j not in done_idx and j not in unit)
        skips = [low(prob.pod_sets[j].skip) for j in sorted(later)]
        mine = [loaded.takes_part(pv) for pv in pvs.values()]
        requests = {i: session.compiler.requests(own[names[i]], pv.group_of) for i, pv in pvs.items()}
        for i in unit:
            flavors[names[i]] = {}
        ps_tried: dict[int, list[tuple[int, int]]] = {i: [] for i in unit}
        ps_reasons: list[tuple] = []
        first = (start or {}).get(names[unit[0]], {})  # Kueue: the group's first pod set's last try
        unit_sets = [own[names[i]] for i in unit]
        unparsable = any(parse_errors(ps.node_affinity) for ps in unit_sets)  # a flavor's check may err
        failed: list[tuple] = []  # the reasons of each group that got no flavor, in kadmit's order
        for gi in sorted({gi for pv in pvs.values() for gi in pv.flavors}):
            members = [i for i in unit if gi in pvs[i].flavors]
            group_res = sorted({r for i in members for r, g in pvs[i].group_of.items() if g == gi})
            demand = {r: sum(requests[i][r] * counts[names[i]] for i in members if pvs[i].group_of.get(r) == gi)
                      for r in group_res}
            best: tuple | None = None
            choices = pvs[members[0]].flavors[gi]
            last = -1  # the index of the last flavor tried (Kueue's attemptedFlavorIdx)
            reasons: list[tuple] = []
            others = [own[names[i]] for i in unit if i not in members]
            keys = group_label_keys(session.index, cq.resource_groups[gi])
            for at in range(first.get(gi, 0) if searching_on else 0, len(choices)):
                fname = choices[at][0]
                last = at
                err = flavor_error(unit_sets, session.index.flavors.get(fname), keys, session.index,
                                   tas_only(cq, session.index), cq.resource_groups[gi].covered_resources) \
                    if unparsable else None
                if err is not None:  # Kueue's search stops: the pod sets fail with the error, whatever came before
                    for i in unit:
                        tried_idx.append((names[i], tuple(ps_tried[i])))
                    message.append((names[unit[0]], ("error", err)))
                    return done(None)
                if others and not group_member_fits(session, cq, gi, fname, others):
                    reasons.append((fname,))
                    continue
                if session.slice_pins is not None and slices.mismatch(session.slice_pins, [names[i] for i in members],
                                                                      group_res, fname):
                    reasons.append((fname,))  # a replacement slice keeps its old slice's flavors
                    continue
                fvs = [low(pvs[i].flavors[gi][at][1]) for i in members]
                var_names = [pvs[i].flavors[gi][at][1].name for i in members]
                question = base + chosen + skips + mine + fvs
                fixed = Fixed(frozenset(chosen_names + var_names), frozenset(unit), later)
                if session._ask(loaded, question_pins, question, fixed) == "sat":
                    # it fits; how far up the cohort tree the quota comes from is arithmetic
                    h = max((tree.borrowing_height(cq.name, (fname, r), session.usage,
                                                   usage.get((fname, r), 0) + demand[r])
                             for r in group_res), default=0)
                    option = (MODES["Fit"], h, fname, fvs, {r: "Fit" for r in group_res}, var_names, h)
                elif not preemption or session._ask(loaded, question_pins, question) != "sat":
                    reasons.append((fname,))
                    continue  # NoFit whatever the quota: a taint, selector, topology, rule
                else:
                    vals = {r: usage.get((fname, r), 0) + demand[r] for r in group_res}
                    old = slices.old_on(session, [p.pod_set.name for j, p in enumerate(prob.pod_sets)
                                                      if j in done_idx or j in members], fname, group_res)
                    reasons.append((fname, quota_reasons(session, cq, fname, group_res, vals,
                                                         {r: usage.get((fname, r), 0) for r in group_res}, old)))
                    option = quota_modes(session, wl, cq, fname, group_res, vals, old)
                    if option is None:
                        continue
                    option = (option[0], option[1], fname, fvs, option[2], var_names, option[3])
                best, stop = pick(option, best, fung, searching_on)
                if stop:
                    break
            if best is None:
                # the other groups are still walked: in another order of the resources, Kueue's message is theirs
                failed.append(tuple(ps_reasons + reasons))
                continue
            # Kueue records the index on the flavor chosen: -1 when the search reached the last one
            # (gate off: TriedFlavorIdx is left 0, so Kueue's PendingFlavors holds for any assignment made)
            for i in members:
                ps_tried[i].append((gi, (-1 if last == len(choices) - 1 else last) if searching_on else 0))
            if best[0] != MODES["Fit"]:
                ps_reasons.extend(reasons)
            chosen.extend(best[3])
            chosen_names.extend(best[5])
            height = max(height, best[6])  # Kueue's Assignment.Borrowing: the most any resource borrows
            fit = fit and best[0] == MODES["Fit"]
            for r in group_res:
                for i in members:
                    if pvs[i].group_of.get(r) == gi:
                        flavors[names[i]][r] = best[2]
                usage[(best[2], r)] = usage.get((best[2], r), 0) + demand[r]
                if best[4][r] != "Fit":
                    needs.add((best[2], r))
        if failed:
            # Kueue drops the unit's flavors when a group gets none (groupFlavors = nil), so its pod sets
            # record no index (an empty LastTriedFlavorIdx entry): they count for no PendingFlavors, and their
            # next search starts at the first flavor of every group, whichever groups came before in map order
            tried_idx.extend((names[i], ()) for i in unit)
            before = tuple(message)
            message.extend((names[i], failed[0]) for i in unit)
            others.extend(before + tuple((names[i], f) for i in unit) for f in failed[1:])
            return done(None)
        for i in unit:
            tried_idx.append((names[i], tuple(ps_tried[i])))
            if ps_reasons:
                message.append((names[i], tuple(ps_reasons)))
        done_idx.update(unit)
    # the whole workload: workload-wide rules apply now (quota aside when preemption is needed)
    goal = loaded.goal() + quota_free + chosen
    everyone = frozenset(range(len(prob.pod_sets)))
    if session._ask(loaded, question_pins, goal, None if needs else Fixed(frozenset(chosen_names), everyone)) != "sat":
        message.append(("", "rules"))
        return done(None)
    requests = session.pool.requests(wl, cq, counts, flavors) if session._tas else []
    if needs:
        if not fit:
            empty = session.pool.place(requests, free=session.pool.free_without(list(session.pool.placed))) \
                if requests else None
            if empty is not None and empty.failure is not None:
                if all(counts[ps.name] == ps.count for ps in wl.pod_sets):
                    session.placement_failures[wl.key] = empty.failure  # why says it, though Kueue's message doesn't
                message.append(("", "topology"))
                return done(None)  # Kueue: NoFit, the pod sets don't fit even on empty nodes
        # A flavor whose worst resource by isPreferred is Fit (PreemptionOverBorrowing: one that
        # borrows ranks below one that needs preemption without borrowing) leaves its pod set's
        # status Fit although a resource of it needs preemption: Kueue then takes the assignment
        # as Fit, finds no victims, and its scheduler's `fits` check refuses it ("Workload no
        # longer fits after processing another workload"), cycle after cycle.
        return done(Assignment(cq.name, dict(counts), flavors, height > 0, usage, height, None,
                               "Fit" if fit else "Preempt", frozenset(needs)))
    placement = None
    if requests:
        placement = session.pool.place(requests)
        if placement.failure is not None:
            if all(counts[ps.name] == ps.count for ps in wl.pod_sets):
                session.placement_failures[wl.key] = placement.failure
            failed = placement.failure
            # Kueue's message: the topology's reason, with its count of nodes excluded
            message.append((failed.pod_set, failed.message, failed.excluded))
            if session.pool.place(requests, free=session.pool.free_without(list(session.pool.placed))).ok:
                # Kueue: the pod set that didn't fit needs preemption (its flavors' mode becomes Preempt)
                return done(Assignment(cq.name, dict(counts), flavors, height > 0, usage, height, None, "Preempt",
                                       frozenset((f, r) for r, f in flavors[failed.pod_set].items())))
            return done(None)
    if all(counts[ps.name] == ps.count for ps in wl.pod_sets):
        session.placement_failures.pop(wl.key, None)
    return done(Assignment(cq.name, dict(counts), flavors, height > 0, usage, height, placement))


def quota_reasons(session, cq: ClusterQueue, fname: str, group_res: list[str], vals: dict[str, int],
                  before: dict[str, int], old: dict[str, int] | None = None) -> tuple:
    """What Kueue's fitsResourceQuota writes for a flavor that doesn't fit by quota: per resource
    above the maximum capacity, the earlier pod sets' requests, this one's and that capacity; per
    resource above what is available, how much more is needed. `old`: a replacement slice's old
    slice's part of `vals` (`slices.old_on`), left out of the maximum capacity's check."""
    tree = session.compiler.tree
    nid = node_id(cq.name, False)
    out = []
    for r in group_res:
        fr, val = (fname, r), vals[r]
        most = tree.available(nid, fr, None) if tree.entry(nid, fr).declared else 0
        if val - (old or {}).get(r, 0) > most:
            out.append((r, "max", before[r], val - before[r], most))
            continue
        now = tree.available(nid, fr, session.usage)
        if val > now:
            out.append((r, "more", val - now))
    return tuple(out)


def quota_modes(session, wl: Workload, cq: ClusterQueue, fname: str, group_res: list[str],
                 vals: dict[str, int], old: dict[str, int] | None = None) -> tuple[int, int, dict[str, str], int] | None:
    """Kueue's fitsResourceQuota per resource for a flavor Z3 found admissible but for quota
    (§2 A2): NoFit above the maximum capacity; Fit within what is available; else the
    preemption oracle's answer when preemption may help, else NoFit. Returns the flavor's
    representative (worst) mode, its borrowing height, each resource's mode, and the highest
    borrowing height of any resource (what the assignment's borrowing counts); None if NoFit.
    `old`: a replacement slice's old slice's part of `vals` (`slices.old_on`; its quota is out of the
    state asked): Kueue checks only the rest, the request beyond the old slice's, against the maximum
    capacity and the nominal quota (flavorassigner.go fitsResourceQuota on the slice's delta)."""
    tree = session.compiler.tree
    quota = Snapshot.reading(session)  # §1's predicates over the current usage
    nid = node_id(cq.name, False)
    modes: dict[str, str] = {}
    rep = (MODES["Fit"], 0)  # Kueue's representativeMode: the worst resource by isPreferred
    most = 0  # Kueue's maxBorrow
    pref = cq.flavor_fungibility.preference
    for r in group_res:
        fr, val = (fname, r), vals[r]
        beyond = val - (old or {}).get(r, 0)  # a replacement slice's request beyond its old slice's
        if not tree.entry(nid, fr).declared or beyond > tree.available(nid, fr, None):
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
        if not (tree.entry(nid, fr).nominal >= beyond or may_reclaim
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
