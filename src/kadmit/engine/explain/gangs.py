"""`why` for a gang kube-scheduler places all-or-nothing: its decision, and minimal unsat cores over
the nodes' capacity (`placement_cores`, no topology: any nodes), with the workloads and pods holding it."""

from __future__ import annotations

from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain.placement_cores import GangQuestion, Holding, gang_cores
from kadmit.engine.placing.gangs import GangDecision, template_of
from kadmit.model import Model, Topology
from kadmit.placement.domains import DomainTree
from kadmit.placement.inventory import NodeState, is_tas_pod, pod_usage


def gang_blame(model: Model, d: GangDecision, nodes: dict[str, NodeState],
               placed: dict[str, dict[str, dict[str, int]]], earlier: list[GangDecision]) -> tuple[list[list[Origin]], bool]:
    """Minimal cores of "`need` pods of the gang on the nodes now", against what it saw; False when
    the question is not unsat by per-node counting (nothing to blame)."""
    if d.placed or not d.pending or d.need > len(d.pending) or d.gang.policy != "gang":
        return [], False
    shapes = {template_of(p).requests + (template_of(p).node_selector, template_of(p).tolerations) for p in d.pending}
    if len(shapes) > 1:
        return [], False
    tree = DomainTree(Topology(name="cluster", levels=("kubernetes.io/hostname",)), (), [], dict(nodes), {}, (), [])
    holdings = _holdings(model, nodes, placed, earlier)
    q = GangQuestion(f"gang `{d.name}`", template_of(d.pending[0]), d.need, d.gang.field_span("min_count") or d.gang.span,
                     "unconstrained", None, "any nodes", None, tree, d.free_before, holdings,
                     d.pending[0].field_span("node_selector") or d.pending[0].span)
    found, unsat = gang_cores(q)
    return [list(c.origins) for c in found.cores], unsat


def _holdings(model: Model, nodes: dict[str, NodeState], placed: dict[str, dict[str, dict[str, int]]],
              earlier: list[GangDecision]) -> list[Holding]:
    out: list[Holding] = []
    by_key = {w.key: w for w in model.workloads}
    for key, usage in sorted(placed.items()):
        wl = by_key.get(key)
        out.append(Holding(key, "workload", {n: dict(u) for n, u in usage.items() if n in nodes},
                           wl.span if wl else None))
    for p in sorted(model.pods, key=lambda p: (p.namespace, p.name)):
        if p.holds_capacity and p.node_name in nodes and not is_tas_pod(p):
            out.append(Holding(f"{p.namespace}/{p.name}", "pod", {p.node_name: pod_usage(p.requests)}, p.span))
    for g in earlier:
        if g.placed and g.nodes:
            use: dict[str, dict[str, int]] = {}
            tpl = dict(template_of(g.pending[0]).requests) if g.pending else {}
            for n, k in g.nodes.items():
                use[n] = {r: v * k for r, v in tpl.items()}
            out.append(Holding(g.name, "gang", use, g.gang.span, new=True))
    return [h for h in out if h.usage]
