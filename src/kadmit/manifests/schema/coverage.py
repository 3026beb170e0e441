"""Which of Kueue's fields kadmit models: every field of Kueue's kinds is modelled, has no effect on
admission, or is reported where it is set (KAD161) because Kueue's answer may differ.

`python -m kadmit.manifests.schema.coverage` prints the table as docs/KUEUE-FIELDS.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.manifests.codes import KAD161
from kadmit.manifests.yamltree import BOOL, MAP, NULL, SEQ, STR, Val

MODELLED, NO_EFFECT, UNMODELLED = "modelled", "no effect on admission", "not modelled"


@dataclass(frozen=True)
class Entry:
    state: str
    note: str
    harmless: tuple = ()  # values that make an unmodelled field a no-op (empty lists and maps always do)
    reader: bool = False  # its reader reports it (it knows when the field takes effect)


def M(note: str) -> Entry:
    return Entry(MODELLED, note)


def N(note: str) -> Entry:
    return Entry(NO_EFFECT, note)


def U(note: str, *harmless) -> Entry:
    return Entry(UNMODELLED, note, harmless)


_SELECTOR = M("label selector (matchLabels, matchExpressions)")
_QUOTA = M("quota tree: nominal, borrowing and lending limits")

# Paths below `spec` (Configuration: below the document), `[]` for list items. A field not listed
# takes its nearest listed parent's entry.
FIELDS: dict[str, dict[str, Entry]] = {
    "ClusterQueue": {
        "cohort": M("cohort membership (v1beta1)"),
        "cohortName": M("cohort membership (v1beta2)"),
        "namespaceSelector": _SELECTOR,
        "resourceGroups": _QUOTA,
        "queueingStrategy": M("StrictFIFO / BestEffortFIFO ordering"),
        "preemption": M("classical preemption: withinClusterQueue, reclaimWithinCohort, borrowWithinCohort"),
        "flavorFungibility.whenCanBorrow": M("flavor assignment"),
        "flavorFungibility.whenCanPreempt": M("flavor assignment"),
        "flavorFungibility.preference": M("flavor assignment: borrowing vs. preemption among flavors"),
        "stopPolicy": M("a stopped queue admits nothing (Hold); HoldAndDrain evicts its admitted workloads"),
        "fairSharing": M("fair-sharing weight"),
        "admissionChecks": M("admission checks (v1beta1): a missing or inactive check keeps the queue inactive; "
                             "its workloads reserve quota and wait for their checks (kadmit.modelchecks)"),
        "admissionChecksStrategy": M("admission checks, per flavor with `onFlavors` (kadmit.modelchecks)"),
        "admissionScope": M("admission fair sharing: workloads ordered by their local queue's usage"),
    },
    "Cohort": {
        "parentName": M("cohort tree"),
        "resourceGroups": _QUOTA,
        "fairSharing": M("fair-sharing weight"),
    },
    "LocalQueue": {
        "clusterQueue": M("the queue's cluster queue"),
        "stopPolicy": M("a stopped local queue admits nothing (Hold); HoldAndDrain evicts its admitted workloads"),
        "fairSharing": M("the local queue's weight in admission fair sharing"),
    },
    "ResourceFlavor": {
        "nodeLabels": M("node selection and placement"),
        "nodeTaints": M("taints a workload must tolerate"),
        "tolerations": M("tolerations added to admitted pods"),
        "topologyName": M("topology-aware scheduling"),
    },
    "Topology": {"levels": M("topology levels")},
    "AdmissionCheck": {
        "controllerName": M("Kueue's built-in controllers' checks are Active as their reconcilers decide; "
                            "another controller's as its status says (kadmit.modelchecks)"),
        "parameters": M("the ProvisioningRequestConfig or MultiKueueConfig a built-in check reads"),
        "retryDelayMinutes": N("deprecated; no effect in Kueue v0.17.0"),
    },
    "WorkloadPriorityClass": {"value": M("priority"), "description": N("documentation only")},
    "Workload": {
        "queueName": M("the local queue"),
        "podSets[].name": M("pod set identity"),
        "podSets[].count": M("pods per pod set"),
        "podSets[].minCount": M("partial admission"),
        "podSets[].template": M("requests, node selector, required node affinity (its `matchFields` on the "
                                "node name too, under TAS), tolerations"),
        "podSets[].topologyRequest.required": M("topology-aware scheduling"),
        "podSets[].topologyRequest.preferred": M("topology-aware scheduling"),
        "podSets[].topologyRequest.unconstrained": M("topology-aware scheduling"),
        "podSets[].topologyRequest.podIndexLabel": M("the scheduling hash (SchedulingEquivalenceHashing); "
                                                      "otherwise names the pod index label for Kueue's pod ungating"),
        "podSets[].topologyRequest.subGroupIndexLabel": M("the scheduling hash (SchedulingEquivalenceHashing); "
                                                           "otherwise names a label for Kueue's pod ungating"),
        "podSets[].topologyRequest.subGroupCount": M("the scheduling hash (SchedulingEquivalenceHashing); "
                                                      "otherwise used for Kueue's pod ungating"),
        "podSets[].topologyRequest.podSetGroupName": M("pod-set groups: one flavor, placed together by topology"),
        "podSets[].topologyRequest.podSetSliceRequiredTopology":
            M("pod-set slices: each slice of pods in one domain of this level"),
        "podSets[].topologyRequest.podSetSliceSize": M("pod-set slices: the pods of one slice"),
        "podSets[].topologyRequest.podsetSliceRequiredTopologyConstraints":
            M("pod-set slices in layers: the first layer's level and size; the inner layers with TASMultiLayerTopology on"),
        "priority": M("priority when no class is named"),
        "priorityClassName": M("priority (v1beta1)"),
        "priorityClassSource": M("priority (v1beta1)"),
        "priorityClassRef": M("priority (v1beta2)"),
        "active": M("an inactive workload is never admitted"),
        "maximumExecutionTimeSeconds": M("an Admitted workload that ran this long is deactivated and gives its quota "
                                         "back, at once or when the run's clock gets there (effective.expired)"),
        "preemptionGates": M("a closed gate keeps the workload from preempting under the "
                             "MultiKueueOrchestratedPreemption feature gate (alpha, off by default: then it preempts)"),
    },
    "Configuration": {
        "apiVersion": M("the Configuration's version"),
        "kind": M("the Configuration's kind"),
        "fairSharing": M("fair sharing and its preemption strategies"),
        "admissionFairSharing": M("admission fair sharing: half-life, sampling interval, resource weights"),
        "resources.excludeResourcePrefixes": M("excluded resources are not counted (kadmit.effective)"),
        "resources.transformations": M("requests transformed before quota (kadmit.effective)"),
        "resources.deviceClassMappings": M("DRA devices of ResourceClaimTemplates counted as the mapped resource"),
        "waitForPodsReady": Entry(UNMODELLED, "Kueue blocks admission while admitted workloads' pods start "
                                  "(blockAdmission) and requeues those not ready in time; reported when Kueue "
                                  "runs with it (v1beta1 `enable: true`, v1beta2 the section set), by "
                                  "kadmit.manifests.configcheck", reader=True),
        "multiKueue": N("settings of the MultiKueue admission check controller; a cluster queue's admission "
                        "checks are reported there"),
        "featureGates": Entry(UNMODELLED, "kadmit reads every gate (SchedulerConfig.feature_gates) and models "
                              "those of manifests.gates.MODELLED; every other gate keeps Kueue v0.17.0's default, "
                              "reported by kadmit.manifests.config when set to a value that may change a "
                              "decision (docs/KUEUE-DIFFERENCES.md §7)", reader=True),
        "manageJobsWithoutQueueName": M("which jobs Kueue manages (docs/INTEGRATIONS.md J1)"),
        "managedJobsNamespaceSelector": M("which namespaces' jobs Kueue manages (docs/INTEGRATIONS.md J1)"),
        "integrations": M("which job kinds Kueue manages (docs/INTEGRATIONS.md J2)"),
        "integrations.externalFrameworks": M("owners of these kinds end Kueue's walk up a job's controllers "
                                             "(manifests.jobs.external; docs/INTEGRATIONS.md J2)"),
        "integrations.podOptions": U("deprecated; kadmit selects pods' namespaces with "
                                     "managedJobsNamespaceSelector"),
        "integrations.labelKeysToCopy": N("labels copied onto Workloads"),
        "queueVisibility": N("the visibility API"),
        "visibilityServer": N("the visibility API"),
        "objectRetentionPolicies": N("garbage collection of finished workloads"),
        **{k: N("the controller process, not its decisions") for k in (
            "namespace", "webhook", "leaderElection", "metrics", "health", "pprofBindAddress", "controller",
            "tls", "internalCertManagement", "clientConnection")},
    },
}

# Pod-template settings Kueue reads (of Workloads and of every job kind), not modelled yet.
TEMPLATE_ANNOTATIONS: dict[str, str] = {}
# ... and modelled ones, listed in docs/KUEUE-FIELDS.md
TEMPLATE_MODELLED = {
    "kueue.x-k8s.io/podset-group-name": "pod-set groups: one flavor, placed together by topology",
}
TEMPLATE_FIELDS: dict[str, str] = {}  # resourceClaims: modelled (kadmit.effective, DRA)

KIND_ROOT = {"Configuration": ()}  # Configuration's fields are at the document's top; the others in `spec`


def entry_for(kind: str, path: tuple[str, ...]) -> tuple[str, Entry] | None:
    """The entry that governs a field path (list items as `[]`), and the listed path."""
    table = FIELDS.get(kind)
    if table is None:
        return None
    for n in range(len(path), 0, -1):
        key = _join(path[:n])
        if key in table:
            return key, table[key]
    return None


def _join(parts: tuple[str, ...]) -> str:
    return ".".join(parts).replace(".[]", "[]")


def _empty(v: Val) -> bool:
    return v.kind == NULL or (v.kind == SEQ and not v.v) or (v.kind == MAP and all(map(_empty, v.v.values())))


def _harmless(v: Val, entry: Entry) -> bool:
    return _empty(v) or (v.kind in (STR, BOOL) and v.v in entry.harmless)


# What Kueue v0.17.0 does with an object of its kinds being deleted (`metadata.deletionTimestamp`),
# which kadmit does not model (a job being deleted is: `manifests.jobs.manage`; a ClusterQueue is
# terminating: `ClusterQueue.terminating`; a Workload that goes is not read: `workload_goes`).
DELETING = {
    # one with no finalizer but Kueue's goes: not read without an owner (`workload_goes`), let go by its
    # job in `manage.apply_jobs` with one (which reports it, KAD161, where no job of the input owns it)
    # one held by another finalizer than Kueue's stays, read as it stands (`workload_held`) but a pod's
    "Workload": "a pod's Workload held by another finalizer than Kueue's stays in Kueue's queues and keeps its "
                "quota, but Kueue's pod reconciler deletes its pods (`Pod.Stop`) and drops its own finalizer, and "
                "a ReplicaSet's or StatefulSet's pod is made again, gated, with a Workload of its own where the "
                "old one does not take it (not modelled)",
}


# Kinds whose deletion kadmit reads as Kueue does: a ClusterQueue is terminating; a LocalQueue is kept by
# Kueue's queue manager, which admits its pending workloads as before (a reservation of one waiting for
# admission checks is taken back and given again, over and over: `effective.drained`); a ResourceFlavor, an
# AdmissionCheck or a Topology keeps Kueue's finalizer while a queue or flavor uses it and is used as
# before (their controllers' Reconcile; their Update events with the timestamp change no cache), and
# goes when nothing does, which changes no decision; a Cohort or a WorkloadPriorityClass, which no
# Kueue finalizer holds, is read as long as it exists.
MODELLED_DELETION = frozenset({"ClusterQueue", "LocalQueue", "ResourceFlavor", "AdmissionCheck", "Topology", "Cohort",
                               "WorkloadPriorityClass", "Configuration"})
KUEUE_FINALIZER = "kueue.x-k8s.io/resource-in-use"


def workload_goes(meta: Val | None, owned: bool = False) -> bool:
    """A Workload being deleted (`metadata.deletionTimestamp`) with no owner (with one, when `owned`)
    and no finalizer but Kueue's. Without an owner Kueue's workload controller drops that finalizer
    ("manual deletion triggered by the user") and the Workload goes, with any quota it holds; with one,
    its job's reconciler does ("The workload is marked for deletion"), once it has suspended the job
    (`manage.apply_jobs`, where the job is in the input)."""
    if meta is None or meta.kind != MAP:
        return False
    stamp, owners, finalizers = (meta.v.get(k) for k in ("deletionTimestamp", "ownerReferences", "finalizers"))
    if stamp is None or _empty(stamp) or (stamp.kind == STR and not stamp.v):
        return False
    if (owners is not None and not _empty(owners)) != owned:
        return False
    if finalizers is None or _empty(finalizers):
        return True  # as a Workload written by hand: Kueue's finalizer is on every Workload it meets
    return finalizers.kind == SEQ and all(v.kind == STR and v.v == KUEUE_FINALIZER for v in finalizers.v)


def workload_held(meta: Val | None) -> bool:
    """A Workload being deleted that another finalizer than Kueue's holds, and no pod owns: Kueue drops its
    own finalizer (the workload controller without an owner, the job's reconciler with one, which also
    suspends the job and, finding this Workload, makes it no other) and the Workload stays, in Kueue's
    queues and holding any quota it holds, as it stands, until that finalizer's controller lets it go (run
    time, not Kueue's). Read as it stands, as Kueue's scheduler meets it
    (tests/oracle/features/workload-being-deleted-held-by-another-finalizer.yaml)."""
    if meta is None or meta.kind != MAP:
        return False
    stamp, owners, finalizers = (meta.v.get(k) for k in ("deletionTimestamp", "ownerReferences", "finalizers"))
    if stamp is None or _empty(stamp) or (stamp.kind == STR and not stamp.v):
        return False
    if finalizers is None or finalizers.kind != SEQ or \
            not any(v.kind == STR and v.v and v.v != KUEUE_FINALIZER for v in finalizers.v):
        return False
    return owners is None or owners.kind != SEQ or not any(
        o.kind == MAP and (k := o.v.get("kind")) is not None and k.v == "Pod" for o in owners.v)


def warn_unmodelled(f, node: Val, kind: str, what: str) -> None:
    """A warning (KAD161) for each field set on `node` that changes Kueue's answer and that kadmit
    does not model, once per listed field; and for one of Kueue's objects being deleted."""
    table = FIELDS.get(kind)
    if table is None:
        return
    meta = node.get("metadata") if node.kind == MAP else None
    stamp = meta.get("deletionTimestamp") if meta is not None and meta.kind == MAP else None
    if stamp is not None and not _empty(stamp) and kind not in MODELLED_DELETION \
            and not (kind == "Workload" and (workload_goes(meta) or workload_goes(meta, owned=True)
                                             or workload_held(meta))):
        effect = DELETING.get(kind, "being deleted")
        f.diags.emit(KAD161, f"`metadata.deletionTimestamp` of {what} is not modelled: {effect}; kadmit reads "
                     "it as if it were not being deleted, and its decision may differ from Kueue's", f.span(stamp))
    root = node if kind in KIND_ROOT else node.get("spec")
    if root is None or root.kind != MAP:
        return
    for key, entry, parts in _unmodelled(kind):
        for v in _find_parts(root, parts):
            if not _harmless(v, entry):
                f.diags.emit(KAD161, f"`{key}` of {what} is not modelled: {entry.note}; kadmit's "
                             "decision may differ from Kueue's", f.span(v))


def warn_template(f, meta: Val | None, spec: Val | None, pod_set: str) -> None:
    """A warning (KAD161) for each pod-template setting Kueue reads that kadmit does not model."""
    annotations = meta.get("annotations") if meta is not None else None
    for key, note in TEMPLATE_ANNOTATIONS.items():
        v = annotations.get(key) if annotations is not None else None
        if v is not None and not _empty(v):
            f.diags.emit(KAD161, f"`{key}` of pod set `{pod_set}` is not modelled: {note}; kadmit's "
                         "decision may differ from Kueue's", f.span(v))
    for key, note in TEMPLATE_FIELDS.items():
        v = spec.get(key) if spec is not None else None
        if v is not None and not _empty(v):
            f.diags.emit(KAD161, f"`{key}` of pod set `{pod_set}` is not modelled: {note}; kadmit's "
                         "decision may differ from Kueue's", f.span(v))


_UNMODELLED: dict[str, list[tuple[str, Entry, tuple[str, ...]]]] = {}


def _unmodelled(kind: str) -> list[tuple[str, Entry, tuple[str, ...]]]:
    """The unmodelled fields of a kind: each path, its entry and its steps (`[]` a list step);
    worked out once per kind (`FIELDS` is fixed)."""
    known = _UNMODELLED.get(kind)
    if known is None:
        known = _UNMODELLED[kind] = [(key, entry, tuple(key.replace("[]", ".[]").split(".")))
                                     for key, entry in FIELDS[kind].items()
                                     if entry.state == UNMODELLED and not entry.reader]
    return known


def _find_parts(root: Val, parts: tuple[str, ...]) -> list[Val]:
    """The values at a path of steps (`[]`: each item of a list)."""
    found = [root]
    for part in parts:
        if not found:
            break
        nxt = []
        for v in found:
            if part == "[]":
                nxt.extend(v.v if v.kind == SEQ else ())
            elif v.kind == MAP and part in v.v:
                nxt.append(v.v[part])
        found = nxt
    return found


def markdown() -> str:
    """docs/KUEUE-FIELDS.md."""
    lines = ["# Kueue fields kadmit models", "",
             "Generated by `python -m kadmit.manifests.schema.coverage`; do not edit by hand.", "",
             "Every field of Kueue's kinds (from its CRDs and Configuration types) is modelled, has no "
             "effect on admission decisions, or is reported where it is set with a warning (KAD161) "
             "saying that kadmit's decision may differ from Kueue's. A field not listed takes its "
             "nearest listed parent's entry. Paths are below `spec` (the Configuration: below the "
             "document).", ""]
    for kind, table in FIELDS.items():
        lines += [f"## {kind}", "", "| field | | how |", "|---|---|---|"]
        for key, entry in table.items():
            lines.append(f"| `{key}` | {entry.state} | {entry.note} |")
        lines.append("")
    lines += ["## Pod templates (of Workloads and every job kind)", "", "| setting | | how |", "|---|---|---|"]
    lines += [f"| annotation `{k}` | {MODELLED} | {v} |" for k, v in TEMPLATE_MODELLED.items()]
    lines += [f"| annotation `{k}` | {UNMODELLED} | {v} |" for k, v in TEMPLATE_ANNOTATIONS.items()]
    lines += [f"| `spec.{k}` | {UNMODELLED} | {v} |" for k, v in TEMPLATE_FIELDS.items()]
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(), end="")
