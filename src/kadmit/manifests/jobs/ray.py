"""RayJob, RayCluster and RayService -> head and worker groups (pkg/controller/jobs/raycluster
`BuildPodSets`, rayjob, rayservice)."""

from __future__ import annotations

from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.jobs.common import Builder, condition_true, run_state
from kadmit.model import Job, PodSet
from kadmit.quantity import parse_quantity

# KubeRay's default submitter container (Kueue's `defaultSubmitterResources`) and Kueue's default
# autoscaler sidecar (`defaultAutoscalerResources`): their requests.
SUBMITTER = {"cpu": parse_quantity("500m"), "memory": parse_quantity("200Mi")}
AUTOSCALER = {"cpu": parse_quantity("500m"), "memory": parse_quantity("512Mi")}


def _plus(ps: PodSet, extra: dict[str, int]) -> PodSet:
    reqs = dict(ps.requests)
    for r, q in extra.items():
        reqs[r] = reqs.get(r, 0) + q
    return ps.model_copy(update={"requests": dict(sorted(reqs.items()))})


def _cluster(f: Fields, b: Builder, spec, what: str) -> None:
    """`BuildPodSets`: `head` (1 pod; plus the autoscaler sidecar with in-tree autoscaling), then
    each worker group, named by `groupName` lower-cased, count = replicas (default 1) × numOfHosts."""
    head = f.map(spec, "headGroupSpec", required=True, what=what)
    template = f.map(head, "template", required=True, what="`headGroupSpec`")
    ps = b.template("head", 1, template, head, origin="the Ray head")
    if f.bool(spec, "enableInTreeAutoscaling", default=False):
        res = f.map(f.map(spec, "autoscalerOptions"), "resources")
        requests, _ = f.resource_list(res, "requests")
        limits, _ = f.resource_list(res, "limits")
        b.pod_sets[-1] = _plus(ps, {**limits, **requests} if res is not None else AUTOSCALER)
    for wg in f.maps(spec, "workerGroupSpecs"):
        name = f.str(wg, "groupName", required=True, what="a worker group")
        replicas = f.int(wg, "replicas", default=1, lo=0)
        hosts = f.int(wg, "numOfHosts", default=1, lo=0)
        count = replicas * hosts if hosts > 1 else replicas
        template = f.map(wg, "template", required=True, what=f"worker group `{name}`")
        bounds = f"min {f.int(wg, 'minReplicas', default=0)}, max {f.int(wg, 'maxReplicas', default=0)}"
        b.template(name.lower(), count, template, wg, count_node=f.field(wg, "replicas"),
                   origin=f"worker group `{name}` ({replicas} replica{'s' if replicas != 1 else ''}"
                          + (f" × {hosts} hosts" if hosts > 1 else "")
                          + (f"; autoscaling {bounds}: Kueue admits the replicas" if
                             f.bool(spec, "enableInTreeAutoscaling", default=False) else "") + ")")


def ray_job(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"RayJob `{o.name}`")
    b = Builder(f, o, "ray.io/rayjob")
    cluster = f.map(spec, "rayClusterSpec")
    if cluster is None:
        if f.field(spec, "clusterSelector") is not None:
            return b.job(workloads=[], note="it runs on an existing RayCluster (`clusterSelector`): Kueue does "
                                           "not manage RayJobs that use existing clusters")
        cluster = f.map(spec, "rayClusterSpec", required=True, what=f"the spec of RayJob `{o.name}`")
    _cluster(f, b, cluster, "`rayClusterSpec`")
    mode = f.str(spec, "submissionMode") or "K8sJobMode"  # the CRD's default
    if mode == "K8sJobMode":
        submitter = f.map(spec, "submitterPodTemplate")
        if submitter is not None:
            b.template("submitter", 1, submitter, submitter, origin="the submitter Job's pod")
        else:
            b.pod_sets.append(PodSet(name="submitter", count=1, requests=SUBMITTER,
                                     origin="the submitter Job's pod (KubeRay's default container)",
                                     span=f.span(o.node)))
    elif mode == "SidecarMode":
        b.pod_sets[0] = _plus(b.pod_sets[0], SUBMITTER)
    status = f.map(o.node, "status")
    deployment = f.str(status, "jobDeploymentStatus") or ""
    started = deployment not in ("", "New", "Suspended")
    finished = deployment in ("Complete", "Failed")
    return b.job(state=run_state(f.bool(spec, "suspend", default=False), started, finished))


def ray_cluster(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"RayCluster `{o.name}`")
    b = Builder(f, o, "ray.io/raycluster")
    _cluster(f, b, spec, f"the spec of RayCluster `{o.name}`")
    started = f.str(f.map(o.node, "status"), "state") == "ready"
    return b.job(state=run_state(f.bool(spec, "suspend", default=False), started, False))


def ray_service(f: Fields, o: Meta) -> Job:
    spec = f.map(o.node, "spec", required=True, what=f"RayService `{o.name}`")
    cluster = f.map(spec, "rayClusterConfig", required=True, what=f"the spec of RayService `{o.name}`")
    b = Builder(f, o, "ray.io/rayservice")
    _cluster(f, b, cluster, "`rayClusterConfig`")
    started = condition_true(f, f.map(o.node, "status"), "Ready")
    return b.job(state=run_state(f.bool(cluster, "suspend", default=False), started, False))
