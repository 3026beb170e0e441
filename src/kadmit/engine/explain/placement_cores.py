"""Why a gang can't be placed, as minimal unsat cores over the topology's capacity.

The question is the one topology-aware scheduling answers for one pod set: can `need` pods of one
shape be placed on the nodes now — all in one domain of the requested level (`required`), or
anywhere in the topology (`preferred`, `unconstrained`, which Kueue falls back to)? Pods are counted
per Kueue leaf (`placement.domains`): a leaf holds `min(free // request)` pods of its free capacity
once its filters pass — a node where the hostname is the lowest level (the nodes sharing a hostname:
their summed capacity, filtered by the first), a rack where a rack is (its nodes' summed free
capacity less the pods admitted on it, with no node filter, as Kueue's fillInCounts).

Statements, each a tracking id with its origin (span, kind, the number a fix may change):
- the gang's size (`count`: at least `need` pods at once; dropped, one pod is enough);
- the topology request (`topology`: one domain of the level; dropped, any nodes of the topology);
- each candidate domain's capacity (`domain`: its nodes and their allocatable; dropped, its nodes
  that pass the filters could hold the whole gang), or the topology's whole capacity for requests
  without one domain;
- each holder of capacity on those nodes: an admitted workload's placement or a bound pod
  (`holder`; dropped, its capacity is free);
- each untolerated taint and the pod set's node selector (`node_taint`, `selector`; dropped, the
  nodes they reject take pods);
- for a pod-set group (Kueue's podSetGroupName), the leader placed with the workers (`group`: one
  more pod of the leader's shape on a node beside the workers, in the same domain where one is
  required; dropped, the workers alone). As Kueue does (tas_flavor_snapshot.go, fillInCounts), the
  workers' node selector and tolerations decide for the leader too, and a domain holds the group
  when some node of it takes the leader and the workers that fit beside it, with the rest of the
  domain's workers, are enough (Kueue's `stateWithLeader`).
Dropping statements only makes placing easier, so the question is monotone and `marco` enumerates
its minimal cores; each is checked unsat and shrunk by deletion with the same counting function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kadmit.engine.compile.problem import Origin, Param
from kadmit.engine.explain.marco import Enumeration, enumerate_cores
from kadmit.model import Taint
from kadmit.placement.domains import DomainTree, free_fit_count, level_label
from kadmit.placement.filters import PodTemplate, node_affinity, node_unschedulable
from kadmit.placement.inventory import NodeState, add, subtract
from kadmit.quantity import format_quantity
from kadmit.source import Span

MAX_CORES = 3
MAX_CHECKS = 300
MAX_DOMAINS = 64  # candidate domains named one by one; above that, the level's capacity is one statement


@dataclass
class Holding:
    """Capacity one workload or pod holds on the topology's nodes."""

    key: str
    kind: str  # workload, pod
    usage: dict[str, dict[str, int]]  # node -> what it holds there
    span: Span | None
    new: bool = False  # a workload admitted earlier in this run
    times: int = 1  # 2: the slice a workload slice replaces, its kept pods counted twice (ElasticJobsViaWorkloadSlicesWithTAS)


@dataclass
class GangQuestion:
    """One pod set's placement on one flavor's topology, at the state the explanation looks at."""

    subject: str  # e.g. `pod set `workers` of `team/x``
    template: PodTemplate
    need: int
    count_span: Span | None
    mode: str  # required, preferred, unconstrained
    level_idx: int | None  # the required level's index in the tree (None: no one-domain request)
    request_text: str  # e.g. `required cloud.example.com/rack`
    request_span: Span | None
    tree: DomainTree
    free: Mapping[str, Mapping[str, int]]  # node -> free capacity, every holder in place
    holdings: list[Holding] = field(default_factory=list)
    selector_span: Span | None = None
    # a pod-set group: the leader's pod shape (one pod), what to call it, its group and where it is named
    leader: PodTemplate | None = None
    leader_subject: str = ""
    group: str | None = None
    group_span: Span | None = None
    kept: int = 0  # a workload slice's pods its old slice keeps: `need` is the others, placed beside them

    @property
    def leaves(self) -> dict[str, "_Leaf"]:
        """Kueue's leaves of the tree by placement key (`DomainTree.leaves`)."""
        got = getattr(self, "_leaves", None)
        if got is None:
            tree = self.tree
            if not tree.by_level:  # no topology (kube-scheduler's gangs): the nodes themselves
                got = {n: _Leaf(n, (n,), tree.nodes[n], ()) for n in sorted(tree.nodes)}
            else:
                got = {key: _Leaf(key, tuple(d.nodes), tree.nodes[d.nodes[0]] if tree.host_lowest else None,
                                  d.values) for key, d in sorted(tree.leaves.items())}
            self._leaves = got
        return got


@dataclass(frozen=True)
class _Leaf:
    """One of Kueue's leaves: a node, the nodes sharing a hostname, or a rack."""

    key: str  # its placement key (a node's name, `flavor:values` for a rack)
    nodes: tuple[str, ...]
    node: NodeState | None  # the node whose filters apply (a host leaf's first); None: a rack, unfiltered
    values: tuple[str, ...]

    @property
    def single(self) -> bool:
        return self.nodes == (self.key,)


@dataclass
class _Stmt:
    origin: Origin
    nodes: tuple[str, ...] = ()  # domain statements: its leaves' keys
    taint: Taint | None = None
    holding: Holding | None = None


def gang_cores(q: GangQuestion, most: int = MAX_CORES) -> tuple[Enumeration, bool]:
    """The minimal cores of the gang's placement question, and whether it is unsat at all (False:
    the gang fits by this count, so there is nothing to blame)."""
    stmts = _statements(q)
    ids = sorted(stmts)
    origins = {k: s.origin for k, s in stmts.items()}

    def unsat(sub: list[str]) -> bool:
        return not _placeable(q, stmts, set(sub))

    if not unsat(ids):
        return Enumeration(), False
    return enumerate_cores(ids, origins, unsat, most=most, budget=MAX_CHECKS), True


def _statements(q: GangQuestion) -> dict[str, _Stmt]:
    tree, tpl = q.tree, q.template
    out: dict[str, _Stmt] = {}
    per_pod = ", ".join(f"{format_quantity(v, r)} `{r}`" for r, v in tpl.requests if r != "pods" and v)
    out["gang|count"] = _Stmt(Origin(
        "gang|count", "count", f"{q.subject} needs {q.need}{' new' if q.kept else ''} pod{'s' if q.need != 1 else ''} "
        "placed at once" + (f" beside the {q.kept} its old slice keeps" if q.kept else "")
        + (f", each {per_pod}" if per_pod else ""), q.count_span,
        Param(q.subject, "count", q.need + q.kept, "pods", "down")))
    if q.level_idx is not None:
        short = level_label(tree.levels[q.level_idx])
        out["gang|topology"] = _Stmt(Origin(
            "gang|topology", "topology", f"{q.subject} requires all its pods in one {short} (`{q.request_text}`)",
            q.request_span))
        domains = tree.by_level[q.level_idx]
        if len(domains) <= MAX_DOMAINS:
            for d in domains:
                oid = f"gang|domain|{d.path}"
                keys = tuple(k for k, lf in q.leaves.items() if lf.values[:len(d.values)] == d.values)
                out[oid] = _Stmt(_domain_origin(q, oid, short, tree.display(d), keys), keys)
        else:
            out["gang|domain|*"] = _Stmt(_domain_origin(q, "gang|domain|*", f"{short}s", f"all {len(domains)}",
                                                        tuple(q.leaves)), tuple(q.leaves))
    else:
        out["gang|domain|*"] = _Stmt(_domain_origin(q, "gang|domain|*", "topology", tree.topology.name,
                                                    tuple(q.leaves)), tuple(q.leaves))
    if q.leader is not None:
        where = f"in the same {level_label(tree.levels[q.level_idx])}" if q.level_idx is not None else "in one assignment"
        per_leader = ", ".join(f"{format_quantity(v, r)} `{r}`" for r, v in q.leader.requests if r != "pods" and v)
        out["gang|group"] = _Stmt(Origin(
            "gang|group", "group", f"{q.leader_subject} (1 pod" + (f", {per_leader}" if per_leader else "")
            + f") is placed with {q.subject} as one, {where} (pod-set group `{q.group}`)", q.group_span))
    filtering = [lf.node for lf in q.leaves.values() if lf.node is not None]  # a rack's nodes filter nothing
    taints: dict[tuple, list[str]] = {}
    for node in filtering:
        for t in _untolerated(tpl, node):
            taints.setdefault((t.key, t.value, t.effect), []).append(node.name)
    for (key, value, effect), nodes in sorted(taints.items()):
        t = Taint(key=key, value=value, effect=effect)
        text = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
        first = tree.nodes[nodes[0]]
        out[f"gang|taint|{text}"] = _Stmt(Origin(
            f"gang|taint|{text}", "node_taint", f"taint `{text}` on {_nodes_text(nodes)} isn't tolerated by "
            f"{q.subject}", _taint_span(first, t), Param(q.subject, "tolerations", None, text, "none")), taint=t)
    excluded = [node.name for node in filtering if node_affinity(tpl, node)]
    if excluded:
        out["gang|selector"] = _Stmt(Origin(
            "gang|selector", "selector", f"the node selector or affinity of {q.subject} (with its flavor's "
            f"node labels) excludes {_nodes_text(excluded)}", q.selector_span))
    for h in q.holdings:
        total: dict[str, int] = {}
        for use in h.usage.values():
            total = add(total, use)
        shown = ", ".join(f"{format_quantity(v, r)} `{r}`" for r, v in sorted(total.items())
                          if v and r != "pods" and dict(tpl.requests).get(r))
        new = " (admitted earlier in this run)" if h.new else ""
        oid = f"gang|holder|{h.kind}|{h.key}"
        twice = ", counted twice there: the slice this one replaces, its pods kept and their usage added again " \
            "for the new pods (ElasticJobsViaWorkloadSlicesWithTAS)" if h.times == 2 else ""
        out[oid] = _Stmt(Origin(oid, "holder", f"{h.kind} `{h.key}`{new} holds {shown or 'capacity'} on "
                                f"{_places_text(tree, sorted(h.usage))}{twice}", h.span,
                                Param(f"{h.kind} `{h.key}`", "placement", None, "", "remove")), holding=h)
    return out


def _domain_origin(q: GangQuestion, oid: str, what: str, name: str, keys: tuple[str, ...]) -> Origin:
    tree = q.tree
    leaves = [q.leaves[k] for k in keys]
    fits = sum(_leaf_fit(q, lf, _leaf_free(q, lf, {}), set(), None) for lf in leaves)
    nodes = [n for lf in leaves for n in lf.nodes]
    alloc: dict[str, int] = {}
    for n in nodes:
        alloc = add(alloc, tree.nodes[n].allocatable)
    scarce = [r for r, v in q.template.requests if r != "pods" and v]
    shown = ", ".join(f"{format_quantity(alloc.get(r, 0), r)} `{r}`" for r in scarce)
    first = tree.nodes[nodes[0]].node if nodes else None
    span = (first.field_span("labels") or first.span) if first is not None else None
    title = f"{what} `{name}`" if not name.startswith("all ") else f"{name} {what}"
    if not tree.by_level:  # no topology: the nodes themselves
        title = "the nodes"
    beside = ""
    if q.leader is not None:
        free = {lf.key: _leaf_free(q, lf, {}) for lf in leaves}
        fit = {lf.key: _leaf_fit(q, lf, free[lf.key], set(), None) for lf in leaves}
        with_leader = _with_leader(q, keys, fit, free, set(), None)
        beside = ("; no node of it has room for the leader" if with_leader is None else
                  f", {with_leader} beside the leader")
    racks = ""
    if tree.by_level and not tree.host_lowest:  # Kueue counts each rack on its nodes' summed capacity
        short = level_label(tree.levels[-1])
        racks = (f" (one {short} leaf: their capacity summed)" if len(leaves) == 1 else
                 f" ({len(leaves)} {short} leaves, each its nodes' capacity summed)")
    return Origin(oid, "domain",
                  f"{title}: {_nodes_text(nodes)}{racks} with {shown or 'their allocatable'} in all; it fits "
                  f"{fits} of the {q.need} pod{'s' if q.need != 1 else ''} now{beside}", span,
                  Param(title, "capacity", fits, "pods", "up"))


def _leaf_free(q: GangQuestion, lf: _Leaf, freed: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    """A leaf's free capacity, with the `freed` capacity (by node or leaf key) given back: its
    nodes' summed, less (for a rack) what is admitted on the rack itself."""
    if lf.single:
        return add(q.free.get(lf.key, {}), freed.get(lf.key, {}))
    out: dict[str, int] = {}
    for n in lf.nodes:
        out = add(out, add(q.free.get(n, {}), freed.get(n, {})))
    if lf.node is None:  # a rack leaf's own usage, kept under its key
        out = add(out, add(q.free.get(lf.key, {}), freed.get(lf.key, {})))
    return out


def _placeable(q: GangQuestion, stmts: dict[str, _Stmt], active: set[str]) -> bool:
    need = q.need if "gang|count" in active else 1
    freed: dict[str, dict[str, int]] = {}
    for k, s in stmts.items():
        if s.holding is not None and k not in active:
            for n, use in s.holding.usage.items():
                for _ in range(s.holding.times):
                    freed[n] = add(freed.get(n, {}), use)
    taints = {(s.taint.key, s.taint.value, s.taint.effect) for k, s in stmts.items() if s.taint and k in active}
    selector = "gang|selector" in active
    leaves = q.leaves
    unlimited = {n for k, st in stmts.items() if st.origin.kind == "domain" and k not in active for n in st.nodes}
    free = {key: _leaf_free(q, lf, freed) for key, lf in leaves.items()}
    fit = {key: _leaf_fit(q, lf, free[key], taints, selector, key in unlimited, need) for key, lf in leaves.items()}
    domains = [s for s in stmts.values() if s.origin.kind == "domain"]
    one_domain = q.level_idx is not None and "gang|topology" in active and "gang|domain|*" not in stmts
    if q.leader is not None and "gang|group" in active:
        def holds(keys) -> bool:
            got = _with_leader(q, keys, fit, free, taints, selector, unlimited, need)
            return got is not None and got >= need
        if one_domain:
            return any(holds(d.nodes) for d in domains)
        return holds(list(leaves))
    if one_domain:
        return any(sum(fit[n] for n in d.nodes) >= need for d in domains)
    return sum(fit.values()) >= need


def _with_leader(q: GangQuestion, keys, fit: Mapping[str, int], free: Mapping[str, Mapping[str, int]],
                 taints: set, selector: bool | None, unlimited: set[str] = frozenset(), need: int = 0) -> int | None:
    """The most workers the leaves `keys` hold beside the group's leader (Kueue's stateWithLeader):
    the leader on the leaf where that leaves the most, the others' workers as they are; None where
    no leaf takes the leader. A leaf whose capacity statement is dropped holds the leader and all
    `need` workers."""
    assert q.leader is not None
    total = sum(fit[k] for k in keys)
    best: int | None = None
    for k in keys:
        lf = q.leaves[k]
        if not _leaf_fit(q, lf, free[k], taints, selector, k in unlimited, 1, template=q.leader):
            continue
        beside = need if k in unlimited else _leaf_fit(q, lf, subtract(free[k], q.leader.request_map), taints, selector)
        got = total - fit[k] + beside
        best = got if best is None or got > best else best
    return best


def _leaf_fit(q: GangQuestion, lf: _Leaf, free: Mapping[str, int], taints: set, selector: bool | None,
              unlimited: bool = False, need: int = 0, template: PodTemplate | None = None) -> int:
    """Pods of the gang's shape (or `template`'s) on a leaf with `free` capacity: a host leaf through
    its node's filters (`_fit`), a rack leaf with none (Kueue checks filters on host leaves only)."""
    if lf.node is not None:
        return _fit(q, lf.node, free, taints, selector, unlimited, need, template)
    return need if unlimited else free_fit_count(template or q.template, free)


def _fit(q: GangQuestion, node: NodeState, free: Mapping[str, int], taints: set, selector: bool | None,
         unlimited: bool = False, need: int = 0, template: PodTemplate | None = None) -> int:
    """Pods of the gang's shape (or `template`'s, with the gang's filters) on `node` with `free`
    capacity; `taints` the untolerated taints that still reject, `selector` whether the node selector
    still applies (None: every filter applies); `unlimited`: the node's capacity statement is
    dropped, so it holds all `need` pods."""
    tpl = q.template
    if node_unschedulable(tpl, node):
        return 0
    if selector is None:
        if _untolerated(tpl, node) or node_affinity(tpl, node):
            return 0
    else:
        if any((t.key, t.value, t.effect) in taints for t in _untolerated(tpl, node)):
            return 0
        if selector and node_affinity(tpl, node):
            return 0
    return need if unlimited else free_fit_count(template or tpl, free)


def _untolerated(tpl: PodTemplate, node: NodeState) -> list[Taint]:
    return [t for t in node.taints if t.effect in ("NoSchedule", "NoExecute")
            and not any(x.tolerates(t) for x in tpl.tolerations)]


def _taint_span(node: NodeState, taint: Taint) -> Span | None:
    model = node.node
    if model is None:
        return None
    for i, t in enumerate(model.taints):
        if (t.key, t.value, t.effect) == (taint.key, taint.value, taint.effect):
            return model.spans.get(f"taints.{i}") or model.field_span("taints")
    return model.field_span("taints") or model.span


def _places_text(tree: DomainTree, keys: list[str]) -> str:
    """Nodes, and rack leaves by their level values: `2 nodes (n0, n1)`, `rack `r0``."""
    nodes = [k for k in keys if k in tree.nodes]
    racks = [tree.display(tree.leaves[k]) for k in keys if k not in tree.nodes and k in tree.leaves]
    parts = ([_nodes_text(nodes)] if nodes else []) + [f"{level_label(tree.levels[-1])} `{r}`" for r in racks]
    return ", ".join(parts) or _nodes_text(keys)


def _nodes_text(nodes: list[str]) -> str:
    shown = ", ".join(nodes[:3]) + (", …" if len(nodes) > 3 else "")
    return f"{len(nodes)} node{'s' if len(nodes) != 1 else ''} ({shown})"
