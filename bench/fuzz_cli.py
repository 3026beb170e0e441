"""Every CLI verb on mutated real inputs: nothing may crash, hang or contradict itself.

Each case takes a seed (the bundled examples, tests/oracle/features, the upstream corpus, the syntax
corpus's good `.kad` files), applies one to three mutations (tests/fuzz/mutate.py) and runs check,
admit (text and JSON), why on sampled workloads (JSON and text), fmt (idempotence, and that the
formatted files mean the same to check and admit), test, diff against the unmutated seed, simulate,
export, import and codes, each in a forked child with a time and memory limit (tests/fuzz/runner.py).
Prints per verb the calls, their exit codes and findings, then every finding with its case's
mutations; `--keep DIR` writes each case with a finding there (DIR/case-N/ with WHAT.txt).

Run: `nice -n 10 .venv/bin/python bench/fuzz_cli.py --n 200 --seed 1` (a few minutes on a quiet
machine); `--hashseed` also runs admit in a fresh interpreter under another string hash seed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fuzz.mutate import mutate, seeds  # noqa: E402
from fuzz.runner import VERBS, run_case, write  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="cases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds of CPU a call may take (its wall time: 30 times that)")
    parser.add_argument("--whys", type=int, default=2, help="workloads asked `why` per case")
    parser.add_argument("--verbs", default=",".join(VERBS), help="comma-separated, of: " + ",".join(VERBS))
    parser.add_argument("--only", default="", help="seeds whose name holds this text")
    parser.add_argument("--features", action="store_true",
                        help="the feature mutations (gates flipped, slices' old Workloads, nodes, topology assignments)")
    parser.add_argument("--hashseed", action="store_true", help="admit again under another hash seed")
    parser.add_argument("--no-again", action="store_true", help="skip the second runs (determinism)")
    parser.add_argument("--keep", type=Path, help="write each case with a finding here")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    pool = [s for s in seeds() if args.only in s.name]
    verbs = set(args.verbs.split(","))
    calls: Counter = Counter()
    exits: dict[str, Counter] = defaultdict(Counter)
    found: Counter = Counter()
    seconds: Counter = Counter()
    report: list[str] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.n):
            seed = rng.choice(pool)
            try:
                files, what = mutate(seed.files, rng, features=args.features)
            except Exception as e:  # noqa: BLE001 - the harness's own failure: said, and the run goes on
                report.append(f"case {i} ({seed.name}): the mutation failed: {type(e).__name__}: {e}"[:300])
                continue
            out = run_case(Path(tmp) / "w", seed.files, files, timeout=args.timeout, whys=args.whys, verbs=verbs,
                           again=not args.no_again, hashseed=args.hashseed, rng=rng)
            for c in out.calls:
                calls[c.verb] += 1
                exits[c.verb]["hang" if c.exit is None else c.exit] += 1
                seconds[c.verb] += c.seconds
            for verb, finding in out.findings:
                found[verb] += 1
                report.append(f"case {i} ({seed.name}; {'; '.join(what)[:300]}):\n  [{verb}] {finding[:600]}")
            if out.findings and args.keep:
                write(args.keep / f"case-{args.seed}-{i}", files)
                (args.keep / f"case-{args.seed}-{i}" / "WHAT.txt").write_text(
                    f"seed {seed.name}\n" + "\n".join(what) + "\n\n"
                    + "\n".join(f"[{v}] {f}" for v, f in out.findings) + "\n")
            print(f"\r{i + 1}/{args.n} cases, {sum(found.values())} findings", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{args.n} cases from {len(pool)} seeds, seed {args.seed}, {time.monotonic() - start:.0f} s")
    print(f"{'verb':12} {'calls':>6} {'CPU s':>7}  {'findings':>8}  exit codes")
    for verb in VERBS:
        if calls[verb]:
            codes = ", ".join(f"{k}: {v}" for k, v in sorted(exits[verb].items(), key=lambda kv: str(kv[0])))
            print(f"{verb:12} {calls[verb]:6} {seconds[verb]:7.1f}  {found[verb]:8}  {codes}")
    for line in report:
        print(line)
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
