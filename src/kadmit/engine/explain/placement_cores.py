"""Why a gang can't be placed, as minimal unsat cores over the topology's capacity.

The question is the one topology-aware scheduling answers for one pod set: can `need` pods of one
shape be placed on the nodes now — all in one domain of the requested level (`required`), or
anywhere in the topology (`preferred`, `unconstrained`, which Kueue falls back to)? Pods are counted
per node (`placement.domains`): a node holds `min(free // request)` pods once its filters pass.

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


@dataclass
class _Stmt:
    origin: Origin
    nodes: tuple[str, ...] = ()  # domain statements: its nodes
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
        "gang|count", "count", f"{q.subject} needs {q.need} pod{'s' if q.need != 1 else ''} placed at once"
        + (f", each {per_pod}" if per_pod else ""), q.count_span,
        Param(q.subject, "count", q.need, "pods", "down")))
    if q.level_idx is not None:
        short = level_label(tree.levels[q.level_idx])
        out["gang|topology"] = _Stmt(Origin(
            "gang|topology", "topology", f"{q.subject} requires all its pods in one {short} (`{q.request_text}`)",
            q.request_span))
        domains = tree.by_level[q.level_idx]
        if len(domains) <= MAX_DOMAINS:
            for d in domains:
                oid = f"gang|domain|{d.path}"
                out[oid] = _Stmt(_domain_origin(q, oid, short, tree.display(d), d.nodes), tuple(d.nodes))
        else:
            out["gang|domain|*"] = _Stmt(_domain_origin(q, "gang|domain|*", f"{short}s", f"all {len(domains)}",
                                                        sorted(tree.nodes)), tuple(sorted(tree.nodes)))
    else:
        out["gang|domain|*"] = _Stmt(_domain_origin(q, "gang|domain|*", "topology", tree.topology.name,
                                                    sorted(tree.nodes)), tuple(sorted(tree.nodes)))
    if q.leader is not None:
        where = f"in the same {level_label(tree.levels[q.level_idx])}" if q.level_idx is not None else "in one assignment"
        per_leader = ", ".join(f"{format_quantity(v, r)} `{r}`" for r, v in q.leader.requests if r != "pods" and v)
        out["gang|group"] = _Stmt(Origin(
            "gang|group", "group", f"{q.leader_subject} (1 pod" + (f", {per_leader}" if per_leader else "")
            + f") is placed with {q.subject} as one, {where} (pod-set group `{q.group}`)", q.group_span))
    taints: dict[tuple, list[str]] = {}
    for name in sorted(tree.nodes):
        for t in _untolerated(tpl, tree.nodes[name]):
            taints.setdefault((t.key, t.value, t.effect), []).append(name)
    for (key, value, effect), nodes in sorted(taints.items()):
        t = Taint(key=key, value=value, effect=effect)
        text = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
        first = tree.nodes[nodes[0]]
        out[f"gang|taint|{text}"] = _Stmt(Origin(
            f"gang|taint|{text}", "node_taint", f"taint `{text}` on {_nodes_text(nodes)} isn't tolerated by "
            f"{q.subject}", _taint_span(first, t), Param(q.subject, "tolerations", None, text, "none")), taint=t)
    excluded = [n for n in sorted(tree.nodes) if node_affinity(tpl, tree.nodes[n])]
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
        nodes = sorted(h.usage)
        new = " (admitted earlier in this run)" if h.new else ""
        oid = f"gang|holder|{h.kind}|{h.key}"
        out[oid] = _Stmt(Origin(oid, "holder", f"{h.kind} `{h.key}`{new} holds {shown or 'capacity'} on "
                                f"{_nodes_text(nodes)}", h.span,
                                Param(f"{h.kind} `{h.key}`", "placement", None, "", "remove")), holding=h)
    return out


def _domain_origin(q: GangQuestion, oid: str, what: str, name: str, nodes: list[str]) -> Origin:
    tree = q.tree
    fits = sum(_fit(q, tree.nodes[n], q.free.get(n, {}), set(), None) for n in nodes)
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
        fit = {n: _fit(q, tree.nodes[n], q.free.get(n, {}), set(), None) for n in nodes}
        with_leader = _with_leader(q, nodes, fit, {n: q.free.get(n, {}) for n in nodes}, set(), None)
        beside = ("; no node of it has room for the leader" if with_leader is None else
                  f", {with_leader} beside the leader")
    return Origin(oid, "domain",
                  f"{title}: {_nodes_text(nodes)} with {shown or 'their allocatable'} in all; it fits "
                  f"{fits} of the {q.need} pod{'s' if q.need != 1 else ''} now{beside}", span,
                  Param(title, "capacity", fits, "pods", "up"))


def _placeable(q: GangQuestion, stmts: dict[str, _Stmt], active: set[str]) -> bool:
    need = q.need if "gang|count" in active else 1
    freed: dict[str, dict[str, int]] = {}
    for k, s in stmts.items():
        if s.holding is not None and k not in active:
            for n, use in s.holding.usage.items():
                freed[n] = add(freed.get(n, {}), use)
    taints = {(s.taint.key, s.taint.value, s.taint.effect) for k, s in stmts.items() if s.taint and k in active}
    selector = "gang|selector" in active
    tree = q.tree
    unlimited = {n for k, st in stmts.items() if st.origin.kind == "domain" and k not in active for n in st.nodes}
    free = {n: add(q.free.get(n, {}), freed.get(n, {})) for n in tree.nodes}
    fit = {n: _fit(q, node, free[n], taints, selector, n in unlimited, need) for n, node in tree.nodes.items()}
    domains = [s for s in stmts.values() if s.origin.kind == "domain"]
    one_domain = q.level_idx is not None and "gang|topology" in active and "gang|domain|*" not in stmts
    if q.leader is not None and "gang|group" in active:
        def holds(nodes) -> bool:
            got = _with_leader(q, nodes, fit, free, taints, selector, unlimited, need)
            return got is not None and got >= need
        if one_domain:
            return any(holds(d.nodes) for d in domains)
        return holds(list(tree.nodes))
    if one_domain:
        return any(sum(fit[n] for n in d.nodes) >= need for d in domains)
    return sum(fit.values()) >= need


def _with_leader(q: GangQuestion, nodes, fit: Mapping[str, int], free: Mapping[str, Mapping[str, int]],
                 taints: set, selector: bool | None, unlimited: set[str] = frozenset(), need: int = 0) -> int | None:
    """The most workers `nodes` hold beside the group's leader (Kueue's stateWithLeader): the leader
    on the node where that leaves the most, the others' workers as they are; None where no node takes
    the leader. A node whose capacity statement is dropped holds the leader and all `need` workers."""
    assert q.leader is not None
    total = sum(fit[n] for n in nodes)
    best: int | None = None
    for n in nodes:
        node = q.tree.nodes[n]
        if not _fit(q, node, free[n], taints, selector, n in unlimited, 1, template=q.leader):
            continue
        beside = need if n in unlimited else _fit(q, node, subtract(free[n], q.leader.request_map), taints, selector)
        got = total - fit[n] + beside
        best = got if best is None or got > best else best
    return best


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


def _nodes_text(nodes: list[str]) -> str:
    shown = ", ".join(nodes[:3]) + (", …" if len(nodes) > 3 else "")
    return f"{len(nodes)} node{'s' if len(nodes) != 1 else ''} ({shown})"
