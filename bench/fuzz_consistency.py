"""kadmit against itself on generated clusters (tests/oracle/strategies.py, every switch but the
opt-in ones): admit's JSON the same twice (and under another PYTHONHASHSEED with `--hashseed`), `why`
agreeing with admit and exiting as documented, and `why --apply-fix N`'s patch making `admit` admit
the workload as the fix says with the side effects it lists, and with `--roundtrip` import, fmt, export and
import again deciding and reading the same (tests/fuzz/consistency.py). Prints the
clusters, calls and every finding; `--keep DIR` writes each cluster with a finding there.

    nice -n 10 .venv/bin/python bench/fuzz_consistency.py --n 100 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "bench")]

from fuzz.consistency import check_cluster  # noqa: E402
from oracle_soak import draw_arguments, each_cluster  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    draw_arguments(ap, 100)
    ap.add_argument("--whys", type=int, default=2, help="workloads asked `why` per cluster (the pending first)")
    ap.add_argument("--fixes", type=int, default=1, help="fixes applied per cluster")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds of CPU a call may take")
    ap.add_argument("--hashseed", action="store_true", help="admit again under another hash seed")
    ap.add_argument("--roundtrip", action="store_true", help="also import, fmt, export and import again "
                    "(tests/fuzz/consistency.py)")
    ap.add_argument("--keep", type=Path, help="write each cluster with a finding here")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    report: list[str] = []
    stats: Counter = Counter()
    count = [0]
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        def one(cluster) -> None:
            i = count[0] = count[0] + 1
            found = check_cluster(Path(tmp) / "w", {"cluster.yaml": cluster.text()}, rng, whys=args.whys,
                                  fixes=args.fixes, timeout=args.timeout, hashseed=args.hashseed,
                                  round_trip=args.roundtrip,
                                  stats=stats)
            for f in found:
                report.append(f"cluster {i} ({' '.join(sorted(cluster.features))[:200]}):\n  {f[:800]}")
            if found and args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / f"cluster-{args.seed}-{i}.yaml").write_text(cluster.text())
            print(f"\r{i}/{args.n} clusters, {len(report)} findings", end="", file=sys.stderr, flush=True)

        each_cluster(ap, args, one)
    print(file=sys.stderr)
    print(f"{count[0]} clusters, seed {args.seed}, {time.monotonic() - start:.0f} s: {len(report)} findings")
    print("compared: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    for line in report:
        print(line)
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
