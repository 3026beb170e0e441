"""Pooled placement counts onto Kueue's leaves, and a greedy first-fit start point, for `optimal` mode.

`decode` turns a solution's pool counts (see `placement`) into nodes: the admitted members of each
pool take their domain's or the spread pods in member order, then every class's pods go onto its
nodes first fit, node by node, largest pods first (all of a host-level member kept in its domain —
`required host`, or `preferred host` counted as kept — on one node, a pod-set group's leader on its
workers' node; a spread one's pods anywhere). A
class that can't hold what it was given yields a cut. `first_fit` places one pod set the plain way —
the first domain in name order with room, node by node — for the greedy start point (`greedy`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.optimal.placement import Dom, Group, Option, PlacementModel
from kadmit.engine.placing.pool import PodSetPlacement, WorkloadPlacement
from kadmit.engine.solver import terms as T
from kadmit.placement.domains import free_fit_count
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import pod_usage, subtract


@dataclass
class Decoded:
    """A solution on nodes: placements by workload, cuts for classes that can't hold their pods,
    and per admitted option where its pods went (domain kept, or None when spread; class -> pods)."""

    placements: dict[str, WorkloadPlacement]
    cuts: list[T.Term]
    failed: set[str] = field(default_factory=set)  # classes
    short: list[str] = field(default_factory=list)  # workloads whose pool counts give them too few pods
    where: dict[int, tuple[Dom | None, dict[str, int]]] = field(default_factory=dict)  # id(option) ->

    def involved(self, pm: PlacementModel) -> list[str]:
        """Workloads with pods in a failed class, sorted."""
        return sorted({o.key for o in pm.options if id(o) in self.where
                       and any(c in self.failed for c in self.where[id(o)][1])} | set(self.short))


def _split(g: Group, values: dict[str, int], chosen: list[Option]) -> dict[int, tuple[Dom | None, dict[str, int]]]:
    """Which admitted member of pool `g` takes which of its pods per class."""
    out: dict[int, tuple[Dom | None, dict[str, int]]] = {}
    ys = {c: int(T.evaluate(y, values)) for c, y in g.ys.items()}
    ws = {c: values.get(w.name, 0) for c, w in g.ws.items()}
    if g.k is None:  # one member, elastic: all of its pods
        opt = chosen[0]
        dom = next((d for d, n in g.ns.items() if values.get(n.name, 0)), None)
        counts = {c: p for c, p in sorted(ys.items()) if p}
        for c, p in sorted(ws.items()):
            if p:
                counts[c] = counts.get(c, 0) + p
        out[id(opt)] = (dom, counts)
        return out
    queue = list(chosen)
    by_dom: dict[Dom, list[str]] = {}
    for c in sorted(ys):
        by_dom.setdefault(g.domain_of[c], []).append(c)

    def take(pool: dict[str, int], names: list[str]) -> dict[str, int]:
        got, left = {}, g.k or 0
        for c in names:
            if left == 0:
                break
            t = min(pool.get(c, 0), left)
            if t:
                got[c] = t
                pool[c] -= t
                left -= t
        return got
    for dom in sorted(g.ns):
        for _ in range(values.get(g.ns[dom].name, 0)):
            if queue:
                out[id(queue.pop(0))] = (dom, take(ys, by_dom.get(dom, [])))
    for opt in queue:  # spread members (a repaired solution may leave some without pods: they fail)
        out[id(opt)] = (None, take(ws, sorted(ws)))
    return out


def decode(pm: PlacementModel, values: dict[str, int]) -> Decoded:
    """Nodes for every admitted option's pods, and a cut per class that can't hold them."""
    chosen = [o for o in pm.options if T.evaluate(o.chosen, values)]
    out = Decoded({}, [])
    for g in pm.groups:
        mine = [o for o in chosen if o.group is g]
        if mine:
            out.where.update(_split(g, values, mine))
    free = dict(pm.leaf_free)  # per leaf: a node, the nodes sharing a hostname, or a rack
    by_class: dict[str, list[Option]] = {}
    for opt in chosen:
        for cname in out.where.get(id(opt), (None, {}))[1]:
            by_class.setdefault(cname, []).append(opt)
    nodes: dict[int, dict[str, int]] = {id(o): {} for o in chosen}
    partner = _host_partners(pm, out, chosen)
    for cname in sorted(by_class):
        c = pm.classes[cname]
        items = sorted(by_class[cname], key=lambda o: _size(o.request.template), reverse=True)
        ok = True
        done: set[int] = set()
        for opt in items:
            if id(opt) in done:
                continue
            mate = partner.get(id(opt))
            if mate is not None and cname in out.where[id(mate)][1]:
                # a host-level pod-set group: the leader and its workers on one node
                done.add(id(mate))
                pair = (opt, mate)
                sizes = [out.where[id(o)][1][cname] for o in pair]
                for node in c.nodes:
                    trial = free[node]
                    for o, k in zip(pair, sizes):
                        if c.fit(o.request.template, trial) < k:
                            break
                        trial = subtract(trial, pod_usage(o.request.template.request_map, k))
                    else:
                        free[node] = trial
                        for o, k in zip(pair, sizes):
                            nodes[id(o)][node] = k
                        break
                else:
                    ok = False
                continue
            left = out.where[id(opt)][1][cname]
            # a host-level member kept in its domain sits on one node; a preferred one spread doesn't
            single = opt.group is not None and opt.group.host and out.where[id(opt)][0] is not None
            per_pod = opt.request.template.request_map
            for node in c.nodes:
                if left == 0:
                    break
                take = min(c.fit(opt.request.template, free[node]), left)
                if single and take < left:
                    continue  # all of it on one node
                if take:
                    free[node] = subtract(free[node], pod_usage(per_pod, take))
                    nodes[id(opt)][node] = nodes[id(opt)].get(node, 0) + take
                    left -= take
            ok = ok and left == 0
        if not ok:
            out.failed.add(cname)
            want: dict[int, tuple[Group, int]] = {}
            for opt in by_class[cname]:
                g = opt.group
                assert g is not None
                _, have = want.get(id(g), (g, 0))
                want[id(g)] = (g, have + out.where[id(opt)][1][cname])
            out.cuts.append(T.or_(*(T.cmp("<", g.pods(cname), n) for g, n in want.values())))
    for opt in chosen:
        placed = nodes[id(opt)]
        wanted = sum(out.where.get(id(opt), (None, {}))[1].values())
        if wanted < int(T.evaluate(opt.count, values)):  # only after a repair: the model forbids it
            out.short.append(opt.key)
        level_key, domains = _where(pm, opt, placed)
        wp = out.placements.setdefault(opt.key, WorkloadPlacement())
        tree = pm.pool.tree(opt.request.flavor)
        kueue: dict[str, int] = {}  # as Kueue's topology assignment names the leaves: by their lowest level's value
        for key, pods in placed.items():
            value = tree.kueue_value(key) if tree is not None else key
            kueue[value] = kueue.get(value, 0) + pods
        wp.pod_sets.append(PodSetPlacement(opt.request, dict(sorted(placed.items())), level_key, domains,
                                           dict(sorted(kueue.items()))))
    return out


def _host_partners(pm: PlacementModel, out: Decoded, chosen: list[Option]) -> dict[int, Option]:
    """The two admitted options of each host-level pod-set group kept in one domain, each by the other's id."""
    chosen_ids = {id(o) for o in chosen}
    mates: dict[int, Option] = {}
    for pair in pm.links.values():
        if len(pair) != 2 or not all(g.host for g in pair):
            continue
        a, b = (g.members[0] for g in pair)
        if id(a) in chosen_ids and id(b) in chosen_ids and out.where[id(a)][0] is not None \
                and out.where[id(a)][0] == out.where[id(b)][0]:
            mates[id(a)], mates[id(b)] = b, a
    return mates


def release(pm: PlacementModel, decoded: Decoded, values: dict[str, int], key: str) -> None:
    """Take workload `key`'s pods out of its pools' counts in `values` (repair drops it)."""
    for opt in pm.options:
        got = decoded.where.pop(id(opt), None)
        if opt.key != key or got is None:
            if got is not None:
                decoded.where[id(opt)] = got
            continue
        g = opt.group
        assert g is not None
        dom, counts = got
        if dom is not None and dom in g.ns:
            values[g.ns[dom].name] -= 1
            for c, p in counts.items():
                y = g.ys.get(c)
                if isinstance(y, T.IntVar):
                    values[y.name] -= p
        else:
            if g.spread is not None:
                values[g.spread.name] -= 1
            for c, p in counts.items():
                if c in g.ws:
                    values[g.ws[c].name] -= p


def _where(pm: PlacementModel, opt: Option, nodes: dict[str, int]) -> tuple[str | None, tuple[str, ...]]:
    """The deepest level at which the pod set's leaves share one domain, and that domain."""
    tree = pm.pool.tree(opt.request.flavor)
    paths = [tree.key_values(n) for n in nodes if nodes[n]] if tree is not None else []
    if not paths:
        return None, ()
    for i in range(len(tree.levels) - 1, -1, -1):  # type: ignore[union-attr]
        doms = {p[:i + 1] for p in paths}
        if len(doms) == 1:
            return tree.levels[i], ("/".join(doms.pop()),)  # type: ignore[union-attr]
    return tree.levels[0], tuple(sorted({p[0] for p in paths}))  # type: ignore[union-attr]


def _size(tpl: PodTemplate) -> tuple:
    """Largest pods first: scarce extended resources, then cpu, then memory."""
    req = tpl.request_map
    extended = sum(q for r, q in req.items() if "/" in r)
    return (extended, req.get("cpu", 0), req.get("memory", 0))


# --- greedy first fit ---------------------------------------------------------------------------------

def first_fit(pm: PlacementModel, opt: Option, count: int, free: dict[str, dict[str, int]],
              seen: dict | None = None) -> dict[str, int] | None:
    """`count` pods of option `opt` on the first domain in name order with room, node by node
    (required: its level's domains; host: one node; preferred: its level's domains, then each level
    above, then all its nodes; unconstrained: all its nodes), or None; `free` is updated (with new
    dicts: a node's dict is never changed in place, so `seen` caches fits by the dict's identity)."""
    seen = {} if seen is None else seen
    g = opt.group
    assert g is not None
    tpl = opt.request.template
    names = sorted(g.fit, key=lambda c: pm.classes[c].nodes[0])
    if count <= 0:
        return {}
    every = [n for c in names for n in pm.classes[c].nodes]
    tiers: list[list[list[str]]] = []
    if g.host:
        tiers.append([[n] for n in every])
    if g.level is not None and g.mode == "preferred":
        top = g.level if g.host else g.level + 1
        for depth in range(top, 0, -1):
            tiers.append(_domains(pm, names, g.flavor, depth))
    elif g.level is not None and g.mode == "required" and not g.host:
        tiers.append(_domains(pm, names, g.flavor, g.level + 1))
    if g.mode != "required":
        tiers.append([every])
    per_pod = tpl.request_map
    for tier in tiers:
        for nodes in tier:
            got, left = {}, count
            for node in nodes:
                cur = free[node]
                hit = seen.get((id(tpl), node))
                if hit is None or hit[0] is not cur:
                    hit = seen[(id(tpl), node)] = (cur, free_fit_count(tpl, cur))
                k = min(hit[1], left)
                if k:
                    got[node] = k
                    left -= k
                    if left == 0:
                        break
            if left == 0:
                for node, k in got.items():
                    free[node] = subtract(free[node], pod_usage(per_pod, k))
                return got
    return None


def _domains(pm: PlacementModel, names: list[str], flavor: str, depth: int) -> list[list[str]]:
    """The nodes of classes `names` per domain of the first `depth` levels, domains in name order."""
    doms: dict[Dom, list[str]] = {}
    for c in names:
        doms.setdefault(pm.classes[c].paths[flavor][:depth], []).extend(pm.classes[c].nodes)
    return [doms[d] for d in sorted(doms)]
