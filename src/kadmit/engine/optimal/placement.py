"""Topology-aware placement in `optimal` mode: pooled pod counts per node class in the global model.

For every pending pod set that topology-aware scheduling would place (its flavor names a topology;
it asks for a topology, or its queue's flavors all have one), and every TAS flavor it may get, there
is an option: the pod set placed with that flavor. Options that no constraint tells apart — same
flavor, same pod template (requests, selectors, affinity, tolerations), same topology request and a
fixed pod count `k` — form one pool (`Group`): which of them goes where doesn't matter to any rule,
so the model counts them instead of naming them. An option with an elastic count is a pool of one.
Node classes are Kueue's leaves that no pod template tells apart (same flavors, topology domain,
labels that matter, taints and free capacity; see `kadmit.placement.classes`): a leaf is a node where
the hostname is the topology's lowest level (the nodes sharing one hostname, one leaf of their summed
free capacity), and a rack where a rack is, holding its nodes' summed free capacity less the pods
admitted on it, counted with no node filter, as Kueue places (`DomainTree.leaves`); "node" below
means a leaf. So the encoding grows with pod shapes and node shapes, not with pod sets and nodes:

- `required LEVEL`: per domain d of the level, the members placed in d (`n_d`, summing to the
  members admitted); their pods per class of d sum to `k·n_d` (no variable when d is one class);
  `required host`: the domains are the classes, and each member sits on one node;
- `preferred LEVEL`: the same for the members kept in one domain, and a count of members spread
  anywhere with their pods per class; the number kept in one domain is an objective stage;
- unconstrained: pods per class, summing to the pods of the admitted members;
- per class: `used` nodes (at most its size), and for every resource that bounds it the pods' requests
  at most `used x` a node's free capacity — so the class holds them, and `size - used` nodes stay
  untouched (an objective stage: whole free nodes after the admission stages).

A pod-set group (Kueue's podSetGroupName: a leader and its workers) is placed as Kueue places it:
each of its two pod sets a pool of its own, the leader with the workers' topology request, node
selector and tolerations (Kueue's findLeaderAndWorkers: the pod set with more pods is the workers,
the first on a tie), and the two kept in the same domain or both spread; the quota model gives the
group one flavor (`model`); decoding puts a host-level group's leader on its workers' node. A leader
of no pods gets no room (Kueue counts one pod for it: KAD526).

Summed capacity is exact for one template (`size x fit`) but only a bound when pods of different
shapes share a class, so every solution is decoded onto nodes (`packing`) and a class that can't
hold what it was given gets a cut — "not all of these pools get at least these pods here" — and the
model is solved again (logic-based Benders). The cut is sound: if some counts don't fit on the
class's nodes, larger ones don't either.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Mapping

from kadmit.engine.solver import terms as T
from kadmit.engine.compile.problem import Problem
from kadmit.engine.placing.pool import UNCONSTRAINED, NodePool, TASRequest
from kadmit.index import HOSTNAME_LABEL, ModelIndex, resolve_level
from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit.identity import about
from kadmit.engine.optimal.codes import KAD525, KAD526, KAD527
from kadmit.featuregates import DEFAULT_ON, enabled
from kadmit.model import Model, ResourceFlavor, Topology
from kadmit.modelscheduling import NODE_NAME_FIELD
from kadmit.placement.classes import domain_levels, relevant_label_keys
from kadmit.placement.domains import free_fit_count, node_fit_count
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import NodeState, subtract

# Kueue's gates only ordered mode's engine reads (flavor_assignment, preemption.candidates and fair_sharing,
# admission.ordered, requeue and equivalence; TASBalancedPlacement: placement.balanced, which its global placement
# model does not follow): optimal mode decides as under their defaults (KAD527)
ORDERED_ONLY_GATES = ("FairSharingPreemptWithinNominal", "FairSharingPrioritizeNonBorrowing", "FlavorFungibility",
                      "MultiKueueOrchestratedPreemption", "PrioritySortingWithinCohort",
                      "SchedulerTimestampPreemptionBuffer", "SchedulingEquivalenceHashing", "TASBalancedPlacement")
MAX_ROUNDS = 25  # solve / decode / cut rounds before placements are repaired by dropping workloads

Dom = tuple[str, ...]


@dataclass(eq=False)
class Cls:
    """A class of Kueue's leaves in the global model: leaves no pod template tells apart."""

    name: str
    nodes: tuple[str, ...]  # the leaves' placement keys (`DomainTree.leaf_key`): nodes, or racks
    flavors: tuple[str, ...]  # TAS flavors whose leaves these are
    paths: dict[str, tuple[str, ...]]  # flavor -> level values of the flavor's topology (host excluded)
    rep: NodeState  # the first leaf, with its free capacity (a rack's: its nodes' summed)
    filtered: bool = True  # a host leaf, filtered by its (first) node; a rack leaf is not (Kueue's fillInCounts)

    @property
    def size(self) -> int:
        return len(self.nodes)

    def fit(self, template: PodTemplate, free: Mapping[str, int] | None = None) -> int:
        """Pods of `template` one leaf of the class holds (with `free`, on that capacity)."""
        if self.filtered:
            return node_fit_count(template, self.rep, free)
        return free_fit_count(template, self.rep.free if free is None else free)


@dataclass(eq=False)
class Option:
    """One TAS flavor a pending pod set may take."""

    key: str  # workload key
    request: TASRequest
    chosen: T.Term  # the flavor is chosen and the workload admitted
    count: T.Term  # the pod set's count
    group: "Group | None" = None


@dataclass(eq=False)
class Group:
    """Options placed as one pool (see the module docstring); `k` is None for a pool of one
    option with an elastic count."""

    name: str
    flavor: str
    template: PodTemplate
    mode: str  # "required", "preferred" or "unconstrained"
    level: int | None  # index of the requested level in the flavor's topology
    host: bool  # the level is the hostname: one node per member
    k: int | None
    members: list[Option] = field(default_factory=list)
    fit: dict[str, int] = field(default_factory=dict)  # class -> pods of the template per node
    domain_of: dict[str, Dom] = field(default_factory=dict)  # class -> its domain at the level
    ns: dict[Dom, T.IntVar] = field(default_factory=dict)  # members kept in one domain, per domain
    ys: dict[str, T.Term] = field(default_factory=dict)  # pods of those members per class
    spread: T.IntVar | None = None  # preferred: members not kept in one domain (or all, unconstrained)
    ws: dict[str, T.IntVar] = field(default_factory=dict)  # pods of spread members per class

    def domain(self, c: Cls) -> Dom:
        return (c.name,) if self.host else c.paths[self.flavor][:(self.level or 0) + 1]

    def pods(self, cname: str) -> T.Term:
        return T.add(self.ys.get(cname, 0), self.ws.get(cname, 0))

    def admitted(self) -> T.Term:
        return T.lin(*((1, T.ite(o.chosen, 1, 0)) for o in self.members))


class PlacementModel:
    """The placement part of the global model; `packing` decodes its solutions onto nodes."""

    def __init__(self, pool: NodePool, index: ModelIndex, problems: list[Problem]) -> None:
        self.pool = pool
        self.index = index
        self.options: list[Option] = []
        self.groups: list[Group] = []
        self.hard: list[T.Term] = []
        self.used: dict[str, T.IntVar] = {}  # class -> nodes this solution places pods on
        self.cuts = 0
        # a pod-set group's pools per (workload, group, flavor): kept in the same domain, or both spread
        self.links: dict[tuple[str, str, str], list[Group]] = {}
        self.leaf_free: dict[str, dict[str, int]] = {}  # leaf key -> its free capacity
        if not pool.active:
            self.classes: dict[str, Cls] = {}
            return
        pending = self._pending(problems)
        templates = [tpl for _, _, _, _, tpl, _, _ in pending]
        self.classes = self._classes(relevant_label_keys(templates))
        by_key: dict[tuple, Group] = {}
        for prob, pv, fname, req, tpl, implicit, link in pending:
            self._option(by_key, prob, pv, fname, req, tpl, implicit, link)
        for g in self.groups:
            self._encode(g)
        self._link()
        self._capacity()

    # --- building ----------------------------------------------------------------------------------

    def _tas_flavor(self, name: str) -> tuple[ResourceFlavor, Topology] | None:
        fl = self.index.flavors.get(name)
        if fl is None or not fl.topology or fl.topology not in self.index.topologies:
            return None
        return fl, self.index.topologies[fl.topology]

    def _pending(self, problems: list[Problem]):
        out = []
        for prob in problems:  # pod sets in workload order, so placements list them that way
            cq = prob.cluster_queue
            if cq is None:
                continue
            implicit_ok = self.pool.tas_only(cq)
            leads = _leaders(prob.workload.pod_sets)
            for pv in prob.pod_sets:
                ps = pv.pod_set
                if ps.topology is None and not implicit_ok:
                    continue
                # a leader on its workers' flavor is placed with them, by their request and filters
                workers = leads.get(ps.name)
                wpv = next((w for w in prob.pod_sets if workers is not None and w.pod_set.name == workers.name), None)
                beside = {f for ch in wpv.flavors.values() for f, _ in ch} if wpv is not None else set()
                shaped = ps if workers is None else ps.model_copy(update={
                    "node_selector": workers.node_selector, "node_affinity": workers.node_affinity,
                    "tolerations": workers.tolerations})
                group = ps.topology.group if ps.topology is not None else None
                link = (prob.workload.key, group) if group is not None and _paired(prob.workload.pod_sets, group) else None
                for gi in sorted(pv.flavors):
                    for fname, v in pv.flavors[gi]:
                        tas = self._tas_flavor(fname)
                        if tas is None:
                            continue
                        together = workers is not None and fname in beside
                        req = (workers.topology if together else ps.topology) or UNCONSTRAINED  # type: ignore[union-attr]
                        tpl = PodTemplate.build(shaped if together else ps, [tas[0]])
                        out.append(((prob, v), pv, fname, req, tpl, ps.topology is None, link))
        return out

    def _classes(self, keys) -> dict[str, Cls]:
        """Kueue's leaves in the topology of some TAS flavor, partitioned by what tells them apart: a
        leaf is a node where the hostname is the lowest level (the nodes sharing a hostname: one
        leaf of their summed free capacity, filtered by the first), and a rack (the lowest level's
        domain) holding its nodes' summed free capacity, less its admitted pods, unfiltered."""
        flavors = sorted(n for n in self.index.flavors if self._tas_flavor(n) is not None)
        skip = {HOSTNAME_LABEL}
        for fname in flavors:
            skip.update(domain_levels(self._tas_flavor(fname)[1]))  # type: ignore[index]
        leaves: dict[str, tuple[NodeState, bool]] = {}  # leaf key -> its representative, filtered
        mine: dict[str, list[tuple[str, tuple[str, ...]]]] = {}  # leaf key -> (flavor, path) in flavor order
        for fname in flavors:
            tree = self.pool.tree(fname)
            if tree is None:
                continue
            for key, dom in tree.leaves.items():
                path = dom.values[:-1] if tree.host_lowest else dom.values  # the levels above the hostname
                mine.setdefault(key, []).append((fname, path))
                if key in leaves:
                    continue
                if tree.host_lowest and len(dom.nodes) == 1:  # a node: its state in the run
                    self.leaf_free[key] = self.pool.free[key]
                    leaves[key] = self.pool.state(key), True
                    continue
                free = self.leaf_free[key] = tree.leaf_free(dom, self.pool.free)
                if tree.host_lowest:  # the nodes sharing a hostname: the first, holding their sum
                    node = self.pool.state(dom.nodes[0])
                    leaves[key] = dataclasses.replace(node, used=subtract(node.allocatable, free)), True
                else:
                    leaves[key] = NodeState(key, {}, (), False, True, free, {}), False
        groups: dict[tuple, list[str]] = {}
        for key in sorted(leaves):
            node, filtered = leaves[key]
            labels = tuple(sorted((k, v) for k, v in node.labels.items()
                                  if k in keys and (k == HOSTNAME_LABEL or k not in skip))) if filtered else ()
            taints = tuple((t.key, t.value, t.effect) for t in node.taints)
            free = tuple(sorted((r, q) for r, q in self.leaf_free[key].items() if q))
            if filtered and NODE_NAME_FIELD in keys:  # a term on the node's name tells every node apart
                labels += ((NODE_NAME_FIELD, node.name),)
            on = mine[key]
            groups.setdefault((tuple(f for f, _ in on), tuple(p for _, p in on), labels, taints, free, filtered),
                              []).append(key)
        out: dict[str, Cls] = {}
        for (fls, paths, _, _, _, filtered), members in sorted(groups.items(), key=lambda kv: kv[1][0]):
            first = members[0]
            name = first if len(members) == 1 else f"{first}+{len(members) - 1}"
            out[name] = Cls(name, tuple(members), fls, dict(zip(fls, paths)), leaves[first][0], filtered)
        return out

    def _option(self, by_key: dict[tuple, Group], chosen, pv, fname: str, req, tpl: PodTemplate,
                implicit: bool, link: tuple[str, str] | None = None) -> None:
        prob, v = chosen
        ps = pv.pod_set
        topo = self._tas_flavor(fname)[1]  # type: ignore[index]
        request = TASRequest(ps.name, fname, topo.name, req, implicit, tpl, ps.count)
        opt = Option(prob.workload.key, request, T.and_(prob.admitted, v), pv.count)
        self.options.append(opt)
        level = None
        if req.mode != "unconstrained":
            lk = resolve_level(topo, req.level)
            level = None if lk is None else topo.levels.index(lk)
        mode = req.mode if level is not None else "unconstrained"
        fixed = ps.min_count is None or ps.min_count >= ps.count
        pooled = fixed and link is None  # a group's pod set is a pool of its own, linked to the other's
        shape = (fname, tpl.requests, tpl.node_selector, repr(tpl.node_affinity), repr(tpl.tolerations),
                 mode, level, ps.count)
        g = by_key.get(shape) if pooled else None
        if g is None:
            host = level is not None and topo.levels[level] == HOSTNAME_LABEL
            g = Group(f"g{len(self.groups)}", fname, tpl, mode, level, host, max(ps.count, 0) if fixed else None)
            for c in self.classes.values():
                if fname in c.flavors:
                    k = c.fit(tpl)
                    if k > 0:
                        g.fit[c.name] = k
            self.groups.append(g)
            if pooled:
                by_key[shape] = g
        g.members.append(opt)
        opt.group = g
        if link is not None:
            self.links.setdefault((*link, fname), []).append(g)

    def _link(self) -> None:
        """A pod-set group's two pools: in the same domain of the requested level, or both spread."""
        for key in sorted(self.links):
            pair = self.links[key]
            if len(pair) != 2:
                continue
            a, b = pair
            if a.k == 0 or b.k == 0:
                continue  # a pod set of no pods has no pool to keep beside the other (KAD526)
            for dom in sorted(set(a.ns) | set(b.ns)):
                self.hard.append(T.eq(T.add(a.ns.get(dom, 0), 0), T.add(b.ns.get(dom, 0), 0)))
            if a.spread is not None or b.spread is not None:
                self.hard.append(T.eq(T.add(a.spread if a.spread is not None else 0, 0),
                                      T.add(b.spread if b.spread is not None else 0, 0)))

    def _encode(self, g: Group) -> None:
        """The pool's variables and constraints (see the module docstring)."""
        m = len(g.members)
        k = g.k
        admitted = g.admitted()
        tag = g.name
        if k == 0:
            return

        def hi_pods(cname: str) -> int:
            per_node = g.fit[cname]
            cap = per_node if g.host else per_node * self.classes[cname].size
            most = (k * m) if k is not None else g.members[0].request.count
            return max(0, min(cap, most))

        totals: list[T.Term] = []
        if g.mode in ("required", "preferred"):
            doms: dict[Dom, list[str]] = {}
            for cname in sorted(g.fit):
                g.domain_of[cname] = g.domain(self.classes[cname])
                doms.setdefault(g.domain_of[cname], []).append(cname)
            for dom in sorted(doms):
                names = doms[dom]
                if k is not None:
                    cap = sum(hi_pods(c) for c in names) if not g.host else (
                        self.classes[names[0]].size * (g.fit[names[0]] // k) * k)
                    most = min(m, cap // k)
                else:
                    most = 1
                if most <= 0:
                    continue
                n = g.ns[dom] = T.IntVar(f"n|{tag}|{'/'.join(dom)}", 0, most)
                if k is not None and len(names) == 1:
                    g.ys[names[0]] = T.scale(k, n)
                    continue
                parts = []
                for cname in names:
                    hp = hi_pods(cname)
                    if hp <= 0:
                        continue
                    y = T.IntVar(f"y|{tag}|{cname}", 0, hp)
                    g.ys[cname] = y
                    parts.append(y)
                    if k is None:
                        self.hard.append(T.le(y, T.scale(hp, n)))
                if k is not None:
                    self.hard.append(T.eq(T.add(*parts, 0), T.scale(k, n)))
            totals.append(T.add(*g.ns.values(), 0))
        if g.mode in ("preferred", "unconstrained"):
            g.spread = T.IntVar(f"s|{tag}", 0, m)
            parts = []
            for cname in sorted(g.fit):
                hp = hi_pods(cname) if not g.host else min(g.fit[cname] * self.classes[cname].size,
                                                            (k * m) if k is not None else g.members[0].request.count)
                if hp <= 0:
                    continue
                w = g.ws[cname] = T.IntVar(f"w|{tag}|{cname}", 0, hp)
                parts.append(w)
                if k is None:
                    self.hard.append(T.le(w, T.scale(hp, g.spread)))
            if k is not None:
                self.hard.append(T.eq(T.add(*parts, 0), T.scale(k, g.spread)))
            totals.append(g.spread)
        self.hard.append(T.eq(T.add(*totals, 0), admitted))  # every admitted member somewhere
        if k is None:  # the one member's elastic count, all placed
            opt = g.members[0]
            pods = T.add(*(g.pods(c) for c in sorted(set(g.ys) | set(g.ws))), 0)
            self.hard.append(T.implies(opt.chosen, T.eq(pods, opt.count)))

    def _capacity(self) -> None:
        """Per class: nodes used, and per resource that bounds it the pods' requests within them."""
        users: dict[str, list[Group]] = {}
        for g in self.groups:
            for cname in sorted(set(g.ys) | set(g.ws)):
                users.setdefault(cname, []).append(g)
        for cname in sorted(users):
            c = self.classes[cname]
            gs = users[cname]
            used = self.used[cname] = T.IntVar(f"used|{cname}", 0, c.size)
            free = self.leaf_free[c.nodes[0]]
            resources = sorted(r for r in {r for g in gs for r, q in g.template.requests if q} if free.get(r, 0) > 0)
            rows = {r: [(g.template.request_map.get(r, 0), g) for g in gs] for r in resources}

            def implied(r: str, o: str) -> bool:  # o's bound implies r's (ties: the first name stays)
                return _dominated(rows[r], free[r], rows[o], free[o]) and (
                    not _dominated(rows[o], free[o], rows[r], free[r]) or o < r)
            for r in resources:
                if any(implied(r, o) for o in resources if o != r):
                    continue
                div = math.gcd(free[r], *(q for q, _ in rows[r]))  # small coefficients
                self.hard.append(T.le(T.lin(*((q // div, g.pods(cname)) for q, g in rows[r] if q)),
                                      T.scale(free[r] // div, used)))
            for g in gs:  # the floor of free / request isn't in the sums above
                fit = g.fit[cname]
                if not any(q and fit * q == free.get(r, 0) for r, q in g.template.requests):
                    self.hard.append(T.le(g.pods(cname), T.scale(fit, used)))

    def objective(self) -> T.Term | None:
        """Preferred pod sets kept within one domain of their level (to maximise)."""
        kept = [(1, n) for g in self.groups if g.mode == "preferred" for n in g.ns.values()]
        return T.lin(*kept) if kept else None

    def nodes_used(self) -> T.Term | None:
        """Nodes this solution places pods on (to minimise: the rest stay whole)."""
        return T.add(*self.used.values(), 0) if self.used else None

    # --- hints -------------------------------------------------------------------------------------

    def hint(self, env: dict[str, int], placements: dict[tuple[str, str, str], dict[str, int]]) -> None:
        """Extend a start point with the pooled counts of known placements: (workload key, pod set,
        flavor) -> node -> pods, e.g. the ordered run's."""
        class_of = {n: c for c in self.classes.values() for n in c.nodes}
        kept: dict[int, Dom | None] = {}  # a linked pool's domain in `placements` (None: spread or absent)
        for pair in self.links.values():
            for g in pair:
                opt = g.members[0]
                nodes = placements.get((opt.key, opt.request.pod_set, opt.request.flavor), {})
                doms = {g.domain(class_of[n]) for n, p in nodes.items() if p and n in class_of}
                kept[id(g)] = doms.pop() if len(doms) == 1 and g.mode != "unconstrained" else None
        apart = {id(g) for pair in self.links.values() if len(pair) == 2 and kept.get(id(pair[0])) != kept.get(id(pair[1]))
                 for g in pair}
        for g in self.groups:
            ns = {d: 0 for d in g.ns}
            ys: dict[str, int] = {}
            ws: dict[str, int] = {}
            spread = 0
            for opt in g.members:
                nodes = placements.get((opt.key, opt.request.pod_set, opt.request.flavor), {})
                counts: dict[str, int] = {}
                for node, pods in nodes.items():
                    c = class_of.get(node)
                    if c is not None and pods:
                        counts[c.name] = counts.get(c.name, 0) + pods
                if not counts:
                    continue
                doms = {g.domain(self.classes[c]) for c in counts}
                if g.mode != "unconstrained" and len(doms) == 1 and doms <= set(ns) and id(g) not in apart:
                    ns[doms.pop()] += 1
                    for c, p in counts.items():
                        ys[c] = ys.get(c, 0) + p
                else:
                    spread += 1
                    for c, p in counts.items():
                        ws[c] = ws.get(c, 0) + p
            for d, n in g.ns.items():
                env[n.name] = ns[d]
            for c, y in g.ys.items():
                if isinstance(y, T.IntVar):
                    env[y.name] = ys.get(c, 0)
            if g.spread is not None:
                env[g.spread.name] = spread
            for c, w in g.ws.items():
                env[w.name] = ws.get(c, 0)
        touched: dict[str, set[str]] = {}
        for nodes in placements.values():
            for node, pods in nodes.items():
                c = class_of.get(node)
                if c is not None and pods:
                    touched.setdefault(c.name, set()).add(node)
        for cname, u in self.used.items():
            env[u.name] = len(touched.get(cname, ()))


def _dominated(row: list[tuple[int, Group]], cap: int, other: list[tuple[int, Group]], ocap: int) -> bool:
    """Whether every pool's share of `cap` is at most its share of `ocap` (so the `other` resource's
    bound implies this one's)."""
    if cap <= 0 or ocap <= 0:
        return False
    return all(q * ocap <= oq * cap for (q, _), (oq, _) in zip(row, other))


def unhonoured(model: Model, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` and a warning at each pending pod set's topology request whose slices (KAD525)
    or pod-set group leader of no pods (KAD526) this model ignores, and at each gate of ORDERED_ONLY_GATES
    set away from its default (KAD527), sorted."""
    diags = Diagnostics(list(diagnostics))
    cfg = model.config
    for gate in ORDERED_ONLY_GATES:
        if cfg is not None and enabled(cfg, gate) is not (gate in DEFAULT_ON):
            at = cfg.spans.get("feature_gates") or (model.manager_flags[0].span if model.manager_flags else cfg.span)
            diags.emit(KAD527, f"optimal mode decides as under feature gate {gate}'s default "
                       f"({str(gate in DEFAULT_ON).lower()}), which Kueue's manager here sets to "
                       f"{str(gate not in DEFAULT_ON).lower()}; its answer may differ from Kueue's", at,
                       help="decide in ordered mode (the default), which follows the gate", about=about(cfg))
    for wl in sorted(model.workloads, key=lambda w: w.key):
        if wl.admitted:
            continue
        if wl.replaces and enabled(cfg, "ElasticJobsViaWorkloadSlices"):
            diags.emit(KAD527, f"optimal mode decides Workload `{wl.key}` as a workload of its own beside the admitted "
                       f"slice `{wl.replaces}` it replaces (ElasticJobsViaWorkloadSlices): Kueue admits it in that "
                       "slice's place, on its flavors, for the quota beyond it; its answer may differ from Kueue's",
                       wl.span, help="decide in ordered mode (the default), which replaces the slice",
                       about=about(wl))
        for ps in wl.pod_sets:
            t = ps.topology
            if t is not None and t.slice_level is not None:
                inner = "".join(f", nor its groups of {size} in one `{level}` domain" for level, size in t.layers[1:])
                diags.emit(KAD525, f"optimal mode does not keep the slices of {t.slice_size} pod(s) of pod set "
                           f"`{ps.name}` of workload `{wl.key}` in one `{t.slice_level}` domain each{inner}; its "
                           "answer may differ from Kueue's", t.span)
            workers = _leaders(wl.pod_sets).get(ps.name)
            if workers is None or t is None:
                continue
            if ps.count == 0:
                diags.emit(KAD526, f"optimal mode holds no room beside pod set `{workers.name}` of workload "
                           f"`{wl.key}` for pod set `{ps.name}` (pod-set group `{t.group}`), which has no pods; "
                           "Kueue counts it as one leader pod there; its answer may differ from Kueue's", t.span)
    return diags.sorted()


def _paired(pod_sets, group: str) -> bool:
    return sum(1 for p in pod_sets if p.topology is not None and p.topology.group == group) == 2


def _leaders(pod_sets) -> dict[str, object]:
    """Leader pod set name -> the workers pod set it is placed with, for each pod-set group of two
    (Kueue's findLeaderAndWorkers: the first is the workers unless the second has more pods)."""
    members: dict[str, list] = {}
    for p in pod_sets:
        if p.topology is not None and p.topology.group is not None:
            members.setdefault(p.topology.group, []).append(p)
    out = {}
    for pair in members.values():
        if len(pair) == 2:
            workers, leader = pair
            if leader.count > workers.count:
                workers, leader = leader, workers
            out[leader.name] = workers
    return out
