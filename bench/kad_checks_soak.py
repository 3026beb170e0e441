"""The `.kad` path of admission checks against Kueue: clusters with admission checks drawn as the
oracle soak draws them (tests/oracle/strategies.py, `--require admission_checks` implied), each
imported to `.kad` (`kadmit import --workloads`), decided by kadmit on the `.kad`, and decided by
Kueue's own scheduler (tools/kueue-oracle) on the `.kad`'s `kadmit export --workloads --nodes`: what a
cluster deployed from the `.kad` would hold. A cluster whose manifests kadmit refuses (input errors)
is counted apart, as is one whose import keeps something as a comment (KAD920: the `.kad` says less
than the manifests; the `.kad` and its export still agree on what it says, so it is decided too).

    PYTHONPATH=src:tests .venv/bin/python bench/kad_checks_soak.py --n 300 --seed 1
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from oracle.differential import keep, oracle_each  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, variants  # noqa: E402
from oracle.strategies import ALL, clusters  # noqa: E402

from kadmit import api  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200, help="clusters with admission checks to draw")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--off", action="append", default=[], help="a switch to keep off (repeatable)")
    args = ap.parse_args()
    binary = oracle_binary()
    work = Path(tempfile.mkdtemp(prefix="kad-checks-soak-"))
    drawn: list = []

    @seed(args.seed)
    @settings(max_examples=args.n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(clusters(frozenset(ALL - set(args.off))).filter(lambda c: "admission_checks" in c.features))
    def draw(cluster):
        drawn.append(cluster)

    started = time.time()
    draw()
    counts: Counter = Counter()
    differing: list[str] = []
    exports, kads, texts = [], [], []
    for i, cluster in enumerate(drawn):
        folder = work / f"c{i:04d}"
        folder.mkdir()
        (folder / "cluster.yaml").write_text(cluster.text())
        got = api.import_([str(folder / "cluster.yaml")], str(folder / "kad"), workloads=True)
        if got.exit_code != 0:
            counts["refused (input errors)"] += 1
            continue
        if any(d.code == "KAD920" and "UIDs" not in d.message for d in got.diagnostics):
            counts["with KAD920 (besides UIDs)"] += 1
        out = api.export([str(folder / "kad")], str(folder / "yaml"), workloads=True, nodes=True)
        if out.exit_code != 0:
            counts["export refused"] += 1
            differing.append(str(keep(cluster.text())))
            continue
        exports.append(folder / "yaml")
        kads.append(folder / "kad")
        texts.append(cluster.text())
    kueue_all = oracle_each(binary, exports)
    for path, kad, text in zip(exports, kads, texts):
        kueue = kueue_all[str(path)]
        code, kadmit = run_kadmit([str(kad)])
        if "error" in kueue or kadmit is None:
            counts["undecided by one side"] += 1
            differing.append(str(keep(text)))
            continue
        k, q = from_kadmit(kadmit), from_oracle(kueue)
        if compare(k, q, alternatives=variants(kueue)).agree:
            counts["agree"] += 1
        else:
            counts["differ"] += 1
            differing.append(str(keep(text)))
    print(f"admission checks through .kad, kadmit on the .kad vs Kueue on its export: {counts['agree']} of "
          f"{len(exports)} agree ({len(drawn)} drawn, seed {args.seed}; {time.time() - started:.0f} s wall)")
    for what, n in sorted(counts.items()):
        print(f"  {what}: {n}")
    for p in differing:
        print(f"  differing: {p}")
    return 0 if not differing else 1


if __name__ == "__main__":
    sys.exit(main())
