"""A full cluster shaped like Kueue's scheduler performance test, for the preemption benchmark (issue 5).

Kueue's baseline performance test (test/performance/scheduler/configs/baseline/generator.yaml) runs
5 cohorts of 6 cluster queues, each with a nominal quota of 20 cpu and a borrowing limit of 100,
`reclaimWithinCohort: Any` and `withinClusterQueue: LowerPriority`, and three workload classes:
small (1 cpu, priority 50), medium (5 cpu, priority 100) and large (20 cpu, priority 200), created
350 : 100 : 50 per queue. `kueue_perf_state` (states.py) gives its queues and classes without the
preemption policies; `kueue_preempt_state` adds them and makes the cluster full:

- **admitted**: low-priority work (small and medium, in Kueue's 350 : 100 count ratio) uses every
  cohort's whole quota. In each cohort the queues alternate between *lenders* (the first, third, ...
  in name order), which use half their nominal quota, and *borrowers*, which use their nominal
  quota plus an even share of what the lenders leave (a cohort of one queue fills its nominal
  quota). Quota reservation times are staggered, so candidate order is not decided by name alone.
- **pending**: higher-priority work, created after everything admitted: each queue asks for exactly
  its nominal quota, either one large workload or four medium ones (Kueue's 100 : 50 count ratio of
  medium to large, seeded). On an empty cluster every pending workload is admitted without
  borrowing or preemption (`empty=True` gives that state, the benchmark's baseline); on the full
  cluster lenders reclaim what they lent (`Any`: whatever the borrower's priority) and every
  queue preempts its own lower-priority work.

Nothing is written to files: the admitted workloads carry admissions, which the benchmark writers
(gen.py) don't write.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from states import CPU, SIZES, kueue_perf_state

from kadmit.model import Admission, Model, PodSet, PodSetAssignment, Preemption, Workload

BASE = datetime(2026, 11, 1, tzinfo=UTC)
KUEUE_PREEMPTION = Preemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
NOMINAL = 20  # cpu, Kueue's baseline nominal quota (states.py)
LOW_MIX = (("small", 350), ("medium", 100))  # Kueue's baseline counts per queue
HIGH_LARGE_SHARE = 2 / 3  # P(a queue asks for one large) so that medium : large counts are 100 : 50


def _workload(ns: str, name: str, size: str, created, admitted_to: str | None = None, at=None) -> Workload:
    """One workload of Kueue's class `size`, admitted to `admitted_to` (flavor `default`) if given."""
    wl = Workload(namespace=ns, name=name, queue="lq", priority_class={"small": "low", "medium": "mid",
                                                                       "large": "high"}[size],
                  priority_class_kind="workload", created=created,
                  pod_sets=(PodSet(name="main", count=1, requests={"cpu": SIZES[size] * CPU}),))
    if admitted_to is None:
        return wl
    return wl.model_copy(update={"admission": Admission(
        cluster_queue=admitted_to, admitted_at=at,
        pod_sets=(PodSetAssignment(name="main", flavors={"cpu": "default"}, count=1),))})


def _low_sizes(cpu: int, rnd: random.Random) -> list[str]:
    """Small and medium workloads adding up to exactly `cpu`, drawn in Kueue's count ratio."""
    out: list[str] = []
    total = sum(w for _, w in LOW_MIX)
    while cpu > 0:
        size = "medium" if cpu >= SIZES["medium"] and rnd.randrange(total) < dict(LOW_MIX)["medium"] else "small"
        out.append(size)
        cpu -= SIZES[size]
    return out


def fill_targets(names: list[str]) -> dict[str, int]:
    """Cpu each queue of one cohort uses when the cohort is full: lenders (even positions) half their
    nominal quota, borrowers the rest of the cohort's quota in even shares (the first borrowers take
    the remainder)."""
    lenders, borrowers = names[0::2], names[1::2]
    if not borrowers:
        return {n: NOMINAL for n in names}
    lent = len(lenders) * (NOMINAL - NOMINAL // 2)
    share, extra = divmod(lent, len(borrowers))
    out = {n: NOMINAL // 2 for n in lenders}
    out |= {n: NOMINAL + share + (1 if i < extra else 0) for i, n in enumerate(borrowers)}
    return out


def kueue_preempt_state(cluster_queues: int = 30, cohorts: int = 5, seed: int = 0, empty: bool = False) -> Model:
    """Kueue's baseline queues with its preemption policies, full of low-priority work, with
    higher-priority work pending (module docstring). `empty=True`: the same pending workloads and
    queues, nothing admitted."""
    rnd = random.Random(seed)
    base = kueue_perf_state(cluster_queues, cohorts, 0, seed)
    cqs = tuple(cq.model_copy(update={"preemption": KUEUE_PREEMPTION}) for cq in base.cluster_queues)
    start = BASE
    members: dict[str, list[str]] = {}
    for cq in cqs:
        members.setdefault(cq.cohort or "", []).append(cq.name)
    ns_of = {lq.cluster_queue: lq.namespace for lq in base.local_queues}
    admitted: list[Workload] = []
    tick = 0
    for cohort in sorted(members):
        for name, cpu in sorted(fill_targets(sorted(members[cohort])).items()):
            for k, size in enumerate(_low_sizes(cpu, rnd)):
                tick += 1
                admitted.append(_workload(ns_of[name], f"run-{name[3:]}-{k:03d}-{size}", size,
                                          start + timedelta(seconds=tick), name,
                                          start + timedelta(seconds=tick + rnd.randrange(600))))
    later = start + timedelta(seconds=tick + 3600)
    pending: list[Workload] = []
    for i, cq in enumerate(cqs):
        sizes = ["large"] if rnd.random() < HIGH_LARGE_SHARE else ["medium"] * (NOMINAL // SIZES["medium"])
        for k, size in enumerate(sizes):
            pending.append(_workload(ns_of[cq.name], f"new-{cq.name[3:]}-{k}-{size}", size,
                                     later + timedelta(seconds=i * 10 + k)))
    workloads = tuple(pending) if empty else tuple(admitted) + tuple(pending)
    return base.model_copy(update={"cluster_queues": cqs, "workloads": workloads})
