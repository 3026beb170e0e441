"""Kueue's policy objects from the model: ResourceFlavor, Topology, Cohort, ClusterQueue, LocalQueue,
WorkloadPriorityClass, Namespace and Kueue's Configuration, in the Kueue API of the release kadmit
follows (v0.17.0: `kueue.x-k8s.io/v1beta2`, `config.kueue.x-k8s.io/v1beta2`)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.export.codes import KAD901
from kadmit.model import (AdmissionCheck, CheckConfig, ClusterQueue, Cohort, FairSharing, LabelSelector, LocalQueue, Namespace,
                          PriorityClass, ResourceFlavor, ResourceGroup, SchedulerConfig, Taint, Toleration,
                          Topology)
from kadmit.quantity import format_quantity

KUEUE_API = "kueue.x-k8s.io/v1beta2"
CONFIG_API = "config.kueue.x-k8s.io/v1beta2"
# WorkloadPriorityClass has no `globalDefault`: kadmit's reader takes this annotation for `.kad`'s `default`.
DEFAULT_PRIORITY_ANNOTATION = "kadmit.dev/default-priority-class"


def meta(name: str, namespace: str | None = None, labels: dict[str, str] | None = None,
         annotations: dict[str, str] | None = None) -> dict:
    out: dict = {"name": name}
    if namespace is not None:
        out["namespace"] = namespace
    if labels:
        out["labels"] = dict(sorted(labels.items()))
    if annotations:
        out["annotations"] = dict(sorted(annotations.items()))
    return out


def taint(t: Taint) -> dict:
    out = {"key": t.key}
    if t.value:
        out["value"] = t.value
    out["effect"] = t.effect
    return out


def toleration(t: Toleration) -> dict:
    out: dict = {}
    if t.key:
        out["key"] = t.key
    out["operator"] = t.operator
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    return out


def requirement(r) -> dict:
    out: dict = {"key": r.key, "operator": r.operator}
    if r.values or r.operator in ("In", "NotIn"):
        out["values"] = list(r.values)
    return out


def label_selector(sel: LabelSelector) -> dict:
    out: dict = {}
    if sel.match_labels:
        out["matchLabels"] = dict(sorted(sel.match_labels.items()))
    if sel.match_expressions:
        out["matchExpressions"] = [requirement(r) for r in sel.match_expressions]
    return out


def flavor(f: ResourceFlavor) -> dict:
    spec: dict = {}
    if f.node_labels:
        spec["nodeLabels"] = dict(sorted(f.node_labels.items()))
    if f.node_taints:
        spec["nodeTaints"] = [taint(t) for t in f.node_taints]
    if f.tolerations:
        spec["tolerations"] = [toleration(t) for t in f.tolerations]
    if f.topology:
        spec["topologyName"] = f.topology
    return {"apiVersion": KUEUE_API, "kind": "ResourceFlavor", "metadata": meta(f.name), "spec": spec}


def topology(t: Topology) -> dict:
    return {"apiVersion": KUEUE_API, "kind": "Topology", "metadata": meta(t.name),
            "spec": {"levels": [{"nodeLabel": level} for level in t.levels]}}


def resource_groups(groups: tuple[ResourceGroup, ...]) -> list[dict]:
    out = []
    for g in groups:
        flavors = []
        for fq in g.flavors:
            resources = []
            for q in fq.resources:
                r: dict = {"name": q.resource, "nominalQuota": format_quantity(q.nominal, q.resource)}
                if q.borrowing_limit is not None:
                    r["borrowingLimit"] = format_quantity(q.borrowing_limit, q.resource)
                if q.lending_limit is not None:
                    r["lendingLimit"] = format_quantity(q.lending_limit, q.resource)
                resources.append(r)
            flavors.append({"name": fq.flavor, "resources": resources})
        out.append({"coveredResources": list(g.covered_resources), "flavors": flavors})
    return out


def fair_sharing(fs: FairSharing) -> dict:
    return {"weight": format_quantity(fs.weight)}


def cohort(c: Cohort) -> dict:
    spec: dict = {}
    if c.parent:
        spec["parentName"] = c.parent
    if c.resource_groups:
        spec["resourceGroups"] = resource_groups(c.resource_groups)
    if c.fair_sharing is not None:
        spec["fairSharing"] = fair_sharing(c.fair_sharing)
    return {"apiVersion": KUEUE_API, "kind": "Cohort", "metadata": meta(c.name), "spec": spec}


def _stop(v: str) -> str:
    return "MayStopSearch" if v in ("Borrow", "Preempt") else v


def cluster_queue(cq: ClusterQueue, diags: Diagnostics) -> dict:
    spec: dict = {}
    if cq.cohort:
        spec["cohortName"] = cq.cohort
    if cq.namespace_selector is not None:  # absent: Kueue's nil selector, which matches no namespace
        spec["namespaceSelector"] = label_selector(cq.namespace_selector)
    spec["queueingStrategy"] = cq.queueing_strategy
    p = cq.preemption
    preemption: dict = {"withinClusterQueue": p.within_cluster_queue, "reclaimWithinCohort": p.reclaim_within_cohort}
    if p.borrow_within_cohort is not None:
        bwc: dict = {"policy": p.borrow_within_cohort.policy}
        if p.borrow_within_cohort.max_priority_threshold is not None:
            bwc["maxPriorityThreshold"] = p.borrow_within_cohort.max_priority_threshold
        preemption["borrowWithinCohort"] = bwc
    spec["preemption"] = preemption
    ff = cq.flavor_fungibility
    fung: dict = {"whenCanBorrow": _stop(ff.when_can_borrow), "whenCanPreempt": _stop(ff.when_can_preempt)}
    if ff.preference != "BorrowingOverPreemption":
        if (ff.when_can_borrow, ff.when_can_preempt) == ("TryNextFlavor", "TryNextFlavor"):
            fung["preference"] = ff.preference
        else:
            diags.emit(KAD901, f"cluster queue `{cq.name}`: `preference = {ff.preference}` is left out: Kueue "
                       "accepts it only when `when_can_borrow` and `when_can_preempt` are both `try_next_flavor`",
                       ff.field_span("preference") or cq.span)
    spec["flavorFungibility"] = fung
    if cq.stop_policy != "None":
        spec["stopPolicy"] = cq.stop_policy
    if cq.terminating:
        diags.emit(KAD901, f"cluster queue `{cq.name}` is being deleted (metadata.deletionTimestamp), which an "
                   "exported object can't carry (the API server sets it); left out",
                   cq.field_span("terminating") or cq.span)
    if cq.fair_sharing is not None:
        spec["fairSharing"] = fair_sharing(cq.fair_sharing)
    spec["resourceGroups"] = resource_groups(cq.resource_groups)
    if cq.admission_checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [
            {"name": r.name, **({"onFlavors": list(r.on_flavors)} if r.on_flavors else {})} for r in cq.admission_checks]}
    return {"apiVersion": KUEUE_API, "kind": "ClusterQueue", "metadata": meta(cq.name), "spec": spec}


def admission_check(ac: AdmissionCheck) -> dict:
    """An AdmissionCheck as written (its status too: another controller's `Active` condition is what
    decides whether Kueue uses it)."""
    spec: dict = {"controllerName": ac.controller}
    if ac.parameters is not None:
        spec["parameters"] = {"apiGroup": ac.parameters.api_group, "kind": ac.parameters.kind,
                              "name": ac.parameters.name}
    out = {"apiVersion": KUEUE_API, "kind": "AdmissionCheck", "metadata": meta(ac.name), "spec": spec}
    if ac.status_active is not None:
        out["status"] = _active(ac.status_active, ac.status_reason)
    return out


def _active(active: bool, reason: str) -> dict:
    return {"conditions": [{"type": "Active", "status": "True" if active else "False", "reason": reason or "Unknown",
                            "message": "", "lastTransitionTime": "1970-01-01T00:00:00Z"}]}


def check_config(c: CheckConfig) -> dict:
    """A ProvisioningRequestConfig, MultiKueueConfig or MultiKueueCluster as written (a
    MultiKueueCluster's `Active` condition too: Kueue's MultiKueue check reads it)."""
    spec: dict = {}
    if c.kind == "ProvisioningRequestConfig":
        spec["provisioningClassName"] = c.provisioning_class
        if c.parameters:
            spec["parameters"] = dict(sorted(c.parameters.items()))
        if c.managed_resources:
            spec["managedResources"] = list(c.managed_resources)
        if c.retry_strategy is not None:
            r = c.retry_strategy
            spec["retryStrategy"] = {k: v for k, v in (("backoffLimitCount", r.backoff_limit_count),
                                                       ("backoffBaseSeconds", r.backoff_base_seconds),
                                                       ("backoffMaxSeconds", r.backoff_max_seconds)) if v is not None}
        if c.pod_set_updates:
            spec["podSetUpdates"] = {"nodeSelector": [{"key": k, "valueFromProvisioningClassDetail": v}
                                                      for k, v in c.pod_set_updates]}
        if c.pod_set_merge_policy is not None:
            spec["podSetMergePolicy"] = c.pod_set_merge_policy
    elif c.kind == "MultiKueueConfig":
        spec["clusters"] = list(c.clusters)
    elif c.kubeconfig:
        spec["clusterSource"] = {"kubeConfig": {"location": c.kubeconfig, **(
            {"locationType": c.kubeconfig_location_type} if c.kubeconfig_location_type else {})}}
    elif c.cluster_profile:
        spec["clusterSource"] = {"clusterProfileRef": {"name": c.cluster_profile}}
    out = {"apiVersion": KUEUE_API, "kind": c.kind, "metadata": meta(c.name), "spec": spec}
    if c.kind == "MultiKueueCluster" and c.status_active is not None:
        out["status"] = _active(c.status_active, "Active" if c.status_active else "Inactive")
    return out


def local_queue(lq: LocalQueue) -> dict:
    spec: dict = {"clusterQueue": lq.cluster_queue}
    if lq.stop_policy != "None":
        spec["stopPolicy"] = lq.stop_policy
    return {"apiVersion": KUEUE_API, "kind": "LocalQueue", "metadata": meta(lq.name, lq.namespace), "spec": spec}


def priority_class(pc: PriorityClass, diags: Diagnostics) -> dict:
    if pc.kind == "pod":
        out = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": meta(pc.name),
               "value": pc.value}
        if pc.global_default:
            out["globalDefault"] = True
        return out
    annotations = {}
    if pc.global_default:
        annotations[DEFAULT_PRIORITY_ANNOTATION] = "true"
        diags.emit(KAD901, f"priority `{pc.name}` is the default, which Kueue's WorkloadPriorityClass can't say: "
                   f"written as the annotation `{DEFAULT_PRIORITY_ANNOTATION}`, which only kadmit reads; on the "
                   "cluster a workload that names no priority class gets priority 0",
                   pc.field_span("global_default"),
                   help="name the class on the workloads (the `kueue.x-k8s.io/priority-class` label of their jobs)")
    return {"apiVersion": KUEUE_API, "kind": "WorkloadPriorityClass",
            "metadata": meta(pc.name, annotations=annotations), "value": pc.value}


def namespace(ns: Namespace) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta(ns.name, labels=ns.labels)}


def configuration(c: SchedulerConfig, diags: Diagnostics) -> dict:
    """The Configuration fields the policy sets (the rest of Kueue's Configuration keeps its values)."""
    out: dict = {"apiVersion": CONFIG_API, "kind": "Configuration"}
    if c.manage_jobs_without_queue_name is not None:
        out["manageJobsWithoutQueueName"] = c.manage_jobs_without_queue_name
    if c.managed_jobs_namespace_selector is not None:
        out["managedJobsNamespaceSelector"] = label_selector(c.managed_jobs_namespace_selector)
    if c.frameworks is not None:
        out["integrations"] = {"frameworks": list(c.frameworks)}
    if c.external_frameworks:  # `Kind.version.group`, as written
        out.setdefault("integrations", {})["externalFrameworks"] = [
            f"{kind}.{api.rpartition('/')[2]}.{api.rpartition('/')[0]}" for api, kind in c.external_frameworks]
    if c.fair_sharing:
        # a v1beta2 Configuration must name them (Kueue's validation: "Required value"); none
        # written means Kueue's default pair, as v1beta1's defaulting fills it in
        out["fairSharing"] = {"preemptionStrategies": list(c.preemption_strategies or c.strategies)}
    elif c.preemption_strategies:
        diags.emit(KAD901, "`preemption_strategies` is left out: with fair sharing off Kueue ignores it, and its "
                   "v1beta2 Configuration turns fair sharing on by having the section at all",
                   c.field_span("preemption_strategies"))
    if c.feature_gates:
        out["featureGates"] = dict(c.feature_gates)
    resources: dict = {}
    if c.exclude_resource_prefixes:
        resources["excludeResourcePrefixes"] = list(c.exclude_resource_prefixes)
    if c.transformations:
        resources["transformations"] = [_transformation(t) for t in c.transformations]
    if c.device_class_mappings:
        resources["deviceClassMappings"] = [{"name": m.name, "deviceClassNames": list(m.device_class_names)}
                                            for m in c.device_class_mappings]
    if resources:
        out["resources"] = resources
    return out


def _transformation(t) -> dict:
    out: dict = {"input": t.input, "strategy": t.strategy}
    if t.multiply_by:
        out["multiplyBy"] = t.multiply_by
    if t.outputs:
        out["outputs"] = {r: t.fine_outputs.get(r) or format_quantity(q, r) for r, q in sorted(t.outputs.items())}
    return out
