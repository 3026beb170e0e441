"""kadmit against Kueue's own scheduler on many random clusters (tests/oracle/generate.py): every
seed whose decisions differ is printed with both answers and the cluster's file. Kueue decides each
cluster three times; workloads whose outcome differs between those runs (Kueue's own map order)
are left out. The suite runs a few seeds (tests/oracle/test_generated.py); this runs many.
With `--features TEXT`, each seed is instead an oracle feature file whose name holds TEXT (comma-separated:
any of them), mutated once by tests/fuzz/mutate.py's FEATURES (gates flipped, a slice's old Workload missing
or moved, nodes removed, topology assignments made wrong); a mutation kadmit refuses (exit 2), or the oracle
refuses as a whole where kadmit decides nothing (its exit 1 holding back the trees an error touches), is
counted and not compared. Its first run (--seeds 0:40 --features elastic,multi-layer,balanced,equivalence) found the
old slice's domainCount 0 that Kueue's API server refuses and kadmit reads (/work/wt/cases/fuzz13/).
Run: `.venv/bin/python bench/oracle_fuzz.py [--seeds A:B] [--keep DIR] [--features elastic,balanced]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import random  # noqa: E402

from fuzz.features import FEATURES  # noqa: E402
from fuzz.mutate import _structural  # noqa: E402
from oracle.generate import cluster  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, run_oracle  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:200", help="A:B, the seeds A to B-1")
    parser.add_argument("--keep", type=Path, help="write every differing cluster here")
    parser.add_argument("--features", help="mutate the oracle feature files whose names hold this text (a,b: any)")
    args = parser.parse_args(argv)
    files = sorted(p for p in (ROOT / "tests/oracle/features").glob("*.yaml")
                   if args.features and any(t in p.name for t in args.features.split(",")))
    first, last = (int(x) for x in args.seeds.split(":"))
    binary = oracle_binary()
    agree, differ, varies, refused = 0, [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(first, last):
            path = Path(tmp) / f"cluster-{seed}.yaml"
            if args.features:
                rng = random.Random(seed)
                source = rng.choice(files)
                mutated = _structural(source.read_text(encoding="utf-8"), rng, FEATURES)
                if mutated is None:
                    continue
                path.write_text(f"# {source.name}: {mutated[1]}\n{mutated[0]}")
            else:
                path.write_text(cluster(seed))
            code, kadmit = run_kadmit([str(path)])
            if kadmit is None and args.features:
                refused += 1
                continue
            if kadmit is None:
                print(f"seed {seed}: kadmit refused it (exit {code})")
                differ.append(seed)
                continue
            try:
                kueue = run_oracle(binary, [str(path)], "--runs", "3")
            except AssertionError as e:  # the oracle refuses the input as a whole (exit 2: a document
                # kubectl would not send, a Configuration Kueue's manager would not start with)
                if "exited 2" in str(e) and not kadmit.get("decisions"):
                    refused += 1  # kadmit decides nothing either (it holds back the tree the error touches)
                    continue
                print(f"seed {seed}: {e}")
                differ.append(seed)
                continue
            varying = {w["workload"] for w in kueue["variance"]["workloads"]}
            varies += bool(varying)
            k, q = from_kadmit(kadmit), from_oracle(kueue)
            result = compare(k, q)
            result.differ = {n: d for n, d in result.differ.items() if n not in varying}
            decided = {(o.get("kind"), o.get("namespace"), o.get("name"))
                       for o in (d.get("object") or {} for d in kadmit.get("decisions", []))}
            skipped = [s for s in kueue["skipped"] if (s.get("kind"), s.get("namespace"), s.get("name")) in decided]
            if result.agree and not skipped:  # (an object Kueue skips that kadmit does not decide either agrees)
                agree += 1
                continue
            differ.append(seed)
            print(f"seed {seed}:" + (f" Kueue skipped what kadmit decides: {skipped}" if skipped else ""))
            print("  " + result.report(k, q).replace("\n", "\n  "))
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / path.name).write_text(path.read_text())
    print(f"{agree} of {last - first} clusters agree; differ: {differ or 'none'}; "
          f"{varies} where Kueue's own runs varied" + (f"; {refused} refused by kadmit, not compared" if refused else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
