"""Two versions of kadmit's live read, alternating in one run on the same server state (bench/live_gpu.py's,
`--no-load`): `kadmit snapshot -o FILE`, `kadmit admit --format json --cluster` (median of `--repeats`) and
`kubectl kadmit why NS/JOB [--fixes N]` (once each; time to the first line on stdout, and whether the two texts
are the same), fresh processes with `PYTHONPATH` set to each version's `src` (e.g. `git archive COMMIT src | tar -x -C
DIR`). CPU is kadmit's and its kubectl children's (RUSAGE_CHILDREN), not the server's. Nothing is asserted.

`PYTHONPATH=src:bench:tests python bench/live_ab.py --dir KUBE_DIR --before DIR/src --after src`
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import live_gpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="a folder where tools/kube-apiserver/up runs a server "
                                                                "holding bench/live_gpu.py's state")
    parser.add_argument("--before", required=True, help="the `src` folder of the version before")
    parser.add_argument("--after", required=True, help="the `src` folder of the version after")
    parser.add_argument("--keys", default="team-00/train-00930,team-09/train-00289")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--fixes", type=int, default=None, help="`why --fixes N` (default: why's own, 3); the first "
                                                                    "line comes before any fix is proven")
    args = parser.parse_args()
    server, _, _ = live_gpu.server_for(args.dir)
    kadmit = [sys.executable, "-m", "kadmit"]
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = Path(tmp) / "plugin-bin"
        bin_dir.mkdir()
        (bin_dir / "kubectl-kadmit").symlink_to(Path(sys.executable).parent / "kubectl-kadmit")
        times: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        texts: dict[tuple[str, str], str] = {}
        for rep in range(args.repeats):
            for label, src in (("before", args.before), ("after", args.after)):
                env = {**server.env, "PATH": f"{bin_dir}:{server.env['PATH']}", "PYTHONPATH": str(Path(src).resolve()),
                       "NO_COLOR": "1", "COLUMNS": "100"}
                cmds = [("snapshot", [*kadmit, "snapshot", "-o", str(Path(tmp) / "snapshot.yaml")]),
                        ("admit --cluster", [*kadmit, "admit", "--format", "json", "--cluster"])]
                if rep == 0 or args.fixes is not None:  # with --fixes, every repeat (a short `why`)
                    fixes = [] if args.fixes is None else ["--fixes", str(args.fixes)]
                    cmds += [(f"why {k}", [str(server.kubectl), "kadmit", "why", k, *fixes])
                             for k in args.keys.split(",") if k]
                for name, cmd in cmds:
                    r = live_gpu.timed(cmd, env)
                    times.setdefault((name, label), []).append((r["cpu"], r["wall"], r["first"] or 0.0))
                    texts[name, label] = r["out"]
                    print(f"{label:7} {name:32} exit {r['rc']} {r['cpu']:7.2f} s CPU {r['wall']:7.2f} s wall, first line "
                          f"{r['first'] or 0:7.2f} s{r['err'] and '  stderr: ' + r['err'].splitlines()[0]}", flush=True)
    print(f"\nmedians ({args.repeats} runs; why: {args.repeats if args.fixes is not None else 1}):")
    for (name, label), got in sorted(times.items()):
        cpu, wall, first = (statistics.median(x[i] for x in got) for i in range(3))
        print(f"  {name:32} {label:7} {cpu:7.2f} s CPU {wall:7.2f} s wall, first line {first:7.2f} s")
    for name in sorted({n for n, _ in texts if n.startswith("why ")}):
        same = texts[name, "before"] == texts[name, "after"]
        print(f"  {name}: {'the same text' if same else 'NOT the same text'} before and after")


if __name__ == "__main__":
    main()
