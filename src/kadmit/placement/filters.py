"""kube-scheduler's Filter semantics per (pod template, node), with the reasons it prints.

The default profile runs its filters in order and stops at the first that rejects a node:
NodeUnschedulable, TaintToleration, NodeAffinity (nodeSelector and required node affinity),
NodeResourcesFit. Only NodeResourcesFit gives several reasons at once (one per short resource).
NodeName, NodePorts, volumes and inter-pod affinity are out of scope.

`histogram` renders kube-scheduler's FitError text: `0/N nodes are available: ` then one
`COUNT REASON` per reason, sorted as strings (so `128 node(s)…` sorts before `512 Insufficient…`),
joined by `, ` and closed by `.`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping

from kadmit.model import NodeSelectorTerm, PodSet, Requirement, ResourceFlavor, Taint, Toleration
from kadmit.placement.inventory import (ONE_POD, PODS, REASON_UNSCHEDULABLE, UNSCHEDULABLE_TAINT, NodeState,
                                        untolerated_taint_reason)

REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_TOO_MANY_PODS = "Too many pods"
NO_NODES = "no nodes available to schedule pods"
_NATIVE_ORDER = {PODS: 0, "cpu": 1, "memory": 2, "ephemeral-storage": 3}


@dataclass(frozen=True)
class PodTemplate:
    """One pod of a pod group as kube-scheduler sees it after Kueue admitted it to a flavor.

    `requests` are per pod and include one `pods`; `node_selector` pairs are ANDed (a key given
    twice with different values, by the pod set and a flavor, matches no node); `node_affinity`
    terms are ORed, an empty tuple meaning no required affinity.
    """

    name: str
    requests: tuple[tuple[str, int], ...]
    node_selector: tuple[tuple[str, str], ...] = ()
    node_affinity: tuple[NodeSelectorTerm, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    flavors: tuple[str, ...] = ()

    @property
    def request_map(self) -> dict[str, int]:
        return dict(self.requests)

    @staticmethod
    def build(pod_set: PodSet, flavors: Iterable[ResourceFlavor] = ()) -> "PodTemplate":
        """The pod of `pod_set` with the flavors' node labels added to its node selector and their
        tolerations to its tolerations, as Kueue does when it admits the pod set."""
        flavors = sorted(flavors, key=lambda f: f.name)
        requests = {r: q for r, q in pod_set.placed_requests.items() if r != PODS and q}
        requests[PODS] = ONE_POD
        selector = set(pod_set.node_selector.items())
        tolerations = list(pod_set.tolerations)
        for f in flavors:
            selector.update(f.node_labels.items())
            tolerations.extend(t for t in f.tolerations if t not in tolerations)
        return PodTemplate(pod_set.name, tuple(sorted(requests.items())), tuple(sorted(selector)),
                           tuple(pod_set.node_affinity), tuple(tolerations), tuple(f.name for f in flavors))


def requirement_matches(req: Requirement, labels: Mapping[str, str]) -> bool:
    """A node selector requirement, as Kubernetes' label selectors evaluate it."""
    return req.matches(labels)  # type: ignore[arg-type]  # only reads it


def term_matches(term: NodeSelectorTerm, labels: Mapping[str, str], name: str | None = None) -> bool:
    """A node selector term: its expressions and its fields (`name`: the node's) ANDed; an empty term
    matches no node."""
    return term.matches(labels, name)  # type: ignore[arg-type]


def tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def node_unschedulable(pod: PodTemplate, node: NodeState) -> list[str]:
    if node.unschedulable and not tolerated(UNSCHEDULABLE_TAINT, pod.tolerations):
        return [REASON_UNSCHEDULABLE]
    return []


def untolerated_taint(pod: PodTemplate, node: NodeState) -> Taint | None:
    """The node's first NoSchedule/NoExecute taint the pod doesn't tolerate (PreferNoSchedule only scores)."""
    return next((t for t in node.taints if t.effect in ("NoSchedule", "NoExecute")
                 and not tolerated(t, pod.tolerations)), None)


def taint_toleration(pod: PodTemplate, node: NodeState, detailed: bool = True) -> list[str]:
    """`untolerated_taint`, as kube-scheduler's TaintToleration filter says it."""
    taint = untolerated_taint(pod, node)
    return [] if taint is None else [untolerated_taint_reason(taint, detailed)]


def node_affinity(pod: PodTemplate, node: NodeState) -> list[str]:
    labels = node.labels
    ok = all(labels.get(k) == v for k, v in pod.node_selector)
    if ok and pod.node_affinity:
        ok = any(term_matches(t, labels, node.name) for t in pod.node_affinity)
    return [] if ok else [REASON_AFFINITY]


def _resource_order(resource: str) -> tuple[int, str]:
    return (_NATIVE_ORDER.get(resource, 4), resource)


def node_resources_fit(pod: PodTemplate, free: Mapping[str, int]) -> list[str]:
    """Every resource the pod requests more of than is free: `Too many pods`, `Insufficient R`."""
    out = []
    for resource, want in sorted(pod.requests, key=lambda rq: _resource_order(rq[0])):
        if want > 0 and want > free.get(resource, 0):
            out.append(REASON_TOO_MANY_PODS if resource == PODS else f"Insufficient {resource}")
    return out


def filter_node(pod: PodTemplate, node: NodeState, free: Mapping[str, int] | None = None, *,
                detailed_taints: bool = True) -> list[str]:
    """Why kube-scheduler filters `node` out for `pod` (empty when the pod fits). `free` defaults
    to the node's free capacity; pass less to account for pods placed meanwhile."""
    return (node_unschedulable(pod, node)
            or taint_toleration(pod, node, detailed_taints)
            or node_affinity(pod, node)
            or node_resources_fit(pod, node.free if free is None else free))


def static_fit(pod: PodTemplate, node: NodeState) -> bool:
    """The filters that don't depend on capacity: unschedulable, taints, affinity/selector."""
    return not (node_unschedulable(pod, node) or taint_toleration(pod, node) or node_affinity(pod, node))


def reason_counts(pod: PodTemplate, nodes: Iterable[NodeState],
                  free: Mapping[str, Mapping[str, int]] | None = None, *,
                  detailed_taints: bool = True) -> tuple[int, int, Counter]:
    """(feasible nodes, all nodes, reason -> nodes rejected for it)."""
    counts: Counter = Counter()
    total = feasible = 0
    for node in nodes:
        total += 1
        reasons = filter_node(pod, node, None if free is None else free.get(node.name),
                              detailed_taints=detailed_taints)
        if not reasons:
            feasible += 1
        counts.update(reasons)
    return feasible, total, counts


def histogram(pod: PodTemplate, nodes: Iterable[NodeState],
              free: Mapping[str, Mapping[str, int]] | None = None, *, detailed_taints: bool = True) -> str:
    """kube-scheduler's FitError text for `pod` over `nodes`.

    >>> from kadmit.model import Node
    >>> from kadmit.placement.inventory import node_state
    >>> n = node_state(Node(name="a", allocatable={"cpu": 4000}))
    >>> histogram(PodTemplate("p", (("cpu", 8000), ("pods", 1000))), [n])
    '0/1 nodes are available: 1 Insufficient cpu.'

    When some nodes fit (a gang may still not), the count of feasible nodes leads instead of 0.
    """
    feasible, total, counts = reason_counts(pod, nodes, free, detailed_taints=detailed_taints)
    if total == 0:
        return NO_NODES
    head = f"{feasible}/{total} nodes are available"
    parts = sorted(f"{n} {reason}" for reason, n in counts.items())
    return f"{head}: {', '.join(parts)}." if parts else f"{head}."


def capacity_holders(pod: PodTemplate, nodes: Iterable[NodeState]) -> dict[str, tuple[str, ...]]:
    """Nodes that pass every filter but NodeResourcesFit, with what holds their capacity (for blame)."""
    return {n.name: n.holders for n in sorted(nodes, key=lambda n: n.name)
            if static_fit(pod, n) and node_resources_fit(pod, n.free)}
