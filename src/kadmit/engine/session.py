"""Incremental Z3 sessions: compile a cluster state once, then decide, explain and try changes.

A `Session` holds the world as numbers (admitted usage per cluster queue and flavor-resource) and a
Z3 solver. Deciding one workload compiles only that workload's choices; each of its tracked
constraints is asserted once as `Implies(literal, C)` inside a push/pop scope, and questions are
`check(*assumptions)`. Usage of admitted workloads never becomes variables on the deciding path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterator

import z3

from kadmit.engine import terms as T
from kadmit.engine.compile import Compiler, Problem
from kadmit.engine.quota import FR, Usage
from kadmit.engine.symbolic import Holder
from kadmit.engine.z3backend import Limits, Lowering, Outcome, make_solver, outcome
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import Model, Workload


class SolverUnknown(Exception):
    """A check came back `unknown` within the limits; callers report it honestly."""


@dataclass
class Assignment:
    """One way to admit a workload: a count and a flavor per requested resource, per pod set."""

    cluster_queue: str
    counts: dict[str, int]
    flavors: dict[str, dict[str, str]]  # pod set -> resource -> flavor
    borrowing: bool
    usage: dict[FR, int]  # milli-units taken


@dataclass
class Stats:
    checks: int = 0
    unknown: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"checks": self.checks, "unknown": self.unknown, "solve_seconds": round(self.seconds, 3)}


@dataclass
class Loaded:
    """A problem asserted in the current scope: its literals by origin id."""

    problem: Problem
    lits: dict[str, z3.BoolRef] = field(default_factory=dict)
    low: Lowering | None = None

    def goal(self) -> list[z3.BoolRef]:
        """Assumptions for "the whole workload is admitted": adm, and no pod set skipped."""
        assert self.low is not None
        return [self.low(self.problem.admitted)] + [z3.Not(self.low(pv.skip)) for pv in self.problem.pod_sets]


class Session:
    """A cluster state compiled once; questions about single workloads answered incrementally."""

    def __init__(self, model: Model, limits: Limits | None = None) -> None:
        self.model = model
        self.limits = limits or Limits()
        self.index = ModelIndex(model)
        self.compiler = Compiler(model, self.index)
        self.solver = make_solver(self.limits)
        self.stats = Stats()
        self.usage = Usage()
        self.holders: dict[str, Holder] = {}
        for wl in sorted(model.workloads, key=lambda w: w.key):
            if wl.admitted and wl.admission is not None:
                amounts = admitted_usage(wl)
                self.usage.add(wl.admission.cluster_queue, amounts)
                self.holders[wl.key] = Holder(wl.key, wl.admission.cluster_queue, amounts,
                                              wl.admission.span or wl.span)

    # --- state changes ----------------------------------------------------------------------------

    def commit(self, wl: Workload, a: Assignment) -> None:
        """Record `wl` as admitted with assignment `a` (its usage now counts)."""
        self.usage.add(a.cluster_queue, a.usage)
        self.holders[wl.key] = Holder(wl.key, a.cluster_queue, dict(a.usage), wl.span, new=True)

    def finish(self, key: str) -> None:
        """An admitted workload finished: its usage is released."""
        h = self.holders.pop(key, None)
        if h is not None:
            self.usage.add(h.cluster_queue, {fr: -v for fr, v in h.amounts.items()})

    # --- solving ----------------------------------------------------------------------------------

    def check(self, *assumptions: z3.BoolRef) -> Outcome:
        t0 = time.perf_counter()
        r = outcome(self.solver.check(*assumptions))
        self.stats.seconds += time.perf_counter() - t0
        self.stats.checks += 1
        if r == "unknown":
            self.stats.unknown += 1
        return r

    def load(self, prob: Problem) -> Loaded:
        """Assert a problem in the current scope: structure plainly, each origin behind a literal."""
        low = Lowering()
        loaded = Loaded(prob, low=low)
        s = self.solver
        for t in prob.structure:
            s.add(low(t))
        for tr in prob.tracked:
            if tr.origin.kind == "structural":
                s.add(low(tr.term))
                continue
            lits = []
            for o in tr.origins:
                lit = loaded.lits.get(o.id)
                if lit is None:
                    lit = z3.Bool(f"t|{prob.workload.key}|{o.id}")
                    loaded.lits[o.id] = lit
                lits.append(lit)
            guard = lits[0] if len(lits) == 1 else z3.And(lits)
            s.add(z3.Implies(guard, low(tr.term)))
        for b in low.take_bounds():
            s.add(b)
        return loaded

    def scope(self) -> "_Scope":
        return _Scope(self.solver)

    # --- deciding one workload as Kueue's flavor assigner does ------------------------------------

    def try_admit(self, wl: Workload) -> tuple[Assignment | None, Problem]:
        """The assignment Kueue's rules give `wl` against the current usage, or None.

        Pod sets are assigned in order, each group's flavors tried in order with flavor fungibility;
        if the full counts don't fit, partial admission searches counts down to `min_count`.
        Raises SolverUnknown if any check is unknown."""
        prob = self.compiler.problem(wl, self.usage, "folded")
        if prob.cluster_queue is None:
            return None, prob
        with self.scope():
            loaded = self.load(prob)
            full = {pv.pod_set.name: pv.pod_set.count for pv in prob.pod_sets}
            got = self._assign_with_counts(loaded, full)
            if got is None and any(pv.pod_set.min_count is not None and pv.pod_set.min_count < pv.pod_set.count
                                   for pv in prob.pod_sets):
                got = self._partial(loaded)
        return got, prob

    def _partial(self, loaded: Loaded) -> Assignment | None:
        """Kueue's partial admission: reduce every pod set that has a min_count together, by the
        same fraction, and binary-search the largest counts that fit."""
        pss = [pv.pod_set for pv in loaded.problem.pod_sets]
        deltas = {ps.name: ps.count - ps.min_count if ps.min_count is not None else 0 for ps in pss}
        total = sum(deltas.values())

        def counts_at(x: int) -> dict[str, int]:  # x = how much of the total reduction to apply
            return {ps.name: ps.count - (deltas[ps.name] * x + total - 1) // total if total else ps.count
                    for ps in pss}
        lo, hi, best = 1, total, None
        while lo <= hi:
            mid = (lo + hi) // 2
            got = self._assign_with_counts(loaded, counts_at(mid))
            if got is not None:
                best, hi = got, mid - 1
            else:
                lo = mid + 1
        return best

    def _assign_with_counts(self, loaded: Loaded, counts: dict[str, int]) -> Assignment | None:
        prob = loaded.problem
        low = loaded.low
        assert low is not None
        cq = prob.cluster_queue
        assert cq is not None
        base = [low(prob.admitted)] + list(loaded.lits.values())
        fung = cq.flavor_fungibility
        with self.scope():
            for pv in prob.pod_sets:
                self.solver.add(low(T.eq(pv.count, counts[pv.pod_set.name])))
            chosen: list[z3.BoolRef] = []
            flavors: dict[str, dict[str, str]] = {}
            borrowing = False
            for i, pv in enumerate(prob.pod_sets):
                skips = [low(q.skip) for q in prob.pod_sets[i + 1:]]
                mine = [z3.Not(low(pv.skip))]
                flavors[pv.pod_set.name] = {}
                for gi in sorted(pv.flavors):
                    pick: tuple[str, z3.BoolRef, bool] | None = None
                    for fname, var in pv.flavors[gi]:
                        fv = low(var)
                        nb = [low(prob.no_borrow[(fname, r)]) for r, g in sorted(pv.group_of.items())
                              if g == gi and (fname, r) in prob.no_borrow]
                        assume = base + chosen + skips + mine + [fv]
                        r = self.check(*assume, *nb)
                        if r == "unknown":
                            raise SolverUnknown(prob.workload.key)
                        if r == "sat":
                            pick = (fname, fv, False)
                            break
                        r = self.check(*assume)
                        if r == "unknown":
                            raise SolverUnknown(prob.workload.key)
                        if r == "sat":
                            if pick is None:
                                pick = (fname, fv, True)
                            if fung.when_can_borrow == "Borrow":
                                break
                    if pick is None:
                        return None
                    chosen.append(pick[1])
                    borrowing = borrowing or pick[2]
                    for r, g in pv.group_of.items():
                        if g == gi:
                            flavors[pv.pod_set.name][r] = pick[0]
            # the whole workload: workload-wide rules apply now
            r = self.check(*loaded.goal(), *base[1:], *chosen)
            if r == "unknown":
                raise SolverUnknown(prob.workload.key)
            if r != "sat":
                return None
        usage: dict[FR, int] = {}
        for pv in prob.pod_sets:
            n = counts[pv.pod_set.name]
            for res, fname in flavors[pv.pod_set.name].items():
                fr = (fname, res)
                usage[fr] = usage.get(fr, 0) + pv.pod_set.requests.get(res, 0) * n
        borrowing = any(self.usage.get(cq.name, fr) + v > self.compiler.tree.subtree(f"cq:{cq.name}", fr)
                        for fr, v in usage.items())
        return Assignment(cq.name, dict(counts), flavors, borrowing, usage)


class _Scope:
    def __init__(self, solver: z3.Solver) -> None:
        self.solver = solver

    def __enter__(self) -> z3.Solver:
        self.solver.push()
        return self.solver

    def __exit__(self, *exc) -> None:
        self.solver.pop()


def iter_pending(model: Model) -> Iterator[Workload]:
    for wl in sorted(model.workloads, key=lambda w: w.key):
        if wl.admission is None and not wl.finished:
            yield wl
