"""What every integration shares: the object's identity, queue and priority labels, pod sets from
pod templates, suspension state, and the name Kueue gives the Workload (docs/INTEGRATIONS.md)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from kadmit import budget
from kadmit.diagnostics import KAD003
from kadmit.manifests.codes import KAD161
from kadmit.manifests.fields import Fields, Invalid, Meta
from kadmit.manifests.jobs.containerdefaults import defaulted
from kadmit.manifests.jobs.crd import RECONCILER_FAILED
from kadmit.manifests.jobs.shortnames import HASH_LENGTH
from kadmit.manifests.jobs.refusals import (MAX_EXEC_LABEL, TAS_UNCHECKED, go_atoi, group_refusals, job_refusals,
                                            topology_refusals)
from kadmit.manifests.kubenames import label_value_problem
from kadmit.manifests.layers import build_error
from kadmit.manifests.owners import controller_owner
from kadmit.manifests.podspec import KEPT
from kadmit.manifests.workloads import ADMISSION_GATED_BY, ELASTIC_JOB, duration_annotation, template_maps, template_pod_set, template_shape
from kadmit.manifests.yamltree import Val
from kadmit.model import HashOnly, Job, ObjectRef, PodSet, Refusal, Shapes, Workload
from kadmit.source import NO_SPANS

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
PREBUILT_LABEL = "kueue.x-k8s.io/prebuilt-workload-name"
MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
ADMISSION_GATE = "kueue.x-k8s.io/admission"  # the scheduling gate Kueue's pod webhook sets
STOPPING = "kueue.x-k8s.io/stopping"  # a batch Job Kueue is stopping: not suspended to its IsSuspended
# Where a kind keeps its `suspend` (its IsSuspended), other than `spec`: Kubeflow's and MPI's run policy, a
# RayService's cluster
SUSPEND_FIELD = {**{k: "runPolicy" for k in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "MPIJob")},
                 "RayService": "rayClusterConfig"}
DEFAULT_POD_SET = "main"
MAX_WORKLOAD_NAME = 253  # Kueue's long workload names (ShortWorkloadNames off, its default)
# The integration whose start merges nothing into its templates: an AppWrapper's RunWithPodSetsInfo hands the
# infos to its controller (SetPodSetInfos), refusing only a count that differs
NOT_MERGED = ("workload.codeflare.dev/appwrapper",)
MAX_OBJECT_WORKLOADS = 100_000  # Workloads one object may make (a Deployment's pods, a LeaderWorkerSet's groups)


def object_ref(o: Meta, f: Fields) -> ObjectRef:
    """The object's identity: a missing namespace is `default` (where `kubectl create` puts it);
    a missing name is the `generateName` prefix (the reader has checked one is there)."""
    uid = f.str(o.metadata, "uid") or None
    return ObjectRef(api_version=o.api_version, kind=o.kind, namespace=o.namespace or "default",
                     name=o.name, uid=uid, span=f.span(o.node),
                     spans=f.spans({"uid": f.field(o.metadata, "uid")}) if uid else NO_SPANS)


def job_uid(ref: ObjectRef) -> str:
    """The `kueue.x-k8s.io/job-uid` label Kueue's job reconciler gives the Workload it makes of a job
    (jobframework ConstructWorkload: the job's UID, where it is a label value), which a victim's Preempted
    message names: the input's `metadata.uid`, else none (Kueue's API server would give one)."""
    return ref.uid if ref.uid and label_value_problem(ref.uid) is None else ""


def workload_name(kind: str, group: str, name: str, uid: str | None) -> str:
    """Kueue's GetWorkloadNameForOwnerWithGVK: `<kind>-<name>` (lower-cased kind, truncated)
    and the first five hex digits of SHA-1 over kind, group, name and UID. Without the UID (an
    object not yet submitted) it hashes an empty one, a name no cluster gives: never said to be Kueue's
    (`Workload.kueue_name` "", `identity.kueue_key`), nor kept as the workload's key (`manage._own_names` takes
    the object's name, or kadmit's own key, `identity.own_name`)."""
    prefix = f"{kind.lower()}-{name}"[: MAX_WORKLOAD_NAME - 1 - HASH_LENGTH]
    digest = hashlib.sha1("\n".join((kind, group, name, uid or "")).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}-{digest[:HASH_LENGTH]}"


def annotation_node(f: Fields, o: Meta, key: str) -> Val | None:
    return f.field(f.map(o.metadata, "annotations"), key)


# Built-in kinds whose pod spec the API server validates (ValidatePodSpec), and the spec's field path;
# a custom resource's embedded template is checked against its schema only.
API_VALIDATED = {("", "Pod"): "spec", ("batch", "Job"): "spec.template.spec",
                 ("apps", "Deployment"): "spec.template.spec", ("apps", "StatefulSet"): "spec.template.spec"}
# Custom resources whose controller makes a built-in object of each pod template, which the API server validates
# first (`podspec.template_refusals`): a JobSet's Jobs, a LeaderWorkerSet's StatefulSets (leader and workers), a
# Trainer runtime's (through the JobSet a TrainJob makes of it). The others' controllers make Pods (a RayCluster,
# a PyTorchJob, an MPIJob's workers); some pod sets say their own (an MPIJob's launcher, a RayJob's submitter, an
# AppWrapper's component: `Builder.template`'s `made`).
# The topologyRequest index labels (podIndexLabel, subGroupIndexLabel, subGroupCount) each integration gives its pod
# sets with TopologyAwareScheduling on (jobframework.NewPodSetTopologyRequest(...).PodIndexLabel(...), in each job
# controller), which SchedulingEquivalenceHashing's hash takes (`PodSet.index`): the oracle's shapeJSON (`-v 5`)
# on tests/oracle/jobs. A JobSet's, a TrainJob's (its JobSet's) and a LeaderWorkerSet's say their own
# (`Builder.template`'s `index`); Ray's pod sets have none; an AppWrapper's are not known here (None: left out).
COMPLETION_INDEX, JOB_INDEX = "batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index"
_REPLICA_INDEX = ("training.kubeflow.org/replica-index", None, None)
INDEX_LABELS = {("batch", "Job"): (COMPLETION_INDEX, None, None),
                ("", "Pod"): ("kueue.x-k8s.io/pod-group-pod-index", None, None),
                ("apps", "Deployment"): ("kueue.x-k8s.io/pod-group-pod-index", None, None),
                ("apps", "StatefulSet"): ("apps.kubernetes.io/pod-index", None, None),
                **{("kubeflow.org", k): _REPLICA_INDEX for k in ("PyTorchJob", "TFJob", "PaddleJob", "XGBoostJob",
                                                                  "JAXJob", "MPIJob")},
                ("ray.io", "RayJob"): (), ("ray.io", "RayCluster"): ()}
MADE = {("jobset.x-k8s.io", "JobSet"): "Job", ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "StatefulSet",
        ("trainer.kubeflow.org", "TrainingRuntime"): "Job", ("trainer.kubeflow.org", "ClusterTrainingRuntime"): "Job"}


@dataclass
class Builder:
    """Collects an object's pod sets, then makes its `Job` record."""

    f: Fields
    o: Meta
    framework: str
    pod_sets: list[PodSet] = field(default_factory=list)
    priority_class_names: list[str] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)  # what Kueue's webhook refuses in the templates
    metadata: dict[str, Val | None] = field(default_factory=dict)  # pod set -> its template's metadata
    templates: dict[str, Val] = field(default_factory=dict)  # pod set -> its template

    def template(self, name: str, count: int, template: Val, at: Val, *, min_count: int | None = None,
                 origin: str | None = None, count_node: Val | None = None,
                 nodes: dict[str, Val | None] | None = None, pod: bool = False, made: str | None = None,
                 restart: str | None = KEPT, job_spec: Val | None = None,
                 job_words: tuple[str, ...] = (), index: tuple | None = None) -> PodSet:
        """A pod set from a pod template, as Kueue's integrations copy the template into it
        (`pod`: from a Pod object, whose containers the API server has defaulted; `made`: the kind of
        object a custom resource's controller makes of it, where not its kind's `MADE`; `restart`: how that
        object takes the template's restartPolicy, `podspec.KEPT`, `WRITTEN` or None; `job_spec`: the spec of
        the Job a JobSet makes of it, `job_words` what that spec is refused for; `index`: its topologyRequest's
        index labels where not its kind's `INDEX_LABELS`, () for none)."""
        spec = self.f.map(template, "spec")
        pc = self.f.str(spec, "priorityClassName")
        if pc:
            self.priority_class_names.append(pc)
        refused = topology_refusals(self.f, self.f.map(template, "metadata"), count)
        # a template Kueue's webhook refuses for its topology annotations: the refusal says why,
        # in Kueue's words (KAD170), and the pod set is read without them; one already in the cluster passed
        # no webhook, and Kueue's jobframework builds its request from them (`podsettopology._slices`)
        existing = bool(self.f.str(self.o.metadata, "uid")) or _set(self.f.field(self.o.node, "status"))
        ps = template_pod_set(self.f, name, count, min_count, template, at, origin=origin,
                              nodes={"count": count_node, **(nodes or {})},
                              topology=existing or not [r for r in refused if r.multi_layer is None],
                              webhook=not existing, pod=pod,
                              api=API_VALIDATED.get((self.o.group, self.o.kind)),
                              made=made or MADE.get((self.o.group, self.o.kind), "Pod"), restart=restart,
                              job_spec=job_spec, job_words=job_words)
        index = INDEX_LABELS.get((self.o.group, self.o.kind)) if index is None else index
        if index is not None:
            ps = ps.model_copy(update={"index": HashOnly(index)})
        self.pod_sets.append(ps)
        self.metadata[name] = self.f.map(template, "metadata")
        self.templates[name] = template
        self.refusals += refused if self.framework not in TAS_UNCHECKED else []
        if existing and (failed := build_error(self.f, self.f.map(self.f.map(template, "metadata"), "annotations"))):
            self.refusals.append(Refusal(message=RECONCILER_FAILED + failed, managed_only=False, multi_layer=True))
        return ps

    def check_groups(self, paths: dict[str, str]) -> None:
        """Kueue's webhook checks of the pod-set groups (`group_refusals`); `paths`: each pod set's
        template annotations, as a field path in the object."""
        for r in group_refusals(self.f, [(ps, self.metadata.get(ps.name), paths[ps.name])
                                         for ps in self.pod_sets if ps.name in paths]):
            if r not in self.refusals:  # each once, whatever shares a template
                self.refusals.append(r)

    def workload(self, ref: ObjectRef, pod_sets: list[PodSet], suffix: str = "") -> Workload:
        """The Workload Kueue makes of `pod_sets` (queue and creation time filled in later)."""
        name = workload_name(self.o.kind, self.o.group, ref.name + suffix, ref.uid)
        klass, kind = self.priority()
        return Workload(namespace=ref.namespace or "default", name=name, kueue_name=None if ref.uid else "",
                        queue="", priority_class=klass,
                        priority_class_kind=kind, pod_sets=tuple(pod_sets), origin=ref, job_uid=job_uid(ref),
                        max_exec=_max_exec(self.o), shapes=(_max_exec(self.o), tuple(self._shape(ref, ps) for ps in pod_sets)),
                        **duration_annotation(self.f, self.o),
                        # the reconciler's prepareWorkload copies it with the AdmissionGatedBy gate on (`effective.gated`)
                        admission_gated_by=self.o.annotations.get(ADMISSION_GATED_BY, ""),
                        elastic=self._generation() if self.o.annotations.get(ELASTIC_JOB) == "true" else None,
                        span=self.f.span(self.o.node),
                        spans=self.f.spans({"name": self.o.metadata.v.get("name") or self.o.metadata.v.get("generateName"),
                                            "namespace": self.o.metadata.v.get("namespace"),
                                            "queue": label_node(self.f, self.o, QUEUE_LABEL),
                                            "priority_class": label_node(self.f, self.o, PRIORITY_LABEL),
                                            "created": self.f.field(self.o.metadata, "creationTimestamp")}))

    def _generation(self) -> int:
        """The job's metadata.generation (0 where unset, as the oracle's client leaves it): an elastic job's
        Workloads are named with it (jobframework newWorkloadName, `slices.slice_name`)."""
        g = self.o.metadata.v.get("generation") if self.o.metadata is not None else None
        return g.v if g is not None and isinstance(g.v, int) and not isinstance(g.v, bool) else 0

    def _shape(self, ref: ObjectRef, ps: PodSet) -> tuple:
        """The pod set's `template_shape`; a built-in kind's being submitted with its containers as the API server
        defaults them on create (`containerdefaults`), which a Workload's are not."""
        shape = template_shape(self.f, ps.count, ps.min_count, self.templates.get(ps.name))
        if (self.o.group, self.o.kind) not in API_VALIDATED or ref.uid or _set(self.f.field(self.o.node, "status")):
            return shape
        return (shape[0], shape[1], defaulted(shape[2]), shape[3])

    def priority(self) -> tuple[str | None, str | None]:
        """Kueue's ExtractPriority: the `kueue.x-k8s.io/priority-class` label names a
        WorkloadPriorityClass; else the first pod template's `priorityClassName` a PriorityClass."""
        label = self.o.labels.get(PRIORITY_LABEL)
        if label:
            return label, "workload"
        if self.priority_class_names:
            return self.priority_class_names[0], "pod"
        return None, None

    def job(self, *, state: str = "pending", workloads: list[Workload] | None = None,
            note: str | None = None) -> Job:
        ref = object_ref(self.o, self.f)
        templates = None
        if workloads is None:
            workloads = [self.workload(ref, self.pod_sets)]
            if self.framework not in NOT_MERGED:  # its RunWithPodSetsInfo merges pod set i's info into template i
                templates = Shapes((i, *template_maps(self.f, self.templates.get(ps.name)))
                                   for i, ps in enumerate(self.pod_sets))
        deleting = self.f.field(self.o.metadata, "deletionTimestamp")
        if _set(deleting) and self.framework in ("statefulset", "deployment"):
            # a StatefulSet's or Deployment's pods come from their own controllers, which make none for
            # one being deleted (garbage collection removes those there are): not modelled
            self.f.diags.emit(KAD161, f"{self.o.kind} `{ref.key}` is being deleted (`metadata.deletionTimestamp`), "
                              "which kadmit does not model: it is read as if it were not (its controller makes "
                              "no pods for it, so Kueue would make no new Workload of it)", self.f.span(deleting))
        return Job(object=ref, framework=self.framework, queue=self.o.labels.get(QUEUE_LABEL) or None,
                   priority_class_label=bool(self.o.labels.get(PRIORITY_LABEL)),
                   created=self.f.timestamp(self.o.metadata, "creationTimestamp"), state=state,  # type: ignore[arg-type]
                   owner=controller_owner(self.f, self.o), workloads=tuple(workloads), note=note,
                   generate_name=not self.f.str(self.o.metadata, "name"), generation=self._generation(),
                   refusals=job_refusals(self.f, self.o, self.framework) + tuple(self.refusals),
                   submitted=not ref.uid and not _set(self.f.field(self.o.node, "status")),
                   deleting=_set(self.f.field(self.o.metadata, "deletionTimestamp")),
                   prebuilt=self.o.labels.get(PREBUILT_LABEL), suspended=self._suspended(ref), templates=templates,
                   span=self.f.span(self.o.node))

    def _suspended(self, ref: ObjectRef) -> bool:
        """Kueue's IsSuspended: the suspend field of the kind true (a batch Job's unless Kueue is stopping it:
        `kueue.x-k8s.io/stopping: "true"`), or the object being submitted (Kueue's webhook suspends it)."""
        if not ref.uid and not _set(self.f.field(self.o.node, "status")):
            return True
        spec = self.f.map(self.o.node, "spec")
        if (self.o.group, self.o.kind) == ("", "Pod"):  # podSuspended: terminated, or gated by Kueue
            return self.f.str(self.f.map(self.o.node, "status"), "phase") in ("Succeeded", "Failed") or \
                any(self.f.str(g, "name") == ADMISSION_GATE for g in self.f.maps(spec, "schedulingGates"))
        at = self.f.map(spec, SUSPEND_FIELD.get(self.o.kind, "")) if self.o.kind in SUSPEND_FIELD else spec
        suspended = self.f.field(at, "suspend")
        if suspended is None or suspended.v is not True:
            return False
        return not (self.o.group == "batch" and self.o.annotations.get(STOPPING) == "true")


def _max_exec(o: Meta) -> int | None:
    """The `kueue.x-k8s.io/max-exec-time-seconds` label's value (jobframework MaximumExecutionTimeSeconds:
    None unless a positive integer; the webhook refuses the rest)."""
    value, _ = go_atoi(o.labels.get(MAX_EXEC_LABEL, ""))
    return value if value is not None and value > 0 else None


def _set(v: Val | None) -> bool:
    """Whether a value holds anything (the oracle's `isEmpty`, negated: an empty or all-empty
    mapping or list is not set)."""
    if v is None or v.v is None:
        return False
    if isinstance(v.v, dict):
        return any(_set(x) for x in v.v.values())
    if isinstance(v.v, (list, str, bool, int, float)):
        return bool(v.v)
    return True


def label_node(f: Fields, o: Meta, key: str) -> Val | None:
    return f.field(f.map(o.metadata, "labels"), key)


def condition_true(f: Fields, status: Val | None, *types: str) -> bool:
    for cond in f.maps(status, "conditions"):
        if f.str(cond, "type") in types and f.str(cond, "status") == "True":
            return True
    return False


def run_state(started: bool, finished: bool) -> str:
    """`finished` once a terminal condition is set (Kueue's `Finished`); `running` when the status
    shows it active (Kueue's `IsActive`), suspended or not: without its Workload Kueue makes none
    while it is active (`handleJobWithNoWorkload` reads no suspension: a suspended job whose pods
    are still ending waits too); else `pending` (a suspended job, or one not yet submitted, which
    Kueue's webhook suspends on creation)."""
    if finished:
        return "finished"
    if started:
        return "running"
    return "pending"


def reclaimed(job: Job, reclaimable: dict[str, int]) -> Job:
    """The job's Workloads with each pod set less the pods its integration's ReclaimablePods
    reports (Kueue's reconciler writes them to `status.reclaimablePods` once it has made the
    Workload; its scheduler counts the pod set without them, `podSetsCountsAfterReclaim`), and them as
    `Job.reclaimable`, for a Workload the job already has (`manifests.reclaim.reclaim_applied`)."""
    if not any(reclaimable.values()):
        return job
    wls = []
    for wl in job.workloads:
        sets = []
        for ps in wl.pod_sets:
            n = reclaimable.get(ps.name, 0)
            if n:
                count = max(0, ps.count - n)
                min_count = ps.min_count if ps.min_count is None or ps.min_count <= count else (count or None)
                shown = f"{count} of its {ps.count} pods: {n} reclaimable (finished)"
                ps = ps.model_copy(update={"count": count, "min_count": min_count,
                                           "origin": f"{ps.origin}; {shown}" if ps.origin else shown})
            sets.append(ps)
        wls.append(wl.model_copy(update={"pod_sets": tuple(sets)}))
    return job.model_copy(update={"workloads": tuple(wls),
                                  "reclaimable": tuple((k, n) for k, n in reclaimable.items() if n)})


def replicas_read(f: Fields, spec: Val | None, replicas: int, what: str) -> int:
    """`replicas` when one object's Workloads stay within MAX_OBJECT_WORKLOADS; above it the object is
    refused (KAD003 at the field), not expanded into millions of Workloads (`replicas` up to 2^31 - 1 is
    valid Kubernetes)."""
    if replicas > MAX_OBJECT_WORKLOADS:
        raise f.fail(KAD003, f"`replicas` is {replicas:,}: {what} would be {replicas:,} Workloads; kadmit reads "
                             f"at most {MAX_OBJECT_WORKLOADS:,} from one object", f.field(spec, "replicas"))
    return replicas


def replicas_made(f: Fields, spec: Val | None, replicas: int) -> None:
    """Count an object's `replicas` Workloads against the inputs' total (`budget`; the object counted as
    one already, by `manifests.reader`): past it the object is dropped, reported once by the load with
    every other object it refused."""
    b = budget.current()
    if replicas > 1 and b is not None and not b.take_workloads(replicas - 1, lambda: f.span(f.field(spec, "replicas"))):
        raise Invalid("past the Workloads the inputs may make together")
