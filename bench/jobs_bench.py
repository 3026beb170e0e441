"""Reading submitted jobs against reading the Workloads Kueue makes of them (issue 9).

Writes N batch Jobs, N JobSets and N LeaderWorkerSets (one group each) and the N×3 equivalent
Workloads, then times `workspace.load` on each set (median of `--repeats`) and prints the ratio
jobs / Workloads, in the same run. Run: `.venv/bin/python bench/jobs_bench.py [--n 2000] [--quick]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from kadmit.workspace import load

SETUP = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 100}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""
TEMPLATE = "{spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}}"
JOB_TEMPLATE = TEMPLATE.replace("{spec: {", "{spec: {restartPolicy: Never, ", 1)  # a Job's pods end (validateJobSpec)


def jobs(n: int) -> str:
    out = []
    for i in range(n):
        meta = f"metadata: {{name: j{i}, labels: {{kueue.x-k8s.io/queue-name: q}}}}"
        out.append(f"apiVersion: batch/v1\nkind: Job\n{meta}\nspec: {{parallelism: 2, template: {JOB_TEMPLATE}}}\n")
        out.append(f"apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n{meta.replace('j', 's', 1)}\n"
                   f"spec: {{replicatedJobs: [{{name: w, replicas: 2, template: {{spec: {{template: {TEMPLATE}}}}}}}]}}\n")
        out.append(f"apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\n{meta.replace('j', 'l', 1)}\n"
                   f"spec: {{leaderWorkerTemplate: {{size: 2, workerTemplate: {TEMPLATE}}}}}\n")
    return "---\n".join(out)


def workloads(n: int) -> str:
    out = []
    for i in range(n):
        for prefix, ps in (("j", "main"), ("s", "w"), ("l", "main")):
            out.append(f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {{name: {prefix}{i}, namespace: default}}\n"
                       f"spec: {{queueName: q, podSets: [{{name: {ps}, count: 2, template: {TEMPLATE}}}]}}\n")
    return "---\n".join(out)


def timed(paths: list[str], repeats: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        ws = load(paths)
        times.append(time.perf_counter() - t0)
        assert not ws.diagnostics.has_errors
        count = len(ws.model.workloads)
    return statistics.median(times), count


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 100 if args.quick else args.n
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "setup.yaml").write_text(SETUP)
        (root / "jobs.yaml").write_text(jobs(n))
        (root / "workloads.yaml").write_text(workloads(n))
        t_jobs, c_jobs = timed([str(root / "setup.yaml"), str(root / "jobs.yaml")], args.repeats)
        t_wls, c_wls = timed([str(root / "setup.yaml"), str(root / "workloads.yaml")], args.repeats)
    assert c_jobs == c_wls == 3 * n
    print(f"{3 * n} objects: jobs {t_jobs:.2f} s, Workloads {t_wls:.2f} s, ratio {t_jobs / t_wls:.2f}")


if __name__ == "__main__":
    main()
