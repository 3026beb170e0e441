"""Gangs kube-scheduler places all-or-nothing (a Kubernetes Workload's pod groups, coscheduling's
PodGroup): can `minCount` of their pods be placed on the nodes now, together?

They are not Kueue's: no queue, no quota. After Kueue's admissions took their node capacity, each
gang is placed in kube-scheduler's order (higher pod priority first, then older, then name) on the
free capacity the gangs before it left: its pods bound already count towards `minCount` (the
coscheduling plugin counts running and waiting pods; the gang plugin its scheduled ones); the
pending ones are placed one by one on the node with the most room that passes kube-scheduler's
filters, and the gang is placed when at least the rest of `minCount` lands. With one pod shape
this per-node fill is exact (it places as many as any placement can); with several shapes a gang
the fill can't place is undecided (`unknown`) rather than claimed impossible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from kadmit.model import Gang, Model, Pod
from kadmit.placement.domains import free_fit_count
from kadmit.placement.filters import PodTemplate, static_fit
from kadmit.placement.inventory import NodeState, subtract


@dataclass
class GangDecision:
    gang: Gang
    key: str  # the gang instance: its Gang.key, with `#replica` for a workload's replicated group
    name: str  # namespace/name as users call it
    placed: bool
    min_count: int
    existing: int  # pods of the gang in the input
    bound: int  # already on nodes (count towards minCount)
    need: int  # pods still to place together
    nodes: dict[str, int] = field(default_factory=dict)  # where its pending pods land
    reason: str = ""
    unknown: bool = False
    pending: list[Pod] = field(default_factory=list)
    free_before: dict[str, dict[str, int]] = field(default_factory=dict)  # what it saw


def template_of(pod: Pod) -> PodTemplate:
    requests = {r: q for r, q in pod.requests.items() if r != "pods" and q}
    requests["pods"] = 1000
    return PodTemplate(pod.name, tuple(sorted(requests.items())), tuple(sorted(pod.node_selector.items())),
                       (), tuple(pod.tolerations))


def instances(model: Model) -> list[tuple[str, Gang, list[Pod]]]:
    """Every gang instance with its pods: a workload group's pods split by replica key."""
    by_key = {}
    for g in model.gangs:
        by_key.setdefault(g.key, g)
    pods: dict[str, list[Pod]] = {}
    for p in model.pods:
        if p.gang is not None:
            pods.setdefault(p.gang, []).append(p)
    out = []
    replicated = {k.split("#", 1)[0] for k in pods if "#" in k}
    for key in sorted(set(by_key) | {k for k in pods if k.split("#", 1)[0] in by_key}):
        if key in replicated and key not in pods:
            continue  # a group split by replica keys: each replica is a gang of its own
        out.append((key, by_key[key.split("#", 1)[0]], sorted(pods.get(key, []), key=lambda p: p.name)))
    return out


def orphans(model: Model) -> list[tuple[str, list[Pod]]]:
    """Pods that name a gang the input doesn't define (kube-scheduler keeps them pending)."""
    known = {g.key for g in model.gangs}
    out: dict[str, list[Pod]] = {}
    for p in model.pods:
        if p.gang is not None and p.gang.split("#", 1)[0] not in known and p.pending:
            out.setdefault(p.gang, []).append(p)
    return sorted(out.items())


def decide_gangs(model: Model, free: Mapping[str, Mapping[str, int]], nodes: Mapping[str, NodeState]) -> list[GangDecision]:
    """Place every gang in kube-scheduler's order on `free` (node -> free capacity after Kueue's
    admissions); returns the decisions in that order. `free` is not changed."""
    room = {n: dict(f) for n, f in free.items()}
    todo = []
    for key, gang, pods in instances(model):
        prio = max((p.priority for p in pods), default=0)
        todo.append((-prio, key, gang, pods))
    out = []
    for _, key, gang, pods in sorted(todo, key=lambda t: (t[0], t[1])):
        bound = sum(1 for p in pods if p.holds_capacity)
        pending = [p for p in pods if p.pending]
        need = max(0, gang.min_count - bound)
        name = f"{gang.namespace}/{gang.name}" + (f"#{key.split('#', 1)[1]}" if "#" in key else "")
        d = GangDecision(gang, key, name, False, gang.min_count, len(pods), bound, need, pending=pending,
                         free_before={n: dict(f) for n, f in room.items()})
        if gang.policy == "basic":  # not a gang: each pod on its own
            placed, left = _fill(pending, room, nodes)
            count = sum(placed.values())
            d.nodes, d.placed, d.need = placed, count == len(pending), len(pending)
            d.reason = (f"basic policy (no gang): pods are scheduled one by one; {count} of its {len(pending)} "
                        "pending pods fit on the nodes now")
            room.update(left)
        elif need == 0:
            d.placed = True
            d.reason = f"{bound} of its pods are on nodes already (minCount {gang.min_count})"
        elif len(pending) < need:
            d.reason = (f"only {bound + len(pending)} of its {gang.min_count} pods (minCount) exist; kube-scheduler "
                        "waits for the rest before placing any")
        else:
            placed, left = _fill(pending, room, nodes)
            count = sum(placed.values())
            shapes = {template_of(p).requests + (template_of(p).node_selector, template_of(p).tolerations)
                      for p in pending}
            if count >= need:
                d.placed, d.nodes = True, placed
                d.reason = f"{count} pod{'s' if count != 1 else ''} placed together (minCount {gang.min_count})"
                room.update(left)
            elif len(shapes) > 1:
                d.unknown = True
                d.reason = (f"its pods have {len(shapes)} shapes; filling the nodes one pod at a time places only "
                            f"{count} of {need}, and kadmit does not search further")
            else:
                d.reason = f"only {count} of the {need} pods it needs together fit on the nodes now"
        out.append(d)
    return out


def _fill(pending: list[Pod], room: Mapping[str, Mapping[str, int]],
          nodes: Mapping[str, NodeState]) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Pods to nodes, one at a time, each on the passing node that holds most pods of its shape
    (then by name): where they land, and the free capacity left (`room` is not changed)."""
    left = {n: dict(f) for n, f in room.items()}
    out: dict[str, int] = {}
    for p in pending:
        tpl = template_of(p)
        best, best_fit = None, 0
        for name in sorted(left):
            node = nodes.get(name)
            if node is None or not static_fit(tpl, node):
                continue
            k = free_fit_count(tpl, left[name])
            if k > best_fit:
                best, best_fit = name, k
        if best is None:
            continue
        left[best] = subtract(left[best], dict(tpl.requests))
        out[best] = out.get(best, 0) + 1
    return out, left
