"""Duplicate definitions and cohort cycles."""

from __future__ import annotations

from typing import Callable, Iterable

from kadmit.diagnostics import Diagnostics, Label
from kadmit.identity import about
from kadmit.index import ModelIndex
from kadmit.model import Model, Obj
from kadmit.validate.codes import COHORT_CYCLE, COHORT_SELF_PARENT, DUPLICATE


def duplicates(diags: Diagnostics, kind: str, items: Iterable[Obj], key: Callable[[Obj], str],
                name_field: str = "name") -> None:
    first: dict[str, Obj] = {}
    for obj in items:
        k = key(obj)
        if k not in first:
            first[k] = obj
            continue
        orig = first[k]
        labels = [Label(orig.span, "first defined here")] if orig.span else []
        diags.emit(DUPLICATE, f"{kind} `{k}` is defined more than once", obj.field_span(name_field),
                   labels=labels, help=f"rename or remove one of the {kind} definitions", about=about(obj, orig))


def check_duplicates(model: Model, diags: Diagnostics) -> None:
    by_name = lambda o: o.name  # noqa: E731
    duplicates(diags, "topology", model.topologies, by_name)
    duplicates(diags, "flavor", model.flavors, by_name)
    duplicates(diags, "cohort", model.cohorts, by_name)
    duplicates(diags, "cluster queue", model.cluster_queues, by_name)
    duplicates(diags, "local queue", model.local_queues, lambda q: q.key)
    for kind, label in (("workload", "workload priority class"), ("pod", "pod priority class")):
        duplicates(diags, label, (p for p in model.priority_classes if p.kind == kind), by_name)
    duplicates(diags, "namespace", model.namespaces, by_name)
    duplicates(diags, "node", model.nodes, by_name)
    duplicates(diags, "pod", model.pods, lambda p: f"{p.namespace}/{p.name}")
    duplicates(diags, "workload", model.workloads, lambda w: w.key)
    duplicates(diags, "rule", model.rules, by_name)
    duplicates(diags, "admission check", model.admission_checks, by_name)
    for kind in ("ProvisioningRequestConfig", "MultiKueueConfig", "MultiKueueCluster"):
        duplicates(diags, kind, (c for c in model.check_configs if c.kind == kind), by_name)


def check_cohort_cycles(index: ModelIndex, diags: Diagnostics) -> None:
    """Report each cycle of cohort parents once, at its alphabetically first member. Each cohort is
    walked once: a walk stops at the first cohort an earlier walk has seen."""
    cohorts = index.cohorts
    seen: set[str] = set()
    for name in sorted(cohorts):
        c = cohorts[name]
        if c.parent == name:
            diags.emit(COHORT_SELF_PARENT, f"cohort `{name}` is its own parent", c.field_span("parent"),
                       help="remove `parent`, or name another cohort", about=about(c))
            seen.add(name)
            continue
        walk: dict[str, int] = {}
        cur: str | None = name
        while cur is not None and cur in cohorts and cur not in seen:
            walk[cur] = len(walk)
            seen.add(cur)
            cur = cohorts[cur].parent
        if cur is None or cur not in walk:
            continue
        cycle = list(walk)[walk[cur]:]
        start = min(cycle)
        i = cycle.index(start)
        ordered = cycle[i:] + cycle[:i]
        at = cohorts[start]
        shown = " -> ".join(f"`{c}`" for c in ordered + [start])
        labels = [Label(cohorts[c].field_span("parent"), f"`{c}` names `{cohorts[c].parent}` as parent")
                  for c in ordered[1:] if cohorts[c].field_span("parent")]
        diags.emit(COHORT_CYCLE, f"cohort parents form a cycle: {shown}", at.field_span("parent"),
                   labels=labels,
                   notes=["Kueue disables every cohort and cluster queue in the cycle"],
                   help="remove one `parent` to break the cycle", about=about(*(cohorts[c] for c in ordered)))
