"""Admission fair sharing as Kueue v0.17 runs it: a ClusterQueue whose `admissionScope` is
UsageBasedAdmissionFairSharing, under a Configuration with `admissionFairSharing`, takes its
pending workloads lowest LocalQueue usage first, then by priority, creation time and name
(pkg/cache/queue/cluster_queue.go, queueOrderingFunc).

A LocalQueue's usage is `sum(weight[r] * (consumed[r] + penalty[r])) / its fairSharing weight`
(a weight of 0 gives +Inf, or NaN for no usage, which Go's cmp.Compare orders before every number)
(workload.CalcFSUsageFromResources; resource weights default to 1; amounts in milli-units, truncated
where Kueue's resource.MulByFloat truncates, weighed in whole units):
- `consumed` is the LocalQueue's `status.fairSharing.admissionFairSharingStatus.consumedResources`
  (none: 0). Kueue's LocalQueue controller decays it toward the queue's admitted usage once per
  sampling interval; a run of scheduling cycles is seconds long, so it stays as the input has it.
- `penalty`: each admission adds its workload's total requests x alpha, alpha = 1 - 0.5^(sampling
  interval / half-life) (scheduler.updateEntryPenalty), and so does each second pass that places a workload
  (assumeWorkload again; a write the API server refuses takes it back). In v0.17 nothing takes it back on success:
  the workload controller's `updateAfsConsumedUsage` would, but Kueue never gives that controller its
  admission-fair-sharing settings (pkg/controller/core/core.go), so the code is not reached. While a
  penalty is pending, the queue's heap is rebuilt at every pop: the order is always the full sort.
Preemption inside such a queue takes, among candidates of other LocalQueues of the same ClusterQueue,
the higher usage first (preemption/common/ordering.go, `usage_of`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kadmit.model import Model, Workload


def _alpha(elapsed_s: float, half_life_s: float) -> float:
    """calculateAlphaRate: the share of a sample that counts after `elapsed_s` seconds."""
    if half_life_s == 0:
        return 0.0
    return 1.0 - math.pow(0.5, elapsed_s / half_life_s)


class AdmissionFairSharing:
    """Each LocalQueue's usage through a run, and the order it gives."""

    def __init__(self, model: Model) -> None:
        cfg = model.config.admission_fair_sharing if model.config is not None else None
        self.config = cfg
        self.queues: set[str] = {cq.name for cq in model.cluster_queues if cq.admission_fair_sharing} if cfg else set()
        self.weights = {lq.key: (lq.fair_sharing.weight / 1000 if lq.fair_sharing is not None else 1.0)
                        for lq in model.local_queues}
        self.consumed: dict[str, dict[str, int]] = {
            lq.key: dict(lq.afs_consumed) for lq in model.local_queues if lq.afs_consumed}
        self.penalties: dict[str, dict[str, int]] = {}
        self.rate = 0.0 if cfg is None else _alpha(cfg.usage_sampling_interval_ms / 1000, cfg.usage_half_life_ms / 1000)

    def state(self) -> tuple:
        """The entry penalties taken so far, sorted: part of a run's state (the consumed resources
        don't change during a run). A preemption loop through a queue under admission fair sharing
        adds a penalty in every period, so its state never repeats and it runs to the cycle bound,
        as in Kueue."""
        return tuple(sorted((lq, tuple(sorted(p.items()))) for lq, p in self.penalties.items()))

    def enabled(self, cluster_queue: str | None) -> bool:
        return cluster_queue in self.queues

    def usage(self, lq_key: str) -> float:
        """The LocalQueue's weighted usage (CalcFSUsageFromResources)."""
        if self.config is None:
            return 0.0
        consumed, penalty = self.consumed.get(lq_key, {}), self.penalties.get(lq_key, {})
        weights = self.config.resource_weights
        total = 0.0
        for r in sorted(consumed.keys() | penalty.keys()):
            total += weights.get(r, 1.0) * (consumed.get(r, 0) + penalty.get(r, 0)) / 1000
        weight = self.weights.get(lq_key, 1.0)
        if not weight:  # Go's float division by a weight of 0: +Inf, and NaN for 0/0
            return math.inf if total > 0 else math.nan
        return total / weight

    def usage_of(self, wl: Workload, cluster_queue: str | None) -> float | None:
        """The usage of the workload's LocalQueue where its ClusterQueue uses admission fair
        sharing, else None (Kueue's LocalQueueFSUsage, nil there)."""
        if cluster_queue not in self.queues:
            return None
        return self.usage(f"{wl.namespace}/{wl.queue}")

    def order(self, wl: Workload, cluster_queue: str | None) -> float:
        """The first key of a workload's place in its queue (0 where it has no effect)."""
        usage = self.usage_of(wl, cluster_queue)
        if usage is None:
            return 0.0
        return -math.inf if math.isnan(usage) else usage  # cmp.Compare puts NaN before every number

    def admitted(self, wl: Workload, cluster_queue: str) -> None:
        """`wl` was admitted: its LocalQueue takes the entry penalty of its total requests."""
        if cluster_queue not in self.queues:
            return
        penalty = self.penalties.setdefault(f"{wl.namespace}/{wl.queue}", {})
        totals: dict[str, int] = {}
        for ps in wl.pod_sets:
            for res, q in ps.requests.items():
                totals[res] = totals.get(res, 0) + q * ps.count
        for res, q in totals.items():  # resource.MulByFloat: milli-units, truncated
            penalty[res] = penalty.get(res, 0) + int(q * self.rate)


def stalled_by(session) -> list[Workload]:
    """The Workloads holding quota that make Kueue's every scheduling cycle fail, sorted by key: under admission
    fair sharing, Kueue's snapshot computes the LocalQueue usage of each Workload held in an active ClusterQueue
    that uses it, reading its LocalQueue (workload.CalcLocalQueueFSUsage); one whose LocalQueue doesn't exist
    fails the read, `Cache.Snapshot` fails ("failed to calculate LocalQueue FS usage", snapshot.go), and
    `scheduler.schedule` returns before it nominates anything, in every ClusterQueue (KAD542). Inactive
    ClusterQueues are left out of the snapshot, and so are their Workloads. A Workload evicted in the input is
    not counted: kadmit releases its quota before the first cycle (so a session not yet run, `kadmit check`'s,
    gets the same answer). None: Kueue schedules as usual."""
    afs: AdmissionFairSharing = session.afs
    if not afs.queues:
        return []
    ix = session.index
    out = []
    for h in session.holders.values():
        if h.cluster_queue not in afs.queues:
            continue
        wl = ix.workloads[h.workload]
        if wl.evicted and not h.new:
            continue
        if f"{wl.namespace}/{wl.queue}" not in ix.local_queues \
                and not session.compiler.inactive(ix.cluster_queues[h.cluster_queue]):
            out.append(wl)
    return sorted(out, key=lambda w: w.key)


STALL_HELP = "create the LocalQueue (or finish the Workload); until then no workload is admitted"


@dataclass(frozen=True)
class Stall:
    """Why Kueue schedules nothing (KAD542), and where each Workload that makes its snapshot fail is written."""

    message: str
    holders: tuple[tuple[str, object], ...]  # (its key, its span or None)


def stall(holders: list[Workload], session) -> Stall:
    """The KAD542 of `stalled_by`'s Workloads (Kueue's error names one of them, by Go's map order: the first here)."""
    named = "; ".join(f"Workload {w.key} holds quota in ClusterQueue {session.holders[w.key].cluster_queue} and "
                      f"names LocalQueue {w.queue}, which doesn't exist" for w in holders)
    return Stall(f"Kueue schedules nothing: its snapshot fails every cycle (\"failed to calculate LocalQueue FS usage "
                 f"for LocalQueue {holders[0].namespace}/{holders[0].queue}\"), as admission fair sharing reads the "
                 f"LocalQueue of every Workload holding quota: {named}",
                 tuple((w.key, session.holders[w.key].span or w.span) for w in holders))


def _candidate_usage(snap, c) -> float:
    afs: AdmissionFairSharing = snap.session.afs
    wl = snap.index.workloads.get(c.key)
    usage = afs.usage_of(wl, c.cluster_queue) if wl is not None else None
    if usage is None:
        return 0.0
    return math.inf if math.isnan(usage) else -usage  # cmp.Compare(b, a): a NaN usage comes last


def candidate_order(snap, c, preemptor_cq: str) -> tuple:
    """`CandidatesOrdering` with admission fair sharing: after "already evicted" and "other queues
    first", candidates of a ClusterQueue that uses it come from the LocalQueue that used more
    first. (Kueue compares two candidates so only when both are in one ClusterQueue and from
    different LocalQueues; as a sort key, candidates of different queues that both use it are
    compared too.)"""
    base = c.order(preemptor_cq)
    if not snap.session.afs.queues:
        return base
    return base[:2] + (_candidate_usage(snap, c),) + base[2:]


def candidate_rank(snap, c) -> tuple:
    """`candidate_order` without the queue's part (`Candidate.rank`), for candidates of one group."""
    if not snap.session.afs.queues:
        return c.rank
    return c.rank[:1] + (_candidate_usage(snap, c),) + c.rank[1:]
