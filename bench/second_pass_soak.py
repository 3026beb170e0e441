"""How often a soak's clusters take Kueue's second pass in kadmit (`engine.admission.second_pass`):
the clusters `bench/oracle_soak.py` draws for the same `--n`, `--seed`, `--off` and `--require`
(`oracle_soak.each_cluster`: hypothesis replays the same draws), decided by kadmit alone, counting
the clusters where a workload reserved quota with its topology placement delayed and its checks
Ready (queued for a second pass), where a second pass placed it, where one found no room, and where
one preempted. The soak itself
says whether those clusters agree with Kueue; this says how many of them the second pass decided.

    PYTHONPATH=src:bench:. .venv/bin/python bench/second_pass_soak.py --n 300 --seed 200 --require admission_checks
    PYTHONPATH=src:bench:. .venv/bin/python bench/second_pass_soak.py --n 200 --seed 600 --require second_pass
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "bench")]

import kadmit.engine.admission.ordered as ordered  # noqa: E402
from oracle.harness import run_kadmit  # noqa: E402
from oracle_soak import draw_arguments, each_cluster  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    draw_arguments(ap, 300)
    args = ap.parse_args()
    seen: set[str] = set()  # what the cluster being decided did

    queued, passes = ordered.needs_second_pass, ordered.second_passes

    def counting_queued(*a, **k):
        got = queued(*a, **k)
        if got:
            seen.add("queued")
        return got

    def counting_passes(*a, **k):
        got = passes(*a, **k)
        for _, _, sp in got:
            seen.add("placed" if sp.ok else "preempting" if sp.targets else "no room")
        return got

    ordered.needs_second_pass, ordered.second_passes = counting_queued, counting_passes
    counts: Counter[str] = Counter()
    work = Path(tempfile.mkdtemp(prefix="second-pass-"))

    def decide_one(cluster) -> None:
        path = work / f"c{counts['clusters']:05d}.yaml"
        path.write_text(cluster.text())
        seen.clear()
        run_kadmit([str(path)])
        counts["clusters"] += 1
        for what in seen:
            counts[what] += 1

    each_cluster(ap, args, decide_one)
    print(f"seed {args.seed} ({' '.join(f'--require {r}' for r in args.require) or 'every cluster'}): "
          f"{counts['clusters']} clusters; a second pass queued in {counts['queued']}, placing in "
          f"{counts['placed']}, finding no room in {counts['no room']}, preempting in {counts['preempting']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
