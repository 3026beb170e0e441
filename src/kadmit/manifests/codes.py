"""Diagnostic codes of the manifest front end (KAD150-KAD199)."""

from __future__ import annotations

from kadmit import kueuelabels
from kadmit.diagnostics import register

KAD020 = register(
    "KAD020", "not read: not a manifest", "note",
    "A file or document that is neither a Kubernetes object nor kadmit policy, and so is not read: "
    "a YAML or JSON mapping with none of `apiVersion`, `kind`, `metadata` and `spec` (Helm values, a "
    "CI workflow, kadmit's own JSON or SARIF output, other tools' settings), a list of such mappings (an "
    "Ansible task list or playbook), a Go template (a line with a `{{ … }}` action Go's text/template parses, "
    "or another tool's placeholder starting a plain value, where YAML reads a flow mapping; one in a quoted "
    "value, such as Kyverno's `\"{{request.object.x || ''}}\"`, is the manifest's text), a Jinja template (a "
    "`{% … %}` outside a quoted value), or any file of a Helm chart (a folder holding `Chart.yaml`), whose templates "
    "`helm template` renders into manifests kadmit reads, or a file that holds no document at all "
    "(empty, or only comments). Each is listed once, with what it is; "
    "everything else is read. A document that has some of those keys is read as an object and its "
    "missing fields are errors (KAD155).")
KAD150 = register(
    "KAD150", "malformed YAML", "error",
    "The file is not valid YAML or JSON (a scanner or parser error, such as a tab used for "
    "indentation, an unclosed bracket or quote, or an alias to an undefined anchor). Objects in "
    "documents before the error are still read.")
KAD151 = register(
    "KAD151", "duplicate key in Kueue's Configuration", "error",
    "A mapping of Kueue's Configuration (a `kind: Configuration` document, or the one in Kueue's "
    "ConfigMap) names the same key twice. Kueue's manager decodes its Configuration strictly and "
    "would not start. kadmit reports it and keeps the last value. (In other manifests a duplicate "
    "key is KAD173, a warning.)",
    kueue_rule="pkg/config: the Configuration decoded with serializer.EnableStrict")
KAD152 = register(
    "KAD152", "document too large or too deep", "error",
    "A document expands to too many nodes (usually aliases of aliases: a 'billion laughs' "
    "document), nests too deeply, or refers to itself through an alias. kadmit stops reading "
    "the file before expanding it.")
KAD153 = register(
    "KAD153", "unsupported YAML", "error",
    "A YAML feature that Kubernetes manifests can't use: a mapping or list as a key, or an "
    "explicit tag such as `!!python/object` that is not a plain YAML type.")
KAD154 = register(
    "KAD154", "not a Kubernetes object", "error",
    "A document (or an item of a `List`) is not a mapping, so it can't be a Kubernetes object.")
KAD155 = register(
    "KAD155", "missing required field", "error",
    "A field every object of this kind needs is missing or empty: `apiVersion`, `kind`, "
    "`metadata.name`, or a field the kind requires (a quota's `nominalQuota`, a pod set's "
    "`template`...). The object is skipped.",
    kueue_rule="required fields of the Kubernetes and Kueue OpenAPI schemas")
KAD156 = register(
    "KAD156", "wrong type", "error",
    "A field has the wrong type for the API server: a string where a list or an object is expected, a"
    " number written as a string (`\"3\"`) or a fraction (`3.5`) where an integer is, an integer past"
    " its int32 or int64 range, a boolean or number where a string is expected (quote it), `true` as "
    "a quantity. Every field of every kind kadmit reads is checked against the types of its schema "
    "(Kubernetes' OpenAPI v3, the CRDs'), as the server decodes it: kubectl sends `3.0` and `1e3` as "
    "integers, null leaves a field unset. The server refuses the object, so it is never created: a "
    "job or a Pod is listed as not decided and the rest decided (exit 1); another object is dropped "
    "and its error holds back the answers it touches. In Kueue's Configuration every value is decoded into "
    "Kueue's Go types as its manager decodes it (the message quotes Go's error, e.g. `json: cannot unmarshal "
    "string into Go struct field Configuration.manageJobsWithoutQueueName of type bool`; a duration or quantity "
    "Go's parser refuses is KAD157, with that parser's error): Kueue would not start.",
    kueue_rule="field types of the Kubernetes and Kueue OpenAPI schemas (Go decoding; CRD validation); "
               "pkg/config's strict decoding of the Configuration (manifests/configtypes.py, "
               "tests/oracle/test_config_decoding.py)")
KAD157 = register(
    "KAD157", "invalid value", "error",
    "A field holds a value its kind does not allow: an unknown enum value (queueing strategy, "
    "preemption policy, taint effect, toleration or selector operator, priority class source) "
    "or a value the API server rejects (an integer out of range, `minCount` above `count`, two "
    "topology modes on one pod set, a null item of a list of objects whose empty object the server's validation "
    "refuses, a topology-aware ResourceFlavor without `nodeLabels`, a job CRD's enum, bound, length, item count, "
    "repeated list key or CEL rule: its messages quoted; a Kueue kind's status its CRD's status schema refuses, as it "
    "refuses a status write: a condition without `lastTransitionTime` or with `type: \"\"`, an admission check's "
    "state without its time, checked as Kueue's Go types leave a v1beta2 status), or a Kueue "
    "Configuration Kueue's manager refuses to start with "
    "(the message quotes its error; docs/KUEUE-SETTINGS.md). The object is skipped.",
    kueue_rule="CRD enums, CEL rules and the Workload webhook of kueue.x-k8s.io; pkg/config/validation.go")


def tas_flavor_without_labels(name: str) -> tuple[str, str]:
    """KAD157's message and help for a topology-aware ResourceFlavor without node labels, in the API server's
    words (the CRD's rule on ResourceFlavorSpec `!has(self.topologyName) || self.nodeLabels.size() >= 1`):
    the manifest reader's and the `.kad` checker's alike."""
    return (f"the API server refuses the object: `ResourceFlavor.kueue.x-k8s.io \"{name}\" is invalid: spec: "
            "Invalid value: \"object\": no such key: nodeLabels evaluating rule: at least one nodeLabel is required "
            "when topology is set`",
            "a topology-aware flavor selects its nodes by `nodeLabels`: give it a label its nodes carry")


KAD158 = register(
    "KAD158", "invalid quantity", "error",
    "A resource amount is not a Kubernetes quantity (`500m`, `2`, `64Gi`, `1.5`, `2e3`), is "
    "negative, or is not finite. The object is skipped.",
    kueue_rule="resource.Quantity parsing (k8s.io/apimachinery)")
KAD159 = register(
    "KAD159", "kind not read", "warning",
    "kadmit reads Kueue's ResourceFlavor, ClusterQueue, Cohort, LocalQueue, Workload, "
    "WorkloadPriorityClass, Topology, AdmissionCheck and the objects its built-in controllers read "
    "(ProvisioningRequestConfig, MultiKueueConfig, MultiKueueCluster), scheduling.k8s.io PriorityClass, core Namespace, Node, "
    "Pod and LimitRange, node.k8s.io RuntimeClass, Kueue's Configuration (config.kueue.x-k8s.io), alone or in the ConfigMap that "
    "holds it as `controller_manager_config.yaml`, and the job kinds Kueue integrates (batch "
    "Job, JobSet, LeaderWorkerSet, the Kubeflow training jobs, Ray, AppWrapper, TrainJob and its "
    "runtimes, Deployment, StatefulSet). Objects of other kinds (Services, "
    "CronJobs...) and other ConfigMaps are skipped, and listed as skipped in "
    "`admit` and `why`; for a job operator's kind of a later release than Kueue v0.17 pins "
    "(LWS's DisaggregatedSet) the listing says why Kueue v0.17 has nothing to do with it, and for the built-in kinds "
    "a cluster dump holds, what Kueue's admission makes of them (a PersistentVolumeClaim: Kueue counts no claimed "
    "storage; a Service, a Secret, a Role: nothing) or that kadmit does not model what they do (a ResourceQuota, a "
    "CronJob, a DaemonSet).")
KAD160 = register(
    "KAD160", "API version not read", "warning",
    "The kind is one kadmit reads, but not in this API version (for example "
    "`kueue.x-k8s.io/v1alpha2`). The object is skipped.")
KAD161 = register(
    "KAD161", "field ignored", "warning",
    "A field that changes Kueue's behaviour but that kadmit does not model (a waitForPodsReady Kueue "
    "runs with, a feature gate set to a value that may change a decision). Decisions are made as if it "
    "were absent.")
KAD162 = register(
    "KAD162", "field of another API version", "error",
    "The field belongs to another version of this kind (e.g. `cohortName` is v1beta2; v1beta1 "
    "calls it `cohort`): an unknown field in this version, which `kubectl apply "
    "--validate=strict` rejects and the API server otherwise drops. kadmit ignores it.",
    kueue_rule="API server strict field validation")
KAD163 = register(
    "KAD163", "invalid timestamp", "error",
    "A timestamp such as `metadata.creationTimestamp` is not RFC 3339 "
    "(`2026-11-20T08:00:00Z`). The object is skipped.",
    kueue_rule="metav1.Time (RFC 3339)")
KAD164 = register(
    "KAD164", "workload without a queue", "warning",
    "A Workload has no `spec.queueName` and holds no quota; Kueue never admits it. It is skipped. "
    "This includes a Workload with no `spec` at all (as Kueue's KEPs show one's status): the Workload "
    "CRD requires none and the API server stores it. "
    "(One without a queue name that holds quota, QuotaReserved True, is read: Kueue's cache counts "
    "it against the ClusterQueue of its `status.admission`.)")
KAD165 = register(
    "KAD165", "invalid duration annotation", "warning",
    "The `kadmit.dev/duration` annotation (how long a workload runs once admitted, for "
    "`kadmit simulate`) is not a duration like `90`, `45m` or `1h30m`. It is ignored: the workload "
    "runs until the end of the simulation.")
KAD166 = register(
    "KAD166", "pod-level request Kubernetes does not support", "warning",
    "A pod spec's own `resources.requests` (pod-level resources) names a resource other than "
    "`cpu`, `memory` and `hugepages-*`. Kubernetes' PodRequests, which Kueue sums a pod set's "
    "requests with, takes only those at pod level, so Kueue counts the containers' requests of it "
    "instead; kadmit does the same. Only a custom resource (a Workload, a JobSet...) can hold it: "
    "the API server refuses it in a Pod or a built-in job kind's (Job, Deployment, StatefulSet) pod "
    "template, and kadmit refuses such an object with the API server's error (KAD157), as it does a "
    "pod-level request below the containers' aggregate requests or above its own limit.",
    kueue_rule="k8s.io/component-helpers resource.PodRequests (IsSupportedPodLevelResource); "
               "Kubernetes validatePodResourceName")
KAD167 = register(
    "KAD167", "job without pod sets", "warning",
    "A JobSet with no replicated jobs (no `spec`, a null one as kubebuilder's sample has, or an empty "
    "`spec.replicatedJobs`). The API server and JobSet's webhook accept it, but the Workload Kueue "
    "makes of it has no pod sets, which the API server refuses (the Workload CRD's `spec.podSets` "
    "takes 1 to 8): Kueue never creates it and the JobSet, suspended by Kueue's webhook, is never "
    "admitted. It is listed as skipped, saying so.",
    kueue_rule="jobset PodSets (one per replicated job); Workload CRD: podSets minItems=1")
KAD168 = register(
    "KAD168", "topology assignment not counted on nodes", "warning",
    "An admitted pod set's `topologyAssignment` names its domains on several levels ending in the "
    "hostname (`[rack, hostname]`), so its pods hold no node's capacity. Kueue's TAS cache keys an "
    "assignment's domain by its values joined with commas (`r0,n0`) and, where the hostname is a "
    "topology's lowest level, a node's domain by its hostname alone: the two never match, and Kueue "
    "counts no usage for it; kadmit neither. (Kueue v0.17 writes an assignment on the hostname level "
    "alone; one on levels not ending in the hostname counts on the lowest-level domain, a rack, of "
    "those values, as kadmit counts it too.) Also given for an assignment written in the other API "
    "version's form — `domains` (v1beta1) in a v1beta2 Workload, `slices` (v1beta2) in a v1beta1 one: the API "
    "server's schema for the object's version has no such field and prunes it, so Kueue reads no assignment.",
    kueue_rule="pkg/cache/scheduler/tas_flavor.go updateUsage, tas_flavor_snapshot.go addNode/addTASUsage; "
               "apis/kueue/v1beta1 and v1beta2 TopologyAssignment")
KAD172 = register(
    "KAD172", "job naming a missing priority class", "error",
    "A job Kueue manages names a priority class the input does not define: its "
    "`kueue.x-k8s.io/priority-class` label (a WorkloadPriorityClass) or its pod template's "
    "`priorityClassName` (a PriorityClass). Kueue's job reconciler can't resolve the priority "
    "(`priorityclasses.scheduling.k8s.io \"NAME\" not found`), so it never creates the job's Workload "
    "and retries until the class exists; the job stays suspended. A Pod naming a missing PriorityClass is "
    "refused by the API server (`no PriorityClass with name NAME was found`), as are a Deployment's or "
    "StatefulSet's pods. The job is listed as skipped, never admitted, and the rest of the input is "
    "decided (exit 1), as Kueue goes on with the rest.",
    kueue_rule="jobframework ExtractPriority (priority.GetPriorityFromPriorityClass, "
               "GetPriorityFromWorkloadPriorityClass): the lookup's error fails the reconcile")
KAD171 = register(
    "KAD171", "API version not served", "error",
    "The object's `apiVersion` is one no cluster running Kueue v0.17 serves for its kind: a version "
    "removed (`kueue.x-k8s.io/v1alpha1` Cohort and Topology, removed in Kueue v0.15; `apps/v1beta2` "
    "Deployment; `extensions/v1beta1` Deployment, whose group no longer serves it since Kubernetes v1.16) "
    "or never served (`kueue.x-k8s.io/v1alpha2`, `jobset.x-k8s.io/v1alpha1`; `scheduling.k8s.io/v1alpha2`, "
    "Kubernetes v1.36's, whose PodGroup kind v1.35 serves in no version: `served: none`). The API "
    "server refuses to create it (\"no matches for kind\"), so it is never read as if it were current: "
    "the message names the versions served (Kueue's CRDs, the job operators' CRDs Kueue v0.17 pins, "
    "Kubernetes v1.35). The object is skipped; as the API server refuses it alone, the rest of the "
    "input is decided: `check` reports it and `admit` and `simulate` exit 1 (as for any error they leave aside), `why` "
    "exits by its answer (as for errors in other cohort trees).",
    kueue_rule="the CRDs' `spec.versions[].served` (Kueue v0.17, the job operators its go.mod pins); "
               "Kubernetes' served built-in versions")
KAD173 = register(
    "KAD173", "duplicate key", "warning",
    "A mapping of a manifest names the same key twice. `kubectl create` and `kubectl apply` (client- "
    "or server-side) decode the YAML or JSON into an object before sending it, keeping the last "
    "value, so the API server stores the last value and never sees the first; Kueue reads the "
    "object as stored. kadmit warns and reads the last value. (The API server refuses a request "
    "body that repeats a field, `strict decoding error: duplicate field`, which kubectl does not "
    "send; Kueue's own Configuration is decoded strictly: KAD151.)",
    kueue_rule="kubectl's YAML decoding (last value kept); API server strict field validation of the request body")
KAD174 = register(
    "KAD174", "document Kueue does not read", "warning",
    "The text of Kueue's ConfigMap (`controller_manager_config.yaml`) holds more than one YAML document. "
    "Kueue's manager decodes its Configuration file with one YAML unmarshal, which reads the first "
    "document only: the others are never read, whatever they say (a second Configuration, a mistake in "
    "it). kadmit reads the first and warns at the second.",
    kueue_rule="pkg/config fromFile: sigs.k8s.io/yaml.YAMLToJSON (go-yaml Unmarshal: the first document)")
KAD175 = register(
    "KAD175", "Workload out of step with its job", "warning",
    "A job's own Workload (one it controls, not a prebuilt one it names) differs from what the job makes "
    "now: its pod count, a pod set's containers or tolerations, its pod sets, or its maximum execution "
    "time. Kueue's job reconciler keeps one Workload per job, in step with it, before anything else: the "
    "first one equivalent to the job is kept and the others deleted; without one, the first is updated to "
    "the job's spec where it holds no quota (its status kept), and where it holds quota every one is "
    "deleted, its quota freed, and the job (suspended) gets a new Workload, queued after the input's. The "
    "note is at the Workload and says what differs and what Kueue does; `why` on a deleted one's name "
    "answers with it.",
    kueue_rule="jobframework reconciler: ensureOneWorkload, FindMatchingWorkloads, EquivalentToWorkload, "
    "updateWorkloadToMatchJob")
KAD180 = register(
    "KAD180", "unknown field", "error",
    "A field that the kind's API schema does not have, usually a misspelling (`lendingLimt`, "
    "`namespaceSelecter`) or a field indented under the wrong parent. `kubectl apply` and `kubectl "
    "create` refuse such an object: they ask for the API server's strict field validation by default "
    "(`--validate=strict`, since Kubernetes 1.27); a request that does not (`--validate=false`, or "
    "a client that sets no `fieldValidation`, whose default is `Warn`) gets a warning and the field dropped, and every later answer differs from "
    "what was meant. kadmit answers as for `kubectl apply`: a job of a kind Kueue integrates, a Workload or a Pod "
    "is never created (a Pod then holds no node, a Workload no quota), so it is listed as not decided and the rest of the input is decided (exit 1); another "
    "object is still read, without the field, and its errors hold back the answers they touch. "
    "The `status` of Kueue's kinds is checked too, against the CRD's status schema: Kueue writes it through the API "
    "server, which refuses a status write with such a field (KAD157 for its values).",
    kueue_rule="API server strict field validation; Kueue decodes its Configuration strictly")
KAD181 = register(
    "KAD181", "admission without quota reservation", "warning",
    "A Workload has `status.admission` but no `QuotaReserved` condition (and has not finished). "
    "Kueue's cache counts a workload's quota only while QuotaReserved is True (an `Admitted` "
    "condition alone does not count), so Kueue treats this one as the rest of it says: queued again as "
    "pending (and kadmit decides it as pending too), or in no queue when it has no `spec.queueName` or "
    "is inactive (`spec.active: false`), as the message says. A Workload "
    "read from a cluster (`kubectl get workloads -o yaml`) that holds quota has `QuotaReserved: True` "
    "(and `Admitted: True` once its admission checks pass).",
    kueue_rule="workload.HasActiveQuotaReservation (pkg/workload); the workload controller's Create "
               "handler (pkg/controller/core/workload_controller.go)")
KAD182 = register(
    "KAD182", "node without a Ready condition", "warning",
    "A Node has no `Ready` condition in `status.conditions` (a node written by hand; the kubelet posts "
    "it on every real node). Kueue's topology-aware scheduling counts only nodes whose Ready condition "
    "is True, so to Kueue this node is not ready: no topology domain holds its capacity, and "
    "kube-scheduler places no pod on it either (the node controller marks a node that posts no Ready "
    "status not ready and taints it). kadmit reads it as not ready, as Kueue does. Add "
    "`conditions: [{type: Ready, status: \"True\"}]` where the node is ready.",
    kueue_rule="pkg/util/tas/tas.go IsNodeStatusConditionTrue (false without the condition); "
               "pkg/cache/scheduler/tas_nodes_cache.go")
KAD183 = register(
    "KAD183", "pod template Kueue can't decode", "warning",
    "A pod template of an AppWrapper's component holds a value of a wrong type for a Pod's field (`image: y`, "
    "a boolean to kubectl; `cpu: true`; `port: 80.5`) or a field a Pod has not. The API server takes it (the "
    "AppWrapper CRD keeps a component's template as written), but Kueue's reconciler, decoding the pod spec "
    "as AppWrapper's GetPodTemplateSpec does (Go's unstructured converter, strict), fails and makes no "
    "Workload: the AppWrapper is never admitted. It is listed as skipped with the converter's error. A pod set "
    "the AppWrapper declares (or its status's `componentStatus` lists) whose path leads to no pod template, or to "
    "one whose spec does not decode, is left out of the Workload instead, the rest numbered in order (a Workload "
    "left with no pod set is refused: the AppWrapper is skipped).",
    kueue_rule="appwrapper pkg/utils GetPodTemplateSpec (runtime.DefaultUnstructuredConverter."
               "FromUnstructuredWithValidation), GetComponentPodSpecs; Kueue's appwrapper integration PodSets")
KAD195 = register(
    "KAD195", "invalid object name", "error",
    "A name Kubernetes rejects: a Namespace's name (and every `metadata.namespace`) must be a DNS-1123 "
    "label (at most 63 lowercase letters, digits and `-`); the names of every other kind kadmit reads, "
    "Kueue's custom resources included, must be DNS-1123 subdomains (at most 253 characters, "
    "`.`-separated labels). The object is still read.",
    kueue_rule="apimachinery ValidateObjectMeta (NameIsDNSSubdomain / NameIsDNSLabel)")
KAD196 = register(
    "KAD196", "invalid label", "error",
    "A label key or value Kubernetes rejects: keys are `[prefix/]name` with a DNS-1123 subdomain prefix "
    "(at most 253 characters) and a name of at most 63 letters, digits, `-`, `_` and `.`; values have "
    "at most 63 such characters (or are empty). Applies to `metadata.labels`, node labels, the node "
    "selectors of a Pod and of a built-in kind's pod template (a custom resource's embedded template, a "
    "Workload's or a RayCluster's, is not validated) and label selectors. An object whose own `metadata.labels` "
    "break these is never created (the API server's ValidateObjectMeta, before any webhook): a job, a Pod, a Workload "
    "or a built-in object Kueue reads is left out alone and listed as not decided, in these words and the API "
    "server's (a note quotes them), and the rest is decided; a selector's label is still read.",
    kueue_rule="apimachinery ValidateLabels (IsQualifiedName, IsValidLabelValue)")
KAD197 = register(
    "KAD197", "invalid annotations", "error",
    "An annotation key that isn't a qualified name, or annotations whose keys and values together "
    "exceed 256 KiB, which the API server rejects.",
    kueue_rule="apimachinery ValidateAnnotations (TotalAnnotationSizeLimitB)")
# Both front ends read labels (the `.kad` one: namespaces' and nodes'), so both register it, alike.
KAD301 = register("KAD301", kueuelabels.TITLE, "warning", kueuelabels.DESCRIPTION)
KAD906 = register(
    "KAD906", "admission policy changed after export", "warning",
    "A ValidatingAdmissionPolicy names the kadmit rule it was exported from (`kadmit.dev/rule`), but its "
    "validations are not the CEL kadmit wrote for it (`kadmit.dev/cel-sha256`): someone changed it, so "
    "kadmit can't tell what it enforces. It is not read as the rule; export the rule again.")
KAD169 = register(
    "KAD169", "admission without resource usage", "warning",
    "An admitted Workload's `status.admission.podSetAssignments[]` entry records no `resourceUsage` "
    "(a hand-written manifest), though its pod set requests resources. Kueue books an admitted "
    "workload by what its admission records, not by its pod sets' requests: such a pod set holds "
    "no quota of its ClusterQueue and, on a topology-aware flavor, only its pods' count (`pods`) on "
    "the nodes of its topology assignment. kadmit counts it as Kueue does; write the usage "
    "(count x requests) where the workload really holds it.",
    kueue_rule="pkg/workload/workload.go totalRequestsFromAdmission (Requests from psa.ResourceUsage), "
               "Info.TASUsage; pkg/cache/scheduler/tas_flavor.go updateUsage")
KAD170 = register(
    "KAD170", "refused by Kueue's webhook", "error",
    "Kueue's admission webhook for this job kind refuses to create the object, and says why (the "
    "message quotes Kueue's: the field, its value, the rule). For example a RayJob Kueue manages must "
    "delete its cluster when it finishes (`shutdownAfterJobFinishes: true`) and may not autoscale. "
    "Kubernetes never creates the object, so it is no work: kadmit lists it as skipped and, as Kueue "
    "does, decides everything else (an error of kadmit's inside only refused objects holds up nothing "
    "either); `check` reports it and `admit` and `simulate` exit 1 (as for any error they leave aside), `why` exits by its "
    "answer (as for errors in other cohort trees). Kueue checks "
    "some rules only for the jobs it manages (a queue name, the namespace's `default` LocalQueue, or "
    "`manageJobsWithoutQueueName`) and none for an integration the Configuration leaves out. Kueue's pod "
    "webhook checks every pod, whatever manages its owner: where it refuses the pods a Deployment's (or a Job's) "
    "controller makes from its template, the object is stored but none of its pods is created, and it is skipped "
    "alike (\"Kueue's pod webhook refuses every pod ... makes\").",
    kueue_rule="ValidateCreate of the job kind's webhook (pkg/controller/jobs/<kind>/*_webhook.go, Kueue v0.17)")
KAD198 = register(
    "KAD198", "two objects with one UID", "warning",
    "Two jobs of the input (Jobs, Pods, Deployments, any kind Kueue's job framework reads) carry the "
    "same `metadata.uid`. The API server gives every object a UID of its own, so no cluster holds both: "
    "the input was merged from two clusters or edited by hand. Kueue's job reconciler finds a job's "
    "Workloads by the owner's kind and name, not its UID, so it makes and keeps a Workload for each; "
    "kadmit decides both as Kueue does, and matches an existing Workload to its job by kind and name "
    "only. Two Workloads with one UID are reported too: Kueue keys Workloads by namespace and name but "
    "breaks its last ties by UID (the queue's order, the order of preemption victims), so where the two "
    "tie on everything before it Kueue's order between them is not fixed (victims come in Go's map order, "
    "from run to run), and kadmit takes them by name. Pods sharing a UID are not reported: Kueue counts a pod's node usage by namespace "
    "and name. Give one of them its own UID (or drop it) to describe a cluster that can exist.",
    kueue_rule="pkg/controller/jobframework/reconciler.go FindMatchingWorkloads "
               "(OwnerReferenceIndexFieldMatcher: owner kind and name); pkg/cache/queue/cluster_queue.go "
               "baseCompareFunc and pkg/scheduler/preemption/common/ordering.go CandidatesOrdering (UID last)")
KAD188 = register(
    "KAD188", "pods Kueue leaves gated", "warning",
    "A StatefulSet Kueue's StatefulSet integration takes (one of the input, or the leader StatefulSet of a "
    "LeaderWorkerSet it takes so) whose pod template names a pod group of its own "
    "(`kueue.x-k8s.io/pod-group-name`, with `kueue.x-k8s.io/pod-group-total-count`): its pods are created gated "
    "(suspended by their parent), then Kueue's StatefulSet pod reconciler sets their group label to the "
    "StatefulSet's Workload's name, which Kueue's pod webhook refuses (a pod group's name is immutable), so "
    "nothing ungates them: the Workload, once admitted, holds its quota while its pods stay gated. The admission "
    "decision is unchanged; `admit`'s summary counts them.",
    kueue_rule="statefulset_pod_reconciler.go setDefault; pod_webhook.go ValidateUpdate (ValidateImmutableField "
               "of the group name label)")
KAD193 = register(
    "KAD193", "prebuilt Workload out of sync by the API server's defaults", "warning",
    "A job being submitted names a prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`) whose pod "
    "sets would match the job's as the files are written, but whose containers leave `imagePullPolicy`, "
    "`terminationMessagePath` or `terminationMessagePolicy` unset. The API server sets those in the job's "
    "containers when it creates the job (core/v1 SetDefaults_Container: `imagePullPolicy` Always for an image "
    "tagged `latest` or with neither tag nor digest, else IfNotPresent; `/dev/termination-log`; `File`) and "
    "not in the Workload's (a custom resource), and Kueue compares them (Semantic.DeepEqual): it finds the "
    "Workload out of sync, marks it Finished (OutOfSync), and the job gets no Workload. kadmit decides so, "
    "and the warning names the fields to set. A job read back from a cluster (with a UID or a status) is read "
    "as the server holds it, its defaults in it or not.",
    kueue_rule="pkg/controller/jobframework/reconciler.go ensurePrebuiltWorkloadInSync, EquivalentToWorkload; "
               "pkg/util/equality ComparePodSets; k8s.io/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_Container")
KAD194 = register(
    "KAD194", "two jobs name one prebuilt Workload", "warning",
    "Two jobs of the input name the same prebuilt Workload (`kueue.x-k8s.io/prebuilt-workload-name`), and no "
    "object controls it (no controller ownerReference). Kueue's job reconciler gives it to whichever of them it "
    "reconciles first: it makes that job the Workload's controller and checks the Workload in sync with it (in "
    "sync, the job's; not, Finished as OutOfSync); the other then finds it controlled by another object and "
    "gets no Workload. Which comes first is run-time order (the controller's work queue, its concurrent "
    "workers, a restart's informer listing), which no snapshot holds: the oracle, reconciling in input order, "
    "gives it to the first listed. kadmit takes the jobs in input order too, names both, and says who would "
    "take it were the other first; Kueue's decisions may differ (docs/KUEUE-DIFFERENCES.md). Give each job its "
    "own Workload, or set the Workload's controller ownerReference to the job meant to have it.",
    kueue_rule="pkg/controller/jobframework/reconciler.go ensureOneWorkload (the prebuilt branch: "
               "GetControllerOfNoCopy, EnsurePrebuiltWorkloadOwnership)")
KAD184 = register(
    "KAD184", "LimitRanges whose defaults depend on their order", "warning",
    "A namespace has several LimitRanges whose Container items give one resource different defaults "
    "(`default` or `defaultRequest`, as the API server stores them: a default from `max`, a default request "
    "from the default or `min`). Kueue fills a Workload's containers from the first LimitRange its cache "
    "lists that gives one (AdjustResources: limitrange.Summarize, MergeResourceListKeepFirst), and the API "
    "server's LimitRanger fills a new Pod's the same way from its informer's list; both lists come from a Go "
    "map, so which default a container gets (and so the requests Kueue counts, and whether a pod is refused) "
    "may change from one reconcile to the next. kadmit takes the LimitRanges in name order, one of Kueue's "
    "answers (the oracle, whose client lists in name order, gives the same one). Keep one LimitRange per "
    "namespace, or give each resource its defaults in one of them.",
    kueue_rule="pkg/workload/resources.go AdjustResources, pkg/util/limitrange Summarize; "
               "k8s plugin/pkg/admission/limitranger GetLimitRanges")
KAD199 = register(
    "KAD199", "pod template whose pods the API server refuses", "warning",
    "A job's pod template (a Job's, a JobSet's, any kind Kueue's job framework reads but a Pod) that the "
    "API server would refuse each pod made from, in the words quoted. Either it falls outside a LimitRange "
    "of its namespace once the LimitRange's defaults are filled in: a container's, or the whole pod's, "
    "requests or limits below its `min`, above its `max`, or past its `maxLimitRequestRatio` (the "
    "LimitRanger's refusal; Kueue checks only the requests against `min` and `max`, `ValidateLimitRange`). "
    "Or it is a custom resource's template (a JobSet's, a RayCluster's, an MPIJob's, an AppWrapper "
    "component's...), which the API server stores without validating it, holding a value its pod "
    "validation refuses: a toleration with an empty `key` and operator `Equal` (`tolerations: [{}]`), "
    "which Kueue reads as tolerating any taint of an empty value, or pod-level resources or hugepages it "
    "refuses (as in a Pod: KAD157). The words are those of the first object refused: the one the custom "
    "resource's controller makes of the template, where that is a built-in object whose template the "
    "server validates as written (a JobSet's Jobs, a Trainer runtime's through its JobSet, an MPIJob "
    "launcher's Job, a RayJob's submitter Job, a LeaderWorkerSet's StatefulSets, an AppWrapper's Job, "
    "JobSet, Deployment or StatefulSet component: `spec.template.spec...`, \"every Job made of pod set "
    "...\"), else (or where that object passes) a Pod made of it, its requests defaulted (`spec...`, "
    "\"every pod of pod set ...\"); in the server's order (a JobSet's Job's own spec first: `completions` "
    "required in the Indexed mode its webhook defaults where `parallelism` is set, negative limits, per-index "
    "limits outside Indexed mode, a `podReplacementPolicy` other than `Failed` with a `podFailurePolicy`...; then "
    "the containers', the init containers' and the "
    "pod's own resources, then the tolerations; the made object's `restartPolicy` last: a Job's pods must "
    "end, `Always` is refused, and only `Never` goes with a `podFailurePolicy` (a JobSet's webhook makes an "
    "unset one `OnFailure`; an AppWrapper's Job component and a RayJob's submitter Job are made as written, "
    "their unset one the server's `Always`); a StatefulSet's or Deployment's must restart `Always`). A TrainJob's "
    "`runtimePatches` tolerations replace its runtime's, and are warned in a Job's words. "
    "Or Kueue's pod webhook refuses every leader pod of a LeaderWorkerSet whose leader StatefulSet Kueue's "
    "StatefulSet integration takes (its own integration not enabled): a leader template naming a pod group "
    "without its `kueue.x-k8s.io/pod-group-total-count` (validateCommon; Kueue's words). Or it refuses so every "
    "pod of a job Kueue takes whose template names a pod group without its count (validatePodGroupMetadata): a "
    "batch Job's, a JobSet's (or its child Jobs', where Kueue takes those), a Kubeflow job's, a Ray kind's, an "
    "AppWrapper component's, a TrainJob's runtime's. Kueue may admit "
    "the job, and kadmit "
    "decides it as Kueue does; but none of its pods (or of the Jobs its controller makes) is ever created, "
    "and the job holds its quota without running; `admit`'s summary says so. A Pod or built-in job being "
    "submitted is refused outright (KAD157). Keep the template within the LimitRange and the pod "
    "validation.",
    kueue_rule="k8s plugin/pkg/admission/limitranger PodValidateLimitFunc, pkg/apis/core/validation "
               "ValidateTolerations (the API server, not Kueue)")
