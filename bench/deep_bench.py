"""`kadmit check --deep` on the generated 1,000-queue policy of `check_bench` (issue 12: aim under 30 s).

Prints the time of plain `check` (parse + validate of the same policy written as `.kad`), of
`check --deep`, each analysis's share, and the ratio to plain `check` measured in the same run.
Run: `.venv/bin/python bench/deep_bench.py [--queues N]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import gen
from check_bench import check_state
from kadmit import api
from kadmit.diagnostics import Diagnostics
from kadmit.engine.analysis import deep
from kadmit.engine.analysis.rules import rule_findings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queues", type=int, default=1000)
    args = ap.parse_args()
    model = check_state(args.queues, max(2, args.queues // 10))
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in gen.kad_files(model).items():
            path = Path(tmp) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        t0 = time.perf_counter()
        plain = api.check([tmp])
        t_plain = time.perf_counter() - t0
        t0 = time.perf_counter()
        deeper = api.check([tmp], deep=True)
        t_deep = time.perf_counter() - t0
    loaded = plain.workspace.model
    parts = []
    for name, fn in (("limits", deep.idle_limits), ("nodes", deep.node_capacity),
                     ("flavors", lambda m, d: deep.unusable_flavors(m, d)),
                     ("workloads", lambda m, d: deep.never_admissible(m, d)),
                     ("rules", lambda m, d: rule_findings(m, d))):
        t0 = time.perf_counter()
        fn(loaded, Diagnostics())
        parts.append(f"{name} {time.perf_counter() - t0:.2f} s")
    found = len(deeper.diagnostics) - len(plain.diagnostics)
    print(f"{args.queues} cluster queues: plain check {t_plain:.2f} s, check --deep {t_deep:.2f} s "
          f"(the analyses add {t_deep - t_plain:.2f} s, {t_deep / t_plain:.2f}x plain; aim < 30 s), "
          f"{found} deep findings")
    print("  by analysis: " + ", ".join(parts))


if __name__ == "__main__":
    main()
