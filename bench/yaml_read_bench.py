"""CPU of kadmit's YAML layer (manifests/yamltree.parse_documents, the scalars resolved as kubectl resolves
them: manifests/goyaml.py) on generated Jobs, best of N runs, process CPU time.

    PYTHONPATH=src python bench/yaml_read_bench.py [--jobs 6000] [--runs 5]

Run it on two trees in the same minute (PYTHONPATH=OTHER/src) to compare them; the machine's load moves
single figures by 10% and more.
"""

from __future__ import annotations

import argparse
import time

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.yamltree import parse_documents


def jobs(n: int) -> str:
    out = []
    for i in range(n):
        out.append(f"""---
apiVersion: batch/v1
kind: Job
metadata:
  name: job-{i}
  namespace: team-{i % 20}
  labels: {{kueue.x-k8s.io/queue-name: lq-{i % 20}, app: train}}
spec:
  parallelism: {1 + i % 4}
  completions: {1 + i % 4}
  suspend: true
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {{node.kubernetes.io/instance-type: n2-standard}}
      tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
      containers:
      - name: main
        image: registry.example/train:1.{i % 7}
        resources:
          requests: {{cpu: "{1 + i % 8}", memory: {1 + i % 16}Gi, nvidia.com/gpu: {i % 2}}}
          limits: {{nvidia.com/gpu: {i % 2}}}
""")
    return "".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=6000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    text = jobs(args.jobs)
    best = float("inf")
    for _ in range(args.runs):
        start = time.process_time()
        n = sum(1 for _ in parse_documents(text, "jobs.yaml", Diagnostics()))
        best = min(best, time.process_time() - start)
    print(f"{n} documents, {len(text) / 1e6:.1f} MB: parse_documents best of {args.runs}: {best:.3f} s CPU")


if __name__ == "__main__":
    main()
