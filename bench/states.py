"""Generated cluster states shaped like Kueue's scheduler performance test, for benchmarks."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from kadmit.model import (ClusterQueue, Cohort, FlavorQuotas, LabelSelector, LocalQueue, Model,
                          Namespace, PodSet, PriorityClass, ResourceFlavor, ResourceGroup, ResourceQuota,
                          Workload)

CPU = 1000  # one cpu in milli-units
SIZES = {"small": 1, "medium": 5, "large": 20}
PRIORITIES = {"low": 50, "mid": 100, "high": 200}


def kueue_perf_state(cluster_queues: int = 30, cohorts: int = 5, workloads: int = 15_000,
                     seed: int = 0) -> Model:
    """`cluster_queues` queues in `cohorts` cohorts, nominal 20 cpu and borrowing limit 100 each;
    pending workloads of 1/5/20 cpu at priorities 50/100/200, spread evenly over the queues."""
    rnd = random.Random(seed)
    base = datetime(2026, 11, 1, tzinfo=timezone.utc)
    cqs, lqs, nss, wls = [], [], [], []
    for i in range(cluster_queues):
        name = f"cq-{i:04d}"
        cqs.append(ClusterQueue(
            name=name, cohort=f"cohort-{i % cohorts:03d}", namespace_selector=LabelSelector(),
            resource_groups=(ResourceGroup(covered_resources=("cpu",), flavors=(FlavorQuotas(
                flavor="default", resources=(ResourceQuota(resource="cpu", nominal=20 * CPU,
                                                           borrowing_limit=100 * CPU),)),)),)))
        nss.append(Namespace(name=f"ns-{i:04d}"))
        lqs.append(LocalQueue(namespace=f"ns-{i:04d}", name="lq", cluster_queue=name))
    for j in range(workloads):
        i = j % cluster_queues
        size = rnd.choice(list(SIZES))
        prio = rnd.choice(list(PRIORITIES))
        wls.append(Workload(
            namespace=f"ns-{i:04d}", name=f"{size}-{j:06d}", queue="lq", priority_class=prio,
            created=base + timedelta(seconds=j),
            pod_sets=(PodSet(name="main", count=1, requests={"cpu": SIZES[size] * CPU}),)))
    return Model(
        flavors=(ResourceFlavor(name="default"),),
        cohorts=tuple(Cohort(name=f"cohort-{k:03d}") for k in range(cohorts)),
        cluster_queues=tuple(cqs), local_queues=tuple(lqs), namespaces=tuple(nss),
        priority_classes=tuple(PriorityClass(name=n, value=v) for n, v in PRIORITIES.items()),
        workloads=tuple(wls))
