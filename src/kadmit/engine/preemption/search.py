"""Preemption in the engine: which admitted workloads a pending one evicts, as Kueue decides it.

The rules are Kueue v0.20's, as written down in docs/PREEMPTION.md (section numbers below refer to
it). This module works on the engine's own state — the session's quota tree and usage, and its
holders (admitted workloads) — and is written independently of `kadmit.reference`, which replays
the same rules in plain Python as the oracle the engine is tested against.

Everything here is arithmetic on a `Snapshot`: a copy of the session's usage plus the admitted
workloads per cluster queue, which the searches remove and add back freely; the session itself is
never changed. Entry points:

- `find_targets(session, preemptor)`: Kueue's `GetTargets` — classical preemption (§3) when fair
  sharing is off, fair-sharing preemption (§4) when the model's scheduler configuration turns it
  on; victims in the order Kueue lists them, or [] when evicting every allowed candidate would
  still leave the preemptor short (nothing is evicted in vain).
- `oracle(...)`: the preemption oracle the flavor assigner asks about one flavor-resource (§2 A5);
  `lowest_subtree(...)`: Q4's borrowing height and "may reclaim in the hierarchy" flag.
- `fair_share(session, node_id, extra)`: a node's dominant resource share (D1–D2), comparable.
- `fair_order(session, entries)` / `fair_pick(...)`: the fair-sharing admission tournament (T1–T2).

Candidates' quota-reservation time is `admission.admitted_at` (else creation time); workloads
admitted in this run (`Holder.new`) count as reserved after every input workload, in commit order
(the reference replay instead stamps them per cycle, so two admitted in one cycle tie there and
break by key).
"""

from __future__ import annotations

from collections.abc import Callable

from kadmit.engine.quota import FR, node_id
from kadmit.engine.preemption.candidates import (  # noqa: F401 (the package's public names)
    DEFAULT_STRATEGIES, HUMAN_REASONS, IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAIM_WHILE_BORROWING,
    IN_COHORT_RECLAMATION, NO_CANDIDATES, PREEMPT, RECLAIM, Candidate, Preemptor, Victim, buffer, candidates_of,
    satisfies_policy)
from kadmit.engine.preemption.classical import classical_targets
from kadmit.engine.preemption.fair_sharing import fair_order, fair_pick, fair_strategies, fair_targets  # noqa: F401
from kadmit.engine.preemption.snapshot import Share, Snapshot  # noqa: F401


# --- entry points ---------------------------------------------------------------------------------

def search(snap: Snapshot, p: Preemptor) -> list[Victim]:
    """`GetTargets` on a snapshot, which is left with the targets removed."""
    spec = snap.index.cluster_queues.get(p.cluster_queue)
    if spec is None or node_id(p.cluster_queue, False) not in snap.tree.nodes or not p.needs:
        return []
    if not may_preempt(spec, snap.parent(node_id(p.cluster_queue, False)) is not None):
        return []  # no candidate, whatever is admitted (both strategies' findCandidates)
    snap.load_candidates()
    strategies = fair_strategies(snap.session)
    if strategies is not None:
        return fair_targets(snap, p, spec, strategies)
    return classical_targets(snap, p, spec)


def may_preempt(spec, in_cohort: bool) -> bool:
    """Whether the queue's preemption policies allow any candidate at all: Kueue's candidate
    collection (classical `collectSameQueueCandidates` / `collectCandidatesForHierarchicalReclaim`,
    fair sharing's `findCandidates`) takes the queue's own workloads only when withinClusterQueue
    isn't Never, and other queues' only in a cohort with reclaimWithinCohort not Never. With
    Kueue's defaults (both Never) nothing can be preempted, so the search is skipped."""
    p = spec.preemption
    return p.within_cluster_queue != "Never" or (in_cohort and p.reclaim_within_cohort != "Never")


def find_targets(session, preemptor: Preemptor,
                 placeable: Callable[[frozenset[str]], bool] | None = None) -> list[Victim]:
    """Kueue's `GetTargets`: the victims, in the order Kueue lists them, or [] when preempting
    every allowed candidate would still not make the preemptor fit. "Fits" is quota, and with
    `placeable` (topology-aware scheduling: can the preemptor be placed with these workloads
    gone?) topology too, as Kueue's workloadFits. Never changes the session."""
    spec = session.index.cluster_queues.get(preemptor.cluster_queue)
    nid = node_id(preemptor.cluster_queue, False)
    nodes = session.compiler.tree.nodes
    if spec is None or nid not in nodes or not may_preempt(spec, nodes[nid].parent is not None):
        return []  # as `search` would answer, without copying the usage first
    return search(Snapshot(session, placeable=placeable), preemptor)


def oracle(session, cluster_queue: str, preemptor_key: str, priority: int, created, fr: FR,
           val: int) -> tuple[str, int]:
    """§2 A5 (`SimulatePreemption`): the search for a preemptor needing only `val` of `fr`.
    No targets → NoCandidates with the borrowing height as things are; else Preempt (a target in
    the preemptor's own queue) or Reclaim, with the borrowing height once the targets are gone.
    The answer depends on the admitted set, the usage and the preemptor's queue, priority and time
    (not its name: it is pending, never a candidate), so it is kept per those — its time only where
    the queue's policies compare it (LowerOrNewerEqualPriority, `satisfies_policy`)."""
    spec = session.index.cluster_queues.get(cluster_queue)
    if spec is not None and "LowerOrNewerEqualPriority" not in (spec.preemption.within_cluster_queue,
                                                               spec.preemption.reclaim_within_cohort):
        created = None  # read by nothing then: oracles of workloads of one priority share an answer
    key = (getattr(session, "version", None), session.usage, session.usage.version, cluster_queue, priority,
           created, fr, val)
    cache = session.__dict__.setdefault("_oracle_cache", {})
    if key[0] is not None and key in cache:
        return cache[key]
    if len(cache) > 100_000:
        cache.clear()
    cache[key] = got = _oracle(session, cluster_queue, preemptor_key, priority, created, fr, val)
    return got


def _oracle(session, cluster_queue: str, preemptor_key: str, priority: int, created, fr: FR,
            val: int) -> tuple[str, int]:
    p = Preemptor(preemptor_key, cluster_queue, priority, created, {fr: val}, frozenset({fr}), buffer(session))
    nid = node_id(cluster_queue, False)
    tree = session.compiler.tree
    if nid not in tree.nodes:
        return NO_CANDIDATES, 0
    spec = session.index.cluster_queues.get(cluster_queue)
    if spec is None or not may_preempt(spec, tree.nodes[nid].parent is not None):
        return NO_CANDIDATES, Snapshot.reading(session).lowest_subtree_that_fits(cluster_queue, fr, val)[0]
    snap = Snapshot(session)
    targets = search(snap, p)
    height = snap.lowest_subtree_that_fits(cluster_queue, fr, val)[0]
    if not targets:
        return NO_CANDIDATES, height
    return (PREEMPT if any(t.cluster_queue == cluster_queue for t in targets) else RECLAIM), height


def lowest_subtree(session, cluster_queue: str, fr: FR, val: int) -> tuple[int, bool]:
    """Q4 on the session's usage: the borrowing height of `val` more of `fr` in the queue, and
    whether the queue may reclaim within part of the hierarchy (the flavor assigner asks the
    oracle when it may, §2 A2)."""
    if node_id(cluster_queue, False) not in session.compiler.tree.nodes:
        return 0, False
    return Snapshot.reading(session).lowest_subtree_that_fits(cluster_queue, fr, val)


def fair_share(session, node_id: str, extra: dict[FR, int] | None = None) -> Share:
    """D1–D2: the dominant resource share of a quota node (`cq:NAME` / `cohort:NAME`) on the
    session's usage, with `extra` added to the node's own usage. Shares compare as Kueue's
    `CompareDRS`; `.value` is the weighted share (0 without a ratio, +inf for a zero weight)."""
    return Snapshot.reading(session).share(node_id, extra)
