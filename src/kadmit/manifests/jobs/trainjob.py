"""Kubeflow Trainer's TrainJob -> the JobSet its runtime builds (Kueue's pkg/controller/jobs/trainjob,
kubeflow/trainer pkg/runtime/core/trainingruntime.go); the (Cluster)TrainingRuntime must be in the
input."""

from __future__ import annotations

import json
from typing import Literal

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.fields import Fields, Invalid, Meta
from kadmit.manifests.jobs import trainjobpods
from kadmit.manifests.jobs.groups import GROUP_NAME
from kadmit.manifests.jobs.pods import GROUP_TOTAL, group_metadata_words
from kadmit.manifests.jobs.common import (COMPLETION_INDEX, JOB_INDEX, QUEUE_LABEL, Builder, object_ref, reclaimed,
                                         run_state)
from kadmit.manifests.jobs.refusals import SLICE_SIZE, topology_refusals
from kadmit.manifests.jobs.templatepods import group_refusals, made_pods, template_pod, with_own_pods
from kadmit.manifests.jobs.trainjobpods import omitempty
from kadmit.manifests.layers import ANNOTATION as LAYERS
from kadmit.manifests.podspec import (node_field_refusals, pod_requests, required_node_affinity, toleration_refusals,
                                      tolerations)
from kadmit.manifests.yamltree import MAP, SEQ, Val, parse_documents
from kadmit.manifests.podsettopology import topology_request
from kadmit.manifests.workloads import template_shape
from kadmit.model import Job, Obj, PodSet, Quantities, Refusal, TopologyRequest
from kadmit.modelbase import Shapes
from kadmit.modelscheduling import NodeSelectorTerm, Toleration
from kadmit.source import Spans

FRAMEWORK = "trainer.kubeflow.org/trainjob"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
NODE = "node"
PODSET = "kueue.x-k8s.io/podset-"  # Kueue's pod-set annotations (topology, slices, pod-set group)


class RuntimeJob(Obj):
    """One replicated job of a Kubeflow Trainer runtime's JobSet template."""

    name: str
    replicas: int = 1
    parallelism: int = 1
    ancestor: str = ""  # its `trainer.kubeflow.org/trainjob-ancestor-step` label: `trainer`, `dataset-initializer`, ...
    pod_set: PodSet  # one pod of its template (the count is decided with the TrainJob)
    node_requests: Quantities = {}  # requests of its `node` container, which `resourcesPerNode` replaces whole
    # what Kueue's EquivalentToWorkload compares of its pods besides the count (`template_shape`): the containers
    # and init containers, and the tolerations, as the runtime writes them (`trainjobpods.built` builds the JobSet's)
    shape: Shapes | None = None
    # what Kueue's TrainJob webhook refuses of its template's topology annotations, from `annotations` on, save the
    # slice size's upper bound, which counts the TrainJob's pods (`runtime_refusals`)
    refusals: tuple[Refusal, ...] = ()
    # what Kueue's pod webhook refuses of every pod made of its template (`templatepods.group_refusals`): the TrainJob's
    pod_refusals: tuple[Refusal, ...] = ()
    group_meta: tuple[tuple[str, str], ...] = ()  # its template's pod-group name and total count (`_group_meta`)
    marks: tuple[str, ...] = ()  # the `kueue.x-k8s.io/podset-*` annotations of its pod template
    mark_values: tuple[tuple[str, object], ...] = ()  # and their values, as written (`merged_marks`)
    # one pod of its template as Kueue's pod integration reads it (`templatepods.template_pod`): a TrainJob Kueue
    # leaves running makes such pods (`own_pods`); None where it reads none
    pod: Job | None = None


class TrainingRuntime(Obj):
    """A Kubeflow Trainer ClusterTrainingRuntime (`namespace` None) or TrainingRuntime."""

    kind: Literal["ClusterTrainingRuntime", "TrainingRuntime"]
    namespace: str | None = None
    name: str
    ml_policy: bool = False
    num_nodes: int | None = None  # mlPolicy.numNodes
    jobs: tuple[RuntimeJob, ...] = ()
    plugins: tuple[str, ...] = ()  # the mlPolicy's sources (`torch`, `mpi`, ...), whose plugins the Trainer runs
    launcher_as_node: bool = False  # mlPolicy.mpi.runLauncherAsNode
    ssh_mount: str = "/root/.ssh"  # mlPolicy.mpi.sshAuthMountPath
    mpi_procs: int = 1  # mlPolicy.mpi.numProcPerNode
    mpi_impl: str = "OpenMPI"  # mlPolicy.mpi.mpiImplementation


class RuntimePatch(Obj):
    """What one entry of a TrainJob's `runtimePatches` (Trainer v2.2) changes of one replicated
    job's pods that Kueue's pod sets carry: its pod template spec is merged into the runtime's
    (`mergeRuntimePatches`, a strategic merge patch): `nodeSelector` key by key, `tolerations` and
    the required node-affinity terms replaced whole (lists without a merge key)."""

    job: str
    node_selector: dict[str, str] = {}
    tolerations: tuple[Toleration, ...] | None = None
    node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    # the API server's words refusing its tolerations and node affinity in each Job made of the patched template
    # (KAD199), and the field paths whose words of the runtime's template (or an earlier patch's) they replace
    refusals: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    # its pod spec's containers, init containers and tolerations as plain values, as Go marshals the patch
    # (`trainjobpods.omitempty`), in a 1-tuple
    pod: Shapes | None = None
    # its pod template's `kueue.x-k8s.io/podset-*` annotations, the topology request Kueue reads of them (None
    # where its webhook refuses them) and its webhook's words refusing them (as a runtime job's `refusals`)
    marks: tuple[str, ...] = ()
    mark_values: tuple[tuple[str, object], ...] = ()
    topology: TopologyRequest | None = None
    topology_refusals: tuple[Refusal, ...] = ()
    # its pod template's pod-group name and total count (`_group_meta`), merged key by key into the runtime's
    group_meta: tuple[tuple[str, str], ...] = ()
    queue: str | None = None  # its pod template's queue name: a TrainJob's pods take it where it runs (`own_pods`)


class TrainSpec(Obj):
    """What a TrainJob says about its runtime and trainer."""

    runtime_kind: Literal["ClusterTrainingRuntime", "TrainingRuntime"] = "ClusterTrainingRuntime"
    runtime_name: str
    num_nodes: int | None = None
    resources_per_node: Quantities | None = None  # requests (limits where no request), as written
    patches: tuple[RuntimePatch, ...] = ()  # `runtimePatches`, in order
    succeeded: dict[str, int] = {}  # `status.jobsStatus`: each replicated job's succeeded Jobs
    spec: Shapes | None = None  # its spec as plain values (its `trainer` and `initializer`), in a 1-tuple
    suspend: bool = False  # its own `spec.suspend`
    unbuilt: str = ""  # with its runtime joined (`with_runtime`): what of the JobSet kadmit does not build (`trainjobpods.unbuilt`)


def _marks(annotations: Val | None) -> dict:
    """A pod template's `kueue.x-k8s.io/podset-*` annotations: their keys and their values as written."""
    keys = tuple(sorted(k for k in (annotations.v if annotations is not None else ()) if k.startswith(PODSET)))
    return {"marks": keys, "mark_values": tuple((k, annotations.v[k].plain()) for k in keys)}


def training_runtime(f: Fields, o: Meta) -> TrainingRuntime:
    """A runtime's JobSet template: each replicated job's pods, whether it is the trainer, and
    its `node` container's requests."""
    spec = f.map(o.node, "spec", required=True, what=f"{o.kind} `{o.name}`")
    policy = f.map(spec, "mlPolicy")
    js = f.map(f.map(spec, "template"), "spec")
    b = Builder(f, o, FRAMEWORK)
    jobs = []
    for rj in f.maps(js, "replicatedJobs"):
        name = f.str(rj, "name", required=True, what="a replicated job")
        job_template = f.map(rj, "template")
        job_spec = f.map(job_template, "spec")
        template = f.map(job_spec, "template", required=True, what=f"replicated job `{name}`")
        labels, _ = f.str_map(f.map(job_template, "metadata"), "labels")
        annotations = f.map(f.map(template, "metadata"), "annotations")
        before = len(b.refusals)
        # the JobSet's Job; its count is the TrainJob's (`runtime_pod_sets`), unbounded here for the slice size. Kueue
        # takes the TrainJob's pod sets from its JobSet (getChildJobSet, then JobSet.PodSets): the JobSet's index
        # labels, the replicated job's replicas (not numNodes, which sets its pods) as subGroupCount
        replicas = f.int(rj, "replicas", default=1, lo=0)
        ps = b.template(name, UNCOUNTED, template, rj, job_spec=job_spec,
                        index=(COMPLETION_INDEX, JOB_INDEX, replicas))
        group_refusals(b, template)
        node = next((c for c in f.maps(f.map(template, "spec"), "containers") if f.str(c, "name") == NODE), None)
        node_requests = pod_requests(f, _only(node)).requests if node is not None else {}
        jobs.append(RuntimeJob(name=name, replicas=replicas,
                               parallelism=f.int(job_spec, "parallelism", default=1, lo=0),
                               ancestor=labels.get(ANCESTOR, ""), pod_set=ps, node_requests=node_requests,
                               shape=Shapes(template_shape(f, 1, None, template)[2:]),
                               refusals=tuple(r for r in b.refusals[before:] if not r.pods),
                               pod_refusals=tuple(r for r in b.refusals[before:] if r.pods),
                               group_meta=_group_meta(f, f.map(template, "metadata")),
                               pod=template_pod(f, o, template), **_marks(annotations)))
    mpi = f.map(policy, "mpi")
    return TrainingRuntime(kind=o.kind, namespace=(o.namespace or "default") if o.kind == "TrainingRuntime" else None,  # type: ignore[arg-type]
                           name=o.name, ml_policy=policy is not None, num_nodes=f.int(policy, "numNodes", lo=0),
                           jobs=tuple(jobs), plugins=tuple(sorted(k for k in (policy.v if policy is not None else ())
                                                                  if k != "numNodes")),
                           launcher_as_node=f.bool(mpi, "runLauncherAsNode", default=False),
                           ssh_mount=f.str(mpi, "sshAuthMountPath", default="/root/.ssh"),
                           mpi_procs=f.int(mpi, "numProcPerNode", default=1),
                           mpi_impl=f.str(mpi, "mpiImplementation", default="OpenMPI"), span=f.span(o.node))


def _only(container):
    """A pod spec holding just one container, to read its requests as Kubernetes sums them."""
    at = (container.line, container.col, container.end_line, container.end_col)
    spec = Val(MAP, {"containers": Val(SEQ, [container], *at)}, *at)
    spec.keys = {"containers": at}
    return spec


def train_job(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"TrainJob `{o.name}`")
    ref = f.map(spec, "runtimeRef", required=True, what=f"the spec of TrainJob `{o.name}`")
    kind = f.enum(ref, "kind", ("ClusterTrainingRuntime", "TrainingRuntime"), "ClusterTrainingRuntime")
    trainer = f.map(spec, "trainer")
    resources = f.map(trainer, "resourcesPerNode")
    per_node = None
    if resources is not None:
        requests, _ = f.resource_list(resources, "requests")
        limits, _ = f.resource_list(resources, "limits")
        # set where it holds limits or requests (the JobSet builder's Trainer step; an empty map is as none)
        per_node = {**limits, **requests} if any((v := f.map(resources, k)) is not None and v.v
                                              for k in ("limits", "requests")) else None
    status = f.map(o.node, "status")
    succeeded = {name: n for s in f.maps(status, "jobsStatus")
                 if (name := f.str(s, "name")) and (n := f.int(s, "succeeded", default=0, lo=0))}
    existing = bool(f.str(o.metadata, "uid")) or bool(status is not None and status.v)  # Kueue's webhook passed
    train = TrainSpec(runtime_kind=kind, runtime_name=f.str(ref, "name", required=True, what="`runtimeRef`"),  # type: ignore[arg-type]
                      num_nodes=f.int(trainer, "numNodes", lo=0), resources_per_node=per_node,
                      patches=_runtime_patches(f, spec, existing=existing),
                      succeeded=succeeded, suspend=f.bool(spec, "suspend", default=False),
                      spec=Shapes((spec.plain() if spec is not None else {},)))
    started = any(f.int(s, "active", default=0) for s in f.maps(status, "jobsStatus"))
    finished = any(f.str(c, "type") in ("Complete", "Failed") and f.str(c, "status") == "True"
                   for c in f.maps(status, "conditions"))
    b = Builder(f, o, FRAMEWORK)
    job = b.job(state=run_state(started, finished), workloads=[])
    wl = b.workload(object_ref(o, f), [])
    return job.model_copy(update={"train": train, "workloads": (wl,)})


UNCOUNTED = 2**31 - 1  # a runtime template's pod count, before the TrainJob's (no slice size is above it)
# what Kueue's TrainJob webhook appends to each topology error (trainjob_webhook.go validateTopologyRequest)
ADVICE = ('Adjust either the "TrainJob.spec.runtimePatches" or the "TrainingRuntime.Template" annotations for the '
          "corresponding Job")


# a node affinity's lists a runtime patch replaces whole (their items have no merge key)
AFFINITY_LISTS = ("requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution")


def _runtime_patches(f: Fields, spec: Val, *, existing: bool) -> tuple[RuntimePatch, ...]:
    """The pod-template changes of `runtimePatches` Kueue's pod sets carry (`RuntimePatch`). The patch's
    JobTemplateSpec is merged whole (`mergeRuntimePatches`), its pod template's metadata too: Kueue reads the
    `kueue.x-k8s.io/podset-*` annotations of the JobSet it builds (topology, slices, pod-set group) as it reads a
    runtime's (oracle: tests/oracle/features/trainjob-runtime-patch-topology-annotation.yaml); a TrainJob already in
    the cluster (`existing`) passed no webhook of Kueue's. Its other keys (a queue name, a priority class) Kueue does
    not read from a TrainJob's pod templates (it reads the TrainJob's own labels; oracle:
    tests/oracle/features/trainjob-runtime-patch-kueue-labels-not-read.yaml), nor from the JobSet's metadata a patch
    sets. Containers, volumes and the rest change no request."""
    out = []
    for patch in f.maps(spec, "runtimePatches"):
        template = f.map(f.map(patch, "trainingRuntimeSpec"), "template")
        for rj in f.maps(f.map(template, "spec"), "replicatedJobs"):
            pod = f.map(f.map(f.map(rj, "template"), "spec"), "template")
            pod_spec = f.map(pod, "spec")
            meta = f.map(pod, "metadata")
            marks = f.map(meta, "annotations")
            marked = tuple(sorted(k for k in (marks.v if marks is not None else ()) if k.startswith(PODSET)))
            # read as a runtime job's (`Builder.template`), its pod count not yet known (`runtime_refusals`)
            refused = tuple(topology_refusals(f, meta, UNCOUNTED)) if marked else ()
            topology = topology_request(f, None, meta, UNCOUNTED, not existing)[0] if marked and (
                existing or not [r for r in refused if r.multi_layer is None]) else None
            selector, _ = f.str_map(pod_spec, "nodeSelector")
            affinity = f.map(f.map(pod_spec, "affinity"), "nodeAffinity")
            required = None
            if f.field(affinity, "requiredDuringSchedulingIgnoredDuringExecution") is not None:
                required = required_node_affinity(f, pod_spec)[0]
            tols = bool(f.seq(pod_spec, "tolerations"))  # an empty list is left out of the patch (omitempty)
            # the lists a patch sets replace the runtime's (no merge key): their words refusing the Jobs too
            replaces = tuple(w for w, on in ((".tolerations[", tols), (f".nodeAffinity.{AFFINITY_LISTS[0]}", required),
                                             (f".nodeAffinity.{AFFINITY_LISTS[1]}", f.seq(affinity, AFFINITY_LISTS[1])))
                             if on)
            out.append(RuntimePatch(
                job=f.str(rj, "name", default=""), node_selector=selector,
                tolerations=tolerations(f, pod_spec, validated=False) if tols else None,
                # the TrainJob's JobSet is stored unvalidated; each Job its controller makes of it is refused
                refusals=tuple(node_field_refusals(f, pod_spec, "spec.template.spec")) +
                tuple(toleration_refusals(f, pod_spec, "spec.template.spec")) if replaces else (),
                replaces=replaces, node_affinity=required, span=f.span(rj), **_marks(marks), topology=topology,
                topology_refusals=refused, group_meta=_group_meta(f, meta),
                queue=f.str_map(meta, "labels")[0].get(QUEUE_LABEL),
                pod=Shapes((tuple(omitempty(v.plain() if (v := f.field(pod_spec, k)) is not None else None)
                                  for k in ("containers", "initContainers", "tolerations")),))))
    return tuple(out)


def _patched(ps: PodSet, name: str, patches: tuple[RuntimePatch, ...]) -> dict:
    """The pod set's selectors, tolerations and node affinity after the patches naming its job, and what the
    API server refuses of the Jobs made of it (KAD199): a patch's tolerations and node-affinity lists replace the
    runtime's words for theirs; refused, the Job is, whatever a Pod of it would be refused for. (A runtime
    template whose Job the patch lets through is not checked again for what its Pods are refused.)"""
    update: dict = {}
    for p in patches:
        if p.job != name:
            continue
        if p.node_selector:
            update["node_selector"] = {**update.get("node_selector", ps.node_selector), **p.node_selector}
        if p.tolerations is not None:
            update["tolerations"] = p.tolerations
        if p.replaces:
            refused = update.get("refused_object", ps.refused_object)
            kept = tuple(w for w in update.get("pod_refusals", ps.pod_refusals) if not any(r in w for r in p.replaces))
            if p.refusals:
                update["pod_refusals"] = (kept if refused == "Job" else ()) + p.refusals
                update["refused_object"] = "Job"
            else:
                update["pod_refusals"], update["refused_object"] = kept, refused if kept else ""
        if p.node_affinity is not None:
            update["node_affinity"] = p.node_affinity
    return update


def marking(j: RuntimeJob, patches: tuple[RuntimePatch, ...]) -> RuntimePatch | None:
    """The runtime patch whose `kueue.x-k8s.io/podset-*` annotations job `j`'s pods take (Kueue reading them of
    the JobSet the patches are merged into): the last naming `j` that sets any (`merged_marks` makes it stand for
    the merge of the runtime's and every patch's)."""
    marked = [p for p in patches if p.job == j.name and p.marks]
    return marked[-1] if marked else None


def merged_marks(runtime: TrainingRuntime, patches: tuple[RuntimePatch, ...], existing: bool) -> tuple[RuntimePatch, ...]:
    """`patches` as the Trainer merges them into the runtime's JobSet template (mergeRuntimePatches: a strategic
    merge patch of each, in order, whose pod template annotations merge key by key, the later value winning):
    where the runtime's template and a patch, or two patches, set a job's `kueue.x-k8s.io/podset-*` annotations,
    the last patch naming the job stands for their merge, its topology request and its webhook's refusals those
    of the merged annotations (`_merged_topology`), the earlier ones for none (oracle:
    tests/oracle/features/trainjob-runtime-patch-topology-annotations-merged.yaml)."""
    out = list(patches)
    for j in runtime.jobs:
        at = [i for i, p in enumerate(patches) if p.job == j.name and p.marks]
        if len(at) + bool(j.marks) < 2:
            continue
        values = dict(j.mark_values)
        for i in at:
            values.update(patches[i].mark_values)
            out[i] = out[i].model_copy(update={"marks": (), "topology": None, "topology_refusals": ()})
        last = patches[at[-1]]
        topology, refused = _merged_topology(values, last.span, existing)
        out[at[-1]] = last.model_copy(update={"marks": tuple(sorted(values)), "mark_values": tuple(values.items()),
                                              "topology": topology, "topology_refusals": refused})
    return tuple(out)


def _merged_topology(values: dict, span, existing: bool) -> tuple[TopologyRequest | None, tuple[Refusal, ...]]:
    """The topology request and the webhook's refusals of merged pod-set annotations, read as a patch's are
    (`_runtime_patches`), located at the last patch."""
    text = json.dumps({"annotations": values})
    quiet = Diagnostics()
    meta = next(parse_documents(text, "<merged>", quiet))
    f = Fields("<merged>", quiet, text)
    refused = tuple(r.model_copy(update={"span": span}) for r in topology_refusals(f, meta, UNCOUNTED))
    if not existing and [r for r in refused if r.multi_layer is None]:
        return None, refused
    try:
        topology = topology_request(f, None, meta, UNCOUNTED, not existing)[0]
    except Invalid:
        return None, refused
    return (topology.model_copy(update={"span": span, "spans": Spans()}) if topology is not None else None), refused


def runtime_pod_sets(runtime: TrainingRuntime, train: TrainSpec) -> list[PodSet]:
    """`getChildJobSet`: a pod set per replicated job, count = replicas × pods per job (`trainjobpods.pods`); the
    trainer's `node` container takes `resourcesPerNode` whole where it sets limits or requests (the JobSet
    builder's Trainer step: its requests and limits in place of the runtime's, none of which remain)."""
    out = []
    for j in runtime.jobs:
        replicas, pods = trainjobpods.pods(j, runtime, train)
        requests = dict(j.pod_set.requests)
        per_node = train.resources_per_node
        if per_node is not None and trainjobpods.resources_apply(j, runtime):
            for r, q in j.node_requests.items():
                requests[r] = requests.get(r, 0) - q
            for r, q in per_node.items():
                requests[r] = requests.get(r, 0) + q
            requests = {r: q for r, q in sorted(requests.items()) if q > 0}
        origin = (f"replicated job `{j.name}` of {runtime.kind} `{runtime.name}` ({replicas} × {pods} pods"
                  + (", the trainer" if j.ancestor == trainjobpods.TRAINER else "") + ")")
        marked = {"topology": p.topology} if (p := marking(j, train.patches)) is not None else {}
        out.append(j.pod_set.model_copy(update={"count": replicas * pods, "requests": requests, "origin": origin,
                                                **_patched(j.pod_set, j.name, train.patches), **marked}))
    return out


def runtime_refusals(runtime: TrainingRuntime, pod_sets: list[PodSet],
                     patches: tuple[RuntimePatch, ...] = ()) -> tuple[Refusal, ...]:
    """What Kueue's TrainJob webhook refuses on create (validateTopologyRequest, with TopologyAwareScheduling) of
    the pod sets it builds of the runtime: each template's topology annotations (ValidateTASPodSetRequest, the
    slice layers annotation's under either TASMultiLayerTopology value: `Refusal.multi_layer`), then a slice size
    above the pod set's count (ValidateSliceSizeAnnotationUpperBound), under `job[NAME]`, each with the webhook's
    advice appended. A runtime patch setting a job's `kueue.x-k8s.io/podset-*` annotations (`marking`) has its
    own checked in their place. Then what Kueue's pod webhook refuses of every pod made of its template, the TrainJob's
    (`RuntimeJob.pod_refusals`: `templatepods.refused_pods` warns, the TrainJob is admitted as any)."""
    out = []
    for j, ps in zip(runtime.jobs, pod_sets):
        p = marking(j, patches)
        words = [(r.message, r.multi_layer, r.span) for r in (p.topology_refusals if p is not None else j.refusals)]
        t = ps.topology
        if t is not None and t.slice_size is not None and t.slice_size > ps.count:
            if t.layers_annotation and not any(m is not False for _, m, _ in words):  # (off, the annotation is refused)
                words.append((f"annotations[{LAYERS}]: Invalid value: {t.slice_size}: must not be greater than pod set "
                              f"count {ps.count}", True, t.span))
            elif not t.layers_annotation and not any(m is None for _, m, _ in words):
                words.append((f'annotations[{SLICE_SIZE}]: Invalid value: "{t.slice_size}": must not be greater than '
                              f"pod set count {ps.count}", None, t.span))
        out += [Refusal(message=f"job[{j.name}].{m}. {ADVICE}", managed_only=False, multi_layer=on, span=span)
                for m, on, span in words]
        out += _pod_refusals(j, patches)
    return tuple(out)


def _group_meta(f: Fields, meta: Val | None) -> tuple[tuple[str, str], ...]:
    """A pod template's pod-group name (its label, its annotation) and total count, where written."""
    labels, annotations = f.str_map(meta, "labels")[0], f.str_map(meta, "annotations")[0]
    return tuple((k, v) for k, v in (("label", labels.get(GROUP_NAME)), ("annotation", annotations.get(GROUP_NAME)),
                                     ("total", annotations.get(GROUP_TOTAL))) if v is not None)


def _pod_refusals(j: RuntimeJob, patches: tuple[RuntimePatch, ...]) -> tuple[Refusal, ...]:
    """What Kueue's pod webhook refuses of every pod of job `j` (`RuntimeJob.pod_refusals`), its pod-group metadata
    as the runtime patches naming it leave it (mergeRuntimePatches merges their labels and annotations into the
    runtime's key by key): where a patch sets any, the words of the merged values (`group_metadata_words`), at the
    last such patch."""
    mine = [p for p in patches if p.job == j.name and p.group_meta]
    if not mine:
        return j.pod_refusals
    merged = dict(j.group_meta)
    for p in mine:
        merged.update(p.group_meta)
    kept = tuple(r for r in j.pod_refusals if GROUP_NAME not in r.message and GROUP_TOTAL not in r.message)
    words = group_metadata_words(merged.get("label") or merged.get("annotation"), merged.get("total"))
    return kept + ((Refusal(message=words, managed_only=False, pods=True, span=mine[-1].span),) if words else ())


# Kueue's TrainJob webhook builds the JobSet (validateTopologyRequest's podSets, getChildJobSet) of a TrainJob being
# created, whatever manages it; a flux runtime's plugin (EnforceMLPolicy: brokerSettingsFromEnvironment reads
# `trainJob.Spec.Trainer.Env`) dereferences the TrainJob's nil `trainer`, and the webhook's recovered panic is its answer
FLUX_PANICS = ("panic: runtime error: invalid memory address or nil pointer dereference [recovered] (its runtime's "
               "`mlPolicy.flux` plugin, which Kueue's webhook runs to build its JobSet, reads the `trainer` it has not)")


def flux_panics(runtime: TrainingRuntime, train: TrainSpec) -> tuple[Refusal, ...]:
    """The refusal of a TrainJob without `trainer` (or `trainer: null`) of a runtime with `mlPolicy.flux`: the API
    server takes the webhook's panic as a refusal, so it is never created (oracle: tests/oracle/features/
    trainjob-flux-without-trainer-refused.yaml; the Job webhook's alike, `templatepods.JOB_WEBHOOK_PANICS`)."""
    spec = train.spec[0] if train.spec else {}
    if "flux" not in runtime.plugins or isinstance(spec.get("trainer"), dict):
        return ()
    return (Refusal(message=FLUX_PANICS, managed_only=False),)


def reclaimable_pods(runtime: TrainingRuntime, train: TrainSpec, pod_sets: list[PodSet]) -> dict[str, int]:
    """Kueue's TrainJob.ReclaimablePods: per replicated job of the child JobSet, its succeeded Jobs
    (`status.jobsStatus[].succeeded`, when more than none and at most its replicas) times its pods
    per Job (`PodsCountPerReplica`: the pod set's count over the replicas), which the reconciler
    writes to the Workload's `status.reclaimablePods` and the scheduler takes off the pod set."""
    out = {}
    for j, ps in zip(runtime.jobs, pod_sets):
        done = train.succeeded.get(j.name, 0)
        replicas, pods = trainjobpods.pods(j, runtime, train)
        if replicas and 0 < done <= replicas:
            out[j.name] = done * pods
    return out


def with_runtime(job: Job, runtimes: tuple[TrainingRuntime, ...], refused: frozenset[tuple] = frozenset()) -> Job:
    """A TrainJob's workload, from the runtime it names among `runtimes` (`runtime_pod_sets`), less the pods
    of its succeeded Jobs (`reclaimable_pods`); without the runtime in the input, or with one the API server
    refuses (`refused`: kind, namespace, name), it has none (and says why).
    Its shapes, what Kueue compares of the TrainJob and its Workload (EquivalentToWorkload: the pod sets of the
    JobSet Kueue builds of the TrainJob and its runtime), are the JobSet's pods (`trainjobpods.built`;
    `owned.in_step` then keeps, or deletes, a Workload of the input as for other kinds); None where a plugin
    writes into them what kadmit does not build (`trainjobpods.unbuilt`): a Workload of the input is then kept as read, and
    said to may differ. Where the runtime's template and its patches, or two patches, set a job's
    `kueue.x-k8s.io/podset-*` annotations, they are merged as the Trainer merges them (`merged_marks`)."""
    t = job.train
    assert t is not None
    ns = job.object.namespace if t.runtime_kind == "TrainingRuntime" else None
    runtime = next((r for r in runtimes
                    if r.kind == t.runtime_kind and r.name == t.runtime_name and r.namespace == ns), None)
    if runtime is None:
        where = f" in namespace `{ns}`" if ns else ""
        if (t.runtime_kind, ns, t.runtime_name) in refused:  # its errors, reported: Kueue finds no runtime
            return job.model_copy(update={"workloads": (), "note": (
                f"its runtime, {t.runtime_kind} `{t.runtime_name}`{where}, is refused by the API server (its "
                "errors are reported): Kueue finds no runtime and makes no Workload")})
        return job.model_copy(update={"workloads": (), "note": (
            f"its runtime, {t.runtime_kind} `{t.runtime_name}`{where}, is not in the input: kadmit builds a "
            "TrainJob's pod sets from its runtime's JobSet template (add the runtime to the input)")})
    t = t.model_copy(update={"patches": merged_marks(runtime, t.patches, not job.submitted)})
    pod_sets = runtime_pod_sets(runtime, t)
    t = t.model_copy(update={"unbuilt": "; ".join(trainjobpods.unbuilt(runtime, t, job.object.name))})
    shapes = None if t.unbuilt or any(j.shape is None for j in runtime.jobs) else \
        Shapes((w.shapes[0] if (w := job.workloads[0]).shapes else None,
                tuple((ps.count, ps.min_count, *trainjobpods.built(j, runtime, t, job.object.name))
                      for j, ps in zip(runtime.jobs, pod_sets))))
    refusals = job.refusals + runtime_refusals(runtime, pod_sets, t.patches) + flux_panics(runtime, t)
    job = job.model_copy(update={"train": t, "refusals": refusals, "workloads": tuple(
        w.model_copy(update={"pod_sets": tuple(pod_sets), "shapes": shapes}) for w in job.workloads)})
    return own_pods(reclaimed(job, reclaimable_pods(runtime, t, pod_sets)), runtime, pod_sets)


# what of a runtime job's pod set its pods take (the TrainJob's resourcesPerNode and runtime patches: `_patched`)
POD_FIELDS = ("requests", "pod_requests", "resources", "node_selector", "node_affinity", "tolerations",
              "pod_refusals", "refused_object")


def own_pods(job: Job, runtime: TrainingRuntime, pod_sets: list[PodSet]) -> Job:
    """`job` with the pods the Trainer's JobSet makes of it (`Job.unsuspended`, `route` decides whether Kueue's
    TrainJob webhook leaves it running), as `templatepods.own_pods` gives a Kubeflow job's: each pod set's count of
    pods of its runtime job's template, with what the TrainJob changes of it (`POD_FIELDS`), as Kueue's pod
    integration reads them: each a plain pod's Workload where the runtime's template, or a runtime patch's, names a
    queue (oracle: the harness makes them of Kueue's own PodSets of the TrainJob, internal/jobs/ownpods.go). As it
    is where it suspends itself (`spec.suspend`), another object controls it, a template is not read, or one (or a
    patch) names a pod group (a group across templates: not modelled)."""
    t = job.train
    assert t is not None
    if not job.submitted or job.owner is not None or t.suspend:
        return job
    parts = []
    for j, ps in zip(runtime.jobs, pod_sets):
        patches = [p for p in t.patches if p.job == j.name]
        if j.pod is None or j.pod.group or any(p.group_meta for p in patches) or not j.pod.workloads or ps.count <= 0:
            return job
        one = j.pod.workloads[0]
        # the queue its pods take: the last patch's that names one, else the runtime template's
        queue = next((p.queue for p in reversed(patches) if p.queue is not None), j.pod.queue)
        pod = j.pod.model_copy(update={"queue": queue or None, "workloads": (one.model_copy(update={
            "namespace": job.workloads[0].namespace,  # (the runtime's: a ClusterTrainingRuntime has none)
            "pod_sets": tuple(p.model_copy(update={k: getattr(ps, k) for k in POD_FIELDS}) for p in one.pod_sets)}),)})
        parts.append((j.name, made_pods(pod, job, ps.count)))
    return with_own_pods(job, parts)
