"""Cluster state from the model: Workloads (pending, admitted, finished) and Nodes, as Kueue and
Kubernetes write them, in the form kadmit's manifest reader reads back to the same model."""

from __future__ import annotations

from datetime import datetime, timezone

from kadmit.diagnostics import Diagnostics
from kadmit.effective import without_layer_annotation
from kadmit.export.codes import KAD901, KAD903
from kadmit.export.policy import KUEUE_API, meta, requirement, taint, toleration
from kadmit.featuregates import enabled
from kadmit.identity import OWN_KEY_MARK
from kadmit.index import HOSTNAME_LABEL, ModelIndex, resolve_level
from kadmit.manifests.podvalues import overcommit_allowed
from kadmit.model import Node, NodeSelectorTerm, PodSet, TopologyRequest, Workload
from kadmit.quantity import format_quantity

DURATION_ANNOTATION = "kadmit.dev/duration"  # read by kadmit's manifest reader and `simulate`
REPLACEMENT_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"  # workloadslicing.WorkloadSliceReplacementFor
CONTAINER = "main"  # the one container a pod group's pods are written with


def timestamp(t: datetime) -> str:
    """RFC 3339 in UTC, whole seconds as the API server writes a metav1.Time; a time with a fraction of a
    second (a Workload kadmit makes after the input's moment: the input's latest time and 1 ms more, ...)
    keeps it to the microsecond, which both readers take, so an exported or imported order is the input's."""
    t = t.astimezone(timezone.utc)
    if t.microsecond:
        return t.strftime("%Y-%m-%dT%H:%M:%S.%f").rstrip("0") + "Z"
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _duration(ms: int) -> str:
    """A Go duration for `kadmit.dev/duration` (whole seconds when exact)."""
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def resources(q: dict[str, int]) -> dict[str, str]:
    return {r: format_quantity(v, r) for r, v in sorted(q.items())}


def _level(ix: ModelIndex, wl: Workload, ps: PodSet, level: str, diags: Diagnostics) -> str:
    """The node label of a level named in `.kad` by its key or its short name, through the
    topologies of the workload's queue's flavors (every topology when the queue has none)."""
    cq = ix.cluster_queue_of(wl)
    names = {ix.flavors[fq.flavor].topology for g in (cq.resource_groups if cq else ()) for fq in g.flavors
             if fq.flavor in ix.flavors and ix.flavors[fq.flavor].topology}
    topologies = [ix.topologies[n] for n in sorted(names) if n in ix.topologies] or list(ix.topologies.values())
    keys = {k for t in topologies if (k := resolve_level(t, level)) is not None}
    if len(keys) == 1:
        return keys.pop()
    if level not in keys and "/" not in level:
        diags.emit(KAD903, f"workload `{wl.key}`, pod group `{ps.name}`: topology level `{level}` names "
                   + ("no level" if not keys else "levels " + ", ".join(f"`{k}`" for k in sorted(keys)))
                   + " of its queue's topologies; written as given", ps.field_span("topology"),
                   help="write the node label itself, e.g. `required cloud.example.com/rack`")
    return level


def topology_request(ix: ModelIndex, wl: Workload, ps: PodSet, t: TopologyRequest, diags: Diagnostics) -> dict:
    out: dict = {}
    if t.mode == "unconstrained":
        if t.slice_level is None:
            out["unconstrained"] = True
    elif t.level is not None:
        out[t.mode] = _level(ix, wl, ps, t.level, diags)
    if t.layers:  # the slices as layers (TASMultiLayerTopology's): the first is the slice level and size
        out["podsetSliceRequiredTopologyConstraints"] = [{"topology": _level(ix, wl, ps, level, diags), "size": size}
                                                         for level, size in t.layers]
    elif t.slice_level is not None:
        out["podSetSliceRequiredTopology"] = _level(ix, wl, ps, t.slice_level, diags)
        if t.slice_size is not None:  # a Workload's own level without its size (pending, as Kueue has it)
            out["podSetSliceSize"] = t.slice_size
    if t.group is not None:  # `topology_group`: the pod sets Kueue places as one
        out["podSetGroupName"] = t.group
    return out


def node_selector_term(term: NodeSelectorTerm) -> dict:
    """A required node-affinity term as the API writes it: its expressions, and its fields where it has any."""
    out: dict = {}
    if term.match_expressions or not term.match_fields:
        out["matchExpressions"] = [requirement(r) for r in term.match_expressions]
    if term.match_fields:
        out["matchFields"] = [requirement(r) for r in term.match_fields]
    return out


def pod_set(ix: ModelIndex, wl: Workload, ps: PodSet, diags: Diagnostics) -> dict:
    container: dict = {"name": CONTAINER}
    if ps.requests:
        container["resources"] = {"requests": resources(ps.requests)}
        # a resource the API server does not let a pod overcommit (an extended one: a GPU) needs a limit equal to
        # its request (ValidateResourceRequirements), else every pod of the Workload is refused
        fixed = {r: q for r, q in ps.requests.items() if not overcommit_allowed(r)}
        if fixed:
            container["resources"]["limits"] = resources(fixed)
    spec: dict = {"containers": [container]}
    if ps.node_selector:
        spec["nodeSelector"] = dict(sorted(ps.node_selector.items()))
    if ps.node_affinity:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [node_selector_term(term) for term in ps.node_affinity]}}}
    if ps.tolerations:
        spec["tolerations"] = [toleration(t) for t in ps.tolerations]
    if ps.claim_templates or ps.claims:
        spec["resourceClaims"] = ([{"name": f"claim-{i}", "resourceClaimTemplateName": name}
                                   for i, name in enumerate(ps.claim_templates)]
                                  + [{"name": f"claim-{len(ps.claim_templates) + i}", "resourceClaimName": name}
                                     for i, name in enumerate(ps.claims)])
    out: dict = {"name": ps.name, "count": ps.count}
    if ps.min_count is not None:
        out["minCount"] = ps.min_count
    out["template"] = {"spec": spec}
    t = ps.topology
    if t is not None and t.layers_annotation and not enabled(ix.model.config, "TASMultiLayerTopology"):
        t = without_layer_annotation(t)  # the Workload Kueue builds from the job with the gate off
    if t is not None and t.group is not None and ps.stored_group is None and \
            not enabled(ix.model.config, "TopologyAwareScheduling"):
        t = t.model_copy(update={"group": None})  # a job's group: Kueue's Workload holds none with the gate off
    if t is not None:
        out["topologyRequest"] = topology_request(ix, wl, ps, t, diags)
    return out


def _topology_assignment(placement: dict[str, int], levels: tuple[str, ...] = ()) -> dict:
    """Pods per domain as Kueue's v1beta2 `topologyAssignment`: on its levels (the hostname alone
    when none are recorded), one slice of individual values per level and counts; a domain's key
    holds its values joined with commas, as the reader keys them."""
    keys = sorted(placement)
    levels = levels or (HOSTNAME_LABEL,)
    columns = [[k.split(",")[i] if len(k.split(",")) == len(levels) else k for k in keys]
               for i in range(len(levels))]
    return {"levels": list(levels), "slices": [{
        "domainCount": len(keys), "valuesPerLevel": [{"individual": {"roots": c}} for c in columns],
        "podCounts": {"individual": [placement[k] for k in keys]}}]}


def _assignments(wl: Workload) -> list[dict]:
    declared = {ps.name: ps for ps in wl.pod_sets}
    out = []
    for a in wl.admission.pod_sets if wl.admission else ():
        psa: dict = {"name": a.name}
        if a.flavors:
            psa["flavors"] = dict(sorted(a.flavors.items()))
        ps = declared.get(a.name)
        usage = {} if a.unrecorded else a.usage or ({r: q * a.count for r, q in ps.requests.items() if q} if ps else {})
        if usage:
            psa["resourceUsage"] = resources(usage)
        psa["count"] = a.count
        if a.placement:
            psa["topologyAssignment"] = _topology_assignment(a.placement, a.placement_levels)
        elif a.delayed:
            psa["delayedTopologyRequest"] = "Pending"
        out.append(psa)
    return out


EPOCH = "1970-01-01T00:00:00Z"


def _condition(kind: str, at: datetime | None, reason: str) -> dict:
    """A condition as Kueue writes it: the Workload CRD's status schema requires its time (a Workload whose
    condition has none is refused, `schema.status`): `at`, else the epoch."""
    out: dict = {"type": kind, "status": "True", "lastTransitionTime": timestamp(at) if at is not None else EPOCH}
    out["reason"] = reason
    out["message"] = ""
    return out


def workload(ix: ModelIndex, wl: Workload, diags: Diagnostics) -> dict:
    annotations = {}
    if wl.duration_ms is not None:
        annotations[DURATION_ANNOTATION] = _duration(wl.duration_ms)
        diags.emit(KAD901, f"workload `{wl.key}`: its `duration` is written as the annotation "
                   f"`{DURATION_ANNOTATION}`, which only kadmit's `simulate` reads", wl.field_span("duration_ms"))
    if wl.replaces:  # the admitted slice it replaces (ElasticJobsViaWorkloadSlices)
        annotations[REPLACEMENT_FOR] = wl.replaces
    # kadmit's own key (`identity.own_name`, `serve:replica-0`) is no object name: written with `-` instead
    metadata = meta(wl.name.replace(OWN_KEY_MARK, "-"), wl.namespace, annotations=annotations)
    metadata["creationTimestamp"] = timestamp(wl.created)
    spec: dict = {"queueName": wl.queue, "podSets": [pod_set(ix, wl, ps, diags) for ps in wl.pod_sets]}
    if wl.priority_class:
        pod = wl.priority_class_kind == "pod" or (
            wl.priority_class_kind is None and wl.priority_class not in ix.workload_priority_classes
            and wl.priority_class in ix.pod_priority_classes)
        spec["priorityClassRef"] = ({"group": "scheduling.k8s.io", "kind": "PriorityClass"} if pod else
                                    {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass"})
        spec["priorityClassRef"]["name"] = wl.priority_class
    if wl.priority is not None or wl.priority_class or ix.default_priority:
        # Kueue's scheduler reads spec.priority only (0 where unset), not the class; the CRD wants it beside one
        spec["priority"] = ix.priority(wl)
    if not wl.active:
        spec["active"] = False
    if wl.max_exec:  # Kueue deactivates it once Admitted that long (effective.expired)
        spec["maximumExecutionTimeSeconds"] = wl.max_exec
    out: dict = {"apiVersion": KUEUE_API, "kind": "Workload", "metadata": metadata, "spec": spec}
    conditions = []
    status: dict = {}
    if wl.admission is not None:
        status["admission"] = {"clusterQueue": wl.admission.cluster_queue, "podSetAssignments": _assignments(wl)}
        # holding quota is QuotaReserved True (Kueue's cache counts nothing else); without its time, the
        # creation's, which kadmit's preemption order reads in its place (candidates `admitted_at or created`)
        at = wl.admission.admitted_at or wl.created
        conditions.append(_condition("QuotaReserved", at, "QuotaReserved"))
        if wl.admitted_condition or (all(c.state == "Ready" for c in wl.check_states)  # else waiting for its checks
                                     and not any(a.delayed for a in wl.admission.pod_sets)):  # or its second pass
            conditions.append(_condition("Admitted", wl.admitted_since or at, "Admitted"))
    if wl.evicted:  # its reason and time, which Kueue may queue it by (effective.ordered_by_eviction: else created)
        conditions.append(_condition("Evicted", wl.evicted_at or wl.created, wl.evicted_reason or "Preempted"))
    if wl.finished:  # as Kueue set it where kadmit's reading finished it (a job it cannot start)
        reason, _, message = wl.finished_reason.partition(": ")
        conditions.append(_condition("Finished", None, reason or "Succeeded") | {"message": message})
    if wl.requeued_false:  # what holds it back from Kueue's queues (effective.held)
        conditions.append(_condition("Requeued", None, wl.requeued_false) | {"status": "False"})
    if conditions:
        status["conditions"] = conditions
    if wl.past_exec:
        status["accumulatedPastExecutionTimeSeconds"] = wl.past_exec
    if wl.requeue_at is not None:
        status["requeueState"] = {"requeueAt": timestamp(wl.requeue_at)}
    if wl.check_states:  # what its admission checks' controllers set (kadmit.modelchecks); the Workload CRD
        # requires each entry's lastTransitionTime (kadmit keeps none: the Workload's own time stands for it)
        since = timestamp(wl.admission.admitted_at if wl.admission is not None and wl.admission.admitted_at else wl.created)
        status["admissionChecks"] = [{"name": c.name, "state": c.state, "lastTransitionTime": since, "message": ""}
                                     for c in wl.check_states]
    if status:
        out["status"] = status
    return out


def node(n: Node) -> dict:
    spec: dict = {}
    if n.taints:
        spec["taints"] = [taint(t) for t in n.taints]
    if n.unschedulable:
        spec["unschedulable"] = True
    out: dict = {"apiVersion": "v1", "kind": "Node", "metadata": meta(n.name, labels=n.labels)}
    if spec:
        out["spec"] = spec
    out["status"] = {"allocatable": resources(n.allocatable),
                     "conditions": [{"type": "Ready", "status": "True" if n.ready else "False"}]}
    return out
