"""Issue 18 item 3: triage the differing clusters a soak kept (bench/oracle_soak.py writes them to
tests/oracle/.failures/): decide each kept file again with kadmit (this checkout) and with Kueue's
own code (one `admit --each --runs 2` process), print where they still differ, workload by
workload, and count the files per kind of difference, so that a new cause stands out from the
known ones.

    .venv/bin/python bench/oracle_triage.py tests/oracle/.failures/*.yaml
    .venv/bin/python bench/oracle_triage.py --summary /work/wt/soak/tests/oracle/.failures/*.yaml

The kinds are read off the two answers, not proven: `agree` (closed since the soak kept it),
`oracle-error` (Kueue's own panic), `existing-job` (a job object with a UID whose pods Kueue never
saw, or a pod Kueue skips as not its own), `pod-set-names` (the answers agree but for pod-set names:
the pod-group role hash), `loop` (both runs end in a preemption loop), `tas` (a topology-aware
cluster otherwise), `other` (look here first).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from oracle.differential import oracle_each  # noqa: E402
from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_kadmit, variants  # noqa: E402


def kind(features: str, report: str) -> str:
    if "Skipping pod, not managed by Kueue" in report or re.search(r"/\S+:\n  kadmit: .*\n  Kueue:  no decision", report):
        return "existing-job"
    pairs = re.findall(r"  kadmit: (.*)\n  Kueue:  (.*)", report)
    if pairs and all(re.sub(r"\b[0-9a-f]{8}\b", "H", k) == re.sub(r"\b[0-9a-f]{8}\b", "H", q) for k, q in pairs):
        return "pod-set-names"
    if " tas" in features:
        return "tas"
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="kept cluster files")
    ap.add_argument("--summary", action="store_true", help="only the count and files of each kind")
    args = ap.parse_args()
    paths = [str(Path(p).resolve()) for p in args.paths]
    kueue_all = oracle_each(oracle_binary(), [Path(p) for p in paths])
    kinds: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        first = Path(path).read_text().split("\n", 1)[0]
        features = first[len("# features:"):] if first.startswith("# features:") else ""
        kueue = kueue_all[path]
        if "error" in kueue:
            kinds["oracle-error"].append(path)
            continue
        code, kadmit = run_kadmit([path])
        if kadmit is None:
            kinds["other"].append(path)
            if not args.summary:
                print(f"== {path}\nkadmit refused it (exit {code})\n")
            continue
        k, q = from_kadmit(kadmit), from_oracle(kueue)
        result = compare(k, q, alternatives=variants(kueue))
        if result.agree:
            kinds["loop" if q.looping and k.looping else "agree"].append(path)
            continue
        report = result.report(k, q)
        kinds[kind(features, report)].append(path)
        if not args.summary:
            print(f"== {path}\n# features:{features}\n{report}\n")
    for name in ("agree", "loop", "oracle-error", "existing-job", "pod-set-names", "tas", "other"):
        got = kinds.get(name, [])
        print(f"{name}: {len(got)}")
        if args.summary and name in ("other", "tas"):
            for p in got:
                print(f"  {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
