"""Where the wall time of `kubectl kadmit why NS/JOB` goes until its first line, in one process: time marks
(wall since `T0`, the epoch seconds the shell took before starting Python, else this script's start; and the
process's CPU, every thread's, not its kubectl children's) at the live read's steps (the context, the proxy,
discovery, the plan, the objects written as the snapshot's text), the load, the decision, the explanation
and each stage `why` writes. The modules whose functions are timed are imported up front to wrap them, so
the overlap of the read with the command's imports (`cli_cluster.read_for`'s `meanwhile`) is not seen here:
bench/live_ab.py times the commands end to end. Run against a server holding live_gpu.py's state:

`T0=$(date +%s.%N) KUBECONFIG=DIR/kubeconfig PATH=DIR/bin:$PATH PYTHONPATH=src python bench/live_first_line.py
why team-04/train-01071 --fixes 0 > /dev/null`
"""

from __future__ import annotations

import os
import sys
import time

T0 = float(os.environ.get("T0") or time.time())


def mark(what: str) -> None:
    print(f"{time.time() - T0:7.3f} s  cpu {time.process_time():6.3f}  {what}", file=sys.stderr, flush=True)


def timed(owner, name: str, label: str) -> None:
    real = getattr(owner, name)

    def wrapper(*args, **kwargs):
        mark(f"{label} start")
        try:
            return real(*args, **kwargs)
        finally:
            mark(f"{label} end")
    setattr(owner, name, wrapper)


def main() -> None:
    mark("python started")
    import kadmit.__main__ as entry
    import kadmit.api as api
    import kadmit.engine.decide as decide
    import kadmit.live.proxy as proxy
    import kadmit.live.read as read
    import kadmit.render.why as why
    mark("imported")
    timed(read, "_origin", "the context (config view's answer read)")
    timed(proxy.Proxy, "start", "kubectl proxy started")
    timed(read, "_served", "discovery's answer read")
    timed(read, "plan", "plan")
    timed(read, "composed", "the snapshot's text and trees")
    timed(api, "read_cluster", "read")
    timed(api, "load_for_engine", "load")
    timed(decide, "decide_ordered", "decide")
    timed(decide, "explain_decision", "explain")
    stage = why.WhyStream.stage

    def staged(self, what, result, loaded):
        mark(f"stage {what}: its lines handed over")
        return stage(self, what, result, loaded)
    why.WhyStream.stage = staged
    sys.argv = ["kubectl-kadmit", *sys.argv[1:]]
    try:
        entry.kubectl_main()
    finally:
        mark("exit")


if __name__ == "__main__":
    main()
