"""Incremental Z3 sessions: compile a cluster state once, then decide, explain and try changes.

A `Session` holds the world as numbers (admitted usage per cluster queue and flavor-resource) and a
Z3 solver. Deciding one workload compiles only that workload's choices; each of its tracked
constraints is asserted once as `Implies(literal, C)` inside a push/pop scope, and questions are
`check(*assumptions)`. Usage of admitted workloads never becomes variables on the deciding path.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Iterator

import z3

from kadmit.engine.solver import terms as T
from kadmit.engine.compile.problem import Compiler, Problem
from kadmit.engine.compile.split import Fixed, Pins, QuotaPart
from kadmit.engine.placing.pool import NodePool, PlacementFailure
from kadmit.placement.tas import Profile
from kadmit.engine.afs import AdmissionFairSharing
from kadmit.engine.admission import slices
from kadmit.engine.admission.flavor_assignment import Assignment, Tried, nominate
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.admission.situations import UNSEEN, Situations, Stamps, workload_facts
from kadmit.engine.quota import Usage
from kadmit.engine.compile.symbolic import Holder
from kadmit.engine.progress import Report
from kadmit.engine.solver.z3backend import Limits, Lowering, Outcome, make_answer_solver, outcome
from kadmit.engine.solver.z3backend import check as fast_check
from kadmit.effective import effective
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import Model, Workload


MAX_SHAPES = 256  # compiled shapes kept (least recently used go first): each holds a Z3 solver
MAX_MEMO = 1_000_000


def _copy(a: Assignment | None) -> Assignment | None:
    """A nomination callers may change (ordered mode sets its placement) without touching the memo."""
    if a is None:
        return None
    out = object.__new__(type(a))  # every field as it is (`dataclasses.replace` runs __init__: slower)
    out.__dict__.update(a.__dict__)
    out.counts, out.usage, out.targets = dict(a.counts), dict(a.usage), list(a.targets)
    out.flavors = {ps: dict(fl) for ps, fl in a.flavors.items()}
    return out


class SolverUnknown(Exception):
    """A check came back `unknown` within the limits; callers report it honestly."""


@dataclass
class Stats:
    checks: int = 0
    unknown: int = 0
    memo_hits: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"checks": self.checks, "memo_hits": self.memo_hits, "unknown": self.unknown,
                "solve_seconds": round(self.seconds, 3)}


@dataclass
class Loaded:
    """A problem asserted in the current scope: its literals by origin id."""

    problem: Problem
    lits: dict[str, z3.BoolRef] = field(default_factory=dict)
    low: Lowering | None = None
    extra: dict[str, z3.BoolRef] = field(default_factory=dict)
    solver: z3.Solver | None = None
    split: tuple | None = None  # (the quota part or None), once computed
    quota: list[z3.BoolRef] | None = None  # the quota statements' literals, once listed
    others: list[z3.BoolRef] | None = None  # the other statements' literals, once listed
    whole: list[z3.BoolRef] | None = None  # `goal`, once made
    ast_ids: dict = field(default_factory=dict)  # id(literal) -> (literal, Z3's id of it)

    def pin(self, name: str, value: int) -> z3.BoolRef:
        """A literal meaning `name == value`, asserted once in this problem's solver. A pod set's
        count is pinned only while the pod set takes part (not skipped)."""
        key = f"pin|{name}|{value}"
        lit = self.extra.get(key)
        if lit is None:
            assert self.solver is not None and self.low is not None
            lit = self.low.named(key)
            fact = self.low.named(name, "Int") == value
            for pv in self.problem.pod_sets:
                if pv.count.name == name:  # type: ignore[attr-defined]
                    fact = z3.Or(self.low(pv.skip), fact)
            self.solver.add(z3.Implies(lit, fact))
            self.extra[key] = lit
        return lit

    def ast_id(self, lit: z3.BoolRef) -> int:
        """Z3's id of an assumption literal, asked of Z3 once per literal object (the object is kept
        with it, so its Python id can't be reused by another)."""
        got = self.ast_ids.get(id(lit))
        if got is None:
            if len(self.ast_ids) > MAX_MEMO:
                self.ast_ids.clear()
            got = self.ast_ids[id(lit)] = (lit, lit.get_id())
        return got[1]

    def quota_part(self) -> QuotaPart | None:
        """The problem's quota statements apart (`compile.split`), or None if it isn't separable."""
        if self.split is None:
            self.split = (QuotaPart.of(self.problem),)
        return self.split[0]

    def quota_lits(self) -> list[z3.BoolRef]:
        """The tracking literals of the quota statements."""
        if self.quota is None:
            self.quota = [lit for oid, lit in self.lits.items() if oid.startswith("quota|")]
        return self.quota

    def quota_free_lits(self) -> list[z3.BoolRef]:
        """The tracking literals of every statement but quota's (don't change the list)."""
        if self.others is None:
            self.others = [lit for oid, lit in self.lits.items() if not oid.startswith("quota|")]
        return self.others

    def goal(self) -> list[z3.BoolRef]:
        """Assumptions for "the whole workload is admitted": adm, and no pod set skipped."""
        if self.whole is None:
            assert self.low is not None
            self.whole = [self.low(self.problem.admitted)] + [self.takes_part(pv) for pv in self.problem.pod_sets]
        return list(self.whole)

    def takes_part(self, pv) -> z3.BoolRef:
        """The literal "pod set `pv` is not skipped", made once (z3.Not builds a new term each call)."""
        got = self.extra.get(f"part|{pv.skip.name}")
        if got is None:
            assert self.low is not None
            got = self.extra[f"part|{pv.skip.name}"] = z3.Not(self.low(pv.skip))
        return got


@dataclass
class Journal:
    """A session's holder changes in order (admitted: True, or released: False; the holder; the nodes
    it held), and where each scheduling cycle started in them (cycle, number of changes before it)."""

    changes: list[tuple[bool, Holder, dict | None]] = field(default_factory=list)
    marks: list[tuple[int, int]] = field(default_factory=list)

    def start_of(self, cycle: int) -> int:
        """How many changes were made before `cycle` started (skipped cycles change nothing)."""
        i = bisect_right(self.marks, (cycle, len(self.changes)))
        return self.marks[i - 1][1] if i else 0


class Session:
    """A cluster state compiled once; questions about single workloads answered incrementally."""

    def __init__(self, model: Model, limits: Limits | None = None, tas_profile: Profile = "Mixed",
                 cache: ShapeCache | None = None, pool: NodePool | None = None) -> None:
        """`pool`: node capacity shared with other sessions (a simulation's independent parts, one
        session each, over the same nodes); by default the model's own nodes."""
        self.model = model = effective(model)
        self.limits = limits or Limits()
        self.index = ModelIndex(model)
        self.compiler = Compiler(model, self.index)
        self.stats = Stats()
        self._cache = cache
        self._shapes: OrderedDict[tuple, Loaded] = cache.shapes if cache is not None else OrderedDict()
        self._shape_ids = 0
        self._memo: dict[tuple, Outcome] = cache.memo if cache is not None else {}
        self.usage = Usage()
        self.holders: dict[str, Holder] = {}
        self.pool = pool if pool is not None else NodePool(model, self.index, tas_profile)
        self._tas = self.pool.active
        self.placement_failures: dict[str, PlacementFailure] = {}  # workload -> last failure at full counts
        # Kueue's LastTriedFlavorIdx: workload -> pod set -> resource group -> the flavor index its next nomination
        # starts at, and its last one's (`Searches`); and what that tried (`Tried`), for the loop to read
        self.last_tried: dict[str, dict[str, dict[int, int]]] = {}
        self.tried_from: dict[str, dict[str, dict[int, int]] | None] = {}
        self.attempt: Tried | None = None
        self.slice_pins: dict[str, dict[str, str]] | None = None  # a replacement slice's flavors (`slices.pinned`)
        self.slice_old: dict[str, dict[str, int]] = {}  # and its old slice's requests per pod set (`slices.old_on`)
        self._tried: dict[tuple, Tried | None] = {}  # situation key -> what its nomination tried
        self.admitted_cycle: dict[str, int] = Stamps()  # workload admitted in this run -> its cycle (ordered mode)
        self.progress: Report | None = None  # told of every scheduling cycle started (`cycle_started`)
        # Holder changes in order, with where each cycle started, kept when asked (`keep_journal`): the
        # state a workload met in an earlier cycle is the current one with the later changes undone
        self.journal: Journal | None = None
        self.version = 0  # names the set of admitted workloads: a fresh number whenever it changes
        self._versions = 0
        self.situations = Situations(self)  # nominations and reasons shared among equal situations
        self.afs = AdmissionFairSharing(model)  # each LocalQueue's usage, where it orders a queue
        self._shape_of: dict[int, tuple[Workload, tuple]] = {}  # id(workload) -> (workload, its shape)
        self._queue_shapes: dict[tuple, tuple] = {}  # (namespace, local queue) -> what its shape reads there
        for wl in sorted(model.workloads, key=lambda w: w.key):
            if wl.admitted and wl.admission is not None:
                amounts = admitted_usage(wl)
                self.usage.add(wl.admission.cluster_queue, amounts)
                self.holders[wl.key] = Holder(wl.key, wl.admission.cluster_queue, amounts,
                                              wl.admission.span or wl.span)

    @property
    def shape_cache(self) -> ShapeCache | None:
        """The compiled shapes this session shares with others (given at construction), or None."""
        return self._cache

    # --- state changes ----------------------------------------------------------------------------

    def keep_journal(self) -> None:
        """Record every holder change from now on, and where each scheduling cycle starts."""
        self.journal = Journal()

    def cycle_started(self, cycle: int) -> None:
        """The scheduling loop starts `cycle` (evictions of the one before released, nothing nominated yet)."""
        if self.journal is not None:
            self.journal.marks.append((cycle, len(self.journal.changes)))
        if self.progress is not None:
            self.progress("cycles", cycle, None)

    def commit(self, wl: Workload, a: Assignment) -> None:
        """Record `wl` as admitted with assignment `a` (its usage now counts)."""
        self.usage.add(a.cluster_queue, a.usage)
        h = self.holders[wl.key] = Holder(wl.key, a.cluster_queue, dict(a.usage), wl.span, new=True)
        self._new_version()
        self.situations.holder_changed(a.cluster_queue, wl.key)
        if a.placement is not None:
            self.pool.commit(wl.key, a.placement)
        if self.journal is not None:
            self.journal.changes.append((True, h, self.pool.placed.get(wl.key)))

    def finish(self, key: str) -> None:
        """An admitted workload finished: its usage is released."""
        h = self.holders.pop(key, None)
        if h is not None:
            self.usage.add(h.cluster_queue, {fr: -v for fr, v in h.amounts.items()})
            self._new_version()
            self.situations.holder_changed(h.cluster_queue, key)
            if self.journal is not None:
                self.journal.changes.append((False, h, self.pool.placed.get(key)))
        self.pool.release(key)

    def _new_version(self) -> None:
        self._versions += 1
        self.version = self._versions

    @contextmanager
    def suspended(self, keys, nodes: bool = True) -> Iterator[None]:
        """Questions asked inside see the admitted workloads `keys` gone (preemption targets chosen
        earlier in a cycle); their usage and node placements come back after. Without `nodes`, their quota only:
        their pods stay on their nodes."""
        saved = []
        order = dict(self.holders)  # insertion order is admission order: restored as it was
        version = self.version
        self._new_version()
        for key in keys:
            h = self.holders.pop(key, None)
            if h is None:
                continue
            self.usage.add(h.cluster_queue, {fr: -v for fr, v in h.amounts.items()})
            self.situations.holder_changed(h.cluster_queue, key)
            saved.append((h, self.pool.placed.get(key) if nodes else None))
            if nodes:
                self.pool.release(key)
        try:
            yield
        finally:
            for h, taken in reversed(saved):
                self.usage.add(h.cluster_queue, h.amounts)
                if taken:
                    self.pool._take(h.workload, taken)
            for h, _ in saved:
                self.situations.holder_changed(h.cluster_queue, h.workload)
            self.holders.clear()
            self.holders.update(order)
            self.version = version  # the same admitted workloads as before

    # --- solving ----------------------------------------------------------------------------------

    def check(self, *assumptions: z3.BoolRef, solver: z3.Solver) -> Outcome:
        t0 = time.perf_counter()
        r = outcome(fast_check(solver, assumptions))
        self.stats.seconds += time.perf_counter() - t0
        self.stats.checks += 1
        if r == "unknown":
            self.stats.unknown += 1
        return r

    def load(self, prob: Problem, solver: z3.Solver) -> Loaded:
        """Assert a problem in `solver`: structure plainly, each origin behind a literal; sent to Z3
        as one SMT-LIB script."""
        low = Lowering()
        s = solver
        loaded = Loaded(prob, low=low, solver=s)
        lines = [low.smt(t) for t in prob.structure]
        for tr in prob.tracked:
            if tr.origin.kind == "structural":
                lines.append(low.smt(tr.term))
                continue
            names = []
            for o in tr.origins:
                name = f"t|{prob.workload.key}|{o.id}"
                loaded.lits.setdefault(o.id, low.named(name))
                names.append(name)
            lines.append(low.guarded(names, tr.term))
        s.from_string(low.script(lines))
        return loaded

    def ask(self, loaded: Loaded, ids: list[str], extra: list[T.Term] = ()) -> Outcome:
        """Is the loaded workload admissible with the statements `ids` standing (the others
        relaxed) and the terms `extra` holding for the moment? Unknown raises SolverUnknown."""
        lits = [loaded.lits[i] for i in ids]
        s = loaded.solver
        assert s is not None and loaded.low is not None
        if extra:
            decls, body = loaded.low.extra_scripts(list(extra))
            if decls:
                s.from_string(decls)
            s.push()
            try:
                s.from_string(body)
                r = self.check(*loaded.goal(), *lits, solver=s)
            finally:
                s.pop()
        else:
            r = self.check(*loaded.goal(), *lits, solver=s)
        if r == "unknown":
            raise SolverUnknown(loaded.problem.workload.key)
        return r

    def last_core(self, loaded: Loaded) -> set[str]:
        """Origin ids in the core of the last unsat `ask` on this problem."""
        assert loaded.solver is not None
        names = {str(c) for c in loaded.solver.unsat_core()}
        return {oid for oid, lit in loaded.lits.items() if str(lit) in names}

    # --- deciding one workload as Kueue's flavor assigner does ------------------------------------

    def _shape(self, wl: Workload) -> tuple:
        """Workloads of equal shape share one compiled problem; their sizes (counts, requests,
        min_count) and the quota numbers of their queue are pinned per question. The shape is the
        queue's structure (groups, flavors, what it declares, gates) and each pod set's structure
        (which resources it asks for, tolerations, selectors, topology, whether it has no pods).
        With user rules every workload is its own shape (rules may read anything about it), with its
        queue's structure, name and cohort (what rules read of it): across models, keyed as a queue's."""
        known = self._shape_of.get(id(wl))
        if known is not None and known[0] is wl:
            return known[1]
        shape = self._compute_shape(wl)
        self._shape_of[id(wl)] = (wl, shape)  # kept alive with it: the id is not reused meanwhile
        return shape

    def _compute_shape(self, wl: Workload) -> tuple:
        where = (wl.namespace, wl.queue)
        cqs = self._queue_shapes.get(where)
        if cqs is None:
            cq = self.index.cluster_queue_of(wl)
            if cq is None:
                cqs = None
            else:
                lq = self.index.local_queues.get(f"{wl.namespace}/{wl.queue}")
                cqs = (tuple((g.covered_resources, tuple((fq.flavor, tuple(sorted(r.resource for r in fq.resources)))
                                                         for fq in g.flavors)) for g in cq.resource_groups),
                       cq.stop_policy, lq.stop_policy if lq else "None", self.compiler.inactive(cq),
                       self.compiler.namespace_ok(cq, wl.namespace))
            self._queue_shapes[where] = cqs
        if cqs is None:
            return ("workload", wl.key) if self.model.rules else ("no-queue", wl.namespace, wl.queue, wl.active,
                                                                  len(wl.pod_sets))
        if self.model.rules:
            return ("rules", cqs, (cq := self.index.cluster_queue_of(wl)).name, cq.cohort, wl.key)
        # a pod set of 0 pods takes part with none (the problem's `n >= min(1, count)` is compiled
        # from the first workload of the shape; the sizes themselves are pinned)
        return (cqs, wl.active, wl.inadmissible, workload_facts(wl)[0], tuple(ps.count == 0 for ps in wl.pod_sets))

    def _loaded_shape(self, wl: Workload) -> Loaded:
        shape = self._shape(wl)
        if self._cache is not None:  # other states of the policy share it: key by what compiling reads
            of_queue = shape[0] not in ("workload", "no-queue")
            shape = (self._cache.queues_key(self.model) if of_queue else self._cache.policy_key(self.model),
                     tuple(sorted(self.compiler.scale.items())),
                     (*shape[:-1], self._cache.same(wl)) if shape[0] in ("workload", "rules") else shape)
        got = self._shapes.get(shape)
        if got is not None:
            self._shapes.move_to_end(shape)
            return got
        while len(self._shapes) >= MAX_SHAPES:  # least recently used first: Z3 solvers are heavy
            _, old = self._shapes.popitem(last=False)
            for k in [k for k in self._memo if k[0] == id(old)]:
                del self._memo[k]
        prob = self.compiler.problem(wl, self.usage, "shared", tag=f"s{self._shape_ids}")
        self._shape_ids += 1
        got = self.load(prob, make_answer_solver(self.limits))  # one small solver per shape
        self._shapes[shape] = got
        return got

    def _reset_solver(self) -> None:
        self._shapes.clear()
        self._memo.clear()
        self.situations.clear()

    arithmetic_quota = True  # answer quota statements by arithmetic where that is exact (`_ask`); False: Z3 alone

    def _ask(self, loaded: Loaded, pins: Pins, assumptions: list[z3.BoolRef],
             quota: Fixed | None = None) -> Outcome:
        """One question: the loaded shape with its numbers pinned, under `assumptions` (tracking
        literals of statements other than quota, flavor and pod-set literals); with `quota` (the
        flavor choices the question fixes) the quota statements stand too.

        With `arithmetic_quota` on and the shape separable (`compile.split.QuotaPart`), quota is
        arithmetic on the fixed choices and the solver answers the rest without the per-state
        numbers — an answer shared by every state of the cluster; else the solver answers the whole
        question. Equal solver questions (same shape, numbers, assumptions) get its earlier answer."""
        part = loaded.quota_part() if self.arithmetic_quota else None
        if part is None:
            if quota is not None:
                assumptions = assumptions + loaded.quota_lits()
            return self._solve(loaded, pins, assumptions)
        sizes = pins.without_numbers(part)
        if sizes is None:
            return "unsat"
        if quota is None:
            return self._solve(loaded, sizes, assumptions)
        fixings = part.fixings(quota)
        if fixings is None:
            return self._solve(loaded, pins, assumptions + loaded.quota_lits())
        for flavors, picked in fixings:
            holds = part.holds(pins.values, flavors)
            if holds is None:
                return self._solve(loaded, pins, assumptions + loaded.quota_lits())
            if holds and self._solve(loaded, sizes, assumptions + [loaded.low.named(n) for n in picked]) == "sat":
                return "sat"
        return "unsat"

    def _solve(self, loaded: Loaded, pins: Pins, assumptions: list[z3.BoolRef]) -> Outcome:
        """The solver's answer, kept per (shape, numbers, assumptions)."""
        key = (id(loaded), pins.key(), tuple(map(loaded.ast_id, assumptions)))
        got = self._memo.get(key)
        if got is not None:
            self.stats.memo_hits += 1
            return got
        pinned = [loaded.pin(name, value) for name, value in pins.key()]
        r = self.check(*assumptions, *pinned, solver=loaded.solver)
        if r == "unknown":
            raise SolverUnknown(loaded.problem.workload.key)
        if len(self._memo) > MAX_MEMO:
            self._memo.clear()
        self._memo[key] = r
        return r

    def try_admit(self, wl: Workload) -> tuple[Assignment | None, Problem]:
        """The assignment Kueue's rules give `wl` against the current usage without preempting
        anything, or None.

        Pod sets are assigned in order, each group's flavors tried in order with flavor fungibility;
        if the full counts don't fit, partial admission searches counts down to `min_count`.
        Raises SolverUnknown if any check is unknown."""
        got, prob = self.nominate(wl, preemption=False)
        return (got if got is not None and got.mode == "Fit" else None), prob

    def nominate(self, wl: Workload, preemption: bool = True) -> tuple[Assignment | None, Problem]:
        """Kueue's nomination of `wl` (`flavor_assignment.nominate`), shared among workloads in the
        same situation (`situations`), and the workload's compiled problem."""
        got, prob = self._nominate(wl, preemption)
        return got, prob if prob is not None else self._loaded_shape(wl).problem

    def nomination(self, wl: Workload, preemption: bool = True) -> Assignment | None:
        """`nominate` without the problem (the scheduling loop reads only the nomination)."""
        return self._nominate(wl, preemption)[0]

    def _nominate(self, wl: Workload, preemption: bool) -> tuple[Assignment | None, Problem | None]:
        old = slices.replaced(self, wl)
        if old is not None:  # a workload slice: its old slice's quota out, its pods and flavors kept (`slices`)
            with slices.pinned(self, wl), self.suspended([old.workload], nodes=False):
                return nominate(self, wl, preemption)
        cq = self.index.cluster_queue_of(wl)
        key = self.situations.key(wl, cq, preemption) if cq is not None else None
        if key is not None:
            known = self.situations.recall(key)
            if known is not UNSEEN:
                self.attempt = self._tried.get(key)
                return _copy(known), None  # type: ignore[arg-type]
        got, prob = nominate(self, wl, preemption)
        if key is not None:
            self.situations.remember(key, _copy(got))
            if len(self._tried) > MAX_MEMO:
                self._tried.clear()
            self._tried[key] = self.attempt
        return got, prob

    def tried(self, key: tuple) -> Tried | None:
        """What the nomination kept for a situation key tried (None if not kept)."""
        return self._tried.get(key)

    # --- arrivals and what-ifs -------------------------------------------------------------------

    def add_workload(self, wl: Workload) -> None:
        """A workload arrives. Questions may name it from now on; nothing else is recompiled
        unless its requests need finer solver units than the state had."""
        self.model = self.model.model_copy(update={"workloads": self.model.workloads + (wl,)})
        self.index.workloads.setdefault(wl.key, wl)
        if any(q % self.compiler.scale.get(r, 1) for ps in wl.pod_sets for r, q in ps.requests.items()):
            self.compiler = Compiler(self.model, self.index)
            self._reset_solver()

    @contextmanager
    def what_if(self, changes: list[tuple[str, str, str, str, str, int | None]]) -> Iterator["Session"]:
        """Answer questions under changed quota numbers, then restore them. Each change is
        (kind "cq"|"cohort", name, flavor, resource, field, value) with field one of nominal,
        borrowing_limit, lending_limit. Only the quota tree's numbers change: compiled problems
        stay, since their numbers are pinned per question."""
        tree = self.compiler.tree
        saved = []
        for kind, name, flavor, resource, fld, value in changes:  # type: ignore[misc]
            nid = f"{'cohort' if kind == 'cohort' else 'cq'}:{name}"
            fr = (flavor, resource)
            entry = tree.nodes[nid].quotas.get(fr)
            if entry is None or not entry.declared:
                raise ValueError(f"{nid} declares no quota for {resource} in flavor {flavor}")
            saved.append((nid, fr, entry))
            tree.nodes[nid].quotas[fr] = replace(entry, **{fld: value})
        tree.invalidate(self.usage)
        self.situations.clear()
        try:
            yield self
        finally:
            for nid, fr, entry in reversed(saved):
                tree.nodes[nid].quotas[fr] = entry
            tree.invalidate(self.usage)
            self.situations.clear()
