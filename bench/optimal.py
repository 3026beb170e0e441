"""Benchmark `optimal` mode: the same global model solved by CP-SAT (staged) and by Z3's Optimize (lex).

    .venv/bin/python bench/optimal.py [--budget SECONDS] [--sizes 30x5,200x20,1000x50] [--workers 1]

Generated states: pending gang workloads over cluster queues in cohorts of five under one root
cohort, two GPU flavors, three priorities, some queues borrowing or lending, about a tenth of the
queues already holding admitted work, and two to three times more demand than quota. Prints, per
size, each solver's time, whether it proved every stage optimal, its objective values per stage
(workloads, then pods, per priority 1000/100/10, then flavor order), the Z3 / CP-SAT time ratio,
and for the smaller sizes what Kueue's order admits (workloads, pods per priority).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import datetime, timedelta, timezone

import z3

from kadmit.engine.solver.cpsat import SolveParams, Stage, solve_staged
from kadmit.engine.decide import admit
from kadmit.engine.optimal.model import GlobalModel, build_global
from kadmit.engine.solver.z3backend import Lowering
from kadmit.index import ModelIndex
from kadmit.model import (Admission, ClusterQueue, Cohort, FlavorQuotas, LabelSelector, LocalQueue, Model,
                          PodSet, PodSetAssignment, ResourceFlavor, ResourceGroup, ResourceQuota, Workload)

G = 1000
GPU = "nvidia.com/gpu"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
PRIORITIES = (1000, 100, 10)


def generate(pending: int, queues: int, seed: int = 7) -> Model:
    rnd = random.Random(seed)
    flavors = (ResourceFlavor(name="h100", node_labels={"model": "h100"}),
               ResourceFlavor(name="a100", node_labels={"model": "a100"}))
    cohorts = [Cohort(name="org")] + [Cohort(name=f"team{i}", parent="org") for i in range((queues + 4) // 5)]
    cqs, lqs = [], []
    k = max(1, round(pending / queues / 10))  # quota grows with workloads per queue
    for i in range(queues):
        def quota(res: str, nominal: int) -> ResourceQuota:
            borrow = rnd.choice([None, None, nominal // 2, nominal])
            lend = rnd.choice([None, None, nominal // 2])
            return ResourceQuota(resource=res, nominal=nominal * G,
                                 borrowing_limit=None if borrow is None else borrow * G,
                                 lending_limit=None if lend is None else lend * G)
        fqs = tuple(FlavorQuotas(flavor=f, resources=(quota(GPU, k * rnd.choice([4, 8, 16])),
                                                      quota("cpu", k * rnd.choice([64, 128]))))
                    for f in ("h100", "a100"))
        name = f"cq{i:03d}"
        cqs.append(ClusterQueue(name=name, cohort=f"team{i // 5}", namespace_selector=LabelSelector(),
                                resource_groups=(ResourceGroup(covered_resources=("cpu", GPU), flavors=fqs),)))
        lqs.append(LocalQueue(namespace="ns", name=name, cluster_queue=name))
    workloads = []
    for i in range(queues // 10):
        cq = cqs[rnd.randrange(queues)].name
        workloads.append(Workload(namespace="ns", name=f"held{i:04d}", queue=cq, pod_sets=(
            PodSet(name="main", count=2, requests={GPU: G, "cpu": 4 * G}),), admission=Admission(
            cluster_queue=cq, pod_sets=(PodSetAssignment(name="main", flavors={GPU: "h100", "cpu": "h100"},
                                                         count=2),))))
    for i in range(pending):
        sets = []
        for j in range(rnd.choice([1, 1, 2])):
            count = rnd.randint(1, 4)
            sets.append(PodSet(name=f"p{j}", count=count,
                               min_count=rnd.choice([None, None, None, max(1, count // 2)]),
                               requests={GPU: rnd.choice([1, 1, 2]) * G, "cpu": rnd.choice([4, 8]) * G},
                               node_selector=rnd.choice([{}, {}, {"model": "h100"}])))
        workloads.append(Workload(namespace="ns", name=f"w{i:04d}", queue=cqs[rnd.randrange(queues)].name,
                                  priority=rnd.choices(PRIORITIES, weights=(15, 35, 50))[0], created=T0 + timedelta(seconds=i),
                                  pod_sets=tuple(sets)))
    return Model(flavors=flavors, cohorts=tuple(cohorts), cluster_queues=tuple(cqs),
                 local_queues=tuple(lqs), workloads=tuple(workloads))


def run_cpsat(gm: GlobalModel, budget: float, workers: int) -> dict:
    t0 = time.perf_counter()
    stages = [Stage(o.name, o.sense, o.term) for o in gm.objectives]  # type: ignore[arg-type]
    got = solve_staged(gm.hard, stages, budget, params=SolveParams(workers=workers))
    return {"seconds": time.perf_counter() - t0, "proven": got.proven_optimal,
            "values": [s.value for s in got.stages],
            "stages": f"{sum(s.proven_optimal for s in got.stages)}/{len(stages)} stages proven"}


def run_z3(gm: GlobalModel, budget: float) -> dict:
    t0 = time.perf_counter()
    low = Lowering()
    opt = z3.Optimize()
    opt.set("timeout", int(budget * 1000))
    opt.set(priority="lex")
    # one SMT-LIB script, as the engine sends problems: hard constraints, bounds, then the objectives
    asserts = [low.smt(h) for h in gm.hard]
    goals = [f"({'maximize' if o.sense == 'max' else 'minimize'} {low.smt(o.term)})" for o in gm.objectives]
    opt.from_string(low.script(asserts) + "\n" + "\n".join(goals))
    r = opt.check()
    values: list = []
    if r != z3.unsat:
        try:
            m = opt.model()
            # Optimize reports a maximised term as the minimised negation: turn it back
            values = [(1 if o.sense == "min" else -1) * m.eval(e, model_completion=True).as_long()
                      for o, e in zip(gm.objectives, opt.objectives())]
        except z3.Z3Exception:
            values = [None] * len(goals)
    return {"seconds": time.perf_counter() - t0, "proven": r == z3.sat, "values": values,
            "stages": f"check: {r}"}


def run_ordered(model: Model) -> dict:
    """Kueue's order (Z3 sessions), for comparison: per priority, admitted workloads and pods."""
    t0 = time.perf_counter()
    result = admit(model, "ordered")
    ix = ModelIndex(model)
    values: list[int] = []
    for p in PRIORITIES:
        done = [d for d in result.decisions if d.admitted and ix.priority(d.workload) == p]
        values += [len(done), sum(sum(d.assignment.counts.values()) for d in done if d.assignment)]
    return {"seconds": time.perf_counter() - t0, "values": values}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per solver per size")
    ap.add_argument("--sizes", default="30x5,200x20,1000x50", help="PENDINGxQUEUES, comma-separated")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--ordered-max", type=int, default=200,
                    help="also run Kueue's order (slow: a Z3 session per workload) up to this many workloads")
    args = ap.parse_args(argv)
    for size in args.sizes.split(","):
        pending, queues = (int(x) for x in size.split("x"))
        model = generate(pending, queues)
        t0 = time.perf_counter()
        gm = build_global(model)
        build = time.perf_counter() - t0
        print(f"{pending} pending workloads, {queues} cluster queues: {len(gm.hard)} constraints, "
              f"{len(gm.objectives)} stages, built in {build:.2f}s")
        cp = run_cpsat(gm, args.budget, args.workers)
        zz = run_z3(gm, args.budget)
        for name, r in (("cp-sat", cp), ("z3", zz)):
            print(f"  {name:7s} {r['seconds']:7.2f}s  proven optimal: {'yes' if r['proven'] else 'no ':3s}"
                  f"  ({r['stages']})  objective: {r['values']}")
        ratio = zz["seconds"] / max(cp["seconds"], 1e-9)
        print(f"  z3 / cp-sat time: {ratio:.1f}x" if zz["proven"] and cp["proven"] else
              f"  z3 / cp-sat time: at least {ratio:.1f}x (z3 stopped at its budget)" if cp["proven"] else
              f"  z3 / cp-sat time: {ratio:.1f}x (cp-sat stopped at its budget too)")
        if pending <= args.ordered_max:
            od = run_ordered(model)
            print(f"  ordered {od['seconds']:7.2f}s  (Kueue's order, for comparison)  admitted: {od['values']}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
