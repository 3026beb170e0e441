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


def wrong_version_workloads(n: int, queues: int = 30) -> str:
    """Multi-document YAML: `queues` v1beta2 cluster queues in 5 cohorts (a namespace and local queue
    each) and `n` v1beta2 Workloads spread over them, each carrying the v1beta1 fields
    `spec.priorityClassName` and `spec.priorityClassSource`: two errors (KAD162) per Workload."""
    docs = ["apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"]
    for i in range(queues):
        docs.append(
            f"apiVersion: v1\nkind: Namespace\nmetadata: {{name: ns-{i:04d}}}\n---\n"
            f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {{name: cq-{i:04d}}}\n"
            f"spec:\n  cohortName: cohort-{i % 5:03d}\n  namespaceSelector: {{}}\n  resourceGroups:\n"
            "  - coveredResources: [cpu]\n    flavors:\n    - name: default\n      resources:\n"
            '      - {name: cpu, nominalQuota: "20", borrowingLimit: "100"}\n---\n'
            f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: lq, namespace: ns-{i:04d}}}\n"
            f"spec: {{clusterQueue: cq-{i:04d}}}\n")
    for j in range(n):
        docs.append(
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n"
            f"  name: w-{j:06d}\n  namespace: ns-{j % queues:04d}\n"
            f'  creationTimestamp: "2026-11-01T{j // 3600 % 24:02d}:{j // 60 % 60:02d}:{j % 60:02d}Z"\n'
            "spec:\n  queueName: lq\n  priorityClassName: high\n"
            "  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass\n"
            "  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n        containers:\n"
            "        - name: c\n          image: x\n          resources:\n            requests: {cpu: \"1\"}\n")
    return "---\n".join(docs)
