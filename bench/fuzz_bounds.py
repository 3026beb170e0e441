"""What a user can type that would make kadmit run away, each against its bound (docs/LIMITS.md): per
shape, the command in a fresh process, its exit code, CPU time (user + system), peak memory and the
first error line.

Shapes: Deployments of 100,000 replicas each, past the 200,000 Workloads the inputs may make together;
two Lists of small ConfigMaps, past the 500,000 objects; files past the inputs' bytes together (at
`--max-file-size 1048576`: 4 MiB); `simulate` on the bundled example with a trace of one-pod arrivals
ten seconds apart whose backlog grows (1,000, 3,000 and 10,000 rows; the last past the 20,000,000
work budget).

    nice -n 10 .venv/bin/python bench/fuzz_bounds.py            # ~5 min of CPU
    nice -n 10 .venv/bin/python bench/fuzz_bounds.py --only trace
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 9}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: lq}
spec: {clusterQueue: cq}
"""


def deployments(d: Path, n: int = 3) -> list[str]:
    d.mkdir()
    (d / "setup.yaml").write_text(SETUP)
    (d / "deps.yaml").write_text("".join(
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{i}, namespace: default, labels: "
        "{kueue.x-k8s.io/queue-name: lq}}\nspec:\n  replicas: 100000\n  template:\n    spec:\n"
        "      containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n" for i in range(n)))
    return ["admit", str(d)]


def objects(d: Path, per_file: int = 300_000) -> list[str]:
    d.mkdir()
    for f in range(2):
        items = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{f}-{i}"}} for i in range(per_file)]
        (d / f"list{f}.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items},
                                                    separators=(",", ":")))
    return ["check", str(d)]


def many_bytes(d: Path) -> list[str]:
    d.mkdir()
    for f in range(5):
        (d / f"f{f}.yaml").write_text(f"# {'x' * 1_000_000}\napiVersion: kueue.x-k8s.io/v1beta1\n"
                                      f"kind: ResourceFlavor\nmetadata: {{name: f{f}}}\n")
    return ["check", str(d), "--max-file-size", "1048576"]


def trace(d: Path, rows: int) -> list[str]:
    d.mkdir()
    lines = ["time,namespace,name,queue,priority,pods,duration,cpu,memory,nvidia.com/gpu,tolerations"]
    lines += [f"{i * 10},team-nlp,j{i},training,research,1,1h,1,1Gi,0," for i in range(rows)]
    (d / "trace.csv").write_text("\n".join(lines) + "\n")
    return ["simulate", str(ROOT / "examples" / "ml-platform"), "--trace", str(d / "trace.csv"), "--format", "json"]


SHAPES = {
    "deployments": deployments, "objects": objects, "bytes": many_bytes,
    "trace-1000": lambda d: trace(d, 1000), "trace-3000": lambda d: trace(d, 3000),
    "trace-10000": lambda d: trace(d, 10_000),
}


def count_work(args: list[str]) -> None:
    """`kadmit simulate ARGS` in this process, then the replay's work on stderr (`Simulator.work`:
    pending workloads decided, summed over its decisions; kept out of simulate's own output)."""
    import kadmit.simulate.results as results
    from kadmit.cli import cli

    plain = results.results

    def counted(sim):
        print(f"work {sim.work}", file=sys.stderr)
        return plain(sim)
    results.results = counted
    cli(args, prog_name="kadmit")


def run(args: list[str]) -> tuple[int, float, float, float, str, str]:
    """exit code, CPU seconds, peak MiB, wall seconds, the first error line (a simulation: its work),
    stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="100")
    start = time.monotonic()
    cmd = [sys.executable, __file__, "--count-work", *args] if args[0] == "simulate" else \
        [sys.executable, "-m", "kadmit", *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        err.seek(0)
        out.seek(0)
        text = err.read().decode(errors="replace")
        stdout = out.read().decode(errors="replace")
    first = next((line for line in (stdout + "\n" + text).splitlines() if line.startswith("error")), "")
    work = next((line for line in text.splitlines() if line.startswith("work ")), "")
    first = f"{work}; {first}" if work else first
    return (os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall,
            first, stdout)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--count-work"]:
        count_work(argv[1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="shapes whose name holds this text")
    args = ap.parse_args(argv)
    print(f"{'shape':12} {'exit':>4} {'CPU s':>7} {'peak MiB':>8} {'wall s':>7}  work of a replay; first error")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in SHAPES.items():
            if args.only not in name:
                continue
            cmd = make(Path(tmp) / name)
            code, cpu, mib, wall, first, _ = run(cmd)
            print(f"{name:12} {code:>4} {cpu:7.1f} {mib:8.0f} {wall:7.1f}  {first[:150]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
