"""`why` on a pipe (a kubectl plugin's output is often piped or captured): its first lines (the decision,
what the workload needs and can reach, its place in line) reach the reader before the fixes are proven,
and what the pipe gets in all is the answer as `why_human` renders it, byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from kadmit import api
from kadmit.render.why import why_human

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = """\
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
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 40}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""
WORKLOAD = """\
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {{name: w{i:04d}, namespace: default, creationTimestamp: "2026-01-01T{h:02d}:{m:02d}:00Z"}}
spec:
  queueName: q
  podSets: [{{name: main, count: {n}, template: {{spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "1"}}}}}}]}}}}}}]
"""


def test_why_on_a_pipe_writes_its_first_lines_before_the_fixes_and_the_same_answer_in_all(tmp_path: Path) -> None:
    # 400 workloads in one queue: every fix is proven by deciding them all again, which takes a while
    path = tmp_path / "queue.yaml"
    path.write_text(CLUSTER + "".join(WORKLOAD.format(i=i, h=i // 60, m=i % 60, n=1 + i % 3) for i in range(400)))
    key = "default/w0399"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    p = subprocess.Popen([sys.executable, "-m", "kadmit", "why", key, str(path), "--color", "never"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert p.stdout is not None and p.stderr is not None
    chunks: list[tuple[float, bytes]] = []
    while data := os.read(p.stdout.fileno(), 65536):
        chunks.append((time.monotonic(), data))
    ended = time.monotonic()
    err = p.stderr.read().decode()
    assert p.wait(timeout=300) == 1, err
    assert err == ""  # no progress on a pipe
    first = chunks[0][1].decode()
    assert first.startswith(f"error[KAD501]: workload `{key}` can't be admitted\n")
    assert "fixes by " not in first  # written before any fix was proven, not with the whole answer
    assert len(chunks) >= 2 and ended > chunks[0][0]
    out = api.why(key, [str(path)])  # not streamed: the whole answer at once
    model = out.loaded.workspace.model
    wl = next(w for w in model.workloads if w.key == out.result.workload)
    whole = b"".join(d for _, d in chunks).decode()
    assert "fixes by " in whole
    assert whole == why_human(out.result, out.loaded.sources, wl.span, wl, model.skipped, width=100)  # $COLUMNS
