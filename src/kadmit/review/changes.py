"""Semantic changes between two models: objects added, removed or changed, quotas with their numbers.

Objects are matched by kind and name; spans never count (moving a statement is no change). A
changed cluster queue or cohort lists each quota number that changed (nominal, borrowing and
lending limits per flavor and resource) and each other field; other kinds list their fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.model import Model, Obj
from kadmit.quantity import format_quantity
from kadmit.source import Span

# model field -> the kind's name in reports; policy first, then state
KINDS = (("topologies", "topology"), ("flavors", "flavor"), ("cohorts", "cohort"),
         ("cluster_queues", "cluster_queue"), ("local_queues", "local_queue"),
         ("priority_classes", "priority"), ("namespaces", "namespace"), ("rules", "rule"),
         ("scheduler_configs", "scheduler"), ("admission_checks", "admission_check"),
         ("check_configs", "provisioning_config"), ("check_configs", "multikueue_config"),
         ("check_configs", "multikueue_cluster"), ("nodes", "node"), ("workloads", "workload"), ("pods", "pod"))
# the `.kad` word of each kind an admission check's controller reads (`check_configs` holds all three)
_CONFIGS = {"ProvisioningRequestConfig": "provisioning_config", "MultiKueueConfig": "multikueue_config",
            "MultiKueueCluster": "multikueue_cluster"}
LIMITS = (("nominal", "nominal quota"), ("borrowing_limit", "borrowing limit"), ("lending_limit", "lending limit"))


@dataclass(frozen=True)
class Change:
    kind: str
    name: str
    change: str  # "added", "removed", "changed"
    field: str | None = None  # e.g. "nominal quota of nvidia.com/gpu in h100", "queueing_strategy"
    before: str | None = None
    after: str | None = None
    span: Span | None = None  # HEAD's statement (BASE's when removed)

    def text(self) -> str:
        head = f"{self.kind} `{self.name}`"
        if self.change != "changed":
            return f"{head} {self.change}"
        return f"{head}: {self.field}: {self.before if self.before is not None else 'unset'} → " \
               f"{self.after if self.after is not None else 'unset'}"

    def as_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "change": self.change, "field": self.field,
                "before": self.before, "after": self.after,
                "at": f"{self.span.file}:{self.span.line}" if self.span else None}


def _name(obj) -> str:
    ns = getattr(obj, "namespace", None)
    name = getattr(obj, "name", None)
    if name is None:
        return "scheduler"
    return f"{ns}/{name}" if ns is not None else name


def _plain(v) -> str:
    if isinstance(v, Obj):
        return _plain(v.model_dump(exclude={"span", "spans"}))
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_plain(x)}" for k, x in v.items() if k not in ("span", "spans")) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_plain(x) for x in v) + "]"
    return str(v)


def _quotas(holder) -> dict[tuple[str, str], tuple[int | None, ...]]:
    out = {}
    for g in holder.resource_groups:
        for fq in g.flavors:
            for r in fq.resources:
                out[(fq.flavor, r.resource)] = (r.nominal, r.borrowing_limit, r.lending_limit)
    return out


def _quota_changes(kind: str, name: str, a, b) -> list[Change]:
    qa, qb = _quotas(a), _quotas(b)
    out = []
    for fl, res in sorted(set(qa) | set(qb)):
        va, vb = qa.get((fl, res)), qb.get((fl, res))
        for i, (attr, label) in enumerate(LIMITS):
            x = va[i] if va is not None else None
            y = vb[i] if vb is not None else None
            if x != y:
                span = _field_span(b, fl, res) or b.span
                out.append(Change(kind, name, "changed", f"{label} of {res} in {fl}",
                                  None if x is None else format_quantity(x, res),
                                  None if y is None else format_quantity(y, res), span))
    order_a = [[f.flavor for f in g.flavors] for g in a.resource_groups]
    order_b = [[f.flavor for f in g.flavors] for g in b.resource_groups]
    groups_a = [list(g.covered_resources) for g in a.resource_groups]
    groups_b = [list(g.covered_resources) for g in b.resource_groups]
    if order_a != order_b:
        out.append(Change(kind, name, "changed", "flavors in order", _plain(order_a), _plain(order_b), b.span))
    if groups_a != groups_b:
        out.append(Change(kind, name, "changed", "resource groups", _plain(groups_a), _plain(groups_b), b.span))
    return out


def _field_span(holder, flavor: str, resource: str) -> Span | None:
    for gi, g in enumerate(holder.resource_groups):
        for fi, fq in enumerate(g.flavors):
            if fq.flavor == flavor:
                for r in fq.resources:
                    if r.resource == resource:
                        return r.span or fq.span
    return None


def _changed(kind: str, name: str, a: Obj, b: Obj) -> list[Change]:
    out = []
    skip = {"span", "spans"}
    if kind in ("cluster_queue", "cohort"):
        out += _quota_changes(kind, name, a, b)
        skip.add("resource_groups")
    for f in type(a).model_fields:
        if f in skip:
            continue
        x, y = getattr(a, f), getattr(b, f)
        if x != y:
            out.append(Change(kind, name, "changed", f, _plain(x), _plain(y), b.field_span(f) or b.span))
    return out


def model_changes(base: Model, head: Model) -> list[Change]:
    """Every difference between `base` and `head`, policy kinds first, then sorted by name."""
    out: list[Change] = []
    for field, kind in KINDS:
        a = {}
        for o in getattr(base, field):
            if field != "check_configs" or _CONFIGS[o.kind] == kind:
                a.setdefault(_name(o), o)
        b = {}
        for o in getattr(head, field):
            if field != "check_configs" or _CONFIGS[o.kind] == kind:
                b.setdefault(_name(o), o)
        for name in sorted(set(a) | set(b)):
            x, y = a.get(name), b.get(name)
            if x is None:
                out.append(Change(kind, name, "added", span=y.span))
            elif y is None:
                out.append(Change(kind, name, "removed", span=x.span))
            elif x != y:
                out += _changed(kind, name, x, y)
    return out
