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

from kadmit.diagnostics import Diagnostics, field_key
from kadmit.manifests.kubenames import dns_subdomain_problem, label_value_problem, qualified_name_problem
from kadmit.manifests.yamltree import INT, MAP, SEQ, STR, Val, parse_documents
from kadmit.model import Node, Requirement, Taint
from kadmit.placement.domains import free_fit_count
from kadmit.placement.filters import PodTemplate, static_fit
from kadmit.placement.inventory import node_state, pod_usage, subtract
from kadmit.simulate.codes import KAD710, KAD711, KAD713
from kadmit.simulate.yamlread import Fields, Unusable, shown
from kadmit.source import Span

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
    """The `karpenter.sh/v1` NodePools of a file, or None with every problem reported at its line
    (KAD710; fields kadmit doesn't model are named, KAD713)."""
    text = reader.read(Path(path))
    if text is None:
        return None
    from kadmit.workspace import display_name
    file = display_name(Path(path))
    f = Fields(file, diags, KAD710)
    before = len(diags.items)
    docs = [d for d in parse_documents(text, file, diags) if d is not None]
    if len(diags.items) > before and any(d.severity.value == "error" for d in diags.items[before:]):
        return None
    if not docs:
        f.fail(None, f"`{file}` holds no NodePool")
        return None
    out, ok = [], True
    for d in docs:
        try:
            out.append(_nodepool(f, d, text))
        except Unusable:
            ok = False
    return out if ok else None


POLICY_FIELDS = ("consolidationPolicy", "consolidateAfter", "budgets")
SPEC_FIELDS = ("template", "disruption", "limits", "weight", "replicas")
TEMPLATE_SPEC_FIELDS = ("requirements", "taints", "startupTaints", "nodeClassRef", "expireAfter",
                        "terminationGracePeriod")
NOT_MODELLED = {"spec.template.spec.startupTaints": "taints removed once the node is ready",
                "spec.template.spec.expireAfter": "nodes expiring", "spec.disruption.budgets": "disruption budgets",
                "spec.template.spec.terminationGracePeriod": "draining on termination",
                "spec.replicas": "static capacity"}


def _nodepool(f: Fields, d: Val, text: str) -> NodePoolModel:
    f.mapping(d, "NodePool")
    api, kind = f.get(d, "apiVersion"), f.get(d, "kind")
    if api is None or kind is None or api.v != "karpenter.sh/v1" or kind.v != "NodePool":
        raise f.fail(d, "expected a `karpenter.sh/v1` NodePool" + (
            f", not {shown(api)} {shown(kind)}" if api is not None and kind is not None else ""))
    f.unknown_keys(d, ("apiVersion", "kind", "metadata", "spec", "status"), "NodePool")
    meta = f.mapping(f.required(d, "metadata", "NodePool"), "metadata")
    name_val = f.required(meta, "name", "metadata")
    name = f.string(name_val, "metadata.name")
    if (problem := dns_subdomain_problem(name)) is not None:
        raise f.fail(name_val, f"the name of NodePool {_short(name)} {problem}", help=REJECTED)
    annotations = f.get(meta, "annotations")
    notes = f.mapping(annotations, "metadata.annotations") if annotations is not None else None
    spec = f.mapping(f.required(d, "spec", "NodePool"), "spec")
    f.unknown_keys(spec, SPEC_FIELDS, "spec")
    tmpl = f.mapping(f.required(spec, "template", "spec"), "spec.template")
    f.unknown_keys(tmpl, ("metadata", "spec"), "spec.template")
    tmeta = f.get(tmpl, "metadata")
    labels = {}
    if tmeta is not None:  # Karpenter's template metadata holds labels and annotations only
        f.unknown_keys(f.mapping(tmeta, "spec.template.metadata"), ("labels", "annotations"), "spec.template.metadata")
        if f.get(tmeta, "labels") is not None:
            labels = _labels(f, f.get(tmeta, "labels"), "spec.template.metadata.labels")
        if f.get(tmeta, "annotations") is not None:  # put on the nodes; nothing kadmit decides reads them
            f.strings(f.get(tmeta, "annotations"), "spec.template.metadata.annotations")
    tspec = f.mapping(f.required(tmpl, "spec", "spec.template"), "spec.template.spec")
    f.unknown_keys(tspec, TEMPLATE_SPEC_FIELDS, "spec.template.spec")
    disruption = f.get(spec, "disruption")
    if disruption is not None:
        f.unknown_keys(f.mapping(disruption, "spec.disruption"), POLICY_FIELDS, "spec.disruption")
    for path, what in NOT_MODELLED.items():
        node: Val | None = d
        for part in path.split("."):
            node = f.get(node, part) if node is not None and node.kind == MAP else None
        if node is not None:
            f.warn(KAD713, node, f"NodePool `{name}`: `{path}` is not modelled ({what}); kadmit provisions as "
                   "if it were absent")
    reqs = tuple(_requirement(f, r, f"spec.template.spec.requirements[{i}]")
                 for i, r in enumerate(f.seq(f.get(tspec, "requirements") or _EMPTY, "spec.template.spec.requirements")))
    taints = tuple(_taint(f, t, f"spec.template.spec.taints[{i}]")
                   for i, t in enumerate(f.seq(f.get(tspec, "taints") or _EMPTY, "spec.template.spec.taints")))
    limits_val = f.get(spec, "limits")
    limits = {} if limits_val is None else {
        k: f.quantity(v, field_key("spec.limits", k)) for k, v in f.mapping(limits_val, "spec.limits").v.items()}
    weight_val = f.get(spec, "weight")
    weight = 0 if weight_val is None else f.integer(weight_val, "spec.weight", 1, 100)
    shapes = _shapes(f, name, notes, text)
    delay_val = f.get(notes, DELAY) if notes is not None else None
    delay = 0 if delay_val is None else f.duration(delay_val, f"metadata.annotations.{DELAY}")
    policy = "WhenEmptyOrUnderutilized"
    after: int | None = 0
    if disruption is not None:
        got = f.get(disruption, "consolidationPolicy")
        if got is not None:
            policy = f.choice(got, "spec.disruption.consolidationPolicy", POLICIES)
        got = f.get(disruption, "consolidateAfter")
        if got is not None:
            after = None if got.kind == STR and got.v == "Never" else f.duration(got, "spec.disruption.consolidateAfter")
    pool = NodePoolModel(name, labels, reqs, taints, limits, [], weight, delay, policy=policy,
                         consolidate_after_ms=after)
    pool.shapes = sorted((s for s in shapes if _allowed(pool, s)), key=lambda s: (s.price, s.name))
    if not pool.shapes:
        raise f.fail(f.get(tspec, "requirements") or tspec, f"NodePool `{name}`: no instance shape meets its requirements")
    return pool


_EMPTY = Val(SEQ, [], 0, 0, 0, 0)
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _requirement(f: Fields, v: Val, what: str) -> Requirement:
    f.mapping(v, what)
    f.unknown_keys(v, ("key", "operator", "values", "minValues"), what)
    key = _label_key(f, f.required(v, "key", what), f"{what}.key")
    op = f.choice(f.required(v, "operator", what), f"{what}.operator", OPERATORS)
    given = f.seq(f.get(v, "values") or _EMPTY, f"{what}.values")
    values = tuple(_scalar_text(f, x, f"{what}.values[{i}]") for i, x in enumerate(given))
    if op in ("In", "NotIn"):  # values a node's label is matched against
        for i, x in enumerate(values):
            _label_value(f, given[i], x, f"{what}.values[{i}]")
    if op in ("In", "NotIn") and not values or op in ("Exists", "DoesNotExist") and values \
            or op in ("Gt", "Lt") and len(values) != 1:
        raise f.fail(v, f"`{what}`: operator `{op}` takes " + (
            "one or more values" if op in ("In", "NotIn") else "no values" if op in ("Exists", "DoesNotExist")
            else "exactly one value"))
    return Requirement(key=key, operator=op, values=values)  # type: ignore[arg-type]


def _scalar_text(f: Fields, v: Val, what: str) -> str:
    if v.kind not in (STR, INT):
        raise f.fail(v, f"`{what}` must be a string, not {shown(v)}")
    return str(v.v)


def _taint(f: Fields, v: Val, what: str) -> Taint:
    f.mapping(v, what)
    f.unknown_keys(v, ("key", "value", "effect", "timeAdded"), what)
    key = _label_key(f, f.required(v, "key", what), f"{what}.key")
    value = f.get(v, "value")
    effect = f.choice(f.required(v, "effect", what), f"{what}.effect", ("NoSchedule", "PreferNoSchedule", "NoExecute"))
    text = "" if value is None else _label_value(f, value, _scalar_text(f, value, f"{what}.value"), f"{what}.value")
    return Taint(key=key, value=text, effect=effect)  # type: ignore[arg-type]


REJECTED = "the API server rejects this NodePool (Kubernetes' limits on names, label keys and values)"


def _short(text: str) -> str:
    return f"`{text}`" if len(text) <= 40 else f"`{text[:20]}…`"


def _label_key(f: Fields, v: Val, what: str) -> str:
    """A label or taint key: a qualified name (`[prefix/]name`), as Kubernetes validates it."""
    key = f.string(v, what)
    if (problem := qualified_name_problem(key)) is not None:
        raise f.fail(v, f"`{what}` {_short(key)} {problem}", help=REJECTED)
    return key


def _label_value(f: Fields, at: Val, value: str, what: str) -> str:
    if (problem := label_value_problem(value)) is not None:
        raise f.fail(at, f"`{what}` {_short(value)} {problem}", help=REJECTED)
    return value


def _labels(f: Fields, m: Val, what: str) -> dict[str, str]:
    """Labels: strings, each key a qualified name and each value a label value (a node carries them)."""
    out = f.strings(m, what)
    for key, v in m.v.items():
        if (problem := qualified_name_problem(str(key))) is not None:
            raise f.fail(f.key_span(m, key), f"`{what}`: label key {_short(str(key))} {problem}", help=REJECTED)
        _label_value(f, v, out[key], field_key(what, key))
    return out


def _shapes(f: Fields, name: str, notes: Val | None, text: str) -> list[Shape]:
    """The instance shapes of annotation `kadmit.dev/instance-types`: a YAML list in a string. Problems
    inside it are reported at their own line of the file (KAD711)."""
    raw = f.get(notes, INSTANCE_TYPES) if notes is not None else None
    where = f"metadata.annotations.{INSTANCE_TYPES}"
    if raw is None:
        raise f.fail(notes, f"NodePool `{name}` has no `{INSTANCE_TYPES}` annotation listing its instance shapes",
                     help="a YAML list of {name, allocatable, labels, price}")
    inner_text = f.string(raw, where)
    inner = Fields(f.file, f.diags, KAD711)
    base, indent = raw.line, raw.col
    if raw.end_line > raw.line:  # a block scalar: its text starts on the next line, indented
        base = raw.line + 1
        lines = text.splitlines()
        first = lines[base] if base < len(lines) else ""
        indent = len(first) - len(first.lstrip(" "))
    local = Diagnostics()
    docs = [d for d in parse_documents(inner_text, f.file, local) if d is not None]
    for d in local.items:  # its own YAML errors, moved to the file's lines
        sp = d.span
        at = Span(file=f.file, line=base + (sp.line if sp else 1), column=indent + (sp.column if sp else 1))
        inner.fail(at, f"`{where}`: {d.message}")
    if local.has_errors:
        raise Unusable(where)
    for d in docs:
        _move(d, base, indent)
    if len(docs) != 1 or docs[0].kind != SEQ or not docs[0].v:
        raise inner.fail(docs[0] if docs else raw, f"`{where}` must be a non-empty YAML list of "
                         "{name, allocatable, labels, price}")
    shapes = []
    for i, s in enumerate(docs[0].v):
        what = f"{where}[{i}]"
        inner.mapping(s, what)
        inner.unknown_keys(s, ("name", "allocatable", "labels", "price"), what)
        shape_name = inner.string(inner.required(s, "name", what), f"{what}.name")
        alloc = inner.mapping(inner.required(s, "allocatable", what), f"{what}.allocatable")
        labels = inner.get(s, "labels")
        price = inner.get(s, "price")
        shapes.append(Shape(shape_name, {k: inner.quantity(v, field_key(f"{what}.allocatable", k)) for k, v in alloc.v.items()},
                            {} if labels is None else _labels(inner, labels, f"{what}.labels"),
                            0.0 if price is None else inner.number(price, f"{what}.price", 0, 1e12)))
    return shapes


def _move(v: Val, lines: int, columns: int) -> None:
    """Place a tree parsed from text embedded in a file at the text's place in the file."""
    stack = [v]
    while stack:
        x = stack.pop()
        x.line, x.end_line, x.col, x.end_col = x.line + lines, x.end_line + lines, x.col + columns, x.end_col + columns
        if x.kind == MAP:
            x.keys = {k: (a + lines, b + columns, c + lines, e + columns) for k, (a, b, c, e) in x.keys.items()}
            stack.extend(x.v.values())
        elif x.kind == SEQ:
            stack.extend(x.v)


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
