"""Kueue's start of a suspended job whose Workload is admitted (jobframework's reconciler, `startJob`): the
admission as pod set infos (`getPodSetsInfoFromStatus`) merged into the job's templates (each kind's
`RunWithPodSetsInfo`, a pod's `Pod.Run`: `podset.Merge`). A merge that conflicts fails the start for good
(`podset.IsPermanent`): Kueue finishes the Workload (reason FailedToStart, the error as its message), so it
holds no quota (docs/INTEGRATIONS.md J12)."""

from __future__ import annotations

import re

from kadmit.diagnostics import Diagnostics
from kadmit.featuregates import enabled
from kadmit.identity import subject
from kadmit.manifests.codes import KAD161
from kadmit.model import ClusterQueue, Job, Model, ResourceFlavor, Skipped, Workload
from kadmit.modelchecks import checks_for

FAILED_TO_START = "FailedToStart"  # jobframework's FailedToStartFinishedReason

# What getPodSetsInfoFromStatus sets on a pod set's pods (TopologyAwareScheduling and AssignQueueLabelsForPods
# are on by default in Kueue v0.17; the queue labels only under the latter, `queue_labels`)
PODSET_LABEL = "kueue.x-k8s.io/podset"
LOCAL_QUEUE_LABEL = "kueue.x-k8s.io/local-queue-name"
CLUSTER_QUEUE_LABEL = "kueue.x-k8s.io/cluster-queue-name"  # where the name is a DNS-1123 label
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
UNCONSTRAINED_ANNOTATION = "kueue.x-k8s.io/podset-unconstrained-topology"  # a topology assignment, no request
KUEUE_SET = {PODSET_LABEL, LOCAL_QUEUE_LABEL, CLUSTER_QUEUE_LABEL, WORKLOAD_ANNOTATION}  # known before admission
_DNS_LABEL = re.compile(r"(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?")
# podset.ErrInvalidPodSetUpdate's text: Kueue's BadPodSetsUpdateError starts with it
BAD_UPDATE = "invalid admission check PodSetUpdate"


def queue_labels(config) -> bool:
    """Whether Kueue's start sets the queue labels on a pod set's pods (feature gate AssignQueueLabelsForPods, on
    by default: assignQueueLabels)."""
    return enabled(config, "AssignQueueLabelsForPods")


def status_infos(wl: Workload, flavors: dict[str, ResourceFlavor], queued: bool = True) -> tuple[list[list] | None, str]:
    """`getPodSetsInfoFromStatus`: per pod set assignment, in order, [name, nodeSelector, labels, annotations,
    tolerations, count] — its flavors' node labels and tolerations (`podset.FromAssignment`), the pod set,
    queue and Workload labels and annotation, each admission check's first `podSetUpdates` entry of its name
    merged in (`PodSetInfo.Merge`). Or None, and "" where Kueue's reconciler would try again (a flavor not in
    the input) or kadmit has nothing to merge (no admission), or Kueue's error where a podSetUpdate conflicts
    with what is there (permanent: `in admission check "NAME": invalid admission check PodSetUpdate: …`).
    `queued`: the queue labels are set (`queue_labels`)."""
    shapes = wl.shapes
    if wl.admission is None or shapes is None or len(shapes) < 3 or shapes[2] is None or not wl.admission.pod_sets:
        return None, ""
    updates = shapes[2][1]
    infos = []
    for a in wl.admission.pod_sets:
        selector: dict = {}
        tolerations: list = []
        for flavor in dict.fromkeys(a.flavors[r] for r in sorted(a.flavors)):
            if flavor not in flavors:
                return None, ""
            selector.update(flavors[flavor].node_labels)
            tolerations.extend(_written(flavors[flavor]))
        labels = {PODSET_LABEL: a.name, **({LOCAL_QUEUE_LABEL: wl.queue} if queued else {})}
        if queued and _DNS_LABEL.fullmatch(wl.admission.cluster_queue):
            labels[CLUSTER_QUEUE_LABEL] = wl.admission.cluster_queue
        annotations = {WORKLOAD_ANNOTATION: wl.name}
        at = next((ps for ps in wl.pod_sets if ps.name == a.name), None)
        if a.placement and at is not None and at.topology is None:
            annotations[UNCONSTRAINED_ANNOTATION] = "true"
        info = [a.name, selector, labels, annotations, tolerations, a.count]
        for u_tolerations, u_selector, u_labels, u_annotations, check in updates.get(a.name, ()):
            error = merge(info[1:5], u_selector, u_labels, u_annotations, u_tolerations)
            if error:
                return None, f'in admission check "{check}": {error}'
        infos.append(info)
    return infos, ""


STARTS_NOT = ("its Workload `{wl}` {admitted}, but Kueue's job reconciler cannot start it (startJob merges the "
              "admission into the pods it starts): {error}. The failure is permanent, so Kueue finishes the Workload "
              "(Finished, reason {reason}) and it holds no quota: neither is pending work for Kueue")


def failed_start(job: Job, wl: Workload, flavors: dict[str, ResourceFlavor],
                 queues: dict[str, ClusterQueue] | None = None, queued: bool = True) -> tuple[Workload, Skipped] | None:
    """The Workload as Kueue leaves it where its start fails for good (`start_failure`): finished, with the
    reason and message of the Finished condition Kueue sets; and the job listed as no pending work, saying why.
    None where Kueue starts it. A Workload the input shows holding quota with every check Ready and no Admitted
    condition is started too: Kueue's workload controller admits it first (`admitted_next`; `queues` by name).
    `queued`: Kueue's start sets the queue labels (`queue_labels`)."""
    admitted = "is admitted"
    if not wl.admitted_condition and queues is not None and admitted_next(wl, queues):
        wl = wl.model_copy(update={"admitted_condition": True})
        admitted = "holds quota with every admission check Ready, so Kueue's workload controller admits it"
    error = start_failure(job, wl, flavors, queued)
    if not error:
        return None
    return (wl.model_copy(update={"finished": True, "finished_reason": f"{FAILED_TO_START}: {error}"}),
            Skipped(object=job.object, span=job.span,
                    reason=STARTS_NOT.format(wl=wl.key, error=error, admitted=admitted, reason=FAILED_TO_START)))


def admitted_next(wl: Workload, queues: dict[str, ClusterQueue]) -> bool:
    """Whether Kueue's workload controller sets the Admitted condition of a Workload the input shows without
    one: it holds quota (not finished, not evicted) and every check its ClusterQueue requires for its assigned
    flavors (`checks_for`; `reconcileSyncAdmissionChecks` adds a missing one as Pending) is Ready
    (`workload.SyncAdmittedCondition`; a pending topology assignment is not read here)."""
    cq = queues.get(wl.admission.cluster_queue) if wl.admission is not None else None
    if cq is None or wl.admitted_condition or wl.finished or wl.evicted:
        return False
    states = {s.name: s.state for s in wl.check_states}
    assigned = {fl for ps in wl.admission.pod_sets for fl in ps.flavors.values()}
    required = checks_for(cq.admission_checks, {fq.flavor for rg in cq.resource_groups for fq in rg.flavors}, assigned)
    return all(states.get(name) == "Ready" for name in required)


def start_failure(job: Job, wl: Workload, flavors: dict[str, ResourceFlavor], queued: bool = True) -> str:
    """Why Kueue's startJob fails for good on `job`, suspended, whose Workload `wl` is admitted (its Admitted
    condition True): Kueue's error, which becomes the message of the Finished condition it sets; "" where it
    starts the job (or tries again). Every kind: an admission check's podSetUpdate conflicting
    (`status_infos`); then, merged into the job's templates in its pod sets' order (`Job.templates`: pod set i
    takes assignment i's info, a pod group's gated member its role's), a template's annotation, label or node
    selector already set to another value (a node selector the admission's flavor labels otherwise, which
    Kueue's flavor assigner never chooses but an input may hold). An AppWrapper's start merges into no
    template (`common.NOT_MERGED`)."""
    if not (wl.admitted_condition and wl.admission is not None and not wl.finished and not wl.evicted
            and job.suspended and job.state != "finished"):  # the reconciler's steps before 7 ("job is suspended")
        return ""
    infos, error = status_infos(wl, flavors, queued)
    if infos is None or job.templates is None:
        return error
    by_name = {info[0]: info for info in infos}
    for key, selector, labels, annotations in job.templates:
        if isinstance(key, int):  # RunWithPodSetsInfo: podSetsInfo[index]
            info = infos[key] if key < len(infos) else None
        else:  # Pod.Run: the pod set named as the pod's role hash
            info = by_name.get(key)
            if info is None:
                return f"invalid podset infos: podSetInfo with the name '{key}' is not found"
        if info is None:  # a count Kueue's equivalence check would not have let by
            return ""
        error = merge([dict(selector), dict(labels), dict(annotations), []], info[1], info[2], info[3], [])
        if error:
            return error
    return ""


WILL_NOT_START = ("once Kueue admits its Workload `{wl}`, its job reconciler cannot start it (startJob merges the "
                  "admission into the pods it starts: {error}) and finishes the Workload (Finished, reason "
                  f"{FAILED_TO_START}), giving its quota back: kadmit decides it as if it started, Kueue's outcome "
                  "where the reconciler answers after the scheduler has placed the rest; an earlier answer gives "
                  "the quota to the workloads behind it (docs/KUEUE-DIFFERENCES.md §1)")


def warn_unstartable(model: Model, diags: Diagnostics) -> Model:
    """KAD161 for each pending Workload of a job of the input that Kueue would admit and then fail to start
    whatever flavor it took (`start_failure`'s merge, on what needs no admission: the pod set, queue and
    Workload labels and annotation a template sets otherwise; a node selector is the flavor's, and Kueue's
    flavor assigner takes none it conflicts with): kadmit models the start of a Workload the input shows
    admitted only. `model`, each such Workload with the error (`Workload.start_fails`)."""
    starts: dict[tuple, tuple] = {}  # the origin a job's Workloads name -> (the job, what its start merges into)
    for job in model.jobs:
        if job.templates is None or all(KUEUE_SET.isdisjoint(labels) and KUEUE_SET.isdisjoint(annotations)
                                        for _, _, labels, annotations in job.templates):
            continue
        if job.group:  # a member of a pod group: the group's Workload, its role's pod set (`groups._group`)
            key = (job.object.kind, job.object.namespace or "default", job.group)
            first, entries = starts.get(key, (job, ()))
            starts[key] = (first, entries + ((job.role or "", *job.templates[0][1:]),))
        else:
            starts[(job.object.kind, job.object.namespace or "default", job.object.name)] = (job, job.templates)
    if not starts:
        return model
    queues = {lq.key: lq.cluster_queue for lq in model.local_queues}
    queued = queue_labels(model.config)
    fails: dict[int, str] = {}
    for at, wl in enumerate(model.workloads):
        o = wl.origin
        found = starts.get((o.kind, o.namespace or "default", o.name)) if o is not None else None
        if found is None or wl.admission is not None or wl.finished:
            continue
        cq = queues.get(f"{wl.namespace}/{wl.queue}", "")
        infos = [[ps.name, {}, {PODSET_LABEL: ps.name, **({LOCAL_QUEUE_LABEL: wl.queue} if queued else {}),
                                **({CLUSTER_QUEUE_LABEL: cq} if queued and _DNS_LABEL.fullmatch(cq) else {})},
                  {WORKLOAD_ANNOTATION: wl.kueue_name or wl.name}] for ps in wl.pod_sets]
        by_name = {info[0]: info for info in infos}
        for key, selector, labels, annotations in found[1]:
            info = infos[key] if isinstance(key, int) and key < len(infos) else by_name.get(key)
            error = info is not None and merge([{}, dict(labels), dict(annotations), []], {}, info[2], info[3], [])
            if error:
                job = found[0]
                diags.emit(KAD161, f"{job.object.kind} `{job.object.key}`: " + WILL_NOT_START.format(wl=wl.key, error=error),
                           job.span, help="leave Kueue's labels and annotations out of the pod template",
                           about=(subject(job.object),))
                fails[at] = error
                break
    if not fails:
        return model
    return model.model_copy(update={"workloads": tuple(wl.model_copy(update={"start_fails": fails[at]}) if at in fails
                                                       else wl for at, wl in enumerate(model.workloads))})


def merge(into: list, selector: dict, labels: dict, annotations: dict, tolerations: list) -> str:
    """`PodSetInfo.Merge` into `into` ([nodeSelector, labels, annotations, tolerations]): "" with the maps
    copied over, and each toleration appended unless one equal is there (Go's `==` on the struct: one with
    `tolerationSeconds`, a pointer, is never equal to another object's); Kueue's error where a key is set to
    another value already (`HaveConflict`, annotations first, then labels, then the node selector; of several
    conflicting keys Kueue names one in Go's map order, kadmit the first as written)."""
    for what, mine, theirs in (("annotations", into[2], annotations), ("labels", into[1], labels),
                               ("nodeSelector", into[0], selector)):
        for k, v in mine.items():
            if k in theirs and theirs[k] != v:
                return f"{BAD_UPDATE}: conflict for {what}: conflict for key={k}, value1={v}, value2={theirs[k]}"
    for mine, theirs in zip(into[:3], (selector, labels, annotations)):
        mine.update(theirs)
    for t in tolerations:
        if not (isinstance(t, dict) and t.get("tolerationSeconds") is None
                and any(_same_toleration(t, x) for x in into[3])):
            into[3].append(t)
    return ""


def _same_toleration(a, b) -> bool:
    return isinstance(b, dict) and b.get("tolerationSeconds") is None and \
        all((a.get(k) or "") == (b.get(k) or "") for k in ("key", "operator", "value", "effect"))


def _written(flavor: ResourceFlavor) -> list:
    """A flavor's tolerations as written; from a `.kad` policy (none written), as its model holds them."""
    if flavor.written_tolerations is not None:
        return list(flavor.written_tolerations)
    return [{k: v for k, v in (("key", t.key), ("operator", t.operator), ("value", t.value), ("effect", t.effect))
             if v} for t in flavor.tolerations]
