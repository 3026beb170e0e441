"""A differential run of TASMultiLayerTopology's slice layers (placement/layers.py, manifests/layers.py): generated
clusters of a topology of 3 levels (block, rack, host) or 4 (zone above), nodes of 0-6 cpus, 1-3 pod sets with 1-3
slice layers (each finer than the last, its size dividing the last's; now and then one that does not), required,
preferred, unconstrained or slices alone, decided by kadmit and by the oracle (one `admit --each --runs 2`
process). `--jobs`: batch Jobs with the `kueue.x-k8s.io/podset-slice-required-topology-constraints` annotation (some
already in the cluster), the gate on or off at random, instead of Workloads; `--balanced`: TASBalancedPlacement on
too, preferred pod sets mostly. Prints the clusters where kadmit and Kueue differ beyond Kueue's own variance (kept in
--out), and the count.

    PYTHONPATH=src:. .venv/bin/python bench/layers_soak.py --n 150 --seed 100
    PYTHONPATH=src:. .venv/bin/python bench/layers_soak.py --n 150 --seed 1100 --zones
    PYTHONPATH=src:. .venv/bin/python bench/layers_soak.py --n 150 --seed 3100 --jobs
    PYTHONPATH=src:. .venv/bin/python bench/layers_soak.py --n 150 --seed 4000 --balanced

(figures: bench/README.md "layers_soak.py")
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from oracle.harness import (compare, from_kadmit, from_oracle, oracle_binary, run_each, run_kadmit,  # noqa: E402
                            variants)

LEVELS = ["example.com/zone", "example.com/block", "example.com/rack", "kubernetes.io/hostname"]
LAYERS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"


def header(gates: str, levels: list[str]) -> str:
    return f"""apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations: {{frameworks: [batch/job]}}
featureGates: {{{gates}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {{name: dc}}
spec:
  levels: [{", ".join(f"{{nodeLabel: {k}}}" for k in levels)}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f0}}
spec: {{nodeLabels: {{pool: f0}}, topologyName: dc}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: f0, resources: [{{name: cpu, nominalQuota: 100}}]}}]
---
apiVersion: v1
kind: Namespace
metadata: {{name: ns}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: lq, namespace: ns}}
spec: {{clusterQueue: cq}}
"""


def node(name: str, labels: dict[str, str], cpu: int) -> str:
    return f"""---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {json.dumps({"pool": "f0", **labels})}}}
status:
  allocatable: {{cpu: "{cpu}", memory: 32Gi, pods: "110"}}
  capacity: {{cpu: "{cpu}", memory: 32Gi, pods: "110"}}
  conditions: [{{type: Ready, status: "True"}}]
"""


def workload(name: str, count: int, request: dict, minute: int, cpu: str) -> str:
    return f"""---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: "2026-11-01T01:0{minute}:00Z"}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: {count}
    topologyRequest: {json.dumps(request)}
    template: {{spec: {{containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}
"""


def job(name: str, count: int, annotations: dict[str, str], minute: int, cpu: str, stored: bool) -> str:
    uid = f"\n  uid: 7e1c0000-0000-4000-8000-00000000000{minute}" if stored else ""
    return f"""---
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: ns{uid}
  labels: {{kueue.x-k8s.io/queue-name: lq}}
  creationTimestamp: "2026-11-01T01:0{minute}:00Z"
spec:
  parallelism: {count}
  completions: {count}
  suspend: true
  template:
    metadata:
      annotations: {json.dumps(annotations)}
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def cluster(seed: int, zones: bool, jobs: bool, balanced: bool) -> str:
    r = random.Random(seed)
    levels = LEVELS if zones else LEVELS[1:]
    docs, k = [], 0
    for z in range(r.choice([1, 2]) if zones else 1):
        for b in range(r.choice([1, 2]) if zones else r.choice([1, 2, 3])):
            for rk in range(r.choice([1, 2, 3])):
                for _ in range(r.choice([1, 2, 3])):
                    values = [f"z{z}", f"z{z}b{b}", f"z{z}b{b}r{rk}", f"n{k}"][-len(levels):]
                    docs.append(node(f"n{k}", dict(zip(levels, values)), r.randint(0, 6)))
                    k += 1
    last = len(levels) - 1
    for w in range(r.randint(1, 3)):
        count = r.choice([2, 3, 4, 6, 8, 12, 16])
        first = r.randint(0, last - 1)
        size = r.choice([x for x in (1, 2, 3, 4, 6, 8) if x <= count])
        layers, prev_idx, prev_size = [(levels[first], size)], first, size
        for _ in range(r.choice([1, 1, 2])):
            if prev_idx >= last:
                break
            idx = r.randint(prev_idx + 1, last)
            size = r.choice([d for d in range(1, prev_size + 1) if prev_size % d == 0])
            if r.random() < 0.05:
                size = prev_size + 1  # not dividing: Kueue's reason (the webhook refuses a job's)
            layers.append((levels[idx], size))
            prev_idx, prev_size = idx, size
        modes = ["required", "preferred", "preferred", "preferred", "none"] if balanced else \
            ["required", "preferred", "none", "unconstrained"]
        mode, level = r.choice(modes), levels[r.randint(0, first)]
        cpu = r.choice(["1", "1", "2"])
        if jobs:
            annotations = {LAYERS: json.dumps([{"topology": t, "size": s} for t, s in layers])}
            if mode in ("required", "preferred"):
                annotations[f"kueue.x-k8s.io/podset-{mode}-topology"] = level
            elif mode == "unconstrained":
                annotations["kueue.x-k8s.io/podset-unconstrained-topology"] = "true"
            docs.append(job(f"j{w}", count, annotations, w, cpu, r.random() < 0.4))
        else:
            request: dict = {mode: level} if mode in ("required", "preferred") else \
                {"unconstrained": True} if mode == "unconstrained" else {}
            request["podsetSliceRequiredTopologyConstraints"] = [{"topology": t, "size": s} for t, s in layers]
            docs.append(workload(f"w{w}", count, request, w, cpu))
    gates = f"TASMultiLayerTopology: {r.choice(['true', 'true', 'false']) if jobs else 'true'}"
    if balanced:
        gates += ", TASBalancedPlacement: true"
    elif r.random() < 0.3:
        gates += ", TASProfileMixed: false"
    return header(gates, levels) + "".join(docs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--zones", action="store_true", help="4 levels: a zone above the blocks")
    ap.add_argument("--jobs", action="store_true", help="batch Jobs with the annotation, the gate on or off")
    ap.add_argument("--balanced", action="store_true", help="TASBalancedPlacement on too")
    ap.add_argument("--out", default=None, help="where to keep the clusters that differ")
    a = ap.parse_args()
    folder = Path(a.out or tempfile.mkdtemp(prefix="layers-soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(a.seed, a.seed + a.n):
        p = folder / f"layers-{seed}.yaml"
        p.write_text(cluster(seed, a.zones, a.jobs, a.balanced))
        paths.append(str(p))
    answers = run_each(oracle_binary(), "admit", paths, "--runs", "2")
    differ = 0
    for p in paths:
        kueue = answers[p]
        if "error" in kueue:
            print(f"{p}: the oracle failed: {kueue['error'][:300]}")
            differ += 1
            continue
        _, ours = run_kadmit([p])
        got = compare(from_kadmit(ours), from_oracle(kueue), alternatives=variants(kueue))
        if not got.agree:
            differ += 1
            print(f"{p}: {got.differ}")
        else:
            Path(p).unlink()
    print(f"{differ} of {len(paths)} clusters differ (kept in {folder})")


if __name__ == "__main__":
    main()
