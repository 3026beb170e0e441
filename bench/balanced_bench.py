"""TASBalancedPlacement's cost (placement/balanced.py): one `preferred: rack` batch Job of 1,000 one-cpu pods
on 400 hosts (1 block; racks x hosts as below; host sizes varied from `cpu` to `cpu`+4 so the domains'
capacities differ; layers_soak.py's cluster), decided with the gate on and off. Prints, per shape, the best of `--repeat` `admit` runs (ordered mode, the model
read once): with the gate on through a transcription of Go's selectOptimalDomainSetToFit table (the cost before
kadmit's `_optimal` dropped its copies and unread rows), with the gate on, with it off, and the ratios: Go table
over kadmit's (the gain) and gate on over off (what balanced placement adds over BestFit).

Run: `PYTHONPATH=src:bench python bench/balanced_bench.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from layers_soak import header, node  # (puts this tree's src and tests first on the path)
from placement.test_balanced import _select_optimal_as_go_writes_it

from kadmit.engine.decide import admit
from kadmit.engine.solver.z3backend import Limits
from kadmit.placement import balanced
from kadmit.workspace import load

BLOCK, RACK, HOST = "example.com/block", "example.com/rack", "kubernetes.io/hostname"

SHAPES = (  # (racks, hosts per rack, base cpu per host)
    (40, 10, 2),
    (40, 10, 4),
    (80, 5, 4),
    (20, 20, 4),
    (10, 40, 2),
)
PODS = 1000


def cluster(racks: int, hosts: int, cpu: int, gate: bool) -> str:
    """layers_soak's cluster (one topology flavor, one queue) with room for the Job, and the Job."""
    out = [header(f"TASBalancedPlacement: {str(gate).lower()}", [BLOCK, RACK, HOST]).replace(
        "nominalQuota: 100}", "nominalQuota: 100000}")]
    out += [node(f"h-{r:02d}-{h:02d}", {BLOCK: "b0", RACK: f"r{r:02d}", HOST: f"h-{r:02d}-{h:02d}"},
                 cpu + (r * 13 + h * 5) % 5) for r in range(racks) for h in range(hosts)]
    out.append(f"""---
apiVersion: batch/v1
kind: Job
metadata: {{name: w, namespace: ns, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  suspend: true
  parallelism: {PODS}
  completions: {PODS}
  template:
    metadata: {{annotations: {{kueue.x-k8s.io/podset-preferred-topology: {RACK}}}}}
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1"}}}}}}]
""")
    return "".join(out)


def best_of(path: Path, repeat: int) -> tuple[float, bool]:
    model = load([str(path)]).model
    best, admitted = float("inf"), False
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = admit(model, "ordered", Limits())
        best = min(best, time.perf_counter() - t0)
        admitted = all(d.admitted for d in result.decisions)
    return best, admitted


def go_table(domains, slice_count: int, leader_count: int, size: int, by_entropy: bool):
    """selectOptimalDomainSetToFit as Go fills its table (tests/placement/test_balanced.py's transcription):
    the cost before kadmit's `_optimal` left out the copies and the rows nothing reads."""
    if by_entropy:
        balanced._by_capacity_and_entropy(domains)
    return _select_optimal_as_go_writes_it(domains, slice_count, leader_count, size)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'racks x hosts, cpu':<20} {'Go table':>9} {'gate on':>9} {'gate off':>9} {'Go/on':>6} {'on/off':>7}  admitted")
    kadmits = balanced._optimal
    with tempfile.TemporaryDirectory() as tmp:
        for racks, hosts, cpu in SHAPES:
            times = {}
            for run, gate, optimal in (("go", True, go_table), ("on", True, kadmits), ("off", False, kadmits)):
                path = Path(tmp) / f"{racks}-{hosts}-{cpu}-{gate}.yaml"
                path.write_text(cluster(racks, hosts, cpu, gate))
                balanced._optimal = optimal
                try:
                    times[run] = best_of(path, args.repeat)
                finally:
                    balanced._optimal = kadmits
            go, on, off = times["go"][0], times["on"][0], times["off"][0]
            print(f"{f'{racks} x {hosts}, {cpu}':<20} {go:>8.3f}s {on:>8.3f}s {off:>8.3f}s {go / on:>5.1f}x {on / off:>6.1f}x"
                  f"  {times['on'][1]}/{times['off'][1]}")


if __name__ == "__main__":
    main()
