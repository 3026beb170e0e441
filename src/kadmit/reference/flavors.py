"""Kueue's flavor assignment for one workload in one ClusterQueue, and partial admission: a
replay of `pkg/scheduler/flavorassigner/flavorassigner.go` (FlavorFungibility and
PartialAdmission on, as by default) and `podset_reducer.go`.

- `assign_flavors`: pod sets in order, each seeing the usage assigned to the earlier ones
  ("previously considered podsets requests"); within a pod set, resources in name order, the
  first resource of a resource group choosing the flavor of every resource the group covers. A
  requested resource no group covers fails the pod set ("resource X unavailable in
  ClusterQueue"). The first pod set without flavors ends the assignment; its message names it.
  The pod sets of one group (`podSetGroupName`) are taken together, at the place of the first of
  them (`groupedRequests.InOrder`): one search for their summed requests, each of them suiting the
  flavor; every member gets the group's status (its reasons, so the message names each member)
  and the flavors of the resources it requests itself.
- `find_flavor_for_pod_set`: the group's flavors in order. `check_flavor_for_pod_set` skips a
  flavor whose topology doesn't suit the pod set (`checkPodSetAndFlavorMatchForTAS`), one with
  an untolerated NoSchedule / NoExecute taint (the pod set's tolerations plus the flavor's), or
  one whose labels fail the pod set's nodeSelector / required node affinity restricted to the
  flavor's own label keys (`flavorSelector`). Then every covered resource gets a mode from
  `fits_resource_quota` (NoFit beyond maximum capacity, Fit within available; otherwise, with a
  preemption oracle and when the request is within nominal, or the queue may reclaim inside a
  sub-tree, or may preempt while borrowing, the oracle's NoCandidates / Preempt / Reclaim with
  its borrowing height; else NoFit). The flavor's representative mode is its worst resource's
  (`is_preferred`); the search stops at a flavor unless `should_try_next_flavor`, else the best
  flavor seen is taken (the first of equals).
- Without an oracle (the replay with preemption off) a request beyond available is NoFit.
- Where the search starts (`LastTriedFlavorIdx`, `AssignmentClusterQueueState`): each pod set that
  got flavors records, per resource, the index of the last flavor its group's search tried, -1
  when that was the group's last flavor; a pod set that failed records nothing. `start` (a
  previous try's record) makes each search begin after the recorded flavor
  (`NextFlavorToTryForPodSetResource`); `Assignment.pending_flavors` is `PendingFlavors`.
- The assignment's message is Kueue's: per pod set that didn't fit, every reason of every
  flavor tried, sorted, joined with ", ".
- Partial admission (`PodSetReducer.Search`): when the full counts don't do and some pod set
  has `min_count < count`, binary search over `k` in `[0, Σ deltas]` with counts
  `count_i - floor(delta_i · k / Σ deltas)` (`delta_i = count_i - min_count_i`), assuming, as
  `sort.Search` does, that being accepted is monotone in `k`.
"""

from __future__ import annotations

from collections.abc import Callable

from kadmit.index import resolve_level
from kadmit.model import ClusterQueue, PodSet, ResourceFlavor, Topology, Workload
from kadmit.quantity import format_quantity
from kadmit.reference.quota import FR, QuotaTree, find_height_of_lowest_subtree_that_fits

# preemptionMode, worst to best.
NO_FIT, NO_PREEMPTION_CANDIDATES, PREEMPT, RECLAIM, FIT = 0, 1, 2, 3, 4
FROM_POSSIBILITY = {"NoCandidates": NO_PREEMPTION_CANDIDATES, "Preempt": PREEMPT, "Reclaim": RECLAIM}

# The preemption oracle: (flavor-resource, quantity) -> (possibility, borrowing height after).
Oracle = Callable[[FR, int], tuple[str, int]]


class PodSetAssignment:
    """One pod set's flavors (resource -> flavor), the resources whose flavor needs preemption,
    and the reasons of the flavors tried (kept when it didn't fit)."""

    def __init__(self, name: str, count: int) -> None:
        self.name = name
        self.count = count
        self.flavors: dict[str, str] = {}
        self.preempt: set[str] = set()
        self.reasons: list[str] = []


class Assignment:
    def __init__(self, pod_sets: list[PodSetAssignment], usage: dict[FR, int], borrowing: int, fits: bool,
                 last_tried: list[dict[str, int]] | None = None) -> None:
        self.pod_sets = pod_sets
        self.usage = usage
        self.borrowing = borrowing  # the largest borrowing height of its flavors; 0 without borrowing
        self.fits = fits
        # LastTriedFlavorIdx: per pod set tried (in order), resource -> the last flavor index tried
        self.last_tried = last_tried if last_tried is not None else []

    @property
    def pending_flavors(self) -> bool:
        """`PendingFlavors`: some search stopped before its group's last flavor."""
        return any(idx != -1 for tried in self.last_tried for idx in tried.values())

    @property
    def mode(self) -> str:
        """`RepresentativeMode`: Fit; Preempt when every pod set got flavors and some need
        preemption; else NoFit."""
        if self.fits:
            return "Fit"
        for psa in self.pod_sets:
            if not psa.flavors and psa.reasons:
                return "NoFit"
        if any(psa.preempt for psa in self.pod_sets):
            return "Preempt"
        return "NoFit"

    @property
    def needs_preemption(self) -> frozenset[FR]:
        """`flavorResourcesNeedPreemption`."""
        out = set()
        for psa in self.pod_sets:
            for resource in psa.preempt:
                out.add((psa.flavors[resource], resource))
        return frozenset(out)

    def message(self) -> str:
        """`Assignment.Message`."""
        clauses = []
        for psa in self.pod_sets:
            if psa.reasons:
                clauses.append("couldn't assign flavors to pod set %s: %s" % (psa.name, ", ".join(sorted(psa.reasons))))
        return "; ".join(clauses)


def taint_text(taint) -> str:
    """A taint as Go prints a `corev1.Taint` with `%s`."""
    return "{%s %s %s <nil>}" % (taint.key, taint.value, taint.effect)


def check_flavor_for_pod_set(ps: PodSet, flavor: ResourceFlavor, topologies: dict[str, Topology],
                             label_keys: frozenset[str], tas_only: bool = False,
                             group_resources: tuple[str, ...] | None = None) -> str | None:
    """`checkFlavorForPodSets` for one pod set: why the flavor can't serve it, or None.
    `label_keys`: the node-label keys of all the flavors of its resource group (`LabelKeys`), the
    keys of the pod set's selector and affinity that `flavorSelector` keeps.
    `group_resources`: the resources the flavor's resource group covers; a pod set asking for a
    topology may take a flavor without one there when its pods request none of them
    (`hasOverlapWithPodRequestedResources` in tas_flavorassigner.go), e.g. a group of `pods` only."""
    name = flavor.name
    if ps.topology is None:
        if flavor.topology and not tas_only:
            return 'Flavor "%s" supports only TopologyAwareScheduling' % name
    elif not flavor.topology:
        overlaps = group_resources is None or len(set(group_resources) & set(ps.placed_requests)) > 0
        if overlaps:
            return 'Flavor "%s" does not support TopologyAwareScheduling' % name
    elif flavor.topology not in topologies:
        return 'Flavor "%s" information missing in TAS cache' % name
    elif ps.topology.level is not None and resolve_level(topologies[flavor.topology], ps.topology.level) is None:
        return 'Flavor "%s" does not contain the requested level' % name
    tolerations = list(ps.tolerations) + list(flavor.tolerations)
    for taint in flavor.node_taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(toleration.tolerates(taint) for toleration in tolerations):
            return "untolerated taint %s in flavor %s" % (taint_text(taint), name)
    labels = flavor.node_labels
    for key, value in ps.node_selector.items():
        if key in label_keys and labels.get(key) != value:
            return "flavor %s doesn't match node affinity" % name
    kept_terms = []
    for term in ps.node_affinity:
        kept = [req for req in term.match_expressions if req.key in label_keys]
        if not kept:  # a term with nothing left matches every flavor: the terms are ORed
            kept_terms = []
            break
        kept_terms.append(kept)
    if kept_terms and not any(all(req.matches(labels) for req in term) for term in kept_terms):
        return "flavor %s doesn't match node affinity" % name
    return None



def is_preferred(a: tuple[int, int], b: tuple[int, int], preference: str) -> bool:
    """`isPreferred` over granular modes (preemption mode, borrowing height), as Kueue v0.17.0 has
    it: NoCandidates ranks below Preempt like any mode, with no preference of its own."""
    if a[0] == NO_FIT:
        return False
    if b[0] == NO_FIT:
        return True
    if preference == "PreemptionOverBorrowing":
        if a[1] != b[1]:
            return a[1] < b[1]
        return a[0] > b[0]
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1]


def should_try_next_flavor(mode: tuple[int, int], when_can_preempt: str, when_can_borrow: str) -> bool:
    """`shouldTryNextFlavor`."""
    if mode[0] == NO_FIT or mode[0] == NO_PREEMPTION_CANDIDATES:
        return True
    if mode[0] in (PREEMPT, RECLAIM) and when_can_preempt == "TryNextFlavor":
        return True
    return mode[1] > 0 and when_can_borrow == "TryNextFlavor"


class FlavorAssigner:
    """Kueue's `FlavorAssigner` for one ClusterQueue, against a quota tree; `oracle` None means a
    flavor that would need preemption doesn't fit; `pinned` is the nomination mapping (pod set
    -> resource -> flavor) of a recomputed assignment."""

    def __init__(self, tree: QuotaTree, cq: ClusterQueue, flavors: dict[str, ResourceFlavor],
                 topologies: dict[str, Topology], oracle: Oracle | None = None, fair_sharing: bool = False,
                 pinned: dict[str, dict[str, str]] | None = None) -> None:
        self.tree = tree
        self.cq = cq
        self.flavors = flavors
        self.topologies = topologies
        self.oracle = oracle
        self.fair_sharing = fair_sharing
        self.pinned = pinned
        names = [fq.flavor for group in cq.resource_groups for fq in group.flavors]
        self.tas_only = len(names) > 0 and all(n in flavors and bool(flavors[n].topology) for n in names)
        self.group_index: dict[str, int] = {}  # RGByResource
        for i, group in enumerate(cq.resource_groups):
            for resource in group.covered_resources:
                if resource not in self.group_index:
                    self.group_index[resource] = i

    def assign(self, wl: Workload, counts: list[int] | None = None,
               start: list[dict[str, int]] | None = None) -> Assignment:
        """`Assign` at the given counts (the declared ones by default), each search starting after
        the flavor `start` (a previous try's `last_tried`) records for it."""
        usage: dict[FR, int] = {}
        done: list[PodSetAssignment] = []
        last_tried: list[dict[str, int]] = []
        borrowing = 0
        all_fit = True
        units: dict[tuple, list[int]] = {}  # groupedRequests: a pod set alone, or a group's pod sets together
        for i, ps in enumerate(wl.pod_sets):
            units.setdefault(("group", ps.flavor_group) if ps.flavor_group else ("pod set", i), []).append(i)
        for unit in units.values():
            members = [wl.pod_sets[i] for i in unit]
            own: list[dict[str, int]] = []  # each member's requests
            for i, ps in zip(unit, members):
                count = ps.count if counts is None else counts[i]
                requests = {resource: per_pod * count for resource, per_pod in ps.requests.items()}
                if "pods" in self.group_index:
                    requests["pods"] = 1000 * count
                own.append(requests)
            requests = {}
            for r in own:
                for resource, q in r.items():
                    requests[resource] = requests.get(resource, 0) + q
            flavors: dict[str, str] = {}
            preempt: set[str] = set()
            reasons: list[str] = []
            tried: dict[str, int] = {}
            failed: list[str] | None = None
            for resource in sorted(requests):
                if resource in flavors:
                    continue
                if resource not in self.group_index:
                    if requests[resource] != 0:
                        failed = ["resource %s unavailable in ClusterQueue" % resource]
                        break
                    continue
                group = self.cq.resource_groups[self.group_index[resource]]
                group_requests = {r: v for r, v in requests.items() if r in group.covered_resources}
                first = 0
                if start is not None and unit[0] < len(start) and resource in start[unit[0]]:
                    first = start[unit[0]][resource] + 1
                flavor, modes, height, said, at = self.find_flavor_for_pod_set(members, group, group_requests, usage,
                                                                               first)
                if flavor is None:
                    failed = said
                    break
                for r in group_requests:
                    flavors[r] = flavor
                    tried[r] = at
                preempt |= {r for r, mode in modes.items() if mode != FIT}
                if said:  # the flavor's representative mode is not Fit: the pod sets' status isn't
                    all_fit = False
                reasons.extend(said)
                borrowing = max(borrowing, height)
            for i, ps, requests in zip(unit, members, own):  # each member: the group's status, its own flavors
                psa = PodSetAssignment(ps.name, ps.count if counts is None else counts[i])
                done.append(psa)
                if failed is not None:
                    psa.reasons = list(failed)  # a pod set without flavors records no index
                    last_tried.append({})
                    continue
                psa.flavors = {r: f for r, f in flavors.items() if r in requests}
                psa.preempt = {r for r in preempt if r in psa.flavors}
                psa.reasons = list(reasons)
                last_tried.append({r: tried[r] for r in psa.flavors})
                for resource, flavor in psa.flavors.items():
                    usage[(flavor, resource)] = usage.get((flavor, resource), 0) + requests[resource]
            if failed is not None:
                return Assignment(done, usage, borrowing, False, last_tried)
        return Assignment(done, usage, borrowing, all_fit, last_tried)

    def find_flavor_for_pod_set(self, members: list[PodSet], group, requests: dict[str, int],
                                assumed: dict[FR, int], first: int = 0):
        """`findFlavorForPodSets` for a pod set, or the pod sets of one group (`members`: each must suit the
        flavor; their summed `requests`), from the resource group's flavor `first` on: (flavor, resource -> mode, the
        highest borrowing height of its resources (maxBorrow: what Assignment.Borrowing counts),
        reasons, the index of the last flavor tried or -1 when that was the group's last), the
        reasons empty when the flavor's representative mode is Fit; the flavor is None when none
        can be used."""
        reasons: list[str] = []
        fungibility = self.cq.flavor_fungibility
        best = None  # (flavor, modes, granular mode, maxBorrow)
        attempted = -1
        for at in range(first, len(group.flavors)):
            attempted = at
            fq = group.flavors[at]
            name = fq.flavor
            if self.pinned is not None and all(self.pinned.get(members[0].name, {}).get(r) != name for r in requests):
                reasons.append("skipping flavor %s as it is not found in the nomination mapping for resource %s"
                               % (name, min(requests)))
                continue
            if name not in self.flavors:
                reasons.append("flavor %s not found" % name)
                continue
            keys = frozenset(k for f in group.flavors if f.flavor in self.flavors
                             for k in self.flavors[f.flavor].node_labels)
            mismatch = next((m for m in (check_flavor_for_pod_set(ps, self.flavors[name], self.topologies, keys,
                                                                  self.tas_only, group.covered_resources)
                                         for ps in members) if m is not None), None)
            if mismatch is not None:
                reasons.append(mismatch)
                continue
            representative = (FIT, 0)
            most = 0  # maxBorrow: what the assignment's Borrowing counts
            modes: dict[str, int] = {}
            for resource in sorted(requests):
                fr = (name, resource)
                mode, height, reason = self.fits_resource_quota(fr, assumed.get(fr, 0), requests[resource])
                if reason is not None:
                    reasons.append(reason)
                most = max(most, height)
                if is_preferred(representative, (mode, height), fungibility.preference):
                    representative = (mode, height)
                if representative[0] != NO_FIT:
                    modes[resource] = mode
            if representative[0] == NO_FIT:
                continue
            if not should_try_next_flavor(representative, fungibility.when_can_preempt, fungibility.when_can_borrow):
                best = (name, modes, representative, most)
                break
            if best is None or is_preferred(representative, best[2], fungibility.preference):
                best = (name, modes, representative, most)
        if best is None:
            return None, {}, 0, reasons, -1
        name, modes, (mode, _), most = best
        tried = -1 if attempted == len(group.flavors) - 1 else attempted
        return name, modes, most, [] if mode == FIT else reasons, tried

    def fits_resource_quota(self, fr: FR, assumed: int, request: int) -> tuple[int, int, str | None]:
        """`fitsResourceQuota`: (mode, borrowing height, reason or None)."""
        flavor, resource = fr
        val = assumed + request
        max_capacity = self.tree.potential_available(self.cq.name, fr)
        if val > max_capacity:
            return NO_FIT, 0, (
                "insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current "
                "podset request (%s) > maximum capacity (%s)" % (
                    resource, flavor, format_quantity(assumed, resource), format_quantity(request, resource),
                    format_quantity(max_capacity, resource)))
        height, may_reclaim_in_hierarchy = find_height_of_lowest_subtree_that_fits(self.tree.queues[self.cq.name], fr, val)
        room = self.tree.available(self.cq.name, fr)
        if val <= room:
            return FIT, height, None
        reason = "insufficient unused quota for %s in flavor %s, %s more needed" % (
            resource, flavor, format_quantity(val - room, resource))
        if self.oracle is None:
            return NO_FIT, height, reason
        quota = self.tree.queues[self.cq.name].quotas.get(fr)
        nominal = 0 if quota is None else quota.nominal
        if nominal >= val or may_reclaim_in_hierarchy or self.can_preempt_while_borrowing():
            possibility, after = self.oracle(fr, val)
            return FROM_POSSIBILITY[possibility], after, reason
        return NO_FIT, height, reason

    def can_preempt_while_borrowing(self) -> bool:
        """`canPreemptWhileBorrowing`: borrowWithinCohort set (not Never), or fair sharing with
        reclaimWithinCohort other than Never."""
        policies = self.cq.preemption
        if policies.borrow_within_cohort is not None and policies.borrow_within_cohort.policy != "Never":
            return True
        return self.fair_sharing and policies.reclaim_within_cohort != "Never"


def partial_counts(wl: Workload) -> tuple[list[int], list[int]] | None:
    """(declared counts, deltas) when some pod set may shrink (and none has min above count)."""
    counts = [ps.count for ps in wl.pod_sets]
    deltas = [ps.count - (ps.count if ps.min_count is None else ps.min_count) for ps in wl.pod_sets]
    if any(d < 0 for d in deltas) or sum(deltas) <= 0:
        return None
    return counts, deltas


def search_counts(assigner: FlavorAssigner, wl: Workload, accept,
                  start: list[dict[str, int]] | None = None) -> tuple[Assignment, object] | None:
    """`PodSetReducer.Search` with the scheduler's acceptance test (`accept(assignment)` gives
    (accepted, payload)): the assignment at the largest counts accepted, with its payload; each
    try's searches start where `start` says."""
    shape = partial_counts(wl)
    if shape is None:
        return None
    counts, deltas = shape
    total = sum(deltas)
    best = None
    low, high = 0, total + 1
    while low < high:
        k = (low + high) // 2
        attempt = assigner.assign(wl, [c - d * k // total for c, d in zip(counts, deltas)], start)
        accepted, payload = accept(attempt)
        if accepted:
            best = (attempt, payload)
            high = k
        else:
            low = k + 1
    return best

