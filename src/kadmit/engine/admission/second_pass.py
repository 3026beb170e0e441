"""Kueue's second pass (`ordered`): a workload that reserved quota while the placement of its pod sets
on a provisioning check's flavor was delayed (flavorassigner.podSetTopologyRequest), every check
that applies to it Ready, is queued again a second later (workload.NeedsSecondPass) and its delayed
pod sets are placed then, its flavors and quota kept. One that finds no room is tried again after
Kueue's backoff, holding its quota meanwhile (tests/oracle/features/admission-check-ready-second-pass-places-it.yaml).
A workload the input shows holding quota with its placement delayed gets its pass the same way, a
second after the run starts (`from_input`; tests/oracle/features/admission-check-delayed-in-input-second-pass.yaml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.flavor_assignment import MODES, fungible, group_member_fits, pick, quota_modes
from kadmit.engine.admission.session import Assignment, Session
from kadmit.engine.preemption.candidates import Preemptor, Victim, buffer
from kadmit.engine.preemption.search import find_targets
from kadmit.engine.quota import FR, node_id
from kadmit.engine.placing.pool import WorkloadPlacement
from kadmit.model import Workload
from kadmit.modelchecks import states_on_reservation


@dataclass
class SecondPass:
    """A workload holding quota whose delayed pod sets Kueue's second pass places this cycle
    (`placement`, on the nodes as the cycle began; failed when it found no room). As an entry of the
    cycle it takes no quota (`usage`) and comes before every head in the classical order; among the
    cycle's passes, the one whose search borrows less comes first (`height`, Kueue's
    Assignment.Borrows of the pass's flavor assignment), then the higher priority, then the older
    (makeClassicalIterator; tests/oracle/features/second-pass-borrowing-less-goes-first.yaml)."""

    placement: WorkloadPlacement
    iteration: int  # Kueue's SecondPassIteration: 1 for the pass after the reservation
    position: int = 0  # its place among the cycle's second passes (Kueue's takeAllReady order)
    # its flavors searched again (`searched_again`): the flavor-resources that need preemption, or None
    # when a resource group found no flavor (NoFit)
    quota: frozenset[FR] | None = frozenset()
    # the assignment it admits when not the one it holds: flavors the search changed, counts Kueue's
    # partial-admission reducer found (`_reduced`)
    admits: Assignment | None = None
    targets: list[Victim] = field(default_factory=list)  # failed: the victims Kueue's preemptor finds
    held: WorkloadPlacement | None = None  # and the placement with them gone
    # failed with no victims: its placement as if the nodes were empty (`reserved_nodes`), on `flavors`
    reserve: WorkloadPlacement | None = None
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    usage: dict = field(default_factory=dict)
    height: int = 0
    mode: str = "SecondPass"
    retry: bool = False  # searched as a pass tried again after one that failed (`searched_again`)

    @property
    def ok(self) -> bool:
        """It places the delayed pod sets (on the nodes as the cycle began) and its flavors still fit."""
        return self.placement.failure is None and self.quota == frozenset()


def needs_second_pass(session: Session, wl: Workload, a: Assignment) -> bool:
    """Whether Kueue queues `wl`, just admitted on `a`, for its second pass (workload.NeedsSecondPass):
    a pod set's placement was delayed for a provisioning check, and every check that applies to the
    workload on its flavors is Ready (the states it had while pending are kept). A MultiKueue queue
    delays every placement for good (the worker cluster places it): no second pass places it here."""
    cq = session.index.cluster_queues.get(a.cluster_queue)
    if cq is None or not cq.admission_checks or not session._tas or session.index.multikueue(cq):
        return False
    if not session.pool.requests(wl, cq, a.counts, a.flavors, delayed_only=True):
        return False
    assigned = {fl for per in a.flavors.values() for fl in per.values()}
    states = states_on_reservation(cq.admission_checks, session.index.queue_flavors(cq), assigned, wl.check_states)
    return bool(states) and all(state == "Ready" for _, state in states)


def from_input(session: Session) -> dict[str, Assignment]:
    """The workloads the input shows holding quota with a pod set's placement still delayed
    (`delayedTopologyRequest: Pending`) whose second pass Kueue makes in the run (NeedsSecondPass:
    every check state it has Ready, its `Admitted` condition not True: one that is True stays so, as
    the workload controller syncs the condition only while it is not, and no pass comes): Kueue's
    workload controller queues it when it meets the workload (a Create event, iteration 0), so it is
    tried a second after the run starts. Each with its admission as an assignment (its counts, flavors and usage). Not in
    a MultiKueue queue (the worker cluster places it), nor once its nodes are placed here."""
    ix = session.index
    out: dict[str, Assignment] = {}
    for key, h in sorted(session.holders.items()):
        wl = ix.workloads.get(key)
        adm = wl.admission if wl is not None else None
        if adm is None or h.new or wl.evicted or wl.finished or wl.admitted_condition or key in session.pool.placed:
            continue
        if not any(ps.delayed for ps in adm.pod_sets):
            continue
        if not wl.check_states or any(c.state != "Ready" for c in wl.check_states):
            continue  # its checks decide at run time (the summary says so): no pass comes in the run
        cq = ix.cluster_queues.get(h.cluster_queue)
        if cq is None or ix.multikueue(cq) or not session._tas:
            continue
        out[key] = Assignment(h.cluster_queue, {ps.name: ps.count for ps in adm.pod_sets},
                              {ps.name: dict(ps.flavors) for ps in adm.pod_sets}, False, dict(h.amounts))
    return out


def _delayed_requests(session: Session, wl: Workload, cq_name: str, a: Assignment, held: bool,
                      reserved: Assignment | None = None):
    """The TAS requests, on `a`, of the pod sets the second pass places: those Kueue delayed at the
    reservation (`reserved`, else `a`; for one the input shows holding quota, `held`, the pod sets it
    marks delayed)."""
    cq = session.index.cluster_queues[cq_name]
    r0 = a if reserved is None else reserved
    if not held and r0 is a:
        return session.pool.requests(wl, cq, a.counts, a.flavors, delayed_only=True)
    delayed = {ps.name for ps in wl.admission.pod_sets if ps.delayed} if held else \
        {r.pod_set for r in session.pool.requests(wl, cq, r0.counts, r0.flavors, delayed_only=True)}
    order = {ps.name: i for i, ps in enumerate(wl.pod_sets)}
    both = session.pool.requests(wl, cq, a.counts, a.flavors) + session.pool.requests(wl, cq, a.counts, a.flavors,
                                                                                       delayed_only=True)
    return sorted((r for r in both if r.pod_set in delayed), key=lambda r: order.get(r.pod_set, 0))


def second_passes(session: Session, decisions: dict[str, Decision],
                   second: dict[str, tuple[int, int, str, int | None, tuple, int]], cycle: int,
                   held: Mapping[str, Assignment],
                   forgotten: Mapping[str, int]) -> list[tuple[str, Workload, SecondPass]]:
    """The second passes due in `cycle`, each placed on the nodes as the cycle begins (Kueue's
    nomination of a workload holding quota: its flavors kept, only the delayed pod sets placed), in
    the order they were queued: Kueue's takeAllReady reads its queued map, which a Go map gives
    in insertion order but for a random start (for two passes, 7 runs in 8), and its backoff timers
    fire in the order they were set (the fake clock's waiters; one second a cycle). `held`: the
    assignments of the workloads the input shows waiting for theirs (`from_input`). A pass after one
    that was tried and failed searches as a retry (`searched_again`); one only put off (its queue's
    head taking its place under fair sharing) was never drawn, so its next is searched as a first
    (tests/oracle/features/tie-second-pass-pod-set-group-put-off-not-a-retry.yaml). A workload Kueue's cache
    `forgotten` after a refused write (`refused_pass`) holds no quota here but its passes go on."""
    out = []
    for key in sorted(second, key=lambda k: (second[k][4], k)):
        due, iteration, name, _, _, failed = second[key]
        if due > cycle:  # (cycles that only set heads aside may have been run through at once)
            continue
        d = decisions.get(key)
        a = d.assignment if d is not None else held.get(key)
        if (key not in session.holders and key not in forgotten) or a is None:
            del second[key]
            continue
        wl = d.workload if d is not None else session.index.workloads[key]
        retry = failed > 0
        searched = searched_again(session, wl, a, retry)
        now = a if searched is None else _with_flavors(session, wl, a, searched[0])
        requests = _delayed_requests(session, wl, name, now, d is None, a)
        got = SecondPass(session.pool.place(requests), iteration, len(out), None if searched is None else searched[1],
                         now if now is not a else None, height=_borrows(session, wl, a, retry), retry=retry)
        if not got.ok and got.quota is not None:
            got.targets, got.held = _victims(session, wl, now, requests, got.quota)
        if not got.ok and not got.targets and (found := _reduced(session, wl, name, a, d is None, retry)) is not None:
            placement, got.admits, got.height, targets, kept = found
            if targets:  # Preempt at the reduced counts: its victims, its reservation kept meanwhile
                got.targets, got.held = targets, kept
            else:
                got.placement, got.quota = placement, frozenset()
        if not got.ok and not got.targets and got.quota is not None:
            empty = session.pool.place(requests, free=session.pool.free_without(list(session.pool.placed)))
            got.reserve, got.flavors = (empty, now.flavors) if empty.failure is None else (None, {})
        out.append((name, wl, got))
    return out


def _with_flavors(session: Session, wl: Workload, a: Assignment, flavors: dict[str, dict[str, str]],
                  counts: dict[str, int] | None = None) -> Assignment:
    """`a` with these flavors (and counts), its usage as they make it; `a` itself when nothing changes."""
    counts = dict(a.counts) if counts is None else counts
    if flavors == a.flavors and counts == a.counts:
        return a
    cq = session.index.cluster_queues[a.cluster_queue]
    covered = {r for rg in cq.resource_groups for r in rg.covered_resources}
    usage: dict[FR, int] = {}
    for ps in wl.pod_sets:
        for r, q in session.compiler.requests(ps, covered).items():
            fl = flavors.get(ps.name, {}).get(r)
            if fl is not None and q:
                usage[(fl, r)] = usage.get((fl, r), 0) + q * counts.get(ps.name, 0)
    return replace(a, counts=counts, flavors=flavors, usage=usage)


def _reduced(session: Session, wl: Workload, name: str, a: Assignment, held: bool, retry: bool = False):
    """Kueue's partial-admission reducer on a second pass that finds no room and no victims
    (getInitialAssignments: PodSetReducer over the pod sets' own counts down to their minCount, each
    try a flavor assignment again): the least reduction whose flavors fit (`searched_again`, Fit) and
    whose delayed pod sets the nodes take as the cycle began, or that is Preempt with victims Kueue's
    preemptor finds (GetTargets at the reduced counts, `_victims`: the reducer takes either;
    tests/oracle/features/second-pass-reduced-preempts.yaml). (placement, assignment, its search's
    borrowing height, victims, the placement with them gone) or None."""
    pss = list(wl.pod_sets)
    deltas = {ps.name: ps.count - ps.min_count if ps.min_count is not None else 0 for ps in pss}
    total = sum(deltas.values())
    if total <= 0 or any(x < 0 for x in deltas.values()):
        return None
    lo, hi, best = 0, total + 1, None
    while lo < hi:  # Go's sort.Search over the reduction k in [0, total]
        mid = (lo + hi) // 2
        counts = {ps.name: ps.count - deltas[ps.name] * mid // total for ps in pss}
        tried = _with_flavors(session, wl, a, a.flavors, counts)  # its usage at the reduced counts
        searched = searched_again(session, wl, tried, retry)
        if searched is not None:
            tried = _with_flavors(session, wl, tried, searched[0])
            requests = _delayed_requests(session, wl, name, tried, held, a)
            placement = session.pool.place(requests)
            if not searched[1] and placement.failure is None:
                best, hi = (placement, tried, searched[2], [], None), mid
                continue
            targets, kept = _victims(session, wl, tried, requests, searched[1])
            if targets:
                best, hi = (placement, tried, searched[2], targets, kept), mid
                continue
        lo = mid + 1
    return best


def _borrows(session: Session, wl: Workload, a: Assignment, retry: bool = False) -> int:
    """The borrowing height of the pass's flavor assignment on `a` (Kueue's Assignment.Borrows: the
    most any searched resource borrows; a search that ends NoFit counts the groups found before)."""
    return _search(session, wl, a, retry)[2]


def searched_again(session: Session, wl: Workload, a: Assignment,
                   retry: bool = False) -> tuple[dict[str, dict[str, str]], frozenset[FR], int] | None:
    """Kueue's second pass assigns flavors again (flavorassigner.assignFlavors), each pod set (or
    pod-set group) starting from its admission's flavors: one of its resources (Go map order) keeps
    its flavor unchecked, and every resource group holding another of its resources is searched again
    (findFlavorForPodSets: the group's flavors in order, from the first, with flavor fungibility) with
    the workload's own reservation still counted in its queue's usage, so its requests count twice.
    The flavors it ends with (a searched group may take another flavor) and the flavor-resources that
    need preemption there (empty: Fit); None when a searched group finds no flavor (NoFit). Which
    resource a pod set keeps unchecked is Go map order (docs/KUEUE-DIFFERENCES.md §1): kadmit takes
    the first by name for one pod set, and for a pod-set group one each (the first ones by name), as
    most of Kueue's runs do. A pass tried again after one that failed (`retry`) draws Go's map order
    again, and a pod-set group's members then keep one resource alike in some of them, so that its
    group is searched: where the first draw finds no room, the pass goes on failing until a draw
    searches it, so kadmit searches it from the first retry (its members keep the first resource by
    name; tests/oracle/features/second-pass-pod-set-group-retried-searches-again.yaml). The third
    value is the search's borrowing height (`_borrows`)."""
    flavors, needs, height, found = _search(session, wl, a, retry)
    return (flavors, needs, height) if found else None


def _search(session: Session, wl: Workload, a: Assignment,
            retry: bool = False) -> tuple[dict[str, dict[str, str]], frozenset[FR], int, bool]:
    """`searched_again`'s search: the flavors, the flavor-resources needing preemption, the most any
    searched group borrows, and whether every searched group found a flavor (False: NoFit, the rest
    as far as it went)."""
    cq = session.index.cluster_queues[a.cluster_queue]
    tree = session.compiler.tree
    nid = node_id(cq.name, False)
    group_of = {r: gi for gi, rg in enumerate(cq.resource_groups) for r in rg.covered_resources}
    covered = set(group_of)
    units: dict[str, list] = {}
    for ps in wl.pod_sets:
        key = ps.topology.group if ps.topology is not None and ps.topology.group else f"\0{ps.name}"
        units.setdefault(key, []).append(ps)
    flavors = {ps: dict(per) for ps, per in a.flavors.items()}
    needs: set[FR] = set()
    taken: dict[FR, int] = {}  # what the earlier pod sets took (Kueue's assignmentUsage)
    fung = cq.flavor_fungibility
    searching_on = fungible(session)
    height = 0
    for members in units.values():
        asked: dict[int, dict[str, int]] = {}  # resource group -> resource -> the members' demand
        for ps in members:
            for r, q in session.compiler.requests(ps, covered).items():
                if r in group_of and q:
                    per = asked.setdefault(group_of[r], {})
                    per[r] = per.get(r, 0) + q * a.counts.get(ps.name, 0)
        if not asked:
            continue
        # one unchecked resource per pod set: a group's pod sets, in most of Kueue's runs, keep
        # different ones (tests/oracle/features/tie-second-pass-pod-set-group.yaml)
        kept = set(sorted(r for rs in asked.values() for r in rs)[:1 if retry else len(members)])
        for gi, demand in sorted(asked.items()):
            if set(demand) <= kept:  # the unchecked resources' group, asked for nothing else
                for r in demand:
                    fl = next((flavors[ps.name][r] for ps in members if flavors.get(ps.name, {}).get(r)), None)
                    if fl is not None:
                        taken[(fl, r)] = taken.get((fl, r), 0) + demand[r]
                continue
            rs = sorted(demand)
            best: tuple | None = None
            for fq in cq.resource_groups[gi].flavors:
                fname = fq.flavor
                if not group_member_fits(session, cq, gi, fname, members):
                    continue
                vals = {r: taken.get((fname, r), 0) + demand[r] for r in rs}
                if all(vals[r] <= tree.available(nid, (fname, r), session.usage) for r in rs):
                    h = max(tree.borrowing_height(cq.name, (fname, r), session.usage, vals[r]) for r in rs)
                    option: tuple = (MODES["Fit"], h, fname, {r: "Fit" for r in rs}, h)
                else:
                    q = quota_modes(session, wl, cq, fname, rs, vals)
                    if q is None:
                        continue
                    option = (q[0], q[1], fname, q[2], q[3])
                best, stop = pick(option, best, fung, searching_on)
                if stop:
                    break
            if best is None:
                return flavors, frozenset(needs), height, False
            height = max(height, best[4])  # Kueue's maxBorrow over the group's resources
            for ps in members:
                for r in rs:
                    if r in flavors.get(ps.name, {}):
                        flavors[ps.name][r] = best[2]
            for r in rs:
                taken[(best[2], r)] = taken.get((best[2], r), 0) + demand[r]
                if best[3][r] != "Fit":
                    needs.add((best[2], r))
    return flavors, frozenset(needs), height, True


def one_per_queue(passes: list[tuple[str, Workload, SecondPass]],
                  heads: set[str]) -> tuple[list[tuple[str, Workload, SecondPass]], list[tuple[str, Workload, SecondPass]]]:
    """Under fair sharing Kueue's iterator keeps one entry per ClusterQueue (cqToEntry, filled in
    the entries' order: the second passes as takeAllReady gave them, then the heads): a queue's
    head takes its place, else its last second pass. The passes tried and those put off (queued
    again after their backoff as a failed pass is: requeueAndUpdate)."""
    last = {name: i for i, (name, _, _) in enumerate(passes)}
    tried = [p for i, p in enumerate(passes) if p[0] not in heads and last[p[0]] == i]
    return tried, [p for p in passes if p not in tried]


def _victims(session: Session, wl: Workload, a: Assignment, requests,
             quota: frozenset[FR]) -> tuple[list[Victim], WorkloadPlacement | None]:
    """A second pass that found no room is Preempt (flavorassigner: the placement fails, and fits on
    nodes as if empty; else NoFit, no victims) and asks Kueue's preemptor (GetTargets) for victims:
    with its own quota counted again (the snapshot holds its reservation, and the preemptor adds its
    requests, TotalRequestsFor), for every flavor-resource of its delayed pod sets, whether quota or the
    placement made it Preempt (flavorassigner: a Preempt whose pod sets fit on empty nodes has each TAS pod
    set's modes set to Preempt, "the quota is fragmented"); the nodes must take it with the victims gone
    (workloadFits). The victims and that placement, or ([], None). One whose
    flavors need preemption for `quota` (`searched_again`) needs those flavor-resources freed."""
    pool = session.pool
    if pool.place(requests, free=pool.free_without(list(pool.placed))).failure is not None:
        return [], None
    delayed = {r.pod_set for r in requests}
    needs = quota | frozenset((fl, res) for ps, per in a.flavors.items() if ps in delayed for res, fl in per.items())
    p = Preemptor(wl.key, a.cluster_queue, session.index.priority(wl), wl.created, dict(a.usage), needs,
                  buffer(session))
    targets = find_targets(session, p, lambda gone: pool.place(requests, free=pool.free_without(gone)).failure is None)
    if not targets:
        return [], None
    held = pool.place(requests, free=pool.free_without([t.key for t in targets]))
    return targets, held if held.failure is None else None


def reserved_nodes(session: Session, cq, sp: SecondPass) -> tuple[WorkloadPlacement, dict[str, int]] | None:
    """A failed pass with no victims is Preempt with no candidates: where its queue cannot always reclaim
    (reclaimWithinCohort other than Any) Kueue reserves what it would take for the rest of the cycle
    (scheduler.go: cq.AddUsage(resourcesToReserve), whose TAS usage is the pass's topology assignment, the
    placement as if the nodes were empty), so a later entry's `fits` may fail on those nodes
    (tests/oracle/features/second-pass-without-victims-reserves-its-nodes.yaml). The placement and the
    pods it counts per node, or None."""
    if sp.reserve is None or cq.preemption.reclaim_within_cohort == "Any":
        return None
    return sp.reserve, session.pool.cycle_usage(sp.reserve, sp.flavors)


def redraws(wl: Workload, sp: SecondPass) -> bool:
    """Whether the retry of this failed pass may search what it did not (`searched_again`'s `retry`): its
    first, for a workload with a pod-set group, so that the run goes on to it whatever the state."""
    return not sp.retry and any(ps.topology is not None and ps.topology.group for ps in wl.pod_sets)


def queued_on_reservation(cycle: int) -> tuple[int, int, int]:
    """When a reservation in `cycle` queues its second pass: after the cycle's failed passes (the
    workload controller sees the reservation once the cycle is over)."""
    return (cycle, 1, 0)


def second_pass_failed(second: dict[str, tuple[int, int, str, int | None, tuple, int]], key: str, cycle: int,
                        sp: SecondPass, version: int | None, tried: bool = True) -> None:
    """Kueue queues it again after its backoff (QueueSecondPassIfNeeded: 1 s doubled per failed pass,
    at most 30 s; the run's clock steps a second a cycle), in the cycle's order of entries.
    `version`: the state it failed on; None for one not tried (its queue's head or another pass of its
    queue taking its place under fair sharing), which the run goes on to whatever the state. `tried`
    False: put off (its backoff grows as a failed pass's, but no draw of Go's map order failed)."""
    name, failed = second[key][2], second[key][5]
    second[key] = (cycle + min(2 ** sp.iteration, 30), sp.iteration + 1, name, version, (cycle, 0, sp.position),
                   failed + tried)


def timers(second: dict[str, tuple[int, int, str, int | None, tuple, int]], cycle: int) -> tuple:
    """The second passes to come as a state of the run holds them (`loops.States`): each workload's queue, the
    cycles left to its pass, its backoff step (kept at 5 from where the backoff stays 30 s) and whether a pass of
    it was tried and failed (its next one a retry: `second_pass_failed`). Kueue's
    backoff doubles per failed pass, so a loop through a second pass (it preempts, a head takes the room back
    in the gaps) grows its period, 1, 2, 4, 8, 16 s, and comes back to a state only once the backoff is at its
    cap: the cycles in the gaps, where other heads are admitted and preempted again, are Kueue's (soak11 seed
    1107, tests/oracle/features/second-pass-preemption-loop-growing-backoff.yaml)."""
    return tuple(sorted((key, queue, due - cycle, min(step, 5), failed > 0)
                        for key, (due, step, queue, _, _, failed) in second.items()))


def placed_later(wl: Workload, a: Assignment | None, placement: WorkloadPlacement,
                 admits: Assignment | None = None) -> Assignment | None:
    """The assignment with the pod sets the second pass placed added, in the workload's pod-set order
    (on the flavors and counts the pass admits, `admits`, where they changed)."""
    if a is None:
        return None
    if admits is not None:
        a = replace(a, counts=dict(admits.counts), flavors={ps: dict(v) for ps, v in admits.flavors.items()},
                    usage=dict(admits.usage))
    order = {ps.name: i for i, ps in enumerate(wl.pod_sets)}
    before = list(a.placement.pod_sets) if a.placement is not None else []
    merged = WorkloadPlacement(sorted(before + list(placement.pod_sets), key=lambda p: order.get(p.request.pod_set, 0)))
    return replace(a, placement=merged)


def refused_pass(forgotten: dict[str, int], key: str, cycle: int) -> None:
    """A second pass whose delayed pod set Kueue's placement gives no domain (an empty topology assignment,
    `decisions.refused_write`) is a write the API server refuses: Kueue's scheduler then deletes the workload
    from its cache (scheduler.go admit: `cache.DeleteWorkload` after "Could not admit Workload and assign flavors
    in apiserver"), the quota its first pass reserved included, and queues the pass again after its backoff
    (requeueAndUpdate: QueueSecondPassIfNeeded). The Workload keeps QuotaReserved on the API server, but from
    the next cycle (this one's snapshot still counts it) later heads find its quota free and Kueue's preemptor
    no longer sees it; no event requeues the workloads set aside (soak14 seed 1408,
    tests/oracle/features/second-pass-refused-write-frees-its-quota.yaml). Forgotten at the end of `cycle`
    (`forget`)."""
    forgotten.setdefault(key, cycle)


def forget(session: Session, forgotten: dict[str, int], cycle: int) -> bool:
    """The workloads whose pass `cycle` refused leave the session's holders (quota and nodes): True if any held."""
    out = False
    for key in sorted(k for k, c in forgotten.items() if c == cycle):
        out |= key in session.holders
        session.finish(key)
    return out


def place_later(session: Session, key: str, placement: WorkloadPlacement | None,
                usage: dict[FR, int] | None = None) -> None:
    """`key`, holding quota, takes the nodes the second pass placed its delayed pod sets on (and,
    on flavors the pass changed or reduced by Kueue's partial-admission reducer, holds `usage` from now
    on; `placement` None: only that, `requota`). In the session's journal it is released and admitted
    again, with the nodes it held before and after, so that the state an earlier cycle met comes back as
    it was (`explain.met`)."""
    h = session.holders[key]
    before = session.pool.placed.get(key)
    if placement is not None:
        session.pool.commit(key, placement)
    if usage is not None:
        session.usage.add(h.cluster_queue, {fr: usage.get(fr, 0) - h.amounts.get(fr, 0)
                                            for fr in set(usage) | set(h.amounts)})
    again = session.holders[key] = replace(h) if usage is None else replace(h, amounts=dict(usage))
    session._new_version()
    session.situations.holder_changed(h.cluster_queue, key)
    if session.journal is not None:
        session.journal.changes.append((False, h, before))
        session.journal.changes.append((True, again, session.pool.placed.get(key)))


def requota(session: Session, later: list[tuple[str, dict[FR, int]]]) -> None:
    """The quota of the cycle's second passes that admitted other flavors or counts (`SecondPass.admits`),
    taken at the end of the cycle: Kueue adds an entry holding quota to the cycle's snapshot without its
    quota (scheduler.go netUsage: only its TAS usage when the Workload has QuotaReserved), and assumes it
    in its cache, not the snapshot, so the rest of the cycle sees the flavors it held (its nodes are placed
    at once, `place_later`): a head nominated in the same cycle against them keeps its nomination
    (soak14 seed 1442, tests/oracle/features/second-pass-new-flavors-after-the-cycle.yaml)."""
    for key, usage in later:
        if key in session.holders:
            place_later(session, key, None, usage)
