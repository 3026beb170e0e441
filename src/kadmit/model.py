"""The typed model: every policy and cluster-state object, immutable, each with its source span.

Both front ends (the `.kad` language and Kueue/Kubernetes manifests) produce these objects;
every later stage reads only them. Quantities are integers of milli-units (see `quantity`).
`span` locates the whole statement or manifest object; `spans` locates individual fields, keyed by
field name or a dotted path (e.g. `requests.nvidia.com/gpu`). Neither takes part in equality.
"""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

from datetime import datetime, timezone
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from kadmit import featuregates
from kadmit.modelbase import HashOnly, Obj, Shapes
from kadmit.modelscheduling import (LabelSelector, NodeSelectorTerm, Requirement, Taint, TaintEffect,  # noqa: F401
                                    Toleration)
from kadmit.podresources import ContainerResources, LimitRange, PodResources, RuntimeClass  # noqa: F401
from kadmit.modeldra import ClaimTemplate, DeviceClass  # noqa: F401
from kadmit.modelrules import Binary, Expr, InSet, Literal_, Quantifier, Ref, Rule, Unary  # noqa: F401
from kadmit.modelchecks import (AdmissionCheck, CheckConfig, CheckParameters, CheckRule, CheckState,  # noqa: F401
                                RetryStrategy)
from kadmit.modelconfig import (FAIR_SHARING_STRATEGIES, AdmissionFairSharing, DeviceClassMapping,  # noqa: F401
                                ResourceTransformation, SchedulerConfig)


Quantities = dict[str, int]  # resource name -> milli-units


# --- scheduling vocabulary shared with Kubernetes (kadmit.modelscheduling) ---------------------
# and a pod's resources as Kueue counts them (kadmit.podresources)

# --- policy ---------------------------------------------------------------------------------

class Topology(Obj):
    name: str
    levels: tuple[str, ...]  # node-label keys, outermost first (block -> rack -> host)


class ResourceFlavor(Obj):
    name: str
    node_labels: dict[str, str] = {}
    node_taints: tuple[Taint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()  # added to admitted pods, as in Kueue
    topology: str | None = None
    written_tolerations: Shapes | None = None  # `spec.tolerations` as written, for a prebuilt Workload's check (`manifests.jobs.prebuilt`)


class ResourceQuota(Obj):
    """Quota of one resource in one flavor. Limits are `None` when unset (unlimited)."""

    resource: str
    nominal: int
    borrowing_limit: int | None = None
    lending_limit: int | None = None


class FlavorQuotas(Obj):
    flavor: str
    resources: tuple[ResourceQuota, ...]


class ResourceGroup(Obj):
    """Resources that share one flavor choice per pod set, with flavors in preference order."""

    covered_resources: tuple[str, ...]
    flavors: tuple[FlavorQuotas, ...]


class FairSharing(Obj):
    weight: int = 1000  # milli-units; Kueue's default weight is 1


class Cohort(Obj):
    name: str
    parent: str | None = None
    resource_groups: tuple[ResourceGroup, ...] = ()  # the cohort's own quota
    fair_sharing: FairSharing | None = None
    explicit: bool = True  # False for cohorts only named by a queue or a child


class BorrowWithinCohort(Obj):
    policy: Literal["Never", "LowerPriority"] = "Never"
    max_priority_threshold: int | None = None


class Preemption(Obj):
    within_cluster_queue: Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"] = "Never"
    reclaim_within_cohort: Literal["Never", "LowerPriority", "Any"] = "Never"
    borrow_within_cohort: BorrowWithinCohort | None = None


class FlavorFungibility(Obj):
    """Whether to stop at a flavor that needs borrowing or preemption, or try the next one.

    `when_can_borrow`: "Borrow" (v1beta1) / "MayStopSearch" (v1beta2) stop; "TryNextFlavor" goes on.
    `when_can_preempt`: "Preempt" / "MayStopSearch" stop; "TryNextFlavor" (default) goes on.
    """

    when_can_borrow: Literal["Borrow", "TryNextFlavor"] = "Borrow"
    when_can_preempt: Literal["Preempt", "TryNextFlavor"] = "TryNextFlavor"
    # BorrowingOverPreemption ranks the preemption mode first, PreemptionOverBorrowing borrowing
    preference: Literal["BorrowingOverPreemption", "PreemptionOverBorrowing"] = "BorrowingOverPreemption"


class ClusterQueue(Obj):
    name: str
    cohort: str | None = None
    namespace_selector: LabelSelector | None = None  # None matches no namespace, {} matches all
    resource_groups: tuple[ResourceGroup, ...] = ()
    queueing_strategy: Literal["StrictFIFO", "BestEffortFIFO"] = "BestEffortFIFO"
    preemption: Preemption = Preemption()
    flavor_fungibility: FlavorFungibility = FlavorFungibility()
    stop_policy: Literal["None", "Hold", "HoldAndDrain"] = "None"
    # metadata.deletionTimestamp set (a finalizer holds it): Kueue's cache marks it terminating, and
    # it is inactive as under stopPolicy Hold (its admitted workloads keep their quota)
    terminating: bool = False
    fair_sharing: FairSharing | None = None
    # admissionScope.admissionMode: UsageBasedAdmissionFairSharing (with the Configuration's
    # admissionFairSharing: workloads ordered by their LocalQueue's usage, engine.afs)
    admission_fair_sharing: bool = False
    # the admission checks its workloads must pass before Kueue admits them (kadmit.modelchecks)
    admission_checks: tuple[CheckRule, ...] = ()


class LocalQueue(Obj):
    namespace: str
    name: str
    cluster_queue: str
    stop_policy: Literal["None", "Hold", "HoldAndDrain"] = "None"  # HoldAndDrain also evicts admitted ones
    fair_sharing: FairSharing | None = None  # its weight in admission fair sharing (default 1)
    # status.fairSharing.admissionFairSharingStatus.consumedResources (milli-units), None without it
    # (its lastUpdate only times the LocalQueue controller's decay, which a run doesn't reach)
    afs_consumed: dict[str, int] | None = None
    # metadata.deletionTimestamp set (a finalizer holds it): Kueue's queue manager keeps it and its pending
    # workloads are admitted as before; a reservation of its waiting for admission checks is taken back and
    # given again, over and over (`effective.drained`, `engine.admission.checks.TAKEN_BACK`)
    deleting: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class PriorityClass(Obj):
    """A WorkloadPriorityClass (`kind="workload"`) or scheduling PriorityClass (`kind="pod"`)."""

    name: str
    value: int
    kind: Literal["workload", "pod"] = "workload"
    global_default: bool = False


class Namespace(Obj):
    name: str
    labels: dict[str, str] = {}

    def effective_labels(self) -> dict[str, str]:
        """Labels as the API server keeps them: `kubernetes.io/metadata.name` is always the name,
        whatever value the manifest gave (the namespace strategy's Canonicalize sets it)."""
        return {**self.labels, "kubernetes.io/metadata.name": self.name}


# --- cluster state ----------------------------------------------------------------------------

class Node(Obj):
    name: str
    labels: dict[str, str] = {}
    taints: tuple[Taint, ...] = ()
    allocatable: Quantities = {}
    unschedulable: bool = False
    ready: bool = True


class Pod(Obj):
    """A pod bound to a node; it holds the node's capacity while not terminal."""

    namespace: str
    name: str
    node_name: str | None = None
    requests: Quantities = {}  # effective requests, as the scheduler counts them
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] = "Running"
    priority: int = 0
    labels: dict[str, str] = {}  # metadata.labels
    # `kueue.x-k8s.io/podset-*-topology`: a TAS workload's pod to Kueue v0.17 (`IsTAS`; v0.19: docs/KUEUE-SETTINGS.md)
    tas_annotation: str | None = None
    gang: str | None = None  # the `Gang.key` of the scheduler pod group it belongs to
    node_selector: dict[str, str] = {}
    tolerations: tuple[Toleration, ...] = ()
    submitted: PodResources | None = None  # being submitted (no uid/status): its resources, the LimitRanger's to check

    @property
    def holds_capacity(self) -> bool:
        return self.node_name is not None and self.phase not in ("Succeeded", "Failed")

    @property
    def pending(self) -> bool:
        """Not bound to a node yet, and not finished: kube-scheduler still has to place it."""
        return self.node_name is None and self.phase not in ("Succeeded", "Failed")


class Gang(Obj):
    """A pod group kube-scheduler places all-or-nothing (not admitted by Kueue): Kubernetes' own
    gang scheduling (a `scheduling.k8s.io/v1alpha1` Workload's pod group) or the scheduler-plugins
    coscheduling PodGroup. Its pods name it by `key` (`Pod.gang`)."""

    key: str
    namespace: str
    name: str  # as users name it: the coscheduling PodGroup, or `workload/pod group`
    api_version: str
    kind: str
    min_count: int
    policy: Literal["gang", "basic"] = "gang"  # basic: no gang, its pods are scheduled one by one


class TopologyRequest(Obj):
    mode: Literal["required", "preferred", "unconstrained"]
    level: str | None = None  # a level name (e.g. `rack`) or node-label key; None if unconstrained
    slice_level: str | None = None  # pod-set slices: each `slice_size` pods within one domain of this level
    slice_size: int | None = None
    # slice layers (level, size), outermost first, the first also `slice_level`/`slice_size` (`manifests.layers`,
    # `placement.layers`); `layers_annotation`: a job's annotation's, which the gate off drops (`effective.gated`)
    layers: tuple[tuple[str, int], ...] = ()
    layers_annotation: Literal["", "mode", "alone"] = ""
    plain_slices: tuple[str, int] | None = None  # a stored job's slice annotations beside the layers one: the gate off's
    # Kueue's podSetGroupName: the pod sets of one group get one flavor, chosen on their summed
    # requests, and topology-aware scheduling places them together (a leader and its workers)
    group: str | None = None


class PodSet(Obj):
    """A pod group: `count` interchangeable pods, admitted all together (or down to `min_count`).
    `origin` says where in the submitted object its pods come from (a replicated job, a role, a
    group), for explanations; None for pod sets written as such."""

    name: str
    origin: str | None = None
    count: int = 1
    min_count: int | None = None
    requests: Quantities = {}  # per pod, as quota counts them (`kadmit.effective`: after Kueue's `resources`, DRA)
    # per pod as the pod spec asks: what kube-scheduler and Kueue's topology-aware scheduling place by
    # (`resources.NewRequestsFromPodSpec`); None: `requests` (the front ends' own, before `effective`)
    pod_requests: Quantities | None = None
    node_selector: dict[str, str] = {}
    node_affinity: tuple[NodeSelectorTerm, ...] = ()  # required terms, ORed
    tolerations: tuple[Toleration, ...] = ()
    topology: TopologyRequest | None = None
    # a Workload's own `topologyRequest.podSetGroupName`, which Kueue's flavor assigner reads from the stored spec
    # whatever the TopologyAwareScheduling gate (`effective.gated` drops `topology` with the gate off, not this)
    stored_group: str | None = None
    claim_templates: tuple[str, ...] = ()  # DRA: ResourceClaimTemplates the pods' resourceClaims name
    claims: tuple[str, ...] = ()  # DRA: ResourceClaims the pods' resourceClaims name directly
    # Kueue's topologyRequest podIndexLabel, subGroupIndexLabel and subGroupCount, as the job's integration sets
    # them (TopologyAwareScheduling on) or a Workload writes them; None where kadmit does not know them. Only
    # SchedulingEquivalenceHashing's key reads them (engine.admission.equivalence)
    index: HashOnly | None = None
    resources: PodResources | None = None  # its containers' own, which Kueue adjusts (`manifests.resources`)
    # the API server's words refusing each object made from a template nothing validated (a custom resource's),
    # and that object's kind (a Pod; a JobSet's Job, a LeaderWorkerSet's StatefulSet): KAD199
    pod_refusals: tuple[str, ...] = ()
    refused_object: str = ""
    _outside: ClassVar[frozenset[str]] = frozenset({"span", "spans", "resources", "pod_refusals",  # `requests` holds
                                                    "refused_object"})  # what it asks

    @property
    def flavor_group(self) -> str | None:
        """The pod-set group Kueue's flavor assigner takes this pod set in (podSetGroupName: one flavor for the
        group's summed requests, flavorassigner.go groupedRequests): its topology request's, else its Workload's own."""
        return (self.topology.group if self.topology is not None else None) or self.stored_group

    @property
    def placed_requests(self) -> Quantities:
        """One pod's requests as nodes see them (placement's), whatever quota counts."""
        return self.requests if self.pod_requests is None else self.pod_requests


class PodSetAssignment(Obj):
    name: str
    flavors: dict[str, str] = {}  # resource -> flavor
    count: int
    usage: Quantities = {}  # total over the pod set; empty means count x requests
    # Kueue's topology assignment, where known: pods per domain, keyed as Kueue's TAS cache keys
    # usage (the domain's values joined with commas: a hostname, or e.g. `b0,r1`), and its levels
    # (empty: the hostname alone; `.kad` names nodes by name there)
    placement: dict[str, int] = {}
    placement_levels: tuple[str, ...] = ()
    # a Kueue admission that records no resourceUsage: Kueue books nothing for it (no quota; on
    # nodes only its pods' count), whatever the pod set requests (KAD169)
    unrecorded: bool = False
    # `delayedTopologyRequest: Pending` with no topology assignment: Kueue delayed its placement for
    # an admission check, and its second pass places it once every check is Ready
    delayed: bool = False
    # reclaimable pods took some off `count` (`manifests.reclaim.booked`): one pod's recorded usage (the
    # usage over the recorded count), which Kueue's TAS cache still counts on every pod the topology
    # assignment places (totalRequestsFromAdmission keeps its DomainRequests' counts)
    tas_pod: Quantities | None = None


class Admission(Obj):
    cluster_queue: str
    pod_sets: tuple[PodSetAssignment, ...] = ()
    # When quota was reserved (the QuotaReserved condition's lastTransitionTime). Kueue orders
    # preemption candidates "most recently admitted first" by it, and takes "now" when unknown.
    admitted_at: datetime | None = None


class ObjectRef(Obj):
    """A Kubernetes object's identity; `uid` only for objects exported from a cluster."""

    api_version: str
    kind: str
    namespace: str | None = None
    name: str
    uid: str | None = None

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace is not None else self.name

    @property
    def qualified(self) -> str:
        """`Kind/namespace/name`: unique where two kinds share a name."""
        return f"{self.kind}/{self.key}"


SKIPPED_NAMED = 100  # objects of one unread kind listed by name per file; the next's entry counts the rest


class Skipped(Obj):
    """An object of the input that is neither policy nor work kadmit decides, and why."""

    object: ObjectRef
    reason: str
    more: int = 0  # objects of its kind after it in its file, not read for the same reason: counted, not listed


class UnreadKind(Obj):
    """A kind kadmit does not read, as one file holds it (`span`: its first object): KAD159's words, said once the
    Configuration is known, for a kind its `integrations.externalFrameworks` does not list (`manifests.jobs.external`)."""

    api_version: str
    kind: str
    message: str
    help: str | None = None


class Workload(Obj):
    namespace: str
    name: str
    queue: str  # the LocalQueue name, in the workload's namespace ("" for one holding quota without a queue name)
    priority_class: str | None = None
    priority_class_kind: Literal["workload", "pod"] | None = None
    priority: int | None = None  # an explicit value overrides the class
    created: datetime = datetime(1970, 1, 1, tzinfo=timezone.utc)
    pod_sets: tuple[PodSet, ...] = ()
    admission: Admission | None = None  # set for admitted workloads: their usage counts
    finished: bool = False
    # why kadmit's reading of the input finishes it, as Kueue's Finished condition says (`FailedToStart: …`)
    finished_reason: str = ""
    # the error Kueue's job reconciler fails to start it with once admitted (`jobs.start.warn_unstartable`): it then
    # finishes it (FailedToStart), which `admit` says of the decision (`finished`)
    start_fails: str = ""
    active: bool = True  # spec.active; an inactive workload is never admitted
    evicted: bool = False  # an `Evicted` condition with status True: Kueue prefers such victims
    inadmissible: str = ""  # why Kueue marks it inadmissible before any queue sees it (DRA), "" if not
    requeued_false: str = ""  # the reason of a `Requeued` condition whose status is False, "" if none
    # Kueue's ClusterQueue keeps it among its inadmissible workloads, never in its heap (`effective.held`:
    # a requeueAt to come, a False Requeued condition never set True again): it blocks no StrictFIFO head
    held: bool = False
    # a held workload whose backoff ends during the run: the seconds from the run's start to its requeueAt, when
    # Kueue's workload controller (its RequeueAfter) sets its Requeued condition True and queues it (`effective.held`)
    backoff_ends: int = 0
    # spec.maximumExecutionTimeSeconds (a job's `kueue.x-k8s.io/max-exec-time-seconds` label), the Admitted condition's
    # lastTransitionTime when True, and status.accumulatedPastExecutionTimeSeconds: Kueue's workload controller
    # deactivates an Admitted workload once it has run that long (reconcileMaxExecutionTime; `effective.expired`)
    max_exec: int | None = None
    admitted_since: datetime | None = None
    past_exec: int = 0
    # a holder whose maximum execution time runs out during the run: the seconds from the run's start until then
    exec_ends: int = 0
    # a holder a Retry check keeps until its retry time, during the run: the seconds from the run's start until then,
    # when Kueue's workload controller evicts it (`effective.checked`, controller_timers)
    retry_ends: int = 0
    # an `Evicted` condition (status True) whose reason Kueue may queue the workload by (AdmissionCheck,
    # PodsReadyTimeout: GetQueueOrderTimestamp), and its lastTransitionTime; "" and None otherwise
    evicted_reason: str = ""
    evicted_at: datetime | None = None
    # a True `Preempted` condition of reason InCohortReclaimWhileBorrowing: its time (`effective.ordered_by_eviction`)
    reclaimed_while_borrowing_at: datetime | None = None
    requeue_at: datetime | None = None  # `status.requeueState.requeueAt`: Kueue queues it from then on
    uid: str = ""  # metadata.uid, where the input has it (preemption messages name it)
    priority_boost: str | None = None  # `kueue.x-k8s.io/priority-boost` as written: with the PriorityBoost gate (`index.priority`)
    preemption_gated: bool = False  # a `spec.preemptionGates` gate not Open in its status (`requeue.preemption_gated`)
    admission_gated_by: str = ""  # `kueue.x-k8s.io/admission-gated-by` (its job's): with the AdmissionGatedBy gate (`effective.gated`)
    job_uid: str = ""  # the `kueue.x-k8s.io/job-uid` label: the UID of the job it was made from
    duration_ms: int | None = None  # how long it runs once admitted (`kadmit.dev/duration`); `simulate` reads it
    origin: ObjectRef | None = None  # the job it stands for (its controlling owner), if any
    part: str | None = None  # which of its object's workloads this is (a LeaderWorkerSet's group)
    kueue_name: str | None = None  # Kueue's name for it, where `name` is its job's own; "": not known (no UID)
    check_states: tuple[CheckState, ...] = ()  # `status.admissionChecks`: each check's state
    admitted_condition: bool = False  # an `Admitted` condition with status True (quota reserved and every check Ready when Kueue set it)
    # being deleted (`metadata.deletionTimestamp`) with a controlling owner and no finalizer but Kueue's: the
    # owner's job reconciler suspends the job and drops the finalizer, so the Workload goes (`manage.apply_jobs`)
    deleting: bool = False
    # One holding quota, as Kueue queues it again once it gives its quota back (the workload
    # controller adjusts every workload it queues: AdjustResources, LimitRange defaults and RuntimeClass
    # overhead; `manifests.resources`): its pod sets and why the scheduler finds it inadmissible. None:
    # as it is (`effective.checked` and `effective.drained` send such workloads back to pending).
    requeue_pod_sets: tuple[PodSet, ...] | None = None
    requeue_inadmissible: str = ""
    shapes: Shapes | None = None  # what Kueue compares of a prebuilt Workload and its job (`modelbase.Shapes`)
    # ElasticJobsViaWorkloadSlices (`manifests.jobs.slices`): its job's `kueue.x-k8s.io/elastic-job: "true"` as the job's
    # metadata.generation (a slice's name hashes it), None if not elastic; the slice it replaces (`…/workload-slice-replacement-for`)
    elastic: int | None = None
    replaces: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def spec_min_counts(self) -> tuple[int | None, ...]:
        """Each pod set's minCount as its spec writes it (`shapes`: before reclaimable pods lower it), else the model's."""
        shapes = self.shapes[1] if self.shapes is not None and len(self.shapes) >= 2 else ()
        return tuple(s[1] for s in shapes) if len(shapes) == len(self.pod_sets) else \
            tuple(ps.min_count for ps in self.pod_sets)

    @property
    def admitted(self) -> bool:
        return self.admission is not None and not self.finished


# --- rules (kadmit.modelrules) ----------------------------------------------------------------


# --- scheduler configuration (kadmit.modelconfig) ---------------------------------------------


# --- submitted jobs --------------------------------------------------------------------------------

class Refusal(Obj):
    """Kueue's webhook refuses the job on create: its message (field path, value and reason, as
    Kueue words them). `managed_only`: the webhook checks it only for a job Kueue manages (a queue
    name, its namespace's `default` LocalQueue, or `manageJobsWithoutQueueName`)."""

    message: str
    managed_only: bool = True
    # Kueue's pod webhook refuses the pods the job's controller makes from its template, not the job: its
    # ValidateCreate runs for every pod, whatever manages the job, which is stored and makes none (`templatepods`)
    pods: bool = False
    multi_layer: bool | None = None  # applies only where TASMultiLayerTopology is this value (None: either)


class Job(Obj):
    """A job as submitted; `manifests.jobs.manage` makes its `workloads` (queue, creation unset) work or `Skipped`."""

    object: ObjectRef
    framework: str  # Kueue's integration name, as `integrations.frameworks` lists it
    queue: str | None = None
    priority_class_label: bool = False  # `kueue.x-k8s.io/priority-class` was set
    created: datetime | None = None
    state: Literal["pending", "running", "finished"] = "pending"
    owner: ObjectRef | None = None  # the controlling owner, when another object made this one
    workloads: tuple[Workload, ...] = ()
    note: str | None = None  # a fact about the conversion worth saying when it is skipped
    generate_name: bool = False  # named by its `generateName` prefix
    generation: int = 0  # metadata.generation (0 where unset, as the oracle's client leaves it)
    # a RayJob's `status.rayClusterName`: with ElasticJobsViaWorkloadSlices its elastic Workloads' names hash that
    # RayCluster's generation where it exists (`slices.slice_name`)
    ray_cluster: str | None = None
    group: str | None = None  # `kueue.x-k8s.io/pod-group-name`: `manage` joins its members
    group_total: int | None = None
    group_fast: bool = False
    group_serving: bool = False  # `kueue.x-k8s.io/pod-group-serving: "true"`: never finished, nothing reclaimed
    succeeded: bool = False  # a pod whose phase is Succeeded: a group counts it and reclaims its quota
    # its integration's ReclaimablePods (batch Job, JobSet, TrainJob, a pod group): pod set -> finished pods, which
    # Kueue's reconciler applies to the Workload the job keeps (`manifests.reclaim.reclaim_applied`)
    reclaimable: tuple[tuple[str, int], ...] = ()
    group_refused: tuple[str, ...] = ()  # its group's members the API server refused, and why (`resources.limit_ranger`)
    parent_marked: bool = False  # a pod with `kueue.x-k8s.io/pod-suspending-parent`: a parent integration's webhook made it
    role: str | None = None  # a grouped pod's role (its `kueue.x-k8s.io/role-hash`, else Kueue's hash), naming its pod set
    train: Obj | None = None  # a TrainJob's `manifests.jobs.trainjob.TrainSpec`: pod sets from its runtime
    refusals: tuple[Refusal, ...] = ()  # what Kueue's webhook refuses it for (`manage` decides whether it applies)
    # no UID, no status: Kueue's webhooks default and validate it now (one in the cluster passed them, or never did)
    submitted: bool = True
    fails: str | None = None  # Kueue's reconciler errs on it (its PodSets fails: `slices._autoscaled`), its words
    deleting: bool = False  # `metadata.deletionTimestamp`: Kueue's reconciler drops its finalizers, makes no Workload
    prebuilt: str | None = None  # `kueue.x-k8s.io/prebuilt-workload-name`: the Workload Kueue takes as its own (`manage`)
    suspended: bool = True  # Kueue's IsSuspended (being submitted too: the webhook suspends it); `jobs.common`
    unsuspended: "Job | None" = None  # its pods, plain pods of its template's queue, where Kueue leaves it (templatepods)
    leader_set: "Job | None" = None  # a LeaderWorkerSet's leader StatefulSet's Workload, where Kueue's takes it (lws)
    # per pod set, what Kueue's startJob merges its admission into (`podset.Merge`): (its place, or a pod's role,
    # its template's nodeSelector, labels, annotations); None where none is merged into (`jobs.start`)
    templates: Shapes | None = None


# --- the whole -----------------------------------------------------------------------------------

class Model(Obj):
    """Everything read from one set of inputs. Lists keep duplicates; the validator reports them
    and later stages use the first of each name."""

    topologies: tuple[Topology, ...] = ()
    flavors: tuple[ResourceFlavor, ...] = ()
    cohorts: tuple[Cohort, ...] = ()
    cluster_queues: tuple[ClusterQueue, ...] = ()
    local_queues: tuple[LocalQueue, ...] = ()
    priority_classes: tuple[PriorityClass, ...] = ()
    namespaces: tuple[Namespace, ...] = ()
    nodes: tuple[Node, ...] = ()
    pods: tuple[Pod, ...] = ()
    workloads: tuple[Workload, ...] = ()
    rules: tuple[Rule, ...] = ()
    scheduler_configs: tuple[SchedulerConfig, ...] = ()  # more than one is reported; the first counts
    manager_flags: tuple[featuregates.ManagerFlag, ...] = ()  # Kueue's manager's `--feature-gates` (the first counts)
    jobs: tuple[Job, ...] = ()  # as submitted; their workloads are in `workloads` once managed
    training_runtimes: tuple[Obj, ...] = ()  # Trainer runtimes TrainJobs name (`manifests.jobs.trainjob`)
    external_objects: tuple[Obj, ...] = ()  # custom resources kadmit does not read, as owners (`manifests.jobs.external`)
    skipped: tuple[Skipped, ...] = ()  # objects not read as policy or work, in input order
    unread_kinds: tuple[UnreadKind, ...] = ()  # per file, each kind of `skipped` kadmit does not read (KAD159)
    gangs: tuple[Gang, ...] = ()  # pod groups kube-scheduler places all-or-nothing
    claim_templates: tuple[ClaimTemplate, ...] = ()  # DRA ResourceClaimTemplates
    device_classes: tuple[DeviceClass, ...] = ()  # DRA DeviceClasses (DRAExtendedResources)
    limit_ranges: tuple[LimitRange, ...] = ()  # Kueue fills pod sets' containers from them
    runtime_classes: tuple[RuntimeClass, ...] = ()  # their overhead joins pod sets' requests
    admission_checks: tuple[AdmissionCheck, ...] = ()  # Kueue AdmissionChecks (kadmit.modelchecks)
    check_configs: tuple[CheckConfig, ...] = ()  # what the built-in check controllers read
    broken: tuple[ObjectRef, ...] = ()  # defined, but with errors: referable, never decided on
    creation_times: tuple[datetime, ...] = ()  # of the objects read: the run's clock starts after the latest

    @property
    def config(self) -> SchedulerConfig | None:
        """The scheduler configuration in force: the first given, or None (Kueue's defaults)."""
        return self.scheduler_configs[0] if self.scheduler_configs else None


class Fragment(BaseModel):
    """What one front end read from one file: objects to merge into the model."""

    model_config = ConfigDict(extra="forbid")

    topologies: list[Topology] = []
    flavors: list[ResourceFlavor] = []
    cohorts: list[Cohort] = []
    cluster_queues: list[ClusterQueue] = []
    local_queues: list[LocalQueue] = []
    priority_classes: list[PriorityClass] = []
    namespaces: list[Namespace] = []
    nodes: list[Node] = []
    pods: list[Pod] = []
    workloads: list[Workload] = []
    rules: list[Rule] = []
    scheduler_configs: list[SchedulerConfig] = []
    manager_flags: list[featuregates.ManagerFlag] = []
    jobs: list[Job] = []
    training_runtimes: list[Obj] = []
    external_objects: list[Obj] = []
    skipped: list[Skipped] = []
    unread_kinds: list[UnreadKind] = []
    gangs: list[Gang] = []
    claim_templates: list[ClaimTemplate] = []
    device_classes: list[DeviceClass] = []
    limit_ranges: list[LimitRange] = []
    runtime_classes: list[RuntimeClass] = []
    admission_checks: list[AdmissionCheck] = []
    check_configs: list[CheckConfig] = []
    broken: list[ObjectRef] = []
    creation_times: list[datetime] = []


def merge(fragments: list[Fragment]) -> Model:
    """One model from fragments, in the order given (callers sort by path)."""
    return Model(**{name: tuple(x for frag in fragments for x in getattr(frag, name))
                    for name in Fragment.model_fields})
