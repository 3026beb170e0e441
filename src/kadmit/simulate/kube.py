"""kube-scheduler's placement of single pods: its filters, then NodeResourcesFit scoring.

Pods wait in kube-scheduler's active queue order (priority, then arrival); each pod goes to the
feasible node with the highest score, ties to the first node by name (kube-scheduler picks among
equal scores at random; a simulation must be repeatable). A pod that fits nowhere waits without
blocking the pods behind it. Scoring is NodeResourcesFit's:
- LeastAllocated: per resource `(allocatable - requested) * 100 // allocatable`,
- MostAllocated: per resource `requested * 100 // allocatable`,
`requested` counting the pod; weighted mean over cpu and memory (kube-scheduler's default resources,
weight 1) plus every extended resource the pod asks for (nvidia.com/gpu, …: what GPU clusters
configure). Other score plugins, percentageOfNodesToScore sampling and kube-scheduler's own
preemption are not modelled.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Literal, Mapping

from kadmit.placement.filters import PodTemplate, static_fit
from kadmit.placement.domains import free_fit_count
from kadmit.placement.inventory import NodeState, pod_usage, subtract

Scoring = Literal["LeastAllocated", "MostAllocated"]
DEFAULT_RESOURCES = ("cpu", "memory")


def score(scoring: Scoring, tpl_requests: Mapping[str, int], allocatable: Mapping[str, int],
          free: Mapping[str, int]) -> int:
    """NodeResourcesFit's score (0–100) of a node for one more pod."""
    resources = list(DEFAULT_RESOURCES) + sorted(r for r in tpl_requests if r not in DEFAULT_RESOURCES
                                                  and r != "pods" and "/" in r)
    total = 0
    for r in resources:
        cap = allocatable.get(r, 0)
        if cap <= 0:
            continue  # kube-scheduler scores 0 for a resource the node doesn't have
        requested = cap - free.get(r, 0) + tpl_requests.get(r, 0)
        if scoring == "LeastAllocated":
            total += 0 if requested > cap else (cap - requested) * 100 // cap
        else:
            total += 0 if requested > cap else requested * 100 // cap
    return total // len(resources)


class ChangeLog(dict):
    """Free capacity per node that remembers which nodes changed (the engine's node pool writes
    through it too), so each pod shape rescores only those."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.log: list[str] = []

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self.log.append(key)


@dataclass
class _Shape:
    feasible: dict[str, NodeState]
    heap: list = field(default_factory=list)  # (-score, node, sequence, free dict scored)
    seen: int = 0  # position in the change log already taken in


class KubeScheduler:
    """Places pods one at a time on nodes whose free capacity is `free` (shared with the engine's
    node pool, so topology-aware placements and these pods never take the same capacity). Per pod
    shape, a heap of nodes by score, rescored only where capacity changed."""

    def __init__(self, nodes: list[NodeState], free: ChangeLog, scoring: Scoring) -> None:
        self.nodes = sorted(nodes, key=lambda n: n.name)
        self.free = free
        self.scoring = scoring
        self._shapes: dict[tuple, _Shape] = {}
        self._seq = itertools.count()  # heap entries never compare their dicts

    def add_node(self, node: NodeState) -> None:
        self.nodes = sorted([*self.nodes, node], key=lambda n: n.name)
        for key, shape in self._shapes.items():
            if static_fit(shape.tpl, node):  # type: ignore[attr-defined]
                shape.feasible[node.name] = node
        self.free.log.append(node.name)

    def _shape(self, tpl: PodTemplate) -> _Shape:
        key = (tpl.requests, tpl.node_selector, tpl.node_affinity, tpl.tolerations)
        got = self._shapes.get(key)
        if got is None:
            got = self._shapes[key] = _Shape({n.name: n for n in self.nodes if static_fit(tpl, n)})
            got.tpl = tpl  # type: ignore[attr-defined]
            req = tpl.request_map
            for name, n in got.feasible.items():
                self._push(got, tpl, req, n)
            heapq.heapify(got.heap)
            got.seen = len(self.free.log)
        return got

    def _push(self, shape: _Shape, tpl: PodTemplate, req: Mapping[str, int], n: NodeState) -> None:
        free = self.free[n.name]
        if free_fit_count(tpl, free) > 0:
            shape.heap.append((-score(self.scoring, req, n.allocatable, free), n.name, next(self._seq), free))

    def place(self, tpl: PodTemplate, count: int) -> dict[str, int]:
        """Up to `count` pods, one at a time, each on the best-scored node with room; the capacity
        taken is subtracted from `free`. Returns node -> pods bound."""
        shape = self._shape(tpl)
        req = tpl.request_map
        per_pod = pod_usage(req, 1)
        out: dict[str, int] = {}
        for _ in range(count):
            log = self.free.log
            if shape.seen < len(log):
                for name in sorted(set(log[shape.seen:])):
                    n = shape.feasible.get(name)
                    if n is not None:
                        free = self.free[name]
                        if free_fit_count(tpl, free) > 0:
                            heapq.heappush(shape.heap, (-score(self.scoring, req, n.allocatable, free), name, next(self._seq),
                                                     free))
                shape.seen = len(log)
            best = None
            while shape.heap:
                _, name, _, free = shape.heap[0]
                if self.free[name] is not free:
                    heapq.heappop(shape.heap)  # scored on capacity that has changed since
                    continue
                best = name
                break
            if best is None:
                break
            heapq.heappop(shape.heap)
            self.free[best] = subtract(self.free[best], per_pod)
            out[best] = out.get(best, 0) + 1
        return out
