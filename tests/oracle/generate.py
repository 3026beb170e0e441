"""Random Kueue clusters as manifests (v1beta2), deterministic from a seed, for deciding with both
kadmit and Kueue: flavors, cohorts, cluster queues with nominal quotas, borrowing and lending
limits, preemption policies, queueing strategies and flavor fungibility; local queues; Workloads
pending and admitted (holding quota within their queue's nominal quota, QuotaReserved and
Admitted), with distinct creation times and UIDs so that no order is left to chance.

`python tests/oracle/generate.py SEED` prints one.
"""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime, timedelta

import yaml

API = "kueue.x-k8s.io/v1beta2"
START = datetime(2026, 11, 1, tzinfo=UTC)


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def cluster(seed: int) -> str:
    """One cluster as a multi-document YAML text."""
    rnd = random.Random(seed)
    docs: list[dict] = []
    flavors = [f"f{i}" for i in range(rnd.randint(1, 3))]
    resources = ["cpu"] if rnd.random() < 0.6 else ["cpu", "memory"]
    cohorts = [f"co{i}" for i in range(rnd.randint(0, 2))]
    docs += [{"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": f}} for f in flavors]
    docs += [{"apiVersion": API, "kind": "Cohort", "metadata": {"name": c}} for c in cohorts]
    queues = []
    for i in range(rnd.randint(1, 4)):
        name = f"cq{i}"
        cohort = rnd.choice(cohorts) if cohorts and rnd.random() < 0.8 else None
        mine = rnd.sample(flavors, rnd.randint(1, len(flavors)))
        quotas = {}
        fqs = []
        for f in mine:
            rs = []
            for r in resources:
                nominal = rnd.randint(0, 12) * (1 if r == "cpu" else 4)
                q = {"name": r, "nominalQuota": str(nominal) + ("Gi" if r == "memory" else "")}
                if cohort and rnd.random() < 0.3:
                    q["borrowingLimit"] = str(rnd.randint(0, 8) * (1 if r == "cpu" else 4)) + ("Gi" if r == "memory" else "")
                if cohort and rnd.random() < 0.3:
                    q["lendingLimit"] = str(rnd.randint(0, nominal // (1 if r == "cpu" else 4)) * (1 if r == "cpu" else 4)) \
                        + ("Gi" if r == "memory" else "")
                rs.append(q)
                quotas[(f, r)] = nominal
            fqs.append({"name": f, "resources": rs})
        spec = {
            "namespaceSelector": {},
            "queueingStrategy": rnd.choice(["BestEffortFIFO", "BestEffortFIFO", "StrictFIFO"]),
            "resourceGroups": [{"coveredResources": resources, "flavors": fqs}],
            "preemption": {"withinClusterQueue": rnd.choice(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]),
                           "reclaimWithinCohort": rnd.choice(["Never", "LowerPriority", "Any"])},
            "flavorFungibility": {"whenCanBorrow": rnd.choice(["MayStopSearch", "TryNextFlavor"]),
                                  "whenCanPreempt": rnd.choice(["MayStopSearch", "TryNextFlavor"])},
        }
        if cohort:
            spec["cohortName"] = cohort
        docs.append({"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec})
        docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"ns-{name}"}})
        docs.append({"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": f"ns-{name}"},
                     "spec": {"clusterQueue": name}})
        queues.append((name, mine, quotas))

    used = {}
    serial = 0
    for _ in range(rnd.randint(2, 14)):
        name, mine, quotas = rnd.choice(queues)
        serial += 1
        pods = rnd.randint(1, 4)
        cpu = rnd.randint(1, 6)
        mem = rnd.randint(1, 4) * 4
        requests = {"cpu": str(cpu)} | ({"memory": f"{mem}Gi"} if "memory" in resources else {})
        pod_set = {"name": "main", "count": pods,
                   "template": {"spec": {"restartPolicy": "Never", "containers": [
                       {"name": "c", "image": "busybox", "resources": {"requests": requests}}]}}}
        wl = {"apiVersion": API, "kind": "Workload",
              "metadata": {"name": f"w{serial:02d}", "namespace": f"ns-{name}",
                           "uid": f"00000000-0000-0000-0000-{serial:012d}"},
              "spec": {"queueName": "lq", "priority": rnd.choice([0, 10, 100]), "podSets": [pod_set]}}
        # Admitted within the flavor's nominal quota, if there is room.
        fit = [f for f in mine if all(used.get((name, f, r), 0) + need * pods <= quotas[(f, r)]
                                      for r, need in (("cpu", cpu), ("memory", mem)) if r in resources)]
        if fit and rnd.random() < 0.4:
            f = rnd.choice(fit)
            usage = {}
            for r, need in (("cpu", cpu), ("memory", mem)):
                if r in resources:
                    used[(name, f, r)] = used.get((name, f, r), 0) + need * pods
                    usage[r] = f"{need * pods}" + ("Gi" if r == "memory" else "")
            at = _stamp(START + timedelta(minutes=serial))
            wl["metadata"]["creationTimestamp"] = _stamp(START + timedelta(seconds=serial))
            wl["status"] = {
                "admission": {"clusterQueue": name, "podSetAssignments": [
                    {"name": "main", "count": pods, "flavors": {r: f for r in resources}, "resourceUsage": usage}]},
                "conditions": [
                    {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                     "message": f"Quota reserved in ClusterQueue {name}", "lastTransitionTime": at},
                    {"type": "Admitted", "status": "True", "reason": "Admitted",
                     "message": "The workload is admitted", "lastTransitionTime": at}]}
        else:
            wl["metadata"]["creationTimestamp"] = _stamp(START + timedelta(hours=1, seconds=serial))
            if pods > 1 and rnd.random() < 0.25:
                pod_set["minCount"] = rnd.randint(1, pods - 1)
        docs.append(wl)
    return yaml.safe_dump_all(docs, sort_keys=False)


if __name__ == "__main__":
    print(cluster(int(sys.argv[1]) if len(sys.argv) > 1 else 0), end="")
