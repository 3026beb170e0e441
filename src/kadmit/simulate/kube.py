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


class KubeScheduler:
    """Places pods one at a time on nodes whose free capacity is `free` (shared with the engine's
    node pool, so topology-aware placements and these pods never take the same capacity)."""

    def __init__(self, nodes: list[NodeState], free: dict[str, dict[str, int]], scoring: Scoring) -> None:
        self.nodes = sorted(nodes, key=lambda n: n.name)
        self.free = free
        self.scoring = scoring
        self._static: dict[tuple, list[NodeState]] = {}

    def add_node(self, node: NodeState) -> None:
        self.nodes = sorted([*self.nodes, node], key=lambda n: n.name)
        self._static.clear()

    def feasible(self, tpl: PodTemplate) -> list[NodeState]:
        key = (tpl.node_selector, tpl.node_affinity, tpl.tolerations)
        got = self._static.get(key)
        if got is None:
            got = self._static[key] = [n for n in self.nodes if static_fit(tpl, n)]
        return got

    def place(self, tpl: PodTemplate, count: int) -> dict[str, int]:
        """Up to `count` pods, one at a time, each on the best-scored node with room; the capacity
        taken is subtracted from `free`. Returns node -> pods bound."""
        req = tpl.request_map
        out: dict[str, int] = {}
        candidates = [n for n in self.feasible(tpl) if free_fit_count(tpl, self.free[n.name]) > 0]
        per_pod = pod_usage(req, 1)
        for _ in range(count):
            best, best_score = None, -1
            for n in candidates:
                free = self.free[n.name]
                if free_fit_count(tpl, free) <= 0:
                    continue
                s = score(self.scoring, req, n.allocatable, free)
                if s > best_score:
                    best, best_score = n, s
            if best is None:
                break
            self.free[best.name] = subtract(self.free[best.name], per_pod)
            out[best.name] = out.get(best.name, 0) + 1
        return out
