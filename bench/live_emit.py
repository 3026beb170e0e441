"""The snapshot emitter's cost (`live.snapshot.composed`: the listings written as the snapshot's YAML with their
trees), on what a running server holds (bench/live_gpu.py's state: `--dir` of its `up DIR`): the cluster is read
once, then its listings are composed `--repeats` times with the cyclic garbage collector running and paused
(`collector.paused_gc`, as `live.read` composes them), process CPU (`time.process_time`), best of the repeats;
the texts must be the same byte for byte. Nothing is asserted.

`PYTHONPATH=src:bench:tests python bench/live_emit.py --dir KUBE_DIR [--repeats 5]`
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "bench")]

import live_gpu  # noqa: E402

from kadmit.collector import paused_gc  # noqa: E402
from kadmit.live import read as live  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="a folder where tools/kube-apiserver/up runs a server")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    server, _, _ = live_gpu.server_for(args.dir)
    os.environ.update({k: server.env[k] for k in ("KUBECONFIG", "PATH", "KUBECACHEDIR")})
    taken: list[tuple] = []
    composed = live.composed

    def keep(*given):
        taken.append(given)
        return composed(*given)
    live.composed = keep
    try:
        snap = live.read()
    finally:
        live.composed = composed
    assert taken and snap.text is not None, [d.message for d in snap.diagnostics]
    given = taken[0]
    print(f"{snap.objects:,} objects, {len(snap.text):,} characters of YAML")
    digests = set()
    for how in ("collector running", "collector paused"):
        best = float("inf")
        for _ in range(args.repeats):
            started = time.process_time()
            if how == "collector paused":
                with paused_gc():
                    text, _ = composed(*given)
            else:
                text, _ = composed(*given)
            best = min(best, time.process_time() - started)
            digests.add(hashlib.sha256(text.encode()).hexdigest())
        print(f"  composed, {how}: {best:.3f} s CPU (best of {args.repeats})")
    print(f"  the same text every time: {len(digests) == 1}")


if __name__ == "__main__":
    main()
