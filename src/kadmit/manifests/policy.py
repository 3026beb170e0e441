"""Kueue's policy kinds -> model: ResourceFlavor, ClusterQueue, Cohort, LocalQueue, priority classes, Topology."""

from __future__ import annotations

from kadmit.manifests import checks, kubenames
from kadmit.manifests.codes import KAD155, KAD157, tas_flavor_without_labels
from kadmit.manifests.fields import Fields, Invalid, Meta
from kadmit.manifests.podspec import SELECTOR_OPERATORS, requirements, taints, tolerations
from kadmit.manifests.yamltree import Val
from kadmit.model import (BorrowWithinCohort, ClusterQueue, Cohort, FairSharing, FlavorFungibility,
                          FlavorQuotas, LabelSelector, LocalQueue, Preemption, PriorityClass,
                          ResourceFlavor, ResourceGroup, ResourceQuota, Topology)

# WorkloadPriorityClass has no `globalDefault`; this annotation marks the class that the `.kad`
# language calls `default` (the priority of workloads that name no class).
DEFAULT_PRIORITY_ANNOTATION = "kadmit.dev/default-priority-class"

COHORT_FIELD = {"v1beta1": "cohort", "v1beta2": "cohortName"}
PARENT_FIELD = {"v1beta1": "parentName", "v1beta2": "parentName"}


def resource_flavor(f: Fields, o: Meta) -> ResourceFlavor:
    spec = f.map(o.node, "spec")
    kubenames.check_labels(f, f.field(spec, "nodeLabels"), "node label")
    labels, label_nodes = f.str_map(spec, "nodeLabels")
    _topology_without_labels(f, o, spec, labels)
    return ResourceFlavor(
        name=o.name, node_labels=labels, node_taints=taints(f, spec, "nodeTaints"),
        tolerations=tolerations(f, spec), topology=f.str(spec, "topologyName") or None,
        written_tolerations=tuple(t.plain() for t in f.maps(spec, "tolerations")),
        span=f.span(o.node),
        spans=f.spans({"name": o.metadata.v.get("name"),
                       **{f"node_labels.{k}": v for k, v in label_nodes.items()},
                       "node_taints": f.field(spec, "nodeTaints"),
                       "tolerations": f.field(spec, "tolerations"),
                       "topology": f.field(spec, "topologyName")}))


def _topology_without_labels(f: Fields, o: Meta, spec: Val | None, labels: dict[str, str]) -> None:
    """KAD157 where a topology-aware flavor has no node label: the CRD's rule on ResourceFlavorSpec
    `!has(self.topologyName) || self.nodeLabels.size() >= 1` refuses it, so its ClusterQueues lack it. An
    empty `nodeLabels` is gone by then (Kueue's mutating webhook patches the object to its Go form, where
    the map is `omitempty`), so the rule's evaluation fails on the missing key either way (the oracle's words)."""
    topology, node_labels = f.field(spec, "topologyName"), f.field(spec, "nodeLabels")
    if topology is None or labels:
        return
    message, help = tas_flavor_without_labels(o.name)
    f.invalid(KAD157, message, node_labels if node_labels is not None else topology, uses=(topology, node_labels),
              help=help)


def covered_refusals(f: Fields, i: int, at: Val | None, covered: list[str]) -> None:
    """Kueue's ClusterQueue and Cohort webhooks on resource group `i`'s covered resources (validateResourceGroups:
    validateResourceName, IsLabelKey's words, `kubenames.label_key_words`): KAD157 in their words."""
    items = at.v if at is not None and isinstance(at.v, list) else []
    for j, name in enumerate(covered):
        node = items[j] if j < len(items) else at
        for words in kubenames.label_key_words(name):
            f.invalid(KAD157, f"Kueue's webhook refuses the object: `spec.resourceGroups[{i}].coveredResources[{j}]: "
                              f'Invalid value: "{name}": {words}`', node, uses=())


def resource_groups(f: Fields, spec: Val | None, spans: dict[str, Val | None]) -> tuple[ResourceGroup, ...]:
    groups = []
    failed: list[Invalid] = []  # every bad quota of the object is reported before it is given up

    def read(key: str, rq: Val, **kw):
        try:
            return f.quantity_field(rq, key, **kw)
        except Invalid as e:
            failed.append(e)
            return None

    for i, rg in enumerate(f.maps(spec, "resourceGroups")):
        covered = f.strs(rg, "coveredResources", required=True, what="a resource group")
        covered_refusals(f, i, f.field(rg, "coveredResources"), covered)
        flavors = []
        for j, fq in enumerate(f.maps(rg, "flavors", required=True, what="a resource group")):
            quotas = []
            for rq in f.maps(fq, "resources", required=True, what="a flavor's quotas"):
                name = f.field(rq, "name", required=True, what="a resource quota")
                count = len(failed)
                nominal = read("nominalQuota", rq, required=True, what="a resource quota")
                borrowing, lending = read("borrowingLimit", rq), read("lendingLimit", rq)
                if len(failed) > count:
                    continue
                quotas.append(ResourceQuota(
                    resource=f.str(rq, "name", required=True),
                    nominal=nominal, borrowing_limit=borrowing, lending_limit=lending,
                    span=f.span(rq),
                    spans=f.spans({"resource": name, "nominal": f.field(rq, "nominalQuota"),
                                   "borrowing_limit": f.field(rq, "borrowingLimit"),
                                   "lending_limit": f.field(rq, "lendingLimit")})))
            flavors.append(FlavorQuotas(flavor=f.str(fq, "name", required=True, what="a flavor's quotas"),
                                        resources=tuple(quotas), span=f.span(fq),
                                        spans=f.spans({"flavor": f.field(fq, "name")})))
            spans[f"resource_groups.{i}.flavors.{j}"] = fq
        spans[f"resource_groups.{i}"] = rg
        groups.append(ResourceGroup(covered_resources=tuple(covered), flavors=tuple(flavors),
                                    span=f.span(rg),
                                    spans=f.spans({"covered_resources": f.field(rg, "coveredResources")})))
    if failed:
        raise failed[0]
    return tuple(groups)


def label_selector(f: Fields, m: Val | None, key: str) -> LabelSelector | None:
    sel = f.map(m, key)
    if sel is None:
        return None
    kubenames.check_labels(f, f.field(sel, "matchLabels"), "selector label")
    labels, nodes = f.str_map(sel, "matchLabels")
    return LabelSelector(match_labels=labels,
                         match_expressions=requirements(f, sel, "matchExpressions", SELECTOR_OPERATORS),
                         span=f.span(sel),
                         spans=f.spans({f"match_labels.{k}": v for k, v in nodes.items()}))


def fair_sharing(f: Fields, spec: Val | None) -> FairSharing | None:
    fs = f.map(spec, "fairSharing")
    if fs is None:
        return None
    weight = f.quantity_field(fs, "weight")
    return FairSharing(weight=1000 if weight is None else weight, span=f.span(fs),
                       spans=f.spans({"weight": f.field(fs, "weight")}))


def preemption(f: Fields, spec: Val | None) -> Preemption:
    p = f.map(spec, "preemption")
    if p is None:
        return Preemption()
    bwc = f.map(p, "borrowWithinCohort")
    borrow = None
    if bwc is not None:
        policy = f.enum(bwc, "policy", ("Never", "LowerPriority"), "Never")
        threshold = f.int(bwc, "maxPriorityThreshold")
        # Kueue defaults an absent borrowWithinCohort to {policy: Never}: the same as none.
        if policy != "Never" or threshold is not None:
            borrow = BorrowWithinCohort(policy=policy, max_priority_threshold=threshold, span=f.span(bwc),
                                        spans=f.spans({"policy": f.field(bwc, "policy"),
                                                       "max_priority_threshold": f.field(bwc, "maxPriorityThreshold")}))
    return Preemption(
        within_cluster_queue=f.enum(p, "withinClusterQueue", ("Never", "LowerPriority", "LowerOrNewerEqualPriority"), "Never"),
        reclaim_within_cohort=f.enum(p, "reclaimWithinCohort", ("Never", "LowerPriority", "Any"), "Never"),
        borrow_within_cohort=borrow, span=f.span(p),
        spans=f.spans({"within_cluster_queue": f.field(p, "withinClusterQueue"),
                       "reclaim_within_cohort": f.field(p, "reclaimWithinCohort"),
                       "borrow_within_cohort": bwc}))


def flavor_fungibility(f: Fields, spec: Val | None) -> FlavorFungibility:
    ff = f.map(spec, "flavorFungibility")
    if ff is None:
        return FlavorFungibility()
    # v1beta2 spells both "stop here" values `MayStopSearch`; the model keeps v1beta1's words.
    borrow = f.enum(ff, "whenCanBorrow", ("Borrow", "MayStopSearch", "TryNextFlavor"), "Borrow")
    preempt = f.enum(ff, "whenCanPreempt", ("Preempt", "MayStopSearch", "TryNextFlavor"), "TryNextFlavor")
    preference = f.enum(ff, "preference", ("BorrowingOverPreemption", "PreemptionOverBorrowing"))
    if preference is not None and (borrow, preempt) != ("TryNextFlavor", "TryNextFlavor"):
        f.invalid(KAD157, f"`preference` ({preference}) can only be set when both `whenCanBorrow` and "
                  "`whenCanPreempt` are `TryNextFlavor`", f.field(ff, "preference"),
                  uses=(f.field(ff, "whenCanBorrow"), f.field(ff, "whenCanPreempt"), f.field(ff, "preference")),
                  help="set both to `TryNextFlavor`, or remove `preference`")
    return FlavorFungibility(
        when_can_borrow="Borrow" if borrow == "MayStopSearch" else borrow,
        when_can_preempt="Preempt" if preempt == "MayStopSearch" else preempt,
        preference=preference or "BorrowingOverPreemption", span=f.span(ff),
        spans=f.spans({"when_can_borrow": f.field(ff, "whenCanBorrow"),
                       "when_can_preempt": f.field(ff, "whenCanPreempt"),
                       "preference": f.field(ff, "preference")}))


def being_deleted(o: Meta) -> bool:
    """`metadata.deletionTimestamp` is set (a null or empty one is not)."""
    v = o.metadata.v.get("deletionTimestamp") if o.metadata is not None else None
    return v is not None and v.v not in (None, "")


def cluster_queue(f: Fields, o: Meta) -> ClusterQueue:
    spec = f.map(o.node, "spec")
    cohort_key = o.versioned(f, spec, COHORT_FIELD)
    spans: dict[str, Val | None] = {
        "name": o.metadata.v.get("name"), "cohort": f.field(spec, cohort_key),
        "namespace_selector": f.field(spec, "namespaceSelector"),
        "queueing_strategy": f.field(spec, "queueingStrategy"), "preemption": f.field(spec, "preemption"),
        "flavor_fungibility": f.field(spec, "flavorFungibility"), "stop_policy": f.field(spec, "stopPolicy"),
        "terminating": f.field(o.metadata, "deletionTimestamp"),
        "fair_sharing": f.field(spec, "fairSharing"), "resource_groups": f.field(spec, "resourceGroups"),
        "admission_fair_sharing": f.field(spec, "admissionScope"),
        "admission_checks": f.field(spec, "admissionChecks") if o.version == "v1beta1" and f.field(spec, "admissionChecks")
        else f.field(spec, "admissionChecksStrategy")}
    scope = f.map(spec, "admissionScope")
    mode = f.enum(scope, "admissionMode", ("UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"),
                  "NoAdmissionFairSharing")
    return ClusterQueue(
        name=o.name, cohort=f.str(spec, cohort_key) or None,
        namespace_selector=label_selector(f, spec, "namespaceSelector"),
        resource_groups=resource_groups(f, spec, spans),
        queueing_strategy=f.enum(spec, "queueingStrategy", ("StrictFIFO", "BestEffortFIFO"), "BestEffortFIFO"),
        preemption=preemption(f, spec), flavor_fungibility=flavor_fungibility(f, spec),
        stop_policy=f.enum(spec, "stopPolicy", ("None", "Hold", "HoldAndDrain"), "None"),
        terminating=being_deleted(o),
        fair_sharing=fair_sharing(f, spec), admission_fair_sharing=mode == "UsageBasedAdmissionFairSharing",
        admission_checks=checks.queue_checks(f, o, spec), span=f.span(o.node), spans=f.spans(spans))


def cohort(f: Fields, o: Meta) -> Cohort:
    spec = f.map(o.node, "spec")
    parent_key = o.versioned(f, spec, PARENT_FIELD)
    spans: dict[str, Val | None] = {"name": o.metadata.v.get("name"), "parent": f.field(spec, parent_key),
                                    "fair_sharing": f.field(spec, "fairSharing"),
                                    "resource_groups": f.field(spec, "resourceGroups")}
    return Cohort(name=o.name, parent=f.str(spec, parent_key) or None,
                  resource_groups=resource_groups(f, spec, spans), fair_sharing=fair_sharing(f, spec),
                  span=f.span(o.node), spans=f.spans(spans))


def local_queue(f: Fields, o: Meta) -> LocalQueue:
    spec = f.map(o.node, "spec", required=True, what=f"local queue `{o.name}`")
    # what admission fair sharing has counted (Kueue's LocalQueue controller writes it)
    usage = f.map(f.map(f.map(o.node, "status"), "fairSharing"), "admissionFairSharingStatus")
    consumed = f.resource_list(usage, "consumedResources")[0] if usage is not None else None
    return LocalQueue(namespace=o.namespace or "default", name=o.name,
                      cluster_queue=f.str(spec, "clusterQueue", required=True, what="a local queue's spec"),
                      stop_policy=f.enum(spec, "stopPolicy", ("None", "Hold", "HoldAndDrain"), "None"),
                      fair_sharing=fair_sharing(f, spec), afs_consumed=consumed,
                      deleting=being_deleted(o), span=f.span(o.node),
                      spans=f.spans({"name": o.metadata.v.get("name"), "namespace": o.metadata.v.get("namespace"),
                                     "cluster_queue": f.field(spec, "clusterQueue"),
                                     "stop_policy": f.field(spec, "stopPolicy"),
                                     "fair_sharing": f.field(spec, "fairSharing"), "afs_consumed": usage,
                                     "deleting": f.field(o.metadata, "deletionTimestamp")}))


def workload_priority_class(f: Fields, o: Meta) -> PriorityClass:
    marker = o.annotations.get(DEFAULT_PRIORITY_ANNOTATION, "false").lower()
    return PriorityClass(name=o.name, value=f.int(o.node, "value", required=True, what="a priority class"),
                         kind="workload", global_default=marker == "true", span=f.span(o.node),
                         spans=f.spans({"name": o.metadata.v.get("name"), "value": f.field(o.node, "value")}))


PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


# The API server's own priority classes (k8s pkg/apis/scheduling SystemPriorityClasses): name, value; not global default
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}


def system_priority_class_refusals(f: Fields, node: Val, name_at: Val | None) -> None:
    """ValidatePriorityClass's words for a name with the reserved `system-` prefix that is not one of the API
    server's own classes as it makes them (IsKnownSystemPriorityClass: the name known, its value and globalDefault
    false)."""
    name = name_at.v if name_at is not None and isinstance(name_at.v, str) else None
    if name is None or not name.startswith("system-"):
        return
    at = f.field(node, "value")
    value = at.v if at is not None and isinstance(at.v, int) and not isinstance(at.v, bool) else None
    default = f.field(node, "globalDefault")
    if name not in SYSTEM_PRIORITY_CLASSES:
        error = f"{name} is not a known system priority class"
    elif value != SYSTEM_PRIORITY_CLASSES[name]:
        if value is None:
            return  # a value missing or mistyped is refused as such
        error = f"value of {name} PriorityClass must be {SYSTEM_PRIORITY_CLASSES[name]}"
    elif default is not None and default.v is True:
        error = f"globalDefault of {name} PriorityClass must be false"
    else:
        return
    words = f"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. " \
        f"error: {error}"
    f.invalid(KAD157, f"the API server refuses the object: `{words}`", name_at, uses=(name_at,))


def pod_priority_class(f: Fields, o: Meta) -> PriorityClass:
    """A scheduling.k8s.io/v1 PriorityClass; a `preemptionPolicy` outside the two, or a `system-` name not the API
    server's own class, refused (KAD157) in ValidatePriorityClass's words (kubevalidate:
    bench/builtin_refusals_sweep.py)."""
    at = f.field(o.node, "preemptionPolicy")
    policy = at.v if at is not None and isinstance(at.v, str) else None
    if policy is not None and policy not in PREEMPTION_POLICIES:
        words = f'preemptionPolicy: Unsupported value: "{policy}": supported values: ' + \
            ", ".join(f'"{p}"' for p in PREEMPTION_POLICIES)
        f.invalid(KAD157, f"the API server refuses the object: `{words}`", at, uses=(at,))
    system_priority_class_refusals(f, o.node, o.metadata.v.get("name"))
    return PriorityClass(name=o.name, value=f.int(o.node, "value", required=True, what="a priority class"),
                         kind="pod", global_default=f.bool(o.node, "globalDefault", default=False),
                         span=f.span(o.node),
                         spans=f.spans({"name": o.metadata.v.get("name"), "value": f.field(o.node, "value"),
                                        "global_default": f.field(o.node, "globalDefault")}))


def topology(f: Fields, o: Meta) -> Topology:
    spec = f.map(o.node, "spec", required=True, what=f"topology `{o.name}`")
    nodes = f.maps(spec, "levels", required=True, what="a topology's spec")
    if not nodes:
        raise f.fail(KAD155, f"topology `{o.name}` has no levels", f.field(spec, "levels"))
    levels = tuple(f.str(level, "nodeLabel", required=True, what="a topology level") for level in nodes)
    return Topology(name=o.name, levels=levels, span=f.span(o.node),
                    spans=f.spans({"name": o.metadata.v.get("name"), "levels": f.field(spec, "levels"),
                                   **{f"levels.{i}": n for i, n in enumerate(nodes)}}))
