"""Node inventory: each node's allocatable, what holds it, and what is free for new pods.

Free capacity is `allocatable - usage`, per resource, in milli-units, the `pods` count included
(every pod takes one `pods`, i.e. 1000 milli-units). Usage comes from bound, non-terminal pods
(`Pod.holds_capacity`; with `skip_tas_pods`, not the pods of TAS workloads: `is_tas_pod`) and from
`extra_usage` (the caller's, e.g. admitted workloads' placements).
Free capacity may be negative when a node is over-committed; nothing fits there then.

Every node stays in the inventory, with the taints kube-scheduler would see: a node that is not
`ready` carries `node.kubernetes.io/not-ready:NoSchedule`, as the node lifecycle controller adds.
`Inventory.excluded` names the nodes that are unschedulable or not ready, with the reason text
kube-scheduler prints for them; Kueue's topology-aware scheduling leaves them out entirely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Mapping

from kadmit.diagnostics import Diagnostics
from kadmit.model import Model, Node, Pod, PodSet, PodSetAssignment, Taint
from kadmit.placement.codes import KAD600, KAD601
from kadmit.quantity import MILLI

PODS = "pods"
ONE_POD = MILLI  # one pod of the `pods` resource, in milli-units
DEFAULT_MAX_PODS = 110  # the kubelet's default `maxPods`, for nodes declared without `pods`
NOT_READY_TAINT = Taint(key="node.kubernetes.io/not-ready", effect="NoSchedule")
UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", effect="NoSchedule")

REASON_UNSCHEDULABLE = "node(s) were unschedulable"


@dataclass(frozen=True, eq=False)
class NodeState:
    """One node as the scheduler sees it: labels, effective taints, allocatable, usage, free."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]  # the node's own, plus the not-ready taint when not ready
    unschedulable: bool
    ready: bool
    allocatable: Mapping[str, int]  # `pods` always present
    used: Mapping[str, int]
    node: Node | None = None  # the model object, for spans; None for synthetic nodes
    holders: tuple[str, ...] = ()  # what holds its capacity: `namespace/name` of bound pods, sorted

    @property
    def free(self) -> dict[str, int]:
        return subtract(self.allocatable, self.used)

    def with_usage(self, extra: Mapping[str, int], holder: str | None = None) -> "NodeState":
        """The same node with more capacity used."""
        holders = self.holders if holder is None else tuple(sorted({*self.holders, holder}))
        return NodeState(self.name, self.labels, self.taints, self.unschedulable, self.ready,
                         self.allocatable, add(self.used, extra), self.node, holders)


@dataclass(frozen=True)
class Inventory:
    """Every node (sorted by name) and the nodes no ordinary pod can use, with kube-scheduler's reason."""

    nodes: tuple[NodeState, ...]
    excluded: Mapping[str, str] = field(default_factory=dict)  # node -> reason

    @property
    def usable(self) -> tuple[NodeState, ...]:
        """Ready, schedulable nodes: the ones Kueue's topology-aware scheduling considers."""
        return tuple(n for n in self.nodes if n.name not in self.excluded)

    @cached_property
    def by_name(self) -> dict[str, NodeState]:
        return {n.name: n for n in self.nodes}

    def get(self, name: str) -> NodeState | None:
        return self.by_name.get(name)


def add(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def subtract(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) - v
    return out


def pod_usage(requests: Mapping[str, int], pods: int = 1) -> dict[str, int]:
    """What `pods` pods with these per-pod requests take from a node, their `pods` count included."""
    out = {r: q * pods for r, q in requests.items() if r != PODS and q}
    out[PODS] = ONE_POD * pods
    return out


def node_state(node: Node, used: Mapping[str, int] | None = None, holders: Iterable[str] = ()) -> NodeState:
    """A node's state with the given usage (none by default)."""
    allocatable = dict(node.allocatable)
    allocatable.setdefault(PODS, DEFAULT_MAX_PODS * ONE_POD)
    taints = tuple(node.taints)
    if not node.ready and not any(t.key == NOT_READY_TAINT.key and t.effect == NOT_READY_TAINT.effect
                                  for t in taints):
        taints += (NOT_READY_TAINT,)
    return NodeState(node.name, dict(node.labels), taints, node.unschedulable, node.ready,
                     allocatable, dict(used or {}), node, tuple(sorted(set(holders))))


def exclusion_reason(state: NodeState) -> str | None:
    """Why no ordinary pod lands on this node: unschedulable first, as kube-scheduler's filters run."""
    if state.unschedulable:
        return REASON_UNSCHEDULABLE
    if not state.ready:
        return untolerated_taint_reason(NOT_READY_TAINT)
    return None


def untolerated_taint_reason(taint: Taint, detailed: bool = True) -> str:
    """kube-scheduler's TaintToleration reason. Releases before 1.34 name the first untolerated
    taint as `{key: value}`; later ones print `node(s) had untolerated taint(s)`."""
    if not detailed:
        return "node(s) had untolerated taint(s)"
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


def is_tas_pod(pod: Pod) -> bool:
    """Whether Kueue v0.17 takes this pod for one of a TAS workload's (pkg/util/tas `IsTAS`): it carries
    a `kueue.x-k8s.io/podset-{preferred,required,unconstrained}-topology` annotation (any value), as
    the pods of a pod template that asks for a topology do. The `kueue.x-k8s.io/tas` label Kueue v0.19
    puts on them is not read: v0.17 doesn't know it (docs/KUEUE-SETTINGS.md)."""
    return pod.tas_annotation is not None


def build_inventory(nodes: Iterable[Node], pods: Iterable[Pod] = (),
                    extra_usage: Mapping[str, Mapping[str, int]] | None = None,
                    diags: Diagnostics | None = None, skip_tas_pods: bool = False) -> Inventory:
    """Free capacity of every node.

    `extra_usage` maps a node name to usage beyond bound pods (admitted workloads' placements,
    as `pod_usage(requests, n)` gives it: the `pods` count included). The first node of each
    name wins, as elsewhere in the model. With `diags`, pods bound to unknown nodes (KAD600) and
    nodes without a `pods` limit (KAD601) are reported.

    `skip_tas_pods` leaves out the pods of TAS workloads (`is_tas_pod`), as Kueue's TAS cache does: it
    counts a TAS workload through its admission's topology assignment and only the other pods
    through the nodes they are bound to. An export holding both the Workloads and their Pods
    would otherwise count those pods twice. Skipped pods take nothing and hold nothing; one bound
    to an unknown node is still reported.
    """
    first: dict[str, Node] = {}
    for n in nodes:
        first.setdefault(n.name, n)
    used: dict[str, dict[str, int]] = {name: {} for name in first}
    holders: dict[str, set[str]] = {name: set() for name in first}
    for p in pods:
        if not p.holds_capacity:
            continue
        if p.node_name not in first:
            if diags is not None:
                diags.emit(KAD600, f"pod `{p.namespace}/{p.name}` is bound to unknown node `{p.node_name}`",
                           p.field_span("node_name"))
            continue
        if skip_tas_pods and is_tas_pod(p):
            continue
        used[p.node_name] = add(used[p.node_name], pod_usage(p.requests))
        holders[p.node_name].add(f"{p.namespace}/{p.name}")
    for name, usage in sorted((extra_usage or {}).items()):
        if name in used:
            used[name] = add(used[name], usage)
    states = []
    excluded: dict[str, str] = {}
    for name in sorted(first):
        node = first[name]
        if PODS not in node.allocatable and diags is not None:
            diags.emit(KAD601, f"node `{name}` declares no `pods` in `allocatable`; assuming "
                       f"{DEFAULT_MAX_PODS}", node.field_span("allocatable"))
        state = node_state(node, used[name], holders[name])
        states.append(state)
        reason = exclusion_reason(state)
        if reason is not None:
            excluded[name] = reason
    return Inventory(tuple(states), excluded)


def model_inventory(model: Model, extra_usage: Mapping[str, Mapping[str, int]] | None = None,
                    diags: Diagnostics | None = None, skip_tas_pods: bool = False) -> Inventory:
    """`build_inventory` over a model's nodes and pods."""
    return build_inventory(model.nodes, model.pods, extra_usage, diags, skip_tas_pods=skip_tas_pods)


def admitted_pod_requests(ps: PodSet | None, psa: PodSetAssignment) -> dict[str, int]:
    """One pod's requests as Kueue v0.17's TAS cache counts an admitted pod set on its nodes: the
    admission's recorded usage divided by its count (workload.totalRequestsFromAdmission,
    SinglePodRequests), where the admission records one that the pod set's requests don't give;
    else the pod set's own (the reader leaves out a usage equal to count x requests)."""
    if psa.unrecorded:  # no resourceUsage: Kueue's single-pod requests are empty (its pods' count aside)
        return {}
    if psa.tas_pod is not None:  # reclaimable pods off its count: one pod's usage as recorded
        return dict(psa.tas_pod)
    if psa.usage and psa.count > 0:
        return {r: q // psa.count for r, q in sorted(psa.usage.items())}
    return ps.placed_requests if ps is not None else {}
