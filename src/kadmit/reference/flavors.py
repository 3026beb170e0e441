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
  A request beyond `available` would need preemption, which this reference leaves out, so such
  a flavor is NoFit here (Kueue would call it Preempt).
- Fungibility: with `whenCanBorrow: Borrow` the first flavor that fits is taken even when it
  borrows; with `TryNextFlavor` a flavor that borrows is remembered and the search goes on for
  one that fits without borrowing, falling back to the one that borrows least (the first of
  equals).
- Reasons of every flavor tried are kept, sorted and joined with ", " as in `Status.Message`.
- Partial admission (`PodSetReducer.Search`): when the full counts don't fit and some pod set
  has `min_count < count`, binary-search the smallest `k` in `[0, Σ deltas]` for which the
  counts `count_i - floor(delta_i * k / Σ deltas)` fit, where `delta_i = count_i - min_count_i`.
  Like `sort.Search`, this assumes fitting is monotone in `k`; the message of a workload that
  doesn't fit at any `k` is the one of its full counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.index import resolve_level
from kadmit.model import ClusterQueue, PodSet, ResourceFlavor, Topology, Workload
from kadmit.quantity import format_quantity
from kadmit.reference.quota import FR, QuotaTree

_BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass
class PodSetAssignment:
    name: str
    count: int
    flavors: dict[str, str] = field(default_factory=dict)  # resource -> flavor
    reasons: list[str] = field(default_factory=list)  # non-empty iff the pod set doesn't fit


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment]
    usage: dict[FR, int]
    borrowing: int  # height of the lowest subtree that fits the usage; 0 without borrowing
    fits: bool

    def message(self) -> str:
        """Kueue's `Assignment.Message`: one clause per pod set that didn't fit."""
        return "; ".join(
            f"couldn't assign flavors to pod set {ps.name}: {', '.join(sorted(ps.reasons))}"
            for ps in self.pod_sets if ps.reasons)


def taint_text(taint) -> str:
    """A taint as Go prints a `corev1.Taint` value with `%s`."""
    return f"{{{taint.key} {taint.value} {taint.effect} <nil>}}"


def flavor_mismatch(ps: PodSet, flavor: ResourceFlavor, topologies: dict[str, Topology]) -> str | None:
    """Why the flavor can't serve this pod set regardless of quota, or None."""
    if ps.topology is not None:
        topo = topologies.get(flavor.topology) if flavor.topology else None
        if topo is None:
            return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
        if ps.topology.level is not None and resolve_level(topo, ps.topology.level) is None:
            return f'Flavor "{flavor.name}" does not contain the requested level'
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
                 topologies: dict[str, Topology]) -> None:
        self.tree = tree
        self.cq = cq
        self.flavors = flavors
        self.topologies = topologies
        self.group_of: dict[str, int] = {}
        for i, rg in enumerate(cq.resource_groups):
            for res in rg.covered_resources:
                self.group_of.setdefault(res, i)

    def assign(self, wl: Workload, counts: list[int] | None = None) -> Assignment:
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
            mismatch = flavor_mismatch(ps, flavor, self.topologies)
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


def partial_counts(wl: Workload) -> tuple[list[int], list[int]] | None:
    """(full counts, deltas) when some pod set may shrink, else None."""
    full = [ps.count for ps in wl.pod_sets]
    deltas = [ps.count - (ps.min_count if ps.min_count is not None else ps.count) for ps in wl.pod_sets]
    if sum(d for d in deltas if d > 0) <= 0 or any(d < 0 for d in deltas):
        return None
    return full, deltas


def reduce_counts(assigner: FlavorAssigner, wl: Workload) -> Assignment | None:
    """Kueue's `PodSetReducer.Search`: the assignment at the largest counts found, or None."""
    shape = partial_counts(wl)
    if shape is None:
        return None
    full, deltas = shape
    total = sum(deltas)
    found: Assignment | None = None
    lo, hi = 0, total + 1  # sort.Search over [0, total]
    while lo < hi:
        mid = (lo + hi) // 2
        counts = [c - d * mid // total for c, d in zip(full, deltas)]
        a = assigner.assign(wl, counts)
        if a.fits:
            found, hi = a, mid
        else:
            lo = mid + 1
    return found
