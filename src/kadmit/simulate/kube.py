"""kube-scheduler's placement of single pods: its filters, then its default profile's resource scoring.

Pods wait in kube-scheduler's active queue order (priority, then arrival); each pod goes to the
feasible node with the highest score, ties to the first node by name (kube-scheduler picks among
equal scores at random; a simulation must be repeatable). A pod that fits nowhere waits without
blocking the pods behind it.

Filters (`placement.filters`): NodeUnschedulable, TaintToleration (NoSchedule and NoExecute taints),
NodeAffinity (nodeSelector, the flavors' node labels and required node affinity) and
NodeResourcesFit (every requested resource, and the pod count). That is all a trace row or an
admitted pod set can ask; NodeName, NodePorts, volumes and inter-pod affinity are out of scope.

Score: the sum of the score plugins' scores times their weights in kube-scheduler's default
profile (pkg/scheduler/apis/config/v1/default_plugins.go: NodeResourcesFit 1,
NodeResourcesBalancedAllocation 1):
- NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/{least,most}_allocated.go):
  LeastAllocated per resource `(allocatable - requested) * 100 // allocatable`, MostAllocated
  `requested * 100 // allocatable`, `requested` counting the pod; the mean over cpu and memory
  (kube-scheduler's default resources, weight 1) plus every extended resource the pod asks for
  (nvidia.com/gpu, …: what GPU clusters configure);
- NodeResourcesBalancedAllocation (noderesources/balanced_allocation.go, default resources cpu and
  memory): each resource's fraction `requested / allocatable` (capped at 1; a resource the node
  doesn't have is left out), `std` their standard deviation (`|f1 - f2| / 2` for two), score
  `int((1 - std) * 100)`; skipped for a pod that requests neither (a best-effort pod).
- TaintToleration, weight 3 (tainttoleration/taint_toleration.go): the count of the node's
  PreferNoSchedule taints the pod doesn't tolerate, normalized over the nodes that pass the filters
  for this pod (`100 - 100 * count // max`; every node 100 when no node has one). Only pod shapes
  that see such a taint pay for it: each of their pods scans the nodes with room.
Both profiles keep BalancedAllocation (`--scoring MostAllocated` changes NodeResourcesFit's strategy
only, as a scoringStrategy does). The other default score plugins give every node the same score
for the pods modelled here and are left out: NodeAffinity scores preferred terms (pods here carry
required ones only), PodTopologySpread and InterPodAffinity read pod labels and owners,
ImageLocality images. percentageOfNodesToScore sampling and kube-scheduler's own preemption are not
modelled.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from typing import Literal, Mapping

from kadmit.placement.filters import PodTemplate, static_fit, tolerated
from kadmit.placement.domains import free_fit_count
from kadmit.placement.inventory import NodeState, pod_usage, subtract

Scoring = Literal["LeastAllocated", "MostAllocated"]
DEFAULT_RESOURCES = ("cpu", "memory")


def score(scoring: Scoring, tpl_requests: Mapping[str, int], allocatable: Mapping[str, int],
          free: Mapping[str, int]) -> int:
    """The node's score for one more pod: NodeResourcesFit's (0–100) plus NodeResourcesBalancedAllocation's
    (0–100), each at weight 1."""
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
    return total // len(resources) + balanced(tpl_requests, allocatable, free)


def balanced(tpl_requests: Mapping[str, int], allocatable: Mapping[str, int], free: Mapping[str, int]) -> int:
    """NodeResourcesBalancedAllocation's score (0–100) of a node for one more pod, over cpu and memory."""
    if not any(tpl_requests.get(r, 0) for r in DEFAULT_RESOURCES):
        return 0  # a best-effort pod: the plugin is skipped
    fractions = []
    for r in DEFAULT_RESOURCES:
        cap = allocatable.get(r, 0)
        if cap == 0:
            continue
        fractions.append(min(1.0, (cap - free.get(r, 0) + tpl_requests.get(r, 0)) / cap))
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:  # (kept as kube-scheduler writes it, for more resources)
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    return int((1 - std) * 100)


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
    prefer: dict[str, int] = field(default_factory=dict)  # node -> untolerated PreferNoSchedule taints, if any
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
                count = _prefer_no_schedule(shape.tpl, node)  # type: ignore[attr-defined]
                if count or shape.prefer:
                    shape.prefer = {n: _prefer_no_schedule(shape.tpl, s)  # type: ignore[attr-defined]
                                    for n, s in shape.feasible.items()}
        self.free.log.append(node.name)

    def remove_node(self, name: str) -> None:
        """An empty node leaves: no shape considers it any more (heap entries for it are dropped
        when they come up, as stale ones are)."""
        self.nodes = [n for n in self.nodes if n.name != name]
        for shape in self._shapes.values():
            shape.feasible.pop(name, None)
            shape.prefer.pop(name, None)

    def _shape(self, tpl: PodTemplate) -> _Shape:
        key = (tpl.requests, tpl.node_selector, tpl.node_affinity, tpl.tolerations)
        got = self._shapes.get(key)
        if got is None:
            got = self._shapes[key] = _Shape({n.name: n for n in self.nodes if static_fit(tpl, n)})
            got.tpl = tpl  # type: ignore[attr-defined]
            prefer = {name: _prefer_no_schedule(tpl, n) for name, n in got.feasible.items()}
            if any(prefer.values()):
                got.prefer = prefer
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
        if shape.prefer:
            return self._place_scanning(shape, tpl, count, per_pod)
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
                if self.free.get(name) is not free:
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

    def _place_scanning(self, shape: _Shape, tpl: PodTemplate, count: int, per_pod: Mapping[str, int]) -> dict[str, int]:
        """`place` for a shape some of whose nodes carry PreferNoSchedule taints it doesn't tolerate:
        TaintToleration's score is normalized over the nodes with room, so every pod scans them."""
        req = tpl.request_map
        out: dict[str, int] = {}
        for _ in range(count):
            room = [(name, n) for name, n in sorted(shape.feasible.items()) if free_fit_count(tpl, self.free[name]) > 0]
            if not room:
                break
            top = max(shape.prefer.get(name, 0) for name, _ in room)
            best = max(room, key=lambda item: (
                score(self.scoring, req, item[1].allocatable, self.free[item[0]])
                + TAINT_WEIGHT * (100 - 100 * shape.prefer.get(item[0], 0) // top if top else 100),
                _Reverse(item[0])))[0]
            self.free[best] = subtract(self.free[best], per_pod)
            out[best] = out.get(best, 0) + 1
        shape.seen = len(self.free.log)
        shape.heap.clear()  # (never used for this shape)
        return out


TAINT_WEIGHT = 3


class _Reverse(str):
    """Ties go to the first node by name: under `max`, a smaller name compares greater."""

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)

    def __gt__(self, other: str) -> bool:
        return str.__lt__(self, other)


def _prefer_no_schedule(tpl: PodTemplate, node: NodeState) -> int:
    """TaintToleration's raw score: the node's PreferNoSchedule taints the pod doesn't tolerate."""
    return sum(1 for t in node.taints if t.effect == "PreferNoSchedule" and not tolerated(t, tpl.tolerations))
