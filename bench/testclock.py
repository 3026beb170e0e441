"""The test suite's cost per test and per file, as CPU seconds, which a loaded machine does not distort as it does
wall time (on this shared machine a run's wall time was 10 times its CPU time).

As a pytest plugin (bench/ is on pytest's pythonpath), each test's setup, call and teardown are measured together:
wall seconds, the worker's own CPU seconds (user + system, all threads) and its waited-for children's (the
oracle, kubectl, a `python -m kadmit`, Chromium: what `subprocess.run` waits for; not a server left running,
such as tests/kube's API server), one JSON line per test to OUT.<worker> (OUT.main without pytest-xdist):

    KADMIT_TESTCLOCK=/tmp/clock .venv/bin/python -m pytest -q -n 2 -p testclock

Run as a script, it sums such files per test file, most costly first, and simulates tests/conftest.py's
schedule (tests/kube/ on one worker, then the files longest first, each to the first free worker) on those costs:

    .venv/bin/python bench/testclock.py /tmp/clock.gw0 /tmp/clock.gw1 [--tests N] [--files N]
"""

from __future__ import annotations

import json
import os
import resource
import time

import pytest

_out = None


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _out
    if _out is None:
        _out = open(os.environ["KADMIT_TESTCLOCK"] + "." + os.environ.get("PYTEST_XDIST_WORKER", "main"), "a")
    wall, (own, children) = time.perf_counter(), _cpu()
    yield
    now, (own2, children2) = time.perf_counter(), _cpu()
    _out.write(json.dumps([item.nodeid, round(now - wall, 3), round(own2 - own, 3), round(children2 - children, 3),
                           round(wall, 3)]) + "\n")
    _out.flush()


def main() -> None:
    import argparse
    from collections import defaultdict

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tests", type=int, default=30, help="the N most costly tests (default 30)")
    ap.add_argument("--files", dest="top", type=int, default=60, help="the N most costly files (default 60)")
    args = ap.parse_args()
    rows = [json.loads(line) for name in args.files for line in open(name)]
    per_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    for nodeid, wall, own, children, _ in rows:
        f = per_file[nodeid.split("::", 1)[0]]
        f[0] += wall
        f[1] += own
        f[2] += children
        f[3] += 1
    total = [sum(f[i] for f in per_file.values()) for i in range(4)]
    print(f"{total[3]} tests: wall {total[0]:.0f} s, CPU {total[1]:.0f} s own + {total[2]:.0f} s children")
    print(f"{'CPU':>7} {'own':>7} {'child':>7} {'wall':>7} {'tests':>5}  file")
    cost = {name: f[1] + f[2] for name, f in per_file.items()}
    for name in sorted(cost, key=lambda n: -cost[n])[:args.top]:
        f = per_file[name]
        print(f"{cost[name]:7.1f} {f[1]:7.1f} {f[2]:7.1f} {f[0]:7.1f} {f[3]:5d}  {name}")
    print(f"\n{'CPU':>7} {'own':>7} {'child':>7} {'wall':>7}  test")
    for nodeid, wall, own, children, _ in sorted(rows, key=lambda r: -(r[2] + r[3]))[:args.tests]:
        print(f"{own + children:7.1f} {own:7.1f} {children:7.1f} {wall:7.1f}  {nodeid}")
    kube = sum(c for name, c in cost.items() if name.startswith("tests/kube/"))
    workers = [kube, 0.0]
    for name in sorted((n for n in cost if not n.startswith("tests/kube/")), key=lambda n: -cost[n]):
        workers[workers.index(min(workers))] += cost[name]
    print(f"\nschedule on these CPU costs (collection and servers not counted): tests/kube {kube:.0f} s, "
          f"workers end at {workers[0]:.0f} s and {workers[1]:.0f} s")


if __name__ == "__main__":
    main()
