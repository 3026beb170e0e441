"""Quota checks on cluster queues and cohorts, mirroring Kueue's webhooks and CRD bounds."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.identity import about
from kadmit.model import ClusterQueue, Cohort, FairSharing
from kadmit.quantity import MILLI, format_quantity
from kadmit.validate.codes import (BORROW_WITHOUT_RECLAIM, FLAVOR_LISTED_TWICE, FLAVOR_RESOURCES_MISMATCH,
                                   FRACTIONAL_QUOTA, LENDING_ABOVE_NOMINAL, LIMIT_WITHOUT_COHORT,
                                   NEGATIVE_QUOTA, NEGATIVE_WEIGHT, QUOTA_SIZE_LIMIT, RESOURCE_COVERED_TWICE)

MAX_GROUPS = 16
MAX_PER_GROUP = 64  # covered resources per group, flavors per group, resources per flavor
MAX_TOTAL = 256  # flavors, and covered resources, over all groups


def is_countable(resource: str) -> bool:
    """`pods` and extended resources (qualified names outside `kubernetes.io/`) come in whole units."""
    if resource == "pods":
        return True
    if "/" not in resource:
        return False
    domain = resource.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


def check_quotas(owner: ClusterQueue | Cohort, diags: Diagnostics) -> None:
    is_cq = isinstance(owner, ClusterQueue)
    kind = "cluster queue" if is_cq else "cohort"
    has_parent = bool(owner.cohort if is_cq else owner.parent)
    _check_sizes(owner, kind, diags)
    seen_res: dict[str, int] = {}
    seen_flavor: dict[str, int] = {}
    for g, group in enumerate(owner.resource_groups):
        gpath = f"resource_groups.{g}"
        for c, res in enumerate(group.covered_resources):
            if res in seen_res:
                where = "this group" if seen_res[res] == g else f"resource group {seen_res[res] + 1}"
                diags.emit(RESOURCE_COVERED_TWICE,
                           f"{kind} `{owner.name}` covers `{res}` twice (also in {where})",
                           group.spans.get(f"covered_resources.{c}") or owner.spans.get(gpath) or group.span
                           or owner.span,
                           help="each resource may appear in one resource group only", about=about(owner))
            else:
                seen_res[res] = g
        for f, fq in enumerate(group.flavors):
            fpath = f"{gpath}.flavors.{f}"
            fspan = owner.spans.get(fpath) or fq.span or owner.span
            if fq.flavor in seen_flavor:
                name_span = fq.spans.get("flavor") or fspan
                where = "this group" if seen_flavor[fq.flavor] == g else f"resource group {seen_flavor[fq.flavor] + 1}"
                diags.emit(FLAVOR_LISTED_TWICE, f"{kind} `{owner.name}` lists flavor `{fq.flavor}` twice "
                           f"(also in {where})", name_span,
                           help="each flavor may appear in one resource group only", about=about(owner))
            else:
                seen_flavor[fq.flavor] = g
            names = tuple(rq.resource for rq in fq.resources)
            if names != group.covered_resources:
                diags.emit(FLAVOR_RESOURCES_MISMATCH,
                           f"flavor `{fq.flavor}` of {kind} `{owner.name}` lists "
                           f"[{', '.join(names)}], but the group covers [{', '.join(group.covered_resources)}]",
                           fspan, help=_mismatch_help(names, group.covered_resources), about=about(owner))
            for r, rq in enumerate(fq.resources):
                rpath = f"{fpath}.resources.{r}"
                _check_quota(owner, kind, fq.flavor, rq, rpath, is_cq, has_parent, diags)
    _check_weight(owner, kind, owner.fair_sharing, diags)
    if is_cq:
        bwc = owner.preemption.borrow_within_cohort
        if (owner.preemption.reclaim_within_cohort == "Never" and bwc is not None and bwc.policy != "Never"):
            diags.emit(BORROW_WITHOUT_RECLAIM,
                       f"cluster queue `{owner.name}` sets borrowWithinCohort `{bwc.policy}` but "
                       f"reclaimWithinCohort `Never`", owner.field_span("preemption"),
                       help="set `reclaim_within_cohort` to `LowerPriority` or `Any`, or drop borrowWithinCohort", about=about(owner))


def _mismatch_help(names: tuple[str, ...], covered: tuple[str, ...]) -> str:
    missing = [r for r in covered if r not in names]
    extra = [r for r in names if r not in covered]
    if missing or extra:
        parts = []
        if missing:
            parts.append("add " + ", ".join(f"`{r}`" for r in missing))
        if extra:
            parts.append("remove " + ", ".join(f"`{r}`" for r in extra))
        return "; ".join(parts) + " (use 0 for a resource the flavor doesn't provide)"
    return "list the resources in the order of the group's covered resources"


def _check_quota(owner, kind: str, flavor: str, rq, rpath: str, is_cq: bool, has_parent: bool,
                 diags: Diagnostics) -> None:
    res = rq.resource
    what = f"`{res}` in flavor `{flavor}` of {kind} `{owner.name}`"
    for field, value in (("nominal", rq.nominal), ("borrowing_limit", rq.borrowing_limit),
                         ("lending_limit", rq.lending_limit)):
        if value is None:
            continue
        at = owner.spans.get(f"{rpath}.{field}") or rq.field_span(field) or owner.span
        label = "nominal quota" if field == "nominal" else field.replace("_", " ")
        if value < 0:
            diags.emit(NEGATIVE_QUOTA, f"{label} of {what} is negative ({format_quantity(value, res)})", at, about=about(owner))
        if field != "nominal" and not has_parent:
            other = "cohort" if is_cq else "parent"
            diags.emit(LIMIT_WITHOUT_COHORT, f"{label} of {what} is set, but the {kind} has no {other}", at,
                       help=f"remove the {label}, or give the {kind} a {other}", about=about(owner))
        if is_countable(res) and value % MILLI:
            diags.emit(FRACTIONAL_QUOTA, f"{label} of {what} is {format_quantity(value, res)}, not a whole number",
                       at, help=f"`{res}` is requested in whole units", about=about(owner))
    if is_cq and rq.lending_limit is not None and rq.lending_limit > rq.nominal >= 0:
        at = owner.spans.get(f"{rpath}.lending_limit") or rq.field_span("lending_limit") or owner.span
        diags.emit(LENDING_ABOVE_NOMINAL,
                   f"lending limit of {what} ({format_quantity(rq.lending_limit, res)}) is above its nominal "
                   f"quota ({format_quantity(rq.nominal, res)})", at,
                   help="a queue can lend at most its nominal quota", about=about(owner))


def _check_sizes(owner, kind: str, diags: Diagnostics) -> None:
    groups = owner.resource_groups
    problems: list[str] = []
    if len(groups) > MAX_GROUPS:
        problems.append(f"{len(groups)} resource groups (at most {MAX_GROUPS})")
    for g, group in enumerate(groups, 1):
        if not 1 <= len(group.covered_resources) <= MAX_PER_GROUP:
            problems.append(f"group {g} covers {len(group.covered_resources)} resources (1 to {MAX_PER_GROUP})")
        if not 1 <= len(group.flavors) <= MAX_PER_GROUP:
            problems.append(f"group {g} has {len(group.flavors)} flavors (1 to {MAX_PER_GROUP})")
        for fq in group.flavors:
            if not 1 <= len(fq.resources) <= MAX_PER_GROUP:
                problems.append(f"flavor `{fq.flavor}` in group {g} has {len(fq.resources)} resources "
                                f"(1 to {MAX_PER_GROUP})")
    flavors = sum(len(g.flavors) for g in groups)
    covered = sum(len(g.covered_resources) for g in groups)
    if flavors > MAX_TOTAL:
        problems.append(f"{flavors} flavors over all groups (at most {MAX_TOTAL})")
    if covered > MAX_TOTAL:
        problems.append(f"{covered} covered resources over all groups (at most {MAX_TOTAL})")
    for p in problems:
        diags.emit(QUOTA_SIZE_LIMIT, f"{kind} `{owner.name}`: {p}",
                   owner.spans.get("resource_groups") or owner.spans.get("resource_groups.0") or owner.span, about=about(owner))


def _check_weight(owner, kind: str, fs: FairSharing | None, diags: Diagnostics) -> None:
    if fs is not None and fs.weight < 0:
        diags.emit(NEGATIVE_WEIGHT, f"fair-sharing weight of {kind} `{owner.name}` is negative "
                   f"({format_quantity(fs.weight)})", owner.field_span("fair_sharing"),
                   help="use 0 for a queue that should always yield, or a positive weight", about=about(owner))
