"""Benchmark inputs: a model written out as a `.kad` tree or as Kueue manifests.

The writers cover the parts of the model the benchmark states use (flavors with labels, taints and
tolerations; cohorts and cluster queues with quotas; local queues, namespaces, priority classes;
pending workloads) and refuse anything else, so that nothing is dropped silently: reading the
files back must give the same model (see tests/bench/test_bench_smoke.py).
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timezone
from pathlib import Path

from kadmit.manifests.podvalues import overcommit_allowed
from kadmit.model import (ClusterQueue, Cohort, LocalQueue, Model, Namespace, PriorityClass,
                          ResourceFlavor, ResourceGroup, ResourceQuota, Toleration, Workload)
from kadmit.quantity import format_quantity

Files = dict[str, str]  # relative path -> text

KUEUE_API = "kueue.x-k8s.io/v1beta1"
STAMP = "2026-11-01T09:00:00Z"
GPU = "nvidia.com/gpu"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[-.\/][A-Za-z0-9_]+)*")
_KAD_ENUMS = {"StrictFIFO": "strict_fifo", "BestEffortFIFO": "best_effort_fifo", "Never": "never",
              "LowerPriority": "lower_priority", "Any": "any",
              "LowerOrNewerEqualPriority": "lower_or_newer_equal_priority"}


# --- .kad ----------------------------------------------------------------------------------------

def _name(s: str) -> str:
    return s if _NAME.fullmatch(s) else json.dumps(s)


def _map(d: dict[str, str]) -> str:
    return "{ " + ", ".join(f"{_name(k)} = {json.dumps(v)}" for k, v in d.items()) + " }"


def _taints(ts) -> str:
    return "[" + ", ".join(json.dumps(str(t)) for t in ts) + "]"


def _tolerations(ts: tuple[Toleration, ...]) -> str:
    def one(t: Toleration) -> str:
        if t.operator == "Exists":
            return f"{t.key}:{t.effect}" if t.effect else t.key
        return f"{t.key}={t.value}:{t.effect}" if t.effect else f"{t.key}={t.value}"
    return "[" + ", ".join(json.dumps(one(t)) for t in ts) + "]"


def _resources(groups: tuple[ResourceGroup, ...], indent: str) -> list[str]:
    out = []
    for g in groups:
        out.append(f"{indent}resources {', '.join(_name(r) for r in g.covered_resources)} {{")
        for fq in g.flavors:
            parts = []
            for q in fq.resources:
                text = f"{_name(q.resource)} = {format_quantity(q.nominal, q.resource)}"
                if q.borrowing_limit is not None:
                    text += f" borrow {format_quantity(q.borrowing_limit, q.resource)}"
                if q.lending_limit is not None:
                    text += f" lend {format_quantity(q.lending_limit, q.resource)}"
                parts.append(text)
            out.append(f"{indent}  flavor {_name(fq.flavor)} {{ {'  '.join(parts)} }}")
        out.append(f"{indent}}}")
    return out


def kad_flavor(f: ResourceFlavor) -> list[str]:
    if f.topology:
        raise ValueError("gen: flavor topologies are not written")
    body = ([f"  node_labels = {_map(f.node_labels)}"] if f.node_labels else []) + (
        [f"  node_taints = {_taints(f.node_taints)}"] if f.node_taints else []) + (
        [f"  tolerations = {_tolerations(f.tolerations)}"] if f.tolerations else [])
    return [f"flavor {_name(f.name)} {{", *body, "}"] if body else [f"flavor {_name(f.name)} {{}}"]


def kad_cohort(c: Cohort) -> list[str]:
    if c.fair_sharing:
        raise ValueError("gen: fair sharing is not written")
    body = ([f"  parent = {_name(c.parent)}"] if c.parent else []) + _resources(c.resource_groups, "  ")
    return [f"cohort {_name(c.name)} {{", *body, "}"]


def kad_cluster_queue(cq: ClusterQueue) -> list[str]:
    if cq.fair_sharing or cq.stop_policy != "None" or cq.flavor_fungibility != type(cq.flavor_fungibility)() \
            or cq.preemption.borrow_within_cohort is not None:
        raise ValueError(f"gen: cluster queue `{cq.name}` uses fields that are not written")
    out = [f"cluster_queue {_name(cq.name)} {{"]
    if cq.cohort:
        out.append(f"  cohort     = {_name(cq.cohort)}")
    sel = cq.namespace_selector
    if sel is None:
        out.append("  namespaces = none")
    elif sel.match_expressions:
        raise ValueError("gen: match expressions are not written")
    elif sel.match_labels:
        out.append(f"  namespaces = {_map(sel.match_labels)}")
    out.append(f"  queueing   = {_KAD_ENUMS[cq.queueing_strategy]}")
    p = cq.preemption
    if (p.within_cluster_queue, p.reclaim_within_cohort) != ("Never", "Never"):
        out += ["  preemption {", f"    within_cluster_queue  = {_KAD_ENUMS[p.within_cluster_queue]}",
                f"    reclaim_within_cohort = {_KAD_ENUMS[p.reclaim_within_cohort]}", "  }"]
    return out + _resources(cq.resource_groups, "  ") + ["}"]


def kad_namespace(ns: Namespace) -> list[str]:
    return [f"namespace {_name(ns.name)} {{ labels = {_map(ns.labels)} }}" if ns.labels
            else f"namespace {_name(ns.name)} {{}}"]


def kad_priority(p: PriorityClass) -> list[str]:
    if p.kind != "workload":
        raise ValueError("gen: pod priority classes are not written")
    return [f"priority {_name(p.name)} = {p.value}" + (" default" if p.global_default else "")]


def kad_workload(wl: Workload) -> list[str]:
    if wl.admission is not None or wl.finished or wl.priority is not None:
        raise ValueError(f"gen: workload `{wl.key}` uses fields that are not written")
    out = [f"workload {_name(wl.namespace)}/{_name(wl.name)} {{", f"  queue    = {_name(wl.queue)}"]
    if wl.priority_class:
        out.append(f"  priority = {_name(wl.priority_class)}")
    out.append(f"  created  = \"{_stamp(wl.created)}\"")
    if not wl.active:
        out.append("  active   = false")
    for ps in wl.pod_sets:
        if ps.node_selector or ps.node_affinity or ps.topology:
            raise ValueError(f"gen: pod set `{ps.name}` of `{wl.key}` uses fields that are not written")
        reqs = ", ".join(f"{_name(r)} = {format_quantity(v, r)}" for r, v in ps.requests.items())
        out += [f"  pod_group {_name(ps.name)} {{", f"    count       = {ps.count}"]
        if ps.min_count is not None:
            out.append(f"    min_count   = {ps.min_count}")
        out.append(f"    requests    = {{ {reqs} }}")
        if ps.tolerations:
            out.append(f"    tolerations = {_tolerations(ps.tolerations)}")
        out.append("  }")
    return out + ["}"]


def _stamp(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _unsupported(model: Model) -> None:
    if model.topologies or model.nodes or model.pods or model.rules:
        raise ValueError("gen: topologies, nodes, pods and rules are not written")


def kad_files(model: Model) -> Files:
    """The model as a `.kad` tree: `policy.kad` (flavors, priorities, cohorts without a queue),
    one file per cohort with its cluster queues, their namespaces and local queues, and one
    workload file per namespace under `workloads/`."""
    _unsupported(model)
    head = ["# generated by bench/gen.py", ""]
    for f in model.flavors:
        head += kad_flavor(f) + [""]
    head += [line for p in model.priority_classes for line in kad_priority(p)] + [""]
    by_cohort: dict[str, list[ClusterQueue]] = {}
    for cq in model.cluster_queues:
        by_cohort.setdefault(cq.cohort or "", []).append(cq)
    nss = {ns.name: ns for ns in model.namespaces}
    lqs: dict[str, list[LocalQueue]] = {}
    for lq in model.local_queues:
        lqs.setdefault(lq.cluster_queue, []).append(lq)
    files: Files = {}
    placed: set[str] = set()
    for c in model.cohorts:
        if c.name not in by_cohort:
            head += kad_cohort(c) + [""]
    for cohort_name, queues in sorted(by_cohort.items()):
        cohort = next((c for c in model.cohorts if c.name == cohort_name), None)
        lines = kad_cohort(cohort) + [""] if cohort is not None else []
        for cq in queues:
            mine = lqs.pop(cq.name, [])
            lines += kad_cluster_queue(cq)
            for lq in mine:
                if lq.namespace in nss and lq.namespace not in placed:
                    placed.add(lq.namespace)
                    lines += kad_namespace(nss[lq.namespace])
            lines += [f"local_queue {_name(lq.namespace)}/{_name(lq.name)} -> {_name(lq.cluster_queue)}"
                      for lq in mine] + [""]
        files[f"queues/{cohort_name or 'no-cohort'}.kad"] = "\n".join(lines)
    head += [f"local_queue {_name(lq.namespace)}/{_name(lq.name)} -> {_name(lq.cluster_queue)}"
             for rest in lqs.values() for lq in rest]
    head += [line for ns in model.namespaces if ns.name not in placed for line in kad_namespace(ns)]
    files["policy.kad"] = "\n".join(head) + "\n"
    by_ns: dict[str, list[str]] = {}
    for wl in model.workloads:
        by_ns.setdefault(wl.namespace, []).extend(kad_workload(wl) + [""])
    for ns, lines in by_ns.items():
        files[f"workloads/{ns}.kad"] = "\n".join(lines)
    return files


# --- manifests -----------------------------------------------------------------------------------

_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    return s if _PLAIN.fullmatch(s) and s.lower() not in _YAML_WORDS else json.dumps(s)


def to_yaml(v, indent: str = "") -> list[str]:
    """Block-style YAML for dicts, lists and scalars, keys in the order given."""
    out: list[str] = []
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{indent}{_scalar(k)}:")
                out += to_yaml(x, indent + ("" if isinstance(x, list) else "  "))
            else:
                out.append(f"{indent}{_scalar(k)}: " + ("{}" if x == {} else "[]" if x == [] else _scalar(x)))
    else:
        for x in v:
            lines = to_yaml(x, indent + "  ") if isinstance(x, (dict, list)) else [indent + "  " + _scalar(x)]
            out.append(indent + "- " + lines[0][len(indent) + 2:])
            out += lines[1:]
    return out


def _meta(name: str, serial: int, namespace: str | None = None, created: str = STAMP, **extra) -> dict:
    meta: dict = {"creationTimestamp": created, "generation": 1, **extra, "name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    rnd = random.Random(serial)
    meta["resourceVersion"] = str(40000 + serial)
    meta["uid"] = "-".join(f"{rnd.getrandbits(b * 4):0{b}x}" for b in (8, 4, 4, 4, 12))
    return dict(sorted(meta.items()))  # kubectl prints keys sorted


def _groups(groups: tuple[ResourceGroup, ...]) -> list:
    def quota(q: ResourceQuota) -> dict:
        d = {"name": q.resource, "nominalQuota": format_quantity(q.nominal, q.resource)}
        if q.borrowing_limit is not None:
            d["borrowingLimit"] = format_quantity(q.borrowing_limit, q.resource)
        if q.lending_limit is not None:
            d["lendingLimit"] = format_quantity(q.lending_limit, q.resource)
        return d
    return [{"coveredResources": list(g.covered_resources),
             "flavors": [{"name": f.flavor, "resources": [quota(q) for q in f.resources]} for f in g.flavors]}
            for g in groups]


def _toleration_dicts(ts: tuple[Toleration, ...]) -> list:
    return [{k: v for k, v in (("effect", t.effect), ("key", t.key), ("operator", t.operator),
                               ("value", t.value)) if v} for t in ts]


def _doc(kind: str, meta: dict, api: str = KUEUE_API, **body) -> list[str]:
    return ["---"] + to_yaml({"apiVersion": api, "kind": kind, "metadata": meta, **body})


def manifest_workload(wl: Workload, serial: int, classes: dict[str, PriorityClass]) -> list[str]:
    """A Workload as `kubectl get workloads -o yaml` prints a Job's, one document."""
    if wl.admission is not None or wl.finished or wl.priority is not None:
        raise ValueError(f"gen: workload `{wl.key}` uses fields that are not written")
    job = {"apiVersion": "batch/v1", "blockOwnerDeletion": True, "controller": True, "kind": "Job",
           "name": wl.name, "uid": _meta(wl.name, serial + 1)["uid"]}
    pod_sets = []
    for ps in wl.pod_sets:
        if ps.node_selector or ps.node_affinity or ps.topology:
            raise ValueError(f"gen: pod set `{ps.name}` of `{wl.key}` uses fields that are not written")
        reqs = {r: format_quantity(v, r) for r, v in ps.requests.items()}
        # a resource a pod may not overcommit (a GPU) has a limit equal to its request, as the API server requires
        limits = {r: q for r, q in reqs.items() if not overcommit_allowed(r)}
        container = {"args": ["--config=/etc/job/config.yaml"], "image": "registry.example.com/ml/trainer:2.4",
                     "imagePullPolicy": "IfNotPresent", "name": "worker",
                     "resources": {"requests": reqs, **({"limits": limits} if limits else {})},
                     "terminationMessagePath": "/dev/termination-log",
                     "terminationMessagePolicy": "File"}
        spec = {"containers": [container], "dnsPolicy": "ClusterFirst", "restartPolicy": "Never",
                "schedulerName": "default-scheduler", "securityContext": {},
                "terminationGracePeriodSeconds": 30}
        if ps.tolerations:
            spec["tolerations"] = _toleration_dicts(ps.tolerations)
        d = {"count": ps.count}
        if ps.min_count is not None:
            d["minCount"] = ps.min_count
        d |= {"name": ps.name,
              "template": {"metadata": {"labels": {"batch.kubernetes.io/job-name": wl.name}}, "spec": spec}}
        pod_sets.append(d)
    spec = {"active": wl.active, "podSets": pod_sets}
    if wl.priority_class:
        spec |= {"priority": classes[wl.priority_class].value, "priorityClassName": wl.priority_class,
                 "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass"}
    spec["queueName"] = wl.queue
    meta = _meta(wl.name, serial, wl.namespace, _stamp(wl.created),
                 finalizers=["kueue.x-k8s.io/resource-in-use"],
                 labels={"kueue.x-k8s.io/job-uid": job["uid"]}, ownerReferences=[job])
    return _doc("Workload", meta, spec=spec)


def manifest_files(model: Model) -> Files:
    """The model as Kueue manifests, one file per kind (as `kubectl get … -o yaml` would give them,
    one document per object), workloads in one file per namespace under `workloads/`."""
    _unsupported(model)
    files: Files = {}
    serial = iter(range(0, 10**9, 2))
    docs: list[str] = []
    for f in model.flavors:
        spec: dict = {}
        if f.node_labels:
            spec["nodeLabels"] = dict(f.node_labels)
        if f.node_taints:
            spec["nodeTaints"] = [{"effect": t.effect, "key": t.key, "value": t.value} for t in f.node_taints]
        if f.tolerations:
            spec["tolerations"] = _toleration_dicts(f.tolerations)
        docs += _doc("ResourceFlavor", _meta(f.name, next(serial)), spec=spec)
    files["resource-flavors.yaml"] = docs
    docs = []
    for p in model.priority_classes:
        extra = {"annotations": {"kadmit.dev/default-priority-class": "true"}} if p.global_default else {}
        docs += _doc("WorkloadPriorityClass", _meta(p.name, next(serial), **extra), value=p.value)
    files["priority-classes.yaml"] = docs
    docs = []
    for c in model.cohorts:
        spec = ({"parentName": c.parent} if c.parent else {}) | (
            {"resourceGroups": _groups(c.resource_groups)} if c.resource_groups else {})
        docs += _doc("Cohort", _meta(c.name, next(serial)), spec=spec)
    files["cohorts.yaml"] = docs
    docs = []
    for cq in model.cluster_queues:
        kad_cluster_queue(cq)  # refuses what isn't written
        spec = {"cohort": cq.cohort} if cq.cohort else {}
        spec["flavorFungibility"] = {"whenCanBorrow": "Borrow", "whenCanPreempt": "TryNextFlavor"}
        if cq.namespace_selector is not None:
            spec["namespaceSelector"] = {"matchLabels": dict(cq.namespace_selector.match_labels)} \
                if cq.namespace_selector.match_labels else {}
        spec["preemption"] = {"borrowWithinCohort": {"policy": "Never"},
                              "reclaimWithinCohort": cq.preemption.reclaim_within_cohort,
                              "withinClusterQueue": cq.preemption.within_cluster_queue}
        spec |= {"queueingStrategy": cq.queueing_strategy, "resourceGroups": _groups(cq.resource_groups),
                 "stopPolicy": "None"}
        docs += _doc("ClusterQueue", _meta(cq.name, next(serial),
                                           finalizers=["kueue.x-k8s.io/resource-in-use"]), spec=spec)
    files["cluster-queues.yaml"] = docs
    docs = []
    for lq in model.local_queues:
        docs += _doc("LocalQueue", _meta(lq.name, next(serial), lq.namespace),
                     spec={"clusterQueue": lq.cluster_queue, "stopPolicy": "None"})
    files["local-queues.yaml"] = docs
    docs = []
    for ns in model.namespaces:
        labels = {"kubernetes.io/metadata.name": ns.name} | dict(ns.labels)
        docs += _doc("Namespace", _meta(ns.name, next(serial), labels=labels), api="v1",
                     spec={"finalizers": ["kubernetes"]})
    files["namespaces.yaml"] = docs
    classes = {p.name: p for p in model.priority_classes}
    for wl in model.workloads:
        files.setdefault(f"workloads/{wl.namespace}.yaml", []).extend(
            manifest_workload(wl, next(serial), classes))
    return {path: "\n".join(lines) + "\n" for path, lines in files.items() if lines}


# --- files -------------------------------------------------------------------------------------------

def write_files(files: Files, root: Path) -> list[Path]:
    """Write `files` below `root` (creating folders); the paths written, sorted."""
    out = []
    for rel, text in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


def count_lines(files: Files) -> int:
    return sum(text.count("\n") + (not text.endswith("\n")) for text in files.values() if text)
