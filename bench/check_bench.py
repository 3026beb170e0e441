"""`kadmit check` throughput on a large generated policy, as `.kad` and as Kueue manifests (issue 2).

Prints wall times (median of `--repeats`), lines per second, the ratio to PyYAML loading the same
manifests in the same run, and the time of `kadmit check` on one large manifest file of Workloads.
Run: `.venv/bin/python bench/check_bench.py` (full scale) or `--quick`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

import yaml

import gen
from kadmit import api
from kadmit.diagnostics import Diagnostics, Severity
from kadmit.model import (ClusterQueue, Cohort, FlavorQuotas, LabelSelector, LocalQueue, Model, Namespace,
                          PodSet, PriorityClass, ResourceFlavor, ResourceGroup, ResourceQuota, Taint,
                          Toleration, Workload)
from kadmit.validate import validate

FULL = {"cluster_queues": 1000, "cohorts": 100, "big_mb": 25.0}
QUICK = {"cluster_queues": 40, "cohorts": 8, "big_mb": 0.5}
GPU = gen.GPU
BIG_FILE_TARGET_S = 60.0  # issue 2: a 25 MB file checks "in well under a minute"


# --- the inputs --------------------------------------------------------------------------------

def check_state(cluster_queues: int = 1000, cohorts: int = 100, seed: int = 0) -> Model:
    """A policy of `cluster_queues` queues in `cohorts` cohorts (a tenth of them roots holding
    shared quota, the rest their children, every third with quota of its own): each queue has
    one resource group of 2-3 flavors over cpu, memory and GPUs, a namespace and two local queues."""
    rnd = random.Random(seed)
    gpu_taint = (Taint(key=GPU, value="present", effect="NoSchedule"),)
    spot = Taint(key="cloud.example.com/spot", value="true", effect="NoSchedule")
    flavors = (
        ResourceFlavor(name="h100", node_labels={"gpu.example.com/model": "h100"}, node_taints=gpu_taint),
        ResourceFlavor(name="a100", node_labels={"gpu.example.com/model": "a100"}, node_taints=gpu_taint),
        ResourceFlavor(name="l4", node_labels={"gpu.example.com/model": "l4"}, node_taints=gpu_taint),
        ResourceFlavor(name="on-demand", node_labels={"capacity": "on-demand"}),
        ResourceFlavor(name="spot", node_labels={"capacity": "spot"}, node_taints=(spot,),
                       tolerations=(Toleration(key=spot.key, value="true", effect="NoSchedule"),)),
    )
    combos = (("h100", "a100"), ("a100", "l4"), ("h100", "a100", "l4"), ("on-demand", "spot"),
              ("a100", "l4", "spot"))
    resources = ("cpu", "memory", GPU)

    def quota(flavor: str, scale: int, cohort_owned: bool) -> FlavorQuotas:
        gpus = 0 if flavor in ("on-demand", "spot") else 8 * rnd.choice((1, 2, 4))
        cpu, mem = 32 * scale * rnd.choice((1, 2, 4)), 256 * scale * rnd.choice((1, 2, 4))
        borrow = None if cohort_owned or rnd.random() < 0.5 else cpu // 2
        lend = None if cohort_owned or rnd.random() < 0.7 else cpu // 4
        return FlavorQuotas(flavor=flavor, resources=(
            ResourceQuota(resource="cpu", nominal=cpu * 1000, borrowing_limit=borrow and borrow * 1000,
                          lending_limit=lend and lend * 1000),
            ResourceQuota(resource="memory", nominal=mem * 2**30 * 1000),
            ResourceQuota(resource=GPU, nominal=gpus * 1000)))

    roots = max(1, cohorts // 10)
    cohort_objs = []
    for k in range(cohorts):
        root = k < roots
        own = root or k % 3 == 0
        group = (ResourceGroup(covered_resources=resources, flavors=tuple(
            quota(f, 4 if root else 1, True) for f in rnd.choice(combos))),) if own else ()
        cohort_objs.append(Cohort(name=f"org-{k:03d}" if root else f"cohort-{k:03d}",
                                  parent=None if root else f"org-{k % roots:03d}", resource_groups=group))
    cqs, lqs, nss = [], [], []
    for i in range(cluster_queues):
        team = f"team-{i:04d}"
        strategy = "StrictFIFO" if i % 4 == 0 else "BestEffortFIFO"
        pre = {"within_cluster_queue": "LowerPriority", "reclaim_within_cohort": "Any"} if i % 5 == 0 else {}
        cqs.append(ClusterQueue(
            name=team, cohort=cohort_objs[i % cohorts].name,
            namespace_selector=LabelSelector(match_labels={"team": team}), queueing_strategy=strategy,
            preemption=ClusterQueue.model_fields["preemption"].default.model_copy(update=pre),
            resource_groups=(ResourceGroup(covered_resources=resources, flavors=tuple(
                quota(f, 1, False) for f in rnd.choice(combos))),)))
        nss.append(Namespace(name=team, labels={"team": team, "tier": rnd.choice(("prod", "research"))}))
        lqs += [LocalQueue(namespace=team, name=lq, cluster_queue=team) for lq in ("training", "batch")]
    return Model(flavors=flavors, cohorts=tuple(cohort_objs), cluster_queues=tuple(cqs),
                 local_queues=tuple(lqs), namespaces=tuple(nss), priority_classes=(
                     PriorityClass(name="production", value=1000),
                     PriorityClass(name="research", value=100, global_default=True),
                     PriorityClass(name="scavenger", value=10)))


def big_workloads_state(workloads: int, seed: int = 0) -> Model:
    """A small cluster (8 queues in 2 cohorts) with many pending workloads, for one large file."""
    policy = check_state(8, 2, seed)
    rnd = random.Random(seed)
    base = datetime(2026, 11, 20, tzinfo=timezone.utc)
    wls = []
    for j in range(workloads):
        cq = policy.cluster_queues[j % len(policy.cluster_queues)]
        flavors = [f.flavor for f in cq.resource_groups[0].flavors]
        gpus = rnd.choice((0, 1, 8)) if flavors[0] in ("h100", "a100") else 0
        req = {"cpu": rnd.choice((1, 4, 16)) * 1000, "memory": rnd.choice((4, 16, 64)) * 2**30 * 1000}
        if gpus:
            req[GPU] = gpus * 1000
        count = rnd.choice((1, 1, 2, 4))
        wls.append(Workload(
            namespace=cq.name, name=f"job-{j:06d}", queue=rnd.choice(("training", "batch")),
            priority_class=rnd.choice(("production", "research", "scavenger")), priority_class_kind="workload",
            created=base + timedelta(seconds=j),
            pod_sets=(PodSet(name="workers", count=count, requests=req, tolerations=(
                Toleration(key=GPU, operator="Exists", effect="NoSchedule"),) if gpus else ()),)))
    return policy.model_copy(update={"workloads": tuple(wls)})


def big_manifest(target_bytes: int, seed: int = 0) -> str:
    """One self-contained manifest file of about `target_bytes` (at least that): a small policy,
    then pending Workloads until the size is reached."""
    probe = gen.manifest_files(big_workloads_state(64, seed))
    per_workload = sum(len(t) for p, t in probe.items() if p.startswith("workloads/")) / 64
    n = int(target_bytes / per_workload) + 1
    files = gen.manifest_files(big_workloads_state(n, seed))
    text = "".join(files[p] for p in sorted(files, key=lambda p: (p.startswith("workloads/"), p)))
    return text


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, list[float], object]:
    """Median wall time over `repeats` calls, every time, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def yaml_load(paths: list[Path], loader) -> int:
    """Load every document of every file with `loader`; the number of documents."""
    n = 0
    for p in paths:
        with p.open(encoding="utf-8") as fh:
            n += sum(1 for _ in yaml.load_all(fh, Loader=loader))
    return n


def summary(result: api.CheckResult) -> str:
    d = result.diagnostics
    errors = sum(x.severity is Severity.ERROR for x in d)
    warnings = sum(x.severity is Severity.WARNING for x in d)
    return f"{len(d)} diagnostics ({errors} errors, {warnings} warnings), exit {result.exit_code}"


def fmt_times(times: list[float]) -> str:
    return "[" + ", ".join(f"{t:.2f}" for t in times) + "]"


def run(cluster_queues: int, cohorts: int, big_mb: float, repeats: int, root: Path,
        cli: bool = True) -> dict:
    """Generate the trees under `root`, measure, print; the figures as a dict."""
    model = check_state(cluster_queues, cohorts)
    kad, manifests = gen.kad_files(model), gen.manifest_files(model)
    kad_dir, man_dir = root / "kad", root / "manifests"
    gen.write_files(kad, kad_dir)
    man_paths = gen.write_files(manifests, man_dir)
    kad_lines, man_lines = gen.count_lines(kad), gen.count_lines(manifests)
    print(f"policy: {cluster_queues:,} cluster queues in {cohorts:,} cohorts, "
          f"{len(model.local_queues):,} local queues, {len(model.namespaces):,} namespaces")
    print(f"  .kad:      {len(kad):>4} files, {kad_lines:>8,} lines, {sum(map(len, kad.values())):>11,} bytes")
    print(f"  manifests: {len(manifests):>4} files, {man_lines:>8,} lines, "
          f"{sum(map(len, manifests.values())):>11,} bytes")
    out: dict = {}
    t_kad, kad_times, r_kad = timed(lambda: api.check([str(kad_dir)]), repeats)
    t_man, man_times, r_man = timed(lambda: api.check([str(man_dir)]), repeats)
    t_yaml, yaml_times, docs = timed(lambda: yaml_load(man_paths, yaml.SafeLoader), repeats)
    print(f"kadmit check, median of {repeats}:")
    print(f"  .kad tree:      {t_kad:7.2f} s {fmt_times(kad_times)}  {kad_lines / t_kad:>9,.0f} lines/s  "
          f"{summary(r_kad)}")
    print(f"  manifest tree:  {t_man:7.2f} s {fmt_times(man_times)}  {man_lines / t_man:>9,.0f} lines/s  "
          f"{summary(r_man)}")
    t_kad_val, _, _ = timed(lambda: validate(r_kad.workspace.model, Diagnostics()), repeats)
    t_man_val, _, _ = timed(lambda: validate(r_man.workspace.model, Diagnostics()), repeats)
    print(f"  of which validation (`kadmit.validate` on the loaded model, median): .kad {t_kad_val:.2f} s, "
          f"manifests {t_man_val:.2f} s")
    print(f"yaml.safe_load_all of the manifests ({docs:,} documents): {t_yaml:.2f} s {fmt_times(yaml_times)}")
    print(f"  ratio manifest check / safe_load_all: {t_man / t_yaml:.2f}x")
    out |= {"kad_s": t_kad, "manifest_s": t_man, "kad_validate_s": t_kad_val, "manifest_validate_s": t_man_val,
            "safe_load_s": t_yaml, "kad_lines": kad_lines,
            "manifest_lines": man_lines, "kad_diagnostics": len(r_kad.diagnostics),
            "manifest_diagnostics": len(r_man.diagnostics)}
    c_loader = getattr(yaml, "CSafeLoader", None)
    if c_loader is not None:
        t_c, c_times, _ = timed(lambda: yaml_load(man_paths, c_loader), repeats)
        print(f"yaml.load_all(Loader=CSafeLoader): {t_c:.2f} s {fmt_times(c_times)}")
        print(f"  ratio manifest check / CSafeLoader:   {t_man / t_c:.2f}x")
        out["csafe_load_s"] = t_c
    else:
        print("yaml.CSafeLoader: not available (PyYAML built without libyaml)")
    print(f"  ratio .kad check / manifest check:    {t_kad / t_man:.2f}x")

    big = root / "big" / "workloads.yaml"
    big.parent.mkdir(parents=True, exist_ok=True)
    big.write_text(big_manifest(int(big_mb * 1024 * 1024)), encoding="utf-8")
    size = big.stat().st_size
    lines = big.read_text(encoding="utf-8").count("\n")
    t_big, _, r_big = timed(lambda: api.check([str(big)]), 1)
    n_wl = len(r_big.workspace.model.workloads)
    print(f"one manifest file, {size / 2**20:.1f} MiB, {lines:,} lines, {n_wl:,} Workloads:")
    print(f"  api.check:      {t_big:7.2f} s  {lines / t_big:>9,.0f} lines/s  {summary(r_big)}  "
          f"(target: well under {BIG_FILE_TARGET_S:.0f} s)")
    out |= {"big_bytes": size, "big_api_s": t_big, "big_workloads": n_wl,
            "big_diagnostics": len(r_big.diagnostics)}
    if cli:
        kadmit = Path(sys.executable).with_name("kadmit")
        cmd = [str(kadmit), "check", str(big)] if kadmit.exists() else [sys.executable, "-m", "kadmit",
                                                                           "check", str(big)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        t_cli = time.perf_counter() - t0
        last = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or [""])[-1]
        print(f"  kadmit check:   {t_cli:7.2f} s  (process, incl. start-up) exit {proc.returncode}: {last}")
        out |= {"big_cli_s": t_cli, "big_cli_exit": proc.returncode}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small scales, for a smoke run")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--cluster-queues", type=int)
    p.add_argument("--cohorts", type=int)
    p.add_argument("--big-mb", type=float, help="size of the single large manifest file (MiB)")
    p.add_argument("--no-cli", action="store_true", help="skip timing the `kadmit` process")
    a = p.parse_args(argv)
    scale = dict(QUICK if a.quick else FULL)
    for key in scale:
        if getattr(a, key) is not None:
            scale[key] = getattr(a, key)
    with tempfile.TemporaryDirectory(prefix="kadmit-check-bench-") as d:
        run(scale["cluster_queues"], scale["cohorts"], scale["big_mb"], a.repeats, Path(d), cli=not a.no_cli)
    return 0


if __name__ == "__main__":
    sys.exit(main())
