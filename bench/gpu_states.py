"""A preempting GPU cluster as its users submit to it: batch Jobs over Kueue queues (issue 19).

The state an engineer on call asks "why is my job pending?" about, deterministic from a seed:

- two flavors, `h100` and `a100` (tainted `nvidia.com/gpu=present:NoSchedule`; every job tolerates
  it), one resource group over `cpu`, `memory` and `nvidia.com/gpu`;
- `cluster_queues` (10) ClusterQueues in `cohorts` (2) cohorts, each with `withinClusterQueue:
  LowerPriority` and `reclaimWithinCohort: Any`; GPU quotas of 32-96 per flavor, lending limits of
  half the nominal quota, a borrowing limit on every third queue; StrictFIFO on every fifth queue
  (one per cohort), BestEffortFIFO on the others; a namespace `team-NN` and a LocalQueue `main` each;
- three WorkloadPriorityClasses, `low` (100), `mid` (500) and `high` (1000);
- `jobs` batch/v1 Jobs labelled with the queue name and a priority class, as users submit them
  (suspended, no UID): one pod of 1, 2, 4 or 8 GPUs, or two pods of 4 (8 cpu and 64Gi per GPU);
- some of them already admitted, holding quota: a running Job (its UID, `startTime`, `active`) and the
  Workload Kueue made of it (owner reference, `status.admission`, QuotaReserved and Admitted), at low
  or mid priority, created before every pending job. In each cohort the queues alternate between
  lenders (the first, third, ... in name order; each flavor used to a quarter of its nominal quota)
  and borrowers (nominal quota plus what the lenders lend, short of the cohort's limit): pending
  high- and mid-priority work preempts inside its queue and lenders reclaim what they lent.

The admitted set depends on the quotas, not on `jobs` (about 280 jobs with the defaults); the rest
are pending. `gpu_state(2000)` is the 2,000-Job state, `gpu_state(15000)` the 15,000-Job one.

Use: `files = gpu_state(2000)` (relative path -> text), `write_state(files, root)`; or run
`python bench/gpu_states.py DIR [--jobs N] [--seed N] [--one-file]` to write it. Meant for every
bench that times admission or `why` under preemption (and Kueue's own scheduler on it, in the oracle's
bench).
"""

from __future__ import annotations

import argparse
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gen import to_yaml

from kadmit.manifests.jobs.common import workload_name

Files = dict[str, str]

KUEUE_API = "kueue.x-k8s.io/v1beta1"
GPU = "nvidia.com/gpu"
FLAVORS = ("h100", "a100")
PRIORITIES = {"low": 100, "mid": 500, "high": 1000}
CPU_PER_GPU, MEM_GI_PER_GPU = 8, 64
QUOTA_CPU_PER_GPU, QUOTA_MEM_GI_PER_GPU = 12, 96  # room per GPU, so that GPUs bind first
START = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)
# (pods, GPUs per pod) -> weight: single pods of 1-8 GPUs, some 2 x 4
SHAPES = {(1, 1): 25, (1, 2): 25, (1, 4): 20, (1, 8): 20, (2, 4): 10}
PENDING_PRIORITY = {"low": 50, "mid": 35, "high": 15}
ADMITTED_PRIORITY = {"low": 60, "mid": 40}
NODE_TAINT = {"effect": "NoSchedule", "key": GPU, "value": "present"}


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _uid(rnd: random.Random) -> str:
    return "-".join(f"{rnd.getrandbits(b * 4):0{b}x}" for b in (8, 4, 4, 4, 12))


def _doc(body: dict) -> str:
    return "\n".join(["---", *to_yaml(body)])


def _pick(rnd: random.Random, weights: dict):
    keys = list(weights)
    return rnd.choices(keys, weights=[weights[k] for k in keys])[0]


def queues(cluster_queues: int, cohorts: int, rnd: random.Random) -> list[dict]:
    """Each queue's name, namespace, cohort, strategy and per-flavor GPU nominal / lending / borrowing."""
    out = []
    for i in range(cluster_queues):
        quota = {}
        for f in FLAVORS:
            nominal = rnd.choice((32, 64, 96)) if f == "h100" else rnd.choice((32, 48))
            quota[f] = {"nominal": nominal, "lend": nominal // 2, "borrow": 32 if i % 3 == 2 else None}
        out.append({"name": f"team-{i:02d}", "ns": f"team-{i:02d}", "cohort": f"org-{i % cohorts}",
                    "strategy": "StrictFIFO" if i % 5 == 0 else "BestEffortFIFO", "quota": quota})
    return out


def fill(members: list[dict]) -> dict[tuple[str, str], int]:
    """GPUs admitted per (queue, flavor) in one cohort: lenders a quarter of nominal, borrowers their
    nominal plus an even share of what the lenders lend (within their borrowing limits)."""
    lenders, borrowers = members[0::2], members[1::2]
    out: dict[tuple[str, str], int] = {}
    for f in FLAVORS:
        for q in lenders:
            out[q["name"], f] = q["quota"][f]["nominal"] // 4
        lent = sum(min(q["quota"][f]["lend"], q["quota"][f]["nominal"] - out[q["name"], f]) for q in lenders)
        share = lent // max(1, len(borrowers)) - 4  # a little short of the cohort's limit
        for q in borrowers:
            extra = max(0, share)
            if q["quota"][f]["borrow"] is not None:
                extra = min(extra, q["quota"][f]["borrow"])
            out[q["name"], f] = q["quota"][f]["nominal"] + extra
    return out


def _requests(gpus: int) -> dict:
    return {"cpu": str(CPU_PER_GPU * gpus), "memory": f"{MEM_GI_PER_GPU * gpus}Gi", GPU: str(gpus)}


def _template(name: str, gpus: int) -> dict:
    return {"metadata": {"labels": {"app": "trainer"}},
            "spec": {"containers": [{"name": "trainer", "image": "registry.example.com/ml/trainer:2.4",
                                     "resources": {"requests": _requests(gpus), "limits": {GPU: str(gpus)}}}],
                     "restartPolicy": "Never",
                     "tolerations": [{"effect": "NoSchedule", "key": GPU, "operator": "Exists"}]}}


def _job(ns: str, name: str, priority: str, created: datetime, pods: int, gpus: int,
         running: dict | None = None) -> dict:
    meta: dict = {"creationTimestamp": _stamp(created),
                  "labels": {"kueue.x-k8s.io/priority-class": priority, "kueue.x-k8s.io/queue-name": "main"},
                  "name": name, "namespace": ns}
    if running is not None:
        meta["uid"] = running["uid"]
    spec = {"completions": pods, "parallelism": pods, "suspend": running is None,
            "template": _template(name, gpus)}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}
    if running is not None:
        job["status"] = {"active": pods, "startTime": _stamp(running["at"])}
    return job


def _workload(ns: str, job_name: str, priority: str, created: datetime, pods: int, gpus: int, uid: str,
              cluster_queue: str, flavor: str, at: datetime, serial: random.Random) -> dict:
    """The Workload Kueue made of an admitted Job (ConstructWorkload), with its admission."""
    name = workload_name("Job", "batch", job_name, uid)
    usage = {r: v for r, v in (("cpu", str(CPU_PER_GPU * gpus * pods)),
                               ("memory", f"{MEM_GI_PER_GPU * gpus * pods}Gi"), (GPU, str(gpus * pods)))}
    cond = [{"lastTransitionTime": _stamp(at), "message": f"Quota reserved in ClusterQueue {cluster_queue}",
             "reason": "QuotaReserved", "status": "True", "type": "QuotaReserved"},
            {"lastTransitionTime": _stamp(at), "message": "The workload is admitted",
             "reason": "Admitted", "status": "True", "type": "Admitted"}]
    return {"apiVersion": KUEUE_API, "kind": "Workload",
            "metadata": {"creationTimestamp": _stamp(created), "labels": {"kueue.x-k8s.io/job-uid": uid},
                         "name": name, "namespace": ns,
                         "ownerReferences": [{"apiVersion": "batch/v1", "blockOwnerDeletion": True,
                                              "controller": True, "kind": "Job", "name": job_name, "uid": uid}],
                         "uid": _uid(serial)},
            "spec": {"active": True,
                     "podSets": [{"count": pods, "name": "main", "template": _template(job_name, gpus)}],
                     "priority": PRIORITIES[priority], "priorityClassName": priority,
                     "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass", "queueName": "main"},
            "status": {"admission": {"clusterQueue": cluster_queue, "podSetAssignments": [
                {"count": pods, "flavors": {"cpu": flavor, "memory": flavor, GPU: flavor}, "name": "main",
                 "resourceUsage": usage}]}, "conditions": cond}}


def _quota(q: dict, f: str) -> list[dict]:
    spec = q["quota"][f]
    out = []
    for res, per in (("cpu", QUOTA_CPU_PER_GPU), ("memory", QUOTA_MEM_GI_PER_GPU), (GPU, 1)):
        unit = "Gi" if res == "memory" else ""
        d = {"name": res, "nominalQuota": f"{spec['nominal'] * per}{unit}"}
        if spec["borrow"] is not None:
            d["borrowingLimit"] = f"{spec['borrow'] * per}{unit}"
        d["lendingLimit"] = f"{spec['lend'] * per}{unit}"
        out.append(d)
    return out


def cluster_files(qs: list[dict]) -> Files:
    """Flavors, priority classes, cluster queues, local queues and namespaces, one file per kind."""
    flavors = [_doc({"apiVersion": KUEUE_API, "kind": "ResourceFlavor", "metadata": {"name": f},
                     "spec": {"nodeLabels": {"gpu.example.com/model": f}, "nodeTaints": [NODE_TAINT]}})
               for f in FLAVORS]
    classes = [_doc({"apiVersion": KUEUE_API, "kind": "WorkloadPriorityClass", "metadata": {"name": n},
                     "value": v}) for n, v in PRIORITIES.items()]
    cqs, lqs, nss = [], [], []
    for q in qs:
        cqs.append(_doc({"apiVersion": KUEUE_API, "kind": "ClusterQueue", "metadata": {"name": q["name"]},
                         "spec": {"cohort": q["cohort"],
                                  "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": q["ns"]}},
                                  "preemption": {"reclaimWithinCohort": "Any",
                                                 "withinClusterQueue": "LowerPriority"},
                                  "queueingStrategy": q["strategy"],
                                  "resourceGroups": [{"coveredResources": ["cpu", "memory", GPU],
                                                      "flavors": [{"name": f, "resources": _quota(q, f)}
                                                                  for f in FLAVORS]}]}}))
        lqs.append(_doc({"apiVersion": KUEUE_API, "kind": "LocalQueue",
                         "metadata": {"name": "main", "namespace": q["ns"]}, "spec": {"clusterQueue": q["name"]}}))
        nss.append(_doc({"apiVersion": "v1", "kind": "Namespace",
                         "metadata": {"labels": {"kubernetes.io/metadata.name": q["ns"]}, "name": q["ns"]}}))
    return {"cluster/resource-flavors.yaml": flavors, "cluster/priority-classes.yaml": classes,
            "cluster/cluster-queues.yaml": cqs, "cluster/local-queues.yaml": lqs, "cluster/namespaces.yaml": nss}


def gpu_state(jobs: int = 2000, seed: int = 0, cluster_queues: int = 10, cohorts: int = 2) -> Files:
    """The state (module docstring) as manifest files: relative path -> text."""
    rnd = random.Random(seed)
    qs = queues(cluster_queues, cohorts, rnd)
    files = cluster_files(qs)
    targets: dict[tuple[str, str], int] = {}
    for c in sorted({q["cohort"] for q in qs}):
        targets |= fill([q for q in qs if q["cohort"] == c])
    by_ns: dict[str, list[str]] = {}
    wls_by_ns: dict[str, list[str]] = {}
    t = START
    serial = 0
    for q in qs:  # the admitted work, oldest first
        for f in FLAVORS:
            left = targets[q["name"], f]
            while left > 0:
                pods, gpus = _pick(rnd, SHAPES)
                if pods * gpus > left:
                    pods, gpus = 1, max(g for g in (1, 2, 4, 8) if g <= left)
                left -= pods * gpus
                serial += 1
                t += timedelta(seconds=rnd.randrange(1, 30))
                name, prio, uid = f"run-{serial:05d}", _pick(rnd, ADMITTED_PRIORITY), _uid(rnd)
                at = t + timedelta(seconds=rnd.randrange(1, 600))
                by_ns.setdefault(q["ns"], []).append(
                    _doc(_job(q["ns"], name, prio, t, pods, gpus, running={"uid": uid, "at": at})))
                wls_by_ns.setdefault(q["ns"], []).append(
                    _doc(_workload(q["ns"], name, prio, t, pods, gpus, uid, q["name"], f, at, rnd)))
    t = START + timedelta(days=1)
    admitted = serial
    for j in range(jobs - admitted):
        q = qs[rnd.randrange(len(qs))]
        pods, gpus = _pick(rnd, SHAPES)
        t += timedelta(seconds=rnd.randrange(1, 20))
        by_ns.setdefault(q["ns"], []).append(
            _doc(_job(q["ns"], f"train-{j:05d}", _pick(rnd, PENDING_PRIORITY), t, pods, gpus)))
    for ns, docs in by_ns.items():
        files[f"jobs/{ns}.yaml"] = docs
    for ns, docs in wls_by_ns.items():
        files[f"workloads/{ns}.yaml"] = docs
    return {path: "\n".join(docs) + "\n" for path, docs in sorted(files.items())}


def one_file(files: Files) -> str:
    """Every document of `files` in one multi-document text (path order)."""
    return "".join(text for _, text in sorted(files.items()))


def write_state(files: Files, root: Path, one: bool = False) -> list[Path]:
    """Write `files` below `root` (or, with `one`, as `root/state.yaml`); the paths written."""
    if one:
        root.mkdir(parents=True, exist_ok=True)
        (root / "state.yaml").write_text(one_file(files), encoding="utf-8")
        return [root / "state.yaml"]
    out = []
    for rel, text in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("root", type=Path)
    p.add_argument("--jobs", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--one-file", action="store_true", help="one multi-document file, root/state.yaml")
    a = p.parse_args(argv)
    paths = write_state(gpu_state(a.jobs, a.seed), a.root, a.one_file)
    print(f"wrote {len(paths)} files below {a.root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
