"""TASBalancedPlacement's cost (placement/balanced.py): one `preferred: rack` batch Job of 1,000 one-cpu pods
on 400 hosts (1 block; racks x hosts as below; host sizes varied from `cpu` to `cpu`+4 so the domains'
capacities differ), decided with the gate on and off. Prints, per shape, the best of `--repeat` `admit` runs
(ordered mode, the model read once) with the gate on, off, and their ratio (what balanced placement adds over
BestFit). Before/after a change: run it with PYTHONPATH at each tree's src and compare the ratios.

Run: `PYTHONPATH=src:bench python bench/balanced_bench.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from kadmit.engine.decide import admit
from kadmit.engine.solver.z3backend import Limits
from kadmit.workspace import load

SHAPES = (  # (racks, hosts per rack, base cpu per host)
    (40, 10, 2),
    (40, 10, 4),
    (80, 5, 4),
    (20, 20, 4),
    (10, 40, 2),
)
PODS = 1000


def cluster(racks: int, hosts: int, cpu: int, gate: bool) -> str:
    out = [f"""apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {{TASBalancedPlacement: {str(gate).lower()}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {{name: dc}}
spec:
  levels: [{{nodeLabel: block}}, {{nodeLabel: rack}}, {{nodeLabel: kubernetes.io/hostname}}]
"""]
    for r in range(racks):
        for h in range(hosts):
            name = f"h-{r:02d}-{h:02d}"
            out.append(f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{pool: f0, block: b0, rack: r{r:02d}, kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "{cpu + (r * 13 + h * 5) % 5}", memory: 256Gi, pods: "110"}}
  conditions: [{{type: Ready, status: "True"}}]
""")
    out.append(f"""---
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
    flavors: [{{name: f0, resources: [{{name: cpu, nominalQuota: "100000"}}]}}]
---
apiVersion: v1
kind: Namespace
metadata: {{name: ns}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: q, namespace: ns}}
spec: {{clusterQueue: cq}}
---
apiVersion: batch/v1
kind: Job
metadata: {{name: w, namespace: ns, labels: {{kueue.x-k8s.io/queue-name: q}}}}
spec:
  suspend: true
  parallelism: {PODS}
  completions: {PODS}
  template:
    metadata: {{annotations: {{kueue.x-k8s.io/podset-preferred-topology: rack}}}}
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
""")
    return "".join(out)


def best_of(path: Path, repeat: int) -> tuple[float, bool]:
    model = load([str(path)]).model
    best, admitted = float("inf"), False
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = admit(model, "ordered", Limits())
        best = min(best, time.perf_counter() - t0)
        admitted = all(d.admitted for d in result.decisions)
    return best, admitted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'racks x hosts, cpu':<20} {'gate on':>9} {'gate off':>9} {'on/off':>7}  admitted")
    with tempfile.TemporaryDirectory() as tmp:
        for racks, hosts, cpu in SHAPES:
            times = {}
            for gate in (True, False):
                path = Path(tmp) / f"{racks}-{hosts}-{cpu}-{gate}.yaml"
                path.write_text(cluster(racks, hosts, cpu, gate))
                times[gate] = best_of(path, args.repeat)
            on, off = times[True], times[False]
            print(f"{f'{racks} x {hosts}, {cpu}':<20} {on[0]:>8.3f}s {off[0]:>8.3f}s {on[0] / off[0]:>6.1f}x  {on[1]}/{off[1]}")


if __name__ == "__main__":
    main()
