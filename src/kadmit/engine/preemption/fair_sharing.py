"""Kueue's fair sharing: fair-sharing preemption (§4 F1–F5, S2) and the admission tournament (T1–T2)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from kadmit.engine.afs import candidate_order
from kadmit.featuregates import enabled
from kadmit.engine.quota import FR, Usage, node_id
from kadmit.engine.preemption.candidates import (DEFAULT_STRATEGIES, IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING,
                                                 LESS_THAN_INITIAL_SHARE, LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
                                                 IN_COHORT_RECLAMATION, Candidate, Preemptor, Victim, satisfies_policy)
from kadmit.engine.preemption.snapshot import Share, Snapshot, compare_shares, fill_back, victims_of
from kadmit.model import ClusterQueue, Workload


# --- fair-sharing preemption (§4) -------------------------------------------------------------------

class _TargetQueues:
    """F3 (`TargetClusterQueueOrdering`): from the root, descend into the child with the highest
    share — a cohort beats queues on a tie, the later of equal cohorts wins, and among queues of
    equal share the one whose next candidate comes first — pruning queues without candidates or
    not borrowing (the preemptor's own queue only once out of candidates) and cohorts not
    borrowing that are not above the preemptor. Shares are recomputed at every step."""

    def __init__(self, snap: Snapshot, p: Preemptor, candidates: list[Candidate]) -> None:
        self.snap, self.p = snap, p
        self.by_cq: dict[str, deque[Candidate]] = {}
        for c in candidates:
            self.by_cq.setdefault(c.cluster_queue, deque()).append(c)
        self.me = node_id(p.cluster_queue, False)
        self.above = set(snap.ancestors(self.me))
        self.pruned: set[str] = set()

    def has(self, cq: str) -> bool:
        return bool(self.by_cq.get(cq))

    def pop(self, cq: str) -> Candidate:
        return self.by_cq[cq].popleft()

    def drop(self, cq: str) -> None:
        self.pruned.add(node_id(cq, False))

    def __iter__(self) -> Iterator[str]:
        if self.snap.parent(self.me) is None:
            while self.has(self.p.cluster_queue):
                yield self.p.cluster_queue
            return
        root = self.snap.tree.root(self.me)
        while root not in self.pruned:
            cq = self._descend(root)
            if cq is not None:
                yield cq

    def _descend(self, cohort: str) -> str | None:
        """The queue to take the next candidate from, descending from `cohort` (a loop: trees of
        any depth)."""
        while True:
            cohort, queue = self._step(cohort)
            if queue is not None or cohort is None:
                return queue

    def _step(self, cohort: str) -> tuple[str | None, str | None]:
        """One level of the descent: (the cohort to descend into, None) or (None, the queue or None)."""
        snap = self.snap
        nodes = snap.tree.nodes
        children = sorted(nodes[cohort].children, key=lambda n: nodes[n].name)
        best_q: str | None = None
        best_q_share: Share | None = None
        for ch in children:
            if nodes[ch].is_cohort or ch in self.pruned:
                continue
            name = nodes[ch].name
            s = snap.share(ch)
            if (not s.borrows and ch != self.me) or not self.has(name):
                self.pruned.add(ch)
            elif best_q is None or s > best_q_share:
                best_q, best_q_share = ch, s
            elif s == best_q_share and (self.by_cq[name][0].order(self.p.cluster_queue)
                                        < self.by_cq[nodes[best_q].name][0].order(self.p.cluster_queue)):
                best_q = ch
        best_c: str | None = None
        best_c_share: Share | None = None
        for ch in children:
            if not nodes[ch].is_cohort or ch in self.pruned:
                continue
            s = snap.share(ch)
            if not s.borrows and ch not in self.above:
                self.pruned.add(ch)
            elif best_c is None or s >= best_c_share:
                best_c, best_c_share = ch, s
        if best_c is None and best_q is None:
            self.pruned.add(cohort)
            return None, None
        if best_c is not None and (best_q is None or best_c_share >= best_q_share):
            return best_c, None
        assert best_q is not None
        return None, nodes[best_q].name


def _fair_candidates(snap: Snapshot, p: Preemptor, spec: ClusterQueue) -> list[Candidate]:
    """F1 (`findCandidates`)."""
    me = node_id(p.cluster_queue, False)
    out: list[Candidate] = []
    within = spec.preemption.within_cluster_queue
    if within != "Never":
        out += [c for c in snap.admitted(p.cluster_queue) if satisfies_policy(within, p, c) and c.uses(p.needs)]
    reclaim = spec.preemption.reclaim_within_cohort
    if snap.parent(me) is not None and reclaim != "Never":
        stack = [snap.tree.root(me)]
        while stack:
            nid = stack.pop()
            node = snap.tree.nodes[nid]
            if node.is_cohort:
                stack.extend(node.children)
            elif nid != me and snap.is_borrowing_in(nid, p.needs):
                out += [c for c in snap.admitted(node.name) if satisfies_policy(reclaim, p, c) and c.uses(p.needs)]
    out.sort(key=lambda c: candidate_order(snap, c, p.cluster_queue))
    return out


def _rule_passes(rule: str, p_new: Share, t_old: Share, t_new: Share | None) -> bool:
    """F5: S2-a `pNew <= tNew`, S2-b `pNew < tOld`."""
    if rule == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        assert t_new is not None
        return compare_shares(p_new, t_new) <= 0
    return compare_shares(p_new, t_old) < 0


def fair_targets(snap: Snapshot, p: Preemptor, spec: ClusterQueue, strategies: tuple[str, ...]) -> list[Victim]:
    """§4 F1–F7. The preemptor's usage sits on its queue for every share computation and is
    lifted for every fit check. The snapshot is left with the targets removed (or as found)."""
    candidates = _fair_candidates(snap, p, spec)
    if not candidates:
        return []
    rules = tuple(strategies) or DEFAULT_STRATEGIES
    me = node_id(p.cluster_queue, False)
    taken: list[tuple[Candidate, str]] = []

    def take(c: Candidate, reason: str) -> list[Victim] | None:
        snap.remove(c)
        taken.append((c, reason))
        snap.sub(p.cluster_queue, p.usage)
        if snap.fits(p, True):
            return victims_of(fill_back(snap, p, taken, True))
        snap.plus(p.cluster_queue, p.usage)
        return None

    snap.plus(p.cluster_queue, p.usage)
    # FairSharingPreemptWithinNominal (its gate on): decided once, with the preemptor counted
    within = enabled(snap.session.model.config, "FairSharingPreemptWithinNominal") and \
        not any(snap.borrowing_with(me, fr, 0) for fr in p.needs)
    retry: list[Candidate] = []
    order = _TargetQueues(snap, p, candidates)
    for cq in order:
        if cq == p.cluster_queue:
            got = take(order.pop(cq), IN_CLUSTER_QUEUE)
        elif within:
            got = take(order.pop(cq), IN_COHORT_RECLAMATION)
        else:
            pa, ta = snap.almost_lcas(p.cluster_queue, cq)
            p_new, t_old = snap.share(pa), snap.share(ta)
            got = None
            if p_new.zero_weight_borrows and not t_old.zero_weight_borrows:
                while order.has(cq):
                    retry.append(order.pop(cq))
                continue
            while order.has(cq):
                c = order.pop(cq)
                snap.sub(c.cluster_queue, c.amounts)
                t_new = snap.share(ta)
                snap.plus(c.cluster_queue, c.amounts)
                if _rule_passes(rules[0], p_new, t_old, t_new):
                    got = take(c, IN_COHORT_FAIR_SHARING)
                    break
                retry.append(c)
        if got is not None:
            return got
    if len(rules) > 1 and retry:
        # the second rule can only be LessThanInitialShare (Kueue's configuration validation)
        second = _TargetQueues(snap, p, retry)
        for cq in second:
            pa, ta = snap.almost_lcas(p.cluster_queue, cq)
            passed = _rule_passes(LESS_THAN_INITIAL_SHARE, snap.share(pa), snap.share(ta), None)
            c = second.pop(cq)
            second.drop(cq)
            if passed:
                got = take(c, IN_COHORT_FAIR_SHARING)
                if got is not None:
                    return got
    snap.sub(p.cluster_queue, p.usage)
    for c, _ in taken:
        snap.add(c)
    return []


def fair_strategies(session) -> tuple[str, ...] | None:
    """The fair-sharing preemption rules in force, or None while fair sharing is off."""
    config = session.model.config
    if config is None or not config.fair_sharing:
        return None
    return tuple(config.strategies) or DEFAULT_STRATEGIES


# --- the fair-sharing admission tournament (§4 T1–T2) ---------------------------------------------

Entry = tuple  # (workload, cluster queue name, usage {FR: milli})


@dataclass
class _Contender:
    pos: int
    entry: Entry
    wl: Workload
    cq: str
    usage: dict[FR, int]
    shares: dict[str, Share] = field(default_factory=dict)  # parent cohort -> share of the child on the path


def _pick(snap: Snapshot, entries: list[Entry]) -> int:
    """The position of the entry Kueue processes next."""
    tree = snap.tree
    order = sorted(range(len(entries)), key=lambda i: (entries[i][1], i))
    first = order[0]
    nid = node_id(entries[first][1], False)
    if nid not in tree.nodes or tree.nodes[nid].parent is None:
        return first  # queues without a cohort: in name order
    root = tree.root(nid)
    members: dict[str, list[_Contender]] = {}
    for i in order:
        wl, cq, usage = entries[i]
        n = node_id(cq, False)
        if n not in tree.nodes or tree.nodes[n].parent is None or tree.root(n) != root:
            continue
        c = _Contender(i, entries[i], wl, cq, dict(usage))
        snap.plus(cq, c.usage)
        s = snap.share(n)
        for anc in snap.ancestors(n):
            c.shares[anc] = s
            s = snap.share(anc)
        snap.sub(cq, c.usage)
        members.setdefault(n, []).append(c)

    config = snap.session.model.config
    non_borrowing_first = enabled(config, "FairSharingPrioritizeNonBorrowing")
    by_priority = enabled(config, "PrioritySortingWithinCohort")

    def less(a: _Contender, b: _Contender, cohort: str) -> bool:
        """entryComparer.less: rule 1 (not borrowing on the flavors it requests) and rule 3 (priority) each
        only with its gate on."""
        sa, sb = a.shares[cohort], b.shares[cohort]
        if non_borrowing_first:
            ba, bb = sa.borrows_on(a.usage), sb.borrows_on(b.usage)
            if ba != bb:
                return not ba
        c = compare_shares(sa, sb)
        if c != 0:
            return c < 0
        pa, pb = snap.index.priority(a.wl), snap.index.priority(b.wl)
        if pa != pb and by_priority:
            return pa > pb
        return a.wl.created < b.wl.created

    nodes = tree.nodes
    winners: dict[str, _Contender | None] = {}
    for cohort in tree.bottom_up(root):  # children's tournaments before their parent's
        if not nodes[cohort].is_cohort:
            continue
        children = sorted(nodes[cohort].children, key=lambda n: nodes[n].name)
        pool: list[_Contender] = [w for w in (winners[ch] for ch in children if nodes[ch].is_cohort)
                                  if w is not None]
        for ch in children:
            if not nodes[ch].is_cohort:
                pool += members.get(ch, [])
        best = pool[0] if pool else None
        for cur in pool[1:]:
            if less(cur, best, cohort):
                best = cur
        winners[cohort] = best
    winner = winners[root]
    assert winner is not None
    return winner.pos


def fair_pick(session, entries: list[Entry], usage: Usage | None = None) -> Entry:
    """T1–T2: the entry Kueue's fair-sharing iterator processes next, against `usage` (default:
    the session's). An entry is (workload, cluster queue, usage {FR: milli})."""
    return entries[_pick(Snapshot(session, usage), list(entries))]


def fair_order(session, entries: list[Entry]) -> list[Entry]:
    """The entries in the order Kueue's fair-sharing iterator processes them: one pick at a time,
    each pick's usage added (on a copy of the session's usage) before the next. Queues without a
    cohort come in name order; a cohort tree's pick is its tournament's winner."""
    snap = Snapshot(session)
    left = list(entries)
    out: list[Entry] = []
    while left:
        e = left.pop(_pick(snap, left))
        out.append(e)
        if node_id(e[1], False) in snap.tree.nodes:
            snap.plus(e[1], dict(e[2]))
    return out
