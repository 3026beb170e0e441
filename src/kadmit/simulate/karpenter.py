"""Karpenter (`karpenter.sh/v1` NodePool) as a capacity model: nodes created for pods that wait.

Karpenter sees pods kube-scheduler could not bind (here: pods of admitted pod sets and pods without a
queue that wait), and, as its provisioner does, packs them first-fit in decreasing size onto new
node claims: a claim starts with every instance shape the pool allows that holds the pod, each pod
added keeps only the shapes that still hold everything on it, and the claim launches as the cheapest
remaining shape. Pools are tried by weight (higher first), then name; a claim that would take the
pool past its `spec.limits` is not launched. The nodes join after the pool's provisioning delay.

Instance shapes come from the cloud provider, which kadmit can't ask: the NodePool names them in the
annotation `kadmit.dev/instance-types`, a YAML list of `{name, allocatable, labels, price}`. The
annotation `kadmit.dev/provisioning-delay` (a duration, default 0) is the time from decision to a
ready node.

Consolidation (`spec.disruption`): a node the pool provisioned that has had no pod bound for
`consolidateAfter` (a duration, default 0s; `Never` keeps its nodes) is removed, for either
`consolidationPolicy` (WhenEmpty, or Karpenter v1's default WhenEmptyOrUnderutilized). The
underutilized half of WhenEmptyOrUnderutilized (moving pods off a node to replace or delete it) and
disruption budgets are not modelled: empty nodes go as soon as their time is up, all together.
Removed nodes no longer count toward the pool's `spec.limits`; results list them under
`consolidated`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from kadmit.diagnostics import Diagnostics
from kadmit.durations import parse_duration_ms
from kadmit.model import Node, Requirement, Taint
from kadmit.placement.domains import free_fit_count
from kadmit.placement.filters import PodTemplate, static_fit
from kadmit.placement.inventory import node_state, pod_usage, subtract
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.simulate.codes import KAD705

INSTANCE_TYPES = "kadmit.dev/instance-types"
DELAY = "kadmit.dev/provisioning-delay"
INSTANCE_LABEL = "node.kubernetes.io/instance-type"
MAX_NODES = 100_000
POLICIES = ("WhenEmpty", "WhenEmptyOrUnderutilized")


@dataclass(frozen=True)
class Shape:
    name: str
    allocatable: dict[str, int]
    labels: dict[str, str]
    price: float


@dataclass
class NodePoolModel:
    name: str
    labels: dict[str, str]
    requirements: tuple[Requirement, ...]
    taints: tuple[Taint, ...]
    limits: dict[str, int]
    shapes: list[Shape]
    weight: int = 0
    delay_ms: int = 0
    launched: dict[str, int] = field(default_factory=dict)  # resource -> capacity of its nodes up or on their way
    count: int = 0
    policy: str = "WhenEmptyOrUnderutilized"
    consolidate_after_ms: int | None = 0  # None: Never
    live: dict[str, Node] = field(default_factory=dict)  # its nodes that joined and are still there
    empty_since: dict[str, int] = field(default_factory=dict)  # node -> since when nothing is bound on it

    def node(self, shape: Shape, index: int) -> Node:
        name = f"{self.name}-{shape.name}-{index}".replace(".", "-").lower()
        labels = {**self.labels, **shape.labels, INSTANCE_LABEL: shape.name, "karpenter.sh/nodepool": self.name,
                  "kubernetes.io/hostname": name}
        for r in self.requirements:  # a single allowed value is the label the node gets
            if r.operator == "In" and len(r.values) == 1:
                labels.setdefault(r.key, r.values[0])
        return Node(name=name, labels=labels, taints=self.taints, allocatable=dict(shape.allocatable))

    def within_limits(self, shape: Shape) -> bool:
        return all(self.launched.get(r, 0) + shape.allocatable.get(r, 0) <= cap for r, cap in self.limits.items())


def read_nodepools(path: str, reader, diags: Diagnostics) -> list[NodePoolModel] | None:
    text = reader.read(Path(path))
    if text is None:
        return None

    def bad(msg: str) -> None:
        diags.emit(KAD705, f"`{path}`: {msg}")

    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:
        bad(f"not YAML: {e}")
        return None
    out = []
    for d in docs:
        if not isinstance(d, dict) or d.get("apiVersion") != "karpenter.sh/v1" or d.get("kind") != "NodePool":
            bad("expected `karpenter.sh/v1` NodePool objects only")
            return None
        meta = d.get("metadata") or {}
        name = str(meta.get("name") or "")
        notes = meta.get("annotations") or {}
        spec = d.get("spec") or {}
        tmpl = spec.get("template") or {}
        tspec = tmpl.get("spec") or {}
        try:
            reqs = tuple(Requirement(key=r["key"], operator=r["operator"], values=tuple(str(v) for v in r.get("values") or ()))
                         for r in tspec.get("requirements") or [])
            taints = tuple(Taint(key=t["key"], value=str(t.get("value") or ""), effect=t["effect"])
                           for t in tspec.get("taints") or [])
            limits = {str(k): parse_quantity(str(v)) for k, v in (spec.get("limits") or {}).items()}
            shapes_raw = yaml.safe_load(notes[INSTANCE_TYPES]) if INSTANCE_TYPES in notes else None
            if not isinstance(shapes_raw, list) or not shapes_raw:
                bad(f"NodePool `{name}` has no `{INSTANCE_TYPES}` annotation listing its instance shapes "
                    "({name, allocatable, labels, price})")
                return None
            shapes = [Shape(str(s["name"]), {str(k): parse_quantity(str(v)) for k, v in s["allocatable"].items()},
                            {str(k): str(v) for k, v in (s.get("labels") or {}).items()}, float(s.get("price", 0)))
                      for s in shapes_raw]
        except (KeyError, TypeError, ValueError, QuantityError, AttributeError) as e:
            bad(f"NodePool `{name}`: {type(e).__name__}: {e}")
            return None
        delay = parse_duration_ms(str(notes.get(DELAY, "0")))
        if delay is None:
            bad(f"NodePool `{name}`: `{DELAY}` is not a duration")
            return None
        disruption = spec.get("disruption") or {}
        policy = str(disruption.get("consolidationPolicy", "WhenEmptyOrUnderutilized"))
        if policy not in POLICIES:
            bad(f"NodePool `{name}`: `spec.disruption.consolidationPolicy` `{policy}` is not one of "
                + ", ".join(POLICIES))
            return None
        after_text = str(disruption.get("consolidateAfter", "0s"))
        after = None if after_text == "Never" else parse_duration_ms(after_text)
        if after is None and after_text != "Never":
            bad(f"NodePool `{name}`: `spec.disruption.consolidateAfter` `{after_text}` is neither a duration nor Never")
            return None
        pool = NodePoolModel(name, {str(k): str(v) for k, v in ((tmpl.get("metadata") or {}).get("labels") or {}).items()},
                             reqs, taints, limits, [], int(spec.get("weight") or 0), delay, policy=policy,
                             consolidate_after_ms=after)
        pool.shapes = sorted((s for s in shapes if _allowed(pool, s)), key=lambda s: (s.price, s.name))
        if not pool.shapes:
            bad(f"NodePool `{name}`: no instance shape meets its requirements")
            return None
        out.append(pool)
    return out


def _allowed(pool: NodePoolModel, shape: Shape) -> bool:
    labels = {**pool.labels, **shape.labels, INSTANCE_LABEL: shape.name}
    return all(r.matches(labels) for r in pool.requirements if r.key in labels)


@dataclass
class Claim:
    pool: NodePoolModel
    options: list[Shape]
    used: dict[str, int]
    pods: int = 0


def pack(pool: NodePoolModel, pods: list[tuple[PodTemplate, int]]) -> tuple[list[Node], int]:
    """Karpenter's first-fit decreasing onto new claims of `pool`: (nodes to create, pods placed)."""
    order = sorted(pods, key=lambda p: tuple(-q for _, q in sorted(p[0].requests)) + (p[0].name,))
    claims: list[Claim] = []
    placed = 0
    for tpl, count in order:
        per_pod = pod_usage(tpl.request_map, 1)
        fitting = [s for s in pool.shapes if _static_ok(pool, s, tpl) and free_fit_count(tpl, s.allocatable) > 0]
        for _ in range(count):
            home = None
            for c in claims:
                opts = [s for s in c.options if s in fitting and free_fit_count(tpl, subtract(s.allocatable, c.used)) > 0]
                if opts:
                    home, c.options = c, opts
                    break
            if home is None:
                opts = [s for s in fitting if pool.within_limits(s)]
                if not opts:
                    continue  # the pool can't hold it (requirements, taints, limits)
                home = Claim(pool, opts, {})
                claims.append(home)
            home.used = {r: home.used.get(r, 0) + q for r, q in per_pod.items()}
            home.pods += 1
            placed += 1
    nodes = []
    for c in claims:
        shape = min(c.options, key=lambda s: (s.price, s.name))  # the cheapest that holds it all
        if not pool.within_limits(shape) or pool.count >= MAX_NODES:
            placed -= c.pods
            continue
        for r, q in shape.allocatable.items():
            pool.launched[r] = pool.launched.get(r, 0) + q
        pool.count += 1
        nodes.append(pool.node(shape, pool.count))
    return nodes, placed


def _static_ok(pool: NodePoolModel, shape: Shape, tpl: PodTemplate) -> bool:
    return static_fit(tpl, node_state(pool.node(shape, 0)))


class Karpenter:
    """The autoscaler a replay asks after every instant (`Simulator.autoscaler`)."""

    def __init__(self, pools: list[NodePoolModel]) -> None:
        self.pools = sorted(pools, key=lambda p: (-p.weight, p.name))
        self.in_flight: dict[int, int] = {}  # id(pod entry) -> pods that nodes on their way will hold
        self.batches: dict[int, dict[int, int]] = {}  # launch -> its share of in_flight
        self.launches: dict[int, NodePoolModel] = {}  # launch -> its pool
        self.timers: set[int] = set()  # instants a consolidation timer wakes the replay at

    def step(self, sim, t: int) -> None:
        self._provision(sim, t)
        self._consolidate(sim, t)

    def _consolidate(self, sim, t: int) -> None:
        """Nodes of a pool that have been empty for its `consolidateAfter` leave."""
        for pool in self.pools:
            if pool.consolidate_after_ms is None or not pool.live:
                continue
            gone = []
            for name in sorted(pool.live):
                if not sim.node_empty(name):
                    pool.empty_since.pop(name, None)
                    continue
                since = pool.empty_since.setdefault(name, t)
                due = since + pool.consolidate_after_ms
                if due <= t:
                    gone.append(name)
                elif due not in self.timers:
                    self.timers.add(due)
                    sim.wake_at(due)
            if gone:
                for name in gone:
                    node = pool.live.pop(name)
                    pool.empty_since.pop(name, None)
                    for r, q in node.allocatable.items():
                        pool.launched[r] = pool.launched.get(r, 0) - q
                sim.remove_nodes(gone, t, f"karpenter nodepool {pool.name} ({pool.policy}, "
                                          f"consolidateAfter {pool.consolidate_after_ms / 1000:g}s)")

    def _provision(self, sim, t: int) -> None:
        from kadmit.simulate.run import Capacity, NODES
        waiting = [e for e in sim.pods if e.remaining > self.in_flight.get(id(e), 0)]
        if not waiting:
            return
        for pool in self.pools:
            if not waiting:
                break
            want = [(e.template, e.remaining - self.in_flight.get(id(e), 0)) for e in waiting]
            nodes, placed = pack(pool, want)
            if not nodes:
                continue
            left = placed
            share: dict[int, int] = {}
            for e in waiting:  # the pods these nodes are for
                take = min(left, e.remaining - self.in_flight.get(id(e), 0))
                if take > 0 and any(_static_ok(pool, s, e.template) for s in pool.shapes):
                    self.in_flight[id(e)] = self.in_flight.get(id(e), 0) + take
                    share[id(e)] = take
                    left -= take
            tag = len(self.launches) + 1
            self.batches[tag] = share
            self.launches[tag] = pool
            sim._push(t + pool.delay_ms, NODES, Capacity(t + pool.delay_ms, nodes, f"karpenter nodepool {pool.name}",
                                                         tag))
            waiting = [e for e in waiting if e.remaining > self.in_flight.get(id(e), 0)]

    def joined(self, cap) -> None:
        """A launch's nodes joined: the pods they were for are now kube-scheduler's to bind."""
        for key, n in self.batches.pop(cap.tag, {}).items():
            self.in_flight[key] = self.in_flight.get(key, 0) - n
        pool = self.launches.get(cap.tag)
        if pool is not None:
            for node in cap.nodes:
                pool.live[node.name] = node
