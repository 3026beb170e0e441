"""Kueue's job framework over the whole input: which submitted jobs Kueue manages (its
Configuration's integrations, `manageJobsWithoutQueueName`, `managedJobsNamespaceSelector`, the
namespace's `default` LocalQueue), which already have their Workload in the input, and the
Workloads it makes of the others. Every job not made into work is listed as skipped, with why."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from kadmit.featuregates import enabled
from kadmit.manifests.jobs import external, slices
from kadmit.manifests.jobs.settings import GROUP_KEPT, MANAGED_PATH, POD_PARENTS, POD_WEBHOOK_REFUSES, Integrations
from kadmit.manifests.jobs.shortnames import short_names
from kadmit.manifests.jobs.uids import shared_uids, shared_workload_uids
from kadmit.manifests.jobs.groups import GROUP_NAME as POD_GROUP, join_pod_groups, prebuilt_group, sliced_counts
from kadmit.manifests.jobs.owned import STOPPED, in_step
from kadmit.manifests.jobs.crd import build_failure, workload_crd_refusal
from kadmit.manifests.jobs.deletions import not_stopped, unmodelled_deletions
from kadmit.manifests.jobs.prebuilt import prebuilt_workload
from kadmit.manifests.reclaim import reclaim_applied, unreclaimed, whole_jobs
from kadmit.manifests.jobs.start import failed_start, queue_labels, warn_unstartable
from kadmit.manifests.jobs.replicasets import REPLICA_SET_HASH, owner_absent, owners_pod, replaced, replacement, \
    replica_set_pod, rolled_out
from kadmit.diagnostics import Diagnostics
from kadmit.identity import own_name, repeat_name, subject
from kadmit.index import BUILTIN_PRIORITY_CLASSES
from kadmit.manifests.codes import KAD170, KAD172
from kadmit.model import Job, LabelSelector, Model, Refusal, Requirement, Skipped, Workload

# The frameworks of the Configuration Kueue v0.17's release installs (config/components/manager/
# controller_manager_config.yaml; SparkApplication is commented out). tests/oracle checks it
# against the oracle, which reads the module's file.
INSTALLED_FRAMEWORKS = (
    "batch/job", "kubeflow.org/mpijob", "ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice",
    "jobset.x-k8s.io/jobset", "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob", "kubeflow.org/jaxjob", "workload.codeflare.dev/appwrapper",
    "trainer.kubeflow.org/trainjob", "pod", "deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset",
)
KUEUE_NAMESPACE = "kueue-system"
# Kueue's defaulting (apis/config/v1beta2/defaults.go) when the selector is unset.
DEFAULT_NAMESPACE_SELECTOR = LabelSelector(match_expressions=(Requirement(
    key="kubernetes.io/metadata.name", operator="NotIn", values=("kube-system", KUEUE_NAMESPACE)),))
DEFAULT_LOCAL_QUEUE = "default"
# Kinds whose Workloads no generic job reconciler makes: a LeaderWorkerSet's reconciler makes its groups'
# Workloads whether it is being deleted or not; a StatefulSet's and a Deployment's pods come from their
# own controllers, which make none for one being deleted (not modelled: kadmit decides them as read).
_NOT_GENERIC = ("leaderworkerset.x-k8s.io/leaderworkerset", "statefulset", "deployment")
# Kinds whose Workload being deleted Kueue's generic job reconciler handles ("1.1 If the workload is pending
# deletion"): it suspends the job (stopJob) and drops the Workload's finalizer, so the Workload goes with its
# quota and the job, once no pod of it is active, gets a new one; a pod's or a pod group's (`Pod.Stop`) deletes
# the pods instead, so none is made (POD_WORKLOAD_DELETED). Not the kinds above: a StatefulSet's and a
# LeaderWorkerSet's go through their pods (_REMADE_THROUGH_PODS); a Deployment's pods' keep KAD161.
_NOT_SUSPENDED_ON_DELETE = _NOT_GENERIC
# A StatefulSet's Workload (its pod group's, prebuilt) being deleted, or a LeaderWorkerSet group's: Kueue's
# pod reconciler, meeting the group's pods, deletes them and drops the finalizer (as for any pod group), and
# the StatefulSet or LeaderWorkerSet reconciler, finding no Workload (for the group), makes a new one
# (createPrebuiltWorkload), queued afresh; their controllers make the pods again. Modelled where the input
# holds pods of the group (a cluster always has one: the controllers make them, gated, whatever Kueue
# decides); without them, KAD161.
_REMADE_THROUGH_PODS = ("statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")
# The kinds whose Workloads their reconciler prebuilds: a StatefulSet's (one), a LeaderWorkerSet's (one a group).
_PREBUILT = _REMADE_THROUGH_PODS
POD_WORKLOAD_DELETED = ("its Workload `{wl}` is being deleted (`metadata.deletionTimestamp`): Kueue's pod reconciler "
                        "deletes its pods (`Pod.Stop`) and drops the Workload's finalizer, so the Workload goes with "
                        "its quota and no new Workload is made of them")
WORKLOAD_DELETED = ("its Workload `{wl}` is being deleted (`metadata.deletionTimestamp`): Kueue's job reconciler "
                    "suspends it and drops the Workload's finalizer, so the Workload goes with its quota, and while "
                    "its pods are still ending (its status shows them active) Kueue makes no new Workload, so it is "
                    "not pending work for Kueue")
DELETING = ("it is being deleted (`metadata.deletionTimestamp`) and the input holds no Workload for it: Kueue's "
            "job reconciler only drops its finalizers and makes none, so it is no pending work")


def integrations(model: Model) -> Integrations:
    """Kueue's installed Configuration, with what the input's Configuration sets laid over it
    (a partial Configuration overrides only what it sets)."""
    c = model.config
    frameworks = c.frameworks if c is not None and c.frameworks is not None else INSTALLED_FRAMEWORKS
    return Integrations(
        frameworks=frameworks,
        manage_without_queue_name=bool(c and c.manage_jobs_without_queue_name),
        namespace_selector=(c.managed_jobs_namespace_selector if c is not None and
                            c.managed_jobs_namespace_selector is not None else DEFAULT_NAMESPACE_SELECTOR),
        configured=c is not None and c.frameworks is not None,
        external_kinds=(kinds := frozenset(c.external_frameworks if c is not None else ())),
        selector_respected=enabled(c, "ManagedJobsNamespaceSelectorAlwaysRespected"),
        multi_layer=enabled(c, "TASMultiLayerTopology"),
        external={(o.object.api_version, o.object.kind, o.object.namespace, o.object.name): o
                  for o in reversed(model.external_objects) if (o.object.api_version, o.object.kind) in kinds})


# The integrations whose own reconcilers make the Workload of one that names a queue (after the webhook's
# LocalQueue `default`) whatever its namespace: their watch takes it by WorkloadShouldBeSuspended, which
# reads managedJobsNamespaceSelector only for one without a queue name, and the generic reconciler's
# ManagedJobsNamespaceSelectorAlwaysRespected check (on by default since v0.15) is not theirs.
OWN_RECONCILERS = ("statefulset", "leaderworkerset.x-k8s.io/leaderworkerset")
JOB_INPUTS = ("jobs", "config", "namespaces", "local_queues", "priority_classes", "workloads", "skipped",
              "training_runtimes", "pods", "flavors", "external_objects")  # every field of the model `apply_jobs` reads


def apply_jobs_kept(model: Model, diags: Diagnostics) -> tuple[Model, tuple]:
    """`apply_jobs(model, diags)`, and what `applied_again` needs to reuse the answer: the fields
    read, the workloads and skipped objects made, the diagnostics reported, the pods left."""
    found = Diagnostics()
    external.say_unread(model.unread_kinds, model.config, diags)
    applied = warn_unstartable(apply_jobs(model, found), found)
    diags.extend(found.items)
    return applied, (_inputs(model), applied.workloads, applied.skipped, tuple(found.items), applied.pods)


def applied_again(model: Model, diags: Diagnostics, before: tuple | None) -> Model:
    """`apply_jobs(model, diags)`, taking the answer kept in `before` (`apply_jobs_kept`) when every
    field `apply_jobs` reads holds the very objects it held then (a proof that edits only queues
    read the jobs again for nothing: 2,000 Jobs cost a tenth of a `why`)."""
    external.say_unread(model.unread_kinds, model.config, diags)
    if before is not None and _same_objects(before[0], _inputs(model)):
        diags.extend(before[3])
        return model.model_copy(update={"workloads": before[1], "skipped": before[2], "pods": before[4]})
    return apply_jobs(model, diags)


def _inputs(model: Model) -> tuple:
    return tuple(getattr(model, name) for name in JOB_INPUTS)


def _same_objects(a: tuple, b: tuple) -> bool:
    for x, y in zip(a, b):
        if x is y:
            continue
        if not (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y)
                and all(i is j for i, j in zip(x, y))):
            return False
    return True


def apply_jobs(model: Model, diags: Diagnostics | None = None) -> Model:
    """The model with each job's Workloads added (or its existing Workload told where it came
    from), and every job Kueue would not make pending work of listed in `skipped`. Applying it
    again to the result (with more jobs added) changes only what the new jobs bring. The jobs
    Kueue's webhooks refuse are skipped, and reported in `diags` (KAD170); Workloads sharing a
    UID, in `diags` too (KAD198)."""
    model = unreclaimed(model)  # the ReclaimablePods gate off: nothing reclaimed
    if diags is not None:
        shared_workload_uids(model.workloads, diags)
    model = external.held(model)
    replicas = {(p.namespace, p.name) for p in model.pods if REPLICA_SET_HASH in p.labels} | {
        (j.object.namespace or "default", j.object.name) for j in model.jobs if replica_set_pod(j)}
    if not model.jobs and not any(replaced(w, replicas) for w in model.workloads):
        unmodelled_deletions(model.workloads, set(), diags)
        return model
    settings = integrations(model)
    labels = {n.name: n.effective_labels() for n in model.namespaces}
    queues = {lq.key for lq in model.local_queues}
    existing = _by_origin(model.workloads)
    keys = {w.key: i for i, w in reversed(list(enumerate(model.workloads)))}
    grouped = {(p.namespace, p.labels[POD_GROUP]) for p in model.pods if POD_GROUP in p.labels}
    workloads = list(model.workloads)
    made: list[Workload] = []
    skipped: list[Skipped] = []
    latest = max([w.created for w in model.workloads] + [j.created for j in model.jobs if j.created], default=None)
    unnamed: Counter = Counter()
    untimed = 0
    gone: set[int] = set()  # the Workloads being deleted whose job's reconciler lets them go
    untouched: set[int] = set()  # the Workloads of jobs no reconciler of Kueue's takes (`Integrations.reconciled`)
    remade: list[int] = []  # the places in `made` of the Workloads made in their place
    prebuilt: dict[int, str] = {}  # the Workloads of a StatefulSet or a LeaderWorkerSet: its kind
    adopted: dict = {}  # the prebuilt Workloads no object controlled that a job of the input took (`prebuilt_workload`)
    flavors = {f.name: f for f in reversed(model.flavors)}  # the first of a name
    assign = queue_labels(model.config)  # Kueue's start sets the queue labels on the pods (AssignQueueLabelsForPods)
    cqs = {q.name: q for q in reversed(model.cluster_queues)}
    # a broken WorkloadPriorityClass counts as defined (its errors hold back every answer); a broken PriorityClass
    # does not: the API server refuses it (`scope.REFUSED_KINDS`), and the jobs naming it get no Workload (KAD172)
    classes = {(p.kind, p.name) for p in (*model.priority_classes, *BUILTIN_PRIORITY_CLASSES)} | \
        {("workload", b.name) for b in model.broken if b.kind == "WorkloadPriorityClass"}
    refused_classes = {b.name for b in model.broken if b.kind == "PriorityClass"}
    shared = shared_uids(model.jobs, diags)
    elastic = enabled(model.config, slices.GATE)
    jobs, broken = join_pod_groups(model.jobs, elastic)
    if enabled(model.config, "ShortWorkloadNames"):  # every job's Workloads named as Kueue then names them
        jobs = [short_names(j) for j in jobs]
    skipped.extend(broken)
    if any(j.train is not None for j in jobs):
        from kadmit.manifests.jobs.trainjob import with_runtime  # loaded only where a TrainJob is read
        refused = frozenset((b.kind, b.namespace, b.name) for b in model.broken)
        jobs = [with_runtime(j, model.training_runtimes, refused) if j.train is not None else j for j in jobs]
    jobs = whole_jobs(model.config, jobs)
    jobs = [slices.spark_gated(j, elastic) for j in jobs]  # the SparkApplication webhook reads the gate
    if elastic:
        clusters = {(j.object.namespace or "default", j.object.name): j for j in jobs
                    if (j.object.kind, j.object.api_version.partition("/")[0]) == ("RayCluster", "ray.io")}
        jobs = [slices.named(j, enabled(model.config, "TopologyAwareScheduling"), clusters) for j in jobs]
    present = {(j.object.kind, j.object.namespace or "default", j.object.name): j for j in jobs}
    orphans: dict[tuple, list[Job]] = {}  # the pods whose controller's job decides them, not in the input
    for job in jobs:
        pod = job.framework == "pod"
        if job.owner is not None and (job.submitted and bool(job.workloads) if pod else
                                      (job.owner.group, job.owner.kind) in _integrated_kinds()
                                      or (job.owner.api_version, job.owner.kind) in settings.external_kinds):
            from kadmit.manifests.jobs.ancestors import ancestry  # a pod not a ReplicaSet's: pods.pod_job
            job = ancestry(job, present, settings, queues)
        if isinstance(job, Skipped):
            skipped.append(job)
            continue
        if owners_pod(job):  # its controller's job decides it; said where that one is not in the input (below)
            if (job.owner.kind, job.owner.namespace, job.owner.name) not in present:
                orphans.setdefault((job.owner.kind, job.owner.namespace, job.owner.name), []).append(job)
            continue
        if job.unsuspended is not None or job.leader_set is not None:  # its pods may be Kueue's (loaded only then)
            from kadmit.manifests.jobs.templatepods import route
            job = route(job, settings, labels, queues, model.limit_ranges)
        if job.framework == "statefulset" and settings.pod_webhook and _not_managed(job, settings, labels, queues) is None:
            from kadmit.manifests.jobs.lws import stateful_pods  # its Workload made, its pods refused or left gated
            job = stateful_pods(job, diags, settings.multi_layer)
        job = _number_repeats(job, unnamed)
        # a UID two jobs share names neither: Kueue finds a job's Workloads by owner kind and name
        by_uid = existing.get(("uid", job.object.uid)) if job.object.uid not in shared else None
        found = by_uid or existing.get(("name", job.object.kind, job.object.namespace, job.object.name))
        # a single pod takes its prebuilt Workload as the other kinds do (its `EquivalentToWorkload` is the generic
        # one); a pod group's is the one named as the group (the webhook refuses another name)
        if job.prebuilt is not None and job.framework not in _NOT_GENERIC and not (job.framework == "pod" and job.group_total is not None) \
                and not job.deleting:
            reason = _refused(job, settings, queues, diags) or _not_managed(job, settings, labels, queues)
            if reason is None:
                at, reason = prebuilt_workload(job, workloads, keys, adopted, diags, flavors, queued=assign,
                                               sliced=elastic and (slices.pod_sliced(job) or slices.sliced(job)))
                found = [at] if reason is None else None
                if reason is not None and at is not None:  # out of sync: Kueue finishes it
                    workloads[at] = workloads[at].model_copy(update={"finished": True})
            if reason is not None:
                skipped.append(Skipped(object=job.object, reason=reason, span=job.span))
                continue
        if found is None and job.framework == "pod" and job.group_total is not None:
            # a pod group's Workload is the one named as the group (`Pod.FindMatchingWorkloads`; its owners are
            # the pods, none its controller); one being deleted goes whether it matches the group's pods or
            # not (not matching, Kueue stops the group and deletes it: ensureOneWorkload)
            named = keys.get(f"{job.object.namespace}/{job.object.name}")
            if job.prebuilt is not None and not job.deleting and not any(r.multi_layer in (None, settings.multi_layer)
                                                                         for r in job.refusals) \
                    and _not_managed(job, settings, labels, queues) is None:
                reason = prebuilt_group(job, None if named is None else workloads[named], model.jobs,
                                        elastic and slices.pod_sliced(job))
                if reason is not None:
                    if named is not None:  # out of sync: Kueue finishes it
                        workloads[named] = workloads[named].model_copy(update={"finished": True})
                    skipped.append(Skipped(object=job.object, reason=reason, span=job.span))
                    continue
            found = [named] if named is not None else None
        if found is None and job.framework in _PREBUILT:
            # a StatefulSet's or a LeaderWorkerSet's Workloads are prebuilt by its reconciler, which finds them
            # by their names (findWorkloadName; filterWorkloads): their owner references are no controller's
            # (SetOwnerReference), so no owner match finds them
            found = [keys[k] for k in dict.fromkeys(f"{w.namespace}/{w.name}" for w in job.workloads) if k in keys] \
                or None
        if found is not None and not settings.reconciled(job.framework, job.parent_marked):
            # no reconciler of Kueue's for its kind (its integration not enabled): its Workloads stay as the input
            # shows them, one being deleted keeping its finalizer and quota (Kueue's scheduler reads no deletion),
            # one out of step kept, nothing reclaimed, none made again. Each stays the job's where it names the job
            # among its owners: a prebuilt one of a pod group no reconciler took names none
            untouched.update(found)
            if job.prebuilt is not None:
                skipped.append(Skipped(object=job.object, reason=_not_managed(job, settings, labels, queues),
                                       span=job.span))
                continue
            for i in found:
                workloads[i] = _with_origins(workloads[i], job)
            continue
        if job.fails is not None:  # its reconcile errs before any Workload is made or changed: kept as read
            untouched.update(found or ())
            for i in found or ():
                workloads[i] = _with_origins(workloads[i], job)
            slices.failed(job, diags, skipped, [workloads[i] for i in found or ()])
            continue
        if found is not None and job.framework in _PREBUILT:
            prebuilt.update((i, job.object.kind) for i in found)
        going = [i for i in found if workloads[i].deleting] \
            if found is not None and job.framework not in _NOT_SUSPENDED_ON_DELETE else []
        if found is not None and job.framework in _REMADE_THROUGH_PODS:
            going = [i for i in found if workloads[i].deleting and (workloads[i].namespace, workloads[i].name) in grouped]
        if going and job.framework == "pod" and all(replaced(workloads[i], replicas) for i in going):
            continue  # a ReplicaSet's pod: the Workload its ReplicaSet's new pod gets (`replacement`) stands for it
        gone.update(going)
        kept = [i for i in found if i not in going] if found is not None else []
        sliced = slices.ensure(job, workloads, kept, diags, sliced_counts(job, model.jobs) if job.framework == "pod"
                               and job.group_total is not None else None) \
            if kept and elastic and job.workloads and job.workloads[0].elastic is not None else None
        if sliced is not None:  # an elastic job's slices (the gate on): no out-of-step matching
            kept, new_slice = sliced
            if new_slice is not None:
                remade.append(len(made))
                made.append(new_slice.model_copy(update={"queue": job.queue or DEFAULT_LOCAL_QUEUE}))
        elif kept and (step := in_step(job, workloads, kept, flavors, job.queue or DEFAULT_LOCAL_QUEUE, diags, skipped,
                                       queued=assign, sliced=elastic and slices.sliced(job))) is not None:
            kept, dropped, job = step  # out of step with the job: deleted, and made again below where none is kept
            gone.update(dropped)
            going = going + dropped if not kept else going
        if kept:
            # step 4 of Kueue's reconciler for a job it manages, not finished: its reclaimable pods, applied
            reclaims = job.reclaimable if job.state != "finished" and _not_managed(job, settings, labels, queues) is None \
                else ()
            for i in kept:
                workloads[i] = _with_origins(reclaim_applied(workloads[i], reclaims), job)
                # a generic reconciler's start (a StatefulSet's or LeaderWorkerSet's pods start through theirs)
                if job.framework not in _NOT_GENERIC and (failed := failed_start(job, workloads[i], flavors, cqs, assign)):
                    workloads[i], skip = failed
                    skipped.append(skip)
            if going:  # a LeaderWorkerSet's group whose Workload goes gets a new one; the others keep theirs
                names = {workloads[i].name for i in going}
                again = [w for w in job.workloads if w.name in names]
                remade.extend(range(len(made), len(made) + len(again)))
                made.extend(w.model_copy(update={"queue": job.queue or DEFAULT_LOCAL_QUEUE}) for w in again)
            continue
        if going and job.framework == "pod":
            skipped.append(Skipped(object=job.object, span=job.span,
                                   reason=POD_WORKLOAD_DELETED.format(wl=workloads[going[0]].key)))
            continue
        if job.deleting and job.framework not in _NOT_GENERIC:
            skipped.append(Skipped(object=job.object, reason=DELETING, span=job.span))
            continue
        reason = _refused(job, settings, queues, diags)
        if reason is None and (reason := _not_managed(job, settings, labels, queues)) is not None and job.submitted:
            from kadmit.manifests.jobs.templatepods import unmanaged_pod_refusals  # its pods refused even so
            reason = _refused(job, settings, queues, diags, unmanaged_pod_refusals(job, settings)) or reason
        # an elastic job running is not waited for (handleJobWithNoWorkload), its Workload gone or none
        if reason is None and job.state != "pending" and not (job.state == "running" and elastic and (
                slices.sliced(job) or slices.pod_sliced(job) and job.group_total is not None)):
            reason = ("it has finished" if job.state == "finished" else
                      (WORKLOAD_DELETED if workloads[going[0]].deleting else STOPPED).format(wl=workloads[going[0]].key)
                      if going else
                      job.note if job.framework == "pod" and job.note else  # a single pod on a node
                      rolled_out(job, jobs) if job.framework == "deployment" else
                      "it is running, or suspended with pods still ending (its status shows it active), "
                      "and the input holds no Workload for it: Kueue makes none while it is active, so it "
                      "is not pending work for Kueue, and its quota counts only through its Workload")
        if reason is None and not job.workloads:
            reason = job.note or "Kueue makes no Workload of it"
        if reason is None:
            reason = build_failure(job.refusals, settings.multi_layer) or _missing_priority_class(job, classes, refused_classes, diags) \
                or workload_crd_refusal(job.workloads)
        if reason is not None:
            skipped.append(Skipped(object=job.object, reason=reason, span=job.span))
            continue
        from kadmit.manifests.jobs.templatepods import refused_pods
        refused_pods(job, settings, diags)
        queue = job.queue or DEFAULT_LOCAL_QUEUE
        created = job.created
        if going:  # made again after the input's moment, when its reconciler lets the old one go: below
            remade.extend(len(made) + n for n in range(len(job.workloads)))
        elif created is None:  # queued in input order, after everything that has a creation time
            untimed += 1
            created = (latest or Workload.model_fields["created"].default) + timedelta(milliseconds=untimed)
        for wl in job.workloads:
            made.append(wl.model_copy(update={"queue": wl.queue or queue, "created": created}))  # a JobSet's Jobs' own
    skipped.extend(Skipped(object=pods[0].object, reason=owner_absent(pods), span=pods[0].span) for pods in orphans.values())
    for i, wl in enumerate(workloads):
        if i not in gone and i not in untouched and replaced(wl, replicas):
            gone.add(i)
            remade.append(len(made))
            made.append(replacement(wl))
    # A Workload made in place of one the input shows being deleted is made after the input's moment (the
    # input shows the old one still there): the API server stamps it after everything the input shows
    # created, and after the jobs without a creation time, in job order.
    for n, i in enumerate(remade, start=untimed + 1):
        made[i] = made[i].model_copy(update={
            "created": (latest or Workload.model_fields["created"].default) + timedelta(milliseconds=n)})
    unmodelled_deletions(workloads, gone | untouched, diags, prebuilt)
    workloads = [w for i, w in enumerate(workloads) if i not in gone]
    workloads.extend(_own_names(made, {w.key for w in workloads}))
    known = set(model.skipped)  # applying twice (a model extended with more jobs) lists each once
    fresh = tuple(dict.fromkeys(s for s in skipped if s not in known))
    return model.model_copy(update={"workloads": tuple(workloads), "skipped": model.skipped + fresh,
                                    "pods": not_stopped(model, {model.workloads[i].key for i in untouched})})


def _own_names(made: list[Workload], taken: set[str]) -> list[Workload]:
    """A job's workload is named as the job is (`namespace/name`), Kueue's name kept as its alias (`kueue_name`; ""
    where it hashes a UID the input lacks); where that name is not unique (an object with several workloads, two
    kinds sharing a name, a Workload of the input with that name) it keeps the name made as Kueue's is where that
    is Kueue's (the UID known), else takes kadmit's own key (`identity.own_name`: `serve:replica-0`, a name no
    object holds), never a hash over an empty UID that would pass for Kueue's."""
    per_object = Counter((w.origin.kind, w.namespace, w.origin.name) for w in made if w.origin)
    wanted = Counter((w.namespace, w.origin.name) for w in made if w.origin)
    out = []
    for w in made:
        o = w.origin
        own = f"{w.namespace}/{o.name}" if o is not None else None
        if (o is not None and per_object[(o.kind, w.namespace, o.name)] == 1 and wanted[(w.namespace, o.name)] == 1
                and own not in taken):
            out.append(w.model_copy(update={"name": o.name, "kueue_name": w.name if w.kueue_name is None else ""}))
        elif w.kueue_name is None or o is None:
            out.append(w.model_copy(update={"kueue_name": w.name if w.kueue_name is None else ""}))
        else:
            out.append(w.model_copy(update={"name": own_name(o, w.part), "kueue_name": ""}))
    return out


def _by_origin(workloads: tuple[Workload, ...]) -> dict[tuple, list[int]]:
    out: dict[tuple, list[int]] = {}
    for i, w in enumerate(workloads):
        o = w.origin
        if o is None:
            continue
        if o.uid:
            out.setdefault(("uid", o.uid), []).append(i)
        out.setdefault(("name", o.kind, o.namespace, o.name), []).append(i)
    return out


def _number_repeats(job: Job, seen: Counter) -> Job:
    """Objects named by the same `generateName` prefix are told apart by input order: the second
    `sample-job-` is `sample-job-#2`; a repeat declined for an input error (`Model.broken`) is never created, and
    takes no number (`scope.number_repeats`)."""
    if not job.generate_name:
        return job
    key = (job.object.kind, job.object.namespace, job.object.name)
    seen[key] += 1
    n = seen[key]
    if n == 1:
        return job
    name = repeat_name(job.object.name, n)
    ref = job.object.model_copy(update={"name": name})
    return job.model_copy(update={"object": ref, "workloads": tuple(
        w.model_copy(update={"name": f"{w.name}-{n}", "origin": ref}) for w in job.workloads)})


def _with_origins(wl: Workload, job: Job) -> Workload:
    """The Workload Kueue made of `job`, with the job as its origin and each pod set's origin."""
    origins = {ps.name: ps.origin for w in job.workloads for ps in w.pod_sets if ps.origin}
    pod_sets = tuple(ps if ps.origin or ps.name not in origins else ps.model_copy(update={"origin": origins[ps.name]})
                     for ps in wl.pod_sets)
    return wl.model_copy(update={"origin": job.object, "pod_sets": pod_sets})


def _integrated_kinds() -> set[tuple[str, str]]:
    from kadmit.manifests.jobs import INTEGRATIONS

    return {(i.group, i.kind) for i in INTEGRATIONS}


_QUEUE_PATH = "metadata.labels[kueue.x-k8s.io/queue-name]"


def _refused(job: Job, s: Integrations, queues: set[str], diags: Diagnostics | None,
             unmanaged: list[Refusal] | None = None) -> str | None:
    """Kueue's webhook refusals that apply to `job`: its integration must be enabled (a disabled
    one gets Kueue's no-op webhook), and a `managed_only` rule needs a job Kueue manages. Where none
    refuses the job itself, Kueue's pod webhook's refusals of the pods its controller makes
    (`Refusal.pods`), which apply wherever that webhook runs, the job stored or not; `unmanaged`: those
    of a job Kueue does not manage (`templatepods.unmanaged_pod_refusals`), whose own refusals none applied."""
    ns = job.object.namespace or "default"
    managed = bool(job.queue) or f"{ns}/{DEFAULT_LOCAL_QUEUE}" in queues or s.manage_without_queue_name
    # already in the cluster (not submitted): its webhook ran when it was created, not now
    # (a pod's managed label: only where Kueue's pod webhook, not managing it, left it as written: pods.py)
    refusals = [r for r in job.refusals if not r.pods and (managed or not r.managed_only)
                and not (managed and r.message.startswith(MANAGED_PATH))
                and r.multi_layer in (None, s.multi_layer)] if job.framework in s.frameworks and job.submitted else []
    pods = not refusals and s.pod_webhook
    if pods:  # the template's queue name is not its pods' where Kueue's Deployment webhook writes its own over it
        ours = job.framework == "deployment" and job.framework in s.frameworks and job.submitted and \
            (bool(job.queue) or f"{ns}/{DEFAULT_LOCAL_QUEUE}" in queues)
        refusals = [r for r in job.refusals if r.pods and not (ours and r.message.startswith(_QUEUE_PATH))
                    and r.multi_layer in (None, s.multi_layer)] if job.framework not in GROUP_KEPT else []
        # (a GROUP_KEPT kind's are its pods' alone: Kueue takes the job, `templatepods.refused_pods` warns)
        refusals = refusals if unmanaged is None else unmanaged
    if not refusals:
        return None
    kind, name = job.object.kind, job.object.name
    for r in refusals:
        if diags is not None:
            diags.emit(KAD170, f"Kueue's pod webhook refuses every pod {kind} `{name}` makes: {r.message}" if pods
                       else f"Kueue's webhook refuses {kind} `{name}`: {r.message}", r.span or job.span,
                       help=f"Kubernetes stores the {kind}, but none of its pods is created; change its pod template "
                       "as the message says" if pods else
                       "Kubernetes would not create it; change the field as the message says",
                       about=(subject(job.object),))
    return (POD_WEBHOOK_REFUSES if pods else "Kueue's webhook refuses it: ") + "; ".join(r.message for r in refusals)


def _missing_priority_class(job: Job, classes: set[tuple[str, str]], refused: set[str],
                            diags: Diagnostics | None) -> str | None:
    """A managed job whose priority class (its WorkloadPriorityClass label, else its pod template's
    PriorityClass) is not in the input, or is a PriorityClass of the input the API server refuses (`refused`):
    Kueue's reconciler fails to resolve it and never creates the Workload (KAD172)."""
    wl = job.workloads[0]
    if not wl.priority_class or (wl.priority_class_kind or "pod", wl.priority_class) in classes:
        return None
    kind = "WorkloadPriorityClass" if wl.priority_class_kind == "workload" else "PriorityClass"
    resource = "workloadpriorityclasses.kueue.x-k8s.io" if kind == "WorkloadPriorityClass" else \
        "priorityclasses.scheduling.k8s.io"
    if diags is not None:
        gone = kind == "PriorityClass" and wl.priority_class in refused
        diags.emit(KAD172, f"{job.object.kind} `{job.object.key}` names {kind} `{wl.priority_class}`, which "
                   + ("the API server refuses (an error in its definition)" if gone else "is not defined")
                   + ": Kueue never creates its Workload", wl.field_span("priority_class") or job.span,
                   help=f"fix PriorityClass `{wl.priority_class}` as its error says" if gone else
                   f"define {kind} `{wl.priority_class}`, or name one that exists", about=(subject(job.object),))
    if kind == "PriorityClass" and job.object.kind == "Pod":  # the API server's Priority admission plugin
        return (f"the API server refuses it: `pods \"{job.object.name}\" is forbidden: no PriorityClass with name "
                f"{wl.priority_class} was found`")
    if kind == "PriorityClass" and (job.object.kind in ("Deployment", "StatefulSet") or job.framework == "pod"):
        return (f"it is never admitted while PriorityClass `{wl.priority_class}` is not defined: the API server "
                f"refuses its pods (`no PriorityClass with name {wl.priority_class} was found`)")
    return (f"it is never admitted while {kind} `{wl.priority_class}` is not defined: Kueue's reconciler fails "
            f"(`{resource} \"{wl.priority_class}\" not found`) and creates no Workload")


def _gated_alone(job: Job, s: Integrations, labels: dict[str, dict[str, str]], queues: set[str]) -> str | None:
    """Why Kueue's pod webhook gates a pod being submitted (its Default: a namespace the selector
    takes, no owner Kueue manages, then a queue name, its namespace's `default` LocalQueue or
    manageJobsWithoutQueueName), or None when it does not."""
    if not job.submitted:
        return None
    owner = job.owner
    if owner is not None and (owner.group, owner.kind) in _integrated_kinds():
        return None
    ns = job.object.namespace or "default"
    if not s.namespace_selector.matches(labels.get(ns, {"kubernetes.io/metadata.name": ns})):
        return None
    if job.queue:
        return f"it names LocalQueue `{job.queue}`"
    if f"{ns}/{DEFAULT_LOCAL_QUEUE}" in queues:
        return f"namespace `{ns}` has a LocalQueue `{DEFAULT_LOCAL_QUEUE}`"
    return "`manageJobsWithoutQueueName` is on" if s.manage_without_queue_name else None


def _not_managed(job: Job, s: Integrations, labels: dict[str, dict[str, str]], queues: set[str]) -> str | None:
    """Why Kueue would not manage `job` (None when it does)."""
    where = "the input's Configuration" if s.configured else "the Configuration Kueue installs (none in the input)"
    parents = [f for f in POD_PARENTS if f in s.frameworks] if job.framework == "pod" else []
    # a pod a parent's webhook marked: the pod integration those parents turn on takes it (`Pod.Skip`)
    if not s.reconciled(job.framework, job.parent_marked):
        gated = _gated_alone(job, s, labels, queues) if parents else None
        if parents and not job.submitted:  # already created, with Kueue's `managed` label (pods.pod_job)
            return (f"integration `pod` is not in `integrations.frameworks` of {where}, but `{parents[0]}` there turns "
                    "it on for that kind's pods, and Kueue's pod reconciler skips a pod that no Deployment, StatefulSet "
                    "or LeaderWorkerSet made (\"Pod Integration was implicitly enabled but object lacks parent "
                    "annotation\"): it makes no Workload of it")
        if gated:
            return (f"integration `pod` is not in `integrations.frameworks` of {where}, but `{parents[0]}` there turns "
                    f"it on for that kind's pods: Kueue's pod webhook gates this pod ({gated}), and Kueue's pod reconciler skips a pod that no Deployment, StatefulSet or "
                    "LeaderWorkerSet made (\"Pod Integration was implicitly enabled but object lacks parent "
                    "annotation\"): it makes no Workload, and the pod stays gated, never admitted nor run")
        if job.framework == "batch/job" and job.submitted:
            from kadmit.manifests.jobs.templatepods import JOB_WEBHOOK_PANICS
            return f"integration `batch/job` is not in `integrations.frameworks` of {where}{JOB_WEBHOOK_PANICS}"
        if job.object.kind == "LeaderWorkerSet" and not job.submitted and "statefulset" in s.frameworks:
            return (f"integration `{job.framework}` is not in `integrations.frameworks` of {where}; already in the "
                    f"cluster, its leader StatefulSet `{job.object.name}` (Kueue's StatefulSet integration's, where "
                    "its webhook took it when made) is decided as any StatefulSet where the input holds it: kadmit "
                    "does not make it of the LeaderWorkerSet (lws._leader_set is of one being submitted)")
        return f"integration `{job.framework}` is not in `integrations.frameworks` of {where}"
    owner = job.owner  # a pod's is its own job whatever controls it (`Pod.IsTopLevel`; replicasets.plain_pod)
    if owner is not None and job.framework != "pod" and (owner.group, owner.kind) in _integrated_kinds():
        return (f"it belongs to {owner.kind} `{owner.key}`, which Kueue admits as a whole "
                "(its workload covers these pods)")
    ns = job.object.namespace or "default"
    # a Deployment already in the cluster makes new pods, which Kueue's pod webhook gives the LocalQueue
    # `default` where no owner of theirs is Kueue's (FindAncestorJobManagedByKueue: none without a queue
    # name unless manageJobsWithoutQueueName)
    fresh = job.submitted or (job.framework == "deployment" and not s.manage_without_queue_name)
    queued = bool(job.queue) or (fresh and f"{ns}/{DEFAULT_LOCAL_QUEUE}" in queues)
    # the gate off, one naming a queue is the generic reconciler's too, but a pod no parent marked: the pod
    # webhook leaves it ungated (its namespace filtering reads no gate)
    if not (queued and (job.framework in OWN_RECONCILERS or not s.selector_respected
                        and (job.framework != "pod" or job.parent_marked))) and \
            not s.namespace_selector.matches(labels.get(ns, {"kubernetes.io/metadata.name": ns})):
        return f"namespace `{ns}` is not selected by `managedJobsNamespaceSelector`: Kueue does not manage its jobs"
    if job.framework == "deployment" and job.object.uid and not job.parent_marked:
        # already in the cluster, it never passed Kueue's Deployment webhook, which marks its pod template: its new
        # pods pass Kueue's pod webhook unmarked (oracle: tests/oracle/features/deployment-in-the-cluster-*-skipped.yaml)
        if s.manage_without_queue_name:
            return ("under `manageJobsWithoutQueueName` Kueue takes it as its own, so Kueue's pod webhook leaves its "
                    "pods alone (FindAncestorJobManagedByKueue), and already in the cluster, it never passed Kueue's "
                    "Deployment webhook, which marks their template: Kueue skips them (\"Skipping pod, not managed by "
                    "Kueue\")")
        if "pod" not in s.frameworks:
            return (f"integration `pod` is not in `integrations.frameworks` of {where}, but `deployment` there turns "
                    "it on for that kind's pods; already in the cluster, it never passed Kueue's Deployment webhook, "
                    "which marks their template, and Kueue's pod reconciler skips its unmarked pods (\"Pod Integration "
                    "was implicitly enabled but object lacks parent annotation\"): it makes no Workload of them")
    if queued:
        return None
    # Kueue's webhook gives a job the LocalQueue `default` of its namespace when it is created: a job
    # already in the cluster without the label never got it (created before the queue, or before Kueue)
    nodefault = ("namespace has no LocalQueue `default`" if job.submitted or f"{ns}/{DEFAULT_LOCAL_QUEUE}"
                 not in queues else f"it is already in the cluster (a UID or a status), so Kueue's webhook, which "
                 f"gives a new job namespace `{ns}`'s LocalQueue `default`, does not label it now")
    if s.manage_without_queue_name:
        it = "its leader StatefulSet" if (job.framework, job.object.kind) == ("statefulset", "LeaderWorkerSet") else "it"
        return (f"Kueue manages {it} (`manageJobsWithoutQueueName`) but {it} names no queue and {nodefault}: "
                "its Workload has no queue and is never admitted")
    if job.framework == "deployment" and job.object.uid:
        return (f"its pod template has no `kueue.x-k8s.io/queue-name` label (and {nodefault}): already in the "
                "cluster, it never passed Kueue's Deployment webhook, so Kueue skips its pods (\"Skipping pod, not "
                "managed by Kueue\")")
    return f"it has no `kueue.x-k8s.io/queue-name` label (and {nodefault}): Kueue does not manage it"

