"""Generated cluster states with nodes and a topology, for the placement benchmark (issue 4).

`kueue_tas_state` follows the shape of Kueue's topology-aware scheduling performance test
(test/performance/scheduler/configs/tas): one block of 10 racks of 64 nodes (96 cpu, 256Gi,
110 pods), a flavor `tas-flavor` selecting the nodes by `tas-node-group=tas` with a
block/rack/hostname topology, two cohorts of three cluster queues (8,500 cpu nominal, 17,000
borrowing limit, Kueue's preemption settings) and 175 workloads per queue asking for a rack,
required or preferred. Kueue's test uses 4/8/16-pod workloads (and balanced slices, which kadmit's
topology requests don't express), asks for cpu only and leaves ~20% of the cluster free; here the
workloads have 2/4/8 pods that also ask for memory (3-5 GiB per cpu, more than the nodes' 2.7 GiB
per cpu), so node memory runs out before the cpu quota does and placement decides what is admitted. With `tas=False` the same
workloads come without topology requests, the flavor without a topology and the state without
nodes: Kueue's quota-only admission, the baseline (with nodes, the engine would also count, for
every admitted workload, whether kube-scheduler could place its pods, which is not quota work).

`gpu_gang_state` is a GPU cluster (blocks x racks x nodes of 8 GPUs) with one cluster queue whose
quota exceeds the cluster, and seeded gangs of 8-256 pods, mostly of 8 GPUs: `required` rack for
gangs that fit a rack, `required` or `preferred` block for bigger ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from kadmit.model import (ClusterQueue, Cohort, FlavorQuotas, LabelSelector, LocalQueue, Model, Namespace,
                          Node, PodSet, Preemption, ResourceFlavor, ResourceGroup, ResourceQuota, Topology,
                          TopologyRequest, Workload)

CPU = 1000  # one cpu in milli-units
GI = 2**30 * 1000  # one GiB in milli-units
GPU = "nvidia.com/gpu"
PODS_PER_NODE = 110
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"
BASE = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _node(block: int, rack: int, n: int, pool: tuple[str, str], **allocatable: int) -> Node:
    """A ready node named after its place (`node-b0-r03-n17`, sorting in topology order), labelled
    with Kueue's perf-test level values (`block-0`, `rack-3`)."""
    name = f"node-b{block}-r{rack:02d}-n{n:02d}"
    return Node(name=name, labels={BLOCK: f"block-{block}", RACK: f"rack-{rack:02d}", HOST: name, pool[0]: pool[1]},
                allocatable={**allocatable, "pods": PODS_PER_NODE * 1000})


# --- (a) Kueue's TAS performance test shape -------------------------------------------------------

@dataclass(frozen=True)
class WorkloadClass:
    name: str
    pods: int
    cpu: int  # per pod, whole cpus
    memory_gi: int  # per pod
    mode: str  # required | preferred
    level: str
    priority: int
    per_queue: int  # workloads of this class per cluster queue, at the full scale


# 175 workloads per queue as in Kueue's test; pods of 2/4/8; cpu demand per queue 8,000 (quota
# 8,500); memory demand ~108% of the cluster's.
CLASSES = (
    WorkloadClass("small-required-rack", 2, 4, 16, "required", RACK, 50, 50),
    WorkloadClass("medium-required-rack", 4, 8, 32, "required", RACK, 100, 30),
    WorkloadClass("large-required-rack", 8, 16, 64, "required", RACK, 200, 20),
    WorkloadClass("small-preferred-rack", 2, 4, 16, "preferred", RACK, 100, 30),
    WorkloadClass("medium-preferred-rack", 4, 8, 40, "preferred", RACK, 150, 20),
    WorkloadClass("large-preferred-rack", 8, 16, 48, "preferred", RACK, 200, 25),
)
FULL_PER_QUEUE = sum(c.per_queue for c in CLASSES)


def kueue_tas_state(racks: int = 10, nodes_per_rack: int = 64, cohorts: int = 2, queues_per_cohort: int = 3,
                    workloads_per_queue: int = FULL_PER_QUEUE, *, seed: int = 0, tas: bool = True) -> Model:
    """Kueue's TAS perf-test shape (see the module docstring). Each queue gets `workloads_per_queue`
    workloads in the classes' proportions, created one second apart in a seeded shuffle.
    The quota scales with the cluster (Kueue's 8,500 cpu per queue for 640 nodes)."""
    rnd = random.Random(seed)
    nodes = tuple(_node(0, r, n, ("tas-node-group", "tas"), cpu=96 * CPU, memory=256 * GI)
                  for r in range(racks) for n in range(nodes_per_rack))
    scale = len(nodes) / 640
    nominal_cpu = max(1, round(8500 * scale)) * CPU
    nominal_mem = max(1, round(32 * 1024 * scale)) * GI  # memory quota ample: the nodes are the limit
    topology = Topology(name="default-topology", levels=(BLOCK, RACK, HOST))
    flavor = ResourceFlavor(name="tas-flavor", node_labels={"tas-node-group": "tas"},
                            topology=topology.name if tas else None)
    cqs, lqs, nss, wls = [], [], [], []
    serial = 0
    for k in range(cohorts):
        cohort = f"cohort-{k}"
        for i in range(queues_per_cohort):
            name = f"cq-0-{i}-{cohort}"
            cqs.append(ClusterQueue(
                name=name, cohort=cohort, namespace_selector=LabelSelector(),
                preemption=Preemption(reclaim_within_cohort="Any", within_cluster_queue="LowerPriority"),
                resource_groups=(ResourceGroup(covered_resources=("cpu", "memory"), flavors=(FlavorQuotas(
                    flavor=flavor.name, resources=(
                        ResourceQuota(resource="cpu", nominal=nominal_cpu, borrowing_limit=2 * nominal_cpu),
                        ResourceQuota(resource="memory", nominal=nominal_mem, borrowing_limit=2 * nominal_mem),
                    )),)),)))
            nss.append(Namespace(name=name))
            lqs.append(LocalQueue(namespace=name, name=name, cluster_queue=name))
            mine = _queue_classes(workloads_per_queue)
            rnd.shuffle(mine)
            for j, cls in enumerate(mine):
                serial += 1
                topo = TopologyRequest(mode=cls.mode, level=cls.level) if tas else None  # type: ignore[arg-type]
                wls.append(Workload(
                    namespace=name, name=f"{cls.name}-{j:04d}", queue=name, priority=cls.priority,
                    created=BASE + timedelta(seconds=serial),
                    pod_sets=(PodSet(name="main", count=cls.pods, topology=topo,
                                     requests={"cpu": cls.cpu * CPU, "memory": cls.memory_gi * GI}),)))
    return Model(flavors=(flavor,), cohorts=tuple(Cohort(name=f"cohort-{k}") for k in range(cohorts)),
                 cluster_queues=tuple(cqs), local_queues=tuple(lqs), namespaces=tuple(nss),
                 workloads=tuple(wls), topologies=(topology,) if tas else (), nodes=nodes if tas else ())


def _queue_classes(n: int) -> list[WorkloadClass]:
    """`n` workload classes in the proportions of CLASSES (largest remainders), in class order."""
    exact = [(c, c.per_queue * n / FULL_PER_QUEUE) for c in CLASSES]
    counts = {c.name: int(x) for c, x in exact}
    rest = n - sum(counts.values())
    for c, _ in sorted(exact, key=lambda cx: (-(cx[1] - int(cx[1])), cx[0].name))[:rest]:
        counts[c.name] += 1
    return [c for c in CLASSES for _ in range(counts[c.name])]


# --- (b) GPU gangs ------------------------------------------------------------------------------------

# gangs of each size per 500 (largest remainders for other counts); with GPUS_PER_POD for gangs of up
# to 32 pods (bigger ones are all 8-GPU pods), 500 gangs ask for ~92% of 5,000 nodes' GPUs
GANG_SIZES = ((8, 430), (16, 46), (32, 13), (64, 6), (128, 3), (256, 2))  # pods, gangs per 500
GPUS_PER_POD = ((8, 0.75), (4, 0.10), (2, 0.10), (1, 0.05))  # GPUs, weight
NODE_GPUS = 8
NODE_CPU = 128
NODE_MEM_GI = 1024


@dataclass(frozen=True)
class Gang:
    """One gang as both placers see it: pods x per-pod requests, and the topology it asks for."""

    name: str
    pods: int
    requests: dict  # per pod, milli-units
    mode: str  # required | preferred
    level: str  # RACK or BLOCK


def gang_requests(gpus: int, cpu: float | None = None) -> dict[str, int]:
    """Per-pod requests: `gpus` GPUs with 12 cpu and 96Gi each (so GPUs run out first), or, with
    `gpus == 0`, `cpu` cpus and 4Gi per cpu."""
    if gpus == 0:
        return {"cpu": round((cpu or 1) * CPU), "memory": round(4 * (cpu or 1)) * GI}
    return {GPU: gpus * 1000, "cpu": 12 * gpus * CPU, "memory": 96 * gpus * GI}


def gang_sizes(n: int, max_pods: int = 256) -> list[int]:
    """Pods of `n` gangs in GANG_SIZES' proportions (sizes above `max_pods` left out), largest first."""
    sizes = [(p, w) for p, w in GANG_SIZES if p <= max_pods]
    total = sum(w for _, w in sizes)
    exact = [(p, w * n / total) for p, w in sizes]
    counts = {p: int(x) for p, x in exact}
    for p, _ in sorted(exact, key=lambda px: (-(px[1] - int(px[1])), -px[0]))[:n - sum(counts.values())]:
        counts[p] += 1
    return [p for p, _ in sorted(sizes, reverse=True) for _ in range(counts[p])]


def gpu_gangs(n: int, nodes_per_rack: int = 20, max_pods: int = 256, *, seed: int = 0) -> list[Gang]:
    """`n` gangs of `gang_sizes` in seeded order. A gang whose GPUs fit one rack's GPUs asks for
    `required` rack; a bigger one for `required` or `preferred` block (seeded, half each). Gangs
    of more than 32 pods are of 8-GPU pods only."""
    rnd = random.Random(seed)
    sizes = gang_sizes(n, max_pods)
    rnd.shuffle(sizes)
    rack_gpus = nodes_per_rack * NODE_GPUS
    out = []
    for i, pods in enumerate(sizes):
        gpus = rnd.choices([g for g, _ in GPUS_PER_POD], [w for _, w in GPUS_PER_POD])[0] if pods <= 32 else 8
        if pods * gpus <= rack_gpus:
            mode, level = "required", RACK
        else:
            mode, level = rnd.choice(("required", "preferred")), BLOCK
        out.append(Gang(f"gang-{i:04d}", pods, gang_requests(gpus), mode, level))
    return out


def gang_workload(g: Gang, serial: int, namespace: str = "team") -> Workload:
    return Workload(namespace=namespace, name=g.name, queue="gpu", priority=100,
                    created=BASE + timedelta(seconds=serial),
                    pod_sets=(PodSet(name="workers", count=g.pods, requests=dict(g.requests),
                                     topology=TopologyRequest(mode=g.mode, level=g.level)),))  # type: ignore[arg-type]


def gpu_gang_state(blocks: int = 10, racks: int = 25, nodes_per_rack: int = 20, gangs: int = 500,
                   max_pods: int = 256, *, seed: int = 0) -> tuple[Model, list[Gang]]:
    """The GPU cluster with `gangs` pending gangs created in order (one cluster queue, no cohort,
    quota twice the cluster's), and the gangs themselves for the greedy placer."""
    nodes = tuple(_node(b, r, n, ("node-pool", "gpu"), **{GPU: NODE_GPUS * 1000, "cpu": NODE_CPU * CPU,
                                                         "memory": NODE_MEM_GI * GI})
                  for b in range(blocks) for r in range(racks) for n in range(nodes_per_rack))
    topology = Topology(name="gpu-topology", levels=(BLOCK, RACK, HOST))
    flavor = ResourceFlavor(name="gpu-flavor", node_labels={"node-pool": "gpu"}, topology=topology.name)
    total = len(nodes)
    quota = (ResourceQuota(resource=GPU, nominal=2 * total * NODE_GPUS * 1000),
             ResourceQuota(resource="cpu", nominal=2 * total * NODE_CPU * CPU),
             ResourceQuota(resource="memory", nominal=2 * total * NODE_MEM_GI * GI))
    cq = ClusterQueue(name="gpu-cq", namespace_selector=LabelSelector(), resource_groups=(ResourceGroup(
        covered_resources=(GPU, "cpu", "memory"), flavors=(FlavorQuotas(flavor=flavor.name, resources=quota),)),))
    chosen = gpu_gangs(gangs, nodes_per_rack, max_pods, seed=seed)
    model = Model(flavors=(flavor,), cluster_queues=(cq,), namespaces=(Namespace(name="team"),),
                  local_queues=(LocalQueue(namespace="team", name="gpu", cluster_queue=cq.name),),
                  workloads=tuple(gang_workload(g, i + 1) for i, g in enumerate(chosen)),
                  topologies=(topology,), nodes=nodes)
    return model, chosen
