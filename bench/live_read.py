"""Issue 19 item 5: reading the bundled example from a real API server (`--cluster`, `kadmit snapshot`).

Starts tools/kube-apiserver in a temporary folder (or uses a running one: `--dir DIR` of an earlier
`up DIR`), creates examples/ml-platform-kueue/ with kubectl as tests/kube/cluster_state.py does, then
prints, median of `--repeats` runs each:

- the live read (`kadmit.live.read.read`) as it runs — every kind one request through `kubectl proxy` — against
  one `kubectl get` per kind (the baseline of this run), BATCHES `kubectl get`s at once (where the proxy won't
  start) and one `get` of every kind: process CPU time of
  kadmit and of the kubectl processes it waits for (RUSAGE_CHILDREN), and wall time;
- `kadmit admit --cluster` end to end in a fresh process against `kadmit admit` on the files, and against
  `kadmit admit` on the snapshot file (the read's own cost is the difference).

The server's own CPU time is not counted (it is another process tree). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from kadmit.live import read as live  # noqa: E402
from kadmit.live import discover  # noqa: E402
from kadmit.live.kubectl import Kubectl  # noqa: E402
from kube import cluster_state  # noqa: E402
from kube.server import KubeAPIServer, start, stop  # noqa: E402

EXAMPLE = ROOT / "examples" / "ml-platform-kueue"


def children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(fn, repeats: int) -> tuple[float, float, float, object]:
    """Median (own CPU, children's CPU, wall) seconds of `fn()`, and its last result."""
    own, kids, wall, got = [], [], [], None
    for _ in range(repeats):
        c0, k0, w0 = time.process_time(), children(), time.monotonic()
        got = fn()
        own.append(time.process_time() - c0)
        kids.append(children() - k0)
        wall.append(time.monotonic() - w0)
    return statistics.median(own), statistics.median(kids), statistics.median(wall), got


def read_with(batches: int, proxy: bool = False):
    def go():
        live.BATCHES, live.PROXY = batches, proxy
        return live.read()
    return go


def cli(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "-m", "kadmit", *args], env=env, capture_output=True, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="a folder where tools/kube-apiserver/up already runs a server")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    owned = args.dir is None
    folder = Path(tempfile.mkdtemp(prefix="kadmit-live-bench-")) / "kube" if owned else args.dir
    if owned:
        print(f"starting tools/kube-apiserver in {folder} (about 90 s with the CRDs)...", flush=True)
        server = start(folder)
    else:
        env = dict(os.environ, KUBECONFIG=str(folder / "kubeconfig"), PATH=f"{folder / 'bin'}:{os.environ['PATH']}",
                   KUBECACHEDIR=str(folder / "cache"))
        server = KubeAPIServer(folder, folder / "kubeconfig", folder / "bin" / "kubectl", env)
    try:
        run(server, args.repeats)
    finally:
        if owned:
            stop(folder)


def run(server: KubeAPIServer, repeats: int) -> None:
    kube = Kubectl(str(server.kubectl), kubeconfig=str(server.kubeconfig))
    targets = discover.plan(discover.parse_api_resources(kube.run("api-resources", "-o", "wide", "--no-headers").out)
                            or []).targets
    cluster_state.clear(server, [(t.qualified, t.namespaced) for t in targets])
    cluster_state.load(server, EXAMPLE)
    os.environ.update(server.env)
    batches, proxy = live.BATCHES, live.PROXY
    rows = [(f"one `kubectl get` per kind ({len(targets)})", measure(read_with(1000), repeats)),
            (f"{batches} batches of `kubectl get`", measure(read_with(batches), repeats)),
            ("one `kubectl get` of every kind", measure(read_with(1), repeats)),
            ("`kubectl proxy` (kadmit's way)", measure(read_with(batches, True), repeats))]
    live.BATCHES, live.PROXY = batches, proxy
    snap = rows[3][1][3]
    base = rows[0][1]
    print(f"\nlive read of examples/ml-platform-kueue ({snap.objects} objects, {len(snap.text):,} bytes of YAML), "
          f"median of {repeats}:")
    print(f"{'':40} {'kadmit CPU':>11} {'kubectl CPU':>12} {'total CPU':>10} {'vs per kind':>12} {'wall':>8}")
    for name, (own, kids, wall, _) in rows:
        print(f"{name:40} {own:10.3f}s {kids:11.3f}s {own + kids:9.3f}s {(own + kids) / (base[0] + base[1]):11.2f}x "
              f"{wall:7.2f}s")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.yaml"
        path.write_text(snap.text, encoding="utf-8")
        env = dict(server.env, PYTHONPATH=str(ROOT / "src"))
        files = measure(lambda: cli(env, "admit", str(EXAMPLE)), repeats)
        cluster = measure(lambda: cli(env, "admit", "--cluster"), repeats)
        replayed = measure(lambda: cli(env, "admit", str(path)), repeats)
    print("\n`kadmit admit` end to end, a fresh process each (CPU of kadmit and everything it runs):")
    for name, (own, kids, wall, _) in (("on the files (baseline)", files), ("--cluster", cluster),
                                       ("on the snapshot file", replayed)):
        print(f"{name:40} {own + kids:9.3f}s CPU {(own + kids) / (files[0] + files[1]):6.2f}x {wall:7.2f}s wall")


if __name__ == "__main__":
    main()
