"""The pods a job's controller makes from its template where Kueue's webhook leaves the job alone (it names no
queue, or its integration is off): Kueue's pod integration takes each as a plain pod (`Pod.IsTopLevel`) where its
pod webhook gates it. A Deployment's replicas (apps.py), a batch Job's first pods (`job_pods`), a StatefulSet's
(`set_pods`); `route` says which of the two, the job or its pods, Kueue decides."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.identity import subject
from kadmit.manifests.codes import KAD199
from kadmit.manifests.fields import Fields, Invalid, Meta
from kadmit.manifests.jobs.common import QUEUE_LABEL, SUSPEND_FIELD, Builder, workload_name
from kadmit.manifests.jobs.groups import GROUP_NAME, join_group
from kadmit.manifests.jobs.pods import GROUP_TOTAL, pod_job
from kadmit.manifests.jobs.settings import GROUP_KEPT, MANAGED_PATH, POD_WEBHOOK_REFUSES, Integrations
from kadmit.manifests.resources import limit_ranger_errors, namespace_ranges
from kadmit.manifests.yamltree import Val
from kadmit.model import Job, Refusal
from kadmit.podresources import LimitRange, aggregate

JOB_CONTROLLER = "kubernetes.io/job-controller"  # spec.managedBy of a Job Kubernetes' own controller runs
JOBSET = "jobset.x-k8s.io/jobset"
LWS = "leaderworkerset.x-k8s.io/leaderworkerset"
DEFAULT_QUEUE = "default"


def job_pods(f: Fields, o: Meta, job: Job, spec: Val | None, template: Val, count: int) -> Job | None:
    """The pods Kubernetes' Job controller starts of a Job being submitted (`template_pods`): `count` of them
    (parallelism, lowered to completions: manageJob's wantActive). None where it starts none: the Job suspended by
    its own `spec.suspend`, or run by another controller (`spec.managedBy`)."""
    if f.bool(spec, "suspend", default=False) or (f.str(spec, "managedBy") or JOB_CONTROLLER) != JOB_CONTROLLER:
        return None
    return template_pods(f, o, job, template, count)


def set_pods(f: Fields, o: Meta, job: Job, spec: Val | None, template: Val, replicas: int) -> Job | None:
    """The pods Kubernetes' StatefulSet controller starts of a StatefulSet being submitted (`template_pods`): under
    `podManagementPolicy: OrderedReady` (its default) the first alone, as the controller waits for it to be Running
    and Ready before the next (processReplica), and a pod Kueue gates never is; under `Parallel`, every replica."""
    parallel = f.str(spec, "podManagementPolicy") == "Parallel"
    return template_pods(f, o, job, template, replicas if parallel else min(replicas, 1))


def template_pods(f: Fields, o: Meta, job: Job, template: Val, count: int,
                  more: tuple[tuple[Val, list[str]], ...] = (), names: list[str] | None = None) -> Job | None:
    """The pods a job's controller makes from its template, as Kueue's pod integration reads them (`route` decides
    whether Kueue's webhook for the job's kind leaves the job alone): `count` plain pods of the template's queue,
    each with its own Workload, or the members of the template's pod group (`kueue.x-k8s.io/pod-group-name`) with
    one. None where no pods are made, or none could be Kueue's without the job being so: a job already in the
    cluster (its pods are in the input, or not known), one another object controls (its owner's webhook walk is
    not modelled: `manage` gives it to its owner), or a Job that names a queue while its template names neither a
    queue nor a pod group (Kueue's Job webhook suspends it, or, its integration not enabled, the API server refuses
    it: `JOB_WEBHOOK_PANICS`). A StatefulSet naming a queue under a Configuration without `statefulset` gets its
    pods: that webhook is a no-op, and they take the LocalQueue `default` (`route`). `more`: the pods of other
    templates (each with its pods' names) that the group's members are joined by, as Kueue's pod group reconciler
    lists the group's pods by its label alone (a LeaderWorkerSet's left ungated: `lws._gated`); `names`: the members'
    names (else `<job>-<i>`)."""
    meta = f.map(template, "metadata")
    labels, _ = f.str_map(meta, "labels")
    if not job.submitted or job.owner is not None or count <= 0:
        return None
    if job.queue and job.framework == "batch/job" and not (labels.get(QUEUE_LABEL) or labels.get(GROUP_NAME)):
        return None
    pod = template_pod(f, o, template)
    if pod is None:
        return None
    if not pod.group or any(r.multi_layer is None for r in pod.refusals):
        return made_pods(pod, job, count)
    ref = job.object
    pod, update = _made(pod, job)
    members = [pod.model_copy(update={"object": pod.object.model_copy(update={"name": n})})
               for n in names or [f"{o.name}-{i}" for i in range(count)]]
    for other, names in more:
        if (alike := template_pod(f, o, other)) is None:
            return None
        members += [alike.model_copy(update={"object": alike.object.model_copy(update={"name": n})}) for n in names]
    joined, why = join_group(pod.group, members)
    if joined is None:
        return pod.model_copy(update={**update, "workloads": (), "note": why})
    return pod.model_copy(update={**update, "state": joined.state, "workloads": tuple(
        w.model_copy(update={"origin": ref}) for w in joined.workloads)})


def _made(pod: Job, job: Job) -> tuple[Job, dict]:
    """The pod read of `job`'s template (`template_pod`) as one its controller makes: its pod sets' origin, and
    the fields the made pods take of `job`."""
    origin = f"one pod of {job.object.kind} `{job.object.name}`, from its template"
    pod = pod.model_copy(update={"workloads": tuple(w.model_copy(update={"pod_sets": tuple(
        ps.model_copy(update={"origin": origin}) for ps in w.pod_sets)}) for w in pod.workloads)})
    return pod, {"object": job.object, "owner": None, "created": job.created, "generate_name": job.generate_name,
                 "group": None, "group_total": None, "span": job.span,
                 "refusals": _of_pods(pod.refusals)}  # (the slice layers annotation's: refused or not by the gate, `manage`)


def made_pods(pod: Job, job: Job, count: int) -> Job:
    """`count` plain pods its controller makes of `job`'s template, read as `pod` (`template_pod`, in no pod
    group), each with its own Workload (`template_pods`); none where Kueue's pod webhook refuses every pod of the
    template (`template_refusals`)."""
    ref = job.object
    pod, update = _made(pod, job)
    if any(r.multi_layer is None for r in pod.refusals):  # what Kueue's pod webhook refuses of every pod of the
        # template (`template_refusals`): none is made
        return pod.model_copy(update={**update, "workloads": (), "refusals": _of_pods(pod.refusals),
                                      "note": POD_WEBHOOK_REFUSES + "; ".join(r.message for r in pod.refusals)})
    one = pod.workloads[0] if pod.workloads else None
    return pod.model_copy(update={**update, "workloads": () if one is None else tuple(
        one.model_copy(update={"name": workload_name("Pod", "", f"{ref.name}-{i}", ref.uid), "origin": ref,
                               "part": f"pod {i}", "kueue_name": ""}) for i in range(count))})  # a pod to be made


def own_pods(b: Builder, job: Job) -> Job:
    """`job` with the pods its own controller makes of it (`Job.unsuspended`, `route` decides whether Kueue's
    webhook leaves it running), for a Kubeflow job, a Ray cluster, job or service, or an AppWrapper being submitted:
    one pod per count of each of its pod sets, of that pod set's template (the training operator's replicas, KubeRay's
    head and worker groups, the pods of an AppWrapper's components, whose objects name no queue), as Kueue's pod
    integration reads them (`template_pods`): each a plain pod's Workload where its
    template names a queue (oracle: the harness makes them of Kueue's own PodSets, internal/jobs/ownpods.go). None
    where the job suspends itself (its kind's `suspend`), another object controls it, a template is not read, its
    templates name different queues, or one names a pod group (a group across templates: not modelled)."""
    spec = b.f.map(b.o.node, "spec")
    at = b.f.map(spec, SUSPEND_FIELD[b.o.kind]) if b.o.kind in SUSPEND_FIELD else spec
    if not job.submitted or job.owner is not None or b.f.bool(at, "suspend", default=False) or not job.workloads:
        return job
    parts = []
    for ps in job.workloads[0].pod_sets:
        template = b.templates.get(ps.name)
        meta = b.f.map(template, "metadata") if template is not None else None
        if template is None or GROUP_NAME in b.f.str_map(meta, "labels")[0]:
            return job
        pods = template_pods(b.f, b.o, job, template, ps.count)
        if pods is None:
            return job
        parts.append((ps.name, pods))
    return with_own_pods(job, parts)


def with_own_pods(job: Job, parts: list[tuple[str, Job]]) -> Job:
    """`job` with the pods its own controller makes of it (`Job.unsuspended`): each pod set's (its name, its pods:
    `made_pods`), named `<job>-<pod set>-<i>` as the oracle's harness names them; `job` as it is where there are
    none, or its templates name different queues (`own_pods`, `trainjob.own_pods`)."""
    if not parts or len({p.queue for _, p in parts}) > 1:
        return job
    first = parts[0][1]
    name = job.object.name
    workloads = tuple(w.model_copy(update={"name": workload_name("Pod", "", f"{name}-{ps}-{i}", job.object.uid),
                                           "part": f"pod {i} of pod set {ps}"})
                      for ps, pods in parts for i, w in enumerate(pods.workloads))
    refusals = tuple(dict.fromkeys(r for _, pods in parts for r in pods.refusals))
    notes = [p.note for _, p in parts if p.note]
    return job.model_copy(update={"unsuspended": first.model_copy(update={
        "workloads": () if notes else workloads, "refusals": refusals, "note": notes[0] if notes else first.note})})


def template_refusals(f: Fields, o: Meta, template: Val) -> tuple[Refusal, ...]:
    """What Kueue's pod webhook refuses of every pod a controller makes from `template` (`Refusal.pods`): its
    ValidateCreate runs for every pod, whatever manages the pod's owner (the queue name, prebuilt-workload and
    max-exec-time labels, `ValidateJobOnCreate`; the pod group's metadata, the topology annotations:
    `validateCommon`). The owner is stored; its controller fails to create any pod (oracle:
    tests/oracle/features/deployment-*-pods-refused*.yaml). The queue name as the template holds it: where Kueue's
    Deployment webhook writes the Deployment's over it, `manage._refused` drops that refusal."""
    pod = template_pod(f, o, template)
    # (not the managed label's: whether a template's `false` reaches its pods depends on the owner's webhook — a
    # Deployment's writes `true` where it takes it, a StatefulSet's marks them suspended by it and leaves it — not
    # modelled)
    return () if pod is None else _of_pods(tuple(r for r in pod.refusals if not r.message.startswith(MANAGED_PATH)))


def group_refusals(b: Builder, template: Val) -> None:
    """What Kueue's pod webhook refuses of the pod group metadata of every pod made from a `GROUP_KEPT` kind's
    `template` (validatePodGroupMetadata: a group named without its total count, a total count without a group, a
    bad count), kept with the kind's refusals (`Refusal.pods`) for `refused_pods` to warn of."""
    meta = b.f.map(template, "metadata")
    if b.framework not in GROUP_KEPT or (GROUP_NAME not in b.f.str_map(meta, "labels")[0]
                                         and GROUP_TOTAL not in b.f.str_map(meta, "annotations")[0]):
        return  # (the pod's reading spared)
    b.refusals.extend(r for r in template_refusals(b.f, b.o, template) if GROUP_NAME in r.message
                      or GROUP_TOTAL in r.message)


def refused_pods(job: Job, s: Integrations, diags: Diagnostics | None) -> None:
    """KAD199 where Kueue's pod webhook refuses every pod of a job Kueue manages: a Job's (`job.unsuspended`, its
    template's pods as the pod integration reads them), a `GROUP_KEPT` kind's being submitted (its templates' `group_refusals`).
    The webhook's ValidateCreate runs for every pod, whatever manages its owner (`template_refusals`), e.g. a
    template naming a pod group (`kueue.x-k8s.io/pod-group-name`) without its `kueue.x-k8s.io/pod-group-total-count`
    (validatePodGroupMetadata). Kueue admits the job's Workload as any (oracle: tests/oracle/features/
    job-template-pod-group-without-total-count-pods-refused.yaml, templates-pod-group-without-total-count-pods-
    refused.yaml), which then holds its quota while the controller's every pod is refused."""
    pods = job.unsuspended if job.framework == "batch/job" else job if job.framework in GROUP_KEPT and \
        job.submitted else None  # (a job already in the cluster: its pods made, or not known)
    if diags is None or pods is None or not s.pod_webhook:
        return
    for r in pods.refusals:
        if r.pods and not r.message.startswith(MANAGED_PATH) and r.multi_layer in (None, s.multi_layer):
            diags.emit(KAD199, f"Kueue's pod webhook refuses every pod {job.object.kind} `{job.object.key}` makes: "
                       f"{r.message}: Kueue may admit it, but none of its pods is created, and its Workload holds "
                       "its quota", r.span or job.span,
                       help="change the pod template as the message says (a pod group's members name its total "
                            f"count too; {_whose(job)}",
                       about=(subject(job.object),))


def unmanaged_pod_refusals(job: Job, s: Integrations) -> list[Refusal]:
    """Where Kueue does not manage a job being submitted, a batch Job or a `GROUP_KEPT` kind, what its pod webhook
    refuses of every pod made of its template (its ValidateCreate runs for every pod: a pod group named without its
    total count, ...): the job runs as Kubernetes runs it, and its controller's every pod is refused (oracle: an
    unmanaged Job skipped, "Kueue's pod webhook refuses its pods: ...", tests/oracle/jobs/refusals.yaml), as a
    Deployment's (`manage._refused` says so, KAD170)."""
    pods = job.unsuspended if job.framework == "batch/job" else job if job.framework in GROUP_KEPT else None
    if not job.submitted or pods is None or not s.pod_webhook:
        return []
    return [r for r in pods.refusals
            if r.pods and not r.message.startswith(MANAGED_PATH) and r.multi_layer in (None, s.multi_layer)]


def _whose(job: Job) -> str:
    """Why the pods of `job` need no pod group: Kueue admits the job (a JobSet's child Jobs: each) as one."""
    kind = job.object.kind
    if job.framework == "batch/job" and kind != "Job":  # a JobSet's child Jobs (`jobset.child_jobs`)
        return f"the pods of a {kind}'s Jobs need no pod group: Kueue admits each Job as one)"
    return f"{'an' if kind[0] in 'AEIOU' else 'a'} {kind}'s pods need no pod group: Kueue admits the {kind} as one)"


def _of_pods(refusals: tuple[Refusal, ...]) -> tuple[Refusal, ...]:
    return tuple(r.model_copy(update={"pods": True, "managed_only": False}) for r in refusals)


def template_pod(f: Fields, o: Meta, template: Val) -> Job | None:
    """The pod integration's reading of a pod made from `template` (named `<o.name>-0`), quietly: the template is
    read, and reported on, as its owner's. None where it cannot be read, or where the pod is no pod Kueue's
    integration looks at (`pod_job`: naming no queue, group or gate, and bound to its node by the template's
    `nodeName`: node usage only)."""
    meta = f.map(template, "metadata")
    labels, _ = f.str_map(meta, "labels")
    annotations, _ = f.str_map(meta, "annotations")
    quiet = Fields(f.file, Diagnostics(), f.text)
    try:
        pod = pod_job(quiet, Meta("v1", "Pod", template, meta or template, f"{o.name}-0", o.namespace, labels,
                                  annotations))
    except Invalid:
        return None
    return pod


# Kueue v0.17.0's job.SetupWebhook ignores WithNoopWebhook: with `batch/job` not enabled, SetupControllers still
# registers the real Job webhook, built without the queue manager, and its Default (ApplyDefaultLocalQueue, first
# thing) calls DefaultLocalQueueExist on a nil queue manager: the oracle's tests/oracle/features/job-naming-a-queue-
# without-its-integration-is-refused.yaml
JOB_WEBHOOK_PANICS = (", and Kueue's Job webhook, which Kueue sets up for it even so but without its queue manager, "
                      "panics on every Job being created (`panic: runtime error: invalid memory address or nil "
                      "pointer dereference [recovered]`, in ApplyDefaultLocalQueue): the API server (the webhook's "
                      "failurePolicy is Fail) refuses the Job, so it never starts a pod")


def route(job: Job, s: Integrations, labels: dict[str, dict[str, str]], queues: set[str],
          limit_ranges: tuple[LimitRange, ...] = ()) -> Job:
    """`job`, or its pods (`Job.unsuspended`) where Kueue's webhook for its kind leaves it unsuspended: it suspends
    the job (WorkloadShouldBeSuspended, after ApplyDefaultLocalQueue) where its integration is enabled and it names
    a queue, its namespace has a LocalQueue `default`, or manageJobsWithoutQueueName is on with its namespace
    selected. A Deployment's pods are then decided as plain pods of its template's queue; a Job's, where Kueue's
    pod webhook gates them (its namespace selected by managedJobsNamespaceSelector; a queue name on the pods, the
    LocalQueue `default`, or manageJobsWithoutQueueName: FindAncestorJobManagedByKueue finds the Job not Kueue's).
    Pods it does not gate run as Kubernetes runs them, no work of Kueue's: the Job's own reason says why. Pods the
    API server's LimitRanger refuses are never created (`refused`). A LeaderWorkerSet's (`lws._pods`) whatever its
    integration (a disabled one's webhook is a no-op: its own queue name is then read by nothing), but where it is
    disabled and `statefulset` enabled while its namespace has a LocalQueue `default`, or manageJobsWithoutQueueName
    is on with its namespace selected: Kueue's StatefulSet webhook gives the leader StatefulSet, whose owner is no
    enabled integration's, that queue (ApplyDefaultLocalQueue) or takes it (WorkloadShouldBeSuspended), and its
    reconciler makes that StatefulSet's one Workload of the leaders (`lws._leader_set`), queued `default`, else of no
    queue, never admitted."""
    ns = job.object.namespace or "default"
    selected = s.namespace_selector.matches(labels.get(ns, {"kubernetes.io/metadata.name": ns}))
    default = f"{ns}/default" in queues
    if job.leader_set is not None and job.framework not in s.frameworks and "statefulset" in s.frameworks and (
            default or (s.manage_without_queue_name and selected)):
        return job.leader_set.model_copy(update={"queue": DEFAULT_QUEUE if default else None})
    if job.unsuspended is None or (job.framework == "batch/job" and job.framework not in s.frameworks):
        return job  # a Job: refused by the API server (JOB_WEBHOOK_PANICS)
    pods = job.unsuspended
    if job.framework in s.frameworks and (not job.submitted or job.queue or default or (
            s.manage_without_queue_name and selected)):
        # a Deployment being submitted naming no queue, its namespace no LocalQueue `default`, that
        # manageJobsWithoutQueueName takes: Kueue's Deployment webhook marks its template but copies no queue into
        # it (ApplyDefaultLocalQueue finds none), so its pods keep the template's queue, and Kueue's pod webhook
        # gates them as plain pods, or as its pod group's members (oracle: one admitted of two, or the group's one)
        if job.framework == "deployment" and job.submitted and not (job.queue or default) and pods.queue \
                and s.pod_webhook:  # marked: the pod integration `deployment` turns on takes them (`Pod.Skip`)
            return refused(pods, limit_ranges) or pods.model_copy(update={"parent_marked": True})
        return job  # (a Deployment already in the cluster Kueue manages: apps.deployment decides its pods)
    if job.framework == JOBSET:
        return _child_jobs(job, s, selected, default)
    if job.framework == LWS:  # lws._pods: leaders of no queue take `default` where there is one, else `unsuspended`
        if not pods.queue:
            pods = pods.model_copy(update={"unsuspended": None}) if default else pods.unsuspended
        return pods if pods is not None and s.pod_webhook and selected and (
            job.framework in s.frameworks or "statefulset" not in s.frameworks or
            not (default or s.manage_without_queue_name)) else job
    if not (s.pod_webhook and selected and bool(pods.queue or default or s.manage_without_queue_name)):
        return job
    return refused(pods, limit_ranges) or pods


def _child_jobs(job: Job, s: Integrations, selected: bool, default: bool) -> Job:
    """A running JobSet's child Jobs (`jobset.child_jobs`) that Kueue's Job integration takes: each whose queue is
    its template's (or, the JobSet's integration not enabled, its namespace's LocalQueue `default`: Kueue's Job
    webhook defaults it where the Job's owner is no enabled integration's, IsOwnerManagedByKueueForObject), in a
    namespace managedJobsNamespaceSelector takes (the Job reconciler reads it for every Job). The webhook suspends
    those (WorkloadShouldBeSuspended: FindAncestorJobManagedByKueue finds no managed ancestor, the JobSet naming
    no queue) and the reconciler makes each its Workload. The JobSet itself where none is: its own reason says
    why; with `batch/job` not enabled, Kueue's Job webhook refuses every child Job (`JOB_WEBHOOK_PANICS`).
    Under manageJobsWithoutQueueName (the JobSet's integration off: on, Kueue takes the JobSet itself) the webhook
    suspends the others too, each a Workload of no queue, never admitted: the Jobs so where none names a queue; where
    some do, those alone (the others not listed)."""
    if "batch/job" not in s.frameworks or not selected:
        return job
    jobs = job.unsuspended
    assert jobs is not None
    fallback = DEFAULT_QUEUE if default and job.framework not in s.frameworks else ""
    kept = tuple(w.model_copy(update={"queue": w.queue or fallback}) for w in jobs.workloads if (w.queue or fallback)
                 and (s.pod_webhook or not w.part.startswith("pod ")))  # (a Job's pods: `jobset._pod_workloads`)
    if kept:
        return jobs.model_copy(update={"workloads": kept, "queue": kept[0].queue})
    return jobs if s.manage_without_queue_name else job  # manage._not_managed: "never admitted"


def refused(pods: Job, limit_ranges: tuple[LimitRange, ...]) -> Job | None:
    """The template's pods with no Workload where the API server's LimitRanger refuses them (its namespace's
    LimitRanges, defaults filled in: `resources.limit_ranger_errors`, as for a Pod being submitted, KAD157): the
    job's controller fails to create each, so Kueue sees none, and the job is left with no pods. None where
    they are created."""
    ranges = namespace_ranges(limit_ranges).get(pods.object.namespace or "default")
    errors = next((e for w in pods.workloads[:1] for ps in w.pod_sets  # every pod of the template alike
                   if ranges and ps.resources is not None and (e := limit_ranger_errors(ps.resources, ranges))), None)
    if not errors:
        return None
    kind = pods.object.kind
    return pods.model_copy(update={"workloads": (), "note": (
        f"the API server refuses each pod its {kind} controller creates from its template (`pods \"…\" is "
        f"forbidden: {aggregate(errors)}`, its namespace's LimitRange), so Kueue never sees one and the {kind} "
        "is left with no pods")})
