"""Kueue's flavor assignment for one workload in one cluster queue, and partial admission.

Mirrors `pkg/scheduler/flavorassigner/flavorassigner.go` (with the FlavorFungibility and
PartialAdmission gates on, as by default) and `podset_reducer.go`:

- Pod sets are assigned in order; each sees the usage assigned to the earlier ones
  ("previously considered podsets requests"). The first pod set that can't be assigned ends
  the assignment: later pod sets are not tried and the message names only that one.
- Within a pod set, resources are taken in name order; the first resource of a resource group
  picks the flavor for every resource the group covers. A requested resource (non-zero) that no
  group covers fails the pod set: "resource X unavailable in ClusterQueue".
- Flavors of a group are tried in order. A flavor is skipped when one of its NoSchedule /
  NoExecute taints isn't tolerated by the pod set's tolerations plus the flavor's own, when the
  pod set's nodeSelector / required node affinity, restricted to the label keys the flavor
  itself defines, doesn't match the flavor's labels, or when the pod set asks for a topology
  the flavor has no topology (or level) for. Otherwise every covered resource must fit:
  `assumed + request <= potential_available` ("maximum capacity") and `<= available`.
  A request beyond `available` would need preemption: without a preemption oracle (the replay
  with preemption off) such a flavor is NoFit; with one, Kueue's modes apply (below).
- Fungibility: with `whenCanBorrow: Borrow` the first flavor that fits is taken even when it
  borrows; with `TryNextFlavor` a flavor that borrows is remembered and the search goes on for
  one that fits without borrowing, falling back to the one that borrows least (the first of
  equals).
- With a preemption oracle (`fitsResourceQuota`, `isPreferred`, `shouldTryNextFlavor`), each
  covered resource gets a granular mode: NoFit beyond maximum capacity; Fit within `available`;
  otherwise ("insufficient unused quota") the oracle is asked when the request is within the
  queue's nominal quota, or the queue can reclaim inside a sub-tree, or it
  may preempt while borrowing (borrowWithinCohort, or fair sharing with reclaim) --
  its answer is NoCandidates, Preempt or Reclaim with the borrowing height after the
  preemptions -- and NoFit otherwise. A flavor's mode is the worst of its resources (every
  resource is still checked, for its reason). Modes rank
  NoFit < NoCandidates < Preempt < Reclaim < Fit, then lower borrowing (preference
  BorrowingOverPreemption, the default), or lower borrowing first (PreemptionOverBorrowing). The search stops at a flavor unless it is NoFit or
  NoCandidates, or needs preemption and `whenCanPreempt` is TryNextFlavor, or borrows and
  `whenCanBorrow` is TryNextFlavor; else the best flavor seen (the first of equals) is taken.
  NoCandidates / Preempt / Reclaim flavors are assigned in Preempt mode, and the assignment's
  mode is the worst of its flavors (NoFit when a pod set got none).
- Reasons of every flavor tried are kept, sorted and joined with ", " as in `Status.Message`.
- Partial admission (`PodSetReducer.Search`): when the full counts don't fit and some pod set
  has `min_count < count`, binary-search the smallest `k` in `[0, Σ deltas]` for which the
  counts `count_i - floor(delta_i * k / Σ deltas)` fit, where `delta_i = count_i - min_count_i`.
  Like `sort.Search`, this assumes fitting is monotone in `k`; the message of a workload that
  doesn't fit at any `k` is the one of its full counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kadmit.index import resolve_level
from kadmit.model import ClusterQueue, PodSet, ResourceFlavor, Topology, Workload
from kadmit.quantity import format_quantity
from kadmit.reference.quota import FR, QuotaTree

_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


# Granular flavor modes (flavorassigner.preemptionMode), in Kueue's order of preference.
NO_FIT, NO_CANDIDATES, PREEMPT_MODE, RECLAIM_MODE, FIT = range(5)
_FROM_ORACLE = {"NoCandidates": NO_CANDIDATES, "Preempt": PREEMPT_MODE, "Reclaim": RECLAIM_MODE}

# Oracle: (flavor-resource, quantity) -> ("NoCandidates" | "Preempt" | "Reclaim", borrowing height)
Oracle = Callable[[FR, int], tuple[str, int]]


@dataclass
class PodSetAssignment:
    name: str
    count: int
    flavors: dict[str, str] = field(default_factory=dict)  # resource -> flavor
    reasons: list[str] = field(default_factory=list)  # non-empty iff the pod set doesn't fit
    preempt: set[str] = field(default_factory=set)  # resources whose flavor is in Preempt mode


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment]
    usage: dict[FR, int]
    borrowing: int  # height of the lowest subtree that fits the usage; 0 without borrowing
    fits: bool

    @property
    def mode(self) -> str:
        """Kueue's representative mode: Fit, Preempt (every pod set has flavors, some need
        preemption) or NoFit."""
        if self.fits:
            return "Fit"
        if all(ps.flavors or not ps.reasons for ps in self.pod_sets) and any(ps.preempt for ps in self.pod_sets):
            return "Preempt"
        return "NoFit"

    @property
    def needs_preemption(self) -> frozenset[FR]:
        """The flavor-resources assigned in Preempt mode."""
        return frozenset((ps.flavors[r], r) for ps in self.pod_sets for r in ps.preempt)

    def message(self) -> str:
        """Kueue's `Assignment.Message`: one clause per pod set that didn't fit."""
        return "; ".join(
            f"couldn't assign flavors to pod set {ps.name}: {', '.join(sorted(ps.reasons))}"
            for ps in self.pod_sets if ps.reasons)


def taint_text(taint) -> str:
    """A taint as Go prints a `corev1.Taint` value with `%s`."""
    return f"{{{taint.key} {taint.value} {taint.effect} <nil>}}"


def flavor_mismatch(ps: PodSet, flavor: ResourceFlavor, topologies: dict[str, Topology],
                    tas_implied: bool = False) -> str | None:
    """Why the flavor can't serve this pod set regardless of quota, or None. Topology first, as
    Kueue's `checkPodSetAndFlavorMatchForTAS`: a pod set with any topology request needs a flavor
    with a topology (and the level); one without may use a topology flavor only when its queue's
    flavors all have one (`tas_implied`)."""
    if ps.topology is not None:
        topo = topologies.get(flavor.topology) if flavor.topology else None
        if not flavor.topology:
            return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
        if topo is None:
            return f'Flavor "{flavor.name}" information missing in TAS cache'
        if ps.topology.level is not None and resolve_level(topo, ps.topology.level) is None:
            return f'Flavor "{flavor.name}" does not contain the requested level'
    elif flavor.topology and not tas_implied:
        return f'Flavor "{flavor.name}" supports only TopologyAwareScheduling'
    tolerations = ps.tolerations + flavor.tolerations
    for taint in flavor.node_taints:
        if taint.effect in _BLOCKING_EFFECTS and not any(t.tolerates(taint) for t in tolerations):
            return f"untolerated taint {taint_text(taint)} in flavor {flavor.name}"
    labels = flavor.node_labels
    if not all(labels.get(k) == v for k, v in ps.node_selector.items() if k in labels):
        return f"flavor {flavor.name} doesn't match node affinity"
    terms = []
    for term in ps.node_affinity:
        exprs = [r for r in term.match_expressions if r.key in labels]
        if not exprs:  # a term left empty matches every flavor, so affinity drops out
            terms = []
            break
        terms.append(exprs)
    if terms and not any(all(r.matches(labels) for r in exprs) for exprs in terms):
        return f"flavor {flavor.name} doesn't match node affinity"
    return None


class FlavorAssigner:
    """Assigns flavors to one workload's pod sets in one cluster queue, against a quota tree."""

    def __init__(self, tree: QuotaTree, cq: ClusterQueue, flavors: dict[str, ResourceFlavor],
                 topologies: dict[str, Topology], oracle: Oracle | None = None, fair_sharing: bool = False,
                 pinned: dict[str, dict[str, str]] | None = None) -> None:
        self.tree = tree
        self.cq = cq
        names = [fq.flavor for g in cq.resource_groups for fq in g.flavors]
        self.tas_only = bool(names) and all(n in flavors and flavors[n].topology for n in names)
        self.flavors = flavors
        self.topologies = topologies
        self.oracle = oracle  # None: a flavor that would need preemption is NoFit
        self.fair_sharing = fair_sharing
        self.pinned = pinned  # pod set -> resource -> flavor (Kueue's NominationMapping)
        self.group_of: dict[str, int] = {}
        for i, rg in enumerate(cq.resource_groups):
            for res in rg.covered_resources:
                self.group_of.setdefault(res, i)

    def assign(self, wl: Workload, counts: list[int] | None = None) -> Assignment:
        if self.oracle is not None:
            return self._assign_with_modes(wl, counts)
        usage: dict[FR, int] = {}
        out: list[PodSetAssignment] = []
        borrowing = 0
        for i, ps in enumerate(wl.pod_sets):
            count = ps.count if counts is None else counts[i]
            requests = {r: q * count for r, q in ps.requests.items()}
            if "pods" in self.group_of:
                requests["pods"] = count * 1000
            psa = PodSetAssignment(ps.name, count)
            out.append(psa)
            for res in sorted(requests):
                if res in psa.flavors:
                    continue
                gi = self.group_of.get(res)
                if gi is None:
                    if requests[res] == 0:
                        continue
                    psa.flavors = {}
                    psa.reasons = [f"resource {res} unavailable in ClusterQueue"]
                    break
                covered = self.cq.resource_groups[gi].covered_resources
                group_requests = {r: q for r, q in requests.items() if r in covered}
                chosen, borrow, reasons = self._find_flavor(ps, gi, group_requests, usage)
                if chosen is None:
                    psa.flavors = {}
                    psa.reasons = reasons
                    break
                psa.flavors.update({r: chosen for r in group_requests})
                borrowing = max(borrowing, borrow)
            if psa.reasons:
                return Assignment(out, usage, borrowing, False)
            for res, flavor in psa.flavors.items():
                fr = (flavor, res)
                usage[fr] = usage.get(fr, 0) + requests[res]
        return Assignment(out, usage, borrowing, True)

    def _find_flavor(self, ps: PodSet, gi: int, requests: dict[str, int],
                     assumed: dict[FR, int]) -> tuple[str | None, int, list[str]]:
        """(flavor, borrowing height, reasons); flavor is None when none fits."""
        reasons: list[str] = []
        best: str | None = None
        best_borrow = 0
        try_next = self.cq.flavor_fungibility.when_can_borrow == "TryNextFlavor"
        for fq in self.cq.resource_groups[gi].flavors:
            name = fq.flavor
            flavor = self.flavors.get(name)
            if flavor is None:
                reasons.append(f"flavor {name} not found")
                continue
            mismatch = flavor_mismatch(ps, flavor, self.topologies, self.tas_only)
            if mismatch is not None:
                reasons.append(mismatch)
                continue
            fits, borrow = True, 0
            for res in sorted(requests):
                fr = (name, res)
                before = assumed.get(fr, 0)
                val = before + requests[res]
                cap = self.tree.potential_available(self.cq.name, fr)
                if val > cap:
                    reasons.append(
                        f"insufficient quota for {res} in flavor {name}, previously considered podsets "
                        f"requests ({format_quantity(before, res)}) + current podset request "
                        f"({format_quantity(requests[res], res)}) > maximum capacity "
                        f"({format_quantity(cap, res)})")
                    fits = False
                    continue
                avail = self.tree.available(self.cq.name, fr)
                if val > avail:
                    reasons.append(f"insufficient unused quota for {res} in flavor {name}, "
                                   f"{format_quantity(val - avail, res)} more needed")
                    fits = False
                    continue
                borrow = max(borrow, self.tree.borrowing_height(self.cq.name, fr, val))
            if not fits:
                continue
            if not try_next or borrow == 0:
                return name, borrow, []
            if best is None or borrow < best_borrow:
                best, best_borrow = name, borrow
        if best is not None:
            return best, best_borrow, []
        return None, 0, reasons


    # --- with preemption: Kueue's flavor modes --------------------------------------------------

    def _assign_with_modes(self, wl: Workload, counts: list[int] | None) -> Assignment:
        usage: dict[FR, int] = {}
        out: list[PodSetAssignment] = []
        borrowing = 0
        worst = FIT
        for i, ps in enumerate(wl.pod_sets):
            count = ps.count if counts is None else counts[i]
            requests = {r: q * count for r, q in ps.requests.items()}
            if "pods" in self.group_of:
                requests["pods"] = count * 1000
            psa = PodSetAssignment(ps.name, count)
            out.append(psa)
            for res in sorted(requests):
                if res in psa.flavors:
                    continue
                gi = self.group_of.get(res)
                if gi is None:
                    if requests[res] == 0:
                        continue
                    psa.flavors, psa.preempt = {}, set()
                    psa.reasons = [f"resource {res} unavailable in ClusterQueue"]
                    break
                covered = self.cq.resource_groups[gi].covered_resources
                group_requests = {r: q for r, q in requests.items() if r in covered}
                chosen, modes, borrow, reasons = self._find_flavor_mode(ps, gi, group_requests, usage)
                if chosen is None:
                    psa.flavors, psa.preempt = {}, set()
                    psa.reasons = reasons
                    break
                psa.flavors.update({r: chosen for r in group_requests})
                psa.preempt.update(r for r, m in modes.items() if m != FIT)
                psa.reasons += reasons
                worst = min([worst] + list(modes.values()))
                borrowing = max(borrowing, borrow)
            if not psa.flavors and psa.reasons:
                return Assignment(out, usage, borrowing, False)
            for res, flavor in psa.flavors.items():
                fr = (flavor, res)
                usage[fr] = usage.get(fr, 0) + requests[res]
        return Assignment(out, usage, borrowing, worst == FIT)

    def _resource_mode(self, name: str, res: str, before: int, request: int) -> tuple[int, int, str | None]:
        """`fitsResourceQuota`: (granular mode, borrowing height, reason or None)."""
        fr = (name, res)
        val = before + request
        cap = self.tree.potential_available(self.cq.name, fr)
        if val > cap:
            return NO_FIT, 0, (
                f"insufficient quota for {res} in flavor {name}, previously considered podsets requests "
                f"({format_quantity(before, res)}) + current podset request ({format_quantity(request, res)}) "
                f"> maximum capacity ({format_quantity(cap, res)})")
        borrow, may_reclaim = self.tree.lowest_subtree_that_fits(self.cq.name, fr, val)
        avail = self.tree.available(self.cq.name, fr)
        if val <= avail:
            return FIT, borrow, None
        reason = f"insufficient unused quota for {res} in flavor {name}, {format_quantity(val - avail, res)} more needed"
        quota = self.tree.queues[self.cq.name].quotas.get(fr)
        nominal = quota.nominal if quota else 0
        policy = self.cq.preemption
        while_borrowing = ((policy.borrow_within_cohort is not None and policy.borrow_within_cohort.policy != "Never")
                           or (self.fair_sharing and policy.reclaim_within_cohort != "Never"))
        if nominal >= val or may_reclaim or while_borrowing:
            possibility, after = self.oracle(fr, val)
            return _FROM_ORACLE[possibility], after, reason
        return NO_FIT, borrow, reason

    def _find_flavor_mode(self, ps: PodSet, gi: int, requests: dict[str, int], assumed: dict[FR, int]
                          ) -> tuple[str | None, dict[str, int], int, list[str]]:
        """`findFlavorForPodSets` with modes: (flavor, resource -> mode, borrowing height, reasons);
        reasons are empty when the chosen flavor fits; flavor is None when none can be used."""
        reasons: list[str] = []
        fung = self.cq.flavor_fungibility
        best: tuple[str, dict[str, int], tuple[int, int]] | None = None
        for fq in self.cq.resource_groups[gi].flavors:
            name = fq.flavor
            if self.pinned is not None and all(self.pinned.get(ps.name, {}).get(r) != name for r in requests):
                reasons.append(f"skipping flavor {name} as it is not found in the nomination mapping "
                               f"for resource {min(requests)}")
                continue
            flavor = self.flavors.get(name)
            if flavor is None:
                reasons.append(f"flavor {name} not found")
                continue
            mismatch = flavor_mismatch(ps, flavor, self.topologies, self.tas_only)
            if mismatch is not None:
                reasons.append(mismatch)
                continue
            rep = (FIT, 0)
            modes: dict[str, int] = {}
            for res in sorted(requests):
                mode, borrow, reason = self._resource_mode(name, res, assumed.get((name, res), 0), requests[res])
                if reason is not None:
                    reasons.append(reason)
                if _preferred(rep, (mode, borrow), fung.preference):  # the worst resource represents
                    rep = (mode, borrow)
                if rep[0] != NO_FIT:  # once NoFit, the other resources only add their reasons
                    modes[res] = mode
            if rep[0] == NO_FIT:
                continue
            if not _try_next(rep, fung.when_can_preempt, fung.when_can_borrow):
                best = (name, modes, rep)
                break
            if best is None or _preferred(rep, best[2], fung.preference):
                best = (name, modes, rep)
        if best is None:
            return None, {}, 0, reasons
        name, modes, (mode, borrow) = best
        return name, modes, borrow, ([] if mode == FIT else reasons)


def _preferred(a: tuple[int, int], b: tuple[int, int], preference: str = "BorrowingOverPreemption") -> bool:
    """`isPreferred`: NoFit never, anything over NoFit, a flavor with candidates over one
    without; then BorrowingOverPreemption: the better mode, then the lower borrowing height;
    PreemptionOverBorrowing: the lower borrowing height, then the better mode."""
    if a[0] == NO_FIT:
        return False
    if b[0] == NO_FIT:
        return True
    if (a[0] == NO_CANDIDATES) != (b[0] == NO_CANDIDATES):
        return a[0] != NO_CANDIDATES
    if preference == "PreemptionOverBorrowing":
        return a[1] < b[1] if a[1] != b[1] else a[0] > b[0]
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1]



def _try_next(rep: tuple[int, int], when_can_preempt: str, when_can_borrow: str) -> bool:
    """`shouldTryNextFlavor`."""
    if rep[0] in (NO_FIT, NO_CANDIDATES):
        return True
    if rep[0] in (PREEMPT_MODE, RECLAIM_MODE) and when_can_preempt == "TryNextFlavor":
        return True
    return rep[1] > 0 and when_can_borrow == "TryNextFlavor"


def partial_counts(wl: Workload) -> tuple[list[int], list[int]] | None:
    """(full counts, deltas) when some pod set may shrink, else None."""
    full = [ps.count for ps in wl.pod_sets]
    deltas = [ps.count - (ps.min_count if ps.min_count is not None else ps.count) for ps in wl.pod_sets]
    if sum(d for d in deltas if d > 0) <= 0 or any(d < 0 for d in deltas):
        return None
    return full, deltas


def reduce_counts(assigner: FlavorAssigner, wl: Workload) -> Assignment | None:
    """Kueue's `PodSetReducer.Search`: the assignment at the largest counts found, or None."""
    found = search_counts(assigner, wl, lambda a: (a.fits, None))
    return None if found is None else found[0]


def search_counts(assigner: FlavorAssigner, wl: Workload, accept) -> tuple[Assignment, object] | None:
    """`PodSetReducer.Search` with the scheduler's acceptance test: `accept(assignment)` gives
    (accepted, payload); the result is the assignment at the largest counts accepted, with its
    payload (the preemption targets, when the scheduler accepts Preempt with targets)."""
    shape = partial_counts(wl)
    if shape is None:
        return None
    full, deltas = shape
    total = sum(deltas)
    found: tuple[Assignment, object] | None = None
    lo, hi = 0, total + 1  # sort.Search over [0, total]
    while lo < hi:
        mid = (lo + hi) // 2
        counts = [c - d * mid // total for c, d in zip(full, deltas)]
        a = assigner.assign(wl, counts)
        ok, payload = accept(a)
        if ok:
            found, hi = (a, payload), mid
        else:
            lo = mid + 1
    return found
