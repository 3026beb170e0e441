"""Issue 19, item 4: which fixes `kadmit why` offers first, as a user runs it (a fresh process, JSON,
every fix proven listed: `--fixes 50`), on gpu_state(2000)'s six keys and on every workload the
bundled examples leave pending.

Per workload: every fix proven in the order `why` offers them — who acts, its harmful and all side
effects, the largest factor by which it changes a number (`×46`; `-` for a change that is no
number) and the queues whose quota it changes (`own` for the workload's own ClusterQueue) — the
first one marked. `--src DIR` runs another checkout's kadmit (e.g. `git archive main src | tar -x -C
DIR`) for the baseline: each workload's list from both, one after the other. Nothing here asserts.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_rank.py [--state DIR] [--baseline DIR] [--keys K,K]`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [ROOT / "examples" / "ml-platform", ROOT / "examples" / "ml-platform-kueue"]
GPU_KEYS = ["team-00/train-00930", "team-05/train-00300", "team-05/train-00907", "team-09/train-00289",
            "team-04/train-01071", "team-03/job-run-00116-9499b"]


def kadmit(src: Path, *args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "kadmit", *args, "--format", "json"], capture_output=True, text=True,
                       cwd=ROOT, env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"})
    return json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}


def pending(src: Path, path: Path) -> list[str]:
    return sorted(d["workload"] for d in kadmit(src, "admit", str(path)).get("decisions", []) if not d["admitted"])


def factor(c: dict) -> float | None:
    """How many times the number grows or shrinks (>= 1), None when it is no number."""
    try:
        old, new = (float(str(x).strip("\"'").rstrip("Gi")) for x in (c["old"], c["new"]))
    except ValueError:
        return None
    if old <= 0 or new <= 0:
        return None
    return max(new / old, old / new)


def line(i: int, fix: dict, own: str) -> str:
    harm = sum(1 for e in fix["effects"] if e["kind"] in HARMFUL)
    changed = sum(1 for e in fix["effects"] if e["kind"] != "evicted by another preemptor")
    sizes = [f for f in (factor(c) for c in fix["changes"]) if f is not None]
    queues = sorted({c["subject"].split("`")[1] for c in fix["changes"]
                     if c["subject"].startswith(("ClusterQueue", "Cohort", "cluster_queue", "cohort"))})
    whose = ",".join("own" if q == own else q for q in queues) or "-"
    size = f"×{max(sizes):.1f}" if sizes else "-"
    what = "; ".join(f"{c['field'].rsplit('.', 1)[-1]} {c['old']} → {c['new']}" for c in fix["changes"][:2])
    what = " ".join(what.split())
    what = (what[:77] + "…" if len(what) > 78 else what) + (f" (+{len(fix['changes']) - 2})" if len(fix["changes"]) > 2 else "")
    return f"  {'*' if i == 1 else ' '}{i}. {fix['by']:<8} harm {harm:>3} changed {changed:>4} {size:<7} {whose:<9} {what}"


HARMFUL = ("admitted → evicted", "admitted → pending", "pending → admitted, then evicted", "with fewer pods",
           "evicted, then admitted again", "changed", "undecided")


def report(src: Path, path: Path, key: str, label: str) -> None:
    got = kadmit(src, "why", key, str(path), "--fixes", "50")
    fixes = got.get("fixes", [])
    own = got.get("cluster_queue") or (got.get("decision") or {}).get("cluster_queue") or ""
    print(f"{key} [{label}]: {len(fixes)} fixes")
    for i, f in enumerate(fixes, 1):
        print(line(i, f, own))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--state", type=Path, default=Path("/tmp/g2000"), help="gpu_state(2000) written by gpu_states.py")
    ap.add_argument("--baseline", type=Path, help="another checkout's src/ for the before")
    ap.add_argument("--keys", help="only these gpu_state keys (comma-separated); '' for none")
    ap.add_argument("--no-examples", action="store_true")
    args = ap.parse_args()
    runs = [(ROOT / "src", "after" if args.baseline else "this")]
    if args.baseline:
        runs.insert(0, (args.baseline, "before"))
    keys = GPU_KEYS if args.keys is None else [k for k in args.keys.split(",") if k]
    jobs = [(args.state, k) for k in keys]
    if not args.no_examples:
        jobs += [(ex, k) for ex in EXAMPLES for k in pending(ROOT / "src", ex)]
    for path, key in jobs:
        print(f"== {path.name}")
        for src, label in runs:
            report(src, path, key, label)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
