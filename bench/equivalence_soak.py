"""A differential run of the SchedulingEquivalenceHashing gate (engine/admission/equivalence.py): generated
clusters where equivalent workloads meet — two ClusterQueues in a cohort, one selecting only the `mine`
namespace or both, BestEffortFIFO (mostly) or StrictFIFO, random preemption settings, 5-10 Workloads of
few shapes in two namespaces, some holding quota — with the gate on, decided by kadmit and by the oracle
(one `admit --each --runs 3` process), and by kadmit with the gate off. Prints the clusters where kadmit
and Kueue differ (kept in --out), and counts: clusters, where kadmit moved a workload with an equivalent
one (KAD538), where the gate changes kadmit's admissions, and where kadmit and Kueue differ.

    PYTHONPATH=src:. .venv/bin/python bench/equivalence_soak.py --n 100 --seed 300
    PYTHONPATH=src:. .venv/bin/python bench/equivalence_soak.py --n 140 --seed 60 --mine 2 --cpus 1,2,2,3 --priorities 0,0,10
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from kadmit import api  # noqa: E402
from oracle.harness import (compare, from_kadmit, from_oracle, oracle_binary, run_each, run_kadmit,  # noqa: E402
                            variants)

HEADER = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
featureGates: {SchedulingEquivalenceHashing: GATE}
---
apiVersion: v1
kind: Namespace
metadata: {name: other, labels: {team: other}}
---
apiVersion: v1
kind: Namespace
metadata: {name: mine, labels: {team: mine}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
"""


def cluster(seed: int, mine: int, cpus: list[int], priorities: list[int]) -> str:
    """One cluster (the gate as GATE); `mine`: how many of each namespace draw are `mine` against one `other`."""
    r = random.Random(seed)
    docs, quota = [HEADER], {}
    for cq in ("cq1", "cq2"):
        quota[cq] = r.randint(2, 6)
        docs.append(f"""---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: {cq}}}
spec:
  cohortName: co
  queueingStrategy: {r.choice(["BestEffortFIFO"] * 3 + ["StrictFIFO"])}
  namespaceSelector: {r.choice(["{}", "{matchLabels: {team: mine}}"])}
  preemption: {{withinClusterQueue: {r.choice(["LowerPriority", "Never"])}, reclaimWithinCohort: {r.choice(["Any", "Never", "LowerPriority"])}}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{{name: f, resources: [{{name: cpu, nominalQuota: {quota[cq]}}}]}}]
""")
    for ns in ("mine", "other"):
        for i in (1, 2):
            docs.append(f"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                        f"metadata: {{name: q{i}, namespace: {ns}}}\nspec: {{clusterQueue: cq{i}}}\n")
    used = {"cq1": 0, "cq2": 0}
    for k in range(r.randint(5, 10)):
        ns, i = r.choice(["mine"] * mine + ["other"]), r.choice([1, 2])
        cpu, priority = r.choice(cpus), r.choice(priorities)
        cq = f"cq{i}"
        held = k < 3 and r.random() < 0.4 and used[cq] + cpu <= quota[cq]
        doc = f"""---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: w{k}, namespace: {ns}, creationTimestamp: "{"2025-12-31" if held else "2026-01-01"}T00:{k:02d}:00Z"}}
spec:
  queueName: q{i}
  priority: {priority}
  podSets: [{{name: main, count: 1, template: {{spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}}}]
"""
        if held:
            used[cq] += cpu
            doc += f"""status:
  admission:
    clusterQueue: {cq}
    podSetAssignments:
    - {{name: main, count: 1, flavors: {{cpu: f}}, resourceUsage: {{cpu: "{cpu}"}}}}
  conditions:
  - {{type: QuotaReserved, status: "True", reason: QuotaReserved, message: Quota reserved in ClusterQueue {cq}, lastTransitionTime: "2025-12-31T01:00:00Z"}}
  - {{type: Admitted, status: "True", reason: Admitted, message: The workload is admitted, lastTransitionTime: "2025-12-31T01:00:00Z"}}
"""
        docs.append(doc)
    return "".join(docs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=300)
    ap.add_argument("--mine", type=int, default=1, help="`mine` workloads per `other` one drawn")
    ap.add_argument("--cpus", default="2,2,2,3")
    ap.add_argument("--priorities", default="0,0,0,10")
    ap.add_argument("--out", type=Path, default=None, help="folder for the clusters (default: a temporary one)")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="equivalence-"))
    out.mkdir(parents=True, exist_ok=True)
    cpus, priorities = [int(c) for c in args.cpus.split(",")], [int(p) for p in args.priorities.split(",")]
    paths = []
    for s in range(args.seed, args.seed + args.n):
        text = cluster(s, args.mine, cpus, priorities)
        (out / f"g{s:05d}.yaml").write_text(text.replace("GATE", "true"))
        (out / f"g{s:05d}-off.yaml").write_text(text.replace("GATE", "false"))
        paths.append(out / f"g{s:05d}.yaml")
    answers = run_each(oracle_binary(), "admit", paths, "--runs", "3")
    moved = changed = differ = 0
    for path in paths:
        on = api.admit([str(path)]).result.decisions
        off = api.admit([str(path.with_name(path.stem + "-off.yaml"))]).result.decisions
        moved += any(d.equivalent_to for d in on)
        changed += {d.key: d.admitted for d in on} != {d.key: d.admitted for d in off}
        kueue = answers[str(path)]
        _, data = run_kadmit([str(path)])
        k, q = from_kadmit(data), from_oracle(kueue)
        result = compare(k, q, alternatives=variants(kueue))
        if not result.agree:
            differ += 1
            print(f"differ: {path}\n{result.report(k, q)}")
    print(f"{args.n} clusters (seed {args.seed}, {out}): kadmit moved a workload with an equivalent one in {moved}, "
          f"the gate changes kadmit's admissions in {changed}, kadmit and Kueue differ in {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
