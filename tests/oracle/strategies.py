"""Hypothesis strategies for whole Kueue clusters across the feature space, written as manifests
(v1beta2) for deciding with both kadmit and Kueue's own code (tests/oracle/test_property.py,
bench/oracle_soak.py).

`clusters(allowed)` draws one cluster: a list of manifest documents and the features it holds.
Each feature is a switch drawn only where `allowed` has it, so a divergent feature is kept off in
CI (and on in the soak) and agreement is counted per feature. The switches:

- cohorts: `cohorts` (cluster queues in cohorts), `cohort_tree` (nested cohorts, Cohort
  parentName), `cohort_quota` (cohorts holding quota), `borrowing_limit`, `lending_limit`
- flavors: `flavors` (several), `fungibility` (whenCanBorrow / whenCanPreempt, recorded per
  value), `preference` (BorrowingOverPreemption / PreemptionOverBorrowing)
- preemption: `preemption` (withinClusterQueue / reclaimWithinCohort, per value),
  `borrow_within_cohort` (with or without maxPriorityThreshold)
- `fair_sharing` (Configuration.fairSharing, its strategies, weights on queues and cohorts;
  `fair_sharing_no_cohort`: a queue in no cohort, on which Kueue v0.17.0's preemption panics),
  `admission_fair_sharing` (the Configuration's, the queue's admission scope, local queues'
  consumed resources), `strict_fifo`
- workloads: `priorities` (Workload priorities), `priority_class` (jobs with WorkloadPriorityClass
  or PriorityClass), `admitted` (Workloads holding quota), `partial_admission` (minCount),
  `memory` (a second resource)
- `tas` (flavors over Topologies and Nodes; `tas_flavors`: several of them; `tas_queues`: several
  queues sharing the nodes) with `tas_required`, `tas_preferred`,
  `tas_unconstrained` pod sets; `tas_groups`: pod-set groups (a Workload's leader and main pod sets
  with one `podSetGroupName`, a LeaderWorkerSet's leader and worker templates with the
  `podset-group-name` annotation), placed as one
  (`tas_leaf_levels`: a topology whose lowest level is not the hostname, `leaf_levels=[block, rack]`
  or `[rack]`, Kueue's leaves being racks holding their nodes' summed capacity; `hostname_label`:
  nodes whose `kubernetes.io/hostname` label is not their name, `shared_hostname` (opt-in, OPT_IN,
  with `hostname_label`): some of a rack's nodes sharing one, a leaf of their summed capacity to Kueue)
- jobs: `jobs` and `job:KIND` for each kind in JOB_KINDS; pod templates with
  `init_containers`, `sidecars`, `overhead` (RuntimeClass), `limit_range` (LimitRange defaults;
  `limit_ranges=KIND` where the namespace's LimitRanges also bound what Kueue admits or a second
  one's defaults win), `limits_only` (limits without requests); `pod_group_hash` (a pod group with a
  WorkloadPriorityClass label, on a topology-aware flavor, or whose pods Kueue's webhook or
  AdjustResources change: init containers, sidecars, RuntimeClass, LimitRange defaults, limits only); `appwrapper_pod_extras` (an AppWrapper's pod with a sidecar or a
  RuntimeClass); `existing_jobs` (jobs with a UID: objects already in
  the cluster, which did not pass Kueue's webhooks — the oracle's reading of a UID); `pod_level`
  (a pod's own `resources`: requests, limits or both, recorded as `pod_level=SHAPE`)
- placement rules: `flavor_selectors` (ResourceFlavor nodeLabels; pods with a nodeSelector, a
  required or preferred node affinity, recorded as `node_affinity=FORM`), `flavor_taints`
  (ResourceFlavor nodeTaints, under TAS on the nodes too; pods with tolerations, `tolerations=FORM`)
- queues: `namespace_selector` (a ClusterQueue's namespaceSelector other than `{}`, absent included,
  namespaces labelled or not), `stop_policy` (Hold / HoldAndDrain on ClusterQueues and LocalQueues);
  `inactive` (a Workload with `active: false`, pending or admitted); `resource_groups` (memory in
  a resource group of its own, over flavors of its own); `pod_sets` (a Workload with a second pod
  set, `worker`, pending or admitted; the minCount on either)
- `tas_admitted`: under TAS, Workloads already admitted on a topology-aware flavor with a
  `topologyAssignment` in their admission (Kueue v0.17.0's v1beta2 encoding, recorded as
  `ta_encoding=FORM`: a slice of individual hostnames, hostnames under a common prefix, one slice
  per node with universal values and counts, equal counts as one universal count), their pods on
  the flavor's nodes within each node's free capacity (in one rack or on one node where the pod set
  requires it), holding quota as well (under a RuntimeClass, `overhead`, the admission's
  resourceUsage counts its overhead, which Kueue's TAS cache divides among the pods);
  `ta_encoding=no_assignment`: admitted on the flavor with no
  topologyAssignment (Kueue counts the quota, no node); `tas_pods`: their pods too, bound to the
  assigned nodes with Kueue's topology annotation (Kueue's TAS cache skips them: it counts the
  assignment); `node_pods`: other pods bound to the flavors' nodes (no queue), running or
  succeeded, which Kueue's TAS cache counts as non-TAS usage while they run
- `running_jobs`: batch Jobs and JobSets (`running_kind=KIND`) running as `kubectl get -o yaml` of
  a live cluster shows them (a UID, `suspend: false`, a status with `startTime` and `active` pods,
  a JobSet's `replicatedJobsStatus`), recorded as `running=SHAPE`: `admitted` (with their admitted
  Workload, owned by the job, the flavor's node labels in the job's templates as Kueue's
  RunWithPodSetsInfo puts them), `idle_admitted` (the same with no active pod),
  `no_workload` (active pods, no Workload: Kueue waits for them to end) and `idle_no_workload`
  (started, no active pod, no Workload: Kueue makes one); and existing jobs (`existing_jobs`) of the
  other kinds Kueue suspends or gates (RUNNING_STATES) not suspended, with a status as their operators
  write it and no Workload, recorded as `running_state=KIND:STATE`: Kueue makes their Workload unless
  the kind's IsActive holds or it has finished (a StatefulSet's and a LeaderWorkerSet's whatever their
  status; a LeaderWorkerSet in a rolling update with a surge, one per status.replicas group)
- `admission_checks` (`_admission_checks`): AdmissionChecks on ClusterQueues — Active by their
  status or not (`check=KIND`), provisioning ones with their ProvisioningRequestConfig or without,
  MultiKueue ones over clusters Active or not, a missing one, `onFlavors` — and the check states of
  Workloads, pending or holding quota (Pending, Ready, Retry, Rejected: `check_state=STATE`)
- `pod_extras_all_kinds` (opt-in, OPT_IN): the pod templates of LeaderWorkerSets, Ray kinds,
  Deployments and StatefulSets draw init containers, sidecars, a RuntimeClass, limits without
  requests and LimitRange-filled containers as the other jobs' do (otherwise only jobs' do)
- `pod_states` (opt-in, OPT_IN): existing Pods and pod groups (`existing_jobs`) with Kueue's managed
  label in a state each, on no node (`pod_state=STATE`: gated, pending, running, gated_running,
  succeeded, failed), and no Workload (`_pod_states`)
- `resource_config` (opt-in, OPT_IN; no TAS with it but under `tas_resource_config`): the Configuration's `resources` — a
  transformation of example.com/gpu (Retain, Replace or the default, recorded as `transform=S`;
  `multiplyBy` example.com/slices or cpu, `multiplyBy=M`; into example.com/credits by a factor of 1, 2
  or 500m), sometimes one of cpu into the same credits (`transform_cpu`), sometimes
  `excludeResourcePrefixes` example.com/nic (`exclude_prefix`); pods of jobs and pending Workloads
  asking for those resources (`_ext_requests`), ClusterQueues covering credits, the retained GPUs and
  the slices (never an output a pod also asks for: Kueue's sum there is Go map order)
- `fungibility_defaults` (opt-in, OPT_IN, with `fungibility`): a flavorFungibility that leaves fields
  to their defaults — empty, one policy only, or a preference beside whenCanBorrow alone
  (`fungibility_form=FORM`)
- `afs_weights` (opt-in, OPT_IN, with `admission_fair_sharing`): the Configuration's
  `admissionFairSharing` with resource weights and another half-life (`half_life=H`), LocalQueues
  with a fairSharing weight (`lq_weight=W`) and consumed memory
- `requeue_states` (opt-in, OPT_IN): pending Workloads with a Requeued condition (False for one of
  REQUEUED_REASONS, or True) and/or a `requeueState.requeueAt` in 2020 or 2030 (`_requeue_state`)
- `tas_slices` (opt-in, OPT_IN, with `tas`): Kueue's pod-set slices — pending Workloads' pod sets
  (`podSetSliceRequiredTopology`, `podSetSliceSize`) and Jobs' and JobSets' templates (the
  `podset-slice-required-topology` and `podset-slice-size` annotations) beside a required, preferred
  or unconstrained level or alone (`slice_with=MODE`), on any level of the topology (above the pod
  set's own included), of a size in 1..count that need not divide it (`slice_divides=BOOL`)
- `workload_pod_extras` (opt-in, OPT_IN): pending Workloads' pod templates as Kueue's queue manager
  adjusts them (`workload.AdjustResources`) before it counts them: an init container (requests or
  limits), a sidecar, a RuntimeClass (`overhead`), a container with limits only (`limits_only`) or
  with no requests in a namespace whose LimitRange fills them (`limit_range`), recorded as
  `wl_extra=KIND`
- `trainjob_pod_extras` (opt-in, OPT_IN, with `job:TrainJob`): a TrainJob's runtime's pod template drawn
  as a Job's (init containers, sidecars, a RuntimeClass, limits only, LimitRange-filled containers,
  pod-level resources, node selectors and tolerations); otherwise one container with requests
- `tas_three_levels` (opt-in, OPT_IN, with `tas` where `tas_leaf_levels` is not drawn): a topology of
  three levels, blocks of racks of nodes (`example.com/block`, `example.com/rack`, the hostname), so
  that pod sets and slices ask for a level between the rack and the top
- `requeue_near` (opt-in, OPT_IN, with `requeue_states`): a requeueAt around the run's clock (the
  oracle's: a second after the latest creationTimestamp), -60, -1, 0, 1 or 60 s from it
  (`requeue_near=S`), or a Requeued condition False for a reason beside a passed requeueAt
- `tas_resource_config` (opt-in, OPT_IN, with `resource_config`): lifts its "no TAS" — topology-aware flavors
  whose nodes have some of the extended resources pods ask for (GPUs, slices, NICs: Kueue's TAS places by the
  pod spec's requests, before transformations and exclusions; its fit check counts the transformed requests on
  topology-aware flavors, so some nodes have credits too), sometimes the credits in a resource group of
  their own over a plain flavor (`credits_group`: a pod set asking for TAS may take it, its pods not asking
  for credits — `hasOverlapWithPodRequestedResources`)
- `negative_factors` (opt-in, OPT_IN, with `resource_config`): the transformation's output factor may
  be negative (-1, -500m), which Kueue counts as it is (`factor=F`)
- `job_management` (opt-in, OPT_IN, with `jobs`): which jobs Kueue manages — the Configuration's
  `manageJobsWithoutQueueName` (`manage_without_queue=V`: absent, true, false),
  `managedJobsNamespaceSelector` (`managed_ns=FORM`: absent, a label some namespaces have, a NotIn of
  one queue's namespace), `integrations.frameworks` without one kind's (`framework_off=F`); jobs with
  no queue-name label (`no_queue_name`) and a namespace's LocalQueue `default` (`default_lq`:
  Kueue's LocalQueueDefaulting names it on a job with none)
- `flavor_tolerations` (opt-in, OPT_IN, with `flavor_taints`): a tainted ResourceFlavor's own `tolerations`
  (`flavor_toleration=FORM`: the taint's key, value and effect; the key with Exists; the value with another
  effect, which leaves the taint untolerated), which Kueue adds to the pods it admits on the flavor and,
  under TAS, to what a node's taints are matched against
- `tas_resource_groups` (opt-in, OPT_IN, with `resource_groups` and `tas`): lifts `resource_groups`' "no TAS" —
  memory in a group of its own under TAS, its flavors plain or topology-aware over f0's nodes
  (`second_tas_flavor`: a pod set then on two TAS flavors, which Kueue v0.17.0 admits unplaced; no
  `tas_admitted` with it)
- `dra_resource_config` (opt-in, OPT_IN, with `dra` and `resource_config`): lifts `dra`'s "no `resource_config`" —
  the Configuration's transformations beside its deviceClassMappings, the transformation's output sometimes
  `whole-gpus` (`output=`), which Kueue sums with what the pods' claims count, after transforming
- `dra` (opt-in, OPT_IN; no TAS, no `resource_config` with it but under `dra_resource_config`): Dynamic Resource Allocation — the
  Configuration's DynamicResourceAllocation gate (on mostly, `dra_gate=S`) and a deviceClassMappings entry
  (`whole-gpus` for two device classes), ClusterQueues covering `whole-gpus`, each namespace's claim templates
  (CLAIM_TEMPLATES: counts, two requests, AllocationMode All, adminAccess, an unmapped class) and pending
  Workloads whose pods claim from them, or name a ResourceClaim directly (`claim=NAME`, `two_claims`)
- `second_pass` (opt-in, OPT_IN: drawn only when named, `--require second_pass`, so that the draws
  of every other seed stay as they were): clusters biased toward Kueue's second pass — topology-aware
  queues that all have a provisioning check (and its config), Workloads whose checks are mostly
  Ready, with priorities and a preemption policy within the queue, more of them holding nodes
- `reclaimable` (opt-in, OPT_IN): Workloads' `status.reclaimablePods` (pending, admitted or TAS-admitted, some
  pod sets, 1..count each: `reclaim_on=STATE`), and running Jobs and JobSets (`running_jobs`) with succeeded pods
  their Workload's status lists in part or not at all (`reclaim_on=running`)
- `running_out_of_step` (opt-in, OPT_IN, with `running_jobs`): a running job whose admitted Workload is out of step
  with it (`out_of_step=FORM`: the job's count or a container's requests changed since), which Kueue stops
- `wl_priority_class` (opt-in, OPT_IN): Workload objects naming a priority class (`spec.priorityClassRef`: the
  WorkloadPriorityClass, the PriorityClass), with no `spec.priority` (the CRD refuses it: skipped by both) or one
  of their own (`wl_pc=FORM`)
- `preemption_gates` (opt-in, OPT_IN): Workloads with `spec.preemptionGates`, their `status.preemptionGates`
  Closed, Open or absent (`preemption_gate=STATE`), which Kueue v0.17.0 reads only under an alpha gate
- `gates_default` (opt-in, OPT_IN): the Configuration's `featureGates` naming some of Kueue's gates at their
  v0.17.0 defaults (kadmit.manifests.gates), AllAlpha and AllBeta false among them
- `tas_match_fields` (opt-in, OPT_IN): pods' required node affinity by `matchFields` (metadata.name In or NotIn one
  node, beside an expression on the flavor's label in the term or in another term: `match_fields=FORM`)
- `negative_slices` (opt-in, OPT_IN, with `tas_slices`): a slice size below 0 (`slice_size=negative`; 0 panics Kueue)
- `tas_balanced` (opt-in, OPT_IN, with `tas`): the Configuration's feature gate TASBalancedPlacement on, so Kueue places
  `preferred` pod sets by its balanced algorithm (kadmit placement/balanced.py)
- `gates_flipped` (opt-in, OPT_IN): the Configuration's `featureGates` setting one to three of the gates kadmit
  models (FLIPPABLE, of kadmit.manifests.gates.MODELLED) to their other value (`gate=NAME`), beside `gates_default`'s
- `many_workloads` (opt-in, OPT_IN): 9 to 24 workloads and jobs instead of 1 to 8, so that more of them contend for
  the queues over more cycles
- `elastic` (opt-in, OPT_IN): ElasticJobsViaWorkloadSlices on, and a workload slice replacing one admitted generated
  Workload (`kueue.x-k8s.io/workload-slice-replacement-for`): its pod sets, one count scaled (`elastic_scale=up`,
  `down` or `same`), created with the latest object; with `tas`, ElasticJobsViaWorkloadSlicesWithTAS on half the time
  (`elastic_tas`, a switch of ALL drawn only here: the old slice's topology assignment kept, only the new pods placed);
  and elastic jobs (`_elastic_jobs`, `elastic_job=pending|running|scaled_up|pod_group`): batch Jobs and pod groups
  annotated `kueue.x-k8s.io/elastic-job`, a running Job's admitted Workload too, its parallelism raised or not
- `max_exec` (opt-in, OPT_IN): Workloads with `spec.maximumExecutionTimeSeconds`, whose timer the workload
  controller sets (`_timers_near`): a pending one's a few seconds or an hour (`max_exec=pending`), an admitted
  one's run out before the run, at its start or during it, or not (`max_exec_left=S`, seconds from the run's
  clock), with `status.accumulatedPastExecutionTimeSeconds` or not (`past_exec`)
- `retry_after` (opt-in, OPT_IN): admission checks on more queues and more Workloads' check states Retry, with
  `requeueAfterSeconds` (`retry_after=S`) from a lastTransitionTime a few seconds before the run's clock or long
  before (`retry_since=S`), the requeue time the workload controller waits for
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import yaml
from hypothesis import strategies as st

API = "kueue.x-k8s.io/v1beta2"
START = datetime(2026, 11, 1, tzinfo=UTC)
JOB_KINDS = ("Job", "JobSet", "LeaderWorkerSet", "RayJob", "RayCluster", "PyTorchJob", "TrainJob", "AppWrapper",
             "Pod", "PodGroup", "Deployment", "StatefulSet", "TFJob", "MPIJob", "PaddleJob", "XGBoostJob", "JAXJob",
             "RayService")
SWITCHES = ("cohorts", "cohort_tree", "cohort_quota", "borrowing_limit", "lending_limit", "flavors", "fungibility",
            "preference", "preemption", "borrow_within_cohort", "fair_sharing", "admission_fair_sharing",
            "strict_fifo", "priorities", "priority_class", "admitted", "partial_admission", "memory", "tas",
            "tas_required", "tas_preferred", "tas_unconstrained", "jobs", "init_containers", "sidecars", "overhead",
            "limit_range", "limits_only", "existing_jobs", "tas_flavors", "pod_group_hash",
            "appwrapper_pod_extras", "fair_sharing_no_cohort", "tas_queues", "tas_groups", "pod_level",
            "flavor_selectors", "flavor_taints", "namespace_selector", "stop_policy", "inactive", "resource_groups",
            "pod_sets", "tas_admitted", "running_jobs", "admission_checks", "tas_pods", "node_pods",
            "tas_leaf_levels", "hostname_label", "elastic_tas",  # (drawn only under the opt-in `elastic`)
            *(f"job:{k}" for k in JOB_KINDS))
# switches drawn only when named (a soak's `--require`): not in ALL, so that clusters drawn from ALL
# (every seed of the soaks, CI's property test) stay as they were
OPT_IN = frozenset({"second_pass", "pod_states", "shared_hostname", "resource_config", "fungibility_defaults",
                    "afs_weights", "pod_extras_all_kinds", "requeue_states", "tas_slices",
                    "workload_pod_extras", "trainjob_pod_extras", "tas_three_levels", "requeue_near",
                    "negative_factors", "job_management", "flavor_tolerations", "dra", "tas_resource_config",
                    "dra_resource_config", "tas_resource_groups", "reclaimable", "running_out_of_step",
                    "wl_priority_class", "preemption_gates", "gates_default", "tas_match_fields", "negative_slices",
                    "tas_balanced", "gates_flipped", "many_workloads", "elastic", "max_exec", "retry_after"})
# the gates `gates_flipped` sets to their other value: kadmit.manifests.gates.MODELLED but TASBalancedPlacement
# (KAD263: a Kueue panic), MultiKueue's and DRA's (no generated cluster has a MultiKueue check; DRA's need `dra`)
FLIPPABLE = ("AdmissionFairSharing", "AdmissionGatedBy", "AssignQueueLabelsForPods", "FairSharingPreemptWithinNominal",
             "FairSharingPrioritizeNonBorrowing", "FlavorFungibility", "ManagedJobsNamespaceSelectorAlwaysRespected",
             "PartialAdmission", "PriorityBoost", "PrioritySortingWithinCohort", "ReclaimablePods",
             "SchedulerTimestampPreemptionBuffer", "ShortWorkloadNames", "TASProfileMixed", "TopologyAwareScheduling")
ALL = frozenset(SWITCHES)
KNOWN = ALL | OPT_IN


def allowed_switches(off: list[str] | set[str], require: list[str] | set[str]) -> frozenset[str]:
    """The switches a soak draws: every one but `off`, and the opt-in ones it requires."""
    return frozenset((ALL | (set(require) & OPT_IN)) - set(off))
FRAMEWORKS = ["batch/job", "kubeflow.org/mpijob", "ray.io/rayjob", "ray.io/raycluster", "ray.io/rayservice",
              "jobset.x-k8s.io/jobset", "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob",
              "kubeflow.org/xgboostjob", "kubeflow.org/jaxjob", "workload.codeflare.dev/appwrapper",
              "trainer.kubeflow.org/trainjob", "pod", "deployment", "statefulset",
              "leaderworkerset.x-k8s.io/leaderworkerset"]
BLOCK, RACK, HOST = "example.com/block", "example.com/rack", "kubernetes.io/hostname"
# Kubeflow training kinds but PyTorchJob: apiVersion, replica specs' field, replica types (Kueue's
# order, the last always drawn), container name
TRAINING = {"TFJob": ("kubeflow.org/v1", "tfReplicaSpecs", ("Chief", "PS", "Worker"), "tensorflow"),
            "MPIJob": ("kubeflow.org/v2beta1", "mpiReplicaSpecs", ("Launcher", "Worker"), "mpi"),
            "PaddleJob": ("kubeflow.org/v1", "paddleReplicaSpecs", ("Master", "Worker"), "paddle"),
            "XGBoostJob": ("kubeflow.org/v1", "xgbReplicaSpecs", ("Master", "Worker"), "xgboost"),
            "JAXJob": ("kubeflow.org/v1", "jaxReplicaSpecs", ("Worker",), "jax")}


@dataclass
class Cluster:
    """One generated cluster: its manifest documents and the features it holds (switch names,
    and NAME=VALUE for the settings drawn)."""

    docs: list[dict]
    features: set[str] = field(default_factory=set)

    def text(self) -> str:
        head = "# features: " + " ".join(sorted(self.features)) + "\n"
        return head + yaml.safe_dump_all(self.docs, sort_keys=False)


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _qty(resource: str, n: int) -> str:
    return f"{n}Gi" if resource == "memory" else str(n)


def _unit(resource: str) -> int:
    return 4 if resource == "memory" else 1


class _Draw:
    """The draw function with the allowed switches and the features recorded as drawn."""

    def __init__(self, draw, allowed: frozenset[str]):
        self.draw, self.allowed, self.features = draw, allowed, set()
        self.label_key: str | None = None  # the flavors' node label key pods select on (flavor_selectors)
        self.label_values: list[str] = []
        self.taints: list[str] = []  # the values of the flavors' `dedicated` taints (flavor_taints)
        self.free: dict[str, dict[str, dict[str, int]]] = {}  # TAS: per flavor, per node, what is free (tas_admitted)
        self.levels: list[str] = [RACK, HOST]  # the topology's levels (tas_leaf_levels: no hostname)
        self.hostname: dict[str, str] = {}  # node name -> its hostname label (hostname_label: not its name)
        self.domain: dict[str, list[str]] = {}  # node name -> its values on the topology's levels
        self.second_pass = False  # biased toward Kueue's second pass (the opt-in `second_pass`)
        self.ext: list[str] = []  # resource_config: the extended resources pods may ask for
        self.quota_extra: list[str] = []  # resource_config: what the queues' first group also covers
        self.claim_templates: list[str] = []  # dra: the ResourceClaimTemplates each queue's namespace has

    def tas_levels(self) -> list[str]:
        """The levels a pod set may ask for: the topology's."""
        return list(self.levels)

    def on(self, switch: str, p: float = 0.5) -> bool:
        """Whether `switch` is on here: off unless allowed; recorded when on."""
        if switch not in self.allowed:
            return False
        hit = self.draw(st.booleans()) if p == 0.5 else self.draw(st.integers(0, 99)) < int(p * 100)
        if hit:
            self.features.add(switch)
        return hit

    def pick(self, values, name: str | None = None):
        v = self.draw(st.sampled_from(list(values)))
        if name:
            self.features.add(f"{name}={v}")
        return v

    def int(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))


def _quota(d: _Draw, resource: str, cohort: bool, *, cohort_object: bool = False) -> dict:
    u = _unit(resource)
    nominal = d.int(4 if d.second_pass and not cohort_object else 0, 8 if cohort_object else 10)
    q = {"name": resource, "nominalQuota": _qty(resource, nominal * u)}
    if cohort and d.on("borrowing_limit", 0.3):
        q["borrowingLimit"] = _qty(resource, d.int(0, 6) * u)
    if cohort and d.on("lending_limit", 0.3):
        q["lendingLimit"] = _qty(resource, d.int(0, nominal) * u)
    return q


def _cohorts(d: _Draw, groups: list[tuple[list[str], list[str]]]) -> tuple[list[str], list[dict]]:
    if not d.on("cohorts", 0.7):
        return [], []
    names = [f"co{i}" for i in range(d.int(1, 3))]
    docs = []
    tree = d.on("cohort_tree", 0.5)
    for i, name in enumerate(names):
        spec: dict = {}
        if tree and i > 0 and d.int(0, 2):
            spec["parentName"] = names[d.int(0, i - 1)]
        if d.on("cohort_quota", 0.3):
            spec["resourceGroups"] = []
            for resources, flavors in groups:
                mine = flavors[:d.int(1, len(flavors))]
                spec["resourceGroups"].append({"coveredResources": resources, "flavors": [
                    {"name": f, "resources": [_quota(d, r, bool(spec.get("parentName")), cohort_object=True)
                                              for r in resources]} for f in mine]})
        if "fair_sharing" in d.features and d.int(0, 1):
            spec["fairSharing"] = {"weight": d.pick(["0", "1", "2", "500m"], "weight")}
        docs.append({"apiVersion": API, "kind": "Cohort", "metadata": {"name": name}, "spec": spec})
    return names, docs


def _cluster_queue(d: _Draw, name: str, groups: list[tuple[list[str], list[str]]],
                   cohorts: list[str]) -> tuple[dict, dict, list[tuple[list[str], list[str]]]]:
    """A ClusterQueue over `groups` (covered resources, flavors): its manifest, nominal quotas by
    (flavor, resource) and its own groups (the resources and the flavors it was given of each)."""
    cohort = d.pick(cohorts) if cohorts and d.int(0, 4) else None
    if cohort is None and "fair_sharing" in d.features:
        if cohorts and "fair_sharing_no_cohort" not in d.allowed:  # Kueue v0.17.0 panics (DIVERGENCES.md)
            cohort = cohorts[0]
        elif not cohorts and "fair_sharing_no_cohort" not in d.allowed:
            cohort = "co-fs"
            d.features.add("cohorts")
        else:
            d.features.add("fair_sharing_no_cohort")
    quotas = {}
    rgs, mine_groups = [], []
    for g, (resources, flavors) in enumerate(groups):
        mine = flavors[d.int(0, len(flavors) - 1):] if len(flavors) > 1 else flavors
        if len(mine) > 1 and d.int(0, 1):
            mine = list(reversed(mine))
        fqs = []
        covered = resources + d.quota_extra if g == 0 and d.quota_extra else resources  # (resource_config: opt-in)
        for f in mine:
            rs = [_quota(d, r, cohort is not None) for r in covered]
            for q in rs:
                quotas[(f, q["name"])] = int(q["nominalQuota"].removesuffix("Gi"))
            fqs.append({"name": f, "resources": rs})
        rgs.append({"coveredResources": covered, "flavors": fqs})
        mine_groups.append((resources, mine))
    spec: dict = {"namespaceSelector": {}, "resourceGroups": rgs}
    if d.on("namespace_selector", 0.25):
        form = d.pick(["absent", "match", "match", "in", "not_in", "metadata_name"], "namespaceSelector")
        if form == "absent":  # no namespace (Kueue: a nil selector matches nothing)
            del spec["namespaceSelector"]
        elif form == "match":
            spec["namespaceSelector"] = {"matchLabels": {"team": name}}
        elif form in ("in", "not_in"):
            spec["namespaceSelector"] = {"matchExpressions": [
                {"key": "team", "operator": "In" if form == "in" else "NotIn", "values": [name, "other"]}]}
        else:  # the label the API server gives every namespace
            spec["namespaceSelector"] = {"matchLabels": {"kubernetes.io/metadata.name": f"ns-{name}"}}
    if cohort:
        spec["cohortName"] = cohort
    if d.on("stop_policy", 0 if d.second_pass else 0.1):
        spec["stopPolicy"] = d.pick(["Hold", "HoldAndDrain"], "stopPolicy")
    spec["queueingStrategy"] = "StrictFIFO" if d.on("strict_fifo", 0.1 if d.second_pass else 0.3) else "BestEffortFIFO"
    if d.on("preemption", 1 if d.second_pass else 0.7):
        within = d.pick(["LowerPriority", "LowerOrNewerEqualPriority"] if d.second_pass else
                        ["Never", "LowerPriority", "LowerOrNewerEqualPriority"], "withinClusterQueue")
        reclaim = d.pick(["Never", "LowerPriority", "Any"], "reclaimWithinCohort")
        preemption: dict = {"withinClusterQueue": within, "reclaimWithinCohort": reclaim}
        if reclaim != "Never" and d.on("borrow_within_cohort", 0.4):
            bwc: dict = {"policy": "LowerPriority"}
            if d.int(0, 1):
                bwc["maxPriorityThreshold"] = d.pick([0, 10, 50])
                d.features.add("maxPriorityThreshold")
            preemption["borrowWithinCohort"] = bwc
        spec["preemption"] = preemption
    if d.on("fungibility", 0.6):
        borrow = d.pick(["MayStopSearch", "TryNextFlavor"], "whenCanBorrow")
        preempt = d.pick(["MayStopSearch", "TryNextFlavor"], "whenCanPreempt")
        fung: dict = {"whenCanBorrow": borrow, "whenCanPreempt": preempt}
        if borrow == preempt == "TryNextFlavor" and d.on("preference", 0.5):
            fung["preference"] = d.pick(["BorrowingOverPreemption", "PreemptionOverBorrowing"], "preference")
        if d.on("fungibility_defaults", 0.6):  # (opt-in: draws nothing unless allowed)
            form = d.pick(["empty", "borrow_only", "preempt_only", "preference_with_borrow"], "fungibility_form")
            if form == "empty":
                fung = {}
            elif form == "borrow_only":
                fung = {"whenCanBorrow": borrow}
            elif form == "preempt_only":
                fung = {"whenCanPreempt": preempt}
            else:  # whenCanPreempt defaults to TryNextFlavor, which the preference needs
                fung = {"whenCanBorrow": "TryNextFlavor",
                        "preference": d.pick(["BorrowingOverPreemption", "PreemptionOverBorrowing"], "preference")}
        spec["flavorFungibility"] = fung
    if "fair_sharing" in d.features and d.int(0, 1):
        spec["fairSharing"] = {"weight": d.pick(["0", "1", "2", "500m"], "weight")}
    if "admission_fair_sharing" in d.features:
        spec["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}, quotas, mine_groups


def _requests(d: _Draw, resources: list[str]) -> dict:
    out = {"cpu": d.pick(["1", "2", "3", "500m", "4"])}
    if "memory" in resources:
        out["memory"] = f"{d.int(1, 3) * 2}Gi"
    return out


def _pod_spec(d: _Draw, resources: list[str], *, job: bool, namespace_has_limit_range: bool) -> dict:
    """A pod template's spec; jobs may carry init containers, sidecars, a RuntimeClass,
    limits without requests, and containers without requests a LimitRange fills in; so may the
    other kinds' (`job=False`: LeaderWorkerSet, Ray, Deployment, StatefulSet) under the opt-in
    `pod_extras_all_kinds`."""
    main = {"name": "main", "image": "busybox"}
    extras = job or "pod_extras_all_kinds" in d.allowed  # (opt-in: the same draws unless allowed)
    if extras and not job:
        d.features.add("pod_extras_all_kinds")
    if extras and d.on("limits_only", 0.15):
        main["resources"] = {"limits": _requests(d, resources)}
    elif extras and namespace_has_limit_range and d.int(0, 2) == 0:
        d.features.add("limit_range")
        main["resources"] = {}
    else:
        main["resources"] = {"requests": _requests(d, resources)}
    spec: dict = {"containers": [main]}
    if job:
        spec["restartPolicy"] = "Never"
    if extras:
        inits = []
        if d.on("init_containers", 0.15):
            kind = "limits" if "limits_only" in d.allowed and d.int(0, 3) == 0 else "requests"
            if kind == "limits":
                d.features.add("limits_only")
            inits.append({"name": "init", "image": "busybox", "resources": {kind: _requests(d, resources)}})
        if d.on("sidecars", 0.15):
            inits.append({"name": "sidecar", "image": "envoy", "restartPolicy": "Always",
                          "resources": {"requests": {"cpu": "500m"}}})
        if inits:
            spec["initContainers"] = inits
        if d.on("overhead", 0.1):
            spec["runtimeClassName"] = "kata"
    if d.on("pod_level", 0.15):
        spec["resources"] = _pod_level(d, resources)
    _scheduling(d, spec)
    return spec


def _pod_level(d: _Draw, resources: list[str]) -> dict:
    """A pod's own `resources` (pod-level resources), above what its containers (and sidecars, init
    containers, LimitRange defaults) can ask, as the API server requires of a Pod or a job's
    template: requests, requests and limits, or limits alone (a Pod's requests default to them)."""
    want = {"cpu": d.pick(["5", "6"])}
    if "memory" in resources and d.int(0, 1):
        want["memory"] = "8Gi"
    shape = d.pick(["requests", "requests", "both", "limits"], name="pod_level")
    if shape == "requests":
        return {"requests": want}
    if shape == "limits":
        return {"limits": want}
    return {"requests": want, "limits": {r: _show(r, _parse(q) + (4 if r == "memory" else 1000))
                                         for r, q in want.items()}}


def _scheduling(d: _Draw, spec: dict) -> None:
    """A pod's node selector or node affinity, where the flavors carry node labels
    (`flavor_selectors`), and its tolerations, where they carry taints (`flavor_taints`): what
    Kueue's flavor assigner matches against each flavor (and, under TAS, each node)."""
    key = d.label_key
    if key and d.int(0, 9) < 4:
        values = d.label_values + ["none"]
        form = d.pick(["selector", "selector", "in", "not_in", "two_terms", "exists", "does_not_exist", "other_key",
                       "preferred"], "node_affinity")
        if form == "selector":
            spec["nodeSelector"] = {key: d.pick(values)}
        elif form == "other_key":
            spec["nodeSelector"] = {"disk": "ssd"}
        else:
            if form in ("in", "not_in"):
                picked = sorted({d.pick(values) for _ in range(d.int(1, 2))})
                terms = [{"matchExpressions": [{"key": key, "operator": "In" if form == "in" else "NotIn",
                                                "values": picked}]}]
            elif form == "two_terms":
                terms = [{"matchExpressions": [{"key": key, "operator": "In", "values": [d.pick(values)]}]},
                         {"matchExpressions": [{"key": key, "operator": "In", "values": [d.pick(values)]}]}]
            else:
                op = "Exists" if form in ("exists", "preferred") else "DoesNotExist"
                terms = [{"matchExpressions": [{"key": key, "operator": op}]}]
            if form == "preferred":  # Kueue reads only the required terms
                spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 10, "preference": {"matchExpressions": [
                        {"key": key, "operator": "In", "values": [d.pick(values)]}]}}]}}
            else:
                spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": terms}}}
    if d.taints and d.int(0, 9) < 5:
        form = d.pick(["equal", "equal", "exists_key", "exists_all", "no_execute_only"], "tolerations")
        if form == "equal":
            tol = {"key": "dedicated", "operator": "Equal", "value": d.pick(d.taints), "effect": "NoSchedule"}
        elif form == "exists_key":
            tol = {"key": "dedicated", "operator": "Exists"}
        elif form == "exists_all":
            tol = {"operator": "Exists"}
        else:
            tol = {"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}
        spec["tolerations"] = [tol]
    if d.hostname and d.on("tas_match_fields", 0.3):  # (opt-in: draws nothing unless allowed)
        _match_fields(d, spec)


def _match_fields(d: _Draw, spec: dict) -> None:
    """A required node affinity by `matchFields` (`tas_match_fields`): metadata.name In or NotIn one node
    (or a node there is not), alone, beside an expression on the node's `pool` label in its term, or as a
    second term beside one of expressions; added to the first term where the pod has required terms."""
    node = d.pick(sorted(d.hostname) + ["none"])
    field = {"key": "metadata.name", "operator": d.pick(["In", "In", "NotIn"]), "values": [node]}
    form = d.pick(["alone", "with_expression", "second_term"], "match_fields")
    pool = {"key": "pool", "operator": "In", "values": [node.rsplit("-r", 1)[0] if node != "none" else "f0"]}
    terms = (spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", {})
             .get("nodeSelectorTerms"))
    if terms:
        d.features.add("match_fields=merged")
        terms[0]["matchFields"] = [field]
        return
    new = ([{"matchFields": [field]}] if form == "alone" else
           [{"matchExpressions": [pool], "matchFields": [field]}] if form == "with_expression" else
           [{"matchExpressions": [pool]}, {"matchFields": [field]}])
    spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": new}


def _flavor_rules(d: _Draw, flavors: list[str], fl: dict, i: int, tas: bool) -> None:
    """A ResourceFlavor's node labels (`flavor_selectors`: a zone per flavor, or none; under TAS
    the pool label it already has) and node taints (`flavor_taints`)."""
    spec = fl.setdefault("spec", {})
    if "flavor_selectors" in d.features:
        if tas:
            d.label_key = "pool"
            d.label_values.append(spec["nodeLabels"]["pool"])
        elif d.int(0, 3):
            d.label_key = "zone"
            zone = f"z{i % 2}" if len(flavors) > 2 else f"z{i}"
            spec["nodeLabels"] = {"zone": zone}
            if zone not in d.label_values:
                d.label_values.append(zone)
    if "flavor_taints" in d.features and d.int(0, 1):
        effect = d.pick(["NoSchedule", "NoSchedule", "NoExecute", "PreferNoSchedule"], "taint")
        spec["nodeTaints"] = [{"key": "dedicated", "value": fl["metadata"]["name"], "effect": effect}]
        d.taints.append(fl["metadata"]["name"])
        if d.on("flavor_tolerations", 0.6):  # (opt-in: draws nothing unless allowed)
            form = d.pick(["equal", "exists_key", "other_effect"], "flavor_toleration")
            if form == "exists_key":
                tol = {"key": "dedicated", "operator": "Exists"}
            else:  # `other_effect`: the value matches, the effect not, so the taint stays untolerated
                other = "NoExecute" if effect != "NoExecute" else "NoSchedule"
                tol = {"key": "dedicated", "operator": "Equal", "value": fl["metadata"]["name"],
                       "effect": effect if form == "equal" else other}
            spec["tolerations"] = [tol]
    if not spec:
        del fl["spec"]


def _bounded(docs: list[dict], ns: str) -> bool:
    """Whether a LimitRange of `ns` among `docs` bounds what a container or pod may ask (a min or a max)."""
    return any(doc["kind"] == "LimitRange" and doc["metadata"]["namespace"] == ns
               and any("min" in it or "max" in it for it in doc["spec"]["limits"]) for doc in docs)


def _limit_ranges(d: _Draw, ns: str) -> list[dict]:
    """A namespace's LimitRanges: Container defaults; sometimes bounds Kueue checks before it
    tries a flavor (a Container max or min, a Pod max: `ValidateLimitRange`), or a second
    LimitRange listed first, whose defaults win where both have one (`limitrange.Summarize`)."""
    item: dict = {"type": "Container", "default": {"cpu": "2", "memory": "2Gi"},
                  "defaultRequest": {"cpu": "1", "memory": "1Gi"}}
    limits = [item]
    out = [{"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": ns},
            "spec": {"limits": limits}}]
    extra = d.pick(["none", "none", "container_max", "container_min", "pod_max", "two"])
    if extra != "none":
        d.features.add(f"limit_ranges={extra}")
    if extra == "container_max":
        item["max"] = {"cpu": "3", "memory": "8Gi"}
    elif extra == "container_min":
        item["min"] = {"cpu": "1"}
    elif extra == "pod_max":
        limits.append({"type": "Pod", "max": {"cpu": d.pick(["4", "6"])}})
    elif extra == "two":
        out.insert(0, {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "a-first", "namespace": ns},
                       "spec": {"limits": [{"type": "Container", "default": {"memory": "4Gi"},
                                            "defaultRequest": {"cpu": "500m"}}]}})
    return out


GPU, SLICES, NIC, CREDITS = "example.com/gpu", "example.com/slices", "example.com/nic", "example.com/credits"


def _resources_config(d: _Draw) -> dict:
    """The Configuration's `resources` (`resource_config`): a transformation of GPUs into credits,
    sometimes multiplied by slices or cpu, sometimes one of cpu into the same credits (summed with the
    GPUs' whichever Kueue reads first: both are transformed inputs), sometimes NICs excluded. Sets
    the extended resources pods may ask for and what the queues cover beyond cpu and memory: the
    credits, the GPUs where retained, the slices where they multiply. No output names a resource a
    pod asks for (cpu, memory, a retained input): there Kueue's sum is Go map order
    (docs/KUEUE-DIFFERENCES.md §1)."""
    t: dict = {"input": GPU}
    strategy = d.pick(["Retain", "Replace", "default"], "transform")
    if strategy != "default":
        t["strategy"] = strategy
    mult = d.pick(["none", "none", "slices", "cpu"], "multiplyBy")
    if mult != "none":
        t["multiplyBy"] = SLICES if mult == "slices" else "cpu"
    # (negative_factors: opt-in) a negative output factor, which Kueue counts as it is
    # (dra_resource_config: opt-in) the output may be the device class mappings' resource, which Kueue
    # sums with what the pods' claims count (after transforming)
    output = d.pick([CREDITS, WHOLE_GPUS], "output") if "dra_resource_config" in d.features else CREDITS
    t["outputs"] = {output: d.pick(["1", "2", "500m"] + (["-1", "-500m"] if "negative_factors" in d.allowed else []),
                                   "factor" if "negative_factors" in d.allowed else None)}
    if t["outputs"][output].startswith("-"):
        d.features.add("negative_factors")
    out: dict = {"transformations": [t]}
    if d.int(0, 2) == 0:
        out["transformations"].append({"input": "cpu", "outputs": {CREDITS: d.pick(["1", "250m"])}})
        d.features.add("transform_cpu")
    if d.int(0, 1):
        out["excludeResourcePrefixes"] = ["example.com/nic"]
        d.features.add("exclude_prefix")
    d.ext = [GPU, NIC] + ([SLICES] if mult == "slices" else [])
    d.quota_extra = [CREDITS] + ([GPU] if strategy != "Replace" else []) + ([SLICES] if mult == "slices" else []) \
        + d.quota_extra  # (dra_resource_config: opt-in) the mappings' resource, covered already
    if "credits_group" in d.features:  # (tas_resource_config: opt-in) the credits in a group of their own
        d.quota_extra.remove(CREDITS)
    return out


def _ext_requests(d: _Draw) -> dict:
    """A container's extended resources (`resource_config`): GPUs mostly, slices where they
    multiply, now and then a NIC (excluded by prefix, or a resource no queue covers). Nothing
    unless the switch is on."""
    if not d.ext:
        return {}
    out = {}
    if d.int(0, 2):
        out[GPU] = d.pick(["1", "2"])
    if SLICES in d.ext and d.int(0, 1):
        out[SLICES] = d.pick(["1", "2"])
    if d.int(0, 5) == 0:
        out[NIC] = "1"
        d.features.add("nic")
    return out


WHOLE_GPUS = "whole-gpus"
# dra: the claim templates of each namespace, by what Kueue v0.17.0 makes of them (countDevicesPerClass):
# `count` devices of a mapped class, two requests, all devices (AllocationMode All), adminAccess, a class no
# deviceClassMappings entry names
CLAIM_TEMPLATES = {"one-gpu": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com",
                                                         "allocationMode": "ExactCount", "count": 1}}],
                   "two-gpus": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com",
                                                          "allocationMode": "ExactCount", "count": 2}}],
                   "big-gpu": [{"name": "g", "exactly": {"deviceClassName": "big-gpu.example.com"}}],
                   "pair": [{"name": "a", "exactly": {"deviceClassName": "gpu.example.com"}},
                            {"name": "b", "exactly": {"deviceClassName": "big-gpu.example.com",
                                                      "allocationMode": "ExactCount", "count": 2}}],
                   "all-gpus": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com",
                                                          "allocationMode": "All"}}],
                   "admin": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com", "adminAccess": True}}],
                   "fpga": [{"name": "g", "exactly": {"deviceClassName": "fpga.example.com"}}]}


def _claim_templates(ns: str) -> list[dict]:
    """A namespace's ResourceClaimTemplates (`dra`), one of each kind in CLAIM_TEMPLATES."""
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
             "metadata": {"name": name, "namespace": ns}, "spec": {"spec": {"devices": {"requests": reqs}}}}
            for name, reqs in CLAIM_TEMPLATES.items()] + [
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared", "namespace": ns},
         "spec": {"devices": {"requests": CLAIM_TEMPLATES["one-gpu"]}}}]


def _claim(d: _Draw, ps: dict) -> None:
    """A pending Workload's pod set asking for devices (`dra`): its pods' claim from a template (the
    usual kinds mostly), sometimes two claims, or now and then a ResourceClaim named directly, which
    Kueue v0.17.0 holds inadmissible (`claim=NAME`)."""
    spec = ps["template"]["spec"]
    names = [d.pick(["one-gpu", "one-gpu", "two-gpus", "big-gpu", "pair", "all-gpus", "admin", "fpga", "direct"],
                    "claim")]
    if names[0] in ("one-gpu", "two-gpus") and d.int(0, 4) == 0:
        names.append("big-gpu")
        d.features.add("two_claims")
    claims = []
    for i, name in enumerate(names):
        claims.append({"name": f"c{i}"} | ({"resourceClaimName": "shared"} if name == "direct"
                                            else {"resourceClaimTemplateName": name}))
    spec["resourceClaims"] = claims
    spec["containers"][0]["resources"]["claims"] = [{"name": c["name"]} for c in claims]


REQUEUED_REASONS = ("Deactivated", "PodsReadyTimeout", "AdmissionCheck", "ClusterQueueStopped", "LocalQueueStopped",
                    "Preempted", "Inadmissible", "DeactivatedDueToRequeuingLimitExceeded")


def _requeue_state(d: _Draw) -> dict:
    """A pending Workload's status as a cluster shows one after an eviction or a backoff
    (`requeue_states`): a Requeued condition False for a reason (`requeued=R`), a
    `requeueState.requeueAt` past or to come (`requeue_at=WHEN`), both, or the condition True beside a
    requeueAt. A requeueAt is years before or after both the run's clock and the machine's (Kueue's
    ClusterQueue reads the real clock); a False condition never meets a passed requeueAt, which the
    oracle's apply can't clear (docs/KUEUE-DIFFERENCES.md §2)."""
    at = _stamp(START - timedelta(hours=1))
    form = d.pick(["requeued_false", "requeue_at", "both", "requeued_true"], "requeue_form")
    status: dict = {}
    if form in ("requeued_false", "both", "requeued_true"):
        reason = "BackoffFinished" if form == "requeued_true" else d.pick(REQUEUED_REASONS, "requeued")
        status["conditions"] = [{"type": "Requeued", "status": "True" if form == "requeued_true" else "False",
                                 "reason": reason, "message": "", "lastTransitionTime": at}]
    if form != "requeued_false":
        when = "future" if form == "both" else d.pick(["past", "future"], "requeue_at")
        status["requeueState"] = {"count": d.int(1, 3),
                                  "requeueAt": "2030-01-01T00:00:00Z" if when == "future" else "2020-01-01T00:00:00Z"}
    if d.on("requeue_near", 0.6):  # (opt-in: draws nothing unless allowed)
        if d.pick(["near", "false_past"], "requeue_near_form") == "near":  # around the run's clock
            offset = d.pick([-60, -1, 0, 1, 60], "requeue_near")
            status["requeueState"] = {"count": status.get("requeueState", {}).get("count", 1), "requeueAt": offset}
        else:  # a False condition beside a passed requeueAt
            reason = d.pick(REQUEUED_REASONS, "requeued")
            status["conditions"] = [{"type": "Requeued", "status": "False", "reason": reason, "message": "",
                                     "lastTransitionTime": at}]
            status["requeueState"] = {"count": 1, "requeueAt": "2020-01-01T00:00:00Z"}
    return status


def _run_clock(docs: list[dict]) -> datetime:
    """The oracle's fake clock at the run's start: a second after the latest creationTimestamp among the input's
    objects."""
    made = [x["metadata"]["creationTimestamp"] for x in docs if x.get("metadata", {}).get("creationTimestamp")]
    return max(datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) for t in made) + timedelta(seconds=1)


def _requeue_near(docs: list[dict]) -> None:
    """`requeue_near`: each requeueAt drawn as seconds from the run's clock made a time."""
    now = _run_clock(docs)
    for x in docs:
        state = x.get("status", {}).get("requeueState", {}) if x.get("kind") == "Workload" else {}
        if isinstance(state.get("requeueAt"), int):
            state["requeueAt"] = _stamp(now + timedelta(seconds=state["requeueAt"]))


def _max_exec(d: _Draw, wl: dict, state: str) -> None:
    """`max_exec`: a Workload's maximumExecutionTimeSeconds; an admitted one's drawn as the seconds left at the run's
    clock (made a number by `_timers_near`, once every time is known), with past execution time or not."""
    if state == "pending":
        wl["spec"]["maximumExecutionTimeSeconds"] = d.pick([1, 2, 5, 3600])
        d.features.add("max_exec=pending")
        return
    wl["spec"]["maximumExecutionTimeSeconds"] = {"left": d.pick([-60, -1, 0, 1, 2, 5, 3600], "max_exec_left")}
    if d.int(0, 2) == 0:
        wl["status"]["accumulatedPastExecutionTimeSeconds"] = d.pick([0, 30, 600])
        d.features.add("past_exec")


def _timers_near(docs: list[dict]) -> None:
    """`max_exec` and `retry_after`: the times drawn from the run's clock made numbers and times. Kueue's timer of an
    Admitted workload ends at the Admitted condition's time plus the maximum less the past execution time; a Retry
    check's requeue at its lastTransitionTime plus requeueAfterSeconds."""
    drawn = [x for x in docs if x.get("kind") == "Workload"
             and (isinstance(x["spec"].get("maximumExecutionTimeSeconds"), dict)
                  or any(isinstance(c.get("lastTransitionTime"), int)
                         for c in x.get("status", {}).get("admissionChecks", [])))]
    if not drawn:
        return
    now = _run_clock(docs)
    for wl in drawn:
        status = wl.get("status", {})
        for c in status.get("admissionChecks", []):
            if isinstance(c.get("lastTransitionTime"), int):
                c["lastTransitionTime"] = _stamp(now + timedelta(seconds=c["lastTransitionTime"]))
        if isinstance(left := wl["spec"].get("maximumExecutionTimeSeconds"), dict):
            since = next(c["lastTransitionTime"] for c in status["conditions"] if c["type"] == "QuotaReserved")
            since = next((c["lastTransitionTime"] for c in status["conditions"] if c["type"] == "Admitted"), since)
            ran = int((now - datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)).total_seconds())
            wl["spec"]["maximumExecutionTimeSeconds"] = max(
                1, ran + status.get("accumulatedPastExecutionTimeSeconds", 0) + left["left"])


def _tas_request(d: _Draw) -> dict | None:
    if "tas" not in d.features:
        return None
    kind = d.int(0, 3)
    if kind == 1 and d.on("tas_required", 1):
        return {"required": d.pick(d.tas_levels())}
    if kind == 2 and d.on("tas_preferred", 1):
        return {"preferred": d.pick(d.tas_levels())}
    if kind == 3 and d.on("tas_unconstrained", 1):
        return {"unconstrained": True}
    return None


def _group_request(d: _Draw) -> dict:
    """A pod-set group's level: required or preferred (Kueue keeps a group only beside one)."""
    return {d.pick(["required", "preferred"]): d.pick(d.tas_levels())}


def _tas_annotations(req: dict | None) -> dict:
    if not req:
        return {}
    if "required" in req:
        return {"kueue.x-k8s.io/podset-required-topology": req["required"]}
    if "preferred" in req:
        return {"kueue.x-k8s.io/podset-preferred-topology": req["preferred"]}
    return {"kueue.x-k8s.io/podset-unconstrained-topology": "true"}


SLICE_LEVEL, SLICE_SIZE = "kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size"


def _slices(d: _Draw, count: int, mode: str | None) -> tuple[str, int] | None:
    """Pod-set slices (`tas_slices`, opt-in; nothing drawn unless allowed): a level of the topology,
    any (one above the pod set's own level Kueue refuses to place), and a size of at most the pod
    set's `count` (Kueue's webhook refuses more on a job; on a Workload it is no fit), dividing it or
    not; None where not drawn. `mode` is the pod set's own request (required, preferred,
    unconstrained or None), recorded as `slice_with=MODE`."""
    if "tas" not in d.features or not d.on("tas_slices", 0.4):
        return None
    level, size = d.pick(d.tas_levels()), d.int(1, count)
    if d.on("negative_slices", 0.3):  # (opt-in) a size Kueue's webhook refuses on a job, no fit on a Workload
        size = d.pick([-1, -count, -count - 1])  # (0: Kueue divides by it and panics; KAD157)
        d.features.add("slice_size=negative")
        return level, size
    d.features |= {f"slice_with={mode or 'none'}", f"slice_divides={count % size == 0}"}
    return level, size


def _slice_annotations(d: _Draw, template: dict, count: int) -> None:
    """A job's pod template with the slice annotations (`tas_slices`), where drawn."""
    ann = template.get("metadata", {}).get("annotations", {})
    mode = next((m for m in ("required", "preferred", "unconstrained") if f"kueue.x-k8s.io/podset-{m}-topology" in ann),
                None)
    if drawn := _slices(d, count, mode):
        d.features.add("slice_on=job")
        template.setdefault("metadata", {}).setdefault("annotations", {}).update(
            {SLICE_LEVEL: drawn[0], SLICE_SIZE: str(drawn[1])})


def _workload_extras(d: _Draw, pod_set: dict, resources: list[str], lr: bool) -> None:
    """A pending Workload's pod template as Kueue's queue manager adjusts it before counting it
    (`workload_pod_extras`, opt-in; nothing drawn unless allowed): an init container asking by
    requests or limits, a sidecar, a RuntimeClass, a container with limits only, or with no requests
    where the namespace's LimitRange fills them (`wl_extra=KIND`). A template with pod-level
    resources is left as it is (they must cover what the containers ask)."""
    spec = pod_set["template"]["spec"]
    if "resources" in spec or not d.on("workload_pod_extras", 0.5):
        return
    kinds = ["init_requests", "init_limits", "sidecar", "runtime_class", "limits_only"]
    extra = d.pick(kinds + (["limit_range"] if lr else []), "wl_extra")
    main = spec["containers"][0]
    if extra in ("init_requests", "init_limits"):
        key = extra.removeprefix("init_")
        spec["initContainers"] = [{"name": "init", "image": "busybox", "resources": {key: _requests(d, resources)}}]
        d.features |= {"init_containers"} | ({"limits_only"} if key == "limits" else set())
    elif extra == "sidecar":
        spec["initContainers"] = [{"name": "sidecar", "image": "envoy", "restartPolicy": "Always",
                                   "resources": {"requests": {"cpu": "500m"}}}]
        d.features.add("sidecars")
    elif extra == "runtime_class":
        spec["runtimeClassName"] = "kata"
        d.features.add("overhead")
    elif extra == "limits_only":
        main["resources"] = {"limits": main["resources"]["requests"]}
        d.features.add("limits_only")
    else:
        main["resources"] = {}
        d.features.add("limit_range")


def _template(d: _Draw, resources: list[str], lr: bool, *, job: bool = True) -> dict:
    t: dict = {"spec": _pod_spec(d, resources, job=job, namespace_has_limit_range=lr)}
    if ext := _ext_requests(d):  # (resource_config: opt-in) limits equal to requests, as the API server wants
        main = t["spec"]["containers"][0]["resources"]
        for key in ("requests", "limits"):
            main[key] = {**main.get(key, {}), **ext}
    ann = _tas_annotations(_tas_request(d))
    if ann:
        t["metadata"] = {"annotations": ann}
    return t


def _job(d: _Draw, kind: str, name: str, ns: str, labels: dict, resources: list[str], lr: bool) -> list[dict]:
    """One job of `kind`, as Kueue's integration reads it; a PodGroup is several Pods."""
    meta = {"name": name, "namespace": ns, "labels": dict(labels)}
    n = d.int(1, 3)
    if kind == "Job":
        spec: dict = {"parallelism": n, "completions": n, "template": _template(d, resources, lr)}
        _slice_annotations(d, spec["template"], n)  # (tas_slices: opt-in)
        if n > 1 and d.on("partial_admission", 0.25):
            meta["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": str(d.int(1, n - 1))}
        return [{"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}]
    if kind == "JobSet":
        rjs = [{"name": f"r{i}", "replicas": d.int(1, 2), "template": {"spec": {
            "parallelism": n, "completions": n, "template": _template(d, resources, lr)}}} for i in range(d.int(1, 2))]
        for rj in rjs:  # (tas_slices: opt-in) a replicated job's pod set counts replicas × parallelism
            _slice_annotations(d, rj["template"]["spec"]["template"], rj["replicas"] * n)
        return [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
                 "spec": {"replicatedJobs": rjs}}]
    if kind == "LeaderWorkerSet":
        lwt: dict = {"size": d.int(1, 3), "workerTemplate": _template(d, resources, lr, job=False)}
        if d.int(0, 1):
            lwt["leaderTemplate"] = _template(d, resources, lr, job=False)
            if "tas" in d.features and d.on("tas_groups", 0.5):  # leader and workers as one pod-set group
                ann = {**_tas_annotations(_group_request(d)), "kueue.x-k8s.io/podset-group-name": "replica"}
                for t in (lwt["leaderTemplate"], lwt["workerTemplate"]):
                    t["metadata"] = {"annotations": dict(ann)}
        return [{"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": meta,
                 "spec": {"replicas": d.int(1, 2), "leaderWorkerTemplate": lwt}}]
    if kind in ("RayJob", "RayCluster"):
        head = _template(d, resources, lr, job=False)
        cluster = {"headGroupSpec": {"rayStartParams": {}, "template": head},
                   "workerGroupSpecs": [{"groupName": "w", "replicas": n, "rayStartParams": {},
                                         "template": _template(d, resources, lr, job=False)}]}
        if kind == "RayCluster":
            return [{"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": meta, "spec": cluster}]
        return [{"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": meta,
                 "spec": {"entrypoint": "python run.py", "shutdownAfterJobFinishes": True, "rayClusterSpec": cluster}}]
    if kind == "PyTorchJob":
        specs = {"Master": {"replicas": 1, "template": _template(d, resources, lr)},
                 "Worker": {"replicas": n, "template": _template(d, resources, lr)}}
        for s in specs.values():
            s["template"]["spec"]["containers"][0]["name"] = "pytorch"
        return [{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": meta,
                 "spec": {"pytorchReplicaSpecs": specs}}]
    if kind in TRAINING:
        version, field, types, container = TRAINING[kind]
        specs = {}
        for t in types:
            if t == types[-1] or d.int(0, 1):  # the last (workers) always; the others sometimes
                specs[t] = {"replicas": n if t in ("Worker", "PS") else 1, "template": _template(d, resources, lr)}
                specs[t]["template"]["spec"]["containers"][0]["name"] = container
        spec = {field: specs} | ({"slotsPerWorker": 1} if kind == "MPIJob" else {})
        return [{"apiVersion": version, "kind": kind, "metadata": meta, "spec": spec}]
    if kind == "RayService":
        cluster = {"headGroupSpec": {"rayStartParams": {}, "template": _template(d, resources, lr, job=False)},
                   "workerGroupSpecs": [{"groupName": "w", "replicas": n, "rayStartParams": {},
                                         "template": _template(d, resources, lr, job=False)}]}
        return [{"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": meta,
                 "spec": {"rayClusterConfig": cluster}}]
    if kind == "TrainJob":
        runtime = f"rt-{name}"
        container = {"name": "node", "image": "torch", "resources": {"requests": _requests(d, resources)}}
        pod: dict = {"containers": [container]}
        if d.on("trainjob_pod_extras", 0.7):  # (opt-in: draws nothing unless allowed) as a Job's template
            pod = _pod_spec(d, resources, job=True, namespace_has_limit_range=lr)
            pod["containers"][0]["name"] = "node"
        rt = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
              "metadata": {"name": runtime},
              "spec": {"mlPolicy": {"numNodes": n, "torch": {}}, "template": {"spec": {"replicatedJobs": [
                  {"name": "node", "template": {
                      "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                      "spec": {"template": {"spec": pod}}}}]}}}}
        tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta,
              "spec": {"runtimeRef": {"name": runtime}}}
        if d.int(0, 1):
            tj["spec"]["trainer"] = {"numNodes": d.int(1, 3)}
        return [rt, tj]
    if kind == "AppWrapper":
        t = _template(d, resources, lr)
        extras = [c for c in t["spec"].get("initContainers", []) if c.get("restartPolicy")] \
            + (["runtimeClassName"] if "runtimeClassName" in t["spec"] else [])
        if extras and "appwrapper_pod_extras" not in d.allowed:  # DIVERGENCES.md: AppWrapper sidecar/overhead
            t["spec"].pop("runtimeClassName", None)
            t["spec"]["initContainers"] = [c for c in t["spec"].get("initContainers", []) if not c.get("restartPolicy")]
            if not t["spec"]["initContainers"]:
                del t["spec"]["initContainers"]
        elif extras:
            d.features.add("appwrapper_pod_extras")
        inner = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"{name}-inner"},
                 "spec": {"parallelism": n, "completions": n, "template": t}}
        return [{"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper", "metadata": meta,
                 "spec": {"components": [{"template": inner}]}}]
    if kind == "Pod":
        t = _template(d, resources, lr)
        meta["annotations"] = t.get("metadata", {}).get("annotations", {})
        if not meta["annotations"]:
            del meta["annotations"]
        return [{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": t["spec"]}]
    if kind == "PodGroup":
        t = _template(d, resources, lr)
        spec = t["spec"]
        mutated = bool(t.get("metadata") or spec.get("initContainers") or spec.get("runtimeClassName")
                       or "requests" not in spec["containers"][0]["resources"])
        if mutated and "pod_group_hash" not in d.allowed:  # DIVERGENCES.md: a pod group's role hash
            return _job(d, "Pod", name, ns, labels, resources, lr)
        if mutated:
            d.features.add("pod_group_hash")
        pods = []
        for i in range(n + 1):
            m = {"name": f"{name}-{i}", "namespace": ns,
                 "labels": dict(labels) | {"kueue.x-k8s.io/pod-group-name": name},
                 "annotations": {"kueue.x-k8s.io/pod-group-total-count": str(n + 1)}
                 | t.get("metadata", {}).get("annotations", {})}
            pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": t["spec"]})
        return pods
    if kind in ("Deployment", "StatefulSet"):
        t = _template(d, resources, lr, job=False)
        t.setdefault("metadata", {})["labels"] = {"app": name}
        spec = {"replicas": n, "selector": {"matchLabels": {"app": name}}, "template": t}
        if kind == "StatefulSet":
            spec["serviceName"] = name
        return [{"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec}]
    raise ValueError(kind)


def _nodes(d: _Draw, flavor: str, resources: list[str]) -> list[dict]:
    """A flavor's nodes in racks (and blocks of racks), each labelled on every level the topology may
    have; a node's hostname label is its name, or under `hostname_label` a value of its own (under
    `shared_hostname`, maybe the rack's previous node's)."""
    out = []
    for r in range(d.int(1, 3 if BLOCK in d.levels else 2)):
        prev = None
        for h in range(d.int(1, 3)):
            name = f"{flavor}-r{r}-n{h}"
            cap = {"cpu": str(d.pick([4, 8])), "memory": "32Gi", "pods": "110"}
            if d.ext:  # (tas_resource_config: opt-in) what the node has of the pods' extended resources
                cap |= {r: str(n) for r in d.ext if (n := d.pick([0, 2, 4, 4]) if r != NIC else d.int(0, 1))}
                if d.int(0, 3) == 0:  # credits, which no pod asks for but Kueue's TAS fit check counts
                    cap[CREDITS] = str(d.pick([4, 16]))
            host = f"{name}.example.com" if "hostname_label" in d.features else name
            if prev is not None and "shared_hostname" in d.features and d.draw(st.booleans()):
                host = prev  # the rack's previous node's: one leaf of the two to Kueue
            host = prev = d.hostname[name] = host
            labels = {"pool": flavor, BLOCK: f"{flavor}-b{r // 2}", RACK: f"{flavor}-r{r}", HOST: host}
            d.domain[name] = [labels[k] for k in d.levels]
            out.append({"apiVersion": "v1", "kind": "Node",
                        "metadata": {"name": name, "labels": labels},
                        "status": {"allocatable": cap, "capacity": cap,
                                   "conditions": [{"type": "Ready", "status": "True"}]}})
    return out


def _job_management(d: _Draw, config: dict) -> None:
    """Which jobs Kueue manages (`job_management`): the Configuration's manageJobsWithoutQueueName,
    managedJobsNamespaceSelector and a framework left out of its integrations."""
    manage = d.pick(["absent", "true", "false"], "manage_without_queue")
    if manage != "absent":
        config["manageJobsWithoutQueueName"] = manage == "true"
    form = d.pick(["absent", "labels", "not_in"], "managed_ns")
    if form == "labels":
        config["managedJobsNamespaceSelector"] = {"matchLabels": {"kueue-managed": "yes"}}
    elif form == "not_in":  # Kueue's default's namespaces and one queue's
        config["managedJobsNamespaceSelector"] = {"matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "NotIn",
             "values": ["kube-system", "kueue-system", f"ns-cq{d.int(0, 2)}"]}]}
    if d.int(0, 1):
        off = d.pick(FRAMEWORKS, "framework_off")
        config["integrations"]["frameworks"] = [f for f in FRAMEWORKS if f != off]


@st.composite
def clusters(draw, allowed: frozenset[str] = ALL) -> Cluster:
    """One cluster drawing only the `allowed` switches."""
    d = _Draw(draw, allowed)
    sp = d.second_pass = d.on("second_pass", 1)  # (opt-in: draws nothing unless allowed)
    docs: list[dict] = []
    resources = ["cpu", "memory"] if d.on("memory", 0.3) else ["cpu"]
    flavors = [f"f{i}" for i in range(d.int(1, 3) if d.on("flavors", 0.7) else 1)]
    d.on("flavor_selectors", 0.2)
    d.on("flavor_taints", 0.15)
    fair = d.on("fair_sharing", 0.4 if sp else 0.25)
    afs = not fair and d.on("admission_fair_sharing", 0.15)
    jobs = d.on("jobs", 0.2 if sp else 0.5)  # (a job's Workload has no check states: Pending)
    rc = d.on("resource_config", 1)  # (opt-in: draws nothing unless allowed)
    dra = (not rc or "dra_resource_config" in allowed) and d.on("dra", 1)  # (opt-in: draws nothing unless allowed)
    if rc and dra:  # (opt-in) transformations beside the device class mappings
        d.features.add("dra_resource_config")
    if rc and not dra and "tas_resource_config" in allowed:  # (opt-in) nodes with the extended resources pods ask for
        tas = d.on("tas_resource_config", 0.7)
        if tas:
            d.features.add("tas")
    else:
        tas = not rc and not dra and d.on("tas", 1 if sp else 0.25)  # (nodes have no extended resources)
    if tas and d.on("tas_leaf_levels", 0.35):  # Kueue's leaves are racks: no hostname level
        d.levels = {"block+rack": [BLOCK, RACK], "rack": [RACK]}[d.pick(["block+rack", "rack"], "leaf_levels")]
    if tas and "tas_leaf_levels" not in d.features and d.on("tas_three_levels", 0.6):  # (opt-in)
        d.levels = [BLOCK, RACK, HOST]  # blocks of racks of nodes: a level between the rack and the top
    if tas and d.on("hostname_label", 0.3):
        d.on("shared_hostname", 0.4)
    if tas and len(flavors) > 1 and not d.on("tas_flavors", 1):
        flavors = flavors[:1]
    groups = [(resources, flavors)]
    if len(resources) > 1 and (not tas or "tas_resource_groups" in allowed) and d.on("resource_groups", 0.3):
        groups = [(["cpu"], flavors), (["memory"], [f"m{i}" for i in range(d.int(1, 2))])]  # memory over its own
        if tas:  # (opt-in)
            d.features.add("tas_resource_groups")
    if "tas_resource_config" in d.features and d.int(0, 1):  # (opt-in) the credits quota-only, on a plain flavor
        groups.append(([CREDITS], ["q0"]))
        d.features.add("credits_group")
    if dra:  # (opt-in) not under TAS: Kueue v0.17.0 does not place DRA pods on nodes
        d.quota_extra = [WHOLE_GPUS]
        d.claim_templates = list(CLAIM_TEMPLATES)
    if fair or afs or jobs or rc or dra:
        config: dict = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                        "integrations": {"frameworks": list(FRAMEWORKS)}}
        if fair:
            config["fairSharing"] = {"preemptionStrategies": d.pick(
                [["LessThanOrEqualToFinalShare", "LessThanInitialShare"], ["LessThanOrEqualToFinalShare"],
                 ["LessThanInitialShare"]])}
            d.features.add("strategies=" + "+".join(config["fairSharing"]["preemptionStrategies"]))
        if afs:
            config["admissionFairSharing"] = {"usageHalfLifeTime": "168h", "usageSamplingInterval": "5m"}
            if d.on("afs_weights", 1):  # (opt-in: draws nothing unless allowed)
                config["admissionFairSharing"]["usageHalfLifeTime"] = d.pick(["0s", "1h", "168h"], "half_life")
                weights = {"cpu": d.pick([0.5, 1, 2])}
                if "memory" in resources and d.int(0, 1):
                    weights["memory"] = d.pick([0, 0.25])
                config["admissionFairSharing"]["resourceWeights"] = weights
        if rc:
            config["resources"] = _resources_config(d)
        if dra:
            if d.pick(["on", "on", "on", "off"], "dra_gate") == "on":
                config["featureGates"] = {"DynamicResourceAllocation": True}
            config.setdefault("resources", {})["deviceClassMappings"] = [  # (dra_resource_config: beside transformations)
                {"name": WHOLE_GPUS, "deviceClassNames": ["gpu.example.com", "big-gpu.example.com"]}]
        if jobs and d.on("job_management", 1):  # (opt-in: draws nothing unless allowed)
            _job_management(d, config)
        docs.append(config)
    if tas:
        docs.append({"apiVersion": API, "kind": "Topology", "metadata": {"name": "dc"},
                     "spec": {"levels": [{"nodeLabel": k} for k in d.levels]}})
    for i, f in enumerate(flavors):
        fl: dict = {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": f}}
        nodes = []
        if tas:
            fl["spec"] = {"nodeLabels": {"pool": f}, "topologyName": "dc"}
            nodes = _nodes(d, f, resources)
            d.free[f] = {n["metadata"]["name"]: {"cpu": int(n["status"]["allocatable"]["cpu"]) * 1000, "memory": 32}
                         for n in nodes}
        _flavor_rules(d, flavors, fl, i, tas)
        for n in nodes:  # the flavor's taint on some of its nodes
            if fl.get("spec", {}).get("nodeTaints") and d.int(0, 1):
                n["spec"] = {"taints": [dict(fl["spec"]["nodeTaints"][0])]}
                d.features.add("node_taints")
        docs += nodes
        docs.append(fl)
    for f in groups[-1][1] if len(groups) > 1 else []:
        fl = {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": f}}
        if "tas_resource_groups" in d.features and d.int(0, 2):  # (opt-in) topology-aware, over f0's nodes
            fl["spec"] = {"nodeLabels": {"pool": flavors[0]}, "topologyName": "dc"}
            d.features.add("second_tas_flavor")
        docs.append(fl)
    if tas and d.on("node_pods", 0.3):
        docs += _node_pods(d, resources)
    cohorts, cohort_docs = _cohorts(d, groups)
    docs += cohort_docs
    queues = []
    kinds = [k for k in JOB_KINDS if f"job:{k}" in allowed]
    limit_ranges = False
    one_queue = tas and "tas_queues" not in allowed  # several queues over the same nodes: TAS within one cycle
    for i in range(1 if one_queue else d.int(1, 3)):
        if tas and i == 1:
            d.features.add("tas_queues")
        name = f"cq{i}"
        cq, quotas, cq_groups = _cluster_queue(d, name, groups, cohorts)
        docs.append(cq)
        ns = f"ns-{name}"
        ns_doc: dict = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
        if cq["spec"].get("namespaceSelector", {}) != {} and d.int(0, 2):
            ns_doc["metadata"]["labels"] = {"team": name}
        if "managed_ns=labels" in d.features and d.int(0, 2):
            ns_doc["metadata"].setdefault("labels", {})["kueue-managed"] = "yes"
        docs.append(ns_doc)
        lqs = ["lq", "lq2"] if afs else ["lq"]
        if dra:
            docs += _claim_templates(ns)
        if "job_management" in d.features and d.int(0, 1):
            lqs.append("default")  # LocalQueueDefaulting's queue
            d.features.add("default_lq")
        for lq in lqs:
            q: dict = {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": lq, "namespace": ns},
                       "spec": {"clusterQueue": name}}
            if d.on("stop_policy", 0 if sp else 0.05):
                q["spec"]["stopPolicy"] = d.pick(["Hold", "HoldAndDrain"], "stopPolicy")
            if afs and d.int(0, 1):
                q["status"] = {"fairSharing": {"admissionFairSharingStatus": {
                    "consumedResources": {"cpu": str(d.int(1, 50))}, "lastUpdate": _stamp(START)}}}
                if "afs_weights" in d.features and "memory" in resources and d.int(0, 1):
                    q["status"]["fairSharing"]["admissionFairSharingStatus"]["consumedResources"]["memory"] = \
                        f"{d.int(1, 40)}Gi"
            if "afs_weights" in d.features and d.int(0, 1):
                q["spec"]["fairSharing"] = {"weight": d.pick(["0", "1", "2", "500m"], "lq_weight")}
            docs.append(q)
        lr = (jobs or "workload_pod_extras" in allowed) and "limit_range" in allowed and d.int(0, 3) == 0
        if lr:
            limit_ranges = True
            docs += _limit_ranges(d, ns)
        queues.append((name, ns, lqs, quotas, lr, cq_groups))
    if jobs and kinds and "priority_class" in allowed:
        docs.append({"apiVersion": API, "kind": "WorkloadPriorityClass", "metadata": {"name": "wpc-high"}, "value": 100})
        docs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc-mid"},
                     "value": 50})

    used: dict = {}
    serial = 0
    for _ in range(d.int(9, 24) if d.on("many_workloads", 1) else d.int(1, 8)):  # (opt-in: no draw unless allowed)
        name, ns, lqs, quotas, lr, cq_groups = d.pick(queues)
        lq = d.pick(lqs)
        serial += 1
        created = START + timedelta(hours=1, minutes=serial)
        if jobs and "job:Job" in allowed and not tas and d.on("running_jobs", 0.12):
            docs += _running_job(d, f"j{serial:02d}", ns, lq, name, serial, created, resources, cq_groups, quotas,
                                 used, {doc["metadata"]["name"]: doc.get("spec", {}).get("nodeLabels", {})
                                        for doc in docs if doc["kind"] == "ResourceFlavor"})
            continue
        if jobs and kinds and d.int(0, 1):
            kind = d.pick(kinds)
            labels = {"kueue.x-k8s.io/queue-name": lq}
            if "job_management" in d.features and d.int(0, 2) == 0:
                labels = {}  # Kueue manages it or not by the Configuration; `default` names it where there is one
                d.features.add("no_queue_name")
            if kind == "PodGroup" and tas and "pod_group_hash" not in allowed:
                kind = "Pod"  # DIVERGENCES.md: a pod group's pod set name on a topology-aware flavor
            if (kind != "PodGroup" or "pod_group_hash" in allowed) and d.on("priority_class", 0.3):
                labels["kueue.x-k8s.io/priority-class"] = "wpc-high"
            if kind == "PodGroup" and (tas or "kueue.x-k8s.io/priority-class" in labels):
                d.features.add("pod_group_hash")
            objs = _job(d, kind, f"j{serial:02d}", ns, labels, resources, lr)
            d.features.add(f"job:{'Pod' if kind == 'PodGroup' and len(objs) == 1 else kind}")
            existing = d.on("existing_jobs", 0.2)
            if objs[0]["kind"] == "Pod" and _bounded(docs, ns):
                # a pod being submitted outside its namespace's LimitRange bounds is refused by the API server's
                # LimitRanger (kadmit: KAD157, the oracle runs no admission plugin): such a pod is one created before
                existing = True
            for i, o in enumerate(objs):
                if o["kind"] in ("ClusterTrainingRuntime",):
                    continue
                o["metadata"]["creationTimestamp"] = _stamp(created)
                if existing:
                    o["metadata"]["uid"] = f"00000000-0000-{i:04d}-0001-{serial:012d}"
            if existing and objs[-1]["kind"] in RUNNING_STATES and d.on("running_jobs", 0.3):
                _running_state(d, objs[-1], created)
            if existing and objs[0]["kind"] == "Pod" and d.on("pod_states", 0.8):  # (opt-in: draws nothing unless allowed)
                _pod_states(d, objs)
            if ("overhead" in d.features or "priority_class" in d.features) and d.int(0, 3) == 0 \
                    and "priority_class" in allowed and objs[-1]["kind"] == "Job":
                objs[-1]["spec"]["template"]["spec"]["priorityClassName"] = "pc-mid"
                d.features.add("priority_class")
            docs += objs
            continue
        pods = d.int(1, 4)
        req = _requests(d, resources)
        pod_set: dict = {"name": "main", "count": pods,
                         "template": {"spec": {"restartPolicy": "Never", "containers": [
                             {"name": "c", "image": "busybox", "resources": {"requests": req}}]}}}
        _scheduling(d, pod_set["template"]["spec"])
        topo = _tas_request(d)
        if topo:
            pod_set["topologyRequest"] = topo
        pod_sets = [pod_set]
        if "tas" in d.features and d.on("tas_groups", 0.3):  # a leader and `main` as one pod-set group
            topo = pod_set["topologyRequest"] = {**_group_request(d), "podSetGroupName": "g"}
            pod_sets.insert(0, {"name": "leader", "count": 1, "topologyRequest": dict(topo),
                                "template": {"spec": {"restartPolicy": "Never", "containers": [
                                    {"name": "c", "image": "busybox",
                                     "resources": {"requests": _requests(d, resources)}}]}}})
        if len(pod_sets) == 1 and d.on("pod_sets", 0.2):  # a second pod set, its own size and requests
            worker: dict = {"name": "worker", "count": d.int(1, 3), "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                          "resources": {"requests": _requests(d, resources)}}]}}}
            _scheduling(d, worker["template"]["spec"])
            if topo := _tas_request(d):
                worker["topologyRequest"] = topo
            pod_sets.append(worker)
        wl: dict = {"apiVersion": API, "kind": "Workload",
                    "metadata": {"name": f"w{serial:02d}", "namespace": ns,
                                 "uid": f"00000000-0000-0000-0000-{serial:012d}"},
                    "spec": {"queueName": lq, "podSets": pod_sets}}
        if d.on("priorities", 0.9 if sp else 0.6):
            wl["spec"]["priority"] = d.pick([0, 10, 100])
        if d.on("pod_level", 0.15):  # a Workload's pod set: its own requests count where set
            own = pod_set["template"]["spec"]["resources"] = _pod_level(d, resources)
            req = {**req, **{r: q for r, q in own.get("requests", {}).items() if r in resources}}
        if d.on("inactive", 0 if sp else 0.06):
            wl["spec"]["active"] = False
        # what each pod set needs of each resource, in total (`main`'s with its pod-level requests)
        need = {ps["name"]: {r: _parse((req if ps is pod_set else ps["template"]["spec"]["containers"][0]["resources"]
                                        ["requests"])[r]) * ps["count"] for r in resources} for ps in pod_sets}
        total = {r: sum(n[r] for n in need.values()) for r in resources}
        fit = []  # per resource group: its resources and the flavors with room for them
        for covered, mine in cq_groups:
            room = [f for f in mine if all(used.get((name, f, r), 0) + total.get(r, 0)
                                           <= quotas[(f, r)] * (1000 if r == "cpu" else 1) for r in covered)]
            fit.append((covered, room))
        placed = None
        if tas and resources == ["cpu"] and "overhead" in allowed and d.on("overhead", 0.1):
            # a RuntimeClass's overhead: Kueue counts it in the quota and records it in an
            # admission's resourceUsage, which its TAS cache divides among the pods
            for ps in pod_sets:
                ps["template"]["spec"]["runtimeClassName"] = "kata"
                need[ps["name"]]["cpu"] += 250 * ps["count"]
            total = {r: sum(n[r] for n in need.values()) for r in resources}
            fit = [(covered, [f for f in room if all(used.get((name, f, r), 0) + total.get(r, 0)
                                                     <= quotas[(f, r)] * (1000 if r == "cpu" else 1) for r in covered)])
                   for covered, room in fit]
        if tas and all(room for _, room in fit) and "tas_admitted" in allowed and "tas_resource_groups" not in d.features \
                and d.int(0, 99) < (50 if sp else 35):
            placed = _tas_place(d, d.pick(fit[0][1]), pod_sets, need, resources)
        if placed is not None:
            flavor, per_node = placed
            d.features.add("tas_admitted")
            for r in resources:
                used[(name, flavor, r)] = used.get((name, flavor, r), 0) + total[r]
            at = _stamp(START + timedelta(minutes=serial))
            wl["metadata"]["creationTimestamp"] = _stamp(START + timedelta(seconds=serial))
            encoding = d.pick(["individual", "individual", "prefix", "slices", "universal_count", "no_assignment"],
                              "ta_encoding")
            psas = []
            for ps in pod_sets:
                psa = {"name": ps["name"], "count": ps["count"], "flavors": {r: flavor for r in resources},
                       "resourceUsage": {r: _show(r, need[ps["name"]][r]) for r in resources}}
                if encoding != "no_assignment":
                    psa["topologyAssignment"] = _topology_assignment(d, per_node[ps["name"]], encoding, flavor)
                psas.append(psa)
            if d.on("tas_pods", 0.5):  # the running pods, as a live cluster's export holds them
                docs += _tas_pods(wl, pod_sets, per_node, need, resources)
            wl["status"] = {
                "admission": {"clusterQueue": name, "podSetAssignments": psas},
                "conditions": [
                    {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                     "message": f"Quota reserved in ClusterQueue {name}", "lastTransitionTime": at},
                    {"type": "Admitted", "status": "True", "reason": "Admitted",
                     "message": "The workload is admitted", "lastTransitionTime": at}]}
        elif not tas and all(room for _, room in fit) and d.on("admitted", 0.4):
            flavor_of = {}
            for covered, room in fit:
                f = d.pick(room)
                flavor_of |= {r: f for r in covered}
            for r in resources:
                used[(name, flavor_of[r], r)] = used.get((name, flavor_of[r], r), 0) + total[r]
            at = _stamp(START + timedelta(minutes=serial))
            wl["metadata"]["creationTimestamp"] = _stamp(START + timedelta(seconds=serial))
            wl["status"] = {
                "admission": {"clusterQueue": name, "podSetAssignments": [
                    {"name": ps["name"], "count": ps["count"], "flavors": flavor_of,
                     "resourceUsage": {r: _show(r, need[ps["name"]][r]) for r in resources}} for ps in pod_sets]},
                "conditions": [
                    {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                     "message": f"Quota reserved in ClusterQueue {name}", "lastTransitionTime": at},
                    {"type": "Admitted", "status": "True", "reason": "Admitted",
                     "message": "The workload is admitted", "lastTransitionTime": at}]}
        else:
            wl["metadata"]["creationTimestamp"] = _stamp(created)
            for ps in pod_sets if d.ext else []:  # (resource_config: opt-in)
                ps["template"]["spec"]["containers"][0]["resources"]["requests"].update(_ext_requests(d))
            for ps in pod_sets if d.claim_templates else []:  # (dra: opt-in)
                if d.int(0, 3):
                    _claim(d, ps)
            if d.on("requeue_states", 0.4):  # (opt-in: draws nothing unless allowed)
                wl["status"] = _requeue_state(d)
            for ps in pod_sets:  # (workload_pod_extras, tas_slices: opt-in)
                _workload_extras(d, ps, resources, lr)
                tr = ps.get("topologyRequest", {})
                if ("podSetGroupName" not in tr or ps["name"] == "main") and (drawn := _slices(d, ps["count"], next(
                        (m for m in ("required", "preferred", "unconstrained") if m in tr), None))):
                    d.features.add("slice_on=workload" if "podSetGroupName" not in tr else "slice_on=group")
                    ps["topologyRequest"] = {**tr, "podSetSliceRequiredTopology": drawn[0], "podSetSliceSize": drawn[1]}
            partial = [ps for ps in pod_sets if ps["count"] > 1 and ps["name"] != "leader"]
            if partial and d.on("partial_admission", 0.25):  # at most one pod set may have a minCount
                ps = partial[0] if len(partial) == 1 else d.pick(partial)
                ps["minCount"] = d.int(1, ps["count"] - 1)
        _workload_more(d, wl)
        docs.append(wl)
    if d.on("admission_checks", 1 if sp or "retry_after" in d.allowed else 0.3):
        _admission_checks(d, docs, tas)
    if "overhead" in d.features:
        docs.insert(0, {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
                        "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "128Mi"}}})
    if limit_ranges and "limit_range" not in d.features:
        d.features.add("limit_range_unused")
    if d.on("elastic", 1):  # (opt-in: draws nothing unless allowed)
        _elastic(d, docs)
    if "requeue_near" in d.features:
        _requeue_near(docs)
    _timers_near(docs)
    if "wl_priority_class" in d.features and not any(doc["kind"] == "WorkloadPriorityClass" for doc in docs):
        docs.append({"apiVersion": API, "kind": "WorkloadPriorityClass", "metadata": {"name": "wpc-high"}, "value": 100})
        docs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc-mid"},
                     "value": 50})
    if "tas" in d.features and d.on("tas_balanced", 0.8):  # (opt-in)
        _configuration(docs).setdefault("featureGates", {})["TASBalancedPlacement"] = True
    if d.on("gates_default", 0.7):  # (opt-in: draws nothing unless allowed)
        _gates_default(d, docs)
    if d.on("gates_flipped", 1):  # (opt-in: draws nothing unless allowed)
        _gates_flipped(d, docs)
    if "elastic" in d.features:  # (after `gates_default`, which may name them at their defaults)
        gates = _configuration(docs).setdefault("featureGates", {})
        gates["ElasticJobsViaWorkloadSlices"] = True
        if "elastic_tas" in d.features:
            gates["ElasticJobsViaWorkloadSlicesWithTAS"] = True
    return Cluster(docs, d.features)


def _workload_more(d: _Draw, wl: dict) -> None:
    """A generated Workload's opt-in extras (nothing drawn unless allowed): `reclaimable`,
    `wl_priority_class`, `preemption_gates`."""
    state = ("tas_admitted" if "topologyAssignment" in str(wl.get("status", {}).get("admission"))
             else "admitted" if "admission" in wl.get("status", {}) else "pending")
    if d.on("reclaimable", 0.5):
        got = [{"name": ps["name"], "count": d.int(1, ps["count"])} for ps in wl["spec"]["podSets"] if d.int(0, 2)]
        if got:
            wl.setdefault("status", {})["reclaimablePods"] = got
            d.features.add(f"reclaim_on={state}")
    if d.on("wl_priority_class", 0.4):
        ref = d.pick([("kueue.x-k8s.io", "WorkloadPriorityClass", "wpc-high"),
                      ("scheduling.k8s.io", "PriorityClass", "pc-mid")])
        wl["spec"]["priorityClassRef"] = dict(zip(("group", "kind", "name"), ref))
        form = d.pick(["no_priority", "no_priority", "own_priority"], "wl_pc")
        if form == "no_priority":
            wl["spec"].pop("priority", None)
        else:
            wl["spec"]["priority"] = d.pick([0, 10, 100, 1000])
    if d.on("max_exec", 0.4):
        _max_exec(d, wl, state)
    if d.on("preemption_gates", 0.3):
        wl["spec"]["preemptionGates"] = [{"name": "example.com/gate"}]
        gate = d.pick(["Closed", "Open", "absent"], "preemption_gate")
        if gate != "absent":
            wl.setdefault("status", {})["preemptionGates"] = [
                {"name": "example.com/gate", "position": gate, "lastTransitionTime": _stamp(START)}]


def _elastic(d: _Draw, docs: list[dict]) -> None:
    """`elastic`: a slice replacing an admitted generated Workload (none where there is none: the switch is then
    off), its pod sets the old one's with one count scaled, created with the latest object (the oracle's clock
    starts after it: `_requeue_near`), without the old one's status; `elastic_tas` drawn with `tas`."""
    jobs = _elastic_jobs(d, docs)
    olds = [x for x in docs if x["kind"] == "Workload" and "admission" in x.get("status", {})
            and not x["metadata"].get("ownerReferences")]
    if not olds:
        if not jobs:
            d.features.discard("elastic")
        return
    old = olds[d.int(0, len(olds) - 1)]
    new = {"apiVersion": old["apiVersion"], "kind": "Workload", "spec": copy.deepcopy(old["spec"])}
    made = max(x["metadata"]["creationTimestamp"] for x in docs if x.get("metadata", {}).get("creationTimestamp"))
    meta = old["metadata"]
    new["metadata"] = {"name": f"{meta['name']}-s2", "namespace": meta["namespace"],
                       "uid": meta["uid"][:-12] + "9" + meta["uid"][-11:], "creationTimestamp": made,
                       "annotations": {"kueue.x-k8s.io/workload-slice-replacement-for": f"{meta['namespace']}/{meta['name']}"}}
    scale = d.pick(["up", "up", "down", "same"], "elastic_scale")
    ps = d.pick([p for p in new["spec"]["podSets"] if p["name"] != "leader"] or new["spec"]["podSets"])
    if scale == "up":
        ps["count"] += d.int(1, 3)
    elif scale == "down" and ps["count"] > 1:
        ps["count"] -= d.int(1, ps["count"] - 1)
    if ps.get("minCount", 0) >= ps["count"]:
        ps.pop("minCount")
    if "tas" in d.features:
        d.on("elastic_tas")
    docs.append(new)


def _elastic_jobs(d: _Draw, docs: list[dict]) -> int:
    """`elastic`'s jobs: some batch Jobs and pod groups annotated elastic (`kueue.x-k8s.io/elastic-job`), whose
    Workloads Kueue's reconcilers make as slices (`elastic_job=pending|pod_group`); a running Job's admitted
    Workload annotated with it, the Job's parallelism and completions raised or not (`elastic_job=running|
    scaled_up`: a new slice to replace it). How many were drawn."""
    mark = {"kueue.x-k8s.io/elastic-job": "true"}
    drawn = 0
    for job in [x for x in docs if x["kind"] == "Job" and x["apiVersion"] == "batch/v1"]:
        if not d.int(0, 1):
            continue
        drawn += 1
        job["metadata"]["annotations"] = job["metadata"].get("annotations", {}) | mark
        uid = job["metadata"].get("uid")
        wl = next((x for x in docs if x["kind"] == "Workload" and uid
                   and any(o.get("uid") == uid for o in x["metadata"].get("ownerReferences", []))), None)
        if job["spec"].get("suspend") is not False or wl is None:
            d.features.add("elastic_job=pending" if job["spec"].get("suspend") is not False else "elastic_job=running")
            continue
        wl["metadata"]["annotations"] = wl["metadata"].get("annotations", {}) | mark
        if d.int(0, 1):
            job["spec"]["parallelism"] = job["spec"]["completions"] = job["spec"]["parallelism"] + d.int(1, 2)
            d.features.add("elastic_job=scaled_up")
        else:
            d.features.add("elastic_job=running")
    groups: dict[str, list[dict]] = {}
    for x in docs:
        if x["kind"] == "Pod" and "kueue.x-k8s.io/pod-group-name" in x["metadata"].get("labels", {}):
            groups.setdefault(x["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"], []).append(x)
    for pods in groups.values():
        if d.int(0, 1):
            drawn += 1
            for pod in pods:
                pod["metadata"]["annotations"] = pod["metadata"].get("annotations", {}) | mark
            d.features.add("elastic_job=pod_group")
    return drawn


def _configuration(docs: list[dict]) -> dict:
    """The cluster's Configuration; one of its own (every framework on) where there is none."""
    config = next((doc for doc in docs if doc["kind"] == "Configuration"), None)
    if config is None:
        config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                  "integrations": {"frameworks": list(FRAMEWORKS)}}
        docs.insert(0, config)
    return config


def _gates_default(d: _Draw, docs: list[dict]) -> None:
    """The Configuration's `featureGates` (`gates_default`): some of Kueue v0.17.0's own gates at their
    defaults, AllAlpha and AllBeta false among them; a Configuration of its own where there is none."""
    from kadmit.featuregates import DEFAULT_ON, KUEUE
    gates = _configuration(docs).setdefault("featureGates", {})
    for name in sorted({d.pick(sorted(KUEUE | {"AllAlpha", "AllBeta"})) for _ in range(d.int(1, 6))}):
        gates.setdefault(name, name in DEFAULT_ON)


def _gates_flipped(d: _Draw, docs: list[dict]) -> None:
    """The Configuration's `featureGates` (`gates_flipped`): one to three of FLIPPABLE at their other value."""
    from kadmit.featuregates import DEFAULT_ON
    gates = _configuration(docs).setdefault("featureGates", {})
    for name in sorted({d.pick(FLIPPABLE) for _ in range(d.int(1, 3))}):
        gates[name] = name not in DEFAULT_ON
        d.features.add(f"gate={name}")


def _running_job(d: _Draw, name: str, ns: str, lq: str, cq: str, serial: int, created: datetime,
                 resources: list[str], cq_groups: list, quotas: dict, used: dict, labels_of: dict) -> list[dict]:
    """A running batch Job or JobSet (`running_jobs`, `running_kind=KIND`) and, for the admitted
    shapes, its Workload as Kueue's reconciler made and admitted it: named KIND-NAME-…, owned by
    the job (controller), its pod sets as they were when suspended (a Job's `main`, a JobSet's one
    per replicated job: Kueue's EquivalentToWorkload compares counts, containers, init
    containers), the admission's flavors and usage, QuotaReserved and Admitted; the running job's
    templates carry the flavors' node labels (RunWithPodSetsInfo)."""
    kind = d.pick(["Job", "JobSet"] if "job:JobSet" in d.allowed else ["Job"], "running_kind")
    parts = []  # (pod set name, replicas, pods per replica, requests)
    for i in range(1 if kind == "Job" else d.int(1, 2)):
        parts.append((f"r{i}" if kind == "JobSet" else "main", 1 if kind == "Job" else d.int(1, 2), d.int(1, 3),
                      _requests(d, resources)))
    total = {r: sum(_parse(req[r]) * reps * n for _, reps, n, req in parts) for r in resources}

    def spec_of(req: dict) -> dict:
        return {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox",
                                                          "resources": {"requests": req}}]}
    shape = d.pick(["admitted", "admitted", "idle_admitted", "no_workload", "idle_no_workload"])
    flavor_of: dict[str, str] = {}
    if shape.endswith("admitted"):
        for covered, mine in cq_groups:
            room = [f for f in mine if all(used.get((cq, f, r), 0) + total[r]
                                           <= quotas[(f, r)] * (1000 if r == "cpu" else 1) for r in covered)]
            if not room:
                shape = "no_workload" if shape == "admitted" else "idle_no_workload"
                break
            flavor_of |= {r: d.pick(room) for r in covered}
    d.features.add(f"running={shape}")
    uid = f"00000000-0000-0000-0002-{serial:012d}"
    selector = {}
    if shape.endswith("admitted"):
        for r in resources:
            used[(cq, flavor_of[r], r)] = used.get((cq, flavor_of[r], r), 0) + total[r]
        selector = {k: v for f in dict.fromkeys(flavor_of.values()) for k, v in labels_of.get(f, {}).items()}

    def running_spec(req: dict) -> dict:
        return spec_of(req) | ({"nodeSelector": dict(selector)} if selector else {})
    started = created + timedelta(minutes=1)
    idle = shape.startswith("idle")
    meta = {"name": name, "namespace": ns, "uid": uid, "creationTimestamp": _stamp(created),
            "labels": {"kueue.x-k8s.io/queue-name": lq}}
    if kind == "Job":
        _, _, n, req = parts[0]
        job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
               "spec": {"parallelism": n, "completions": n, "suspend": False,
                        "template": {"spec": running_spec(req)}},
               "status": {"startTime": _stamp(started), "active": 0 if idle else n, "ready": 0 if idle else n,
                          "uncountedTerminatedPods": {}}}
        api_version = "batch/v1"
    else:
        job = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
               "spec": {"suspend": False, "replicatedJobs": [
                   {"name": ps, "replicas": reps, "template": {"spec": {
                       "parallelism": n, "completions": n, "template": {"spec": running_spec(req)}}}}
                   for ps, reps, n, req in parts]},
               "status": {"replicatedJobsStatus": [
                   {"name": ps, "ready": 0, "succeeded": 0, "failed": 0, "suspended": 0,
                    "active": 0 if idle else reps} for ps, reps, _, _ in parts]}}
        api_version = "jobset.x-k8s.io/v1alpha2"
    reclaim = _running_reclaim(d, job, kind, parts, idle)
    if not shape.endswith("admitted"):
        return [job]
    at = _stamp(started)
    wl = {"apiVersion": API, "kind": "Workload",
          "metadata": {"name": f"{kind.lower()}-{name}-{serial:05x}", "namespace": ns,
                       "uid": f"00000000-0000-0000-0003-{serial:012d}",
                       "creationTimestamp": _stamp(created), "labels": {"kueue.x-k8s.io/job-uid": uid},
                       "ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
                                            "controller": True, "blockOwnerDeletion": True}]},
          "spec": {"queueName": lq, "podSets": [{"name": ps, "count": reps * n, "template": {"spec": spec_of(req)}}
                                                for ps, reps, n, req in parts]},
          "status": {"admission": {"clusterQueue": cq, "podSetAssignments": [
              {"name": ps, "count": reps * n, "flavors": flavor_of,
               "resourceUsage": {r: _show(r, _parse(req[r]) * reps * n) for r in resources}}
              for ps, reps, n, req in parts]},
              "conditions": [
                  {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                   "message": f"Quota reserved in ClusterQueue {cq}", "lastTransitionTime": at},
                  {"type": "Admitted", "status": "True", "reason": "Admitted",
                   "message": "The workload is admitted", "lastTransitionTime": at}]}}
    if reclaim and d.int(0, 2):  # the Workload's status lists them, or some of them (else Kueue's reconciler will)
        wl["status"]["reclaimablePods"] = [{"name": ps, "count": d.int(1, n)} for ps, n in reclaim.items()]
    if d.on("running_out_of_step", 0.5):  # (opt-in) the job changed since its Workload was made
        form = d.pick(["count", "requests"], "out_of_step")
        if kind == "Job" and form == "count":
            job["spec"]["parallelism"] += 1
            job["spec"]["completions"] += 1
        else:
            rj = job["spec"]["replicatedJobs"][0] if kind == "JobSet" else None
            if rj is not None and form == "count":
                rj["replicas"] += 1
            else:
                tpl = (rj["template"]["spec"] if rj else job["spec"])["template"]["spec"]
                req = tpl["containers"][0]["resources"]["requests"]
                req["cpu"] = _show("cpu", _parse(req["cpu"]) + 1000)
    return [job, wl]


def _running_reclaim(d: _Draw, job: dict, kind: str, parts: list, idle: bool) -> dict[str, int]:
    """Succeeded pods of a running job (`reclaimable`, opt-in; nothing drawn unless allowed): a Job's
    (some of its completions), a JobSet's (whole replicas of a replicated job of two); what Kueue's
    ReclaimablePods gives per pod set."""
    if not d.on("reclaimable", 0.5):
        return {}
    out = {}
    if kind == "Job":
        n = job["spec"]["completions"]
        if n > 1:
            k = d.int(1, n - 1)
            job["status"]["succeeded"] = k
            if not idle:
                job["status"]["active"] = job["status"]["ready"] = n - k
            out["main"] = k
    else:
        for (ps, reps, n, _), st_ in zip(parts, job["status"]["replicatedJobsStatus"]):
            if reps > 1 and d.int(0, 1):
                st_["succeeded"] = 1
                if not idle:
                    st_["active"] = st_["ready"] = reps - 1
                out[ps] = n
    if out:
        d.features.add("reclaim_on=running")
    return out


def _cond(kind: str, status: str, at: str) -> dict:
    return {"type": kind, "status": status, "reason": kind, "message": kind, "lastTransitionTime": at}


def _kubeflow_state(state: str, types: list[str], at: str) -> dict:
    """A Kubeflow job's status: its replica types' statuses (a type of no pod set of its own
    sometimes), active pods in one or none, a condition."""
    active = {"running": 1, "idle": 0, "succeeded": 0, "failed": 0, "other_type": 0}[state]
    out: dict = {"replicaStatuses": {t: {"active": active if i == 0 else 0} for i, t in enumerate(types)}}
    if state == "other_type":
        out["replicaStatuses"]["Other"] = {"active": 1}
    cond = {"running": "Running", "idle": "Created", "succeeded": "Succeeded", "failed": "Failed",
            "other_type": "Running"}[state]
    out["conditions"] = [{"type": cond, "status": "True", "reason": cond, "message": cond,
                          "lastUpdateTime": at, "lastTransitionTime": at}]
    return out


# The kinds `running_jobs` gives a live state to beside the batch Job and JobSet of `_running_job`:
# kind -> the states drawn (`running_state=KIND:STATE`), each read as its Kueue integration's
# IsActive and Finished read it.
RUNNING_STATES = {
    "RayJob": ("none", "new", "initializing", "running", "suspended", "complete", "failed"),
    "RayCluster": ("none", "ready", "suspended", "failed"),
    "RayService": ("none", "ready", "not_ready"),
    **{k: ("running", "idle", "succeeded", "failed", "other_type")
       for k in ("PyTorchJob", "TFJob", "MPIJob", "PaddleJob", "XGBoostJob", "JAXJob")},
    "TrainJob": ("active", "idle", "complete", "failed"),
    "AppWrapper": ("reserved", "running_phase", "resuming_phase", "failed_deployed", "failed", "succeeded"),
    "LeaderWorkerSet": ("replicas", "surge", "surge_percent"),
    "StatefulSet": ("replicas",),
}


def _running_state(d: _Draw, o: dict, created: datetime) -> None:
    """An existing job (`existing_jobs`) of another kind than Job and JobSet made live
    (`running_jobs`): not suspended and a status as its operator writes it, with no Workload:
    Kueue makes it one unless its IsActive holds (or it has finished)."""
    kind, spec = o["kind"], o["spec"]
    state = d.pick(RUNNING_STATES[kind])
    d.features.add(f"running_state={kind}:{state}")
    at = _stamp(created + timedelta(minutes=1))
    if kind == "RayJob":
        spec["suspend"] = False
        deployment = {"none": None, "new": "New", "initializing": "Initializing", "running": "Running",
                      "suspended": "Suspended", "complete": "Complete", "failed": "Failed"}[state]
        if deployment is not None:
            o["status"] = {"jobDeploymentStatus": deployment}
    elif kind == "RayCluster":
        spec["suspend"] = False
        if state != "none":
            o["status"] = {"state": state}
    elif kind == "RayService":
        spec["rayClusterConfig"]["suspend"] = False
        if state != "none":
            o["status"] = {"conditions": [_cond("Ready", "True" if state == "ready" else "False", at)]}
    elif kind in RUNNING_STATES and kind not in ("TrainJob", "AppWrapper", "LeaderWorkerSet", "StatefulSet"):
        spec["runPolicy"] = {"suspend": False}
        field = next(k for k in spec if k.endswith("ReplicaSpecs"))
        o["status"] = _kubeflow_state(state, list(spec[field]), at)
    elif kind == "TrainJob":
        spec["suspend"] = False
        active = 1 if state == "active" else 0
        o["status"] = {"jobsStatus": [{"name": "node", "active": active, "ready": active, "succeeded": 0,
                                       "failed": 0, "suspended": 0}]}
        if state in ("complete", "failed"):
            o["status"]["conditions"] = [_cond(state.capitalize(), "True", at)]
    elif kind == "AppWrapper":
        spec["suspend"] = False
        phase = {"reserved": "Running", "running_phase": "Running", "resuming_phase": "Resuming",
                 "failed_deployed": "Failed", "failed": "Failed", "succeeded": "Succeeded"}[state]
        conds = [_cond("QuotaReserved", "True" if state == "reserved" else "False", at),
                 _cond("ResourcesDeployed", "True" if state in ("reserved", "failed_deployed") else "False", at)]
        o["status"] = {"phase": phase, "conditions": conds}
    elif kind == "LeaderWorkerSet":
        replicas = spec["replicas"]
        if state == "replicas":
            o["status"] = {"replicas": replicas, "readyReplicas": replicas, "updatedReplicas": replicas}
        else:  # a rolling update with a surge: maxSurge an integer, or `50%` (0 to Kueue's IntValue)
            spec["rolloutStrategy"] = {"type": "RollingUpdate", "rollingUpdateConfiguration": {
                "maxSurge": 1 if state == "surge" else "50%", "maxUnavailable": 1}}
            o["status"] = {"replicas": replicas + 1, "readyReplicas": replicas, "updatedReplicas": replicas - 1}
    else:  # StatefulSet
        o["status"] = {"replicas": spec["replicas"], "readyReplicas": spec["replicas"]}


# `pod_states`: a pod's state as the cluster holds it, on no node (the oracle reads a bound pod as
# node usage): gated or not, and its phase
POD_STATES = {"gated": (True, "Pending"), "pending": (False, "Pending"), "running": (False, "Running"),
              "gated_running": (True, "Running"), "succeeded": (False, "Succeeded"), "failed": (False, "Failed")}


def _pod_states(d: _Draw, pods: list[dict]) -> None:
    """Existing Pods (a UID: `existing_jobs`), single or a group's members, as Kueue's webhook left
    them (`kueue.x-k8s.io/managed: "true"`) in a state each (`pod_state=STATE`, POD_STATES) and no
    Workload: Kueue's pod reconciler makes one unless the pod (single) has finished, or a member of
    the group is Running (`Pod.IsActive`), the group has too few runnable pods or has finished."""
    for pod in pods:
        state = d.pick(POD_STATES, "pod_state")
        gated, phase = POD_STATES[state]
        pod["metadata"]["labels"] = dict(pod["metadata"].get("labels", {})) | {"kueue.x-k8s.io/managed": "true"}
        spec = pod["spec"] = {k: v for k, v in pod["spec"].items() if k != "schedulingGates"}
        if gated:
            spec["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
        pod["status"] = {"phase": phase}


def _tas_pods(wl: dict, pod_sets: list[dict], per_node: dict, need: dict, resources: list[str]) -> list[dict]:
    """An admitted TAS workload's pods bound to their nodes, carrying the pod set's topology
    annotation as Kueue's TAS puts it on them (unconstrained where the pod set asks none), so
    Kueue's non-TAS usage cache leaves them out (utiltas.IsTAS)."""
    out = []
    for ps in pod_sets:
        req = ps.get("topologyRequest", {})
        key = next((k for k in ("required", "preferred") if k in req), None)
        ann = {f"kueue.x-k8s.io/podset-{key}-topology": req[key]} if key else \
            {"kueue.x-k8s.io/podset-unconstrained-topology": "true"}
        one = {r: _show(r, need[ps["name"]][r] // ps["count"]) for r in resources}
        i = 0
        for node, n in per_node[ps["name"]].items():
            for _ in range(n):
                out.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
                    "name": f"{wl['metadata']['name']}-{ps['name']}-{i}", "namespace": wl["metadata"]["namespace"],
                    "annotations": ann},
                    "spec": {"nodeName": node, "restartPolicy": "Never", "containers": [
                        {"name": "c", "image": "busybox", "resources": {"requests": one}}]},
                    "status": {"phase": "Running"}})
                i += 1
    return out


def _node_pods(d: _Draw, resources: list[str]) -> list[dict]:
    """Pods of no queue bound to the TAS flavors' nodes (`node_pods`), in a namespace of their own:
    running ones take the node's capacity (Kueue's non-TAS usage), succeeded ones nothing."""
    out: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "infra"}}]
    nodes = sorted((f, n) for f, free in d.free.items() for n in free)
    for i in range(d.int(1, 3)):
        flavor, node = d.pick(nodes)
        cpu = d.pick(["500m", "1", "2", "4"])
        phase = d.pick(["Running", "Running", "Running", "Succeeded"], "node_pod_phase")
        free = d.free[flavor][node]
        if phase == "Running":
            if free["cpu"] < _parse(cpu):
                continue
            free["cpu"] -= _parse(cpu)
        out.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"daemon-{i}", "namespace": "infra"},
                    "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox",
                                                                "resources": {"requests": {"cpu": cpu}}}]},
                    "status": {"phase": phase}})
    return out


def _tas_place(d: _Draw, flavor: str, pod_sets: list[dict], need: dict, resources: list[str]):
    """Each pod of each pod set on a node of `flavor` with room for it (Kueue's TAS would have
    found one): on one node or in one rack where the pod set requires that level. The flavor and
    pods per node per pod set, the nodes' free capacity taken; None (nothing taken) where a pod
    finds no node."""
    free = {n: dict(v) for n, v in d.free[flavor].items()}
    out: dict[str, dict[str, int]] = {}
    for ps in pod_sets:
        one = {r: need[ps["name"]][r] // ps["count"] for r in resources}
        level = ps.get("topologyRequest", {}).get("required")
        placed: dict[str, int] = {}
        for _ in range(ps["count"]):
            room = [n for n in sorted(free) if all(free[n].get(r, 0) >= one[r] for r in resources)]
            if placed and level == HOST:
                room = [n for n in room if n in placed]
            elif placed and level in (RACK, BLOCK):  # in the first pod's domain of that level
                at = d.levels.index(level)
                first = d.domain[next(iter(placed))][:at + 1]
                room = [n for n in room if d.domain[n][:at + 1] == first]
            if not room:
                return None
            n = d.pick(room)
            placed[n] = placed.get(n, 0) + 1
            for r in resources:
                free[n][r] -= one[r]
        out[ps["name"]] = dict(sorted(placed.items()))
    d.free[flavor] = free
    return flavor, out


def _topology_assignment(d: _Draw, per_node: dict[str, int], encoding: str, flavor: str) -> dict:
    """Pods per node as Kueue v0.17.0 writes a topologyAssignment (TopologyAssignmentSlice values and
    counts, in one of the encodings its API allows): for a topology whose lowest level is the
    hostname, on the hostname level alone, by the nodes' hostname labels; else on every level, the
    pods counted per lowest-level domain (a rack), its values on each level."""
    if HOST in d.levels:
        levels = [HOST]
        per_domain = {(d.hostname.get(n, n),): c for n, c in per_node.items()}
    else:
        levels = list(d.levels)
        per_domain = {}
        for n, c in per_node.items():
            key = tuple(d.domain[n])
            per_domain[key] = per_domain.get(key, 0) + c
    domains = sorted(per_domain)
    counts = [per_domain[v] for v in domains]
    if encoding == "slices":  # a slice per domain, universal values and count
        return {"levels": levels, "slices": [{"domainCount": 1, "valuesPerLevel": [{"universal": v} for v in values],
                                              "podCounts": {"universal": c}} for values, c in zip(domains, counts)]}
    columns = []
    for i in range(len(levels)):
        column = [values[i] for values in domains]
        if len(set(column)) == 1:
            columns.append({"universal": column[0]})
        elif encoding == "prefix" and all(v.startswith(f"{flavor}-") for v in column):  # the flavor's name as prefix
            columns.append({"individual": {"prefix": f"{flavor}-", "roots": [v.removeprefix(f"{flavor}-") for v in column]}})
        else:
            columns.append({"individual": {"roots": column}})
    pod_counts = {"universal": counts[0]} if encoding == "universal_count" and len(set(counts)) == 1 \
        else {"individual": counts}
    return {"levels": levels, "slices": [{"domainCount": len(domains), "valuesPerLevel": columns,
                                          "podCounts": pod_counts}]}


# the AdmissionChecks `_admission_checks` draws from: name -> (controller, parameters kind or None)
CHECKS = {"ac-ready": ("example.com/approval", None), "ac-off": ("example.com/approval", None),
          "ac-prov": ("kueue.x-k8s.io/provisioning-request", "ProvisioningRequestConfig"),
          "ac-mk": ("kueue.x-k8s.io/multikueue", "MultiKueueConfig")}


def _admission_checks(d: _Draw, docs: list[dict], tas: bool) -> None:
    """Admission checks on some ClusterQueues, the objects they name, and check states on the
    Workloads of those queues (a holding one is `Admitted` only with every state Ready). Biased
    toward the second pass (`second_pass`): a provisioning check, with its config, on every queue,
    beside it at most an active one, and Workloads' checks mostly Ready (every one on a holding
    Workload, which stays Admitted)."""
    sp = d.second_pass
    names = [n for n in CHECKS if not (tas and n == "ac-mk")]  # MultiKueue skips the TAS checks
    made: set[str] = set()
    by_queue: dict[str, list[str]] = {}
    for cq in [x for x in docs if x["kind"] == "ClusterQueue"]:
        if not sp and not d.int(0, 2):
            continue
        flavors = [f["name"] for rg in cq["spec"]["resourceGroups"] for f in rg["flavors"]]
        rules = []
        drawn = {"ac-prov", d.pick(["ac-prov", "ac-ready"])} if sp else \
            {d.pick(names + ["ac-missing"]) for _ in range(d.int(1, 2))}
        for name in sorted(drawn):
            rule: dict = {"name": name}
            if len(flavors) > 1 and d.int(0, 2) == 0:
                rule["onFlavors"] = flavors[:d.int(1, len(flavors) - 1)]
                d.features.add("on_flavors")
            rules.append(rule)
            made.add(name)
        cq["spec"]["admissionChecksStrategy"] = {"admissionChecks": rules}
        by_queue[cq["metadata"]["name"]] = [r["name"] for r in rules]
    for name in sorted(made - {"ac-missing"}):
        controller, kind = CHECKS[name]
        d.features.add(f"check={name}")
        ac: dict = {"apiVersion": API, "kind": "AdmissionCheck", "metadata": {"name": name},
                    "spec": {"controllerName": controller}}
        if kind:
            ac["spec"]["parameters"] = {"apiGroup": "kueue.x-k8s.io", "kind": kind, "name": f"{name}-config"}
        if name == "ac-ready" or (name == "ac-off" and d.int(0, 1)):
            ac["status"] = {"conditions": [{"type": "Active", "status": "True" if name == "ac-ready" else "False",
                                            "reason": "Set", "message": "by its controller",
                                            "lastTransitionTime": _stamp(START)}]}
        docs.append(ac)
        if kind == "ProvisioningRequestConfig" and (sp or d.int(0, 3)):
            docs.append({"apiVersion": API, "kind": kind, "metadata": {"name": f"{name}-config"},
                         "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io"}})
        if kind == "MultiKueueConfig" and d.int(0, 3):
            docs.append({"apiVersion": API, "kind": kind, "metadata": {"name": f"{name}-config"},
                         "spec": {"clusters": ["worker1", "worker2"]}})
            for worker in ("worker1", "worker2"):
                if d.int(0, 2):
                    mc: dict = {"apiVersion": API, "kind": "MultiKueueCluster", "metadata": {"name": worker},
                                "spec": {"clusterSource": {"kubeConfig": {"locationType": "Secret",
                                                                          "location": f"{worker}-secret"}}}}
                    if d.int(0, 1):
                        mc["status"] = {"conditions": [{"type": "Active", "status": d.pick(["True", "False"]),
                                                        "reason": "Set", "message": "m",
                                                        "lastTransitionTime": _stamp(START)}]}
                    docs.append(mc)
    queue_of = {(x["metadata"]["namespace"], x["metadata"]["name"]): x["spec"]["clusterQueue"]
                for x in docs if x["kind"] == "LocalQueue"}
    for wl in [x for x in docs if x["kind"] == "Workload"]:
        checks = by_queue.get(queue_of.get((wl["metadata"]["namespace"], wl["spec"]["queueName"]), ""), [])
        if not checks or wl["metadata"].get("ownerReferences") or (not sp and d.int(0, 2) == 0):  # a running job's: as admitted
            continue
        holding = "admission" in wl.get("status", {})
        states = [{"name": c, "state": "Ready" if sp and holding else
                   d.pick(["Pending", *["Ready"] * 9] if sp else
                          ["Pending", "Ready", "Ready", "Retry", "Rejected"]
                          + (["Retry"] * 3 if "retry_after" in d.allowed else []), "check_state"),
                   "message": "by its controller", "lastTransitionTime": _stamp(START + timedelta(minutes=30))}
                  for c in checks if (sp and holding) or d.int(0, 3)]
        if not states:
            continue
        for s in states:
            if s["state"] == "Retry" and d.on("retry_after", 0.7):  # (opt-in: draws nothing unless allowed)
                s["requeueAfterSeconds"] = d.pick([1, 3, 60], "retry_after")
                s["lastTransitionTime"] = d.pick([-3600, -2, 0], "retry_since")  # (`_timers_near` makes it a time)
        status = wl.setdefault("status", {})
        status["admissionChecks"] = states
        if any(s["state"] != "Ready" for s in states) or len(states) < len(checks):
            status["conditions"] = [c for c in status.get("conditions", []) if c["type"] != "Admitted"]


def _parse(q: str) -> int:
    """cpu in millicores, memory in Gi."""
    if q.endswith("Gi"):
        return int(q[:-2])
    if q.endswith("m"):
        return int(q[:-1])
    return int(q) * 1000


def _show(resource: str, n: int) -> str:
    if resource == "memory":
        return f"{n}Gi"
    return f"{n // 1000}" if n % 1000 == 0 else f"{n}m"
