"""The message Kueue leaves on each pending workload (the oracle's `pending.message`: its Workload's
QuotaReserved=False condition) against the reason kadmit's `admit` gives it, and `why`'s, over
every tests/oracle/features/*.yaml and tests/oracle/kueue_cases/ (each case with setup.yaml).

A workload counts where both leave it pending and Kueue wrote a message; kadmit's reasons are
compared joined as Kueue joins its pod sets' messages (tests/oracle/pending.py). Where they differ, the
oracle decides the input `--variants` (64) times and a message one of those runs gave counts as Kueue's
(`variant`: Go's map order picks it). A workload kadmit leaves undecided in a preemption loop (KAD535/536)
has no message to compare (`undecided`: Kueue's is that of the cycle the oracle's bound cuts the loop at,
docs/KUEUE-DIFFERENCES.md §1 "Preemption loops"). A Preempted message whose preemptor kadmit names
UNKNOWN where Kueue names a UID the input does not hold (the API server gave it) counts as `uid`, apart
(§1 "UIDs the API server gives"). Prints the agreement (N of M
messages equal), each difference, and where `admit` and `why` give a workload different reasons.
Run: `PYTHONPATH=src:bench:tests .venv/bin/python bench/pending_messages.py [--runs N] [--why]
[--variants N] [--out FILE] [PATHS...]`; no timing is asserted (tests/oracle/test_pending_messages.py checks a sample).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from oracle.harness import oracle_binary, run_kadmit, run_oracle  # noqa: E402
from oracle.pending import kueue_words, observed_messages, undecided, verdict  # noqa: E402

FEATURES = ROOT / "tests" / "oracle" / "features"
CASES = ROOT / "tests" / "oracle" / "kueue_cases"


def inputs() -> list[list[str]]:
    """Every feature file alone, every Kueue case with its setup."""
    out = [[str(p.relative_to(ROOT))] for p in sorted(FEATURES.glob("*.yaml"))]
    setup = CASES / "setup.yaml"
    out += [[str(setup.relative_to(ROOT)), str(p.relative_to(ROOT))]
            for p in sorted(CASES.glob("*.yaml")) if p != setup]
    return out


def compare(binary: str, paths: list[str], runs: int, variants: int = 0) -> list[dict]:
    """Per workload both leave pending and Kueue gave a message: both messages and whether equal.
    `variants`: where they differ, the oracle decides the input that many times more and kadmit's
    message counts as one of Kueue's (`variant`) if a run gave it (Go's map order decides which)."""
    try:
        kueue = run_oracle(binary, paths, "--runs", str(runs))
    except AssertionError as e:  # Kueue itself fails on it (a panic the feature file shows): nothing to compare
        return [{"paths": paths, "workload": None, "problem": str(e).splitlines()[0], "oracle_failed": True}]
    _, kadmit = run_kadmit(paths)
    if kadmit is None:
        return [{"paths": paths, "workload": None, "problem": "kadmit refused the input"}]
    ours = {d["workload"]: d for d in kadmit["decisions"]}
    out = []
    for t in kueue["decisions"]:
        pending = t.get("pending") or {}
        o = ours.get(t["workload"])
        if t["admitted"] or t.get("quota_reserved") or not pending.get("message") or o is None or o["admitted"]:
            continue
        mine = kueue_words(o.get("reasons", []))
        out.append({"paths": paths, "workload": t["workload"], "kueue": pending["message"], "admit": mine,
                    "reasons": [r["message"] for r in o.get("reasons", [])],
                    "verdict": "undecided" if undecided(o) else verdict(pending["message"], mine,
                                                                        given=input_text(paths))})
    if variants > 1 and any(r["verdict"] == "differs" for r in out):
        again = run_oracle(binary, paths, "--runs", str(variants))
        for r in out:
            if r["verdict"] == "differs":
                r["observed"] = observed_messages(again, r["workload"])
                r["verdict"] = verdict(r["kueue"], r["admit"], r["observed"], input_text(paths))
    return out


def input_text(paths: list[str]) -> str:
    """Every file of the input (a folder's files below it), one text: the UIDs it holds (`pending.unknown_uids`)."""
    files = [f for p in paths for f in ([ROOT / p] if (ROOT / p).is_file() else sorted((ROOT / p).rglob("*")))]
    return "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files if f.is_file())


def why_reasons(paths: list[str], workload: str) -> list[str]:
    """`why`'s Kueue-style reasons for `workload` (no fixes searched)."""
    from kadmit import api
    absolute = [str(ROOT / p) for p in paths]
    got = api.why(workload, absolute, fixes=0)
    return [r.message for r in got.result.reasons] if got.result is not None else []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="inputs (default: every feature file and Kueue case)")
    ap.add_argument("--runs", type=int, default=1, help="oracle runs per input (its answers must agree)")
    ap.add_argument("--variants", type=int, default=64,
                    help="where the messages differ, oracle runs whose messages count as Kueue's too (0: none)")
    ap.add_argument("--why", action="store_true", help="also compare `why`'s reasons with `admit`'s")
    ap.add_argument("--out", help="write every row as JSON here")
    args = ap.parse_args()
    binary = oracle_binary()
    todo = [[p] for p in args.paths] if args.paths else inputs()
    t0 = time.perf_counter()
    rows: list[dict] = []
    for paths in todo:
        rows += compare(binary, paths, args.runs, args.variants)
    failed = [r for r in rows if r.get("oracle_failed")]
    rows = [r for r in rows if not r.get("oracle_failed")]
    equal = sum(1 for r in rows if r.get("verdict") == "equal")
    more = sum(1 for r in rows if r.get("verdict") == "more")
    variant = sum(1 for r in rows if r.get("verdict") == "variant")
    loops = sum(1 for r in rows if r.get("verdict") == "undecided")
    uids = sum(1 for r in rows if r.get("verdict") == "uid")
    for r in failed:
        print(f"not compared: {r['problem']}")
    for r in rows:
        if r.get("verdict") not in ("equal", "undecided", "uid"):
            print(f"{' + '.join(r['paths'])}  {r['workload']}  ({r.get('verdict', 'not compared')})")
            if "problem" in r:
                print(f"  {r['problem']}")
                continue
            print(f"  kueue:  {r['kueue']}")
            for other in r.get("observed", []):
                if other != r["kueue"]:
                    print(f"  (kueue, another run): {other}")
            print(f"  kadmit: {r['admit']}")
    disagree = 0
    if args.why:
        for r in rows:
            if r.get("workload") is None:
                continue
            said = why_reasons(r["paths"], r["workload"])
            r["why"] = said
            if said[:len(r["reasons"])] != r["reasons"]:  # `why` may say more after admit's reasons
                disagree += 1
                print(f"admit/why differ: {' + '.join(r['paths'])}  {r['workload']}\n  admit: {r['reasons']}\n"
                      f"  why:   {said}")
    print(f"{equal} of {len(rows)} pending messages equal to Kueue's, {more} more Kueue's with kadmit's detail "
          f"after it, {variant} one Kueue gives in other runs (Go's map order), "
          f"{loops} kadmit leaves undecided (a preemption loop: Kueue's message is the cycle its bound cuts at), "
          f"{uids} name a UID the API server gave (kadmit: UNKNOWN, not in the input), "
          f"{len(rows) - equal - more - variant - loops - uids} differ, over {len(todo)} inputs "
          f"({time.perf_counter() - t0:.1f} s wall)" + (f"; admit and why differ on {disagree}" if args.why else ""))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    return 0 if equal + more + variant + loops + uids == len(rows) and not disagree else 1


if __name__ == "__main__":
    sys.exit(main())
