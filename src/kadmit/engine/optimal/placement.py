"""Topology-aware placement in `optimal` mode: node-class counts in the global model, checked on nodes.

For every pending pod set that topology-aware scheduling would place (its flavor names a topology;
it asks for a topology, or its queue's flavors all have one), and every TAS flavor it may get,
the global model holds a pod count per node class: nodes that no pod template tells apart (same
flavors, same topology domain, same labels that matter, taints and free capacity; see
`kadmit.placement.classes`). The encoding grows with node shapes, not nodes:

- the counts of a pod set sum to its pod count when it takes that flavor, else to 0;
- a class holds at most `size x per-node fit` pods of one template, and, summed over every pod set
  that may use it, at most its free capacity of each resource (the `pods` count included);
- `required LEVEL`: a Boolean per domain of the level, at most one true, and a class outside the
  chosen domain holds none of the pod set (`required host`: one node of one class);
- `preferred LEVEL`: the same, but only while a Boolean `confined` holds; the number of confined
  preferred pod sets is an objective stage after the admission stages.

Summed capacity is exact for one template (`size x fit`) but only a bound when pods of different
shapes share a class, so every solution is decoded onto nodes (first fit, node by node, largest pods
first) and a class that can't hold what it was given gets a cut — "not all of these pod sets get at
least these counts here" — and the model is solved again (logic-based Benders). The cut is sound:
if some counts don't fit on the class's nodes, larger ones don't either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.solver import terms as T
from kadmit.engine.compile.problem import Problem
from kadmit.engine.placing.pool import (UNCONSTRAINED, NodePool, PodSetPlacement, TASRequest, WorkloadPlacement)
from kadmit.index import HOSTNAME_LABEL, ModelIndex, resolve_level
from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit.engine.optimal.codes import KAD525
from kadmit.model import Model, ResourceFlavor, Topology
from kadmit.placement.classes import domain_levels, relevant_label_keys
from kadmit.placement.domains import node_fit_count
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import NodeState, pod_usage, subtract

MAX_ROUNDS = 25  # solve / decode / cut rounds before placements are repaired by dropping workloads


@dataclass(eq=False)
class Cls:
    """A node class of the global model."""

    name: str
    nodes: tuple[str, ...]
    flavors: tuple[str, ...]  # TAS flavors whose nodes these are
    paths: dict[str, tuple[str, ...]]  # flavor -> level values of the flavor's topology (host excluded)
    rep: NodeState

    @property
    def size(self) -> int:
        return len(self.nodes)


@dataclass(eq=False)
class Option:
    """One TAS flavor a pending pod set may take, with its pod count per class."""

    key: str  # workload key
    request: TASRequest
    chosen: T.Term  # the flavor is chosen and the workload admitted
    count: T.Term  # the pod set's count
    xs: dict[str, T.IntVar] = field(default_factory=dict)  # class name -> pods there
    level: int | None = None  # index of the requested level in the flavor's topology
    zs: dict[tuple[str, ...], T.BoolVar] = field(default_factory=dict)  # domain -> chosen
    confined: T.BoolVar | None = None  # preferred: kept within one domain of the level


class PlacementModel:
    """The placement part of the global model, and the decoding of solutions onto nodes."""

    def __init__(self, pool: NodePool, index: ModelIndex, problems: list[Problem]) -> None:
        self.pool = pool
        self.index = index
        self.options: list[Option] = []
        self.hard: list[T.Term] = []
        self.cuts = 0
        if not pool.active:
            self.classes: dict[str, Cls] = {}
            return
        pending = self._pending(problems)
        templates = [tpl for _, _, _, _, tpl, _ in pending]
        self.classes = self._classes(relevant_label_keys(templates))
        for prob, pv, fname, req, tpl, implicit in pending:
            self._option(prob, pv, fname, req, tpl, implicit)
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
            for pv in prob.pod_sets:
                ps = pv.pod_set
                if ps.topology is None and not implicit_ok:
                    continue
                for gi in sorted(pv.flavors):
                    for fname, v in pv.flavors[gi]:
                        tas = self._tas_flavor(fname)
                        if tas is None:
                            continue
                        req = ps.topology or UNCONSTRAINED
                        tpl = PodTemplate.build(ps, [tas[0]])
                        out.append(((prob, v), pv, fname, req, tpl, ps.topology is None))
        return out

    def _classes(self, keys) -> dict[str, Cls]:
        """Usable nodes in the topology of some TAS flavor, partitioned by what tells them apart."""
        flavors = sorted(n for n in self.index.flavors if self._tas_flavor(n) is not None)
        groups: dict[tuple, list[NodeState]] = {}
        skip = {HOSTNAME_LABEL}
        for fname in flavors:
            skip.update(domain_levels(self._tas_flavor(fname)[1]))  # type: ignore[index]
        for base in self.pool.inventory.usable:
            node = self.pool.state(base.name)
            mine, paths = [], []
            for fname in flavors:
                fl, topo = self._tas_flavor(fname)  # type: ignore[misc]
                if any(node.labels.get(k) != v for k, v in fl.node_labels.items()):
                    continue
                if any(k not in node.labels for k in topo.levels):
                    continue
                mine.append(fname)
                paths.append(tuple(node.labels[k] for k in domain_levels(topo)))
            if not mine:
                continue
            labels = tuple(sorted((k, v) for k, v in node.labels.items()
                                  if k in keys and (k == HOSTNAME_LABEL or k not in skip)))
            taints = tuple((t.key, t.value, t.effect) for t in node.taints)
            free = tuple(sorted((r, q) for r, q in self.pool.free[node.name].items() if q))
            groups.setdefault((tuple(mine), tuple(paths), labels, taints, free), []).append(node)
        out: dict[str, Cls] = {}
        for (mine, paths, _, _, _), members in sorted(groups.items(), key=lambda kv: kv[1][0].name):
            first = members[0]
            name = first.name if len(members) == 1 else f"{first.name}+{len(members) - 1}"
            out[name] = Cls(name, tuple(m.name for m in members), mine, dict(zip(mine, paths)), first)
        return out

    def _option(self, chosen, pv, fname: str, req, tpl: PodTemplate, implicit: bool) -> None:
        prob, v = chosen
        key = prob.workload.key
        ps = pv.pod_set
        topo = self._tas_flavor(fname)[1]  # type: ignore[index]
        request = TASRequest(ps.name, fname, topo.name, req, implicit, tpl, ps.count)
        on = T.and_(prob.admitted, v)
        opt = Option(key, request, on, pv.count)
        tag = f"{key}|{ps.name}|{fname}"
        level = None
        if req.mode != "unconstrained":
            lk = resolve_level(topo, req.level)
            level = None if lk is None else topo.levels.index(lk)
        opt.level = level
        host_level = level is not None and topo.levels[level] == HOSTNAME_LABEL
        for c in self.classes.values():
            if fname not in c.flavors:
                continue
            k = node_fit_count(tpl, c.rep)
            hi = min(ps.count, k if host_level else k * c.size)
            if hi <= 0:
                continue
            opt.xs[c.name] = T.IntVar(f"x|{tag}|{c.name}", 0, hi)
        total = T.add(*opt.xs.values(), 0)
        self.hard.append(T.implies(on, T.eq(total, pv.count)))
        self.hard.append(T.implies(T.not_(on), T.eq(total, 0)))
        if level is not None and opt.xs:
            for cname, x in opt.xs.items():
                c = self.classes[cname]
                dom = (cname,) if host_level else c.paths[fname][:level + 1]
                z = opt.zs.get(dom)
                if z is None:
                    z = opt.zs[dom] = T.BoolVar(f"z|{tag}|{'/'.join(dom)}")
                fence = T.le(x, T.ite(z, x.hi, 0))
                if req.mode == "required":
                    self.hard.append(fence)
                else:
                    if opt.confined is None:
                        opt.confined = T.BoolVar(f"confined|{tag}")
                    self.hard.append(T.implies(opt.confined, fence))
            one = T.le(T.lin(*((1, T.ite(z, 1, 0)) for z in opt.zs.values())), 1)
            self.hard.append(one if req.mode == "required" else T.implies(opt.confined, one))  # type: ignore[arg-type]
        self.options.append(opt)

    def _capacity(self) -> None:
        """Summed over the pod sets that may use a class, at most its free capacity per resource."""
        users: dict[str, list[tuple[Option, T.IntVar]]] = {}
        for opt in self.options:
            for cname, x in opt.xs.items():
                users.setdefault(cname, []).append((opt, x))
        for cname in sorted(users):
            c = self.classes[cname]
            if len(users[cname]) < 2:
                continue  # one template: `size x fit` is exact already
            free = self.pool.free[c.nodes[0]]
            resources = sorted({r for opt, _ in users[cname] for r, _ in opt.request.template.requests})
            for r in resources:
                parts = [(opt.request.template.request_map.get(r, 0), x) for opt, x in users[cname]]
                parts = [(q, x) for q, x in parts if q]
                if parts:
                    self.hard.append(T.le(T.lin(*parts), max(0, free.get(r, 0)) * c.size))

    def objective(self) -> T.Term | None:
        """Preferred pod sets kept within one domain of their level (to maximise)."""
        confined = [(1, T.ite(o.confined, 1, 0)) for o in self.options if o.confined is not None]
        return T.lin(*confined) if confined else None

    # --- hints and decoding ------------------------------------------------------------------------

    def hint(self, env: dict[str, int], placements: dict[str, WorkloadPlacement]) -> None:
        """Extend a start point with the class counts of known placements (e.g. the ordered run's)."""
        class_of = {n: c for c in self.classes.values() for n in c.nodes}
        for opt in self.options:
            wp = placements.get(opt.key)
            mine = next((p for p in (wp.pod_sets if wp else []) if p.request.pod_set == opt.request.pod_set
                         and p.request.flavor == opt.request.flavor), None)
            counts: dict[str, int] = {}
            for node, pods in (mine.nodes.items() if mine else []):
                c = class_of.get(node)
                if c is not None:
                    counts[c.name] = counts.get(c.name, 0) + pods
            for cname, x in opt.xs.items():
                env[x.name] = counts.get(cname, 0)
            for dom, z in opt.zs.items():
                used = [cname for cname in counts if counts[cname] and cname in opt.xs]
                env[z.name] = int(any(self._domain(opt, cname) == dom for cname in used))
            if opt.confined is not None:
                env[opt.confined.name] = int(sum(env[z.name] for z in opt.zs.values()) <= 1)

    def _domain(self, opt: Option, cname: str) -> tuple[str, ...]:
        c = self.classes[cname]
        topo = self._tas_flavor(opt.request.flavor)[1]  # type: ignore[index]
        if opt.level is not None and topo.levels[opt.level] == HOSTNAME_LABEL:
            return (cname,)
        return c.paths[opt.request.flavor][:(opt.level or 0) + 1]

    def decode(self, values: dict[str, int]) -> tuple[dict[str, WorkloadPlacement], list[T.Term]]:
        """Nodes for every chosen option's class counts, and a cut per class that can't hold them."""
        free = {name: dict(f) for name, f in self.pool.free.items()}
        by_class: dict[str, list[tuple[Option, int]]] = {}
        chosen = [o for o in self.options if T.evaluate(o.chosen, values)]
        for opt in chosen:
            for cname, x in opt.xs.items():
                if values.get(x.name, 0) > 0:
                    by_class.setdefault(cname, []).append((opt, values[x.name]))
        nodes: dict[int, dict[str, int]] = {id(o): {} for o in chosen}
        cuts: list[T.Term] = []
        for cname in sorted(by_class):
            c = self.classes[cname]
            items = sorted(by_class[cname], key=lambda it: _size(it[0].request.template), reverse=True)
            ok = True
            for opt, want in items:
                per_pod = opt.request.template.request_map
                left = want
                single = opt.level is not None and self._domain(opt, cname) == (cname,)
                for node in c.nodes:
                    if left == 0:
                        break
                    fit = node_fit_count(opt.request.template, c.rep, free[node])
                    take = min(fit, left)
                    if single and take < left:
                        continue  # required host: all of it on one node
                    if take:
                        free[node] = subtract(free[node], pod_usage(per_pod, take))
                        nodes[id(opt)][node] = nodes[id(opt)].get(node, 0) + take
                        left -= take
                if left:
                    ok = False
            if not ok:
                cuts.append(T.or_(*(T.cmp("<", opt.xs[cname], want) for opt, want in by_class[cname])))
        out: dict[str, WorkloadPlacement] = {}
        for opt in chosen:
            level_key, domains = self._where(opt, nodes[id(opt)])
            wp = out.setdefault(opt.key, WorkloadPlacement())
            wp.pod_sets.append(PodSetPlacement(opt.request, dict(sorted(nodes[id(opt)].items())), level_key, domains))
        return out, cuts

    def _where(self, opt: Option, nodes: dict[str, int]) -> tuple[str | None, tuple[str, ...]]:
        """The deepest level at which the pod set's nodes share one domain, and that domain."""
        topo = self._tas_flavor(opt.request.flavor)[1]  # type: ignore[index]
        states = [self.pool.inventory.by_name[n] for n in nodes if nodes[n]]
        if not states:
            return None, ()
        for i in range(len(topo.levels) - 1, -1, -1):
            doms = {tuple(s.labels[k] for k in topo.levels[:i + 1]) for s in states}
            if len(doms) == 1:
                return topo.levels[i], ("/".join(doms.pop()),)
        top = sorted({s.labels[topo.levels[0]] for s in states})
        return topo.levels[0], tuple(top)


def _size(tpl: PodTemplate) -> tuple:
    """Largest pods first: scarce extended resources, then cpu, then memory."""
    req = tpl.request_map
    extended = sum(q for r, q in req.items() if "/" in r)
    return (extended, req.get("cpu", 0), req.get("memory", 0))


def unhonoured(model: Model, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` and a warning (KAD525) at each pending pod set's topology request whose slices
    this model ignores, sorted."""
    diags = Diagnostics(list(diagnostics))
    for wl in sorted(model.workloads, key=lambda w: w.key):
        if wl.admitted:
            continue
        for ps in wl.pod_sets:
            t = ps.topology
            if t is not None and t.slice_level is not None:
                diags.emit(KAD525, f"optimal mode does not keep the slices of {t.slice_size} pod(s) of pod set "
                           f"`{ps.name}` of workload `{wl.key}` in one `{t.slice_level}` domain each; its "
                           "answer may differ from Kueue's", t.span)
    return diags.sorted()
