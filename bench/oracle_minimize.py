"""Issue 18 item 3: shrink a cluster on which kadmit and Kueue's own code (tools/kueue-oracle) differ, such as
a file bench/oracle_soak.py kept, to the fewest objects on which they still differ: each object in turn
(pods first, then workloads and jobs, nodes, queues, namespaces, flavors, cohorts, the rest) is dropped
where the two still differ without it (one oracle process and one kadmit run a try), until no object can go.
The cluster that comes out may differ otherwise than the one that went in (another shape of the same
cause, or another cause): read both with bench/oracle_triage.py before writing the oracle case.

    PYTHONPATH=src:tests .venv/bin/python bench/oracle_minimize.py KEPT.yaml --out /tmp/min.yaml

A try where the oracle fails (a Kueue panic) or kadmit refuses the input counts as agreeing, so that the
cluster keeps what makes it decidable. Prints each object dropped; the smallest cluster so far is in --out
after every drop (a long run can be stopped).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from oracle.differential import oracle_each  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, variants  # noqa: E402

ORDER = ("Pod", "Workload", "Job", "JobSet", "LeaderWorkerSet", "RayJob", "RayCluster", "PyTorchJob", "TrainJob",
         "Deployment", "StatefulSet", "Node", "LocalQueue", "ClusterQueue", "Namespace", "ResourceFlavor", "Cohort")


def differs(binary: str, docs: list[dict], work: Path) -> bool:
    """Whether kadmit and the oracle decide `docs` differently (Kueue's variance allowed, as the soak's)."""
    path = work / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    kueue = oracle_each(binary, [path])[str(path)]
    if "error" in kueue:
        return False
    _, kadmit = run_kadmit([str(path)])
    return kadmit is not None and not compare(from_kadmit(kadmit), from_oracle(kueue),
                                              alternatives=variants(kueue)).agree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="a cluster file on which the two differ")
    ap.add_argument("--out", type=Path, required=True, help="where the smallest cluster found is written")
    args = ap.parse_args()
    binary = oracle_binary()
    work = Path(tempfile.mkdtemp(prefix="oracle-minimize-"))
    docs = [d for d in yaml.safe_load_all(args.path.read_text()) if d]
    if not differs(binary, docs, work):
        print(f"{args.path}: kadmit and the oracle agree (or the oracle fails) on it", file=sys.stderr)
        return 1
    kinds = list(ORDER) + sorted({d.get("kind", "") for d in docs} - set(ORDER))
    dropped = True
    while dropped:
        dropped = False
        for kind in kinds:
            i = 0
            while i < len(docs):
                trial = docs[:i] + docs[i + 1:]
                if docs[i].get("kind") == kind and differs(binary, trial, work):
                    print(f"dropped {kind} {docs[i].get('metadata', {}).get('name', '')}", flush=True)
                    docs, dropped = trial, True
                    args.out.write_text(yaml.safe_dump_all(docs, sort_keys=False))
                else:
                    i += 1
    args.out.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    print(f"{len(docs)} objects left: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
