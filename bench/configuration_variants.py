"""Every manifest case of tests/oracle/features that holds no Kueue Configuration, given one (by default one
with no fields at all), decided by kadmit and by the oracle (one `admit --each` process): a Configuration of the
input replaces the one Kueue installs whole, so what it leaves unset takes Kueue's defaults (frameworks
`batch/job` alone), and both must agree on what that changes. Prints the cases that differ and the counts; the
cases are written to --out (a temporary folder by default), where `kadmit admit FILE` and
`tools/kueue-oracle/kueue-oracle admit FILE` reproduce them. tie-* cases are Kueue's own variance: give them
more runs (`--runs 8`) before reading a difference as kadmit's.

    PYTHONPATH=src:. .venv/bin/python bench/configuration_variants.py
    PYTHONPATH=src:. .venv/bin/python bench/configuration_variants.py --fields 'manageJobsWithoutQueueName: false'
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from oracle.harness import compare, from_kadmit, from_oracle, oracle_binary, run_each, run_kadmit, variants  # noqa: E402

CONFIGURATION = "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
# a case that holds a Configuration already, or Kueue's ConfigMap of one (in either YAML style)
HOLDS_ONE = re.compile(r"(^|[{,\s])kind:\s*(Configuration|ConfigMap)\b|kueue-manager-config|config\.kueue\.x-k8s\.io")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fields", default="", help="YAML lines the Configuration holds (default: none)")
    ap.add_argument("--runs", type=int, default=1, help="the oracle's runs per case")
    ap.add_argument("--out", type=Path, default=None, help="folder for the cases (default: a temporary one)")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="configuration-"))
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for case in sorted((ROOT / "tests/oracle/features").glob("*.yaml")):
        text = case.read_text()
        if HOLDS_ONE.search(text):
            continue
        path = out / case.name
        path.write_text(text.rstrip("\n") + "\n" + CONFIGURATION + (args.fields.rstrip("\n") + "\n" if args.fields else ""))
        paths.append(path)
    answers = run_each(oracle_binary(), "admit", paths, "--runs", str(args.runs))
    differ, refused = [], []
    for path in paths:
        kueue = answers[str(path)]
        if "error" in kueue:  # the oracle could not decide it (Kueue panics on pod-set-group-of-three-fits)
            refused.append(path.name)
            continue
        _, data = run_kadmit([str(path)])
        if data is None:
            differ.append(path.name)
            print(f"differ: {path}: kadmit gave no answer")
            continue
        k, q = from_kadmit(data), from_oracle(kueue)
        result = compare(k, q, alternatives=variants(kueue))
        if not result.agree:
            differ.append(path.name)
            print(f"differ: {path}\n{result.report(k, q)}")
    print(f"{len(paths)} cases ({out}), {len(refused)} the oracle could not decide ({', '.join(refused) or 'none'}), "
          f"{len(differ)} differ: {' '.join(differ) or 'none'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
