"""Topology-aware placement inside admission: the node capacity a run hands out, pod set by pod set.

Kueue's topology-aware scheduling (TAS) makes placement part of admission for pod sets whose flavor
names a topology: once the flavors are chosen by quota, each such pod set is placed on nodes of its
flavor, in order, each seeing the capacity the earlier ones took; if one doesn't fit, the flavor
assignment fails with Kueue's message (`topology "T" allows to fit only F out of N pod(s)`) and the
workload waits, or partial admission tries fewer pods. A pod set without a topology request is
placed too when every flavor of its cluster queue has a topology (Kueue's implicit default:
`unconstrained` at the lowest level).

`NodePool` is the run's node state: free capacity per node (allocatable, minus bound pods, minus
admitted workloads' placements), and what holds it. Placements committed in the run take capacity,
so no node's capacity goes to two workloads. The algorithm per pod set is Kueue's
(`kadmit.placement.tas.kueue_assign`, profile `Mixed` by default: BestFit for `required` and
`preferred`, LeastFreeCapacity for `unconstrained`, as Kueue since v0.15), so decisions match what
Kueue would do on the same state.

Pod sets on flavors without a topology are not placed here: Kueue admits them on quota and
kube-scheduler places their pods later (see `kadmit.placement.filters` for its view).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kadmit.engine.compile.problem import tas_only
from kadmit.featuregates import enabled
from kadmit.index import ModelIndex
from kadmit.model import ClusterQueue, Model, Node, PodSet, TopologyRequest, Workload
from collections import OrderedDict

from kadmit.placement.counts import FreeLog, ShapeCounts, shape_key
from kadmit.placement.domains import DomainTree, build_domains, free_fit_count
from kadmit.placement.exclusions import exclusion_stats
from kadmit.placement.filters import PodTemplate, histogram, static_fit
from kadmit.placement.inventory import (PODS, Inventory, NodeState, add, admitted_pod_requests, model_inventory, pod_usage,
                                       subtract)
from kadmit.placement.slices import merged, previous_leaves, refused_topology, truncated
from kadmit.placement.tas import Profile, TASResult, kueue_assign
from kadmit.placement.tas_group import kueue_assign_group

UNCONSTRAINED = TopologyRequest(mode="unconstrained")
MAX_SHAPES = 64  # pod shapes whose counts are kept up to date (least recently used go first)


@dataclass(frozen=True)
class TASRequest:
    """What one pod set asks of topology-aware placement, once its flavors are known."""

    pod_set: str
    flavor: str  # the pod set's flavor that names the topology
    topology: str
    request: TopologyRequest  # the effective request (`unconstrained` when implicit)
    implicit: bool  # no request of its own: Kueue's implicit default for TAS-only queues
    template: PodTemplate
    count: int
    group: str | None = None  # Kueue's podSetGroupName: placed together with the group's other pod set
    # one pod's requests as quota counts them (after a Configuration's transformations, DRA devices),
    # those on topology-aware flavors: what Kueue's `fits` check counts on the nodes
    # (Assignment.ComputeTASNetUsage); None: the template's
    quota: tuple[tuple[str, int], ...] | None = None
    # a workload slice's, with ElasticJobsViaWorkloadSlicesWithTAS on: its old slice's assignment of the pod set
    # (Kueue's domain ID -> pods, in the assignment's order), kept as it is and added to (`placement.slices`)
    previous: tuple[tuple[str, int], ...] | None = None


@dataclass
class PodSetPlacement:
    request: TASRequest
    nodes: dict[str, int]  # leaf key -> pods, sorted: a node, or a rack leaf (`DomainTree.leaf_key`)
    level: str | None  # level key at which the pod set fit in one domain (or spread at)
    domains: tuple[str, ...]  # paths of the domains chosen at that level
    kueue: dict[str, int] | None = None  # Kueue's assignment: lowest-level value -> pods
    # the pods per domain as Kueue's written assignment lists them (its domains sorted by their level values,
    # buildAssignment, mergeTopologyAssignments): a count below 1 there is a write the API server refuses
    written: tuple[int, ...] = ()

    @property
    def assignment(self) -> dict[str, int]:
        """Pods per value of the topology's lowest level, as Kueue's topologyAssignment gives them:
        a node's `kubernetes.io/hostname` label value, or a rack's."""
        return dict(self.nodes) if self.kueue is None else dict(self.kueue)

    @property
    def unplaced(self) -> str:
        """Why Kueue admits the pod set with fewer pods in its topology assignment than its count, "" where it
        holds them all: whole slices only, or (TASBalancedPlacement and slice layers) a domain given more groups
        than its children hold (placement.balanced)."""
        count, size = self.request.count, self.request.request.slice_size
        if not 0 <= sum(self.nodes.values()) < count:
            return ""
        return (f"whole slices of {size} pods only" if size and (size < 0 or count % size) else
                "a domain of the placement held fewer pods than it was given, and Kueue's descent placed none there")


@dataclass
class PlacementFailure:
    """The first pod set that didn't fit, with Kueue's message and what it saw."""

    request: TASRequest
    message: str  # e.g. topology "dc" allows to fit only 7 out of 8 pod(s)
    before: dict[str, dict[str, int]] = field(default_factory=dict)  # earlier pod sets' nodes
    requests: list[TASRequest] = field(default_factory=list)  # every pod set placed, in order
    # a pod-set group placed as one: its pod sets, `request` the workers (Kueue names one of the
    # two, whichever its map gives first: FailureInfo.PodSetName; the counts are the workers')
    members: tuple[TASRequest, ...] = ()
    excluded: str = ""  # Kueue's counts of the leaves holding no pod, ending its message (`exclusion_stats`)

    @property
    def pod_set(self) -> str:
        return self.request.pod_set

    @property
    def group(self) -> str | None:
        """For a pod-set group: `group g: leader placed with workers (3 pods) as one`; else None."""
        if len(self.members) < 2:
            return None
        leader = next(m for m in self.members if m is not self.request)
        return (f"group {self.request.group}: {leader.pod_set} placed with {self.request.pod_set} as one "
                f"(Kueue's pod-set group: the leader and {self.request.count} workers in one assignment)")


@dataclass
class WorkloadPlacement:
    pod_sets: list[PodSetPlacement] = field(default_factory=list)
    failure: PlacementFailure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def nodes(self) -> dict[str, dict[str, int]]:
        """pod set -> node -> pods."""
        return {p.request.pod_set: dict(p.nodes) for p in self.pod_sets}


class NodePool:
    """Free node capacity for a run, and the topology trees of the TAS flavors."""

    def __init__(self, model: Model, index: ModelIndex, profile: Profile = "Mixed") -> None:
        self.index = index
        # Kueue's Mixed profile is its feature gate TASProfileMixed's (on by default): off, BestFit for every pod set
        self.profile: Profile = "BestFit" if profile == "Mixed" and not enabled(model.config, "TASProfileMixed") \
            else profile
        self.balanced = enabled(model.config, "TASBalancedPlacement")  # placement.balanced
        # ElasticJobsViaWorkloadSlicesWithTAS: a required or preferred topology is refused (`requests`), and the
        # slice being nominated keeps its old slice's pods (`previous`: workload -> pod set -> assignment, set by
        # engine.admission.slices.pinned)
        self.elastic = enabled(model.config, "ElasticJobsViaWorkloadSlicesWithTAS")
        self.previous: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {}
        self.inventory: Inventory = model_inventory(model, skip_tas_pods=True)  # pods of TAS workloads count via their placements
        self.free: dict[str, dict[str, int]] = FreeLog({n.name: n.free for n in self.inventory.nodes})
        self.holders: dict[str, set[str]] = {n.name: set(n.holders) for n in self.inventory.nodes}
        self.placed: dict[str, dict[str, dict[str, int]]] = {}  # workload -> leaf key -> usage it took
        self._trees: dict[str, DomainTree | None] = {}
        self._static: dict[tuple, list[NodeState]] = {}
        self._counts: OrderedDict[tuple, ShapeCounts] = OrderedDict()  # (flavor, pod shape) -> counts
        for wl in sorted(model.workloads, key=lambda w: w.key):  # admitted workloads' known placements
            if wl.admitted and wl.admission is not None and wl.key not in self.placed:
                self._take(wl.key, self.admitted_usage(wl))

    def admitted_usage(self, wl: Workload) -> dict[str, dict[str, int]]:
        """What an admitted workload's topology assignments take, by leaf key, as Kueue v0.17's TAS
        cache counts them (tas_flavor.go updateUsage, tas_flavor_snapshot.go addTASUsage): each
        assignment's domain (Kueue's ID, its values joined by commas) on the leaf of that ID in the
        tree of each topology-aware flavor of the pod set, and nowhere when no leaf has it (a node
        gone, an assignment on other levels). A node is counted once however many of the pod set's
        flavors hold it (kadmit keeps one free capacity per node); a rack leaf is its flavor's own.
        An assignment on the hostname alone whose value no tree's leaf has counts on the node of that
        name, if any: `.kad` names nodes (and its placements are on any flavor); one with no levels
        naming a rack leaf's key (`flavor:values`, as kadmit's own placements do) counts on that leaf."""
        declared = {ps.name: ps for ps in wl.pod_sets}
        taken: dict[str, dict[str, int]] = {}
        for psa in wl.admission.pod_sets if wl.admission is not None else ():
            if not psa.placement or (psa.count <= 0 and psa.tas_pod is None):  # a group's pod set of no pods
                # takes nothing (see `commit`); reclaimable pods off the count take their nodes all the same
                continue
            per_pod = admitted_pod_requests(declared.get(psa.name), psa)  # as Kueue's TAS cache
            keys: dict[str, int] = {}
            found: set[str] = set()
            for fl in sorted(set(psa.flavors.values())):
                tree = self.tree(fl) if fl in self.index.flavors else None
                if tree is None:
                    continue
                for domain, pods in sorted(psa.placement.items()):
                    key = tree.leaf_by_id.get(domain)
                    if key is None and not psa.placement_levels and domain in tree.leaves:
                        key = domain  # a leaf's own key: a placement kadmit made (`simulate --mode optimal`)
                    if key is not None:
                        keys[key] = pods
                        found.add(domain)
            if not psa.placement_levels:  # the hostname alone: a domain no tree's leaf has may name a node
                for node, pods in sorted(psa.placement.items()):  # (`.kad` places pods on nodes by name)
                    if node not in found and node in self.free and node not in keys:
                        keys[node] = pods
            for key, pods in sorted(keys.items()):
                taken[key] = add(taken.get(key, {}), pod_usage(per_pod, pods))
        return taken

    @property
    def active(self) -> bool:
        """Whether any flavor names a topology that exists (else nothing is ever placed)."""
        return any(f.topology and f.topology in self.index.topologies for f in self.index.flavors.values())

    # --- what to place -----------------------------------------------------------------------------

    def tas_only(self, cq: ClusterQueue) -> bool:
        """Every flavor of the queue names a topology: Kueue then places every pod set with TAS."""
        return tas_only(cq, self.index)

    def requests(self, wl: Workload, cq: ClusterQueue, counts: Mapping[str, int],
                 flavors: Mapping[str, Mapping[str, str]], delayed_only: bool = False) -> list[TASRequest]:
        """The pod sets of `wl` that TAS places, given the chosen flavors, in pod-set order: not those
        on a flavor whose placement Kueue delays for the queue's admission checks (a MultiKueue
        check, a provisioning check on that flavor: `ModelIndex.delayed_tas_flavors`); with
        `delayed_only`, just those (what Kueue's second pass places, the quota already reserved)."""
        out = []
        implicit_ok = self.tas_only(cq)
        delayed = self.index.delayed_tas_flavors(cq)  # placed later, after its admission checks
        for ps in wl.pod_sets:
            names = sorted(set(flavors.get(ps.name, {}).values()))
            fls = [self.index.flavors[n] for n in names if n in self.index.flavors]
            tas = [self.index.flavors[n] for n in self.tas_flavors(flavors.get(ps.name, {}))]
            grouped = ps.topology is not None and ps.topology.group is not None
            if not tas or (tas[0].name in delayed) != delayed_only:
                continue  # Kueue asks for a pod set of no pods too (podSetTopologyRequest): a group's placement
                # counts it, and a lone one's assignment has no slices, a write refused (`refused_write`)
            if len(tas) > 1:  # unplaced (`tas_flavors`)
                continue
            explicit = ps.topology is not None
            if not explicit and not implicit_ok:
                continue
            if explicit and refused_topology(self.elastic, ps) is not None:
                continue  # Kueue errs the pod set (`refused_topology`) after its mode was taken: placed nowhere
            req = ps.topology if explicit else UNCONSTRAINED
            on = flavors.get(ps.name, {})  # Kueue's fits check counts the resources on topology-aware flavors
            quota = tuple(sorted((r, q) for r, q in ps.requests.items()
                                 if r in on and any(f.name == on[r] for f in tas)))
            out.append(TASRequest(ps.name, tas[0].name, tas[0].topology or "", req, not explicit,  # type: ignore[arg-type]
                                  PodTemplate.build(ps, fls), counts[ps.name], req.group, quota,
                                  self.previous.get(wl.key, {}).get(ps.name)))
        return out

    def tas_flavors(self, flavors: Mapping[str, str]) -> list[str]:
        """The topology-aware flavors, by name, among those a pod set was assigned (resource -> flavor).
        Kueue places a pod set on its one TAS flavor; on more than one (resource groups under TAS) its
        onlyTASFlavor errs ("more than one TAS flavor assigned: A, B") after the assignment's mode was
        taken as Fit, so the pod set gets no TAS request: admitted on quota alone, placed nowhere."""
        return [n for n in sorted(set(flavors.values()))
                if n in self.index.flavors and (t := self.index.flavors[n].topology) and t in self.index.topologies]

    def tree(self, flavor: str) -> DomainTree | None:
        """The topology tree of a TAS flavor's nodes: usable nodes carrying the flavor's labels."""
        if flavor not in self._trees:
            fl = self.index.flavors[flavor]
            topo = self.index.topologies.get(fl.topology or "")
            if topo is None:
                self._trees[flavor] = None
            else:
                nodes = [n for n in self.inventory.usable
                         if all(n.labels.get(k) == v for k, v in fl.node_labels.items())]
                self._trees[flavor] = build_domains(topo, nodes, scope=flavor)
        return self._trees[flavor]

    # --- placing -----------------------------------------------------------------------------------

    def place(self, requests: list[TASRequest], free: Mapping[str, Mapping[str, int]] | None = None,
              profile: Profile | None = None) -> WorkloadPlacement:
        """Place the pod sets in order, each seeing what the earlier ones took (Kueue's way).
        `free` overrides the pool's free capacity (for what-ifs); nothing is committed."""
        cur: dict[str, dict[str, int]] = dict(self.free if free is None else free)  # type: ignore[arg-type]
        # nodes whose capacity differs from the pool's: the counts kept per shape are adjusted there only
        changed = {} if free is None else {n: f for n, f in free.items() if f is not self.free.get(n)}
        out = WorkloadPlacement()
        done: set[str] = set()
        for req in requests:
            if req.pod_set in done:
                continue
            members = [r for r in requests if r.group is not None and r.group == req.group and r.flavor == req.flavor]
            tree = self.tree(req.flavor)
            if tree is None:
                out.failure = PlacementFailure(req, f'topology "{req.topology}" not found', out.nodes(),
                                               list(requests), tuple(members))
                return out
            if len(members) >= 2:  # Kueue places a group's first two as one (findLeaderAndWorkers); a group of
                # more panics Kueue's scheduler once they fit, and is an input error here (KAD259)
                workers, leader = members[0], members[1]
                if leader.count > workers.count:
                    workers, leader = leader, workers
            else:
                workers, leader = req, None
            prev = previous_leaves(tree, workers.previous) if workers.previous is not None else None
            count = workers.count
            if prev is not None:  # a workload slice (ElasticJobsViaWorkloadSlicesWithTAS): its old pods stay
                have = sum(n for _, n in prev)
                if count <= have:  # as many pods, or fewer: the old assignment, cut to the count
                    kept = dict(truncated(prev, count))
                    done.update(m.pod_set for m in members[:2] or [req])
                    self._taken(out, cur, changed, tree, workers, self._leaves(tree, kept), kept)
                    continue
                count -= have  # only the new pods are placed, the old ones taking their nodes first
                self._subtract(cur, changed, workers, dict(prev))
            if leader is not None:
                got2 = kueue_assign_group(tree, workers.template, count, workers.request, leader.template,
                                          free=cur, profile=profile or self.profile, balanced=self.balanced)
                if not got2.ok:  # named by the workers, whose count Kueue's message gives
                    out.failure = PlacementFailure(workers, got2.reason or "", out.nodes(), list(requests),
                                                   tuple(members[:2]), _excluded(tree, workers.template, cur, got2.reason))
                    return out
                placed = [(m, got2.leader if m is leader else got2.workers) for m in members[:2]]
            else:
                counts = self._shape_counts(req.flavor, tree, req.template).overlay(changed)
                got = kueue_assign(tree, req.template, count, req.request, free=cur,
                                   profile=profile or self.profile, counts=counts, balanced=self.balanced)
                if not got.ok:
                    out.failure = PlacementFailure(req, got.reason or "", out.nodes(), list(requests),
                                                   excluded=_excluded(tree, req.template, cur, got.reason))
                    return out
                placed = [(req, got)]
            for m, got in placed:
                done.add(m.pod_set)
                if m is workers and prev is not None:  # the delta merged with the old pods (already taken)
                    whole = merged(prev, got.placement.items())
                    self._taken(out, cur, changed, tree, m, TASResult(whole, got.level, got.domains), got.placement)
                else:
                    self._taken(out, cur, changed, tree, m, got, got.placement)
        return out

    @staticmethod
    def _leaves(tree: DomainTree, placement: Mapping[str, int]) -> TASResult:
        """A placement kept from an old slice, at the lowest level, on its leaves."""
        paths = tuple(d.path for key in placement if (d := tree.leaf_of(key)) is not None)
        return TASResult(dict(sorted(placement.items())), tree.levels[-1] if tree.levels else None, paths)

    def _taken(self, out: WorkloadPlacement, cur: dict, changed: dict, tree: DomainTree, m: TASRequest,
               got: TASResult, taking: Mapping[str, int]) -> None:
        """Pod set `m` is placed as `got`; its pods on `taking` take their capacity for the pod sets after it."""
        kueue: dict[str, int] = {}
        for key, pods in got.placement.items():
            value = tree.kueue_value(key)
            kueue[value] = kueue.get(value, 0) + pods
        by_values = sorted(got.placement.items(), key=lambda kn: d.values if (d := tree.leaf_of(kn[0])) else (kn[0],))
        out.pod_sets.append(PodSetPlacement(m, got.placement, got.level, got.domains, dict(sorted(kueue.items())),
                                            tuple(n for _, n in by_values)))
        self._subtract(cur, changed, m, taking)

    @staticmethod
    def _subtract(cur: dict, changed: dict, m: TASRequest, taking: Mapping[str, int]) -> None:
        per_pod = m.template.request_map
        for node, pods in taking.items():  # a node, or a rack leaf's key
            cur[node] = changed[node] = subtract(cur.get(node) or {}, pod_usage(per_pod, pods))

    def still_fits(self, placement: WorkloadPlacement) -> bool:
        """Whether a placement made earlier still fits the pool's free capacity now: Kueue v0.17's
        `TASFlavorSnapshot.Fits` (`over_full`)."""
        return self.over_full(placement) is None

    def over_full(self, placement: WorkloadPlacement) -> tuple[str, str, int, int] | None:
        """The first pod set and lowest-level domain of its topology (the node when the hostname is the
        lowest level) where Kueue v0.17's `TASFlavorSnapshot.Fits` refuses a placement at the pool's free
        capacity now, as (pod set, domain, pods placed there, pods it holds); None where it fits. A domain
        holds what its summed free capacity holds (`pods` aside, as Kueue's single-pod requests leave it
        out), each pod set on its own, its pods' requests as quota counts them (a transformation's output
        no node has fits nowhere, and a negative one, of a factor below 0, nowhere a domain holds 0 or
        more of it: `_count_in`)."""
        for p in placement.pod_sets:
            if p.request.count <= 0:  # a group's pod set of no pods asks for nothing (see `commit`)
                continue
            tree = self.tree(p.request.flavor)
            if tree is None:  # (no domain: "")
                return p.request.pod_set, "", p.request.count, 0
            # Kueue's single-pod requests of the workload: as quota counts them (TASFlavorUsage from
            # Info.TotalRequests), not the pod spec's its placement took
            counted = p.request.quota if p.request.quota is not None else p.request.template.requests
            per_pod = [(r, q) for r, q in counted if r != PODS and q != 0]
            for key, pods in p.nodes.items():
                dom = tree.leaf_of(key)
                if dom is None:
                    return p.request.pod_set, key, pods, 0
                room = tree.leaf_free(dom, self.free)  # a host leaf: its nodes of that hostname summed
                holds = min((_count_in(room, r, q) for r, q in per_pod), default=pods)
                if holds < pods:  # (a negative count, of a negative request, holds none)
                    return p.request.pod_set, key, pods, max(holds, 0)
        return None

    def _shape_counts(self, flavor: str, tree: DomainTree, template: PodTemplate) -> ShapeCounts:
        """Pods of the template per node and domain of the flavor's tree, at the pool's free capacity."""
        key = (flavor, shape_key(template))
        got = self._counts.get(key)
        if got is None:
            while len(self._counts) >= MAX_SHAPES:
                self._counts.popitem(last=False)
            got = self._counts[key] = ShapeCounts(tree, template)
        else:
            self._counts.move_to_end(key)
        return got.sync(self.free)


    def add_node(self, node: Node, state: NodeState) -> None:
        """A node joins the cluster (a simulation's capacity what-if): free, in its flavors' trees."""
        nodes = tuple(sorted(self.inventory.nodes + (state,), key=lambda n: n.name))
        self.inventory = Inventory(nodes, self.inventory.excluded)
        self.free[node.name] = dict(state.free)
        self.holders[node.name] = set()
        self._trees.clear()
        self._static.clear()
        self._counts.clear()

    def remove_node(self, name: str) -> None:
        """An empty node leaves the cluster (a simulation's autoscaler consolidating it)."""
        self.inventory = Inventory(tuple(n for n in self.inventory.nodes if n.name != name),
                                   {k: v for k, v in self.inventory.excluded.items() if k != name})
        dict.pop(self.free, name, None)
        self.holders.pop(name, None)
        self._trees.clear()
        self._static.clear()
        self._counts.clear()

    def free_without(self, keys) -> dict[str, dict[str, int]]:
        """Free capacity with these workloads' placements released (nothing changes in the pool)."""
        free = dict(self.free)
        for key in keys:
            for node, use in self.placed.get(key, {}).items():
                free[node] = add(free.get(node) or {}, use)
        return free

    def commit(self, key: str, placement: WorkloadPlacement, times: Mapping[str, int] | None = None) -> None:
        """`key` takes the placement's nodes (each pod set's `times` over, when given): each pod its
        requests as quota counts them (`TASRequest.quota`), not the pod spec's the placement was
        found by: Kueue's snapshot adds an assignment's single-pod requests (ComputeTASNetUsage) and
        its cache an admission's resourceUsage over its count (totalRequestsFromAdmission), both
        after the Configuration's transformations and excluded prefixes, so a resource left out of
        quota is not taken from the nodes (tests/oracle/features/tas-excluded-resource-not-counted-on-nodes.yaml)."""
        taken: dict[str, dict[str, int]] = {}
        for p in placement.pod_sets:
            if p.request.count <= 0:  # a group's pod set of no pods: placed as a leader, it takes nothing
                continue  # (Kueue's usage is its requests, 0, over its count: ComputeTASNetUsage)
            per_pod = p.request.template.request_map if p.request.quota is None else dict(p.request.quota)
            k = 1 if times is None else times.get(p.request.pod_set, 0)
            for node, pods in p.nodes.items():
                if k > 0:
                    taken[node] = add(taken.get(node, {}), pod_usage(per_pod, pods * k))
        self._take(key, taken)

    def cycle_usage(self, placement: WorkloadPlacement, flavors: Mapping[str, Mapping[str, str]]) -> dict[str, int]:
        """How many times Kueue v0.17 counts each pod set's pods on the cycle's nodes: once per
        resource of the pod set on a topology-aware flavor (Assignment.ComputeTASNetUsage adds a
        pod set's domains once per such resource, and the snapshot takes each entry while the cycle
        lasts; the cache, from the next cycle on, counts them once)."""
        out = {}
        for p in placement.pod_sets:
            out[p.request.pod_set] = sum(
                1 for f in flavors.get(p.request.pod_set, {}).values()
                if f in self.index.flavors and self.index.flavors[f].topology in self.index.topologies)
        return out

    def _take(self, key: str, taken: dict[str, dict[str, int]]) -> None:
        """`key` takes these nodes (or rack leaves' keys), besides any it holds already (a second pass
        adds its delayed pod sets')."""
        for node, use in taken.items():
            self.free[node] = subtract(self.free.get(node) or {}, use)
            self.holders.setdefault(node, set()).add(key)
        if taken:
            had = self.placed.get(key)
            if had:
                merged = dict(had)
                for node, use in taken.items():
                    merged[node] = add(merged.get(node, {}), use)
                taken = merged
            self.placed[key] = taken

    def release(self, key: str) -> None:
        for node, use in self.placed.pop(key, {}).items():
            self.free[node] = add(self.free.get(node) or {}, use)
            self.holders[node].discard(key)

    def unschedulable(self, wl: Workload, counts: Mapping[str, int], flavors: Mapping[str, Mapping[str, str]],
                      placed: WorkloadPlacement | None) -> list[str]:
        """For pod sets admitted without topology-aware placement (kube-scheduler places them after
        admission): those whose pods can't all fit on the cluster's nodes now, with kube-scheduler's
        histogram. Counted per node (identical pods, so the count is exact for one pod set); nothing is
        taken from the pool, since these pods aren't placed by admission."""
        if not self.inventory.nodes:
            return []
        done = {p.request.pod_set for p in (placed.pod_sets if placed else [])}
        cq = self.index.cluster_queue_of(wl)
        delayed = self.index.delayed_tas_flavors(cq) if cq is not None else set()  # its pods wait for checks
        out = []
        for ps in wl.pod_sets:
            n = counts.get(ps.name, 0)
            if n <= 0 or ps.name in done or delayed & set(flavors.get(ps.name, {}).values()):
                continue
            fls = [self.index.flavors[f] for f in sorted(set(flavors.get(ps.name, {}).values()))
                   if f in self.index.flavors]
            tpl = PodTemplate.build(ps, fls)
            fit = 0
            for node in self._passing(tpl):  # stop as soon as every pod has room
                fit += free_fit_count(tpl, self.free[node.name])
                if fit >= n:
                    break
            if fit < n:
                hist = histogram(tpl, self.inventory.nodes, self.free)
                out.append(f"pod set {ps.name}: quota admits {n} pod(s), but the nodes hold only {fit} now; "
                           f"the rest stay Pending ({hist})")
        return out

    def _passing(self, tpl: PodTemplate) -> list[NodeState]:
        """Nodes that pass the filters that don't depend on capacity, memoized per pod shape."""
        key = (tpl.node_selector, tpl.node_affinity, tpl.tolerations)
        got = self._static.get(key)
        if got is None:
            got = self._static[key] = [n for n in self.inventory.nodes if static_fit(tpl, n)]
        return got

    def state(self, name: str) -> NodeState:
        """A node as it stands now in the run (free capacity after this run's placements)."""
        base = self.inventory.by_name[name]
        return NodeState(base.name, base.labels, base.taints, base.unschedulable, base.ready, base.allocatable,
                         subtract(base.allocatable, self.free[name]), base.node,
                         tuple(sorted(self.holders.get(name, ()))))


def _excluded(tree: DomainTree, template: PodTemplate, free: Mapping[str, Mapping[str, int]], reason: str | None) -> str:
    """Kueue's exclusion counts for a topology's not-fit message (`topology "T" doesn't allow to fit any
    of …`, `… allows to fit only …`: notFitMessage), with the capacity the placement saw; none for its
    other failures (a level the topology lacks, a slice size)."""
    if not reason or not reason.startswith(f'topology "{tree.topology.name}" ') or "fit" not in reason:
        return ""
    return exclusion_stats(tree, template, free)


def pod_set_of(wl: Workload, name: str) -> PodSet:
    return next(ps for ps in wl.pod_sets if ps.name == name)


def _count_in(room: Mapping[str, int], resource: str, request: int) -> int:
    """How many pods of `request` (not 0) of `resource` a domain's free capacity `room` holds, as Kueue
    v0.17's `Requests.CountIn` counts one resource: none where the domain has no such resource, else
    the quotient truncated toward zero (Go's integer division), so a negative request (a transformation
    of factor below 0) fits no pod where the domain holds 0 or more of it."""
    if resource not in room:
        return 0
    have = room[resource]
    whole = abs(have) // abs(request)
    return whole if (have < 0) == (request < 0) else -whole
