"""Diagnostic codes of the validation stage (KAD200–KAD299)."""

from __future__ import annotations

from kadmit.diagnostics import register

# --- references ------------------------------------------------------------------------------
UNKNOWN_FLAVOR = register(
    "KAD200", "unknown resource flavor", "error",
    "A resource group of a cluster queue or cohort names a flavor that no ResourceFlavor defines. "
    "Kueue accepts the object but marks the cluster queue inactive (reason `FlavorNotFound`), so "
    "it admits nothing until the flavor exists.",
    "ClusterQueue status: Active=False, reason FlavorNotFound")
QUEUE_CHECKS_INACTIVE = register(
    "KAD299", "cluster queue inactive for its admission checks", "warning",
    "A cluster queue names an admission check that is not defined or not Active, or misuses "
    "MultiKueue checks (two on one queue, one on some flavors only, one beside a provisioning "
    "check). Kueue accepts it and keeps the queue inactive (reasons `AdmissionCheckNotFound`, "
    "`AdmissionCheckInactive`, ...): it admits nothing until that changes (docs/INTEGRATIONS.md §15).",
    "ClusterQueue status: Active=False, reason AdmissionCheckNotFound / AdmissionCheckInactive")
UNKNOWN_CLUSTER_QUEUE = register(
    "KAD201", "local queue points at a missing cluster queue", "warning",
    "A local queue names a cluster queue that is not defined. Kueue accepts it; workloads sent to "
    "it stay pending until the cluster queue exists.")
UNKNOWN_LOCAL_QUEUE = register(
    "KAD202", "workload points at a missing local queue", "warning",
    "A workload names a local queue that does not exist in its namespace. Kueue treats this as a "
    "runtime state, not a rejection: the workload stays pending as inadmissible "
    "(\"LocalQueue doesn't exist\") until the queue is created, so kadmit warns and the engine "
    "reports the workload as not admitted.")
UNKNOWN_PRIORITY_CLASS = register(
    "KAD203", "unknown priority class", "error",
    "A `.kad` workload names a priority class that is not defined and gives no explicit priority: "
    "the priority can't be resolved. (A job or Pod Kueue manages is KAD172: Kueue never creates its "
    "Workload. A Workload object's priority is its `spec.priority`, whatever class it names: KAD204; the "
    "Workload CRD refuses one naming a class without a `spec.priority`, KAD157.)")
UNKNOWN_PRIORITY_CLASS_WITH_VALUE = register(
    "KAD204", "unknown priority class with an explicit priority", "warning",
    "A workload names a priority class that is not defined, but also carries an explicit priority "
    "value (as exported Workload objects do); the value is used.")
UNKNOWN_TOPOLOGY = register(
    "KAD205", "unknown topology", "error",
    "A resource flavor names a topology that is not defined. Kueue marks cluster queues using the "
    "flavor inactive (reason `TopologyNotFound`).",
    "ClusterQueue status: Active=False, reason TopologyNotFound")
ADMITTED_UNKNOWN_CLUSTER_QUEUE = register(
    "KAD206", "admitted to a missing cluster queue", "error",
    "An admitted workload's admission names a cluster queue that is not defined, so its usage "
    "can't be charged anywhere.")
ADMITTED_UNKNOWN_FLAVOR = register(
    "KAD207", "admitted with a flavor its cluster queue doesn't have", "error",
    "A pod-set assignment of an admitted workload names a flavor that is not defined, or that its "
    "cluster queue has no quota for the assigned resource in.")
ADMITTED_UNKNOWN_POD_SET = register(
    "KAD208", "assignment for a missing pod set", "error",
    "A pod-set assignment of an admitted workload names a pod set the workload doesn't have.",
    "Workload webhook: status.admission.podSetAssignments[].name must be one of spec.podSets")
UNKNOWN_TOPOLOGY_LEVEL = register(
    "KAD209", "unknown topology level", "error",
    "A pod set asks for a topology level that is not a level of the topology of any flavor its "
    "cluster queue could assign, so it can never be admitted there.")
NO_TOPOLOGY_FLAVOR = register(
    "KAD210", "topology requested but no flavor has a topology", "warning",
    "A pod set asks for topology-aware placement, but no flavor of its cluster queue names a "
    "topology; Kueue reports the workload inadmissible.")
COHORT_PARENT_TYPO = register(
    "KAD211", "cohort parent is not defined (possible typo)", "warning",
    "A cohort's parent is not defined but is close to an existing cohort name. Kueue creates "
    "implicit cohorts, so this is legal, but it is probably a typo.")
ADMISSION_COUNT = register(
    "KAD212", "admitted count out of range", "error",
    "A pod-set assignment's count is above the pod set's count or below its minimum count.")

# --- duplicates and cycles -----------------------------------------------------------------------
DUPLICATE = register(
    "KAD220", "duplicate definition", "error",
    "Two objects of one kind have the same name (namespace/name for namespaced kinds). Kubernetes "
    "keeps one object per name; kadmit uses the first and reports the rest.")
COHORT_CYCLE = register(
    "KAD221", "cohort cycle", "error",
    "Cohort parents form a cycle. Kueue disables every member of the cycle, cluster queues "
    "included, until the cycle is removed.",
    "Cohort: a cycle disables all its members")
COHORT_SELF_PARENT = register(
    "KAD222", "cohort is its own parent", "error",
    "A cohort names itself as its parent, a cycle of one.",
    "Cohort: a cycle disables all its members")

# --- quotas ---------------------------------------------------------------------------------------
NEGATIVE_QUOTA = register(
    "KAD225", "negative quota", "error",
    "A nominal quota, borrowing limit or lending limit is negative.",
    "ClusterQueue/Cohort webhook: nominalQuota, borrowingLimit, lendingLimit must be greater than "
    "or equal to 0")
LENDING_ABOVE_NOMINAL = register(
    "KAD226", "lending limit above nominal quota", "error",
    "A cluster queue's lending limit is larger than its nominal quota for the same flavor and "
    "resource. (Kueue does not apply this rule to Cohorts.)",
    "ClusterQueue webhook: lendingLimit must be less than or equal to the nominalQuota")
LIMIT_WITHOUT_COHORT = register(
    "KAD227", "borrowing or lending limit without a cohort", "error",
    "A cluster queue without a cohort (or a cohort without a parent) sets a borrowing or lending "
    "limit; there is nobody to borrow from or lend to.",
    "ClusterQueue/Cohort webhook: borrowingLimit/lendingLimit must be nil when cohort (parent) is "
    "empty")
FLAVOR_RESOURCES_MISMATCH = register(
    "KAD228", "flavor resources don't match covered resources", "error",
    "Each flavor of a resource group must list exactly the group's covered resources, in the same "
    "order.",
    "ResourceGroup CEL: flavors must have the same number of resources as the coveredResources; "
    "webhook: resources[i].name must match the name in coveredResources")
RESOURCE_COVERED_TWICE = register(
    "KAD229", "resource covered twice", "error",
    "A resource appears in more than one resource group of a cluster queue or cohort (or twice "
    "in one group).",
    "ClusterQueue/Cohort webhook: coveredResources must be unique across resource groups")
FLAVOR_LISTED_TWICE = register(
    "KAD230", "flavor listed twice", "error",
    "A flavor appears in more than one resource group of a cluster queue or cohort (or twice in "
    "one group).",
    "ClusterQueue/Cohort webhook: flavor names must be unique across resource groups")
QUOTA_SIZE_LIMIT = register(
    "KAD231", "resource groups outside Kueue's size limits", "error",
    "Kueue's CRD bounds resource groups: at most 16 groups; each group 1–64 covered resources and "
    "1–64 flavors; each flavor 1–64 resources; at most 256 flavors and 256 covered resources over "
    "all groups.",
    "ClusterQueue/Cohort CRD: resourceGroups maxItems=16; coveredResources, flavors, resources "
    "minItems=1 maxItems=64; 256 flavors in total")
NEGATIVE_WEIGHT = register(
    "KAD232", "negative fair-sharing weight", "error",
    "A fair-sharing weight is negative.",
    "ClusterQueue/Cohort webhook: fairSharing.weight must be greater than or equal to 0")
BORROW_WITHOUT_RECLAIM = register(
    "KAD233", "borrowWithinCohort without reclaimWithinCohort", "error",
    "A cluster queue enables preemption while borrowing (`borrowWithinCohort`) but never reclaims "
    "within its cohort.",
    "ClusterQueue CEL: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")
FRACTIONAL_QUOTA = register(
    "KAD234", "fractional quota of a countable resource", "warning",
    "A quota of `pods` or of an extended resource (such as `nvidia.com/gpu`) is not a whole "
    "number; no pod can request a fraction of one, so the fraction is unusable.")

# --- topologies and flavors ----------------------------------------------------------------------
DUPLICATE_LEVEL = register(
    "KAD240", "duplicate topology level", "error",
    "A topology lists the same node label twice.",
    "Topology CEL: levels must be unique")
HOSTNAME_NOT_LAST = register(
    "KAD241", "hostname level not last", "error",
    "`kubernetes.io/hostname` may only be the lowest (last) level of a topology.",
    "Topology CEL: the kubernetes.io/hostname label can only be used at the lowest level of "
    "topology")
LEVEL_COUNT = register(
    "KAD242", "topology level count out of range", "error",
    "A topology has no levels, or more than Kueue accepts (16; Kueue's v1alpha1 API accepted 8).",
    "Topology CRD: levels minItems=1 maxItems=16")
DUPLICATE_TAINT = register(
    "KAD243", "duplicate flavor taint", "error",
    "A resource flavor lists two node taints with the same key and effect.",
    "ResourceFlavor webhook: taints must be unique by key and effect pair")
BAD_REQUIREMENT = register(
    "KAD244", "invalid selector requirement", "error",
    "A label selector requirement (a cluster queue's namespace selector) is malformed: `In`/`NotIn` need "
    "values, `Exists`/`DoesNotExist` take none, and `Gt`/`Lt` are node affinity's only. (A node affinity "
    "requirement Kueue cannot parse is KAD246.)",
    "Kubernetes ValidateLabelSelector")
UNPARSABLE_AFFINITY = register(
    "KAD246", "node affinity Kueue cannot parse", "warning",
    "A required node-affinity requirement of a pod set that Kueue's parse refuses (an operator other than "
    "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`; `In`/`NotIn` without values, `Exists`/`DoesNotExist` "
    "with values, `Gt`/`Lt` without exactly one integer value; a `matchFields` one other than `In`/`NotIn` "
    "with one value, which the flavor assigner drops without topology-aware scheduling), in a "
    "template the API server stores without that check: a Workload's, a custom resource's (a JobSet's, a "
    "TrainJob's...), or a built-in one's `Gt`/`Lt` value that is no integer (the API server checks only that it "
    "is a label value). Kueue keeps the workload and decides as it reads it: a flavor of a resource group "
    "whose label keys the requirement names fails the pod set's flavor search when no term matches it "
    "(\"failed to assign flavors to pod set ...\"), and under topology-aware scheduling the pod set fits no "
    "topology flavor (\"invalid affinity node selectors ...\"). kadmit decides it so.",
    "component-helpers nodeaffinity (NewNodeSelector, LazyErrorNodeSelector.Match); flavorassigner.go "
    "flavorSelector, checkFlavorForPodSets; tas_flavor_snapshot.go")
SHARED_HOSTNAME = register(
    "KAD245", "nodes share a hostname", "warning",
    "Two or more nodes carry the same `kubernetes.io/hostname` label value. Every node's is its own "
    "in a cluster as kubelet labels it, so the label was set by hand or the input merged two clusters. "
    "On a topology whose lowest level is the hostname, Kueue's topology-aware scheduling keys its "
    "leaves by that value: the nodes (those ready and schedulable) are one leaf holding their summed "
    "free capacity, filtered by the taints and labels, and placed under the level values, of "
    "whichever node it reads first (Go map order: where the nodes differ in those, Kueue's answer "
    "varies from run to run; kadmit takes the first by name). kadmit counts them as Kueue does; "
    "give each node its own hostname to describe a cluster that can exist.",
    "pkg/cache/scheduler/tas_flavor_snapshot.go addNode (leaves keyed by the hostname, addCapacity)")

# --- workloads ----------------------------------------------------------------------------------
MIN_COUNT_ABOVE_COUNT = register(
    "KAD250", "min_count above count", "error",
    "A pod set's minimum count is larger than its count.",
    "Workload CEL: minCount should be positive and less or equal to count")
BAD_COUNT = register(
    "KAD251", "invalid pod count", "error",
    "A pod set's count is negative, or its minimum count is below 1.",
    "Workload CRD: podSets[].count minimum=0, podSets[].minCount minimum=1")
DUPLICATE_POD_SET = register(
    "KAD252", "duplicate pod set name", "error",
    "Two pod sets of one workload have the same name.",
    "Workload CRD: podSets is a list map keyed by name")
POD_SET_COUNT_LIMIT = register(
    "KAD253", "pod set count out of range", "error",
    "A workload has no pod sets, or more than 8. (A v1beta2 Workload with no `spec.podSets` at all, "
    "which its CRD allows, is read as Kueue reads it: queued and never admitted, KAD521.)",
    "Workload CRD: podSets minItems=1 maxItems=8")
MANY_MIN_COUNTS = register(
    "KAD254", "more than one pod set uses min_count", "error",
    "Partial admission allows at most one pod set of a workload to set a minimum count.",
    "Workload webhook: at most one podSet can use minCount")
NEGATIVE_REQUEST = register(
    "KAD255", "negative request", "error",
    "A pod set requests a negative quantity of a resource.")
FRACTIONAL_REQUEST = register(
    "KAD256", "fractional request of a countable resource", "warning",
    "A workload's pod set (a Workload's, a custom resource's template, a `.kad` workload) requests a fraction of an "
    "extended resource (such as `500m` of `nvidia.com/gpu`). The API server stores such a template, and Kueue "
    "decides it: it counts whole units of each pod's request (500m counts 1), or, with DRAExtendedResources and "
    "DynamicResourceAllocation on and a DeviceClass naming the resource, makes the workload inadmissible. The API "
    "server refuses every pod made of it (a Pod's or a built-in job's template is refused itself: KAD157).",
    "Kubernetes pod validation: extended resource quantities must be integers; Kueue: resources.NewRequests")
RESERVED_POD_REQUEST = register(
    "KAD257", "`pods` requested by a pod set", "error",
    "`pods` is counted by Kueue itself (one per pod); a pod set may not request it.",
    "Workload webhook: resources.requests[pods]: the key is reserved for internal kueue use")
EMPTY_POD_SET = register(
    "KAD258", "pod set with no pods", "warning",
    "A pod set has count 0: it requests nothing and places no pods.")
LARGE_POD_SET_GROUP = register(
    "KAD259", "pod-set group of more than 2 pod sets", "error",
    "More than two pod sets of one workload name the same pod-set group (`podSetGroupName`, `.kad` "
    "`topology_group`). Kueue v0.17.0 places a group as one leader and its workers: of a larger group "
    "it places the first two pod sets only (findLeaderAndWorkers) and gives the others no topology "
    "assignment; once those two fit, its scheduler panics on the missing assignment (nil pointer in "
    "addAssumedUsage, tas_flavor_snapshot.go) and Kueue's manager stops admitting anything; when they "
    "don't fit the workload stays pending. No answer is Kueue's, so kadmit gives none. Kueue's job "
    "webhooks refuse such groups (KAD170: groups of exactly 2 pod sets); the Workload webhook does not.",
    "Kueue v0.17.0 tas_flavor_snapshot.go FindTopologyAssignmentsForFlavor: findLeaderAndWorkers takes "
    "trs[0] and trs[1]; addAssumedUsage(nil) panics")

QUEUE_ORDER_UNKNOWN = register(
    "KAD260", "jobs whose queue order no input holds", "warning",
    "Pending workloads of one ClusterQueue (of one LocalQueue where admission fair sharing orders it) "
    "tie on priority and creation time, and at least one of them is a job whose Workload the input "
    "doesn't hold (Kueue's job reconciler has yet to make it). Kueue orders such ties by the "
    "Workloads' UIDs, which the API server draws at random (a UUID) when the reconciler creates each "
    "Workload, so the order among them, and which of them Kueue tries first, is not in the input: "
    "jobs read back from a cluster (`kubectl get jobs -o yaml`) are often created in one second. "
    "kadmit takes them by the UIDs the input gives (one Kueue has yet to make as the middle of the random "
    "UUIDs: after a given UID below it, before one above, the likelier order), then by name, one of the "
    "orders Kueue may take; "
    "the warning names them in that order. Reading the cluster's Workloads too (`kubectl get "
    "workloads -A -o yaml`) gives their UIDs and creation times, and the order.",
    "pkg/cache/queue/cluster_queue.go baseCompareFunc (priority, creation time, then UID); the API "
    "server's FillObjectMetaSystemFields (uuid.New) on the Workload the job reconciler creates")


FAIR_SHARING_WITHOUT_COHORT = register(
    "KAD261", "Kueue panics: fair sharing, a ClusterQueue in no cohort preempting", "warning",
    "Fair sharing is on and a ClusterQueue in no cohort may preempt within itself (`withinClusterQueue` "
    "other than Never). Kueue v0.17.0 then takes its preemption targets from fair sharing's "
    "TargetClusterQueueOrdering, whose iteration yields the queue's own candidates and, when evicting "
    "them all still does not make the workload fit, goes on to the root of the queue's cohort: a nil "
    "pointer for a queue in no cohort. The scheduler panics and Kueue's manager restarts into the same "
    "panic. kadmit decides such a workload as if the search ended with the queue's own candidates. Put "
    "the ClusterQueue in a cohort (one of its own will do) or turn fair sharing off.",
    "pkg/scheduler/preemption/fairsharing/ordering.go TargetClusterQueueOrdering.Iter (no return after "
    "the no-cohort case) and pkg/cache/scheduler/cohort_snapshot.go Root, from preemption.go "
    "runFirstFsStrategy (tests/oracle/features/kueue-panics-fair-sharing-without-cohort.yaml)")


BALANCED_NO_SLICE = register(
    "KAD263", "Kueue panics: TASBalancedPlacement, a preferred pod set of no whole slice", "warning",
    "The feature gate TASBalancedPlacement is on and a pending workload's pod set asks a `preferred` topology "
    "level with fewer pods than one slice (count 0, or a podset-slice-size above its count, or above the minCount "
    "partial admission may try), outside a pod-set group of two. Kueue v0.17.0's balanced placement counts its slices (count / slice size: 0), finds that no "
    "domain is needed to hold them, and divides by that count of domains: the scheduler panics once it places "
    "the pod set on a topology-aware flavor, and Kueue's manager restarts into the same panic. kadmit places it "
    "as with the gate off. Give the pod set at least one whole slice, or turn the gate off.",
    "pkg/cache/scheduler/tas_balanced_placement.go balanceThresholdValue (`sliceCount / selectedDomainsCount`), "
    "from findBestDomainsForBalancedPlacement (tests/oracle/test_tas_balanced.py)")

NEGATIVE_IN_COHORT = register(
    "KAD262", "a negative request in a cohort: Kueue's books depend on their order", "warning",
    "A workload of a ClusterQueue in a cohort requests, or holds, a negative amount of a resource (a "
    "Configuration transformation with a negative output factor; Kueue checks no sign). Kueue adds a "
    "workload's usage to its queue and passes to the cohort only what exceeds the queue's unused "
    "guaranteed quota, which a negative amount never does, while the cohort keeps what an earlier "
    "positive amount put there; so the cohort's usage, and what the other queues of the cohort may "
    "borrow, depend on the order Kueue met the workloads, and drift from what Kueue computes when it "
    "rebuilds the cohort's tree (on any ClusterQueue or Cohort change): each queue's usage above its "
    "guaranteed quota, at least 0. kadmit counts the cohort's usage so, one of Kueue's answers. Keep "
    "transformation outputs at 0 or more, or such queues out of cohorts.",
    "pkg/cache/scheduler/resource_node.go addUsage, removeUsage and accumulateFromChild "
    "(tests/oracle/features/transformation-negative-factor.yaml; "
    "tests/oracle/test_admit.py test_negative_usage_in_a_cohort_depends_on_order)")

# --- priority classes -----------------------------------------------------------------------------
MANY_DEFAULTS = register(
    "KAD265", "more than one default priority class", "error",
    "More than one priority class of one kind is marked global default; Kubernetes allows one.",
    "PriorityClass admission: only one PriorityClass can be marked globalDefault")
PRIORITY_RANGE = register(
    "KAD266", "priority value out of range", "error",
    "A priority is outside the 32-bit range, or a user-defined pod PriorityClass is above "
    "1000000000 (larger values are reserved for `system-` classes).",
    "PriorityClass validation: value must not exceed HighestUserDefinablePriority (1000000000)")

# --- unused and unreachable -------------------------------------------------------------------------
UNUSED_FLAVOR = register(
    "KAD270", "unused flavor", "warning",
    "A resource flavor is not listed in any cluster queue's or cohort's resource groups.")
CHECK_ON_UNUSED_FLAVOR = register(
    "KAD273", "admission check on a flavor the queue does not have", "warning",
    "A cluster queue's admission check names, in its `onFlavors` (`.kad`: `admission_checks = { check = "
    "[flavor] }`), a flavor none of the queue's resource groups list. Kueue accepts it; no workload of the "
    "queue is ever assigned that flavor, so the check never applies for it — and a check limited to some "
    "flavors is not run before the workload reserves quota (workload.AdmissionChecksForWorkload).")
STATE_OF_ANOTHER_CHECK = register(
    "KAD274", "check state of a check the queue does not require", "warning",
    "A workload gives the state of an admission check (`.kad`: `checks = { … }`; a Workload's "
    "`status.admissionChecks`) that its cluster queue does not require. Kueue's workload controller "
    "syncs a workload's states with its queue's checks and drops it, so it decides nothing.")
SELECTOR_MATCHES_NOTHING = register(
    "KAD271", "namespace selector matches no namespace", "warning",
    "A cluster queue's namespace selector matches none of the declared namespaces. (Checked only "
    "when namespaces are declared.)")
NIL_SELECTOR = register(
    "KAD272", "cluster queue without a namespace selector", "warning",
    "A cluster queue has no namespace selector. Kueue treats a missing selector as matching no "
    "namespace, so the queue admits nothing; an empty selector `{}` matches every namespace.")

# --- rules ----------------------------------------------------------------------------------------
UNKNOWN_REFERENCE = register(
    "KAD280", "unknown reference in a rule", "error",
    "A rule refers to something the rule language doesn't define (see the reference table in "
    "docs/ARCHITECTURE.md).")
BAD_INDEX = register(
    "KAD281", "bad index", "error",
    "A rule indexes something that is not a map (`workload.name[x]`), or uses a map without an "
    "index (`pod_group.requests`).")
INCOMPATIBLE_TYPES = register(
    "KAD282", "incompatible types", "error",
    "A rule compares values of different types (a quantity with a string, a flavor with a cluster "
    "queue), or orders values that have no order.")
BAD_ARITHMETIC = register(
    "KAD283", "bad arithmetic", "error",
    "Arithmetic (`+ - * /`) applies to ints and quantities only; a quantity may be multiplied or "
    "divided by an int, not by a quantity.")
NOT_BOOLEAN = register(
    "KAD284", "not a condition", "error",
    "A rule body, or an operand of `and`, `or`, `not` or `implies`, is not a boolean condition.")
UNKNOWN_NAME = register(
    "KAD285", "unknown name in a rule", "error",
    "A bare name in a rule does not name an object of the type it is compared with (a flavor, a "
    "cluster queue, a cohort, a priority class or a topology mode).")
BAD_QUANTIFIER_DOMAIN = register(
    "KAD286", "bad quantifier domain", "error",
    "Quantifiers range over `workload.pod_groups` only, and `workload.pod_groups` is only a "
    "quantifier domain, not a value.")
BAD_QUANTIFIER_VARIABLE = register(
    "KAD287", "unbound or shadowing quantifier variable", "error",
    "A rule uses a variable no quantifier binds, or a quantifier variable reuses a reserved name "
    "(`workload`, `namespace`, `pod_group`, `flavor`, `cluster_queue`, `cohort`) or an enclosing "
    "variable.")
BAD_WEIGHT = register(
    "KAD288", "bad rule weight", "error",
    "A `prefer` rule needs a positive weight; `require` and `forbid` take none.")
UNKNOWN_RESOURCE = register(
    "KAD289", "unknown resource in a rule", "warning",
    "A rule names a resource that no queue, pod set or node mentions; it is always 0.")
PLACEMENT_COUNT = register(
    "KAD290", "placement doesn't add up", "warning",
    "An admitted pod set's node placement (`nodes = { … }`, Kueue's topologyAssignment) places a "
    "different number of pods than its admitted count.")
PLACEMENT_UNKNOWN_NODE = register(
    "KAD291", "placement on an unknown node", "warning",
    "An admitted pod set is placed on a node the inputs don't declare, so its usage of that node "
    "can't be counted.")

# --- scheduler configuration ------------------------------------------------------------------------
UNKNOWN_STRATEGY = register(
    "KAD292", "unknown fair-sharing preemption strategy", "error",
    "A preemption strategy of the scheduler configuration is not one Kueue knows: "
    "`LessThanOrEqualToFinalShare` (`less_than_or_equal_to_final_share` in `.kad`) or "
    "`LessThanInitialShare` (`less_than_initial_share`). Kueue refuses to start with such a "
    "configuration; kadmit ignores the name. Checked while fair sharing is on only: Kueue reads no "
    "strategies otherwise (KAD294).",
    "Configuration validation: fairSharing.preemptionStrategies: Unsupported value")
DUPLICATE_SCHEDULER = register(
    "KAD293", "scheduler configuration given twice", "error",
    "More than one scheduler configuration is given (`scheduler` blocks, Kueue Configuration "
    "documents, or Kueue's ConfigMap). Kueue runs with one configuration; kadmit uses the first "
    "and reports the rest.")
STRATEGIES_WITHOUT_FAIR_SHARING = register(
    "KAD294", "preemption strategies while fair sharing is off", "warning",
    "Fair-sharing preemption strategies are given but fair sharing is off (`fair_sharing = "
    "false`, or a v1beta1 Configuration without `fairSharing.enable: true`). Kueue ignores them.")
STRATEGY_ORDER = register(
    "KAD295", "preemption strategies Kueue does not accept", "error",
    "Kueue accepts the fair-sharing preemption strategies only as `[LessThanOrEqualToFinalShare]`, "
    "`[LessThanInitialShare]` or `[LessThanOrEqualToFinalShare, LessThanInitialShare]` (in that "
    "order, each once). kadmit uses the known names in the order given.",
    "Configuration validation: fairSharing.preemptionStrategies must be one of the supported "
    "strategy sets")
ADMITTED_WITHOUT_FLAVOR = register(
    "KAD296", "admitted without a usable assignment", "error",
    "An admitted workload's assignment doesn't say where its quota is charged: a pod set it requests "
    "resources for has no assignment, or is assigned no flavor for a requested resource. Kueue always "
    "records a flavor per requested resource, so the usage can't be known (it would count as zero).",
    "Workload webhook: status.admission.podSetAssignments cover spec.podSets; Kueue assigns a flavor "
    "to every requested resource")
MISSING_CLAIM_TEMPLATE = register(
    "KAD297", "ResourceClaimTemplate not in the input", "warning",
    "A pod set's `resourceClaims` name a ResourceClaimTemplate that is not among the inputs, so "
    "kadmit can't count its DRA devices against quota as Kueue does (`deviceClassMappings`); the "
    "decision may differ from Kueue's. Add the template (`kubectl get resourceclaimtemplates -A -o yaml`).",
    "Kueue DRA: GetResourceRequestsForResourceClaimTemplates reads the template in the workload's namespace")
UNCOUNTED_CLAIMS = register(
    "KAD298", "resource claims not counted: the DynamicResourceAllocation gate is off", "warning",
    "A pod set's `resourceClaims` name ResourceClaimTemplates (or ResourceClaims), but Kueue v0.17.0 counts the devices "
    "they claim only when its DynamicResourceAllocation feature gate is on, and the gate is off by "
    "default; so neither Kueue nor kadmit counts them against quota, and the pods may wait for "
    "devices once admitted. Turn the gate on in the Configuration (`featureGates: "
    "{DynamicResourceAllocation: true}`) with `resources.deviceClassMappings` to have them counted.",
    "Kueue v0.17.0 pkg/features: DynamicResourceAllocation defaults to false; the workload controller "
    "processes DRA resources only with it on")


# --- likely mistakes Kueue accepts silently (KAD30x; `validate.likely`) ------------------------
UNPROVIDED_RESOURCE = register(
    "KAD300", "requested resource nothing provides, close to one that is", "warning",
    "A pod set requests a resource that no cluster queue or cohort covers and no node has, while a "
    "resource with a close name is covered, allocatable or standard (`nvidia.com/gpus` beside "
    "`nvidia.com/gpu`, `memroy`): most likely a misspelling. Kueue accepts the workload and leaves it "
    "pending for ever (\"resource … unavailable in ClusterQueue\"), and `kadmit why` proposes no "
    "quota for it. Reported once per resource, at its first request. Resources Kueue's configuration "
    "leaves out of quota (`excludeResourcePrefixes`) count only when nodes are "
    "given and none has them.",
    "Kueue flavor assignment: a requested resource that the ClusterQueue doesn't cover makes the "
    "workload inadmissible")
