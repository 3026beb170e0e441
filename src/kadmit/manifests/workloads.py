"""Kueue Workloads -> model: pod sets from pod templates, priority, admission (and when quota was
reserved), finished, evicted."""

from __future__ import annotations

import re

from kadmit.diagnostics import Subject
from kadmit.durations import parse_duration_ms
from kadmit.manifests import kubenames
from kadmit.manifests.checks import check_states
from kadmit.manifests.codes import KAD157, KAD161, KAD164, KAD165, KAD168, KAD169, KAD181
from kadmit.manifests.fields import Fields, Meta, NotRead
from kadmit.manifests.owners import controller_owner
from kadmit.manifests.dra import pod_claim_templates
from kadmit.manifests.podsettopology import topology_request
from kadmit.manifests.schema import coverage
from kadmit.manifests.schema.constraints import value_refusals
from kadmit.manifests.builtinspec import no_pod_spec, pod_spec_refusals
from kadmit.manifests.podspec import (KEPT, node_field_refusals, pod_affinity_refusals, pod_requests, required_node_affinity,
                                      template_refusals, tolerations)
from kadmit.manifests.reclaim import after_reclaim, booked, status_reclaimable
from kadmit.manifests.yamltree import STR, Val
from kadmit.source import Spans
from kadmit.model import Admission, HashOnly, PodSet, PodSetAssignment, TopologyRequest, Workload
from kadmit.quantity import QuantityError, parse_exact

PRIORITY_SOURCES = {"kueue.x-k8s.io/workloadpriorityclass": "workload",
                    "scheduling.k8s.io/priorityclass": "pod"}
PRIORITY_REFS = {("kueue.x-k8s.io", "WorkloadPriorityClass"): "workload",
                 ("scheduling.k8s.io", "PriorityClass"): "pod"}
PRIORITY_FIELD = {"v1beta1": "priorityClassName", "v1beta2": "priorityClassRef"}
# the Workload CRD's pattern on a priority class's name (v1beta1 `priorityClassName`, v1beta2 `priorityClassRef.name`)
CLASS_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"  # constants.AdmissionGatedByAnnotation
REPLACEMENT_FOR = "kueue.x-k8s.io/workload-slice-replacement-for"  # workloadslicing.WorkloadSliceReplacementFor
ELASTIC_JOB = "kueue.x-k8s.io/elastic-job"  # workloadslicing.EnabledAnnotationKey


def template_shape(f: Fields, count: int, min_count: int | None, template: Val | None) -> tuple:
    """What Kueue's `equality.ComparePodSets` compares of a pod set (a prebuilt Workload's, or one its job
    makes): the count, the minCount, the containers and init containers and the tolerations (the last
    apart: an admitted Workload's are not compared), the last two as written (plain values: comparing them
    as `Semantic.DeepEqual` does, `prebuilt.same_as_kueue`, costs only where they differ as written)."""
    spec = f.map(template, "spec")
    if spec is None:
        return (count, min_count, [None, None], None)
    return (count, min_count, [_plain(f, spec, "containers"), _plain(f, spec, "initContainers")],
            _plain(f, spec, "tolerations"))


def running_shape(f: Fields, listed: list[Val], status: Val | None) -> tuple:
    """What Kueue merges into a prebuilt Workload's pod sets holding quota (jobframework expectedRunningPodSets,
    `podset.Merge`), besides its flavors' tolerations and node labels, as written: per pod set of the spec its
    template's `nodeSelector`, labels and annotations (what is merged must not conflict with them); per pod
    set name the first `podSetUpdates` entry of each admission check (tolerations, nodeSelector, labels,
    annotations, and the check's name)."""
    templates = [template_maps(f, f.map(ps, "template")) for ps in listed]
    updates: dict[str, list] = {}
    for check in f.maps(status, "admissionChecks"):
        seen = set()
        for u in f.maps(check, "podSetUpdates"):
            name = f.str(u, "name")
            if name and name not in seen:  # getPodSetsInfoFromStatus takes the first of a name (`break`)
                seen.add(name)
                tolerations = _plain(f, u, "tolerations")
                updates.setdefault(name, []).append((tolerations if isinstance(tolerations, list) else [],
                                                     _plain_map(f, u, "nodeSelector"), _plain_map(f, u, "labels"),
                                                     _plain_map(f, u, "annotations"), f.str(check, "name") or ""))
    return tuple(templates), {k: tuple(v) for k, v in updates.items()}


def template_maps(f: Fields, template: Val | None) -> tuple[dict, dict, dict]:
    """What Kueue's `podset.Merge` merges into of a pod template (a Pod: the pod itself), as written: its
    spec's `nodeSelector`, its metadata's labels and annotations."""
    meta = f.map(template, "metadata")
    return _plain_map(f, f.map(template, "spec"), "nodeSelector"), _plain_map(f, meta, "labels"), \
        _plain_map(f, meta, "annotations")


def _plain_map(f: Fields, m: Val | None, key: str) -> dict:
    v = _plain(f, m, key)
    return v if isinstance(v, dict) else {}


def _plain(f: Fields, spec: Val, key: str):
    v = f.field(spec, key)
    return v.plain() if v is not None else None


# The Workload CRD's `spec.podSets[].name` (v1beta1 and v1beta2): its constraints, and its default
POD_SET_NAME = {"maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"}
DEFAULT_POD_SET = "main"


def pod_set(f: Fields, ps: Val, i: int = 0) -> PodSet:
    """The `i`th of a Workload's `spec.podSets`: a name left out is the CRD's default, `main`; one its schema refuses
    is the API server's refusal (KAD157, in its words)."""
    name = f.str(ps, "name") or DEFAULT_POD_SET
    node = f.field(ps, "name")
    for words in value_refusals(node, POD_SET_NAME, f"spec.podSets[{i}].name") if node is not None else ():
        f.invalid(KAD157, f"`spec.podSets[{i}].name` is refused by its CRD: `{words}`", node, uses=(),
                  notes=["the API server refuses the Workload with it, so it is never created"],
                  help="a pod set's name is a DNS label: at most 63 lowercase letters, digits and `-`")
    count = f.int(ps, "count", default=1, lo=0)
    min_count = f.int(ps, "minCount", lo=1)
    if min_count is not None and min_count > count:
        f.invalid(KAD157, f"`minCount` ({min_count}) of pod set `{name}` is more than its count ({count})",
                  f.field(ps, "minCount"), uses=(f.field(ps, "count"), f.field(ps, "minCount")))
    template = f.map(ps, "template", required=True, what=f"pod set `{name}`")
    request = f.map(ps, "topologyRequest")  # its index labels: the scheduling hash's (`PodSet.index`)
    index = () if request is None else (f.str(request, "podIndexLabel"), f.str(request, "subGroupIndexLabel"),
                                        f.int(request, "subGroupCount"))
    return template_pod_set(f, name, count, min_count, template, ps, request=ps,
                            nodes={"name": f.field(ps, "name"), "count": f.field(ps, "count"),
                                   "min_count": f.field(ps, "minCount")}).model_copy(update={"index": HashOnly(index)})


def template_pod_set(f: Fields, name: str, count: int, min_count: int | None, template: Val, at: Val, *,
                     request: Val | None = None, nodes: dict[str, Val | None] | None = None,
                     origin: str | None = None, topology: bool = True, webhook: bool = True, pod: bool = False,
                     api: str | None = None, made: str = "Pod", restart: str | None = KEPT,
                     job_spec: Val | None = None, job_words: tuple[str, ...] = ()) -> PodSet:
    """A pod set of `count` pods from a pod template (`template` holds `metadata` and `spec`), as
    Kueue builds one for a Workload or from a job's template: requests, selectors, affinity,
    tolerations and the topology request (a Workload's `topologyRequest` in `request`, else the
    template's annotations; none with `topology` False, for a template Kueue's webhook refuses for
    them). `at` locates the pod set; `nodes` its name, count and min_count. `pod`: the template is
    a Pod object's (as the API server stores it: `podspec.pod_requests`); `api`: the spec's field path
    where the API server validates it (a Pod's, a built-in job kind's template); where it does not, `made`:
    the kind of object the API server validates it in first (a JobSet's Jobs: `jobs.common.MADE`), whose
    words refusing it `PodSet.pod_refusals` keeps (`podspec.template_refusals`; `restart`: how that object
    takes the template's restartPolicy, `podspec.KEPT`, `WRITTEN` or None; `job_spec`: a JobSet's Job's own
    spec, `job_words` what it is refused for)."""
    meta = f.map(template, "metadata")
    # the API server requires a pod spec (its containers) only where it validates it (`api`); a custom
    # resource's embedded template may leave it out or null (the server stores `{}`): no containers
    # (`builtinspec.no_pod_spec`: `{api}.containers: Required value`; a Pod's own spec, `cluster.pod`)
    if api not in (None, "spec"):
        no_pod_spec(f, template, api)
    spec = f.map(template, "spec")
    reqs = pod_requests(f, spec, pod=pod, api=api)
    if api is not None:  # a custom resource's embedded template (a Workload's, a RayCluster's) is not validated
        kubenames.check_labels(f, f.field(spec, "nodeSelector"), "node selector label")
        node_field_refusals(f, spec, api, refuse=True)
        pod_affinity_refusals(f, spec, api, refuse=True)
        if api != "spec":  # a Pod's own spec: `cluster.pod` checks it, for every Pod (one only node usage too)
            pod_spec_refusals(f, spec, api)
    kubenames.check_kueue_keys(f, meta, own=False)
    selector, selector_nodes = f.str_map(spec, "nodeSelector")
    affinity, affinity_node = required_node_affinity(f, spec, stored=request is not None)  # a Workload's own
    topo, topo_node = topology_request(f, request, meta, count, webhook) if topology else (None, None)
    stored = f.field(f.map(request, "topologyRequest"), "podSetGroupName") if request is not None else None
    coverage.warn_template(f, meta, spec, name)
    claims, direct, claims_node = pod_claim_templates(f, spec)
    tols = tolerations(f, spec, validated=api is not None)
    # where the API server validates no template, what it refuses of the objects made of it
    refused, refusals = template_refusals(f, spec, made, reqs.pod, restart, job_spec,
                                          job_words) if api is None else ("", ())
    return PodSet(claim_templates=claims, claims=direct, pod_refusals=refusals, refused_object=refused,
        name=name, origin=origin, count=count, min_count=min_count, requests=reqs.requests, resources=reqs.pod,
        node_selector=selector, node_affinity=affinity, tolerations=tols, topology=topo,
        stored_group=topo.group if topo is not None and stored is not None else None, span=f.span(at),
        spans=f.spans({**(nodes or {}), "tolerations": f.field(spec, "tolerations"), "template_spec": spec,
                       "template": template, "template_metadata": meta,
                       "template_annotations": f.field(meta, "annotations"),
                       "topology": topo_node, "node_selector": f.field(spec, "nodeSelector"),
                       "claim_templates": claims_node,
                       "node_affinity": affinity_node,
                       **{f"node_selector.{k}": v for k, v in selector_nodes.items()},
                       **{f"requests.{k}": v for k, v in reqs.nodes.items()}}))


def _priority_class(f: Fields, o: Meta, spec: Val) -> tuple[str | None, str | None, Val | None]:
    key = o.versioned(f, spec, PRIORITY_FIELD)
    if key == "priorityClassRef":
        ref = f.map(spec, key)
        if ref is None:
            return None, None, None
        group = f.str(ref, "group", default="")
        kind = f.str(ref, "kind", default="")
        # the schema's enums of each (a value outside one leaves the CRD's rules unchecked), then its rules
        _no_priority(f, o, spec, key, schema_valid=group in {g for g, _ in PRIORITY_REFS}
                     and kind in {k for _, k in PRIORITY_REFS})
        if (group, kind) not in PRIORITY_REFS:
            f.invalid(KAD157, f"`priorityClassRef` can't name `{kind}` in group `{group}`", ref,
                      uses=(f.field(ref, "group"), f.field(ref, "kind")),
                      help="use group `kueue.x-k8s.io` with kind `WorkloadPriorityClass`, or "
                           "`scheduling.k8s.io` with `PriorityClass`")
        name = f.str(ref, "name", required=True, what="a priority class reference")
        _class_name_pattern(f, o, ref, "name", "spec.priorityClassRef.name")
        return name, PRIORITY_REFS.get((group, kind)), ref
    name = f.str(spec, key) or None
    source = f.enum(spec, "priorityClassSource", list(PRIORITY_SOURCES), "")
    _no_priority(f, o, spec, key, schema_valid=True)  # first: its `uses` hold the name, which the pattern may refuse
    _class_name_pattern(f, o, spec, key, "spec.priorityClassName")
    return name, PRIORITY_SOURCES.get(source) if name else None, f.field(spec, key)


def _class_name_pattern(f: Fields, o: Meta, parent: Val, key: str, path: str) -> None:
    """KAD157 where the priority class's name does not match the Workload CRD's pattern (v1beta1's
    `priorityClassName: ""` too), in the API server's words (tools/kube-apiserver v1.35.3); a pattern's
    error leaves the CRD's rules checked (`_no_priority`, reported beside it)."""
    node = f.field(parent, key)
    if node is None or node.kind != STR or (not node.v and path.endswith(".name")) \
            or re.fullmatch(CLASS_NAME, node.v):
        return  # an empty reference name is the reference's own refusal (`f.str(..., required=True)`)
    f.invalid(KAD157, f"the API server refuses the object: `Workload.kueue.x-k8s.io \"{o.name}\" is invalid: {path}: "
              f"Invalid value: \"{node.v}\": {path} in body should match '{CLASS_NAME}'`", node, uses=(),
              help="a priority class's name is a DNS subdomain: lower-case letters, digits, `-` and `.`")


def _no_priority(f: Fields, o: Meta, spec: Val | None, key: str, *, schema_valid: bool) -> None:
    """KAD157 where a Workload names a priority class and sets no `spec.priority`: the Workload CRD's rule
    (v1beta2 `!has(self.priorityClassRef) || has(self.priority)`, v1beta1 `has(self.priorityClassName) ?
    has(self.priority) : true`) refuses it in these words (the real API server: tests/kube/test_workload_priority.py),
    before the rules on the reference itself. `has` is the field's presence: v1beta1's `priorityClassName: ""`
    counts (its pattern refuses it as well). The API server checks no rule of an object its schema refuses
    (`some validation rules were not checked because the object was invalid`): not reported after a field of
    the rule, or a value of a wrong type, was, nor where `schema_valid` says the reference's enums refuse it."""
    named = f.field(spec, key)
    if named is None or f.field(spec, "priority") is not None or not schema_valid:
        return
    f.invalid(KAD157, f"the API server refuses the object: `Workload.kueue.x-k8s.io \"{o.name}\" is invalid: spec: "
              f"Invalid value: priority should not be nil when {key} is set`", named,
              uses=(named, f.field(spec, "priorityClassSource"), *f.typed.values()),
              help="set `spec.priority` to the class's value, as Kueue's job integrations do: Kueue's scheduler "
                   "reads `spec.priority` only")


def _conditions(f: Fields, status: Val | None) -> dict[str, tuple[bool, Val]]:
    """Each condition type: whether its status is True, and its node (the first of a type counts,
    as apimeta.FindStatusCondition finds it)."""
    out: dict[str, tuple[bool, Val]] = {}
    for cond in f.maps(status, "conditions"):
        kind = f.str(cond, "type")
        if kind and kind not in out:
            out[kind] = (f.str(cond, "status") == "True", cond)
    return out


HOSTNAME = "kubernetes.io/hostname"
def _preemption_gated(f: Fields, spec: Val | None, status: Val | None) -> bool:
    """workload.HasClosedPreemptionGate: a gate of `spec.preemptionGates` whose state in `status.preemptionGates`
    is not Open (one with no state is closed)."""
    positions = {f.str(g, "name"): f.str(g, "position") for g in f.maps(status, "preemptionGates")}
    return any(positions.get(f.str(g, "name")) != "Open" for g in f.maps(spec, "preemptionGates"))


ORDERING_EVICTIONS = ("AdmissionCheck", "PodsReadyTimeout")  # the evictions Kueue may queue a workload by
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"


# The field a TopologyAssignment holds its domains in, per Workload API version (v1beta1: `domains`;
# v1beta2: `slices`, apis/kueue/v1beta2 TopologyAssignment). The API server prunes the other one.
ASSIGNMENT_DOMAINS = {"v1beta1": "domains", "v1beta2": "slices"}


def _topology_assignment(f: Fields, psa: Val, name: str, o: Meta) -> tuple[dict[str, int], tuple[str, ...]]:
    """Pods per domain of Kueue's `topologyAssignment` (levels + domains of values and counts), each
    domain keyed as Kueue's TAS cache keys its usage: the domain's values joined with commas
    (tas_flavor.go updateUsage, utiltas.DomainID), with the assignment's levels. The cache counts
    the pods on the leaf of that key: a node by its hostname where the topology's lowest level is
    the hostname, else a lowest-level domain (a rack) by its values on every level. So an
    assignment over several levels ending in the hostname (`r0,n0`; Kueue v0.17 writes the hostname
    level alone) counts on no node (KAD168), and is read as none. A slice's `domainCount` below 1 is the status
    schema's refusal (KAD157, `schema.status`): the oracle skips the Workload, quota and pods alike."""
    version = o.version
    ta = f.map(psa, "topologyAssignment")
    if ta is None:
        return {}, ()
    levels = f.strs(ta, "levels")
    if not levels:
        return {}, ()
    if len(levels) > 1 and levels[-1] == HOSTNAME:
        shown = ", ".join(f"`{k}`" for k in levels)
        f.diags.emit(KAD168, f"pod set `{name}`'s topologyAssignment names its domains on levels {shown}: "
                     "Kueue's TAS cache finds no node for them (a node's domain is its hostname alone), "
                     "so its pods hold no node capacity; kadmit counts none either", f.span(ta),
                     help="Kueue v0.17 writes an assignment on the hostname level alone")
        return {}, ()
    own = ASSIGNMENT_DOMAINS.get(version)
    for other in sorted(set(ASSIGNMENT_DOMAINS.values()) - {own} if own else ()):
        node = f.field(ta, other)
        if node is not None:
            f.diags.emit(KAD168, f"pod set `{name}`'s topologyAssignment has `{other}`, a field of another API "
                         f"version: a {version} Workload's assignment is in `{own}`, and the API server drops "
                         f"`{other}`, so Kueue counts these pods on no node; kadmit neither", f.span(node),
                         help=f"write the assignment as {version}'s `{own}` (as `kubectl get workloads -o yaml` "
                              "shows it)")
    out: dict[str, int] = {}
    for sl in (f.maps(ta, "slices") if own != "domains" else ()):  # v1beta2: per slice, each level's values and the pod counts
        n = f.int(sl, "domainCount", lo=0, default=0)  # below 1: the status schema's refusal (schema.status)
        levels_of = f.maps(sl, "valuesPerLevel")
        counts = f.map(sl, "podCounts")
        if not n or len(levels_of) != len(levels):
            continue
        columns = []
        for level in levels_of:
            universal = f.str(level, "universal", default="")
            individual = f.map(level, "individual")
            roots = f.strs(individual, "roots")
            prefix, suffix = f.str(individual, "prefix", default=""), f.str(individual, "suffix", default="")
            columns.append([universal] * n if universal else [prefix + r + suffix for r in roots])
        each = f.int(counts, "universal", lo=0, default=0)
        per = [each] * n if each else [x.v for x in f.seq(counts, "individual") if isinstance(x.v, int)]
        for values, count in zip(zip(*columns), per):
            if count:
                key = ",".join(values)
                out[key] = out.get(key, 0) + count
    for dom in f.maps(ta, "domains") if own != "slices" else ():
        values = f.strs(dom, "values")
        count = f.int(dom, "count", lo=0, default=0)
        if len(values) == len(levels) and count:
            key = ",".join(values)
            out[key] = out.get(key, 0) + count
    return out, () if levels == [HOSTNAME] else tuple(levels)  # (): the hostname alone, as `.kad`'s


def _admission(f: Fields, status: Val | None, pod_sets: tuple[PodSet, ...],
               reserved: tuple[bool, Val] | None, o: Meta, reclaim: dict[str, int],
               recorded: dict[str, tuple[int, dict[str, int]]]) -> Admission | None:
    """`status.admission`, with the time quota was reserved: the QuotaReserved condition's
    lastTransitionTime while it is True (Kueue's preemption order reads that, nothing else). A pod
    set with reclaimable pods (`status.reclaimablePods`) books its recorded usage scaled to the
    pods left, where fewer than admitted (`reclaim.booked`); `recorded` gets each assignment's
    count and usage as written, for a job's reconciler to book again (`reclaim.reclaim_applied`)."""
    adm = f.map(status, "admission")
    if adm is None:
        return None
    by_name = {ps.name: ps for ps in pod_sets}
    assignments = []
    for psa in f.maps(adm, "podSetAssignments"):
        name = f.str(psa, "name", default="main")
        flavors, _ = f.str_map(psa, "flavors")
        declared = by_name.get(name)
        count = f.int(psa, "count", lo=0, default=declared.count if declared else 0)
        usage, _ = f.resource_list(psa, "resourceUsage", signed=True)  # below 0 after a negative transformation
        usage = {r: q for r, q in usage.items() if q}
        recorded[name] = (count, usage)
        unrecorded = not usage and count > 0 and declared is not None and any(declared.requests.values())
        if unrecorded:
            f.diags.emit(KAD169, f"pod set `{name}` is admitted with no `resourceUsage`: Kueue books what an "
                         "admission records, so it holds no quota and, on its topology's nodes, only its pods' "
                         "count; kadmit counts it so", f.span(f.field(psa, "resourceUsage") or psa), help="write `resourceUsage` (count x requests) where the workload holds it")
        count, usage, tas_pod = booked(name, count, usage, declared, reclaim)
        placement, levels = _topology_assignment(f, psa, name, o)
        delayed = not placement and f.str(psa, "delayedTopologyRequest") == "Pending"
        assignments.append(PodSetAssignment(name=name, flavors=flavors, count=count, usage=usage,
                                            placement=placement, placement_levels=levels,
                                            unrecorded=unrecorded, delayed=delayed, tas_pod=tas_pod,
                                            span=f.span(psa),
                                            spans=f.spans({"count": f.field(psa, "count"),
                                                           "flavors": f.field(psa, "flavors")})))
    condition = reserved[1] if reserved and reserved[0] else None
    return Admission(cluster_queue=f.str(adm, "clusterQueue", required=True, what="an admission"),
                     pod_sets=tuple(assignments), span=f.span(adm),
                     admitted_at=f.timestamp(condition, "lastTransitionTime"),
                     spans=f.spans({"cluster_queue": f.field(adm, "clusterQueue"),
                                    "admitted_at": f.field(condition, "lastTransitionTime")}))


DURATION_ANNOTATION = "kadmit.dev/duration"


def duration_annotation(f: Fields, o: Meta) -> dict:
    """`{"duration_ms": …}` from the `kadmit.dev/duration` annotation of any workload or job object
    (reported and ignored when it isn't a duration), or `{}`."""
    text = o.annotations.get(DURATION_ANNOTATION)
    if text is None:
        return {}
    ms = parse_duration_ms(str(text))
    if ms is None:
        annotations = f.map(o.metadata, "annotations")
        f.diags.emit(KAD165, f"`{DURATION_ANNOTATION}: {text}` is not a duration; ignored",
                     f.span(annotations.v[DURATION_ANNOTATION]) if annotations is not None else f.span(o.node),
                     help="write seconds (`90`) or a Go duration (`45m`, `1h30m`)")
        return {}
    return {"duration_ms": ms}


def _holds_quota(f: Fields, o: Meta, status: Val | None, conditions: dict[str, tuple[bool, Val]],
                 active: bool, queue: str | None) -> bool:
    """Whether Kueue's cache counts the workload's `status.admission` against its ClusterQueue:
    only while QuotaReserved is True and the workload is active (workload.HasActiveQuotaReservation;
    a Finished one is read as holding and left out by `Workload.admitted`). Any other admission is
    stale: Kueue treats the workload as the rest of its spec says (queued again, or in no queue
    without a queue name or while inactive); without any QuotaReserved condition kadmit says so (KAD181)."""
    reserved = conditions.get("QuotaReserved", (False, None))[0]
    adm = f.field(status, "admission")
    if adm is not None and adm.v is not None and "QuotaReserved" not in conditions \
            and not conditions.get("Finished", (False,))[0]:
        if not queue:
            then = "puts it in no queue (it has no `spec.queueName`)"
        elif not active:
            then = "does not queue it (it is inactive: `spec.active: false`)"
        else:
            then = "queues it again"
        f.diags.emit(KAD181, f"workload `{o.namespace or 'default'}/{o.name}` has `status.admission` but no "
                     f"`QuotaReserved` condition; Kueue holds no quota for it and {then}", f.span(adm),
                     help="a workload holding quota has `QuotaReserved` with status \"True\" "
                          "(as `kubectl get workloads -o yaml` shows it)")
    return reserved and active


NO_POD_SETS = ("it has no pod sets (no `spec.podSets`, which v1beta2's CRD allows): Kueue's flavor assigner "
               "finds it no assignment, so it is never admitted")


def workload(f: Fields, o: Meta) -> Workload | None:
    if coverage.workload_goes(o.metadata):
        raise NotRead("it is being deleted (`metadata.deletionTimestamp`) and has no owner: Kueue's workload "
                      "controller drops its finalizer and it goes, with any quota it holds")
    # the CRD requires no `spec` (the API server stores a Workload without one, as a KEP's status example
    # is): no queue name then, and Kueue never admits it (KAD164 below) unless it already holds quota
    spec = f.map(o.node, "spec")
    queue = f.str(spec, "queueName")
    status = f.map(o.node, "status")
    conditions = _conditions(f, status)
    active = f.bool(spec, "active", default=True)
    holds = _holds_quota(f, o, status, conditions, active, queue)
    if not queue and not holds:
        f.diags.emit(KAD164, f"workload `{o.namespace or 'default'}/{o.name}` has no `spec.queueName`; "
                     "kueue never admits it; skipped", f.span(o.node),
                     about=(Subject("Workload", o.namespace or "default", o.name),))
        raise NotRead("it is never admitted: it has no `spec.queueName`, so it is in no queue of Kueue's")
    if spec is None:  # it holds quota for pod sets it does not have
        raise f.missing("spec", o.node, f"workload `{o.name}`, which holds quota (Kueue's Workload webhook "
                        "refuses an admission whose pod set assignments name no pod set of the spec)")
    # v1beta2's CRD requires no `podSets` (v1beta1's does; both refuse an empty list): a Workload without
    # them is queued, and Kueue's flavor assigner finds it no assignment (RepresentativeMode NoFit)
    no_pod_sets = o.version != "v1beta1" and f.field(spec, "podSets") is None
    listed = [] if no_pod_sets else f.maps(spec, "podSets", required=True, what=f"workload `{o.name}`")
    pod_sets = tuple(pod_set(f, ps, i) for i, ps in enumerate(listed))
    owner = controller_owner(f, o)
    # any Workload may be a job's prebuilt one (`manage`; one the job already controls too): what Kueue compares
    compared = (f.int(spec, "maximumExecutionTimeSeconds"),
                tuple(template_shape(f, p.count, p.min_count, f.map(ps, "template")) for p, ps in zip(pod_sets, listed)),
                running_shape(f, listed, status) if holds else None)
    class_name, class_kind, class_node = _priority_class(f, o, spec)
    explicit = f.int(spec, "priority")
    true = {kind: value for kind, (value, _) in conditions.items()}
    reclaim = status_reclaimable(f, status)
    recorded: dict[str, tuple[int, dict[str, int]]] = {}
    admission = _admission(f, status, pod_sets, conditions.get("QuotaReserved"), o, reclaim, recorded)
    # and what a job's reconciler applies its reclaimable pods to (`reclaim.reclaim_applied`)
    shapes = (*compared, (reclaim, recorded if holds and admission is not None else None))
    pod_sets = tuple(after_reclaim(ps, reclaim.get(ps.name, 0)) for ps in pod_sets)
    created = f.timestamp(o.metadata, "creationTimestamp")
    extra: dict = {} if created is None else {"created": created}
    evicted = conditions.get("Evicted", (False, None))
    # what holds a pending workload back from Kueue's queues (`effective.held`): a False Requeued
    # condition, a requeueAt to come
    requeued = conditions.get("Requeued")
    requeued_node = None
    if not holds and requeued is not None and f.str(requeued[1], "status") == "False":
        extra["requeued_false"], requeued_node = f.str(requeued[1], "reason") or "", requeued[1]
    # an eviction Kueue may queue the workload by (GetQueueOrderTimestamp): its reason and time
    if evicted[0] and (reason := f.str(evicted[1], "reason")) in ORDERING_EVICTIONS:
        extra["evicted_reason"] = reason
        if (evicted_at := f.timestamp(evicted[1], "lastTransitionTime")) is not None:
            extra["evicted_at"] = evicted_at
    preempted = conditions.get("Preempted", (False, None))  # GetQueueOrderTimestamp, PrioritySortingWithinCohort off
    if preempted[0] and f.str(preempted[1], "reason") == "InCohortReclaimWhileBorrowing":
        extra["reclaimed_while_borrowing_at"] = f.timestamp(preempted[1], "lastTransitionTime")
    admitted = conditions.get("Admitted", (False, None))  # its maximum execution time runs from then (`effective.expired`)
    if holds and admitted[0] and (since := f.timestamp(admitted[1], "lastTransitionTime")) is not None:
        extra.update(admitted_since=since, past_exec=f.int(status, "accumulatedPastExecutionTimeSeconds") or 0)
    requeue_state = f.map(status, "requeueState")
    if not holds and (requeue_at := f.timestamp(requeue_state, "requeueAt")) is not None:
        extra["requeue_at"] = requeue_at
    states = check_states(f, status)
    return Workload(
        namespace=o.namespace or "default", name=o.name, queue=queue or "", priority_class=class_name,
        priority_class_kind=class_kind,
        # Kueue's scheduler reads spec.priority only, 0 where unset (priority.Priority): the class is
        # copied there by the job integrations that create a Workload, not for one read as it is (the CRD
        # requires a priority beside a class, _no_priority)
        priority=explicit if explicit is not None else 0,
        pod_sets=pod_sets, admission=admission if holds else None,
        finished=true.get("Finished", False), active=active,
        evicted=evicted[0], origin=owner, shapes=shapes, **duration_annotation(f, o),
        uid=f.str(o.metadata, "uid") or "", job_uid=o.labels.get(JOB_UID_LABEL, ""),
        priority_boost=o.annotations.get("kueue.x-k8s.io/priority-boost"),
        admission_gated_by=o.annotations.get(ADMISSION_GATED_BY, ""), replaces=o.annotations.get(REPLACEMENT_FOR, ""),
        preemption_gated=_preemption_gated(f, spec, status),
        check_states=states, admitted_condition=true.get("Admitted", False), max_exec=compared[0],
        span=f.span(o.node), **extra,
        deleting=coverage.workload_goes(o.metadata, owned=True),
        **({"inadmissible": NO_POD_SETS} if no_pod_sets else {}),
        spans=f.spans({"name": o.metadata.v.get("name"), "namespace": o.metadata.v.get("namespace"),
                       "uid": f.field(o.metadata, "uid"), "queue": f.field(spec, "queueName"), "priority_class": class_node,
                       "priority": f.field(spec, "priority"), "created": f.field(o.metadata, "creationTimestamp"),
                       "active": f.field(spec, "active"), "admission": f.field(status, "admission"),
                       "evicted": evicted[1] if evicted[0] else None, "requeued": requeued_node,
                       "requeue_at": f.field(requeue_state, "requeueAt") if "requeue_at" in extra else None,
                       "check_states": f.field(status, "admissionChecks"),
                       "deleting": f.field(o.metadata, "deletionTimestamp"),
                       "pod_sets": f.field(spec, "podSets"),
                       **{f"pod_sets.{i}": ps.span for i, ps in enumerate(pod_sets)}}))
