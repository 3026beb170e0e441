"""Lowering cluster state: nodes and workloads (pod groups, affinity, admissions)."""

from __future__ import annotations

import sys

from kadmit.diagnostics import Diagnostics
from kadmit.model import (Admission, NodeSelectorTerm, Node, PodSet, PodSetAssignment, TopologyRequest,
                          Workload)
from kadmit.source import Span, Spans
from kadmit.syntax import codes
from kadmit.syntax.ast import Block, Decl, ModeV, Scalar
from kadmit.syntax.lower_checks import check_states
from kadmit.syntax.lower_policy import _requirement, qualified
from kadmit.syntax.fields import FIELDS
from kadmit.syntax.values import (Fields, bool_of, check_kueue_labels, duration_of, int_of, list_of, map_entries, name_of, quantity_map,
                                  string_map, taint_of, time_of, toleration_of)

AFFINITY_OPS = {"in": "In", "not in": "NotIn", "not_in": "NotIn", "exists": "Exists",
                "not_exists": "DoesNotExist", "does_not_exist": "DoesNotExist", "gt": "Gt", "lt": "Lt"}
COUNT_MAX = 2**31 - 1


def node(d: Decl, diags: Diagnostics) -> Node:
    what = f"node `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["node"], diags)
    spans: dict[str, Span] = {"name": d.label.span}
    kw: dict = {}
    if (a := f.get("labels")) is not None:
        spans["labels"] = a.value.span
        kw["labels"] = string_map(a.value, "`labels`", diags, spans, "labels")
        check_kueue_labels(a.value, diags)
    if (a := f.get("taints")) is not None:
        spans["taints"] = a.value.span
        items = list_of(a.value, "`taints`", diags) or []
        taints = []
        for v in items:
            t = taint_of(v, diags)
            if t is not None:
                spans[f"taints.{len(taints)}"] = v.span
                taints.append(t)
        kw["taints"] = tuple(taints)
    if (a := f.get("allocatable")) is not None:
        spans["allocatable"] = a.value.span
        kw["allocatable"] = quantity_map(a.value, "`allocatable`", diags, spans, "allocatable")
    for field in ("unschedulable", "ready"):
        if (a := f.get(field)) is not None:
            spans[field] = a.value.span
            if (b := bool_of(a.value, f"`{field}`", diags)) is not None:
                kw[field] = b
    return Node(name=d.label.value, span=d.span, spans=Spans(items=spans), **kw)


def _affinity(b: Block, diags: Diagnostics) -> tuple[NodeSelectorTerm, ...]:
    f = Fields("`affinity`", b.members, *FIELDS["affinity"], diags, repeated=["term"])
    terms = []
    for t in f.blocks.get("term", []):
        g = Fields("`term`", t.members, *FIELDS["term"], diags)
        reqs = [r for r in (_requirement(m, AFFINITY_OPS, diags) for m in g.matches) if r is not None]
        on_fields: list = []
        if (mf := g.block("match_fields")) is not None:  # Kueue's `matchFields`: on the Node's `metadata.name`
            h = Fields("`match_fields`", mf.members, *FIELDS["match_fields"], diags)
            on_fields = [r for r in (_requirement(m, AFFINITY_OPS, diags) for m in h.matches) if r is not None]
        terms.append(NodeSelectorTerm(match_expressions=tuple(reqs), match_fields=tuple(on_fields), span=t.span))
    return tuple(terms)


def _topology(a, diags: Diagnostics) -> TopologyRequest | None:
    v = a.value
    if isinstance(v, ModeV):
        return TopologyRequest(mode=v.mode, level=v.level.value, span=v.span,
                               spans=Spans(items={"level": v.level.span}))
    if isinstance(v, Scalar) and v.kind == "name" and v.value == "unconstrained":
        return TopologyRequest(mode="unconstrained", span=v.span)
    diags.emit(codes.WRONG_VALUE, "`topology` takes `required LEVEL`, `preferred LEVEL` or `unconstrained`",
               v.span, help="write e.g. `topology = required rack`")
    return None


def pod_set(b: Block, diags: Diagnostics) -> PodSet:
    what = f"pod_group `{b.label.value}`"
    f = Fields(what, b.members, *FIELDS["pod_group"], diags)
    spans: dict[str, Span] = {"name": b.label.span}
    kw: dict = {}
    for field in ("count", "min_count"):
        if (a := f.get(field)) is not None:
            spans[field] = a.value.span
            if (n := int_of(a.value, f"`{field}`", diags, low=0, high=COUNT_MAX)) is not None:
                kw[field] = n
    if (a := f.get("requests")) is not None:
        spans["requests"] = a.value.span
        kw["requests"] = quantity_map(a.value, "`requests`", diags, spans, "requests")
    if (a := f.get("node_selector")) is not None:
        spans["node_selector"] = a.value.span
        kw["node_selector"] = string_map(a.value, "`node_selector`", diags, spans, "node_selector")
    if (a := f.get("tolerations")) is not None:
        spans["tolerations"] = a.value.span
        tols = []
        for v in list_of(a.value, "`tolerations`", diags) or []:
            t = toleration_of(v, diags)
            if t is not None:
                spans[f"tolerations.{len(tols)}"] = v.span
                tols.append(t)
        kw["tolerations"] = tuple(tols)
    if (a := f.get("topology")) is not None:
        spans["topology"] = a.value.span
        if (t := _topology(a, diags)) is not None:
            kw["topology"] = t
    if (a := f.get("topology_group")) is not None:  # Kueue's podSetGroupName
        spans["topology_group"] = a.value.span
        name = name_of(a.value, "`topology_group`", diags)
        if "topology" not in kw:
            diags.emit(codes.WRONG_VALUE, "`topology_group` groups pod groups placed by topology: it needs a "
                       "`topology` request", a.value.span, help="add e.g. `topology = required rack`")
        elif name is not None:
            kw["topology"] = kw["topology"].model_copy(update={"group": name})
            kw["stored_group"] = name  # a .kad pod set is a Workload's (`PodSet.stored_group`)
    if (blk := f.block("affinity")) is not None:
        spans["node_affinity"] = blk.span
        kw["node_affinity"] = _affinity(blk, diags)
    return PodSet(name=b.label.value, span=b.span, spans=Spans(items=spans), **kw)


def admission(b: Block, pod_sets: dict[str, PodSet], diags: Diagnostics, workload: dict,
              workload_spans: dict[str, Span]) -> Admission | None:
    f = Fields("`admitted`", b.members, *FIELDS["admitted"], diags, repeated=["pod_group"])
    # Kueue's `Admitted` condition, True though a check is not Ready (one its queue gained after Kueue
    # admitted it): the workload stays admitted (a field of the workload's)
    if (c := f.get("admitted_condition")) is not None:
        workload_spans["admitted_condition"] = c.value.span
        if (ok := bool_of(c.value, "`admitted_condition`", diags)) is not None:
            workload["admitted_condition"] = ok
    a = f.get("cluster_queue")
    if a is None:
        diags.emit(codes.MISSING_FIELD, "`admitted` needs `cluster_queue = NAME`", b.kind.span)
        return None
    cq = name_of(a.value, "`cluster_queue`", diags)
    if cq is None:
        return None
    assignments = []
    seen: set[str] = set()
    for pg in f.blocks.get("pod_group", []):
        if pg.label is None:
            diags.emit(codes.MISSING_FIELD, "`pod_group` needs a name", pg.kind.span)
            continue
        if pg.label.value in seen:
            diags.emit(codes.DUPLICATE_FIELD, f"pod_group `{pg.label.value}` is admitted twice", pg.label.span)
            continue
        seen.add(pg.label.value)
        if (psa := _assignment(pg, pod_sets.get(pg.label.value), diags)) is not None:
            assignments.append(psa)
    spans = {"cluster_queue": a.value.span}
    kw: dict = {}
    if (at := f.get("admitted_at")) is not None:  # when quota was reserved: preemption's order
        spans["admitted_at"] = at.value.span
        kw["admitted_at"] = time_of(at.value, "`admitted_at`", diags)
    return Admission(cluster_queue=cq, pod_sets=tuple(assignments), span=b.span, spans=Spans(items=spans),
                     **kw)


def _assignment(pg: Block, ps: PodSet | None, diags: Diagnostics) -> PodSetAssignment | None:
    name = pg.label.value
    f = Fields(f"admitted pod_group `{name}`", pg.members, *FIELDS["admitted pod_group"], diags)
    if ps is None:
        diags.emit(codes.BAD_NAME, f"the workload has no pod_group `{name}`", pg.label.span)
        return None
    spans: dict[str, Span] = {"name": pg.label.span}
    count = ps.count
    if (a := f.get("count")) is not None:
        spans["count"] = a.value.span
        if (n := int_of(a.value, "`count`", diags, low=0, high=COUNT_MAX)) is not None:
            count = n
    flavors: dict[str, str] = {}
    one, many = f.get("flavor"), f.get("flavors")
    if one is not None and many is not None:
        diags.emit(codes.DUPLICATE_FIELD, "write either `flavor` or `flavors`, not both", many.key.span)
    if one is not None:
        spans["flavors"] = one.value.span
        if (fl := name_of(one.value, "`flavor`", diags)) is not None:
            flavors = {res: fl for res in sorted(ps.requests)}
            for res in flavors:
                spans[f"flavors.{res}"] = one.value.span
    elif many is not None:
        spans["flavors"] = many.value.span
        for key, val in map_entries(many.value, "`flavors`", diags) or []:
            if (fl := name_of(val, f"the flavor of `{key.value}`", diags)) is not None:
                flavors[key.value] = fl
                spans[f"flavors.{key.value}"] = val.span
    else:
        diags.emit(codes.MISSING_FIELD, f"admitted pod_group `{name}` needs `flavor = NAME` or `flavors = {{ … }}`",
                   pg.label.span)
    placement: dict[str, int] = {}
    if (a := f.get("nodes")) is not None:  # where its pods run: { "node-1" = 4, … }
        spans["placement"] = a.value.span
        for key, val in map_entries(a.value, "`nodes`", diags) or []:
            if (n := int_of(val, f"the pods on `{key.value}`", diags, low=0, high=COUNT_MAX)) is not None:
                placement[key.value] = n
                spans[f"placement.{key.value}"] = val.span
    delayed = False
    if (a := f.get("delayed")) is not None:  # Kueue delayed its topology placement (a second pass places it)
        spans["delayed"] = a.value.span
        delayed = bool_of(a.value, "`delayed`", diags) or False
        if delayed and placement:
            diags.emit(codes.DUPLICATE_FIELD, "a pod_group placed on `nodes` is not `delayed`", a.key.span)
            delayed = False
    return PodSetAssignment(name=name, flavors=flavors, count=count, placement=placement, delayed=delayed,
                            span=pg.span, spans=Spans(items=spans))


def workload(d: Decl, diags: Diagnostics) -> Workload | None:
    parts = qualified(d.label, "workload", diags)
    if parts is None:
        return None
    what = f"workload `{d.label.value}`"
    f = Fields(what, d.members, *FIELDS["workload"], diags, repeated=["pod_group"])
    spans: dict[str, Span] = {"namespace": d.label.span, "name": d.label.span}
    kw: dict = {}
    if (a := f.get("queue")) is not None:
        spans["queue"] = a.value.span
        q = name_of(a.value, "`queue`", diags)
        if q is None:
            return None
        kw["queue"] = q
    else:
        diags.emit(codes.MISSING_FIELD, f"{what} has no `queue`", d.label.span,
                   help="add `queue = NAME`, the local queue it was submitted to")
        return None
    if (a := f.get("priority")) is not None:
        v = a.value
        if isinstance(v, Scalar) and v.kind == "number":
            spans["priority"] = v.span
            if (n := int_of(v, "`priority`", diags)) is not None:
                kw["priority"] = n
        elif (name := name_of(v, "`priority`", diags)) is not None:
            spans["priority_class"] = v.span
            kw["priority_class"] = name
            kw["priority_class_kind"] = "workload"
    if (a := f.get("created")) is not None:
        spans["created"] = a.value.span
        if (t := time_of(a.value, "`created`", diags)) is not None:
            kw["created"] = t
    if (a := f.get("duration")) is not None:
        spans["duration_ms"] = a.value.span
        if (ms := duration_of(a.value, "`duration`", diags)) is not None:
            kw["duration_ms"] = ms
    for field in ("active", "finished", "evicted"):
        if (a := f.get(field)) is not None:
            spans[field] = a.value.span
            if (b := bool_of(a.value, f"`{field}`", diags)) is not None:
                kw[field] = b
    if (a := f.get("checks")) is not None:  # each admission check's state, as its controller set it
        spans["check_states"] = a.value.span
        kw["check_states"] = check_states(a.value, diags, spans)
    pod_sets: list[PodSet] = []
    names: set[str] = set()
    for pg in f.blocks.get("pod_group", []):
        if pg.label is None:
            diags.emit(codes.MISSING_FIELD, "`pod_group` needs a name", pg.kind.span,
                       help="write e.g. `pod_group workers { … }`")
            continue
        if pg.label.value in names:
            diags.emit(codes.DUPLICATE_FIELD, f"pod_group `{pg.label.value}` appears twice in {what}",
                       pg.label.span)
            continue
        names.add(pg.label.value)
        spans[sys.intern(f"pod_sets.{len(pod_sets)}")] = pg.span
        pod_sets.append(pod_set(pg, diags))
    if (b := f.block("admitted")) is not None:
        spans["admission"] = b.span
        kw["admission"] = admission(b, {ps.name: ps for ps in pod_sets}, diags, kw, spans)
    return Workload(namespace=parts[0], name=parts[1], pod_sets=tuple(pod_sets), span=d.span,
                    spans=Spans(items=spans), **kw)
