"""Preemption loops in ordered mode: a run whose cycles come back to a state they were in before
evicts the same workloads forever. The state is what the next cycle depends on: who holds quota,
each queue's order, what is set aside, the sticky preemptors and the evictions in flight (`States`)."""

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


MASK = (1 << 64) - 1
Place = tuple[str, str]  # ("queued" | "aside", cluster queue)


class Hashed:
    """A part of a state (`States.repeat`) that stays the same over many cycles, its hash computed
    once: a tuple hashes every item again each time it is hashed (the holders: every admitted
    workload's row, once per cycle)."""

    __slots__ = ("items", "_hash")

    def __init__(self, items: tuple) -> None:
        self.items = items
        self._hash = hash(items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hashed) and self._hash == other._hash and self.items == other.items


class States:
    """The run's states at the end of its cycles, to find the first that comes back. A queue's order
    follows from what it holds (queue order, the sticky preemptor first), so a state is who holds
    quota, the sticky preemptors, the evictions in flight, and where each waiting workload is: queued
    or set aside, in which queue. Where they are is kept as they move (`move`, by object identity), with
    a running hash of the (workload, place) pairs and a log of the moves; a state is recorded as the
    hash and the other parts, and one that matches an earlier cycle's is checked exactly: the moves
    between the two cycles must bring every workload back to where it was. So a cycle costs the moves
    it made, not a pass over every queue (15,000 waiting workloads)."""

    def __init__(self) -> None:
        self.place: dict[int, Place] = {}  # id(workload) -> where it waits
        self.hash = 0  # sum of hash((id, place)) over `place`, modulo 2**64
        self.log: list[tuple[int, Place | None, Place | None]] = []  # (id, from, to) per move
        self.seen: dict[tuple, list[tuple[int, int]]] = {}  # recorded state -> [(cycle, log length then)]

    def move(self, wl: object, to: Place | None) -> None:
        """`wl` now waits at `to` (None: it no longer waits in any queue)."""
        i = id(wl)
        old = self.place.get(i)
        if old == to:
            return
        if old is not None:
            self.hash = (self.hash - self.token(i, old)) & MASK
        if to is None:
            del self.place[i]
        else:
            self.place[i] = to
            self.hash = (self.hash + self.token(i, to)) & MASK
        if self.seen:  # moves before the first recorded state are never read
            self.log.append((i, old, to))

    @staticmethod
    def token(i: int, place: Place) -> int:
        """One (workload, place) pair's share of the hash (equal hashes are only candidates)."""
        return hash((i, place))

    def repeat(self, cycle: int, rest: tuple) -> int | None:
        """Record the state at the end of `cycle` (`rest`: holders, sticky preemptors, evictions in
        flight, each sorted); the earlier cycle whose state it is, if one was recorded."""
        key = (self.hash, len(self.place)) + rest
        earlier = self.seen.get(key)
        if earlier is not None:
            for before, at in earlier:
                if self._back(at):
                    return before
        else:
            earlier = self.seen[key] = []
        earlier.append((cycle, len(self.log)))
        return None

    def _back(self, at: int) -> bool:
        """Whether every workload moved since log position `at` is back where it was then."""
        was: dict[int, Place | None] = {}
        for i, old, _ in self.log[at:]:
            if i not in was:
                was[i] = old
        return all(self.place.get(i) == old for i, old in was.items())
