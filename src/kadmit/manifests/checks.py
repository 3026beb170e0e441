"""Kueue's admission-check kinds -> model: AdmissionCheck, and what its built-in controllers read
(ProvisioningRequestConfig, MultiKueueConfig, MultiKueueCluster); a ClusterQueue's checks and a
Workload's check states (kadmit.modelchecks holds Kueue's rules over them)."""

from __future__ import annotations

from datetime import timedelta

from kadmit.manifests.codes import KAD157
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.yamltree import Val
from kadmit.model import AdmissionCheck, CheckConfig, CheckParameters, CheckRule, CheckState, RetryStrategy

STATES = ("Pending", "Ready", "Retry", "Rejected")
MERGE_POLICIES = ("IdenticalPodTemplates", "IdenticalWorkloadSchedulingRequirements")


def _active(f: Fields, o: Meta) -> tuple[bool | None, str]:
    """The object's `Active` status condition: whether True (None: no such condition), and its reason."""
    for cond in f.maps(f.map(o.node, "status"), "conditions"):
        if f.str(cond, "type") == "Active":
            return f.str(cond, "status") == "True", f.str(cond, "reason") or ""
    return None, ""


def admission_check(f: Fields, o: Meta) -> AdmissionCheck:
    spec = f.map(o.node, "spec", required=True, what=f"admission check `{o.name}`")
    params = f.map(spec, "parameters")
    parameters = None if params is None else CheckParameters(
        api_group=f.str(params, "apiGroup") or "", kind=f.str(params, "kind") or "", name=f.str(params, "name") or "")
    active, reason = _active(f, o)
    return AdmissionCheck(name=o.name, controller=f.str(spec, "controllerName", required=True,
                                                        what=f"admission check `{o.name}`"),
                          parameters=parameters, status_active=active, status_reason=reason, span=f.span(o.node),
                          spans=f.spans({"name": o.metadata.v.get("name"),
                                         "controller": f.field(spec, "controllerName"),
                                         "parameters": params}))


def provisioning_request_config(f: Fields, o: Meta) -> CheckConfig:
    """Its existence decides whether a provisioning check naming it is Active; the rest is what the
    provisioning controller asks the cluster autoscaler for (kept so that `export` and `import` write it)."""
    spec = f.map(o.node, "spec", required=True, what=f"ProvisioningRequestConfig `{o.name}`")
    kw: dict = {}
    retry = f.map(spec, "retryStrategy")
    if retry is not None:
        kw["retry_strategy"] = RetryStrategy(
            backoff_limit_count=f.int(retry, "backoffLimitCount"), backoff_base_seconds=f.int(retry, "backoffBaseSeconds"),
            backoff_max_seconds=f.int(retry, "backoffMaxSeconds"), span=f.span(retry))
    updates = f.maps(f.map(spec, "podSetUpdates"), "nodeSelector")
    return CheckConfig(kind="ProvisioningRequestConfig", name=o.name,
                       provisioning_class=f.str(spec, "provisioningClassName", required=True,
                                                what=f"ProvisioningRequestConfig `{o.name}`") or "",
                       parameters=f.str_map(spec, "parameters")[0], managed_resources=tuple(f.strs(spec, "managedResources")),
                       pod_set_updates=tuple((f.str(u, "key") or "", f.str(u, "valueFromProvisioningClassDetail") or "")
                                             for u in updates),
                       pod_set_merge_policy=f.enum(spec, "podSetMergePolicy", MERGE_POLICIES), span=f.span(o.node),
                       spans=f.spans({"name": o.metadata.v.get("name"), "retry_strategy": retry,
                                      **{k: f.field(spec, v) for k, v in (
                                          ("provisioning_class", "provisioningClassName"), ("parameters", "parameters"),
                                          ("managed_resources", "managedResources"), ("pod_set_updates", "podSetUpdates"),
                                          ("pod_set_merge_policy", "podSetMergePolicy"))}}), **kw)


def multikueue_config(f: Fields, o: Meta) -> CheckConfig:
    spec = f.map(o.node, "spec")
    return CheckConfig(kind="MultiKueueConfig", name=o.name, clusters=tuple(f.strs(spec, "clusters")),
                       span=f.span(o.node), spans=f.spans({"name": o.metadata.v.get("name"),
                                                           "clusters": f.field(spec, "clusters")}))


def multikueue_cluster(f: Fields, o: Meta) -> CheckConfig:
    """Its `Active` condition as given, and where Kueue connects to it from: `spec.clusterSource`'s
    kubeConfig or clusterProfileRef (v1beta1: those two in `spec` itself)."""
    active, _ = _active(f, o)
    what = f"MultiKueueCluster `{o.name}`"
    spec = f.map(o.node, "spec", required=True, what=what)
    # the API server requires v1beta2's clusterSource with exactly one of the two, v1beta1's kubeConfig
    source = spec if o.version == "v1beta1" else f.map(spec, "clusterSource", required=True, what=what)
    kube = f.map(source, "kubeConfig", required=o.version == "v1beta1", what=what)
    if o.version != "v1beta1" and source is not None and (kube is None) == (f.field(source, "clusterProfileRef") is None):
        f.invalid(KAD157, "`clusterSource` takes exactly one of `kubeConfig` and `clusterProfileRef`", source,
                  uses=(source,))
    return CheckConfig(kind="MultiKueueCluster", name=o.name, status_active=active,
                       kubeconfig=f.str(kube, "location") or "", kubeconfig_location_type=f.str(kube, "locationType") or "",
                       cluster_profile=f.str(f.map(source, "clusterProfileRef"), "name") or "", span=f.span(o.node),
                       spans=f.spans({"name": o.metadata.v.get("name"), "kubeconfig": kube,
                                      "cluster_profile": f.field(source, "clusterProfileRef")}))


def queue_checks(f: Fields, o: Meta, spec: Val | None) -> tuple[CheckRule, ...]:
    """A ClusterQueue's checks: v1beta1's `admissionChecks` (names, for every flavor), which Kueue's
    conversion puts in place of any `admissionChecksStrategy`; else the strategy's rules."""
    if o.version == "v1beta1":
        names = f.strs(spec, "admissionChecks")
        if names:
            nodes = f.seq(spec, "admissionChecks")
            return tuple(CheckRule(name=n, span=f.span(v), spans=f.spans({"name": v})) for n, v in zip(names, nodes))
    rules = f.maps(f.map(spec, "admissionChecksStrategy"), "admissionChecks")
    return tuple(CheckRule(name=f.str(r, "name", required=True, what="an admission check strategy rule"),
                           on_flavors=tuple(f.strs(r, "onFlavors")), span=f.span(r),
                           spans=f.spans({"name": f.field(r, "name"),
                                          **{f"on_flavors.{i}": v for i, v in enumerate(f.seq(r, "onFlavors"))}}))
                 for r in rules)


def check_states(f: Fields, status: Val | None) -> tuple[CheckState, ...]:
    """A Workload's `status.admissionChecks`: each check's state (the first entry of a name counts), and for a
    Retry one the time its `requeueAfterSeconds` pass after its lastTransitionTime (`retry_at`): Kueue's workload
    controller keeps a workload holding quota until the latest of them before it evicts it (`effective.checked`)."""
    out: dict[str, CheckState] = {}
    for item in f.maps(status, "admissionChecks"):
        name = f.str(item, "name", required=True, what="an admission check state")
        state = f.enum(item, "state", STATES, "Pending", required=True)
        after = f.int(item, "requeueAfterSeconds", lo=0)
        since = f.timestamp(item, "lastTransitionTime")
        retry_at = since + timedelta(seconds=after) if state == "Retry" and after is not None and since else None
        if name and name not in out:
            out[name] = CheckState(name=name, state=state, retry_at=retry_at, span=f.span(item))
    return tuple(out.values())
