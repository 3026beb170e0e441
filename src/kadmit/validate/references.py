"""References between objects: flavors, queues, priority classes, topologies, admissions."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, did_you_mean
from kadmit.featuregates import enabled
from kadmit.index import HOSTNAME_LABEL, ModelIndex, resolve_level
from kadmit.identity import about, kueue_key, object_of, subject
from kadmit.model import ClusterQueue, Cohort, PodSet, Workload
from kadmit.validate.codes import (CHECK_ON_UNUSED_FLAVOR, STATE_OF_ANOTHER_CHECK, QUEUE_CHECKS_INACTIVE, PLACEMENT_COUNT, PLACEMENT_UNKNOWN_NODE, ADMISSION_COUNT, ADMITTED_UNKNOWN_CLUSTER_QUEUE, ADMITTED_UNKNOWN_FLAVOR,
                                   ADMITTED_UNKNOWN_POD_SET, ADMITTED_WITHOUT_FLAVOR, COHORT_PARENT_TYPO, NO_TOPOLOGY_FLAVOR,
                                   UNKNOWN_CLUSTER_QUEUE, UNKNOWN_FLAVOR, UNKNOWN_LOCAL_QUEUE,
                                   UNKNOWN_PRIORITY_CLASS, UNKNOWN_PRIORITY_CLASS_WITH_VALUE,
                                   UNKNOWN_TOPOLOGY, UNKNOWN_TOPOLOGY_LEVEL)


def _help(name: str, candidates, fallback: str | None = None) -> str | None:
    return did_you_mean(name, candidates) or fallback


def check_flavor_refs(owner: ClusterQueue | Cohort, kind: str, index: ModelIndex, diags: Diagnostics) -> None:
    for g, group in enumerate(owner.resource_groups):
        for f, fq in enumerate(group.flavors):
            if fq.flavor in index.flavors or fq.flavor in index.broken_keys("ResourceFlavor"):
                continue  # a broken flavor is reported where it is defined
            at = fq.spans.get("flavor") or owner.spans.get(f"resource_groups.{g}.flavors.{f}") or fq.span \
                or owner.span
            diags.emit(UNKNOWN_FLAVOR, f"{kind} `{owner.name}` uses flavor `{fq.flavor}`, which is not defined",
                       at, help=_help(fq.flavor, index.flavors, f"define `flavor {fq.flavor}`"),
                       notes=["Kueue marks the cluster queue inactive (FlavorNotFound) until the flavor exists"], about=about(owner))


def check_admission_check_refs(cq: ClusterQueue, index: ModelIndex, diags: Diagnostics) -> None:
    """A cluster queue Kueue keeps inactive for its admission checks (kadmit.modelchecks); a check on
    a flavor the queue doesn't have."""
    flavors = index.queue_flavors(cq)
    for r in cq.admission_checks:
        for i, fl in enumerate(r.on_flavors):
            if fl not in flavors:
                diags.emit(CHECK_ON_UNUSED_FLAVOR, f"admission check `{r.name}` of cluster queue `{cq.name}` is on "
                           f"flavor `{fl}`, which the queue's resource groups don't list", r.field_span(f"on_flavors.{i}"),
                           help=_help(fl, flavors, "list the flavor in a `resources` block of the queue, or leave it out"),
                           notes=["no workload of the queue is assigned it: the check never applies for it"], about=about(cq))
    problems = index.check_problems(cq)
    if problems:
        missing = [r for r in cq.admission_checks if r.name not in index.check_activity.checks]
        at = (missing[0].field_span("name") if missing else None) or cq.field_span("admission_checks")
        diags.emit(QUEUE_CHECKS_INACTIVE, f"cluster queue `{cq.name}` {'; '.join(problems)}", at,
                   help=next((h for h in (did_you_mean(r.name, index.check_activity.checks) for r in missing) if h),
                             f"define `admission_check {missing[0].name} {{ controller = … }}`" if missing else None),
                   notes=["Kueue keeps the cluster queue inactive: it admits nothing until that changes"], about=about(cq))


def check_references(index: ModelIndex, diags: Diagnostics) -> None:
    model = index.model
    for cq in model.cluster_queues:
        check_flavor_refs(cq, "cluster queue", index, diags)
        check_admission_check_refs(cq, index, diags)
    check_cohort_refs(index, diags)
    check_topology_refs(index, diags)
    check_local_queue_refs(index, diags)
    for wl in model.workloads:
        check_workload_refs(wl, index, diags)


def check_cohort_refs(index: ModelIndex, diags: Diagnostics) -> None:
    model = index.model
    declared = {x.name for x in model.cohorts}
    for c in model.cohorts:
        check_flavor_refs(c, "cohort", index, diags)
        if c.parent and c.parent not in declared and c.parent != c.name \
                and c.parent not in index.broken_keys("Cohort"):
            hint = did_you_mean(c.parent, declared - {c.name})
            if hint:
                diags.emit(COHORT_PARENT_TYPO, f"parent `{c.parent}` of cohort `{c.name}` is not defined",
                           c.field_span("parent"), help=hint,
                           notes=["Kueue creates an implicit cohort for an undefined parent"], about=about(c))


def check_topology_refs(index: ModelIndex, diags: Diagnostics) -> None:
    model = index.model
    for fl in model.flavors:
        if fl.topology and fl.topology not in index.topologies \
                and fl.topology not in index.broken_keys("Topology"):
            diags.emit(UNKNOWN_TOPOLOGY, f"flavor `{fl.name}` uses topology `{fl.topology}`, which is not defined",
                       fl.field_span("topology"),
                       help=_help(fl.topology, index.topologies, f"define `topology {fl.topology}`"), about=about(fl))


def check_local_queue_refs(index: ModelIndex, diags: Diagnostics) -> None:
    model = index.model
    broken_cqs = index.broken_keys("ClusterQueue")
    for lq in model.local_queues:
        if lq.cluster_queue not in index.cluster_queues and lq.cluster_queue not in broken_cqs:
            diags.emit(UNKNOWN_CLUSTER_QUEUE,
                       f"local queue `{lq.key}` points at cluster queue `{lq.cluster_queue}`, which is not defined",
                       lq.field_span("cluster_queue"), help=_help(lq.cluster_queue, index.cluster_queues),
                       notes=["workloads sent to this queue stay pending"], about=about(lq))


def check_workload_refs(wl: Workload, index: ModelIndex, diags: Diagnostics) -> None:
    lq_key = f"{wl.namespace}/{wl.queue}"
    if wl.queue and lq_key not in index.local_queues and lq_key not in index.broken_keys("LocalQueue"):
        here = [q.name for q in index.model.local_queues if q.namespace == wl.namespace]
        elsewhere = sorted(q.key for q in index.model.local_queues if q.name == wl.queue)
        hint = did_you_mean(wl.queue, here) or (
            f"a local queue `{wl.queue}` exists in {', '.join(f'`{k}`' for k in elsewhere)}; "
            f"local queues are per namespace" if elsewhere else None)
        # Kueue's message, on its Workload named as Kueue names it where that is not kadmit's key (a pod group's: the
        # group's name, not its Deployment's; a job's with its UID)
        kueue, o = kueue_key(wl), object_of(wl)
        named = f"its Workload `{kueue}`" if kueue is not None and kueue != wl.key else "the workload"
        diags.emit(UNKNOWN_LOCAL_QUEUE,
                   f"workload `{wl.key}` is queued to `{wl.queue}`, but namespace `{wl.namespace}` "
                   f"has no local queue of that name", wl.field_span("queue"), help=hint,
                   notes=[f"Kueue keeps {named} pending: LocalQueue {wl.queue} doesn't exist" if wl.admission is None
                          else f"Kueue keeps {named} admitted, holding its quota: an admitted Workload needs no "
                               f"LocalQueue (were it pending again, it would wait: LocalQueue {wl.queue} doesn't "
                               f"exist)"], about=(subject(o),))
    if wl.priority_class:
        kinds = [wl.priority_class_kind] if wl.priority_class_kind else ["workload", "pod"]
        known: list[str] = []
        for kind in kinds:
            table = index.workload_priority_classes if kind == "workload" else index.resolvable_pod_priority_classes
            known.extend(table)
        broken = index.broken_keys("WorkloadPriorityClass")  # a broken PriorityClass is refused: not defined
        if wl.priority_class not in known and wl.priority_class not in broken:
            code = UNKNOWN_PRIORITY_CLASS if wl.priority is None else UNKNOWN_PRIORITY_CLASS_WITH_VALUE
            diags.emit(code, f"workload `{wl.key}` uses priority class `{wl.priority_class}`, which is not defined",
                       wl.field_span("priority_class"), help=_help(wl.priority_class, known),
                       about=(subject(object_of(wl)),))
    if wl.admission is not None:
        _check_admission(wl, index, diags)
    cq = index.cluster_queue_of(wl)
    for i, ps in enumerate(wl.pod_sets):
        _check_topology_level(wl, i, ps, cq, index, diags)
    if wl.check_states:
        _check_states(wl, index, diags)


def _check_states(wl: Workload, index: ModelIndex, diags: Diagnostics) -> None:
    """A check state of a check the workload's queue (where it holds quota, else where it is queued)
    doesn't require: Kueue drops it (KAD274)."""
    name = wl.admission.cluster_queue if wl.admission is not None else None
    cq = index.cluster_queues.get(name) if name is not None else index.cluster_queue_of(wl)
    if cq is None:
        return
    required = [r.name for r in cq.admission_checks]
    for st in wl.check_states:
        if st.name not in required:
            diags.emit(STATE_OF_ANOTHER_CHECK, f"workload `{wl.key}` gives the state of admission check `{st.name}`, "
                       f"which its cluster queue `{cq.name}` doesn't require", st.span or wl.field_span("check_states"),
                       help=_help(st.name, required, f"cluster queue `{cq.name}` requires "
                                  + (", ".join(f"`{r}`" for r in required) or "no admission check")),
                       notes=["Kueue's workload controller drops it: it decides nothing"], about=about(wl))


def _check_admission(wl: Workload, index: ModelIndex, diags: Diagnostics) -> None:
    adm = wl.admission
    assert adm is not None
    cq = index.cluster_queues.get(adm.cluster_queue)
    if cq is None and adm.cluster_queue not in index.broken_keys("ClusterQueue"):
        diags.emit(ADMITTED_UNKNOWN_CLUSTER_QUEUE,
                   f"workload `{wl.key}` is admitted to cluster queue `{adm.cluster_queue}`, which is not defined",
                   adm.field_span("cluster_queue") or wl.span, help=_help(adm.cluster_queue, index.cluster_queues), about=about(wl))
    offered: set[tuple[str, str]] = set()
    if cq is not None:
        offered = {(fq.flavor, r) for g in cq.resource_groups for fq in g.flavors
                   for r in (rq.resource for rq in fq.resources)}
    by_name = {ps.name: ps for ps in wl.pod_sets}
    assigned = {psa.name for psa in adm.pod_sets}
    misnamed = any(name not in by_name for name in assigned)  # reported as such (KAD208), not twice
    for ps in wl.pod_sets:
        if ps.name not in assigned and not misnamed and any(ps.requests.values()):
            diags.emit(ADMITTED_WITHOUT_FLAVOR,
                       f"pod set `{ps.name}` of admitted workload `{wl.key}` has no assignment",
                       adm.span or wl.span, help="an admission assigns every pod set of the workload", about=about(wl))
    for i, psa in enumerate(adm.pod_sets):
        at = psa.span or adm.span or wl.span
        ps = by_name.get(psa.name)
        if ps is None:
            diags.emit(ADMITTED_UNKNOWN_POD_SET,
                       f"admission of `{wl.key}` assigns pod set `{psa.name}`, which the workload doesn't have",
                       psa.field_span("name") or at, help=_help(psa.name, by_name), about=about(wl))
        else:
            requested = sorted(r for r, q in (psa.usage or ps.requests).items() if q)
            missing = [r for r in requested if r not in psa.flavors] if psa.count else []
            if missing:
                diags.emit(ADMITTED_WITHOUT_FLAVOR,
                           f"pod set `{psa.name}` of admitted workload `{wl.key}` has no flavor for "
                           + ", ".join(f"`{r}`" for r in missing), psa.field_span("flavors") or at,
                           help="an admission names a flavor for every requested resource "
                                "(`podSetAssignments[].flavors`)", about=about(wl))
            low = ps.min_count if ps.min_count is not None else ps.count
            if not low <= psa.count <= ps.count:
                diags.emit(ADMISSION_COUNT,
                           f"pod set `{psa.name}` of `{wl.key}` is admitted with count {psa.count}, "
                           f"outside {low}..{ps.count}", psa.field_span("count") or at, about=about(wl))
        if psa.placement:
            placed = sum(psa.placement.values())
            if placed != psa.count:
                diags.emit(PLACEMENT_COUNT, f"pod set `{psa.name}` of `{wl.key}` is admitted with {psa.count} "
                           f"pods but placed with {placed}", psa.field_span("placement") or at, about=about(wl))
            if index.model.nodes and not psa.placement_levels:
                # kadmit's language names nodes; Kueue's assignment, their hostname label values
                nodes = {n.name for n in index.model.nodes} | {
                    n.labels[HOSTNAME_LABEL] for n in index.model.nodes if HOSTNAME_LABEL in n.labels}
                for node in sorted(set(psa.placement) - nodes):
                    diags.emit(PLACEMENT_UNKNOWN_NODE, f"pod set `{psa.name}` of `{wl.key}` is placed on node "
                               f"`{node}`, which is not declared", psa.spans.get(f"placement.{node}") or at,
                               help=_help(node, nodes), about=about(wl))
        for res in sorted(psa.flavors):
            fl = psa.flavors[res]
            where = psa.spans.get(f"flavors.{res}") or at
            if fl not in index.flavors:
                if fl in index.broken_keys("ResourceFlavor"):
                    continue  # defined by an object with errors, reported where it is
                diags.emit(ADMITTED_UNKNOWN_FLAVOR,
                           f"pod set `{psa.name}` of `{wl.key}` is admitted with flavor `{fl}`, which is not defined",
                           where, help=_help(fl, index.flavors), about=about(wl))
            elif cq is not None and (fl, res) not in offered:
                diags.emit(ADMITTED_UNKNOWN_FLAVOR,
                           f"pod set `{psa.name}` of `{wl.key}` is admitted with `{res}` in flavor `{fl}`, "
                           f"but cluster queue `{cq.name}` has no quota for it", where, about=about(wl))


def _check_topology_level(wl: Workload, i: int, ps: PodSet, cq: ClusterQueue | None,
                          index: ModelIndex, diags: Diagnostics) -> None:
    req = ps.topology
    if req is None or req.level is None or cq is None or not enabled(index.model.config, "TopologyAwareScheduling"):
        return  # the gate off: Kueue reads no topology request (`effective.gated`)
    topologies = []
    for g in cq.resource_groups:
        for fq in g.flavors:
            fl = index.flavors.get(fq.flavor)
            if fl and fl.topology and fl.topology in index.topologies:
                topologies.append(index.topologies[fl.topology])
    at = ps.field_span("topology") or wl.spans.get(f"pod_sets.{i}") or wl.span
    if not topologies:
        diags.emit(NO_TOPOLOGY_FLAVOR,
                   f"pod set `{ps.name}` of `{wl.key}` asks for {req.mode} topology `{req.level}`, but no flavor "
                   f"of cluster queue `{cq.name}` has a topology", at,
                   notes=["Kueue reports the workload inadmissible"], about=about(wl))
        return
    if any(resolve_level(t, req.level) for t in topologies):
        return
    levels = sorted({lv for t in topologies for lv in t.levels})
    ambiguous = sorted({k for t in topologies for k in set(t.levels) if k.rsplit("/", 1)[-1] == req.level})
    if any(len({k for k in set(t.levels) if k.rsplit("/", 1)[-1] == req.level}) == 1 for t in topologies):
        return  # found, but in a topology that also lists it twice (reported there)
    if ambiguous:
        diags.emit(UNKNOWN_TOPOLOGY_LEVEL,
                   f"topology level `{req.level}` of pod set `{ps.name}` of `{wl.key}` is ambiguous: it matches "
                   + ", ".join(f"`{k}`" for k in ambiguous), at, help="write the full node label key", about=about(wl))
        return
    names = levels + sorted({lv.rsplit("/", 1)[-1] for lv in levels})
    diags.emit(UNKNOWN_TOPOLOGY_LEVEL,
               f"pod set `{ps.name}` of `{wl.key}` asks for topology level `{req.level}`, which no topology "
               f"of cluster queue `{cq.name}`'s flavors has", at,
               help=_help(req.level, names, "levels: " + ", ".join(f"`{lv}`" for lv in levels)), about=about(wl))
