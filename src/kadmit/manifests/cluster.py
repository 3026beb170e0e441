"""Core Kubernetes kinds -> model: Namespace, Node, Pod, LimitRange, RuntimeClass."""

from __future__ import annotations

from kadmit.manifests.builtinspec import (limit_range_refusals, no_pod_spec, node_status_refusals, pod_spec_refusals,
                                          runtime_class_refusals)
from kadmit.manifests.codes import KAD182
from kadmit.manifests.fields import Fields, Meta
from kadmit.manifests.gangs import pod_gang
from kadmit.manifests.podspec import pod_requests, taints, tolerations, written_formats
from kadmit.model import LimitRange, Namespace, Node, Pod, RuntimeClass

NAME_LABEL = "kubernetes.io/metadata.name"
# Kueue v0.17 tells a pod of a TAS workload by any of these annotations, in this order (pkg/util/tas/tas.go
# `IsTAS`: `IsExplicitTAS`, then unconstrained); its TAS cache leaves such pods out of the nodes' usage.
TAS_ANNOTATIONS = ("kueue.x-k8s.io/podset-preferred-topology", "kueue.x-k8s.io/podset-required-topology",
                   "kueue.x-k8s.io/podset-unconstrained-topology")
POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


def namespace(f: Fields, o: Meta) -> Namespace:
    labels, nodes = f.str_map(o.metadata, "labels")
    # The API server sets this label on every namespace; the model adds it back (effective_labels).
    if labels.get(NAME_LABEL) == o.name:
        del labels[NAME_LABEL]
        del nodes[NAME_LABEL]
    return Namespace(name=o.name, labels=labels, span=f.span(o.node),
                     spans=f.spans({"name": o.metadata.v.get("name"), "labels": f.field(o.metadata, "labels"),
                                    **{f"labels.{k}": v for k, v in nodes.items()}}))


def node(f: Fields, o: Meta) -> Node:
    spec = f.map(o.node, "spec")
    status = f.map(o.node, "status")
    labels, label_nodes = f.str_map(o.metadata, "labels")
    capacity = f.resource_list(status, "capacity")
    # SetDefaults_NodeStatus: an allocatable unset (or null) is the capacity's copy where that is written
    defaulted = f.field(status, "allocatable") is None and f.field(status, "capacity") is not None
    allocatable, alloc_nodes = capacity if defaulted else f.resource_list(status, "allocatable")
    node_status_refusals(f, capacity, (allocatable, alloc_nodes), defaulted)
    # Kueue's topology-aware scheduling counts a node only while its Ready condition is True, and a
    # node with no Ready condition is not ready to it (pkg/util/tas IsNodeStatusConditionTrue)
    ready, ready_node = False, None
    for cond in f.maps(status, "conditions"):
        if f.str(cond, "type") == "Ready":
            ready, ready_node = f.str(cond, "status") == "True", cond
    if ready_node is None:
        f.diags.emit(KAD182, f"node `{o.name}` has no `Ready` condition: Kueue's topology-aware scheduling "
                     "doesn't count it, and kube-scheduler places no pod on it (its node controller marks it "
                     "not ready)", f.span(f.field(o.metadata, "name")) or f.span(o.node),
                     help="a node read from a cluster has it; where this one is ready, add "
                          "`conditions: [{type: Ready, status: \"True\"}]` to its `status`")
    return Node(
        name=o.name, labels=labels, taints=taints(f, spec, "taints"), allocatable=allocatable,
        unschedulable=f.bool(spec, "unschedulable", default=False), ready=ready, span=f.span(o.node),
        spans=f.spans({"name": o.metadata.v.get("name"), "taints": f.field(spec, "taints"),
                       "unschedulable": f.field(spec, "unschedulable"), "ready": ready_node,
                       "allocatable": f.field(status, "capacity" if defaulted else "allocatable"),
                       **{f"labels.{k}": v for k, v in label_nodes.items()},
                       **{f"allocatable.{k}": v for k, v in alloc_nodes.items()}}))


def pod(f: Fields, o: Meta) -> Pod:
    # a Pod without spec is refused alone (`spec.containers: Required value`), as one without containers
    spec = None if no_pod_spec(f, o.node, "spec") is not None else f.map(o.node, "spec")
    status = f.map(o.node, "status")
    # the API server validates every Pod, whoever owns it: one it refuses holds no node (refused alone, `scope`)
    pod_spec_refusals(f, spec, "spec")
    reqs = pod_requests(f, spec)
    labels, label_nodes = f.str_map(o.metadata, "labels")
    namespace = o.namespace or "default"
    selector, _ = f.str_map(spec, "nodeSelector")
    tas = next((key for key in TAS_ANNOTATIONS if key in o.annotations), None)
    return Pod(
        namespace=namespace, name=o.name, node_name=f.str(spec, "nodeName") or None,
        requests=reqs.requests, phase=f.enum(status, "phase", POD_PHASES, "Running"),
        priority=f.int(spec, "priority", default=0), labels=labels, tas_annotation=tas, span=f.span(o.node),
        gang=pod_gang(f, namespace, spec, labels), node_selector=selector, tolerations=tolerations(f, spec),
        spans=f.spans({"name": o.metadata.v.get("name"), "node_name": f.field(spec, "nodeName"),
                       "phase": f.field(status, "phase"), "priority": f.field(spec, "priority"),
                       "labels": f.field(o.metadata, "labels"), "node_selector": f.field(spec, "nodeSelector"),
                       "tolerations": f.field(spec, "tolerations"),
                       "gang": f.field(spec, "workloadRef"),
                       "tas_annotation": f.field(f.map(o.metadata, "annotations"), tas) if tas else None,
                       **{f"labels.{k}": v for k, v in label_nodes.items()},
                       **{f"requests.{k}": v for k, v in reqs.nodes.items()}}),
        submitted=reqs.pod if "uid" not in o.metadata.v and status is None else None)


LIMIT_TYPES = ("Container", "Pod", "PersistentVolumeClaim")


def limit_range(f: Fields, o: Meta) -> list[LimitRange]:
    """A v1 LimitRange: one model item per `spec.limits` entry (Kueue summarizes them by type)."""
    spec = f.map(o.node, "spec", required=True, what=f"LimitRange `{o.name}`")
    out = []
    for i, item in enumerate(f.maps(spec, "limits")):
        lists = {key: f.resource_list(item, key) for key in ("default", "defaultRequest", "min", "max",
                                                                   "maxLimitRequestRatio")}
        kind = f.enum(item, "type", LIMIT_TYPES, required=True)
        default, default_request = lists["default"][0], lists["defaultRequest"][0]
        formats = written_formats(*(x for key, (_, nodes) in lists.items() for x in (nodes, key)))
        if kind == "Container":  # as the API server stores it (SetDefaults_LimitRangeItem), which Kueue reads
            default = {**lists["max"][0], **default}
            default_request = {**lists["min"][0], **default, **default_request}
            for r in default:  # a default taken from another field keeps that quantity's format
                src = "default" if r in lists["default"][0] else "max"
                if f"{src}.{r}" in formats:
                    formats[f"default.{r}"] = formats[f"{src}.{r}"]
            for r in default_request:
                src = ("defaultRequest" if r in lists["defaultRequest"][0] else "default" if r in default else "min")
                if f"{src}.{r}" in formats:
                    formats[f"defaultRequest.{r}"] = formats[f"{src}.{r}"]
        limit_range_refusals(f, i, kind, item, lists, default, default_request)
        out.append(LimitRange(
            namespace=o.namespace or "default", name=o.name, type=kind,
            default=default, default_request=default_request,
            min=lists["min"][0], max=lists["max"][0],
            max_limit_request_ratio=lists["maxLimitRequestRatio"][0], formats=formats, span=f.span(item),
            spans=f.spans({f"{key}.{r}": v for key, (_, nodes) in lists.items() for r, v in nodes.items()})))
    return out


def runtime_class(f: Fields, o: Meta) -> RuntimeClass:
    """A node.k8s.io/v1 RuntimeClass: its pods' fixed overhead."""
    runtime_class_refusals(f, o.node)
    overhead, nodes = f.resource_list(f.map(o.node, "overhead"), "podFixed")
    return RuntimeClass(name=o.name, overhead=overhead, span=f.span(o.node),
                        spans=f.spans({f"overhead.{r}": v for r, v in nodes.items()}))
