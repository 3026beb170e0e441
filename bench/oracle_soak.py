"""Issue 18 item 2: a long differential run of kadmit against Kueue's own code (tools/kueue-oracle)
on clusters generated across the feature space (tests/oracle/strategies.py, every switch on,
including those test_property.py keeps off in CI because kadmit is known to differ).

Clusters are drawn by hypothesis (random, `--seed` for a repeatable run), decided `--batch` at a
time (kadmit in this process, the oracle in one `admit --each --runs 2` process per batch), and
counted per feature: examples with the feature, agreeing, differing, and the kept manifest file of
each differing cluster (tests/oracle/.failures/ or $KADMIT_ORACLE_FAILURES), which
`kadmit admit FILE` and `tools/kueue-oracle/kueue-oracle admit FILE` reproduce.

    .venv/bin/python bench/oracle_soak.py --n 10000          # ~40 min on one core
    .venv/bin/python bench/oracle_soak.py --n 200 --off admission_fair_sharing
    .venv/bin/python bench/oracle_soak.py --n 300 --require tas_groups   # pod-set groups only
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from oracle.differential import decide  # noqa: E402
from oracle.harness import oracle_binary  # noqa: E402
from oracle.strategies import KNOWN, Cluster, allowed_switches, clusters  # noqa: E402


def draw_arguments(ap: argparse.ArgumentParser, n: int) -> None:
    """The arguments that choose a soak's clusters (`each_cluster`)."""
    ap.add_argument("--n", type=int, default=n, help="clusters to generate and decide")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--off", action="append", default=[], help="a switch to keep off (repeatable)")
    ap.add_argument("--require", action="append", default=[],
                    help="decide only clusters that hold this feature (repeatable; e.g. tas_groups; "
                         "an opt-in switch such as second_pass is drawn only when required)")


def each_cluster(ap: argparse.ArgumentParser, args: argparse.Namespace, decide_one: Callable[[Cluster], None]) -> None:
    """Draws the `--n` clusters of `--seed` (hypothesis replays the same draws for the same
    arguments) from the switches allowed (every one but `--off`, and the opt-in ones `--require`
    names), keeps those holding every `--require`d feature and gives each to `decide_one`."""
    unknown = (set(args.off) | set(args.require)) - KNOWN
    if unknown:
        ap.error(f"unknown switches {sorted(unknown)}; known: {' '.join(sorted(KNOWN))}")
    drawn = clusters(allowed_switches(args.off, args.require))
    if args.require:
        drawn = drawn.filter(lambda c: set(args.require) <= c.features)

    @seed(args.seed)
    @settings(max_examples=args.n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(drawn)
    def draw(cluster):
        decide_one(cluster)

    draw()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    draw_arguments(ap, 1000)
    ap.add_argument("--batch", type=int, default=100, help="clusters per oracle process")
    ap.add_argument("--paths", type=int, default=3, help="differing clusters' paths to show per feature")
    ap.add_argument("--out", type=Path, help="also write the table here after every batch (a long run's figures "
                                             "so far, should it be stopped)")
    args = ap.parse_args()
    binary = oracle_binary()
    work = Path(tempfile.mkdtemp(prefix="oracle-soak-"))

    seen: dict[str, int] = defaultdict(int)
    agree: dict[str, int] = defaultdict(int)
    differing: dict[str, list[Path]] = defaultdict(list)
    totals = {"clusters": 0, "agree": 0}
    pending = []
    started, cpu = time.time(), time.process_time()

    def table() -> str:
        lines = [f"kadmit vs Kueue {binary.rsplit('/', 1)[-1]}: {totals['agree']} of {totals['clusters']} generated "
                 f"clusters agree (seed {args.seed}, switches off: {' '.join(args.off) or 'none'}"
                 + (f"; only clusters with {' '.join(args.require)}" if args.require else "") + "); "
                 f"{time.time() - started:.0f} s wall; CPU: {time.process_time() - cpu:.0f} s in this process (generating, "
                 f"kadmit), {resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime:.0f} s in the oracle",
                 "", f"| feature | clusters | agree | differ | differing clusters (first {args.paths}) |",
                 "|---|---:|---:|---:|---|"]
        for f in sorted(seen, key=lambda f: (f != "(all)", f)):
            paths = sorted({str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p) for p in differing[f]})
            lines.append(f"| {f} | {seen[f]} | {agree[f]} | {seen[f] - agree[f]} | {' '.join(paths[:args.paths])} |")
        return "\n".join(lines)

    def flush():
        if not pending:
            return
        for v in decide(binary, pending, work / f"b{totals['clusters']:06d}"):
            totals["clusters"] += 1
            totals["agree"] += v.agree
            for f in v.features | {"(all)"}:
                seen[f] += 1
                if v.agree:
                    agree[f] += 1
                else:
                    differing[f].append(v.path)
        pending.clear()
        if args.out:
            args.out.write_text(table() + "\n")
        print(f"  {totals['clusters']} decided, {totals['clusters'] - totals['agree']} differ "
              f"({time.time() - started:.0f} s)", file=sys.stderr, flush=True)

    def take(cluster: Cluster) -> None:
        pending.append(cluster)
        if len(pending) >= args.batch:
            flush()

    each_cluster(ap, args, take)
    flush()
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
