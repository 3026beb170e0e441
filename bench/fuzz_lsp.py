"""`kadmit lsp` on mutated real inputs (tests/fuzz/lsp_case.py): each case a server over a folder of
one seed's mutated files (tests/fuzz/mutate.py), every text file opened and edited as typed, every kind
of request asked at a few places; a finding is an internal error the server logged, a request or
publication that never came, a server not ending cleanly, or an opened file's diagnostics other than
`kadmit check`'s. `--keep DIR` writes each case with a finding there.

    nice -n 10 .venv/bin/python bench/fuzz_lsp.py --n 40 --seed 2
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fuzz.lsp_case import run_lsp_case  # noqa: E402
from fuzz.mutate import mutate, seeds  # noqa: E402
from fuzz.runner import write  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40, help="cases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--edits", type=int, default=2, help="edits typed per opened file")
    ap.add_argument("--only", default="", help="seeds whose name holds this text")
    ap.add_argument("--keep", type=Path, help="write each case with a finding here")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    pool = [s for s in seeds() if args.only in s.name]
    report: list[str] = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.n):
            seed = rng.choice(pool)
            files, what = mutate(seed.files, rng)
            found = run_lsp_case(Path(tmp) / f"c{i}", files, rng, edits=args.edits)
            for f in found:
                report.append(f"case {i} ({seed.name}; {'; '.join(what)[:300]}):\n  {f[:800]}")
            if found and args.keep:
                write(args.keep / f"case-{args.seed}-{i}", files)
                (args.keep / f"case-{args.seed}-{i}" / "WHAT.txt").write_text(
                    f"seed {seed.name}\n" + "\n".join(what) + "\n\n" + "\n".join(found) + "\n")
            print(f"\r{i + 1}/{args.n} cases, {len(report)} findings", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{args.n} cases from {len(pool)} seeds, seed {args.seed}, {time.monotonic() - start:.0f} s: "
          f"{len(report)} findings")
    for line in report:
        print(line)
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
