"""kube-scheduler's two scoring profiles on a heterogeneous GPU cluster (issue 13, benchmark c).

1,500 nodes (400 A100 x8, 600 V100 x8, 300 T4 x2, 200 CPU-only) and 8,000 pods arriving over 60
days, shaped like a production GPU trace: most pods ask for one GPU, a tail for 2/4/8; durations
lognormal around an hour with a heavy tail; arrivals Poisson with a daily cycle; a third pin a GPU
model with a node selector. No Kueue queue manages them: kube-scheduler alone places them.

The trace is replayed as recorded, then with its arrival times compressed (divided by a factor,
doubled until about a thousand pods wait at once), each under LeastAllocated and MostAllocated:
GPUs allocated (mean), whole free 8-GPU nodes (mean, min), pod waits (p50/p90/max), pods never
placed, and the replay's own speed. Run: `.venv/bin/python bench/gpu_cluster_bench.py [--quick]`.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from datetime import datetime, timedelta, timezone

from kadmit.model import Model, Node, PodSet, Workload
from kadmit.simulate.results import percentile, results
from kadmit.simulate.run import Options, Simulator

START = datetime(2026, 9, 1, tzinfo=timezone.utc)
GI = 2 ** 30 * 1000
NODE_TYPES = (("a100", 400, 128, 1024, 8), ("v100", 600, 96, 512, 8), ("t4", 300, 64, 256, 2), ("cpu", 200, 96, 384, 0))
DAYS = 60


def cluster(scale: float = 1.0) -> Model:
    nodes = []
    for model, count, cpu, mem, gpus in NODE_TYPES:
        for i in range(max(1, int(count * scale))):
            alloc = {"cpu": cpu * 1000, "memory": mem * GI, "pods": 110_000}
            if gpus:
                alloc["nvidia.com/gpu"] = gpus * 1000
            nodes.append(Node(name=f"{model}-{i:04d}", labels={"gpu.model": model, "kubernetes.io/hostname":
                                                              f"{model}-{i:04d}"}, allocatable=alloc))
    return Model(nodes=tuple(nodes))


def trace(pods: int, seed: int = 7) -> list[tuple[int, Workload]]:
    rnd = random.Random(seed)
    out = []
    t = 0.0
    rate = pods / (DAYS * 86400)
    for i in range(pods):
        while True:  # thinning: a daily cycle, busiest mid-afternoon
            t += rnd.expovariate(rate * 1.6)
            if rnd.random() < (1 + 0.6 * math.sin(2 * math.pi * (t / 86400 - 0.375))) / 1.6:
                break
        gpus = rnd.choices((0, 1, 2, 4, 8), (5, 60, 15, 10, 10))[0]
        dur = min(30 * 86400, rnd.lognormvariate(math.log(3600), 1.4))
        requests = {"cpu": (8 * gpus or 4) * 1000, "memory": (32 * gpus or 16) * GI}
        if gpus:
            requests["nvidia.com/gpu"] = gpus * 1000
        selector = {}
        if gpus and rnd.random() < 0.33:
            selector = {"gpu.model": rnd.choice(("a100", "v100") if gpus > 2 else ("a100", "v100", "t4"))}
        ps = PodSet(name="main", count=1, requests=requests, node_selector=selector)
        at = int(t * 1000)
        out.append((at, Workload(namespace="research", name=f"pod-{i:05d}", queue="", priority=0,
                                 created=START + timedelta(milliseconds=at), pod_sets=(ps,),
                                 duration_ms=int(dur * 1000))))
    return out


def compressed(rows: list[tuple[int, Workload]], factor: float) -> list[tuple[int, Workload]]:
    out = []
    for at, wl in rows:
        a = int(at / factor)
        out.append((a, wl.model_copy(update={"created": START + timedelta(milliseconds=a)})))
    return out


def replay(model: Model, rows, scoring: str):
    t0, c0 = time.perf_counter(), time.process_time()
    sim = Simulator(model, START, rows, options=Options(scoring=scoring)).run()  # type: ignore[arg-type]
    sim.seconds = time.perf_counter() - t0
    sim.cpu_seconds = time.process_time() - c0
    return sim, results(sim)


def line(label: str, sim, r: dict, window: int) -> str:
    """Means over the arrival window (the long tail of the last runs would dilute them)."""
    waits = [w["wait"] * 1000 for w in r["workloads"] if w["admitted_at"] is not None]
    rec = sim.recorder
    gpu = rec.node_alloc.get("nvidia.com/gpu")
    eight = rec.whole_gpu.get("8-GPU")
    total = sum(n.allocatable.get("nvidia.com/gpu", 0) for n in sim.kube.nodes) // 1000
    return (f"  {label:15s} GPUs allocated {gpu.integral(window) / window / 1000 if gpu else 0:7.1f} of {total}"
            f" | whole free 8-GPU nodes mean {eight.integral(window) / window if eight else 0:6.1f}"
            f" min {min((v for t, v in eight.points if t <= window), default=0) if eight else 0:4d}"
            f" | wait p50 {(percentile(waits, .5) or 0) / 1000:7.1f} s p90 {(percentile(waits, .9) or 0) / 1000:8.1f} s"
            f" max {max(waits, default=0) / 1000:8.1f} s | most waiting {rec.pending_pod_rows.maximum():5d}"
            f" | never placed {r['summary']['never_admitted']:4d}"
            f" | replay {sim.seconds:5.1f} s (CPU {sim.cpu_seconds:5.1f} s), "
            f"{sim.instants / max(sim.cpu_seconds, 1e-9):6.0f} instants per CPU second")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a tenth of the nodes and pods")
    p.add_argument("--target", type=int, default=1000, help="pods waiting at once to compress for")
    a = p.parse_args(argv)
    scale = 0.1 if a.quick else 1.0
    model = cluster(scale)
    rows = trace(int(8000 * scale))
    target = max(10, int(a.target * scale))
    print(f"{len(model.nodes)} nodes, {len(rows)} pods over {DAYS} days")
    factor = 1.0
    while True:
        rows_now = compressed(rows, factor)
        window = max(1, max(at for at, _ in rows_now))
        sims = {s: replay(model, rows_now, s) for s in ("LeastAllocated", "MostAllocated")}
        print(f"arrivals {'as recorded' if factor == 1 else f'compressed {factor:g}x'} "
              f"(over {window / 86_400_000:.2f} days):")
        for s, (sim, r) in sims.items():
            print(line(s, sim, r, window))
        if max(sim.recorder.pending_pod_rows.maximum() for sim, _ in sims.values()) >= target or factor >= 4096:
            break
        factor *= 4


if __name__ == "__main__":
    sys.exit(main())
