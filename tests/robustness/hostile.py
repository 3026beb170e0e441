"""Hostile and large inputs, written as a new user's `kubectl get -o json` would be: deep cohort chains,
huge workloads, long lines, oversized labels."""

from __future__ import annotations

import json
from pathlib import Path

T0 = "2026-11-20T08:10:00Z"
ADMITTED = [{"type": t, "status": "True", "reason": "x", "message": "", "lastTransitionTime": T0}
            for t in ("QuotaReserved", "Admitted")]


def flavor(name: str) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {}}


def namespace(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def cluster_queue(name: str, cohort: str | None = None, cpu: str = "8", flavor_name: str = "f") -> dict:
    spec: dict = {"namespaceSelector": {}, "preemption": {"reclaimWithinCohort": "Any",
                                                          "withinClusterQueue": "LowerPriority"},
                  "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                      {"name": flavor_name, "resources": [{"name": "cpu", "nominalQuota": cpu}]}]}]}
    if cohort:
        spec["cohort"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def local_queue(name: str, ns: str, cq: str) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": ns}, "spec": {"clusterQueue": cq}}


def workload(name: str, ns: str, queue: str, pod_sets: int = 1, cpu: str = "1") -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "creationTimestamp": T0},
            "spec": {"queueName": queue, "podSets": [
                {"name": f"ps{i}", "count": 1, "template": {"spec": {"containers": [
                    {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}}
                for i in range(pod_sets)]}}


def admitted(wl: dict, cq: str, flavors: dict | None) -> dict:
    psa = {"name": "ps0", "count": 1}
    if flavors is not None:
        psa["flavors"] = flavors
    wl["status"] = {"admission": {"clusterQueue": cq, "podSetAssignments": [psa]}, "conditions": ADMITTED}
    return wl


def cohort(name: str, parent: str | None = None, cpu: str | None = None) -> dict:
    spec: dict = {}
    if parent:
        spec["parentName"] = parent
    if cpu:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": "f", "resources": [{"name": "cpu", "nominalQuota": cpu}]}]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def as_list(items: list[dict]) -> dict:
    return {"apiVersion": "v1", "kind": "List", "items": items}


def cohort_chain(depth: int) -> list[dict]:
    """A chain of `depth` cohorts (quota at the root), two queues at the bottom: `t/held` admitted
    in `qa`, `t/big` too big for anything, `t/mid` fits by borrowing."""
    items = [flavor("f"), namespace("t")]
    items += [cohort(f"c{i}", f"c{i - 1}" if i else None, "4" if i == 0 else None) for i in range(depth)]
    items += [cluster_queue("qa", f"c{depth - 1}"), cluster_queue("qb", f"c{depth - 1}"),
              local_queue("la", "t", "qa"), local_queue("lb", "t", "qb"),
              admitted(workload("held", "t", "la", cpu="10"), "qa", {"cpu": "f"}),
              workload("big", "t", "lb", cpu="100"), workload("mid", "t", "lb", cpu="8")]
    return items


def write(folder: Path, name: str, items: list[dict], one_line: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(as_list(items)) if one_line else json.dumps(as_list(items), indent=1))
    return path
