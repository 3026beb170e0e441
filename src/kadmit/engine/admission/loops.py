"""Preemption loops in ordered mode: a run whose cycles come back to a state they were in before
evicts the same workloads forever. The state is what the next cycle depends on: who holds quota,
each queue's order, what is set aside, the sticky preemptors and the evictions in flight."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING,
                                             IN_COHORT_RECLAIM_WHILE_BORROWING)
from kadmit.model import ClusterQueue
from kadmit.source import Span


@dataclass(frozen=True)
class Eviction:
    cycle: int
    victim: str
    preemptor: str
    cluster_queue: str  # the preemptor's
    reason: str


@dataclass(frozen=True)
class Rule:
    """The preemption setting of a cluster queue that allowed an eviction in the loop."""

    cluster_queue: str
    field: str  # Kueue's field name, e.g. `preemption.withinClusterQueue`
    value: str
    span: Span | None

    @property
    def text(self) -> str:
        """In the input's own vocabulary: Kueue's field names for manifests, `.kad` names for `.kad`."""
        if self.span is not None and self.span.file.endswith(".kad"):
            kad = {"preemption.withinClusterQueue": "preemption.within_cluster_queue",
                   "preemption.reclaimWithinCohort": "preemption.reclaim_within_cohort",
                   "preemption.borrowWithinCohort.policy": "preemption.borrow_within_cohort"}
            name = next((v + self.field[len(k):] for k, v in kad.items() if self.field.startswith(k)), self.field)
            return f"cluster queue `{self.cluster_queue}` {name} = {self.value}"
        return f"cluster queue `{self.cluster_queue}` {self.field}: {self.value}"


@dataclass
class PreemptionLoop:
    """Cycles `first`..`last` repeat forever; `settled` False: the bound on cycles was hit instead."""

    first: int
    last: int
    workloads: list[str]
    evictions: list[Eviction]
    rules: list[Rule] = field(default_factory=list)
    settled: bool = True

    def message(self) -> str:
        if not self.settled:
            return (f"the run did not settle within {self.last} scheduling cycles; still moving: "
                    + ", ".join(f"`{w}`" for w in self.workloads))
        evs = sorted({(e.preemptor, e.victim, e.reason) for e in self.evictions})
        what = "; ".join(f"`{p}` preempts `{v}` ({r})" for p, v, r in evs)
        rules = "; ".join(r.text for r in self.rules) or "the queues' preemption settings"
        return (f"preemption loop: every {self.last - self.first} cycle(s) from cycle {self.first + 1} the run "
                f"returns to the same state — {what}; the loop is allowed by {rules}")

    def as_dict(self) -> dict:
        return {"workloads": self.workloads, "first_cycle": self.first + 1, "period": self.last - self.first,
                "settled": self.settled,
                "evictions": [{"cycle": e.cycle, "victim": e.victim, "preemptor": e.preemptor,
                               "reason": e.reason} for e in self.evictions],
                "rules": [{"cluster_queue": r.cluster_queue, "field": r.field, "value": r.value,
                           "file": r.span.file if r.span else None, "line": r.span.line if r.span else None}
                          for r in self.rules],
                "message": self.message()}


def rule_of(cq: ClusterQueue, reason: str, strategies: tuple[str, ...]) -> Rule:
    """Which of the preemptor's queue settings let it evict under `reason` (Kueue's reasons)."""
    p = cq.preemption
    span = cq.field_span("preemption") or cq.span

    def at(name: str) -> Span | None:
        return p.field_span(name) or span
    if reason == IN_CLUSTER_QUEUE:
        return Rule(cq.name, "preemption.withinClusterQueue", p.within_cluster_queue, at("within_cluster_queue"))
    if reason == IN_COHORT_RECLAIM_WHILE_BORROWING:
        bwc = p.borrow_within_cohort
        return Rule(cq.name, "preemption.borrowWithinCohort.policy", bwc.policy if bwc else "Never",
                    (bwc.span if bwc else None) or span)
    if reason == IN_COHORT_FAIR_SHARING:
        return Rule(cq.name, "preemption.reclaimWithinCohort (fair sharing: "
                    + ", ".join(strategies) + ")", p.reclaim_within_cohort, at("reclaim_within_cohort"))
    return Rule(cq.name, "preemption.reclaimWithinCohort", p.reclaim_within_cohort, at("reclaim_within_cohort"))


def loop_of(first: int, last: int, evictions: list[Eviction], cluster_queues: dict[str, ClusterQueue],
            strategies: tuple[str, ...]) -> PreemptionLoop:
    window = [e for e in evictions if first < e.cycle <= last]
    workloads = sorted({e.victim for e in window} | {e.preemptor for e in window})
    rules: dict[tuple, Rule] = {}
    for e in window:
        cq = cluster_queues.get(e.cluster_queue)
        if cq is not None:
            r = rule_of(cq, e.reason, strategies)
            rules.setdefault((r.cluster_queue, r.field), r)
    return PreemptionLoop(first, last, workloads, window, [rules[k] for k in sorted(rules)])
