"""Issue 19, item 4: which fixes `kadmit why` offers first, as a user runs it (a fresh process, JSON,
every fix proven listed: `--fixes 50`), on gpu_state(2000)'s six keys and on every workload the
bundled examples leave pending.

Per workload: every fix proven in the order `why` offers them — who acts, its harmful and all side
effects, the largest factor by which it changes a number (`×46`; `-` for a change that is no
number) and the queues whose quota it changes (`own` for the workload's own ClusterQueue) — the
first one marked. `--src DIR` runs another checkout's kadmit (e.g. `git archive main src | tar -x -C
DIR`) for the baseline: each workload's list from both, one after the other.
`--generated N --seed S`: instead, over N clusters drawn as the oracle soak draws them
(tests/oracle/strategies.py), `why` (in process) for at most two pending workloads each, the fixes
proven put in the order `why` offered them before f2921d9 (`_before_rank`: fewest harmful, then all
side effects, then the sum of relative changes) and in today's: every workload whose first fix differs,
with today's list, and the counts. Nothing here asserts.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_rank.py [--state DIR] [--baseline DIR] [--keys K,K]`
or `... bench/why_rank.py --generated 250 --seed 11`.
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


def _before_rank(found: list) -> list:
    """The order of f2921d9's parent (`proposals.ordered` then `choose`'s grouping by who acts)."""
    def size(c) -> float:
        k = c.knob
        return abs(c.new - k.value) / abs(k.value) if isinstance(k.value, int) and isinstance(c.new, int) and k.value else 1.0

    policy = [(p.harm, len(p.changed)) for p in found if p.actor == "platform"]

    def demoted(p) -> bool:
        return p.kept < 0.5 and any(h <= p.harm and n <= len(p.changed) for h, n in policy)
    old = sorted(found, key=lambda p: (p.harm, len(p.changed), demoted(p), sum(size(c) for c in p.changes),
                                       len(p.changes), [c.describe() for c in p.changes]))
    actors = list(dict.fromkeys(p.actor for p in old))
    return [p for a in actors for p in old if p.actor == a]


def _short(p) -> str:
    what = " & ".join(f"{c.knob.kind} {c.knob.subject} {c.knob.value} → {c.new}" for c in p.changes)
    return f"{p.actor}: {what} [harmful {p.harm}, changed {len(p.changed)}]"


def generated(n: int, seed_: int) -> None:
    import tempfile

    sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]
    from hypothesis import HealthCheck, Phase, given, seed, settings
    from oracle.strategies import ALL, clusters

    from kadmit import api
    counts = {"clusters": 0, "whys with a fix": 0, "with two or more": 0, "first differs": 0}
    work = Path(tempfile.mkdtemp(prefix="why-rank-"))

    @seed(seed_)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(clusters(frozenset(ALL - {"fair_sharing_no_cohort"})))
    def draw(cluster):
        i = counts["clusters"] = counts["clusters"] + 1
        path = work / f"c{i:04d}.yaml"
        path.write_text(cluster.text())
        got = api.admit([str(path)])
        if got.exit_code not in (0, 1) or got.result is None:
            return
        for key in [d.key for d in got.result.decisions if not d.admitted][:2]:
            r = api.why(key, [str(path)], fixes=50).result
            if r is None or not r.fixes:
                continue
            counts["whys with a fix"] += 1
            if len(r.fixes) < 2:
                continue
            counts["with two or more"] += 1
            before = _before_rank(list(r.fixes))
            if before[0] is not r.fixes[0]:
                counts["first differs"] += 1
                print(f"== {path.name} {key}\n  before: {_short(before[0])}")
                for p in r.fixes:
                    print(f"   - {_short(p)}")
                sys.stdout.flush()
    draw()
    print(counts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--state", type=Path, default=Path("/tmp/g2000"), help="gpu_state(2000) written by gpu_states.py")
    ap.add_argument("--baseline", type=Path, help="another checkout's src/ for the before")
    ap.add_argument("--keys", help="only these gpu_state keys (comma-separated); '' for none")
    ap.add_argument("--no-examples", action="store_true")
    ap.add_argument("--generated", type=int, help="clusters drawn as the oracle soak does, instead")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    if args.generated:
        generated(args.generated, args.seed)
        return 0
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
