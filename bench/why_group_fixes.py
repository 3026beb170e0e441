"""Issue 18 (pod-set groups): `kadmit why` for generated clusters' pod-set groups that topology-aware
scheduling can't place, every proven fix applied to the cluster and decided again by kadmit and by
Kueue's own scheduler (tools/kueue-oracle).

Clusters are drawn as in `oracle_soak.py` (tests/oracle/strategies.py), only those with pod-set
groups (`tas_groups`), Kueue's panic of fair sharing without a cohort left out. For each pending
workload with a pod-set group whose explanation is a placement one, it counts the workloads with
a blame core, those whose core names the group, the fixes proven, and those fixes whose cluster
Kueue decides as kadmit does with the workload admitted; a fix that differs is kept (its file named).

    .venv/bin/python bench/why_group_fixes.py --n 200 --seed 7
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, run_oracle  # noqa: E402
from oracle.strategies import ALL, clusters  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="clusters to draw")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fixes", type=int, default=3, help="fixes proven per workload")
    args = ap.parse_args()
    from kadmit import api
    from kadmit.edits import apply

    binary = oracle_binary()
    work = Path(tempfile.mkdtemp(prefix="why-groups-"))
    n = {"clusters": 0, "explained": 0, "blamed": 0, "group_blamed": 0, "fixes": 0, "fixes_agree": 0}
    differ: list[str] = []
    started = time.time()
    drawn = clusters(frozenset(ALL - {"fair_sharing_no_cohort"})).filter(lambda c: "tas_groups" in c.features)

    @seed(args.seed)
    @settings(max_examples=args.n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(drawn)
    def draw(cluster):
        i = n["clusters"] = n["clusters"] + 1
        path = work / f"c{i:05d}.yaml"
        text = cluster.text()
        path.write_text(text)
        code, kadmit = run_kadmit([str(path)])
        if kadmit is None:
            return
        pending = [d["workload"] for d in kadmit["decisions"] if not d["admitted"]]
        for key in pending:
            out = api.why(key, [str(path)], fixes=args.fixes)
            r = out.result
            if r is None or r.placement is None or r.placement.group is None:
                continue
            n["explained"] += 1
            n["blamed"] += bool(r.blame)
            n["group_blamed"] += any(o.kind == "group" for o in r.blame)
            for j, fix in enumerate(r.fixes):
                edits = [c.edit for c in fix.changes if c.edit is not None]
                if not edits:
                    continue  # waits for a holder: no input to change
                n["fixes"] += 1
                changed = work / f"c{i:05d}-{key.replace('/', '_')}-fix{j + 1}.yaml"
                changed.write_text(apply(text, edits))
                _, k_data = run_kadmit([str(changed)])
                k, q = from_kadmit(k_data), from_oracle(run_oracle(binary, [str(changed)]))
                if compare(k, q).agree and k.outcomes.get(key) is not None and k.outcomes[key].admitted:
                    n["fixes_agree"] += 1
                else:
                    differ.append(str(changed))

    draw()
    print(f"why for pod-set groups TAS can't place, seed {args.seed}: {n['clusters']} clusters, "
          f"{n['explained']} group workloads explained by placement, {n['blamed']} with a blame core "
          f"({n['group_blamed']} naming the group); {n['fixes']} fixes proven that change the input, "
          f"{n['fixes_agree']} decided alike by Kueue with the workload admitted; {time.time() - started:.0f} s wall")
    for p in differ[:10]:
        print("  differs:", p)
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
