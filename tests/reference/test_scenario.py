"""The bundled `ml-platform` scenario (examples/SCENARIO.md), built directly, decided end to end."""

from datetime import datetime, timezone

from kadmit.model import (Admission, LabelSelector, LocalQueue, Namespace, PodSetAssignment, PriorityClass,
                          Topology)
from kadmit.reference import decide

from .builders import (GPU, build, cluster_queue, cohort, flavor, fq, group, outcome, pod_set, q, tolerate,
                       workload)

GPU_TOLERATION = (tolerate(GPU, effect="NoSchedule"),)
DC = ("cloud.example.com/block", "cloud.example.com/rack", "kubernetes.io/hostname")


def at(hour, minute):
    return datetime(2026, 11, 20, hour, minute, tzinfo=timezone.utc)


def wl(ns, name, queue, pclass, when, *pod_sets, admission=None):
    w = workload(name, *pod_sets, queue=queue, ns=ns, priority_class=pclass)
    return w.model_copy(update={"created": at(*when), "admission": admission})


def gpu_set(name, count, cpu, memory, gpu, **kw):
    return pod_set(name, count=count, cpu=cpu, memory=memory, gpu=gpu, tolerations=GPU_TOLERATION, **kw)


def on(cq, flavor, count, resources, name="workers"):
    return Admission(cluster_queue=cq, pod_sets=(
        PodSetAssignment(name=name, count=count, flavors={r: flavor for r in resources}),))


def scenario():
    team = lambda t: LabelSelector(match_labels={"team": t})  # noqa: E731
    gpu_taint = ("nvidia.com/gpu=present:NoSchedule",)
    spot = "cloud.example.com/spot"
    objs = [
        Topology(name="datacenter", levels=DC),
        flavor("h100", {"gpu.example.com/model": "h100"}, gpu_taint, topology="datacenter"),
        flavor("a100", {"gpu.example.com/model": "a100"}, gpu_taint, topology="datacenter"),
        flavor("spot-cpu", {"capacity": "spot"}, (f"{spot}=true:NoSchedule",),
               tolerations=(tolerate(spot, "true", "NoSchedule"),)),
        PriorityClass(name="production", value=1000), PriorityClass(name="research", value=100, global_default=True),
        PriorityClass(name="scavenger", value=10),
        cohort("org", group(fq("spot-cpu", cpu=32, memory="128Gi"))),
        cohort("research", group(fq("h100", cpu=q(0, lend=0), memory=q(0, lend=0), gpu=q(8, lend=0))),
               parent="org"),
        cohort("platform", parent="org"),
        cluster_queue("team-vision", group(
            fq("h100", cpu=256, memory="2Ti", gpu=q(24, borrow=8, lend=8)),
            fq("a100", cpu=128, memory="1Ti", gpu=8)), cohort="research", selector=team("vision")),
        cluster_queue("team-nlp", group(
            fq("h100", cpu=128, memory="1Ti", gpu=q(16, lend=4)),
            fq("a100", cpu=128, memory="1Ti", gpu=q(16, borrow=8))), cohort="research", selector=team("nlp"),
            strategy="StrictFIFO"),
        cluster_queue("team-infra", group(fq("spot-cpu", cpu=q(64, borrow=32), memory="256Gi")),
                      cohort="platform", selector=team("infra"), fungibility="TryNextFlavor"),
        LocalQueue(namespace="team-vision", name="training", cluster_queue="team-vision"),
        LocalQueue(namespace="team-nlp", name="training", cluster_queue="team-nlp"),
        LocalQueue(namespace="team-nlp", name="vision-share", cluster_queue="team-vision"),
        LocalQueue(namespace="team-infra", name="batch", cluster_queue="team-infra"),
        wl("team-vision", "resnet-sweep", "training", "research", (8, 0),
           gpu_set("workers", 2, 8, "64Gi", 8),
           admission=on("team-vision", "h100", 2, ("cpu", "memory", GPU))),
        wl("team-nlp", "bert-finetune", "training", "research", (8, 10),
           gpu_set("workers", 1, 8, "64Gi", 8), admission=on("team-nlp", "h100", 1, ("cpu", "memory", GPU))),
        wl("team-infra", "etl-nightly", "batch", "scavenger", (7, 0),
           pod_set("workers", count=8, cpu=4, memory="16Gi"),
           admission=on("team-infra", "spot-cpu", 8, ("cpu", "memory"))),
        wl("team-vision", "llm-pretrain", "training", "production", (9, 0),
           gpu_set("workers", 32, 16, "128Gi", 8, min_count=32, topology=("required", "rack")),
           pod_set("launcher", cpu=2, memory="4Gi")),
        wl("team-vision", "vit-train", "training", "research", (9, 10),
           gpu_set("workers", 3, 8, "64Gi", 8, topology=("preferred", "rack"))),
        wl("team-vision", "no-toleration", "training", "research", (9, 20),
           pod_set("main", cpu=4, memory="32Gi", gpu=1)),
        wl("team-nlp", "llama-eval", "training", "production", (9, 30), gpu_set("workers", 2, 8, "32Gi", 4)),
        wl("team-nlp", "tokenize", "training", "research", (9, 5), pod_set("main", count=4, cpu=4, memory="16Gi")),
        wl("team-nlp", "shared-vision", "vision-share", "research", (9, 40), gpu_set("main", 1, 2, "8Gi", 1)),
        wl("team-infra", "log-compaction", "batch", "scavenger", (9, 0),
           pod_set("workers", count=24, min_count=8, cpu=4, memory="16Gi")),
        wl("team-infra", "gpu-smoke", "batch", "research", (9, 50), gpu_set("main", 1, 1, "1Gi", 1)),
    ]
    model = build(*objs, auto_queues=False)
    namespaces = tuple(Namespace(name=f"team-{t}", labels={"team": t}) for t in ("infra", "nlp", "vision"))
    return model.model_copy(update={"namespaces": namespaces})


def test_scenario_decisions():
    got = outcome(decide(scenario()))
    gpu_group = lambda f: {"cpu": f, "memory": f, GPU: f}  # noqa: E731
    assert got["team-nlp/llama-eval"] == {"workers": (2, gpu_group("h100"))}
    # a CPU-only pod set still meets the GPU flavors' taint: without a toleration it can't be admitted
    assert got["team-nlp/tokenize"] == (
        "couldn't assign flavors to pod set main: "
        "untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor a100, "
        "untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor h100")
    assert got["team-vision/vit-train"] == {"workers": (3, gpu_group("a100"))}  # h100 lacks 8 GPUs
    assert got["team-infra/log-compaction"] == {"workers": (16, {"cpu": "spot-cpu", "memory": "spot-cpu"})}
    assert got["team-vision/no-toleration"] == (
        "couldn't assign flavors to pod set main: "
        "untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor a100, "
        "untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor h100")
    assert got["team-nlp/shared-vision"] == "Workload namespace doesn't match ClusterQueue selector"
    assert got["team-infra/gpu-smoke"] == (
        f"couldn't assign flavors to pod set main: resource {GPU} unavailable in ClusterQueue")
    assert (f"insufficient quota for {GPU} in flavor h100, previously considered podsets requests (0) + "
            "current podset request (256) > maximum capacity (32)") in got["team-vision/llm-pretrain"]


def test_tolerating_tokenize_gets_h100():
    model = scenario()
    workloads = tuple(
        w.model_copy(update={"pod_sets": tuple(p.model_copy(update={"tolerations": GPU_TOLERATION})
                                               for p in w.pod_sets)}) if w.name == "tokenize" else w
        for w in model.workloads)
    got = outcome(decide(model.model_copy(update={"workloads": workloads})))
    assert got["team-nlp/tokenize"] == {"main": (4, {"cpu": "h100", "memory": "h100"})}


def test_scenario_borrowing():
    borrowing = {d.workload for d in decide(scenario()) if d.borrowing}
    assert borrowing == {"team-vision/vit-train", "team-infra/log-compaction"}
