"""kadmit against Kueue's own scheduler on many random clusters (tests/oracle/generate.py): every
seed whose decisions differ is printed with both answers and the cluster's file. Kueue decides each
cluster three times; workloads whose outcome differs between those runs (Kueue's own map order)
are left out. The suite runs a few seeds (tests/oracle/test_generated.py); this runs many.
With `--features TEXT`, each seed is instead an oracle feature file whose name holds TEXT (comma-separated:
any of them), mutated once by tests/fuzz/mutate.py's FEATURES (gates flipped, a slice's old Workload missing
or moved, nodes removed, topology assignments made wrong). An input the oracle refuses as a whole (exit 2)
where kadmit decides nothing either (its exit 1 holding back the trees an error touches, or its exit 2) is
counted as refused by both. An input kadmit refuses as a whole (exit 2) that the oracle decides is compared
object by object (`refused_whole`): the objects kadmit's errors name must be objects Kueue skips, and what
kadmit decides of the input without them (what `kubectl apply` creates of it) must be what Kueue decides;
one whose error names no object (a file kadmit reads no object of: a Go template, a YAML error), or that
kadmit refuses without them too, is counted as refused by kadmit alone, by its codes.
Its first run (--seeds 0:40 --features elastic,multi-layer,balanced,equivalence) found the
old slice's domainCount 0 that Kueue's API server refuses and kadmit reads (/work/wt/cases/fuzz13/).
Run: `.venv/bin/python bench/oracle_fuzz.py [--seeds A:B] [--keep DIR] [--features elastic,balanced]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import random  # noqa: E402

from fuzz.features import FEATURES  # noqa: E402
from fuzz.mutate import _structural  # noqa: E402
from oracle.generate import cluster  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, run_oracle  # noqa: E402


def _ref(o: dict) -> tuple[str, str, str]:
    return o.get("kind") or "", o.get("namespace") or "", o.get("name") or ""


def differences(kadmit: dict, kueue: dict) -> list[str]:
    """Where kadmit's answer and Kueue's differ (workloads whose outcome Kueue's own runs varied left
    out; an object Kueue skips that kadmit does not decide either agrees): lines to print, none if alike."""
    varying = {w["workload"] for w in kueue["variance"]["workloads"]}
    k, q = from_kadmit(kadmit), from_oracle(kueue)
    result = compare(k, q)
    result.differ = {n: d for n, d in result.differ.items() if n not in varying}
    decided = {_ref(d.get("object") or {}) for d in kadmit.get("decisions", [])}
    skipped = [s for s in kueue["skipped"] if _ref(s) in decided]
    if result.agree and not skipped:
        return []
    return ([f"Kueue skipped what kadmit decides: {skipped}"] if skipped else []) + [result.report(k, q)]


def _errors(path: Path) -> list:
    from kadmit import api
    from kadmit.diagnostics import Severity

    return [d for d in api.admit([str(path)]).diagnostics if d.severity is Severity.ERROR]


def refused_whole(path: Path, kueue: dict) -> tuple[str, list[str]]:
    """kadmit's per-object answer on an input it refuses as a whole (exit 2) that Kueue decides: ("agree"
    | "differ" | "refused", lines to print). The objects kadmit's errors name (their `about`) must be
    objects Kueue skips; kadmit then decides the input without them (an object written twice: without
    its later copies), and that must be Kueue's answer (`differences`). "refused": an error names no
    object, or kadmit refuses the input without them too (KAD206: an admitted Workload whose
    ClusterQueue was refused), the first line saying which codes."""
    errors = _errors(path)
    named = {_ref(a.as_dict()) for d in errors for a in d.about}
    if whole := sorted({d.code for d in errors if not d.about}):
        return "refused", [f"{' '.join(whole)}: kadmit refuses the input; Kueue decides {len(kueue['decisions'])} "
                           f"workloads, skipping {len(kueue['skipped'])} objects"]
    docs = [(_ref({**(d.get("metadata") or {}), "kind": d.get("kind")}), d)
            for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    # an object written twice (KAD220): Kueue takes the first (the API server refuses to create it again)
    twice = {r for r, n in Counter(r for r, _ in docs).items() if n > 1}
    taken = sorted(named - {_ref(s) for s in kueue["skipped"]} - twice)
    lines = [f"kadmit refuses {', '.join('/'.join(filter(None, r)) for r in taken)}, which Kueue takes"] if taken else []
    rest, first = [], set()
    for r, d in docs:
        if r not in named or (r in twice and r not in first):
            rest.append(d)
        first.add(r)
    kept = path.with_name(f"{path.stem}-without-refused.yaml")
    kept.write_text(yaml.safe_dump_all(rest, sort_keys=False))
    code, kadmit = run_kadmit([str(kept)])
    if kadmit is None:
        again = " ".join(sorted({d.code for d in _errors(kept)}))
        return "refused", [f"{again} (once {len(named)} objects are out): kadmit refuses the input without the "
                           "objects its errors name too"] + lines
    lines += differences(kadmit, kueue)
    return ("differ" if lines else "agree"), lines


def keep(folder: Path | None, path: Path) -> None:
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / path.name).write_text(path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:200", help="A:B, the seeds A to B-1")
    parser.add_argument("--keep", type=Path, help="write every differing cluster here (and those kadmit alone refuses)")
    parser.add_argument("--features", help="mutate the oracle feature files whose names hold this text (a,b: any)")
    args = parser.parse_args(argv)
    # (not the `tie-` files: Kueue's answer there is one of several its own order gives, kadmit's another)
    files = sorted(p for p in (ROOT / "tests/oracle/features").glob("*.yaml") if not p.name.startswith("tie-")
                   and args.features and any(t in p.name for t in args.features.split(",")))
    first, last = (int(x) for x in args.seeds.split(":"))
    binary = oracle_binary()
    agree, differ, varies, refused, alone = 0, [], 0, 0, Counter()
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
            try:
                kueue = run_oracle(binary, [str(path)], "--runs", "3")
            except AssertionError as e:  # the oracle refuses the input as a whole (exit 2: a document
                # kubectl would not send, a Configuration Kueue's manager would not start with)
                if "exited 2" in str(e) and not (kadmit or {}).get("decisions"):
                    refused += 1  # kadmit decides nothing either (it holds back the tree the error touches)
                    continue
                said = str(e).strip().splitlines()
                lines = said[:2] + (["  …", said[-1]] if len(said) > 3 else said[2:])  # (a panic's stack cut)
            else:
                if kadmit is None:  # kadmit refuses the input as a whole, Kueue decides it
                    verdict, lines = refused_whole(path, kueue)
                    if verdict == "refused":
                        alone[lines[0].split(":")[0]] += 1
                        print(f"seed {seed}: " + "\n  ".join(lines))
                        keep(args.keep, path)
                        continue
                else:
                    lines = differences(kadmit, kueue)
                varies += bool(kueue["variance"]["workloads"])
            if not lines:
                agree += 1
                continue
            differ.append(seed)
            print(f"seed {seed}:\n  " + "\n".join(lines).replace("\n", "\n  "))
            keep(args.keep, path)
    print(f"{agree} of {last - first} clusters agree; differ: {differ or 'none'}; "
          f"{varies} where Kueue's own runs varied" + (f"; {refused} refused by both" if refused else "")
          + (f"; refused by kadmit alone, by codes: {dict(sorted(alone.items()))}" if alone else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
