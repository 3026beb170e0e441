"""Quota as tracked variables, for explanations: each quota number and each holder's usage is pinned
by its own tracking literal, so a core names exactly the statements and workloads that block."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.engine.compile.tracked import Origin, Param, Tracked
from kadmit.engine.solver import terms as T
from kadmit.engine.quota import FR, node_id
from kadmit.model import ClusterQueue, ResourceQuota
from kadmit.quantity import format_quantity
from kadmit.source import Span


BIG = 10**30  # above any sum of quantities, so no bound binds
GROUP_HOLDERS_OVER = 24  # above this many holders in a cohort tree, blame usage per cluster queue


@dataclass(frozen=True)
class Holder:
    """Usage held in one cluster queue by one admitted workload."""

    workload: str  # ns/name
    cluster_queue: str
    amounts: dict[FR, int]  # milli-units
    span: Span | None
    new: bool = False  # admitted earlier in this run, not in the input


def quota_statements(compiler) -> dict[tuple[str, FR], ResourceQuota]:
    """(node id, flavor-resource) -> the ResourceQuota statement, first one wins."""
    out: dict[tuple[str, FR], ResourceQuota] = {}
    for holders, is_cohort in ((compiler.index.cohorts.values(), True),
                               (compiler.index.cluster_queues.values(), False)):
        for h in holders:
            for rg in h.resource_groups:
                for fq in rg.flavors:
                    for rq in fq.resources:
                        out.setdefault((node_id(h.name, is_cohort), (fq.flavor, rq.resource)), rq)
    return out


def symbolic_quota(compiler, cq: ClusterQueue, requested: dict[FR, T.Term],
                   holders: list[Holder], usage) -> list[Tracked]:

    tree = compiler.tree
    stmts = compiler.__dict__.get("_quota_statements")
    if stmts is None:  # once per compiler: every quota statement by node and flavor-resource
        stmts = compiler.__dict__["_quota_statements"] = quota_statements(compiler)
    negative = compiler.__dict__.get("_negative_usage")
    if negative is None:  # once per compiler: can a queue's usage go below 0?
        negative = compiler.__dict__["_negative_usage"] = _negative_usage(compiler.model)
    out: list[Tracked] = []
    cq_nid = node_id(cq.name, False)
    path = tree.path(cq_nid)
    root = path[-1]

    for fr, amount in requested.items():
        if not tree.entry(cq_nid, fr).declared:
            continue
        fname, res = fr
        u = lambda milli: compiler.units(res, milli)  # noqa: E731
        q = lambda milli: format_quantity(milli, res)  # noqa: E731
        params: dict[tuple[str, str], T.Term] = {}

        def param(nid: str, which: str) -> T.Term | None:
            key = (nid, which)
            if key in params:
                return params[key]
            entry = tree.entry(nid, fr)
            node = tree.nodes[nid]
            value = {"nominal": entry.nominal if entry.declared else None,
                     "borrowing_limit": entry.borrowing_limit,
                     "lending_limit": entry.lending_limit}[which]
            if value is None:
                params[key] = None  # type: ignore[assignment]
                return None
            v = T.IntVar(f"q|{nid}|{fname}|{res}|{which}", 0, BIG)
            rq = stmts.get((nid, fr))
            kind = "cohort" if node.is_cohort else "cluster queue"
            text = {
                "nominal": f"{kind} `{node.name}` has a nominal quota of {q(value)} `{res}` in flavor `{fname}`",
                "borrowing_limit": f"{kind} `{node.name}` may borrow at most {q(value)} `{res}` in flavor `{fname}`",
                "lending_limit": f"{kind} `{node.name}` lends at most {q(value)} `{res}` in flavor `{fname}`",
            }[which]
            span = rq.field_span(which) if rq is not None else node_span(compiler, nid)
            label = {"nominal": "nominal quota", "borrowing_limit": "borrowing limit",
                     "lending_limit": "lending limit"}[which]
            out.append(Tracked(
                Origin(f"quota|{nid}|{fname}|{res}|{which}", which, text, span,
                       Param(f"{kind} `{node.name}`", f"{label} of `{res}` in flavor `{fname}`",
                             value, res, "up")),
                T.eq(v, u(value))))
            params[key] = v
            return v

        # Each node's subtree S and guaranteed G are variables defined by structural equalities over
        # its children's (never nested terms: a cohort chain of any depth stays linear in size).
        subtree_var: dict[str, T.Term] = {}
        guaranteed_var: dict[str, T.Term] = {}
        for nid in _bottom_up(tree, root):
            nom = param(nid, "nominal")
            parts: list[T.IntLike] = [nom if nom is not None else 0]
            for ch in tree.nodes[nid].children:
                parts.append(T.sub(subtree_var[ch], guaranteed_var[ch]))
            sv = subtree_var[nid] = T.IntVar(f"s|{nid}|{fname}|{res}", -BIG, BIG)
            out.append(_structural(f"subtree|{nid}|{fname}|{res}", T.eq(sv, T.add(*parts))))
            lend = param(nid, "lending_limit")
            if lend is None or tree.nodes[nid].parent is None:
                guaranteed_var[nid] = T.Const(0)
            else:
                gv = guaranteed_var[nid] = T.IntVar(f"g|{nid}|{fname}|{res}", 0, BIG)
                out.append(_structural(f"guaranteed|{nid}|{fname}|{res}", T.eq(gv, T.max0(T.sub(sv, lend)))))

        def subtree(nid: str) -> T.Term:
            return subtree_var[nid]

        def guaranteed(nid: str) -> T.Term:
            return guaranteed_var[nid]

        cq_usage: dict[str, list[T.Term]] = {}
        mine = [h for h in holders if h.amounts.get(fr, 0) != 0
                and tree.root(node_id(h.cluster_queue, False)) == root]
        if len(mine) <= GROUP_HOLDERS_OVER:
            for h in mine:
                amt = h.amounts[fr]
                v = T.IntVar(f"u|{h.workload}|{fname}|{res}", min(0, u(amt)), max(0, u(amt)))
                verb = "was admitted earlier in this run and" if h.new else ""
                out.append(Tracked(
                    Origin(f"usage|{h.workload}|{fname}|{res}", "usage",
                           f"admitted workload `{h.workload}` {verb} holds {q(amt)} `{res}` of flavor "
                           f"`{fname}` in cluster queue `{h.cluster_queue}`".replace("  ", " "),
                           h.span, Param(f"workload `{h.workload}`", "usage", amt, res, "remove")),
                    T.eq(v, u(amt))))
                cq_usage.setdefault(h.cluster_queue, []).append(v)
        else:
            # Many holders: one statement per cluster queue's admitted usage, so a core stays as
            # small as the cohort tree; the message names how many workloads and the largest ones.
            by_cq: dict[str, list[Holder]] = {}
            for h in mine:
                by_cq.setdefault(h.cluster_queue, []).append(h)
            for name, hs in sorted(by_cq.items()):
                amt = sum(h.amounts[fr] for h in hs)
                top = sorted(hs, key=lambda h: (-h.amounts[fr], h.workload))[:3]
                v = T.IntVar(f"u|cq:{name}|{fname}|{res}", min(0, u(amt)), max(0, u(amt)))
                named = ", ".join(f"`{h.workload}`" for h in top) + (", …" if len(hs) > len(top) else "")
                out.append(Tracked(
                    Origin(f"usage|cq:{name}|{fname}|{res}", "usage",
                           f"{len(hs)} admitted workloads in cluster queue `{name}` hold {q(amt)} `{res}` of "
                           f"flavor `{fname}` ({named})", node_span(compiler, node_id(name, False)),
                           Param(f"the workloads admitted to cluster queue `{name}`", "usage", amt, res,
                                 "remove")),
                    T.eq(v, u(amt))))
                cq_usage[name] = [v]

        on_path = set(path)
        usage_var: dict[tuple[str, bool], T.Term] = {}
        for nid in _bottom_up(tree, root):
            node = tree.nodes[nid]
            for with_request in ((False, True) if nid in on_path else (False,)):
                if not node.is_cohort:
                    base = T.add(*cq_usage.get(node.name, []), 0)
                    usage_var[(nid, with_request)] = T.add(base, amount) if with_request else base
                    continue
                parts = [_pooled(usage_var[(ch, with_request and ch in on_path)], guaranteed(ch), negative)
                         for ch in node.children]
                uv = usage_var[(nid, with_request)] = T.IntVar(
                    f"uc|{nid}|{int(with_request)}|{fname}|{res}", 0, BIG)
                out.append(_structural(f"cohort-usage|{nid}|{int(with_request)}|{fname}|{res}",
                                       T.eq(uv, T.add(*parts, 0))))

        def usage_of(nid: str, with_request: bool) -> T.Term:
            return usage_var[(nid, with_request)]

        for nid in path:
            used = usage_of(nid, True)
            if nid == root:
                out.append(_structural(f"fit|{nid}|{fname}|{res}", T.le(used, subtree(nid))))
                continue
            borrow = param(nid, "borrowing_limit")
            if borrow is not None:
                out.append(_structural(f"fit|{nid}|{fname}|{res}", T.le(used, T.add(subtree(nid), borrow))))
    return out


def _pooled(used: T.Term, guaranteed: T.Term, negative: bool) -> T.Term:
    """What a child puts in its parent's pool, max(0, U - G); plain U when G is 0 and no usage can be
    negative (`negative`: a transformation with a negative output factor, or a recorded negative
    usage), which keeps a chain of cohorts without lending limits free of case splits."""
    if isinstance(guaranteed, T.Const) and guaranteed.value == 0 and not negative:
        return used
    return T.max0(T.sub(used, guaranteed))


def _negative_usage(model) -> bool:
    """Whether some usage may be negative: a transformation's negative output factor, or an admitted
    workload's recorded negative usage (Kueue counts both as they are)."""
    cfg = model.config
    if cfg is not None and any(q < 0 for t in cfg.transformations for q in t.outputs.values()):
        return True
    return any(q < 0 for wl in model.workloads if wl.admission is not None
               for p in wl.admission.pod_sets for q in p.usage.values())


def _bottom_up(tree, root: str) -> list[str]:
    """The nodes of `root`'s tree, children before their parent (iterative)."""
    order: list[str] = []
    stack = [root]
    while stack:
        nid = stack.pop()
        order.append(nid)
        stack.extend(tree.nodes[nid].children)
    order.reverse()
    return order


def node_span(compiler, nid: str) -> Span | None:
    kind, name = nid.split(":", 1)
    obj = (compiler.index.cohorts if kind == "cohort" else compiler.index.cluster_queues).get(name)
    return obj.span if obj is not None else None


def _structural(oid: str, term: T.Term) -> Tracked:
    """Kueue's own quota rule (not a policy statement): asserted without a tracking literal."""
    return Tracked(Origin(oid, "structural", "", None), term)
