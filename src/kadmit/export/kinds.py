"""What a ValidatingAdmissionPolicy's `variables` read of each kind it judges: the workload's name,
queue, priority and pod groups (count, minCount, per-pod requests in milli-units, topology request,
node selector), in CEL with Kubernetes' extension libraries (quantity, lists).

Workloads carry every job kind Kueue manages (Kueue makes one per job, and a refused Workload is
never admitted), so a rule judged on Workloads holds on the cluster; batch Jobs and JobSets are also
judged as users submit them, so that `kubectl apply` says which rule refused them. Pod requests
follow Kubernetes' PodRequests as kadmit reads them (`manifests.podspec.pod_requests`): containers
summed with sidecars, the largest init-container step, pod-level requests, overhead."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.export.cel import string

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
TOPOLOGY_ANNOTATION = "kueue.x-k8s.io/podset-{}-topology"
# Kinds whose child Jobs are covered by their own Workload (a Job they own is not top level).
PARENTS = ("JobSet", "RayJob", "RayCluster", "AppWrapper", "TrainJob", "PyTorchJob", "TFJob", "MPIJob",
           "JAXJob", "PaddleJob", "XGBoostJob", "LeaderWorkerSet")


def milli(q: str) -> str:
    """A quantity (string or int in the object) as milli-units, rounded up as MilliValue does."""
    qq = f"quantity(string({q}))"
    f = f"({qq}.asApproximateFloat() * 1000.0)"
    return f"({qq}.isInteger() ? {qq}.asInteger() * 1000 : int({f}) + (double(int({f})) < {f} - 0.000001 ? 1 : 0))"


def _container(c: str, res: str) -> str:
    r = string(res)
    return (f"(has({c}.resources) && has({c}.resources.requests) && {r} in {c}.resources.requests ? "
            f"{milli(f'{c}.resources.requests[{r}]')} : (has({c}.resources) && has({c}.resources.limits) && "
            f"{r} in {c}.resources.limits ? {milli(f'{c}.resources.limits[{r}]')} : 0))")


def _sidecar(c: str) -> str:
    return f"(has({c}.restartPolicy) && {c}.restartPolicy == 'Always')"


def pod_request(spec: str, res: str) -> str:
    """One pod's request of `res` from a pod spec."""
    r = string(res)
    inits = f"{spec}.initContainers"
    main = (f"({spec}.containers.map(c, {_container('c', res)}).sum() + (has({inits}) ? "
            f"{inits}.filter(c, {_sidecar('c')}).map(c, {_container('c', res)}).sum() : 0))")
    step = (f"({_sidecar(f'{inits}[i]')} ? 0 : {_container(f'{inits}[i]', res)}) + "
            f"{inits}.slice(0, i + 1).filter(c, {_sidecar('c')}).map(c, {_container('c', res)}).sum()")
    init_max = f"(has({inits}) && size({inits}) > 0 ? lists.range(size({inits})).map(i, {step}).max() : 0)"
    level = (f"(has({spec}.resources) && has({spec}.resources.requests) && {r} in {spec}.resources.requests ? "
             f"{milli(f'{spec}.resources.requests[{r}]')} : [{main}, {init_max}].max())")
    overhead = f"(has({spec}.overhead) && {r} in {spec}.overhead ? {milli(f'{spec}.overhead[{r}]')} : 0)"
    return f"({level} + {overhead})"


def _topology(request: str | None, meta: str) -> tuple[str, str]:
    """(mode, level) of a pod set: its `topologyRequest` when it names a mode, else its template's
    annotations; `unconstrained` and "" without either."""
    ann = f"(has({meta}.annotations) ? {meta}.annotations : {{}})"
    req, pref = (string(TOPOLOGY_ANNOTATION.format(m)) for m in ("required", "preferred"))
    a_mode = f"({req} in {ann} ? 'required' : ({pref} in {ann} ? 'preferred' : 'unconstrained'))"
    a_level = f"({req} in {ann} ? {ann}[{req}] : ({pref} in {ann} ? {ann}[{pref}] : ''))"
    if request is None:
        return a_mode, a_level
    has_req = f"(has({request}) && has({request}.required))"
    has_pref = f"(has({request}) && has({request}.preferred))"
    has_un = f"(has({request}) && has({request}.unconstrained))"
    mode = f"({has_req} ? 'required' : ({has_pref} ? 'preferred' : ({has_un} ? 'unconstrained' : {a_mode})))"
    level = f"({has_req} ? {request}.required : ({has_pref} ? {request}.preferred : ({has_un} ? '' : {a_level})))"
    return mode, level


def pod_group(name: str, count: str, min_count: str, template: str, resources: list[str],
              request: str | None = None) -> str:
    """A pod group as the map rules read (see `export.cel.Translator`)."""
    spec, meta = f"{template}.spec", f"{template}.metadata"
    mode, level = _topology(request, f"(has({template}.metadata) ? {meta} : {{}})")
    reqs = "{" + ", ".join(f"{string(r)}: {pod_request(spec, r)}" for r in resources) + "}"
    selector = f"(has({spec}.nodeSelector) ? {spec}.nodeSelector : {{}})"
    # Kubernetes type-checks literals as homogeneous: the map's values are each made `dyn`
    return (f"{{'name': dyn(string({name})), 'count': dyn(int({count})), 'minCount': dyn(int({min_count})), "
            f"'requests': dyn({reqs}), 'topology': dyn(string({mode})), 'topologyLevel': dyn(string({level})), "
            f"'nodeSelector': dyn({selector})}}")


@dataclass(frozen=True)
class Kind:
    """A kind a policy judges: its API group and resource, when Kueue manages it, its view."""

    group: str
    resource: str
    versions: tuple[str, ...]
    kind: str
    managed: str  # a match condition: Kueue makes a workload of this object
    queue: str
    priority_source: str  # (class kind, name) as CEL: `['workload', name]`, `['pod', name]` or `['', '']`
    pod_groups: object  # resources -> CEL list of pod groups

    def rule(self) -> dict:
        return {"apiGroups": [self.group], "apiVersions": list(self.versions), "resources": [self.resource],
                "operations": ["CREATE", "UPDATE"]}


def _label(key: str) -> str:
    return f"(has(object.metadata.labels) && {string(key)} in object.metadata.labels)"


def _job_queue(default_queue_namespaces: list[str]) -> str:
    q = string(QUEUE_LABEL)
    ns = "[" + ", ".join(string(n) for n in default_queue_namespaces) + "]"
    return f"({_label(QUEUE_LABEL)} ? object.metadata.labels[{q}] : (request.namespace in {ns} ? 'default' : ''))"


def _top_level() -> str:
    parents = "[" + ", ".join(string(k) for k in PARENTS) + "]"
    return ("(!has(object.metadata.ownerReferences) || !object.metadata.ownerReferences.exists(r, "
            f"has(r.controller) && r.controller && r.kind in {parents}))")


def _job_priority(first_template_spec: str) -> str:
    label = string(PRIORITY_LABEL)
    return (f"({_label(PRIORITY_LABEL)} ? ['workload', string(object.metadata.labels[{label}])] : "
            f"(has({first_template_spec}.priorityClassName) ? ['pod', string({first_template_spec}.priorityClassName)] : "
            "['', '']))")


def _job_count(spec: str) -> str:
    par = f"(has({spec}.parallelism) ? {spec}.parallelism : 1)"
    return f"(has({spec}.completions) && {spec}.completions < {par} ? {spec}.completions : {par})"


def kinds(default_queue_namespaces: list[str]) -> list[Kind]:
    queue = _job_queue(default_queue_namespaces)
    workload = Kind(
        "kueue.x-k8s.io", "workloads", ("v1beta2",), "Workload",
        managed="has(object.spec.queueName) && object.spec.queueName != ''",
        queue="object.spec.queueName",
        # Kueue's scheduler reads a Workload's spec.priority only, 0 where unset, whatever class it names
        priority_source="['value', has(object.spec.priority) ? string(object.spec.priority) : '0']",
        pod_groups=lambda res: "object.spec.podSets.map(ps, " + pod_group(
            "ps.name", "ps.count", "(has(ps.minCount) ? ps.minCount : ps.count)", "ps.template", res,
            "ps.topologyRequest") + ")")
    min_ann = f"object.metadata.annotations[{string(MIN_PARALLELISM)}]"
    job = Kind(
        "batch", "jobs", ("v1",), "Job",
        managed=f"{_top_level()} && {queue} != ''", queue=queue,
        priority_source=_job_priority("object.spec.template.spec"),
        pod_groups=lambda res: "[" + pod_group(
            "'main'", _job_count("object.spec"),
            f"(has(object.metadata.annotations) && {string(MIN_PARALLELISM)} in object.metadata.annotations ? "
            f"int({min_ann}) : {_job_count('object.spec')})", "object.spec.template", res) + "]")
    jobset = Kind(
        "jobset.x-k8s.io", "jobsets", ("v1alpha2",), "JobSet",
        managed=f"{_top_level()} && {queue} != ''", queue=queue,
        priority_source=_job_priority("object.spec.replicatedJobs[0].template.spec.template.spec"),
        pod_groups=lambda res: "object.spec.replicatedJobs.map(rj, " + pod_group(
            "rj.name", f"(has(rj.replicas) ? rj.replicas : 1) * {_job_count('rj.template.spec')}",
            f"(has(rj.replicas) ? rj.replicas : 1) * {_job_count('rj.template.spec')}",
            "rj.template.spec.template", res) + ")")
    return [workload, job, jobset]
