"""`kadmit why --with-capacity NODEPOOL`: how many new nodes of a Karpenter pool would admit a workload.

The nodes are the ones Karpenter would create for the workload's pods (`karpenter.pack`: first-fit
decreasing, the cheapest shape per claim, within the pool's limits). The answer is the fewest of
them (binary search over how many join, in the order Karpenter made them) with which the engine,
deciding the whole state again as `admit` does, admits the workload and has room on the nodes for
every one of its pods; that last decision is the check behind the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.decide import admit
from kadmit.model import Model, Node, Workload
from kadmit.placement.filters import PodTemplate
from kadmit.simulate.karpenter import NodePoolModel, pack


@dataclass
class CapacityAnswer:
    workload: str
    pool: str
    nodes: list[Node] = field(default_factory=list)  # the fewest that admit it, [] if none needed
    admitted_now: bool = False
    possible: bool = False  # some number of the pool's nodes admits it
    reason: str = ""
    shapes: dict[str, int] = field(default_factory=dict)
    undecided: bool = False  # a decision it needed stayed unknown within the solver's limits

    def text(self) -> str:
        if self.undecided:
            return (f"how many new nodes of nodepool {self.pool} would admit {self.workload} is not known: "
                    "deciding the state again stayed unknown within the solver's limits")
        if self.admitted_now:
            return f"{self.workload} is admitted and its pods fit without new nodes of nodepool {self.pool}"
        if not self.possible:
            return f"no number of new nodes of nodepool {self.pool} admits {self.workload}: {self.reason}"
        shapes = ", ".join(f"{n} x {s}" for s, n in sorted(self.shapes.items()))
        return (f"{len(self.nodes)} new node(s) of nodepool {self.pool} ({shapes}) would admit {self.workload} "
                f"with room for every pod (checked: the engine decides the state again with them; one fewer "
                f"is not enough)")


class _Undecided(Exception):
    """Deciding the state again stayed unknown within the solver's limits."""


def _admits(model: Model, key: str, nodes: list[Node], **kw) -> tuple[bool, str]:
    result = admit(model.model_copy(update={"nodes": model.nodes + tuple(nodes)}), "ordered", **kw)
    if result.unknown:
        raise _Undecided()
    d = next((d for d in result.decisions if d.key == key), None)
    if d is None:  # admitted in the input, untouched
        return True, ""
    if not d.admitted:
        reasons = result.reasons.get(key, [])
        return False, "; ".join(f"{r.code}: {r.message}" for r in reasons[:2])
    room = [n for n in d.notes if "the nodes hold only" in n]
    return not room, "; ".join(room)


def _templates(model: Model, wl: Workload, pool: NodePoolModel) -> list[tuple[PodTemplate, int]]:
    """The workload's pods as they would land on the pool's nodes: with the node labels and
    tolerations of the first flavor of its queue whose node labels the pool's nodes carry."""
    from kadmit.index import ModelIndex
    ix = ModelIndex(model)
    cq = ix.cluster_queue_of(wl)
    probe = pool.node(pool.shapes[-1], 0).labels
    flavors = []
    if cq is not None:
        for g in cq.resource_groups:
            for fq in g.flavors:
                fl = ix.flavors.get(fq.flavor)
                if fl is not None and all(probe.get(k) == v for k, v in fl.node_labels.items()):
                    flavors.append(fl)
                    break
    return [(PodTemplate.build(ps, flavors), ps.count) for ps in wl.pod_sets]


def with_capacity(model: Model, key: str, pool: NodePoolModel, **kw) -> CapacityAnswer:
    """The answer (`kw`: `admit`'s `limits` and `tas_profile`); `undecided` when a decision it needed
    stayed unknown."""
    try:
        return _with_capacity(model, key, pool, **kw)
    except _Undecided:
        return CapacityAnswer(key, pool.name, undecided=True)


def _with_capacity(model: Model, key: str, pool: NodePoolModel, **kw) -> CapacityAnswer:
    wl = next(w for w in model.workloads if w.key == key)
    out = CapacityAnswer(key, pool.name)
    ok, why = _admits(model, key, [], **kw)
    if ok:
        out.admitted_now = True
        return out
    nodes, placed = pack(pool, _templates(model, wl, pool))
    if not nodes or not _admits(model, key, nodes, **kw)[0]:
        out.reason = why if not nodes else (_admits(model, key, nodes, **kw)[1] or why)
        if placed < sum(ps.count for ps in wl.pod_sets):
            out.reason = f"the pool's nodes can't hold all its pods (requirements, taints or limits); {out.reason}"
        return out
    lo, hi = 1, len(nodes)
    while lo < hi:  # the fewest, in Karpenter's order; monotone: more nodes never un-admit it
        mid = (lo + hi) // 2
        if _admits(model, key, nodes[:mid], **kw)[0]:
            hi = mid
        else:
            lo = mid + 1
    out.nodes = nodes[:lo]
    out.possible = True
    for n in out.nodes:
        shape = n.labels.get("node.kubernetes.io/instance-type", "?")
        out.shapes[shape] = out.shapes.get(shape, 0) + 1
    return out
