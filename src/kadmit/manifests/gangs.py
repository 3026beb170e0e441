"""Pod groups kube-scheduler places all-or-nothing, not admitted by Kueue -> `Gang`.

- Kubernetes' own gang scheduling (KEP-4671, alpha) as Kubernetes v1.35 serves it: a
  `scheduling.k8s.io/v1alpha1` Workload whose `spec.podGroups[]` carry `policy.gang.minCount` (or
  `basic`: its pods are scheduled one by one), its pods naming workload and group in
  `spec.workloadRef` (`podGroupReplicaKey` splits one group into independent gangs). The PodGroup
  kind and the pods' `spec.schedulingGroup` came in v1.36: the v1.35 API server refuses both
  (KAD171, `served.LATER_K8S`; KAD180).
- The scheduler-plugins coscheduling PodGroup (`scheduling.x-k8s.io/v1alpha1`, `spec.minMember`),
  its pods labelled `scheduling.x-k8s.io/pod-group: <name>`.
"""

from __future__ import annotations

from kadmit.manifests import schema
from kadmit.manifests.fields import Fields, Meta
from kadmit.model import Gang

K8S = "scheduling.k8s.io"
COSCHEDULING = "scheduling.x-k8s.io"
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"
INT32_MAX = 2**31 - 1


def workload_group_key(namespace: str, workload: str, group: str, replica: str | None = None) -> str:
    return f"{K8S}/Workload:{namespace}/{workload}/{group}" + (f"#{replica}" if replica else "")


def coscheduling_key(namespace: str, name: str) -> str:
    return f"{COSCHEDULING}/PodGroup:{namespace}/{name}"


def _policy_min(f: Fields, policy) -> int:
    """`gang.minCount`, or 1 for `basic` (no gang: pods scheduled one by one)."""
    gang = f.map(policy, "gang")
    if gang is None:
        return 1
    return f.int(gang, "minCount", lo=1, hi=INT32_MAX, required=True, what="a gang policy") or 1


def workload(f: Fields, o: Meta) -> list[Gang]:
    """`scheduling.k8s.io/v1alpha1` Workload: one gang per pod group."""
    ns = o.namespace or "default"
    spec = f.map(o.node, "spec", required=True, what=f"Workload `{o.name}`")
    out = []
    for g in f.maps(spec, "podGroups"):
        name = f.str(g, "name", required=True, what="a pod group")
        policy = f.map(g, "policy", required=True, what=f"pod group `{name}`")
        gang = f.map(policy, "gang")
        out.append(Gang(key=workload_group_key(ns, o.name, name), namespace=ns, name=f"{o.name}/{name}",
                        api_version=o.api_version, kind=o.kind, min_count=_policy_min(f, policy),
                        policy="gang" if gang is not None else "basic", span=f.span(g),
                        spans=f.spans({"name": g.v.get("name"), "min_count": f.field(gang, "minCount"),
                                       "policy": policy})))
    return out


def coscheduling_pod_group(f: Fields, o: Meta) -> Gang:
    """scheduler-plugins `scheduling.x-k8s.io/v1alpha1` PodGroup."""
    ns = o.namespace or "default"
    spec = f.map(o.node, "spec", required=True, what=f"PodGroup `{o.name}`")
    return Gang(key=coscheduling_key(ns, o.name), namespace=ns, name=o.name, api_version=o.api_version,
                kind=o.kind, min_count=f.int(spec, "minMember", lo=1, hi=INT32_MAX, default=1) or 1,
                span=f.span(o.node),
                spans=f.spans({"name": o.metadata.v.get("name"), "min_count": f.field(spec, "minMember")}))


def pod_gang(f: Fields, namespace: str, spec, labels: dict[str, str]) -> str | None:
    """The gang a pod names: its workload reference or the coscheduling label."""
    ref = f.map(spec, "workloadRef")
    if ref is not None:
        wl, grp = f.str(ref, "name"), f.str(ref, "podGroup")
        if wl and grp:
            return workload_group_key(namespace, wl, grp, f.str(ref, "podGroupReplicaKey"))
    if labels.get(COSCHEDULING_LABEL):
        return coscheduling_key(namespace, labels[COSCHEDULING_LABEL])
    return None


_POLICY = {"o": {"basic": {"o": {}}, "gang": {"o": {"minCount": "s"}}}}
schema.register(K8S, "v1alpha1", "Workload", {"o": {
    "apiVersion": "s", "kind": "s", "metadata": "core:V1ObjectMeta", "status": "*",
    "spec": {"o": {"controllerRef": "*", "podGroups": {"l": {"o": {"name": "s", "policy": _POLICY}}}}}}},
    "kubernetes/api scheduling/v1alpha1 Workload (Kubernetes v1.35, alpha)")
schema.register(COSCHEDULING, "v1alpha1", "PodGroup", {"o": {
    "apiVersion": "s", "kind": "s", "metadata": "core:V1ObjectMeta", "status": "*",
    "spec": {"o": {"minMember": "s", "minResources": "*", "scheduleTimeoutSeconds": "s"}}}},
    "kubernetes-sigs/scheduler-plugins apis/scheduling/v1alpha1 PodGroup")

