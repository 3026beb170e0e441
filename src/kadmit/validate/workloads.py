"""Workload and pod-set checks: counts, partial admission, requests."""

from __future__ import annotations

from collections import Counter

from kadmit.diagnostics import Diagnostics, Label
from kadmit.identity import about
from kadmit.featuregates import enabled
from kadmit.model import SchedulerConfig, Workload
from kadmit.quantity import MILLI, format_quantity
from kadmit.validate.codes import (MISSING_CLAIM_TEMPLATE, UNCOUNTED_CLAIMS, BAD_COUNT, DUPLICATE_POD_SET, EMPTY_POD_SET, FRACTIONAL_REQUEST,
                                   BALANCED_NO_SLICE,
                                   LARGE_POD_SET_GROUP,
                                   MANY_MIN_COUNTS, MIN_COUNT_ABOVE_COUNT, NEGATIVE_REQUEST,
                                   POD_SET_COUNT_LIMIT, PRIORITY_RANGE, RESERVED_POD_REQUEST)
from kadmit.validate.quotas import is_countable

MAX_POD_SETS = 8
INT32 = (-(2**31), 2**31 - 1)


def check_workload(wl: Workload, diags: Diagnostics) -> None:
    n = len(wl.pod_sets)
    if not 1 <= n <= MAX_POD_SETS and not (n == 0 and wl.inadmissible):
        diags.emit(POD_SET_COUNT_LIMIT, f"workload `{wl.key}` has {n} pod sets; Kueue accepts 1 to {MAX_POD_SETS}",
                   wl.field_span("pod_sets"), about=about(wl))
    seen: dict[str, int] = {}
    with_min: list[int] = []
    for i, ps in enumerate(wl.pod_sets):
        at = wl.spans.get(f"pod_sets.{i}") or ps.span or wl.span
        what = f"pod set `{ps.name}` of `{wl.key}`"
        if ps.name in seen:
            first = wl.pod_sets[seen[ps.name]]
            first_at = wl.spans.get(f"pod_sets.{seen[ps.name]}") or first.span
            diags.emit(DUPLICATE_POD_SET, f"workload `{wl.key}` has two pod sets named `{ps.name}`",
                       ps.field_span("name") or at,
                       labels=[Label(first_at, "first defined here")] if first_at else [], about=about(wl))
        else:
            seen[ps.name] = i
        if ps.count < 0:
            diags.emit(BAD_COUNT, f"{what} has a negative count ({ps.count})", ps.field_span("count") or at, about=about(wl))
        elif ps.count == 0:
            diags.emit(EMPTY_POD_SET, f"{what} has count 0", ps.field_span("count") or at, about=about(wl))
        if ps.min_count is not None:
            with_min.append(i)
            if ps.min_count < 1:
                diags.emit(BAD_COUNT, f"{what} has min_count {ps.min_count}; it must be at least 1",
                           ps.field_span("min_count") or at, about=about(wl))
            elif ps.min_count > ps.count >= 0:
                diags.emit(MIN_COUNT_ABOVE_COUNT, f"{what} has min_count {ps.min_count} above its count {ps.count}",
                           ps.field_span("min_count") or at, help=f"use a min_count between 1 and {ps.count}", about=about(wl))
        for res in sorted(ps.requests):
            qty = ps.requests[res]
            rat = ps.spans.get(f"requests.{res}") or ps.field_span("requests") or at
            if res == "pods":
                diags.emit(RESERVED_POD_REQUEST, f"{what} requests `pods`", rat,
                           help="Kueue counts one `pods` per pod itself; remove the request", about=about(wl))
                continue
            if qty < 0:
                diags.emit(NEGATIVE_REQUEST, f"{what} requests a negative amount of `{res}` "
                           f"({format_quantity(qty, res)})", rat, about=about(wl))
            elif is_countable(res) and qty % MILLI:
                whole = -(-qty // MILLI)
                diags.emit(FRACTIONAL_REQUEST, f"{what} requests {format_quantity(qty, res)} of `{res}`, "
                           f"not a whole number: Kueue counts {whole} a pod (whole units), unless DRAExtendedResources "
                           "makes it inadmissible, and the API server refuses every pod made of it (must be an integer)",
                           rat, help=f"request whole units, e.g. `{whole}`", about=about(wl))
    if len(with_min) > 1:
        names = ", ".join(f"`{wl.pod_sets[i].name}`" for i in with_min)
        later = wl.pod_sets[with_min[1]]
        diags.emit(MANY_MIN_COUNTS, f"workload `{wl.key}` sets min_count on {len(with_min)} pod sets ({names}); "
                   f"at most one may", later.field_span("min_count") or wl.spans.get(f"pod_sets.{with_min[1]}")
                   or wl.span, help="keep min_count on one pod set", about=about(wl))
    _check_groups(wl, diags)
    if wl.priority is not None and not INT32[0] <= wl.priority <= INT32[1]:
        diags.emit(PRIORITY_RANGE, f"priority {wl.priority} of workload `{wl.key}` is outside the 32-bit range",
                   wl.field_span("priority"), about=about(wl))


def _check_groups(wl: Workload, diags: Diagnostics) -> None:
    """A pod-set group of more than 2 pod sets: Kueue places its first two and panics once they fit (KAD259)."""
    groups: dict[str, list[int]] = {}
    for i, ps in enumerate(wl.pod_sets):
        if ps.topology is not None and ps.topology.group is not None:
            groups.setdefault(ps.topology.group, []).append(i)
    for name, members in groups.items():
        if len(members) <= 2:
            continue
        first, second, *rest = (wl.pod_sets[i] for i in members)
        others = ", ".join(f"`{p.name}`" for p in rest)
        spans = [_group_span(wl.pod_sets[i]) for i in members]
        diags.emit(LARGE_POD_SET_GROUP,
                   f"pod-set group `{name}` of workload `{wl.key}` has {len(members)} pod sets: Kueue v0.17.0 "
                   f"places only `{first.name}` and `{second.name}` (one leader and its workers) and gives {others} no "
                   "topology assignment; once those two fit, its scheduler panics (nil pointer in "
                   "addAssumedUsage) and admits nothing more",
                   spans[2] or wl.spans.get(f"pod_sets.{members[2]}") or wl.span,
                   labels=[Label(s, "same group") for s in spans[:2] if s is not None],
                   help="a pod-set group holds exactly 2 pod sets (a leader of 1 pod and its workers): "
                        "name another group, or none, for the others", about=about(wl))


def check_balanced(wl: Workload, diags: Diagnostics, config: SchedulerConfig | None) -> None:
    """KAD263: with TASBalancedPlacement on, a pending `preferred` pod set of no whole slice (outside a group of
    two, whose leader Kueue counts), at its count or at a count partial admission tries down to its min_count,
    makes Kueue's balanceThresholdValue divide by zero."""
    if wl.admitted or not enabled(config, "TASBalancedPlacement"):
        return
    partial = enabled(config, "PartialAdmission")
    groups = Counter(ps.topology.group for ps in wl.pod_sets if ps.topology is not None and ps.topology.group)
    for i, ps in enumerate(wl.pod_sets):
        t = ps.topology
        if t is None or t.mode != "preferred" or (t.group is not None and groups[t.group] == 2):
            continue
        size = 1 if t.slice_level is None else t.slice_size
        lowest = min(ps.count, ps.min_count) if partial and ps.min_count is not None and ps.min_count > 0 else ps.count
        if not size or lowest < 0 or 0 < size <= lowest:  # Kueue's count / size is at least 1 slice
            continue
        whole = f"count {ps.count}" + (f", down to {lowest} by partial admission," if lowest != ps.count else "")
        whole = "count 0" if ps.count == 0 else f"{whole} and slice size {size}, no whole slice"
        diags.emit(BALANCED_NO_SLICE, f"pod set `{ps.name}` of `{wl.key}` asks a preferred topology level with "
                   f"{whole}: with TASBalancedPlacement on, Kueue v0.17.0's scheduler divides by zero placing it at a "
                   "count of no whole slice (balanceThresholdValue) and panics", ps.field_span("count") or wl.spans.get(f"pod_sets.{i}")
                   or ps.span or wl.span,
                   notes=["Kueue's manager restarts into the same panic; kadmit places the pod set as with the gate off"],
                   help="give the pod set at least one whole slice, or turn TASBalancedPlacement off", about=about(wl))

def _group_span(ps):
    """Where a pod set names its group: the manifest's `podSetGroupName` (or annotation), `.kad`'s `topology_group`."""
    t = ps.topology
    return (t.spans.get("group") if t is not None else None) or ps.spans.get("topology_group") or ps.span


def check_claim_templates(model, diags: Diagnostics) -> None:
    """Each pod set's claims: with Kueue's DynamicResourceAllocation gate off (v0.17.0's default) they
    are not counted (KAD298); with it on, each ResourceClaimTemplate they name should be in the
    input (KAD297)."""
    known = claim_template_keys(model)
    for wl in model.workloads:
        check_claims(wl, known, diags, dra_gate(model))


def dra_gate(model) -> bool:
    return model.config is not None and model.config.dynamic_resource_allocation


def claim_template_keys(model) -> set[str]:
    return {f"{t.namespace}/{t.name}" for t in model.claim_templates}


def check_claims(wl: Workload, known: set[str], diags: Diagnostics, dra: bool) -> None:
    for ps in wl.pod_sets:
        if (ps.claim_templates or ps.claims) and not dra:
            names = ", ".join([*(f"ResourceClaimTemplate `{wl.namespace}/{n}`" for n in ps.claim_templates),
                               *(f"ResourceClaim `{wl.namespace}/{n}`" for n in ps.claims)])
            diags.emit(UNCOUNTED_CLAIMS,
                       f"pod set `{ps.name}` of `{wl.key}` claims devices from {names}; "
                       "Kueue v0.17.0 counts resource claims only with its DynamicResourceAllocation feature "
                       "gate on (off by default; the Configuration's featureGates), so they are not counted",
                       ps.field_span("claim_templates") or ps.span or wl.span,
                       help="set `featureGates: {DynamicResourceAllocation: true}` in Kueue's Configuration "
                            "(with `resources.deviceClassMappings`) to have Kueue count them", about=about(wl))
            continue
        for name in ps.claim_templates:
            if f"{wl.namespace}/{name}" not in known:
                diags.emit(MISSING_CLAIM_TEMPLATE,
                           f"pod set `{ps.name}` of `{wl.key}` claims devices from ResourceClaimTemplate "
                           f"`{wl.namespace}/{name}`, which is not in the input; its devices are not counted",
                           ps.field_span("claim_templates") or ps.span or wl.span, about=about(wl))

