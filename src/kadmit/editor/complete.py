"""Completion in `.kad` text: the names a place takes (a cohort after `cohort =`, flavors in a
resource group, resources, the levels of a workload's topology, fields in rules) and the grammar's
keywords there."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.editor.project import Snapshot
from kadmit.syntax import lower_checks, lower_policy
from kadmit.syntax.complete import Context, context
from kadmit.syntax.fields import FIELDS
from kadmit.validate.rules import (NAMESPACE_FIELDS, POD_GROUP_FIELDS, RESERVED, TOPOLOGY_MODES, WORKLOAD_FIELDS,
                                   known_resources)

# A field's choices, as the `.kad` reader takes them (its own tables).
ENUMS = {"queueing": lower_policy.QUEUEING, "stop_policy": lower_policy.STOP,
         "within_cluster_queue": lower_policy.WITHIN_CQ, "reclaim_within_cohort": lower_policy.RECLAIM,
         "policy": lower_policy.BORROW_POLICY, "when_can_borrow": lower_policy.WHEN_BORROW,
         "when_can_preempt": lower_policy.WHEN_PREEMPT, "preference": lower_policy.PREFERENCE,
         "pod_set_merge_policy": lower_checks.MERGE_POLICY, "location_type": lower_checks.LOCATION_TYPE}
_ROOT_FIELDS = {"workload": WORKLOAD_FIELDS, "namespace": NAMESPACE_FIELDS, "pod_group": POD_GROUP_FIELDS}


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # what it names: keyword, flavor, cohort, cluster_queue, local_queue, priority, topology, level, resource, value, field, feature_gate
    detail: str = ""


@dataclass(frozen=True)
class Completion:
    items: list[Item]
    start: int  # the offset where the text the items replace starts (the typed prefix)


def complete(snap: Snapshot | None, text: str, offset: int) -> Completion:
    """What may be written at `offset` of `text` (a file of the project `snap` is a snapshot of)."""
    ctx = context(text, offset)
    items = _names(snap, ctx) if snap is not None else []
    seen = {i.label for i in items}
    items += [Item(k, "keyword") for k in ctx.keywords if k not in seen]
    return Completion([i for i in items if i.label.startswith(ctx.prefix) or not ctx.prefix], ctx.prefix_start)


def _names(snap: Snapshot, ctx: Context) -> list[Item]:
    ix = snap.index
    if ctx.in_rule:
        return _rule(snap, ctx)

    def of(kind: str, names) -> list[Item]:
        return [Item(n, kind) for n in sorted(names)]

    field, value = ctx.field, ctx.value
    if ctx.statement == "local_queue" and "->" in ctx.words:
        return of("cluster_queue", ix.cluster_queues)
    if not ctx.blocks:
        return []
    inner = ctx.blocks[-1]
    checks = sorted(a.name for a in snap.model.admission_checks)
    if inner[1:] == ("feature_gates",) and ctx.inside("scheduler", "="):
        return _gates(field, value)
    if inner[:1] == ("=",):  # a map's keys (and, for admission checks, their values)
        if inner[1] in ("admission_checks", "checks") and field is None:
            return [Item(n, "admission_check") for n in checks]
        if inner[1] == "checks" and field is not None and not value:
            return [Item(k, "value", v) for k, v in lower_checks.STATES.items()]
        if inner[1] == "admission_checks" and field is not None and value[-1:] in (("[",), (",",)):
            return of("flavor", ix.flavors)
        if inner[1] == "admission_checks" and field is not None and not value:
            return [Item("all", "value", "every flavor of the queue")]
        return of("resource", known_resources(ix)) if inner[1] in ("requests", "allocatable") and field is None else []
    if field == "admission_checks" and ctx.inside("cluster_queue") and value[-1:] in (("[",), (",",)):
        return [Item(n, "admission_check") for n in checks]
    if field == "managed_resources" and ctx.inside("provisioning_config") and value[-1:] in (("[",), (",",)):
        return of("resource", known_resources(ix))
    if field == "clusters" and ctx.inside("multikueue_config") and value[-1:] in (("[",), (",",)):
        return of("multikueue_cluster", {c.name for c in snap.model.check_configs if c.kind == "MultiKueueCluster"})
    if field is not None and not value:
        if field == "cohort" and ctx.inside("cluster_queue") or field == "parent" and ctx.inside("cohort"):
            return of("cohort", snap.symbols.names("cohort"))
        if field == "topology" and ctx.inside("flavor") and len(ctx.blocks) == 1:
            return of("topology", ix.topologies)
        if field == "topology" and ctx.inside("pod_group"):
            return [Item(m, "value", "topology request") for m in TOPOLOGY_MODES]
        if field == "queue" and ctx.inside("workload"):
            ns = ctx.blocks[0][1].partition("/")[0] if len(ctx.blocks[0]) > 1 else ""
            return [Item(q.name, "local_queue", f"→ {q.cluster_queue}") for q in
                    sorted(snap.model.local_queues, key=lambda q: q.key) if q.namespace == ns]
        if field == "priority" and ctx.inside("workload"):
            return [Item(p.name, "priority", str(p.value)) for p in
                    sorted(snap.model.priority_classes, key=lambda p: p.name)]
        if field == "cluster_queue" and ctx.inside("admitted"):
            return of("cluster_queue", ix.cluster_queues)
        if field == "flavor" and ctx.inside("admitted", "pod_group"):
            return of("flavor", ix.flavors)
        if field == "controller" and ctx.inside("admission_check"):
            return [Item(k, "value", v) for k, v in lower_checks.CONTROLLERS.items()]
        if field == "parameters" and ctx.inside("admission_check"):
            return [Item(c.name, "check_config", c.kind) for c in sorted(snap.model.check_configs, key=lambda c: c.name)
                    if c.kind in ("ProvisioningRequestConfig", "MultiKueueConfig")]
        if field in ENUMS:
            return [Item(k, "value", v) for k, v in ENUMS[field].items() if k != "not_in"]
        return []
    if field == "topology" and ctx.inside("pod_group") and value[:1] in (("required",), ("preferred",)) and len(value) == 1:
        return _levels(snap, ctx)
    if ctx.words[:1] == ("resources",):
        return of("resource", known_resources(ix))
    if inner[:1] == ("resources",) and ctx.words == ("flavor",):
        return of("flavor", ix.flavors)
    if inner[:1] == ("resources",) and not ctx.words:
        return [Item("flavor", "keyword", "flavor NAME { RESOURCE = QUANTITY … }")]
    if len(ctx.blocks) >= 2 and ctx.blocks[-2][:1] == ("resources",) and inner[:1] == ("flavor",) and not ctx.words:
        return [Item(r, "resource") for r in ctx.blocks[-2][1:]]
    if not ctx.words:
        return _fields(ctx)
    return []


def _gates(field: str | None, value: tuple[str, ...]) -> list[Item]:
    """In `feature_gates = { … }`: Kueue v0.17.0's gates (and AllAlpha, AllBeta) as keys, each with its stage,
    default and what kadmit does with it (`manifests.gates.describe`); `true` and `false` as a gate's value."""
    from kadmit.manifests import gates

    if field is None:
        return [Item(name, "feature_gate", ", ".join(gates.describe(name))) for name in sorted(gates.KUEUE)
                ] + [Item(name, "feature_gate", gates.describe(name)[0]) for name in ("AllAlpha", "AllBeta")]
    if not value:
        default = field in gates.DEFAULT_ON
        return [Item(str(not default).lower(), "value", "its other value"), Item(str(default).lower(), "value", "its default")
                ] if field in gates.KUEUE else [Item("true", "value"), Item("false", "value")]
    return []


def _fields(ctx: Context) -> list[Item]:
    """The fields and blocks the block around the cursor takes (the table lowering reads them by)."""
    kind = ctx.blocks[-1][0] if ctx.blocks[-1] else ""
    if kind == "pod_group" and any(b[:1] == ("admitted",) for b in ctx.blocks[:-1]):
        kind = "admitted pod_group"
    attrs, blocks = FIELDS.get(kind, ((), ()))
    return [Item(a, "field", f"{a} = …") for a in attrs] + [Item(b, "field", f"{b} {{ … }}") for b in blocks if b not in attrs]


def _levels(snap: Snapshot, ctx: Context) -> list[Item]:
    """The levels of the topology of the queue the workload around the cursor is routed to."""
    key = ctx.blocks[0][1] if len(ctx.blocks[0]) > 1 else ""
    wl = snap.index.workloads.get(key.strip('"'))
    topo = snap.symbols.topology_of(wl) if wl is not None else None
    topologies = [topo] if topo is not None else list(snap.index.topologies.values())
    out: dict[str, Item] = {}
    for t in topologies:
        for level in t.levels:
            short = level.rpartition("/")[2]
            out.setdefault(short, Item(short, "level", f"{level} (topology {t.name})"))
    return list(out.values())


def _rule(snap: Snapshot, ctx: Context) -> list[Item]:
    ix = snap.index
    if "." in ctx.prefix:
        root = ctx.prefix.split(".")[0]
        fields = _ROOT_FIELDS.get(root) or (POD_GROUP_FIELDS if _bound(ctx, root) else None)
        return [Item(f"{root}.{f}", "field", str(t if isinstance(t, str) else f"map of {t[1]}"))
                for f, t in sorted(fields.items())] if fields else []
    if ctx.words and ctx.words[-1] == "[":
        return [Item(r, "resource") for r in sorted(known_resources(ix))]
    wanted = _compared(ctx.words)
    names = {"flavor": ix.flavors, "cluster_queue": ix.cluster_queues, "cohort": ix.cohorts,
             "priority": {p.name for p in snap.model.priority_classes}, "topology_mode": TOPOLOGY_MODES}
    if wanted is not None:
        return [Item(n, wanted) for n in sorted(names[wanted])]
    out = [Item(r, "field", "reference") for r in RESERVED]
    for kind in ("flavor", "cluster_queue", "cohort", "priority"):
        out += [Item(n, kind) for n in sorted(names[kind])]
    return out


def _bound(ctx: Context, var: str) -> bool:
    """Whether `var` is the variable of a quantifier before the cursor (`all g in …`)."""
    w = ctx.words
    return any(w[i] in ("all", "any") and w[i + 1] == var for i in range(len(w) - 1))


def _compared(words: tuple[str, ...]) -> str | None:
    """The type of the reference the name being typed is compared with: `flavor == |`, `cohort in {a, |`."""
    j = len(words) - 1
    if j < 0:
        return None
    if words[j] in ("{", ","):
        opened = max((i for i, w in enumerate(words) if w == "{"), default=-1)
        if opened < 0 or "}" in words[opened:]:
            return None
        j = opened - 1
    elif words[j] in ("==", "!=", "<", "<=", ">", ">="):
        j -= 1
    else:
        return None
    while j >= 0 and words[j] in ("in", "not"):
        j -= 1
    if j >= 3 and words[j] == "]" and words[j - 2] == "[":
        j -= 3
    if j < 0:
        return None
    last = words[j].split(".")[-1]
    if last in ("flavor", "cluster_queue", "cohort", "priority"):
        return last
    return "topology_mode" if last == "topology" else None
