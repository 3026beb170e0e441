"""Issue 11 item 5: hostile and large inputs, each at n and 10n in the same run, with the time ratio
(linear work ~10x, quadratic ~100x) and the size of what `check` prints.

Shapes: a cohort chain (check, admit, why), a one-line JSON List of unused flavors (check, human
output), a `.kad` workload with many pod groups (check), a chain of `.kad` imports (check).
Run: `.venv/bin/python bench/hostile_bench.py` (n = 200) or `--n 100`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from robustness import hostile  # noqa: E402  (the tests' generators of the same inputs)

from kadmit import api  # noqa: E402
from kadmit.render import render  # noqa: E402


def chain(folder: Path, n: int) -> None:
    hostile.write(folder, "chain.json", hostile.cohort_chain(n))


def flavors(folder: Path, n: int) -> None:
    hostile.write(folder, "flavors.json", [hostile.flavor(f"unused-{i}") for i in range(n)], one_line=True)


def pod_groups(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["flavor f {}", "workload t/w {", "  queue = lq", '  created = "2026-11-20T08:10:00Z"']
    for i in range(n):
        lines += [f"  pod_group ps{i} {{", "    count = 1", "    requests = { cpu = 1 }", "  }"]
    (folder / "w.kad").write_text("\n".join(lines + ["}"]) + "\n")


def imports(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"f{i}.kad").write_text(f'import "f{i + 1}.kad"\nflavor fl{i} {{}}\n')
    (folder / f"f{n}.kad").write_text("flavor last {}\n")


def checked(folder: Path) -> int:
    got = api.check([str(folder)])
    return len(render(got.diagnostics, got.sources, "human"))


CASES = [
    ("cohort chain: check", chain, checked),
    ("cohort chain: admit", chain, lambda d: api.admit([str(d)]).exit_code),
    ("cohort chain: why t/big", chain, lambda d: api.why("t/big", [str(d)]).exit_code),
    ("one-line List of unused flavors: check + render", flavors, checked),
    (".kad workload with n pod groups: check", pod_groups, checked),
    (".kad import chain: check", imports, lambda d: api.check([str(d / "f0.kad")]).exit_code),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    n = ap.parse_args().n
    print(f"{'shape':<50} {'n':>6} {'s':>7} {'10n':>6} {'s':>7} {'ratio':>6}  printed at 10n")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, run in CASES:
            small, large = Path(tmp) / name / "small", Path(tmp) / name / "large"
            make(small, n)
            make(large, 10 * n)
            run(small)  # warm up imports and caches
            t0 = time.perf_counter()
            run(small)
            t1 = time.perf_counter()
            out = run(large)
            t2 = time.perf_counter()
            printed = f"{out} chars" if isinstance(out, int) and out > 3 else f"exit {out}"
            print(f"{name:<50} {n:>6} {t1 - t0:>7.2f} {10 * n:>6} {t2 - t1:>7.2f} "
                  f"{(t2 - t1) / max(t1 - t0, 1e-3):>6.1f}  {printed}")


if __name__ == "__main__":
    main()
