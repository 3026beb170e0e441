"""Lowering policy statements: topologies, flavors, cohorts, cluster and local queues,
priorities and namespaces."""

from __future__ import annotations

import sys

from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests.codes import KAD157, tas_flavor_without_labels
from kadmit.model import (BorrowWithinCohort, ClusterQueue, Cohort, FairSharing, FlavorFungibility,
                          FlavorQuotas, LabelSelector, LocalQueue, Namespace, Preemption,
                          PriorityClass, Requirement, ResourceFlavor, ResourceGroup, ResourceQuota,
                          Topology)
from kadmit.source import Span, Spans
from kadmit.syntax import codes
from kadmit.syntax.ast import Block, Decl, LocalQueueStmt, Match, PriorityStmt, Resources, Scalar, Word
from kadmit.syntax.fields import FIELDS
from kadmit.syntax.values import (Fields, check_kueue_labels, enum_of, int_text, list_of, name_of, quantity_of,
                                  string_map, string_of, taint_of, toleration_of, weight_of)

QUEUEING = {"strict_fifo": "StrictFIFO", "best_effort_fifo": "BestEffortFIFO"}
WITHIN_CQ = {"never": "Never", "lower_priority": "LowerPriority",
             "lower_or_newer_equal_priority": "LowerOrNewerEqualPriority"}
RECLAIM = {"never": "Never", "lower_priority": "LowerPriority", "any": "Any"}
BORROW_POLICY = {"never": "Never", "lower_priority": "LowerPriority"}
WHEN_BORROW = {"borrow": "Borrow", "try_next_flavor": "TryNextFlavor"}
WHEN_PREEMPT = {"preempt": "Preempt", "try_next_flavor": "TryNextFlavor"}
PREFERENCE = {"borrowing_over_preemption": "BorrowingOverPreemption",
              "preemption_over_borrowing": "PreemptionOverBorrowing"}
STOP = {"none": "None", "hold": "Hold", "hold_and_drain": "HoldAndDrain"}
SELECTOR_OPS = {"in": "In", "not in": "NotIn", "not_in": "NotIn", "exists": "Exists",
                "not_exists": "DoesNotExist", "does_not_exist": "DoesNotExist"}


def qualified(word: Word, what: str, diags: Diagnostics) -> tuple[str, str] | None:
    """`namespace/name` split in two; both parts required."""
    ns, sep, name = word.value.partition("/")
    if not sep or not ns or not name or "/" in name:
        diags.emit(codes.BAD_NAME, f"{what} `{word.value}` must be written `namespace/name`", word.span)
        return None
    return sys.intern(ns), name  # one string for a namespace however many objects name it


def topology(d: Decl, diags: Diagnostics) -> Topology:
    f = Fields(f"topology `{d.label.value}`", d.members, *FIELDS["topology"], diags)
    levels: list[str] = []
    spans: dict[str, Span] = {"name": d.label.span}
    if (a := f.get("levels")) is not None:
        spans["levels"] = a.value.span
        for i, v in enumerate(list_of(a.value, "`levels`", diags) or []):
            s = string_of(v, "a topology level", diags)
            if s is not None:
                levels.append(s)
                spans[f"levels.{i}"] = v.span
    else:
        diags.emit(codes.MISSING_FIELD, f"topology `{d.label.value}` has no `levels`", d.label.span,
                   help='add `levels = ["cloud.example.com/rack", "kubernetes.io/hostname"]`')
    return Topology(name=d.label.value, levels=tuple(levels), span=d.span, spans=Spans(items=spans))


def flavor(d: Decl, diags: Diagnostics) -> ResourceFlavor:
    what = f"flavor `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["flavor"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    kw: dict = {}
    if (a := f.get("node_labels")) is not None:
        spans["node_labels"] = a.value.span
        kw["node_labels"] = string_map(a.value, "`node_labels`", diags, spans, "node_labels")
    for field, read in (("node_taints", taint_of), ("tolerations", toleration_of)):
        if (a := f.get(field)) is not None:
            spans[field] = a.value.span
            items = [read(v, diags) for v in list_of(a.value, f"`{field}`", diags) or []]
            kw[field] = tuple(x for x in items if x is not None)
    if (a := f.get("topology")) is not None:
        spans["topology"] = a.value.span
        kw["topology"] = name_of(a.value, "`topology`", diags)
        if not kw.get("node_labels"):  # the CRD refuses it, as the manifest reader does (manifests/policy.py)
            message, help = tas_flavor_without_labels(d.label.value)
            diags.emit(KAD157, message, spans.get("node_labels", a.value.span), help=help,
                       about=(Subject("ResourceFlavor", None, d.label.value),))
    return ResourceFlavor(name=d.label.value, span=d.span, spans=Spans(items=spans), **kw)


def resource_group(r: Resources, diags: Diagnostics) -> ResourceGroup:
    spans = {"covered_resources": r.span}
    for i, k in enumerate(r.keys):
        spans[f"covered_resources.{i}"] = k.span
    flavors = []
    seen: set[str] = set()
    for m in r.members:
        if not (isinstance(m, Block) and m.kind.value == "flavor" and m.label is not None):
            name = m.kind.value if isinstance(m, Block) else type(m).__name__.lower()
            diags.emit(codes.UNKNOWN_FIELD, f"a `resources` block holds `flavor NAME {{ … }}` blocks, not `{name}`",
                       m.span, help="write e.g. `flavor h100 { cpu = 64  nvidia.com/gpu = 8 }`")
            continue
        if m.label.value in seen:
            diags.emit(codes.DUPLICATE_FIELD, f"flavor `{m.label.value}` appears twice in one `resources` block",
                       m.label.span)
            continue
        seen.add(m.label.value)
        flavors.append(flavor_quotas(m, diags))
    return ResourceGroup(covered_resources=tuple(k.value for k in r.keys), flavors=tuple(flavors),
                         span=r.span, spans=Spans(items=spans))


def flavor_quotas(b: Block, diags: Diagnostics) -> FlavorQuotas:
    quotas = []
    seen: set[str] = set()
    for m in b.members:
        if not hasattr(m, "suffixes"):
            diags.emit(codes.UNKNOWN_FIELD, "a flavor's quota holds `RESOURCE = QUANTITY` lines", m.span,
                       help="write e.g. `nvidia.com/gpu = 32 borrow 16 lend 8`")
            continue
        res = m.key.value
        if res in seen:
            diags.emit(codes.DUPLICATE_FIELD, f"`{res}` is set twice in flavor `{b.label.value}`", m.key.span)
            continue
        seen.add(res)
        nominal = quantity_of(m.value, f"quota of `{res}`", diags)
        if nominal is None:
            continue
        spans = {"resource": m.key.span, "nominal": m.value.span}
        limits: dict[str, int | None] = {}
        for s in m.suffixes:
            field = "borrowing_limit" if s.kind == "borrow" else "lending_limit"
            if field in limits:
                diags.emit(codes.DUPLICATE_FIELD, f"`{s.kind}` is given twice for `{res}`", s.span)
                continue
            limits[field] = quantity_of(s.value, f"`{s.kind}` limit of `{res}`", diags)
            spans[field] = s.value.span
        quotas.append(ResourceQuota(resource=res, nominal=nominal, span=m.span, spans=Spans(items=spans),
                                    **{k: v for k, v in limits.items() if v is not None}))
    return FlavorQuotas(flavor=b.label.value, resources=tuple(quotas), span=b.span,
                        spans=Spans(items={"flavor": b.label.span}))


def fair_sharing(b: Block, what: str, diags: Diagnostics) -> FairSharing:
    f = Fields(f"`fair_sharing` of {what}", b.members, *FIELDS["fair_sharing"], diags)
    a = f.get("weight")
    if a is None:
        return FairSharing(span=b.span)
    w = weight_of(a.value, "`weight`", diags)
    return FairSharing(span=b.span, spans=Spans(items={"weight": a.value.span}),
                       **({} if w is None else {"weight": w}))


def cohort(d: Decl, diags: Diagnostics) -> Cohort:
    what = f"cohort `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["cohort"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    kw: dict = {}
    if (a := f.get("parent")) is not None:
        spans["parent"] = a.value.span
        kw["parent"] = name_of(a.value, "`parent`", diags)
    groups = _shared_quota_fields(f, what, spans, kw, diags)
    return Cohort(name=d.label.value, resource_groups=tuple(groups), span=d.span,
                  spans=Spans(items=spans), **kw)


def _shared_quota_fields(f: Fields, what: str, spans: dict[str, Span], kw: dict,
                         diags: Diagnostics) -> list:
    """What cohorts and cluster queues write alike: `fair_sharing` and `resources` blocks."""
    if (b := f.block("fair_sharing")) is not None:
        spans["fair_sharing"] = b.span
        kw["fair_sharing"] = fair_sharing(b, what, diags)
    for i, r in enumerate(f.resources):
        spans[f"resource_groups.{i}"] = r.span
    return [resource_group(r, diags) for r in f.resources]


def _requirement(m: Match, ops: dict[str, str], diags: Diagnostics) -> Requirement | None:
    op = ops.get(m.op)
    if op is None:
        diags.emit(codes.BAD_ENUM, f"`{m.op}` is not a match operator", m.op_span,
                   help="use " + ", ".join(f"`{o}`" for o in ops if o != "not_in"))
        return None
    values: list[str] = []
    if op in ("In", "NotIn", "Gt", "Lt"):
        if m.values is None:
            diags.emit(codes.MISSING_FIELD, f"`match … {m.op}` needs a list of values", m.span)
            return None
        values = [v for v in (string_of(x, "a label value", diags) for x in m.values.items) if v is not None]
    elif m.values is not None:
        diags.emit(codes.WRONG_VALUE, f"`match … {m.op}` takes no values", m.values.span)
    return Requirement(key=m.key.value, operator=op, values=tuple(values), span=m.span)


def selector_block(b: Block, diags: Diagnostics) -> LabelSelector:
    f = Fields("`namespaces`", b.members, *FIELDS["namespaces"], diags)
    spans: dict[str, Span] = {}
    labels = {}
    if (a := f.get("labels")) is not None:
        labels = string_map(a.value, "`labels`", diags, spans, "match_labels")
    reqs = [r for r in (_requirement(m, SELECTOR_OPS, diags) for m in f.matches) if r is not None]
    return LabelSelector(match_labels=labels, match_expressions=tuple(reqs), span=b.span,
                         spans=Spans(items=spans))


def selector_attr(value, diags: Diagnostics) -> tuple[bool, LabelSelector | None]:
    """`namespaces = { k = "v" }`, `= all` or `= none`; (ok, selector)."""
    if isinstance(value, Scalar) and value.kind == "name" and value.value in ("all", "none"):
        return True, (LabelSelector(span=value.span) if value.value == "all" else None)
    spans: dict[str, Span] = {}
    if not hasattr(value, "entries"):
        diags.emit(codes.WRONG_VALUE, "`namespaces` takes a map of labels, `all` or `none`", value.span,
                   help='write `namespaces = { team = "vision" }`, or a `namespaces { match … }` block')
        return False, None
    labels = string_map(value, "`namespaces`", diags, spans, "match_labels")
    return True, LabelSelector(match_labels=labels, span=value.span, spans=Spans(items=spans))


def preemption(b: Block, diags: Diagnostics) -> Preemption:
    f = Fields("`preemption`", b.members, *FIELDS["preemption"], diags)
    kw: dict = {}
    spans: dict[str, Span] = {}
    for field, choices in (("within_cluster_queue", WITHIN_CQ), ("reclaim_within_cohort", RECLAIM)):
        if (a := f.get(field)) is not None:
            spans[field] = a.value.span
            if (v := enum_of(a.value, f"`{field}`", choices, diags)) is not None:
                kw[field] = v
    if (bw := f.block("borrow_within_cohort")) is not None:
        spans["borrow_within_cohort"] = bw.span
        g = Fields("`borrow_within_cohort`", bw.members, *FIELDS["borrow_within_cohort"], diags)
        inner: dict = {}
        inner_spans: dict[str, Span] = {}
        if (a := g.get("policy")) is not None:
            inner_spans["policy"] = a.value.span
            if (v := enum_of(a.value, "`policy`", BORROW_POLICY, diags)) is not None:
                inner["policy"] = v
        if (a := g.get("max_priority_threshold")) is not None:
            inner_spans["max_priority_threshold"] = a.value.span
            text = a.value.text if isinstance(a.value, Scalar) and a.value.kind == "number" else ""
            inner["max_priority_threshold"] = int_text(text or "?", a.value.span,
                                                       "`max_priority_threshold`", diags)
        kw["borrow_within_cohort"] = BorrowWithinCohort(span=bw.span, spans=Spans(items=inner_spans),
                                                        **{k: v for k, v in inner.items() if v is not None})
    return Preemption(span=b.span, spans=Spans(items=spans), **kw)


def fungibility(b: Block, diags: Diagnostics) -> FlavorFungibility:
    f = Fields("`flavor_fungibility`", b.members, *FIELDS["flavor_fungibility"], diags)
    kw: dict = {}
    spans: dict[str, Span] = {}
    for field, choices in (("when_can_borrow", WHEN_BORROW), ("when_can_preempt", WHEN_PREEMPT),
                           ("preference", PREFERENCE)):
        if (a := f.get(field)) is not None:
            spans[field] = a.value.span
            if (v := enum_of(a.value, f"`{field}`", choices, diags)) is not None:
                kw[field] = v
    return FlavorFungibility(span=b.span, spans=Spans(items=spans), **kw)


def cluster_queue(d: Decl, diags: Diagnostics) -> ClusterQueue:
    what = f"cluster_queue `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["cluster_queue"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    kw: dict = {"namespace_selector": LabelSelector(span=d.label.span)}
    if (a := f.get("cohort")) is not None:
        spans["cohort"] = a.value.span
        kw["cohort"] = name_of(a.value, "`cohort`", diags)
    sel_attr, sel_block = f.get("namespaces"), f.block("namespaces")
    if sel_attr is not None and sel_block is not None:
        diags.emit(codes.DUPLICATE_FIELD, f"`namespaces` is set twice in {what}",
                   max(sel_attr.key.span, sel_block.kind.span, key=lambda s: s.key()),
                   help="use either `namespaces = { … }` or a `namespaces { match … }` block")
    if sel_attr is not None:
        spans["namespace_selector"] = sel_attr.value.span
        ok, sel = selector_attr(sel_attr.value, diags)
        if ok:
            kw["namespace_selector"] = sel
    elif sel_block is not None:
        spans["namespace_selector"] = sel_block.span
        kw["namespace_selector"] = selector_block(sel_block, diags)
    for field, attr, choices in (("queueing_strategy", "queueing", QUEUEING), ("stop_policy", "stop_policy", STOP)):
        if (a := f.get(attr)) is not None:
            spans[field] = a.value.span
            if (v := enum_of(a.value, f"`{attr}`", choices, diags)) is not None:
                kw[field] = v
    if (b := f.block("preemption")) is not None:
        spans["preemption"] = b.span
        kw["preemption"] = preemption(b, diags)
    if (b := f.block("flavor_fungibility")) is not None:
        spans["flavor_fungibility"] = b.span
        kw["flavor_fungibility"] = fungibility(b, diags)
    if (a := f.get("admission_checks")) is not None:
        from kadmit.syntax.lower_checks import queue_checks
        spans["admission_checks"] = a.value.span
        kw["admission_checks"] = queue_checks(a.value, diags, spans)
    groups = _shared_quota_fields(f, what, spans, kw, diags)
    return ClusterQueue(name=d.label.value, resource_groups=tuple(groups), span=d.span,
                        spans=Spans(items=spans), **{k: v for k, v in kw.items()
                                                      if v is not None or k == "namespace_selector"})


def local_queue(s: LocalQueueStmt, diags: Diagnostics) -> LocalQueue | None:
    parts = qualified(s.name, "local queue", diags)
    if parts is None:
        return None
    return LocalQueue(namespace=parts[0], name=parts[1], cluster_queue=s.target.value, span=s.span,
                      spans=Spans(items={"namespace": s.name.span, "name": s.name.span,
                                         "cluster_queue": s.target.span}))


def priority(s: PriorityStmt, diags: Diagnostics) -> PriorityClass | None:
    value = int_text(s.value.text, s.value.span, f"priority `{s.name.value}`", diags)
    if value is None:
        return None
    return PriorityClass(name=s.name.value, value=value, global_default=s.default, span=s.span,
                         spans=Spans(items={"name": s.name.span, "value": s.value.span,
                                            "global_default": s.span}))


def namespace(d: Decl, diags: Diagnostics) -> Namespace:
    f = Fields(f"namespace `{d.label.value}`", d.members, *FIELDS["namespace"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    labels = {}
    if (a := f.get("labels")) is not None:
        spans["labels"] = a.value.span
        labels = string_map(a.value, "`labels`", diags, spans, "labels")
        check_kueue_labels(a.value, diags)
    return Namespace(name=d.label.value, labels=labels, span=d.span, spans=Spans(items=spans))
