"""Kubeflow Trainer's TrainJob -> the JobSet its runtime builds (Kueue's pkg/controller/jobs/trainjob,
kubeflow/trainer pkg/runtime/core/trainingruntime.go); the (Cluster)TrainingRuntime must be in the
input."""

from __future__ import annotations

from typing import Literal

from kadmit.manifests.codes import KAD161
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder, object_ref, reclaimed, run_state
from kadmit.manifests.podspec import pod_requests, required_node_affinity, toleration_refusals, tolerations
from kadmit.manifests.yamltree import MAP, SEQ, Val
from kadmit.manifests.workloads import template_shape
from kadmit.model import Job, Obj, PodSet, Quantities
from kadmit.modelbase import Shapes
from kadmit.modelscheduling import NodeSelectorTerm, Toleration

FRAMEWORK = "trainer.kubeflow.org/trainjob"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
NODE = "node"


class RuntimeJob(Obj):
    """One replicated job of a Kubeflow Trainer runtime's JobSet template."""

    name: str
    replicas: int = 1
    parallelism: int = 1
    trainer: bool = False  # labelled `trainer.kubeflow.org/trainjob-ancestor-step: trainer`
    pod_set: PodSet  # one pod of its template (the count is decided with the TrainJob)
    node_requests: Quantities = {}  # requests of its `node` container, which `resourcesPerNode` replaces whole
    # what Kueue's EquivalentToWorkload compares of its pods besides the count (`template_shape`): the containers
    # and init containers, and the tolerations, as the runtime writes them
    shape: Shapes | None = None


class TrainingRuntime(Obj):
    """A Kubeflow Trainer ClusterTrainingRuntime (`namespace` None) or TrainingRuntime."""

    kind: Literal["ClusterTrainingRuntime", "TrainingRuntime"]
    namespace: str | None = None
    name: str
    ml_policy: bool = False
    num_nodes: int | None = None  # mlPolicy.numNodes
    jobs: tuple[RuntimeJob, ...] = ()
    plugins: tuple[str, ...] = ()  # the mlPolicy's sources (`torch`, `mpi`, ...): their plugins add env vars, ports


class RuntimePatch(Obj):
    """What one entry of a TrainJob's `runtimePatches` (Trainer v2.2) changes of one replicated
    job's pods that Kueue's pod sets carry: its pod template spec is merged into the runtime's
    (`mergeRuntimePatches`, a strategic merge patch): `nodeSelector` key by key, `tolerations` and
    the required node-affinity terms replaced whole (lists without a merge key)."""

    job: str
    node_selector: dict[str, str] = {}
    tolerations: tuple[Toleration, ...] | None = None
    node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    # the API server's words refusing its tolerations in each Job made of the patched template (KAD199)
    refusals: tuple[str, ...] = ()


class TrainSpec(Obj):
    """What a TrainJob says about its runtime and trainer."""

    runtime_kind: Literal["ClusterTrainingRuntime", "TrainingRuntime"] = "ClusterTrainingRuntime"
    runtime_name: str
    num_nodes: int | None = None
    resources_per_node: Quantities | None = None  # requests (limits where no request), as written
    patches: tuple[RuntimePatch, ...] = ()  # `runtimePatches`, in order
    succeeded: dict[str, int] = {}  # `status.jobsStatus`: each replicated job's succeeded Jobs
    # the TrainJob's fields the Trainer writes into the JobSet's containers or tolerations (`trainer.image`,
    # `initializer`, `runtimePatches`, ...), which kadmit does not build
    changes: tuple[str, ...] = ()
    unbuilt: str = ""  # with its runtime joined (`with_runtime`): what of the JobSet kadmit does not build (`unbuilt`)


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
        ps = b.template(name, 1, template, rj, job_spec=job_spec)  # the JobSet's Job
        node = next((c for c in f.maps(f.map(template, "spec"), "containers") if f.str(c, "name") == NODE), None)
        node_requests = pod_requests(f, _only(node)).requests if node is not None else {}
        jobs.append(RuntimeJob(name=name, replicas=f.int(rj, "replicas", default=1, lo=0),
                               parallelism=f.int(job_spec, "parallelism", default=1, lo=0),
                               trainer=labels.get(ANCESTOR) == "trainer", pod_set=ps, node_requests=node_requests,
                               shape=Shapes(template_shape(f, 1, None, template)[2:])))
    return TrainingRuntime(kind=o.kind, namespace=(o.namespace or "default") if o.kind == "TrainingRuntime" else None,  # type: ignore[arg-type]
                           name=o.name, ml_policy=policy is not None, num_nodes=f.int(policy, "numNodes", lo=0),
                           jobs=tuple(jobs), plugins=tuple(sorted(k for k in (policy.v if policy is not None else ())
                                                                  if k != "numNodes")), span=f.span(o.node))


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
        per_node = {**limits, **requests}
    status = f.map(o.node, "status")
    succeeded = {name: n for s in f.maps(status, "jobsStatus")
                 if (name := f.str(s, "name")) and (n := f.int(s, "succeeded", default=0, lo=0))}
    train = TrainSpec(runtime_kind=kind, runtime_name=f.str(ref, "name", required=True, what="`runtimeRef`"),  # type: ignore[arg-type]
                      num_nodes=f.int(trainer, "numNodes", lo=0), resources_per_node=per_node,
                      patches=_runtime_patches(f, spec), succeeded=succeeded,
                      changes=tuple([f"trainer.{k}" for k in sorted(trainer.v if trainer is not None else ())
                                     if k != "numNodes"] + [k for k in _CHANGES if f.field(spec, k) is not None]))
    started = any(f.int(s, "active", default=0) for s in f.maps(status, "jobsStatus"))
    finished = any(f.str(c, "type") in ("Complete", "Failed") and f.str(c, "status") == "True"
                   for c in f.maps(status, "conditions"))
    b = Builder(f, o, FRAMEWORK)
    job = b.job(state=run_state(started, finished), workloads=[])
    wl = b.workload(object_ref(o, f), [])
    return job.model_copy(update={"train": train, "workloads": (wl,)})


# the TrainJob's spec fields the Trainer applies to the JobSet's pod templates (besides `trainer`)
_CHANGES = ("initializer", "runtimePatches", "podTemplateOverrides", "podSpecOverrides")


def _runtime_patches(f: Fields, spec: Val) -> tuple[RuntimePatch, ...]:
    """The pod-template changes of `runtimePatches` Kueue's pod sets carry (`RuntimePatch`). The
    pod template's labels and annotations are merged too: Kueue's own (topology, pod-set group)
    there are not modelled and reported (KAD161); containers, volumes and the rest change no
    request."""
    out = []
    for patch in f.maps(spec, "runtimePatches"):
        template = f.map(f.map(patch, "trainingRuntimeSpec"), "template")
        for rj in f.maps(f.map(template, "spec"), "replicatedJobs"):
            pod = f.map(f.map(f.map(rj, "template"), "spec"), "template")
            pod_spec = f.map(pod, "spec")
            for where in ("labels", "annotations"):
                marks = f.map(f.map(pod, "metadata"), where)
                for key in sorted(marks.v if marks is not None else ()):
                    if key.startswith("kueue.x-k8s.io/"):
                        f.diags.emit(KAD161, f"`{key}` in a TrainJob's runtime patch is not modelled; ignored "
                                     "(kadmit reads Kueue's pod-template keys from the runtime)", f.span(f.field(marks, key)))
            selector, _ = f.str_map(pod_spec, "nodeSelector")
            affinity = f.map(f.map(pod_spec, "affinity"), "nodeAffinity")
            required = None
            if f.field(affinity, "requiredDuringSchedulingIgnoredDuringExecution") is not None:
                required = required_node_affinity(f, pod_spec)[0]
            tols = f.field(pod_spec, "tolerations") is not None
            out.append(RuntimePatch(
                job=f.str(rj, "name", default=""), node_selector=selector,
                tolerations=tolerations(f, pod_spec, validated=False) if tols else None,
                # the TrainJob's JobSet is stored unvalidated; each Job its controller makes of it is refused
                refusals=tuple(toleration_refusals(f, pod_spec, "spec.template.spec")) if tols else (),
                node_affinity=required, span=f.span(rj)))
    return tuple(out)


def _patched(ps: PodSet, name: str, patches: tuple[RuntimePatch, ...]) -> dict:
    """The pod set's selectors, tolerations and node affinity after the patches naming its job, and what the
    API server refuses of the Jobs made of it (KAD199): a patch's tolerations replace the runtime's words for
    theirs; refused, the Job is, whatever a Pod of it would be refused for. (A runtime template whose Job the
    patch's tolerations let through is not checked again for what its Pods are refused.)"""
    update: dict = {}
    for p in patches:
        if p.job != name:
            continue
        if p.node_selector:
            update["node_selector"] = {**update.get("node_selector", ps.node_selector), **p.node_selector}
        if p.tolerations is not None:
            update["tolerations"] = p.tolerations
            refused = update.get("refused_object", ps.refused_object)
            kept = tuple(w for w in update.get("pod_refusals", ps.pod_refusals) if ".tolerations[" not in w)
            if p.refusals:
                update["pod_refusals"] = (kept if refused == "Job" else ()) + p.refusals
                update["refused_object"] = "Job"
            else:
                update["pod_refusals"], update["refused_object"] = kept, refused if kept else ""
        if p.node_affinity is not None:
            update["node_affinity"] = p.node_affinity
    return update


def runtime_pod_sets(runtime: TrainingRuntime, train: TrainSpec) -> list[PodSet]:
    """`getChildJobSet`: a pod set per replicated job, count = replicas × pods per job, where a
    job's pods are its parallelism, the trainer's `mlPolicy.numNodes` (with an mlPolicy), then the
    TrainJob's `trainer.numNodes`; the trainer's `node` container takes `resourcesPerNode` whole."""
    out = []
    for j in runtime.jobs:
        pods = j.parallelism
        if j.trainer and runtime.ml_policy:
            pods = runtime.num_nodes if runtime.num_nodes is not None else 1
        if j.trainer and train.num_nodes is not None:
            pods = train.num_nodes
        requests = dict(j.pod_set.requests)
        per_node = train.resources_per_node
        if j.trainer and per_node is not None and (per_node or runtime.ml_policy):
            # The trainer's `node` container takes `resourcesPerNode` whole, its requests and
            # limits in place of the runtime's (Trainer v2.2 pkg/runtime/core/trainingruntime.go
            # with an mlPolicy, and the JobSet builder whenever either is set): none of the
            # runtime container's own resources remain.
            for r, q in j.node_requests.items():
                requests[r] = requests.get(r, 0) - q
            for r, q in per_node.items():
                requests[r] = requests.get(r, 0) + q
            requests = {r: q for r, q in sorted(requests.items()) if q > 0}
        origin = (f"replicated job `{j.name}` of {runtime.kind} `{runtime.name}` ({j.replicas} × {pods} pods"
                  + (", the trainer" if j.trainer else "") + ")")
        out.append(j.pod_set.model_copy(update={"count": j.replicas * pods, "requests": requests, "origin": origin,
                                                **_patched(j.pod_set, j.name, train.patches)}))
    return out


def reclaimable_pods(runtime: TrainingRuntime, train: TrainSpec, pod_sets: list[PodSet]) -> dict[str, int]:
    """Kueue's TrainJob.ReclaimablePods: per replicated job of the child JobSet, its succeeded Jobs
    (`status.jobsStatus[].succeeded`, when more than none and at most its replicas) times its pods
    per Job (`PodsCountPerReplica`: the pod set's count over the replicas), which the reconciler
    writes to the Workload's `status.reclaimablePods` and the scheduler takes off the pod set."""
    out = {}
    for j, ps in zip(runtime.jobs, pod_sets):
        done = train.succeeded.get(j.name, 0)
        if j.replicas and 0 < done <= j.replicas:
            out[j.name] = done * (ps.count // j.replicas)
    return out


def with_runtime(job: Job, runtimes: tuple[TrainingRuntime, ...]) -> Job:
    """A TrainJob's workload, from the runtime it names among `runtimes` (`runtime_pod_sets`), less the pods
    of its succeeded Jobs (`reclaimable_pods`); without the runtime in the input it has none (and says why).
    Its shapes, what Kueue compares of the TrainJob and its Workload (EquivalentToWorkload: the pod sets of the
    JobSet the Trainer builds of the runtime), are the runtime's pods as written (`owned.in_step` then keeps, or
    deletes, a Workload of the input as for other kinds); None where the Trainer writes more into them than
    kadmit builds (`unbuilt`): a Workload of the input is then kept as read, and said to may differ."""
    t = job.train
    assert t is not None
    ns = job.object.namespace if t.runtime_kind == "TrainingRuntime" else None
    runtime = next((r for r in runtimes
                    if r.kind == t.runtime_kind and r.name == t.runtime_name and r.namespace == ns), None)
    if runtime is None:
        where = f" in namespace `{ns}`" if ns else ""
        return job.model_copy(update={"workloads": (), "note": (
            f"its runtime, {t.runtime_kind} `{t.runtime_name}`{where}, is not in the input: kadmit builds a "
            "TrainJob's pod sets from its runtime's JobSet template (add the runtime to the input)")})
    pod_sets = runtime_pod_sets(runtime, t)
    t = t.model_copy(update={"unbuilt": unbuilt(runtime, t)})
    shapes = None if t.unbuilt or any(j.shape is None for j in runtime.jobs) else \
        Shapes((w.shapes[0] if (w := job.workloads[0]).shapes else None,
                tuple((ps.count, ps.min_count, *j.shape) for j, ps in zip(runtime.jobs, pod_sets))))
    job = job.model_copy(update={"train": t, "workloads": tuple(
        w.model_copy(update={"pod_sets": tuple(pod_sets), "shapes": shapes}) for w in job.workloads)})
    return reclaimed(job, reclaimable_pods(runtime, t, pod_sets))


def unbuilt(runtime: TrainingRuntime, train: TrainSpec) -> str:
    """What the Trainer writes into the JobSet's containers or tolerations that kadmit does not build: its
    mlPolicy plugins' env vars and ports (torch, mpi, ...), the TrainJob's trainer, initializer and patches;
    "" where nothing."""
    said = [f"its runtime's `mlPolicy.{p}` (the Trainer's {p} plugin adds env vars and ports)" for p in runtime.plugins]
    said += [f"its `spec.{c}`" for c in train.changes]
    return "; ".join(said)
