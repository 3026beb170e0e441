"""Small builders of nodes, pods and pod templates for the placement tests.

Quantities are whole units (`8`) or Kubernetes strings (`"500m"`, `"64Gi"`); `gpu` stands for
`nvidia.com/gpu`.
"""

from __future__ import annotations

from kadmit.model import Node, NodeSelectorTerm, Pod, PodSet, Requirement, Taint, Toleration, Topology
from kadmit.placement.filters import PodTemplate
from kadmit.placement.inventory import add, node_state
from kadmit.quantity import parse_quantity

GPU = "nvidia.com/gpu"
BLOCK, RACK, HOST = "cloud.example.com/block", "cloud.example.com/rack", "kubernetes.io/hostname"
DC = Topology(name="dc", levels=(BLOCK, RACK, HOST))
DC_RACKS = Topology(name="dc-racks", levels=(BLOCK, RACK))


def qty(value) -> int:
    return value * 1000 if isinstance(value, int) else parse_quantity(str(value))


def quantities(**resources) -> dict[str, int]:
    return {GPU if k == "gpu" else k.replace("_", "-"): qty(v) for k, v in resources.items()}


def node(name: str, labels: dict | None = None, taints=(), unschedulable=False, ready=True,
         block: str | None = None, rack: str | None = None, **allocatable) -> Node:
    """`node("n1", gpu=8, cpu=96, pods=110, rack="r1", block="b1")` with hostname label."""
    lab = {HOST: name, **(labels or {})}
    if block:
        lab[BLOCK] = block
    if rack:
        lab[RACK] = rack
    alloc = quantities(**allocatable)
    alloc.setdefault("pods", 110_000)
    return Node(name=name, labels=lab, taints=tuple(taints), allocatable=alloc,
                unschedulable=unschedulable, ready=ready)


def state(name: str = "n", **kw):
    return node_state(node(name, **kw))


def pod(name: str, on: str | None, phase="Running", **requests) -> Pod:
    return Pod(namespace="ns", name=name, node_name=on, requests=quantities(**requests), phase=phase)


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> Taint:
    return Taint(key=key, value=value, effect=effect)


def tol(key: str = "", value: str = "", effect: str = "", op: str | None = None) -> Toleration:
    return Toleration(key=key, value=value, effect=effect, operator=op or ("Equal" if value else "Exists"))


def req(key: str, op: str, *values: str) -> Requirement:
    return Requirement(key=key, operator=op, values=tuple(values))


def term(*reqs: Requirement, fields: tuple[Requirement, ...] = ()) -> NodeSelectorTerm:
    """Expressions `reqs` and `matchFields` `fields` (on `metadata.name`), ANDed."""
    return NodeSelectorTerm(match_expressions=tuple(reqs), match_fields=tuple(fields))


def template(selector: dict | None = None, affinity=(), tolerations=(), name="p", **requests) -> PodTemplate:
    ps = PodSet(name=name, requests=quantities(**requests), node_selector=selector or {},
                node_affinity=tuple(affinity), tolerations=tuple(tolerations))
    return PodTemplate.build(ps)


def admitted_usage(model) -> dict[str, dict[str, int]]:
    """What admitted workloads' placements take, by leaf key (a node, or a rack leaf), as the engine's
    pool counts them (`NodePool.admitted_usage`, Kueue's TAS cache): usage to pass to `model_inventory`."""
    from kadmit.engine.placing.pool import NodePool
    from kadmit.index import ModelIndex

    out: dict[str, dict[str, int]] = {}
    for taken in NodePool(model, ModelIndex(model)).placed.values():
        for key, use in taken.items():
            out[key] = add(out.get(key, {}), use)
    return out
