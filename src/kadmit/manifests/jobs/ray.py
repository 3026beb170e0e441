"""RayJob, RayCluster and RayService -> head and worker groups (pkg/controller/jobs/raycluster
`BuildPodSets`, rayjob, rayservice)."""

from __future__ import annotations

import json

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder, condition_true, run_state
from kadmit.manifests.jobs.templatepods import group_refusals, own_pods
from kadmit.manifests.podspec import WRITTEN
from kadmit.model import HashOnly, Job, PodSet, Refusal
from kadmit.podresources import ContainerResources, PodResources
from kadmit.quantity import parse_quantity

# KubeRay's default submitter container (Kueue's rayjob getSubmitterTemplate): its requests, and
# its limits, which the namespace's LimitRanges check as they check any container's
SUBMITTER = {"cpu": parse_quantity("500m"), "memory": parse_quantity("200Mi")}
SUBMITTER_LIMITS = {"cpu": parse_quantity("1"), "memory": parse_quantity("1Gi")}
SUBMITTER_POD = PodResources(containers=(ContainerResources(name="ray-job-submitter", requests=SUBMITTER,
                                                            limits=SUBMITTER_LIMITS),))
MAX_WORKER_GROUPS = 7  # 8 pod sets at most, the head's among them
HEAD = "head"


def _cluster(f: Fields, b: Builder, spec, what: str, path: str | None = None) -> None:
    """`BuildPodSets`: `head` (1 pod), then each worker group, named by `groupName` lower-cased,
    count = replicas × numOfHosts (when above 1); KubeRay's CRD defaults `replicas` to 0. With
    `path` (the cluster spec's field path), the webhook's pod-set group checks (RayCluster, RayJob)."""
    head = f.map(spec, "headGroupSpec", required=True, what=what)
    template = f.map(head, "template", required=True, what="`headGroupSpec`")
    b.template(HEAD, 1, template, head, origin="the Ray head")
    group_refusals(b, template)
    paths = {HEAD: f"{path}.headGroupSpec.template.metadata.annotations"}
    for i, wg in enumerate(f.maps(spec, "workerGroupSpecs")):
        paths[(f.str(wg, "groupName") or "").lower()] = f"{path}.workerGroupSpecs[{i}].template.metadata.annotations"
        name = f.str(wg, "groupName", required=True, what="a worker group")
        replicas = f.int(wg, "replicas", default=0, lo=0)
        hosts = f.int(wg, "numOfHosts", default=1, lo=0)
        count = replicas * hosts if hosts > 1 else replicas
        template = f.map(wg, "template", required=True, what=f"worker group `{name}`")
        b.template(name.lower(), count, template, wg, count_node=f.field(wg, "replicas"),
                   origin=f"worker group `{name}` ({replicas} replica{'s' if replicas != 1 else ''}"
                          + (f" × {hosts} hosts" if hosts > 1 else "") + ")")
        group_refusals(b, template)
    if path is not None:
        b.check_groups(paths)


def _cluster_refusals(f: Fields, spec, path: str, autoscaling: str) -> list[Refusal]:
    """Kueue's checks of a Ray cluster spec it manages (raycluster `ValidateCreate`, and the
    RayCluster webhook's own), in its words: no in-tree autoscaling (but for an elastic job with the
    ElasticJobsViaWorkloadSlices gate on: `slices.named` lifts it), at most 7 worker groups, none named `head`."""
    out = []
    node = f.field(spec, "enableInTreeAutoscaling")
    if f.bool(spec, "enableInTreeAutoscaling", default=False):
        out.append(Refusal(message=f"{path}.enableInTreeAutoscaling: Invalid value: true: {autoscaling}", span=f.span(node)))
    groups = f.maps(spec, "workerGroupSpecs")
    if len(groups) > MAX_WORKER_GROUPS:
        out.append(Refusal(message=f"{path}.workerGroupSpecs: Too many: {len(groups)}: must have at most "
                                   f"{MAX_WORKER_GROUPS} items", span=f.span(f.field(spec, "workerGroupSpecs"))))
    for i, wg in enumerate(groups):
        if f.str(wg, "groupName") == HEAD:
            out.append(Refusal(message=f'{path}.workerGroupSpecs[{i}].groupName: Forbidden: "head" is reserved for '
                                       "the head group", span=f.span(f.field(wg, "groupName"))))
    return out


SLICING = "a kueue managed job should only use autoscaling when workload slicing is enabled"
AUTOSCALING = ("a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on "
               "and the job is an elastic job")


def ray_job(f: Fields, o: Meta) -> Job:
    """A RayJob (pkg/controller/jobs/rayjob): its cluster's pod sets and the submitter; Kueue's
    webhook refuses a RayJob it manages that names an existing cluster as well as its own, names
    neither, or keeps its cluster after finishing."""
    spec = f.map(o.node, "spec", required=True, what=f"RayJob `{o.name}`")
    b = Builder(f, o, "ray.io/rayjob")
    cluster = f.map(spec, "rayClusterSpec")
    selector = f.map(spec, "clusterSelector")
    if selector is not None and selector.v:
        if cluster is None:
            return b.job(workloads=[], note="it runs on an existing RayCluster (`clusterSelector`): Kueue does "
                                           "not manage RayJobs that use existing clusters")
        shown = json.dumps(dict(sorted(f.str_map(spec, "clusterSelector")[0].items())), separators=(",", ":"))
        return _refused(b, [Refusal(message=f"spec.clusterSelector: Invalid value: {shown}: a kueue managed job "
                                            "should not use an existing cluster", span=f.span(selector))])
    if cluster is None:
        return _refused(b, [Refusal(message="spec.rayClusterSpec: Required value: rayClusterSpec is required for "
                                            "Kueue-managed jobs that don't use clusterSelector", span=f.span(spec))])
    refusals = []
    if not f.bool(spec, "shutdownAfterJobFinishes", default=False):
        refusals.append(Refusal(message="spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job "
                                        "should delete the cluster after finishing",
                                span=f.span(f.field(spec, "shutdownAfterJobFinishes") or spec)))
    refusals += _cluster_refusals(f, cluster, "spec.rayClusterSpec", SLICING)
    _cluster(f, b, cluster, "`rayClusterSpec`", "spec.rayClusterSpec")
    mode = f.str(spec, "submissionMode") or "K8sJobMode"  # the CRD's default
    if mode == "K8sJobMode":
        submitter = f.map(spec, "submitterPodTemplate")
        if submitter is not None:
            b.template("submitter", 1, submitter, submitter, origin="the submitter Job's pod", made="Job",
                       restart=WRITTEN)  # KubeRay fills no unset restartPolicy (podspec.WRITTEN)
            group_refusals(b, submitter)
        else:
            b.pod_sets.append(PodSet(name="submitter", count=1, requests=SUBMITTER, resources=SUBMITTER_POD,
                                     origin="the submitter Job's pod (KubeRay's default container)",
                                     index=HashOnly(()), span=f.span(o.node)))  # no topologyRequest
    # SidecarMode, HTTPMode, InteractiveMode: no pod set of their own, nothing added to the head
    # (v0.17's PodSets; later Kueue adds the submitter's requests to the head in SidecarMode)
    status = f.map(o.node, "status")
    deployment = f.str(status, "jobDeploymentStatus") or ""
    # Kueue's RayJob.IsActive: neither KubeRay's JobDeploymentStatusNew, which is "" (no status
    # yet; a status reading `New` is active), nor Suspended
    started = deployment not in ("", "Suspended")
    finished = deployment in ("Complete", "Failed")
    job = own_pods(b, b.job(state=run_state(started, finished)))
    return job.model_copy(update={"refusals": tuple(refusals) + job.refusals,
                                  "ray_cluster": f.str(status, "rayClusterName")})


def _refused(b: Builder, refusals: list[Refusal]) -> Job:
    """A job Kueue's webhook refuses whenever it manages it: no Workload either way."""
    job = b.job(workloads=[], note="Kueue makes no Workload of it")
    return job.model_copy(update={"refusals": tuple(refusals) + job.refusals})


def ray_cluster(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"RayCluster `{o.name}`")
    b = Builder(f, o, "ray.io/raycluster")
    refusals = _cluster_refusals(f, spec, "spec", AUTOSCALING)
    _cluster(f, b, spec, f"the spec of RayCluster `{o.name}`", "spec")
    started = f.str(f.map(o.node, "status"), "state") == "ready"
    job = own_pods(b, b.job(state=run_state(started, False)))
    return job.model_copy(update={"refusals": tuple(refusals) + job.refusals})


def ray_service(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"RayService `{o.name}`")
    cluster = f.map(spec, "rayClusterConfig", required=True, what=f"the spec of RayService `{o.name}`")
    b = Builder(f, o, "ray.io/rayservice")
    refusals = _cluster_refusals(f, cluster, "spec.rayClusterSpec", SLICING)  # Kueue names the field so
    _cluster(f, b, cluster, "`rayClusterConfig`")
    status = f.map(o.node, "status")
    started = condition_true(f, status, "Ready")
    job = own_pods(b, b.job(state=run_state(started, False)))
    # the RayCluster whose generation names an elastic RayService's slices (GetCustomAnnotations: its active one)
    return job.model_copy(update={"refusals": tuple(refusals) + job.refusals,
                                  "ray_cluster": f.str(f.map(status, "activeServiceStatus"), "rayClusterName")})
