"""Preemption in `optimal` mode: which admitted workloads the global model may evict, and for whom.

An admitted workload W that some pending workload may preempt under its cluster queue's policies
gets a Boolean `keep|W` in the global model (`optimal`); every other admitted workload's usage stays
fixed. The quota invariants count W's usage only while it is kept, and the objective pays for an
eviction at W's priority (see `optimal`). This module decides who is evictable, links every
eviction to a preemptor admitted in the same solution, and names preemptor and reason afterwards.

Who may be evicted (static, before solving). W is admitted in the input, not finished, not marked
evicted (those release their quota and are pending again, as in `ordered` mode), in a cluster queue
of the quota tree, holds some quota, and has no recorded topology-aware placement: the node-class
model of `optimal_place` treats the nodes of admitted placements as taken, so TAS-placed workloads
are never evicted. A pending workload P may preempt W (docs/PREEMPTION.md C1) when
- P is in W's cluster queue and its `withinClusterQueue` allows it: LowerPriority (P's priority is
  higher), LowerOrNewerEqualPriority (higher, or equal and P created strictly earlier); or
- P's queue is in a cohort, W's queue is another queue of the same cohort tree, and P's queue's
  `reclaimWithinCohort` allows it: LowerPriority, or Any.

The link (a hard constraint): W evicted ⇒ some P that may preempt it is admitted in the solution and
takes a flavor-resource F that W holds (its flavor for F's resource, with a non-zero request), and,
when P is in another queue,
- W's queue is borrowing in F: its kept admitted usage (the input's, less this solution's
  evictions, with W counted) is above its nominal quota — Kueue takes cohort victims only from
  queues that are not within nominal in the resources needing preemption (C2, C6, F1);
- without fair sharing, either P's queue ends within its nominal quota in every flavor-resource P
  takes (Kueue's reclaim without borrowing: a preemptor that borrows may not reclaim, C3/C5/C6), or
  P's queue's `borrowWithinCohort` allows reclaiming while borrowing (policy LowerPriority, W's
  priority below P's and not above `maxPriorityThreshold` when set);
- with fair sharing on, nothing more (see "looser").
So nothing is evicted unless a workload that may preempt it is admitted and uses what it frees.

Reasons given to a victim, for the preemptor chosen (highest priority, then key, among the admitted
workloads that satisfy the link): same queue `InClusterQueue`; another queue `InCohortReclamation`
when the preemptor's queue ends within nominal, else `InCohortReclaimWhileBorrowing` (classical) or
`InCohortFairSharing` (fair sharing).

Where this is looser than Kueue:
- the preemptor in the link must take a flavor-resource W held, not necessarily the one that lacked
  quota (Kueue: only the resources assigned in Preempt mode), and it need not be the workload that
  used W's room — but the objective evicts nothing the optimum doesn't need: keeping W is always
  better at W's priority, and the victim stages come right after the admission stages;
- fair sharing's share tests (F3–F6: target queue order, LessThanOrEqualToFinalShare,
  LessThanInitialShare) are not encoded: a reclaim policy may take victims from any borrowing queue
  of the tree;
- Kueue skips candidates below a cohort that is within nominal on the way to the lowest common
  ancestor (C2, C6): not encoded.
Where it is stricter:
- W's queue counts as borrowing only on the input's admitted workloads (less evictions): this run's
  admissions to W's queue don't make it borrow;
- P's queue within nominal is judged on the final state, with everything this solution admits to it;
- hierarchical cohorts: Kueue also lets a borrowing preemptor reclaim (without borrowWithinCohort)
  from queues under the lowest cohort whose quota holds it ("hierarchy" candidates); here only when
  P's own queue ends within nominal;
- TAS-placed workloads are never evicted, and evicting a workload frees no node capacity for this
  solution's placements;
- a victim is not admitted again in the same solution (Kueue requeues victims, and `ordered` mode may
  admit one again elsewhere), and workloads admitted by this solution are never victims.
Timing: Kueue evicts in one scheduling cycle and admits the preemptor in a later one; this model
compares the input with the end state only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.solver import terms as T
from kadmit.engine.compile.problem import Compiler, Problem
from kadmit.engine.preemption.candidates import (IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAIM_WHILE_BORROWING,
                                   IN_COHORT_RECLAMATION, Victim, satisfies_policy)
from kadmit.engine.quota import FR, Usage, node_id
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import ClusterQueue, Model, Workload


@dataclass(frozen=True)
class _Side:
    """What C1's policy test reads of either side (duck-typed for `preempt.satisfies_policy`)."""

    priority: int
    created: object
    buffer: object = None  # Preemptor.buffer: the optimal mode follows SchedulerTimestampPreemptionBuffer off


@dataclass(eq=False)
class Evictable:
    """An admitted workload the global model may evict, with the pending workloads that may preempt it."""

    workload: Workload
    cluster_queue: str
    priority: int
    amounts: dict[FR, int]  # milli-units held in declared flavor-resources, positive only
    pods: int
    keep: T.BoolVar
    same: list[Problem] = field(default_factory=list)  # pending in its queue, withinClusterQueue allows
    cross: list[tuple[Problem, bool]] = field(default_factory=list)  # (other queue, reclaim while borrowing)

    @property
    def key(self) -> str:
        return self.workload.key


def fair_sharing(model: Model) -> bool:
    config = model.config
    return bool(config is not None and config.fair_sharing)


def pinned_by_placement(wl: Workload) -> bool:
    """An admitted workload with a recorded topology-aware placement (never evicted here)."""
    return wl.admission is not None and any(psa.placement for psa in wl.admission.pod_sets)


def _while_borrowing(cq: ClusterQueue, p_priority: int, w_priority: int) -> bool:
    """borrowWithinCohort lets `cq`'s workloads reclaim from W while borrowing (C3)."""
    bwc = cq.preemption.borrow_within_cohort
    if bwc is None or bwc.policy == "Never" or w_priority >= p_priority:
        return False
    return bwc.max_priority_threshold is None or w_priority <= bwc.max_priority_threshold


class PreemptionModel:
    """The evictable workloads of a global model, and the terms that tie evictions to preemptors."""

    def __init__(self, model: Model, compiler: Compiler, problems: list[Problem]) -> None:
        self.compiler = compiler
        self.index: ModelIndex = compiler.index
        self.tree = compiler.tree
        self.fair = fair_sharing(model)
        self.problems = problems
        self._takes: dict[tuple[str, FR], T.Term] = {}
        self._frs: dict[str, set[FR]] = {}
        self._any: dict[tuple, T.Term] = {}
        self._within: dict[str, T.Term] = {}
        self._kept: dict[tuple[str, FR], T.Term] = {}
        self._by_root: dict[str, list[tuple[Problem, _Side]]] = {}  # pending problems per cohort tree
        for prob in problems:
            nid = node_id(prob.cluster_queue.name, False) if prob.cluster_queue is not None else None
            if nid is not None and nid in self.tree.nodes:
                side = _Side(self.index.priority(prob.workload), prob.workload.created)
                self._by_root.setdefault(self.tree.root(nid), []).append((prob, side))
        self.evictables: list[Evictable] = self._evictables(model)
        self.by_key = {e.key: e for e in self.evictables}

    # --- who may be evicted ------------------------------------------------------------------------

    def _evictables(self, model: Model) -> list[Evictable]:
        ix, tree = self.index, self.tree
        seen: set[str] = set()
        out: list[Evictable] = []
        for wl in sorted(model.workloads, key=lambda w: w.key):
            if wl.key in seen or not wl.admitted or wl.admission is None or wl.evicted:
                continue
            seen.add(wl.key)
            cq = wl.admission.cluster_queue
            nid = node_id(cq, False)
            if nid not in tree.nodes or pinned_by_placement(wl):
                continue
            amounts = {fr: v for fr, v in sorted(admitted_usage(wl).items())
                       if v > 0 and tree.entry(nid, fr).declared}
            if not amounts:
                continue  # frees nothing
            ev = Evictable(wl, cq, ix.priority(wl), amounts, sum(psa.count for psa in wl.admission.pod_sets),
                           T.BoolVar(f"keep|{wl.key}"))
            self._preemptors(ev)
            if ev.same or ev.cross:
                out.append(ev)
        return out

    def _preemptors(self, ev: Evictable) -> None:
        """The pending workloads whose queue's policy lets them preempt `ev` (C1) and that may take
        a flavor-resource it holds."""
        tree = self.tree
        w = _Side(ev.priority, ev.workload.created)
        held = set(ev.amounts)
        for prob, p in self._by_root.get(tree.root(node_id(ev.cluster_queue, False)), []):
            cq = prob.cluster_queue
            assert cq is not None
            if not (self.frs(prob) & held):
                continue
            if cq.name == ev.cluster_queue:
                if satisfies_policy(cq.preemption.within_cluster_queue, p, w):  # type: ignore[arg-type]
                    ev.same.append(prob)
            elif (tree.nodes[node_id(cq.name, False)].parent is not None
                  and satisfies_policy(cq.preemption.reclaim_within_cohort, p, w)):  # type: ignore[arg-type]
                ev.cross.append((prob, _while_borrowing(cq, p.priority, ev.priority)))

    # --- terms -------------------------------------------------------------------------------------

    def frs(self, prob: Problem) -> set[FR]:
        """The flavor-resources `prob` may take with a non-zero request."""
        got = self._frs.get(prob.workload.key)
        if got is None:
            got = set()
            for pv in prob.pod_sets:
                per_pod = self.compiler.requests(pv.pod_set, pv.group_of)
                for res, gi in pv.group_of.items():
                    if per_pod.get(res, 0) > 0:
                        got.update((fname, res) for fname, _ in pv.flavors[gi])
            self._frs[prob.workload.key] = got
        return got

    def takes(self, prob: Problem, fr: FR) -> T.Term:
        """`prob` is admitted with flavor fr[0] for a pod set that requests fr[1]."""
        key = (prob.workload.key, fr)
        got = self._takes.get(key)
        if got is None:
            lits = []
            for pv in prob.pod_sets:
                gi = pv.group_of.get(fr[1])
                if gi is None or self.compiler.requests(pv.pod_set, pv.group_of).get(fr[1], 0) <= 0:
                    continue
                lits += [v for fname, v in pv.flavors[gi] if fname == fr[0]]  # a flavor implies admitted
            got = self._takes[key] = T.or_(*lits)
        return got

    def kept(self, cq: str, fr: FR, fixed: Usage) -> T.Term:
        """A cluster queue's admitted usage of `fr` that this solution keeps, in solver units."""
        key = (cq, fr)
        got = self._kept.get(key)
        if got is None:
            res = fr[1]
            parts = [T.ite(e.keep, self.compiler.units(res, e.amounts[fr]), 0)
                     for e in self.evictables if e.cluster_queue == cq and fr in e.amounts]
            got = self._kept[key] = T.add(self.compiler.units(res, fixed.get(cq, fr)), *parts)
        return got

    def within(self, prob: Problem, cq_usage: dict[tuple[str, FR], T.Term]) -> T.Term:
        """`prob`'s queue ends within its nominal quota in every flavor-resource `prob` takes."""
        key = prob.workload.key
        got = self._within.get(key)
        if got is None:
            assert prob.cluster_queue is not None
            cq = prob.cluster_queue.name
            nid = node_id(cq, False)
            parts = []
            for fr in sorted(self.frs(prob)):
                used = cq_usage.get((cq, fr))
                if used is None:
                    continue  # undeclared: the problem takes none of it
                nominal = self.compiler.units(fr[1], self.tree.subtree(nid, fr))
                parts.append(T.implies(self.takes(prob, fr), T.le(used, nominal)))
            got = self._within[key] = T.and_(*parts)
        return got

    def _any_takes(self, who: list[tuple[Problem, bool]], fr: FR, cq_usage) -> T.Term:
        """Some of `who` takes `fr`; a (P, False) only while P's queue ends within nominal."""
        key = (tuple((p.workload.key, ok) for p, ok in who), fr)
        got = self._any.get(key)
        if got is None:
            lits = []
            for p, ok in who:
                if fr not in self.frs(p):
                    continue
                t = self.takes(p, fr)
                lits.append(t if ok else T.and_(t, self.within(p, cq_usage)))
            got = self._any[key] = T.or_(*lits)
        return got

    def borrowing(self, ev: Evictable, fr: FR, fixed: Usage) -> T.Term:
        """W's queue, with W counted, is above its nominal quota in `fr` (on the kept input usage)."""
        nid = node_id(ev.cluster_queue, False)
        res = fr[1]
        nominal = self.compiler.units(res, self.tree.subtree(nid, fr))
        return T.cmp(">", self.kept(ev.cluster_queue, fr, fixed), nominal - self.compiler.units(res, ev.amounts[fr]))

    def link(self, ev: Evictable, fixed: Usage, cq_usage: dict[tuple[str, FR], T.Term]) -> T.Term:
        """What an eviction of `ev` requires (see the module docstring)."""
        same = [(p, True) for p in ev.same]
        cross = [(p, ok or self.fair) for p, ok in ev.cross]
        parts = []
        for fr in sorted(ev.amounts):
            if same:
                parts.append(self._any_takes(same, fr, cq_usage))
            if cross:
                anyone = self._any_takes(cross, fr, cq_usage)
                if not (isinstance(anyone, T.BoolConst) and not anyone.value):
                    parts.append(T.and_(self.borrowing(ev, fr, fixed), anyone))
        return T.or_(*parts)

    def links(self, fixed: Usage, cq_usage: dict[tuple[str, FR], T.Term]) -> list[T.Term]:
        return [T.implies(T.not_(ev.keep), self.link(ev, fixed, cq_usage)) for ev in self.evictables]

    # --- objective terms ---------------------------------------------------------------------------

    def levels(self) -> list[int]:
        return sorted({e.priority for e in self.evictables}, reverse=True)

    def kept_workloads(self, priority: int) -> list[tuple[int, T.Term]]:
        return [(1, T.ite(e.keep, 1, 0)) for e in self.evictables if e.priority == priority]

    def kept_pods(self, priority: int) -> list[tuple[int, T.Term]]:
        return [(e.pods, T.ite(e.keep, 1, 0)) for e in self.evictables if e.priority == priority and e.pods]

    def stages(self) -> list[tuple[str, T.Term]]:
        """Stages to minimise after the admission stages: victims, then victims at each priority from
        the highest (the lowest level is fixed by then), then the evicted pods."""
        if not self.evictables:
            return []
        lost = lambda e: T.ite(e.keep, 0, 1)  # noqa: E731
        out = [("victims", T.lin(*((1, lost(e)) for e in self.evictables)))]
        levels = self.levels()
        for p in levels[:-1]:
            out.append((f"victims at priority {p}",
                        T.lin(*((1, lost(e)) for e in self.evictables if e.priority == p))))
        out.append(("victims' pods", T.lin(*((e.pods, lost(e)) for e in self.evictables))))
        return out

    # --- decoding ----------------------------------------------------------------------------------

    def victims(self, values: dict[str, int]) -> list[Evictable]:
        return [e for e in self.evictables if not values.get(e.keep.name, 1)]

    def preemptor(self, ev: Evictable, values: dict[str, int], fixed: Usage,
                  cq_usage: dict[tuple[str, FR], T.Term], memo: dict | None = None,
                  keep: list | None = None) -> tuple[Problem, str] | None:
        """The admitted workload named as `ev`'s preemptor, and Kueue's reason: among those the link
        accepts, the highest priority, then the first key. `memo`/`keep` share evaluations across
        calls with the same `values` (`keep` holds the terms so their ids aren't reused)."""
        memo = {} if memo is None else memo
        keep = [] if keep is None else keep

        def value(t: T.Term):
            keep.append(t)
            return T.evaluate(t, values, memo)

        found: list[tuple[int, str, Problem, str]] = []
        for prob in ev.same:
            if any(value(self.takes(prob, fr)) for fr in ev.amounts if fr in self.frs(prob)):
                found.append((-self.index.priority(prob.workload), prob.workload.key, prob, IN_CLUSTER_QUEUE))
        for prob, ok in ev.cross:
            within = bool(value(self.within(prob, cq_usage)))
            if not (ok or self.fair or within):
                continue
            if not any(value(self.takes(prob, fr)) and value(self.borrowing(ev, fr, fixed))
                       for fr in ev.amounts if fr in self.frs(prob)):
                continue
            reason = (IN_COHORT_RECLAMATION if within else
                      IN_COHORT_FAIR_SHARING if self.fair else IN_COHORT_RECLAIM_WHILE_BORROWING)
            found.append((-self.index.priority(prob.workload), prob.workload.key, prob, reason))
        if not found:
            return None
        _, _, prob, reason = min(found, key=lambda f: (f[0], f[1]))
        return prob, reason

    @staticmethod
    def victim(ev: Evictable, reason: str) -> Victim:
        return Victim(ev.key, ev.cluster_queue, reason, ev.priority)
