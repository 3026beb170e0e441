"""`kadmit test`: 100 generated policy tests over the bundled example (issue 12: aim under 5 s).

The tests vary what real suites vary: extra workloads of several sizes in every queue, removed nodes
and admitted workloads, changed quotas, and expectations on the new and the existing workloads. The
baseline, in the same run, decides each test's state from scratch (load + validate + admit per test,
as a script calling `kadmit admit` per case would).
Run: `.venv/bin/python bench/policy_tests_bench.py [--tests N]`.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from pathlib import Path

from kadmit import api
from kadmit import workspace as ws
from kadmit.engine.decide import admit

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ml-platform"
QUEUES = [("team-vision", "training", "vision"), ("team-nlp", "training", "nlp"), ("team-infra", "batch", "infra")]
REMOVABLE = ["node h100-r1-0", "node a100-r3-0", "node spot-r4-0", "workload team-infra/etl-nightly",
             "workload team-nlp/bert-finetune", "workload team-vision/resnet-sweep"]


def generate(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    lines = ["tests:"]
    for i in range(n):
        ns, queue, _ = rng.choice(QUEUES)
        gpus = rng.choice([0, 1, 2, 8])
        count = rng.choice([1, 2, 4])
        prio = rng.choice(["research", "scavenger", "production"]) if ns != "team-infra" else "scavenger"
        req = f"cpu = {rng.choice([1, 2, 4])}, memory = {rng.choice([4, 16])}Gi" + (
            f", nvidia.com/gpu = {gpus}" if gpus and ns != "team-infra" else "")
        lines += [f"  - name: generated test {i}", "    given:"]
        kind = i % 4
        if kind != 3:
            lines += ["      add: |",
                      f"        workload {ns}/gen-{i} {{",
                      f"          queue    = {queue}",
                      f"          priority = {prio}",
                      f'          created  = "2026-11-20T1{rng.randint(0, 9)}:00:00Z"',
                      "          pod_group main {",
                      f"            count       = {count}",
                      f"            requests    = {{ {req} }}",
                      '            tolerations = ["nvidia.com/gpu:NoSchedule"]',
                      "          }",
                      "        }"]
        if kind in (1, 3):
            lines.append(f"      remove: [{rng.choice(REMOVABLE)}]")
        if kind == 2:
            lines += ["      add_manifests: |", "        apiVersion: v1", "        kind: Node", "        metadata:",
                      f"          name: extra-{i}", "          labels: {capacity: spot}", "        spec:",
                      "          taints: [{key: cloud.example.com/spot, value: 'true', effect: NoSchedule}]",
                      "        status:", "          allocatable: {cpu: '32', memory: 128Gi, pods: '110'}",
                      "          conditions: [{type: Ready, status: 'True'}]"]
        lines.append("    expect:")
        if kind != 3:
            lines.append(f"      {ns}/gen-{i}: {rng.choice(['admitted', 'not_admitted'])}")
        lines.append(f"      team-nlp/shared-vision: {{not_admitted: {{reason: KAD515}}}}")
        if i % 10 == 0:
            lines.append("      team-vision/llm-pretrain: never_admissible")
    return "\n".join(lines) + "\n"


def passing(text: str, outcome) -> str:
    """The suite with each failing workload expectation flipped to what kadmit decided."""
    lines = text.splitlines()
    for r in outcome.results:
        for f in r.failures:
            i = f.line - 1
            want = "not_admitted" if f.expected == "admitted" else "admitted"
            if lines[i].rstrip().endswith((": admitted", ": not_admitted")):
                lines[i] = lines[i].rsplit(":", 1)[0] + ": " + want
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ml-platform"
        shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("*.kadtest.yaml"))
        suite = folder / "bench.kadtest.yaml"
        suite.write_text(generate(args.tests), encoding="utf-8")
        t0 = time.perf_counter()
        first = api.test([str(folder)])
        with_failures = time.perf_counter() - t0
        failing = sum(1 for r in first.results if r.status == "fail")
        suite.write_text(passing(suite.read_text(), first), encoding="utf-8")  # a suite that passes, as in CI
        t0 = time.perf_counter()
        out = api.test([str(folder)])
        ours = time.perf_counter() - t0
        statuses = {s: sum(1 for r in out.results if r.status == s) for s in ("pass", "fail", "error")}
        assert statuses["pass"] == args.tests, (statuses, out.diagnostics)
        # baseline: every test's state loaded, validated and decided from scratch
        from kadmit.review.testrun import Runner
        from kadmit.validate import validate
        from kadmit.diagnostics import Diagnostics
        base = ws.load([str(folder)])
        t0 = time.perf_counter()
        for r in out.results:
            ws.load([str(folder)])  # what a fresh process reads
            d = Diagnostics()
            model = Runner(base.model).model_for(r.case, d)
            validate(model, d)
            admit(model)
        scratch = time.perf_counter() - t0
    print(f"kadmit test, {args.tests} passing tests over examples/ml-platform: {ours:.2f} s (aim < 5 s)")
    print(f"the same tests with random expectations, {failing} failing (each failure runs `why`): "
          f"{with_failures:.2f} s")
    print(f"baseline, each test's state loaded and decided from scratch: {scratch:.2f} s "
          f"(ratio {scratch / ours:.1f}x)")


if __name__ == "__main__":
    main()
