"""Node equivalence classes: nodes no pod template can tell apart, in the same topology domain.

Two nodes fall in one class when they agree on the labels that matter, their taints,
`unschedulable`, readiness and free capacity, and lie in the same topology domain (the values of
the topology's levels above the host level). The per-node hostname label is left out unless
asked for, so thousands of identical nodes in a rack make one class, and an encoding over
classes grows with the number of distinct node shapes, not with the number of nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from kadmit.index import HOSTNAME_LABEL
from kadmit.model import Topology
from kadmit.modelscheduling import NODE_NAME_FIELD
from kadmit.placement.filters import PodTemplate, filter_node
from kadmit.placement.inventory import NodeState


@dataclass(frozen=True, eq=False)
class NodeClass:
    """Nodes that are interchangeable for placement; `representative` is the first of them."""

    name: str  # the first node's name, with `+N` for N more nodes
    domain: tuple[str, ...] | None  # level values above the host level; None outside the topology
    labels: Mapping[str, str]  # the labels that matter (topology levels and hostname excluded)
    nodes: tuple[str, ...]  # sorted
    representative: NodeState

    @property
    def size(self) -> int:
        return len(self.nodes)

    @property
    def free(self) -> dict[str, int]:
        return self.representative.free

    def reasons(self, pod: PodTemplate, *, detailed_taints: bool = True) -> list[str]:
        """kube-scheduler's reasons for filtering out every node of the class (empty if they fit)."""
        return filter_node(pod, self.representative, detailed_taints=detailed_taints)


def relevant_label_keys(templates: Iterable[PodTemplate]) -> frozenset[str]:
    """Label keys that node selectors or required affinity of these templates read, and NODE_NAME_FIELD
    where a term reads the node's name (`matchFields`), which then tells every node apart."""
    keys: set[str] = set()
    for t in templates:
        keys.update(k for k, _ in t.node_selector)
        for term in t.node_affinity:
            keys.update(r.key for r in term.match_expressions)
            if term.match_fields:
                keys.add(NODE_NAME_FIELD)
    return frozenset(keys)


def domain_levels(topology: Topology | None) -> tuple[str, ...]:
    """The topology's level keys that group several nodes: every level but the hostname."""
    if topology is None:
        return ()
    return tuple(k for k in topology.levels if k != HOSTNAME_LABEL)


def domain_path(node: NodeState, topology: Topology | None) -> tuple[str, ...] | None:
    """The node's values for the topology's levels above the host; None if it lacks one of the
    topology's labels (Kueue's topology-aware scheduling ignores such nodes)."""
    if topology is None:
        return ()
    if any(k not in node.labels for k in topology.levels):
        return None
    return tuple(node.labels[k] for k in domain_levels(topology))


def _shape(node: NodeState, keys: frozenset[str] | None, skip: frozenset[str]) -> tuple:
    labels = tuple(sorted((k, v) for k, v in node.labels.items()
                          if k not in skip and (keys is None or k in keys)))
    taints = tuple((t.key, t.value, t.effect) for t in node.taints)
    free = tuple(sorted((r, q) for r, q in node.free.items() if q))
    name = node.name if keys is not None and NODE_NAME_FIELD in keys else None
    return labels, taints, node.unschedulable, node.ready, free, name


def node_classes(nodes: Sequence[NodeState], topology: Topology | None = None,
                 label_keys: Iterable[str] | None = None) -> list[NodeClass]:
    """Partition `nodes` into classes, sorted by domain (nodes outside the topology last), then name.

    `label_keys` restricts the labels compared to those keys (use `relevant_label_keys` of the
    templates to be placed); by default every label but the topology levels and the hostname
    counts. Pass the hostname key in `label_keys` when a template selects on it, and NODE_NAME_FIELD when
    one selects on the node's name.
    """
    keys = None if label_keys is None else frozenset(label_keys)
    skip = set(domain_levels(topology))
    if keys is None or HOSTNAME_LABEL not in keys:
        skip.add(HOSTNAME_LABEL)
    groups: dict[tuple, list[NodeState]] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        path = domain_path(node, topology)
        groups.setdefault((path, _shape(node, keys, frozenset(skip))), []).append(node)
    out = []
    for (path, shape), members in groups.items():
        first = members[0]
        name = first.name if len(members) == 1 else f"{first.name}+{len(members) - 1}"
        out.append(NodeClass(name, path, dict(shape[0]), tuple(m.name for m in members), first))
    out.sort(key=lambda c: (c.domain is None, c.domain or (), c.nodes[0]))
    return out
