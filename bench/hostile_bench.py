"""Issue 11 item 5: hostile and large inputs, each at n and 10n in the same run, with the time ratio
(linear work ~10x, quadratic ~100x) and the size of what `check` prints.

Shapes: a cohort chain (check, admit, why), a one-line JSON List of unused flavors (check, human
output), a `.kad` workload with many pod groups (check), a chain of `.kad` imports (check).
Run: `.venv/bin/python bench/hostile_bench.py` (n = 200) or `--n 100`.

Issue 20 item 3, `--files`: every mutation of every kind of file `simulate`, `why --with-capacity`
and `test` read besides policy and state (tests/robustness/hostile_files.py: NodePools, sweep
files, CSV and JSON Lines traces, `--add-nodes` capacity files, `*.kadtest.yaml`), run through the
CLI: per kind and mutation class, how many ended in each exit code, the KAD codes that reported
them, and every run with a problem (exit 70, an exception's name or repr, a failure without a KAD
code at a line). `--files --all` prints one row per mutation instead; `--kind K` (repeatable) runs
only kind K.
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


CHUNK = 100  # mutations per child process (a long run of distinct inputs grows a process's native memory)


def chunk(kind: str, start: int, end: int) -> None:
    """Run mutations [start, end) of `kind`; one JSON line each (for `files`, in a child process)."""
    import json

    from robustness import hostile_files as H

    for what, make in H.mutations(kind)[start:end]:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.process_time()
            code, out = H.run(Path(tmp), kind, make())
        print(json.dumps({"what": what, "exit": code, "first": H.first_code(out), "problems": H.problems(code, out),
                          "cpu": time.process_time() - t0}), flush=True)


def files(every: bool, kinds: list[str] | None = None) -> None:
    """The hostile-file corpus: exit codes per kind and mutation class (or per mutation); `kinds`: only these."""
    import json
    import re
    import subprocess
    from collections import Counter, defaultdict

    from robustness import hostile_files as H

    problems = []
    for kind in kinds or H.KINDS:
        classes: dict[str, Counter] = defaultdict(Counter)
        codes: dict[str, Counter] = defaultdict(Counter)
        total, cpu = len(H.mutations(kind)), 0.0
        for start in range(0, total, CHUNK):
            got = subprocess.run([sys.executable, __file__, "--chunk", kind, str(start), str(start + CHUNK)],
                                 capture_output=True, text=True, check=True).stdout
            for row in map(json.loads, got.splitlines()):
                what, code, first, bad = row["what"], row["exit"], row["first"], row["problems"]
                cpu += row["cpu"]
                if bad:
                    problems.append((kind, what, code, bad))
                if every:
                    print(f"{kind:<13} {what[:90]:<90} exit {code}  {first}"
                          + (f"  PROBLEM: {'; '.join(bad)}" if bad else ""))
                    continue
                cls = re.sub(r"^.* = ", "any value = ", what) if " = " in what else (
                    "any field removed" if what.endswith(" removed") else what)
                classes[cls][code] += 1
                codes[cls][first] += 1
        if not every:
            print(f"\n{kind} ({total} mutations, {cpu:.1f} s CPU)")
            for cls in classes:
                exits = ", ".join(f"exit {c}: {n}" for c, n in sorted(classes[cls].items()))
                shown = ", ".join(c for c, _ in codes[cls].most_common(4))
                print(f"  {cls[:60]:<60} {exits:<34} {shown}")
    print(f"\n{len(problems)} run(s) with a problem")
    for kind, what, code, bad in problems:
        print(f"  {kind}: {what[:80]}: exit {code}: {'; '.join(bad)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--files", action="store_true", help="the hostile-file corpus (issue 20 item 3) instead")
    ap.add_argument("--all", action="store_true", help="with --files: one row per mutation")
    ap.add_argument("--kind", action="append", help="with --files: only this kind (repeatable)")
    ap.add_argument("--chunk", nargs=3, metavar=("KIND", "START", "END"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.chunk:
        chunk(args.chunk[0], int(args.chunk[1]), int(args.chunk[2]))
        return
    if args.files:
        from robustness.hostile_files import KINDS
        for kind in args.kind or []:
            if kind not in KINDS:
                ap.error(f"no kind {kind!r}; the kinds: {', '.join(KINDS)}")
        files(args.all, args.kind)
        return
    n = args.n
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
