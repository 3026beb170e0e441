"""The re-decisions of one `why` on gpu_state(N) (bench/gpu_states.py), timed again and counted.

`api.why(KEY, [STATE], budget=B)` runs once with `replay.decide_again` wrapped to keep its arguments;
those re-decisions then run `--rounds` more times in this process (so with the compiled shapes and
Z3's answers kept: the preemption search and the scheduling loop weigh more than in a fresh why),
printing the process CPU of each round; and, from one more round run first (not timed), counts that do
not depend on the machine's load: nominations computed (not shared by `situations`), the preemption
oracle's searches computed (not kept), searches in all (the oracle's and victims'), and a digest of
every decision of every re-decision (equal digests: equal decisions). Run it with `PYTHONPATH=OTHER/src:bench`
for another tree (the before of a change), alternately, on a noisy machine.
Run: `PYTHONPATH=src:bench .venv/bin/python bench/why_redecisions.py team-05/train-00907 --budget 8`
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

import gpu_states

import kadmit
from kadmit import api
from kadmit.engine.admission import session as session_module
from kadmit.engine.explain import prove, replay
from kadmit.engine.preemption import search as search_module


def summary(rep) -> list:
    """Every decision of a re-decision, as plain values."""
    out = []
    for key, d in sorted(rep.decisions.items()):
        a = d.assignment
        out.append((key, d.admitted, d.cluster_queue, d.cycle, d.waiting_behind, d.preempted_by,
                    d.preemption_reason, tuple((v.key, v.reason) for v in d.preempted), d.unknown,
                    None if a is None else (sorted(a.counts.items()), sorted((p, sorted(f.items()))
                                                                            for p, f in a.flavors.items()),
                                            sorted(a.usage.items()), a.mode, a.height,
                                            tuple(t.key for t in a.targets))))
    return out


def counted(counts: Counter):
    """Wrap the nomination, the oracle's search and the search itself to count their calls."""
    nominate, oracle, search = session_module.nominate, search_module._oracle, search_module.search

    def nominate_counted(*a, **k):
        counts["nominations computed"] += 1
        return nominate(*a, **k)

    def oracle_counted(*a, **k):
        counts["oracle searches computed"] += 1
        return oracle(*a, **k)

    def search_counted(*a, **k):
        counts["searches (oracle and victims)"] += 1
        return search(*a, **k)
    session_module.nominate, search_module._oracle, search_module.search = \
        nominate_counted, oracle_counted, search_counted
    return lambda: (setattr(session_module, "nominate", nominate), setattr(search_module, "_oracle", oracle),
                    setattr(search_module, "search", search))


def recorded_redecisions(key: str, root: str, budget: int) -> tuple[list[tuple[tuple, dict]], float]:
    """`api.why(key, [root], budget=budget)` with `replay.decide_again` wrapped to keep the arguments of
    each re-decision it asks for; those calls and the why's process CPU seconds."""
    calls: list[tuple[tuple, dict]] = []
    decide_again = replay.decide_again

    def keep(*a, **k):
        calls.append((a, k))
        return decide_again(*a, **k)
    prove.decide_again = keep
    try:
        t0 = time.process_time()
        api.why(key, [root], budget=budget)
        return calls, time.process_time() - t0
    finally:
        prove.decide_again = decide_again


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("key")
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--budget", type=int, default=8)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kadmit-why-redecisions-") as d:
        gpu_states.write_state(gpu_states.gpu_state(args.jobs, 0), Path(d))
        calls, first = recorded_redecisions(args.key, d, args.budget)
        decide_again = replay.decide_again
        counts: Counter = Counter()
        restore = counted(counts)
        try:
            digest = hashlib.sha256(repr([summary(decide_again(*a, **k)) for a, k in calls]).encode())
        finally:
            restore()
        rounds = []
        for _ in range(args.rounds):
            t0 = time.process_time()
            for a, k in calls:
                decide_again(*a, **k)
            rounds.append(round(time.process_time() - t0, 2))
    print(json.dumps({"tree": str(Path(kadmit.__file__).parents[2]), "key": args.key, "why_s": round(first, 2),
                      "redecisions": len(calls), "rounds_s": rounds, **counts,
                      "digest": digest.hexdigest()[:16]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
