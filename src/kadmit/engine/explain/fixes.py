"""Candidate fixes on one workload's own problem: minimal correction sets over its tracked
statements, each with the smallest change of its numbers that admits it on its own at the run's final
state. These are starting points only: a fix is shown once `proposals` proved it by deciding the whole
cluster again."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, combinations
from typing import Protocol

from kadmit.engine.solver import terms as T
from kadmit.engine.compile.problem import Origin
from kadmit.engine.admission.session import Loaded, Session
from kadmit.engine.compile.symbolic import BIG
from kadmit.edits import Edit
from kadmit.engine.explain.cores import blame_cores, symbolic_problem
from kadmit.engine.solver.z3backend import make_solver
from kadmit.model import Model, Workload
from kadmit.quantity import format_quantity
from kadmit.source import SourceMap

MAX_FIXES = 5
MAX_PAIR_CHECKS = 60
MAX_PER_KIND = 2  # fixes of one kind (e.g. "wait for"), so the handful shown is varied


class Inputs(Protocol):
    """The texts a model was read from, and the model they give once edited (None: the edits don't
    apply, or the edited input has errors the original didn't)."""

    sources: SourceMap

    def reload(self, edits: list[Edit]) -> Model | None: ...


@dataclass(frozen=True)
class Change:
    """One edit of the input: what, where, from which value to which."""

    kind: str  # raise, lower, remove, wait, tolerate, label, edit
    subject: str
    field: str
    old: str | None = None
    new: str | None = None
    origin: str = ""  # the origin id it relaxes
    value: int | None = None  # the new number (milli-units for quantities), where there is one

    def as_dict(self) -> dict:
        return {k: v for k, v in {"kind": self.kind, "subject": self.subject, "field": self.field,
                                  "from": self.old, "to": self.new}.items() if v is not None}


@dataclass
class Fix:
    message: str
    changes: list[Change]
    rank: tuple = ()

    def as_dict(self) -> dict:
        return {"message": self.message, "changes": [c.as_dict() for c in self.changes]}


def _without(loaded: Loaded, drop: set[str]) -> list[str]:
    return [k for k in sorted(loaded.lits) if k not in drop]


def fixes(session: Session, loaded: Loaded, core: list[Origin]) -> list[Fix]:
    """Minimal correction sets of size one or two over the tracked statements, each with the
    smallest change of its numbers, each verified by a re-solve. Candidates are tried in rank
    order (cheapest kind of change first) and at most MAX_PER_KIND of a kind are kept, so a
    handful of varied fixes comes out without working out every one. Within a kind, the workload's
    own ClusterQueue's numbers come first (another queue's quota cannot lift its own queue's cap)."""
    origins = loaded.problem.origins()
    cq = loaded.problem.cluster_queue
    mine = f"quota|cq:{cq.name}|" if cq is not None else None

    def _rank_key(o: Origin) -> tuple:
        return _rank(o, mine)

    found: list[Fix] = []
    per_kind: dict[str, int] = {}
    singles: set[str] = set()

    def room(kinds: list[str]) -> bool:
        return len(found) < MAX_FIXES and all(per_kind.get(k, 0) < MAX_PER_KIND for k in kinds)

    def keep(fx: Fix | None, relax: list[Origin]) -> None:
        if fx is not None and fx.message not in {f.message for f in found}:
            found.append(fx)
            for o in relax:
                per_kind[o.kind] = per_kind.get(o.kind, 0) + 1

    for o in sorted(core, key=_rank_key):
        if not _relaxable(o) or not room([o.kind]):
            continue
        if session.ask(loaded, _without(loaded, {o.id})) == "sat":
            singles.add(o.id)
            keep(_make_fix(session, loaded, [o]), [o])
    if len(found) < MAX_FIXES:
        budget = MAX_PAIR_CHECKS
        pool = sorted((o for o in core if _relaxable(o) and o.id not in singles), key=_rank_key)
        core_ids = {o.id for o in core}
        others = sorted((origins[k] for k in loaded.lits if k not in core_ids and _relaxable(origins[k])),
                        key=_rank_key)
        for a, b in chain(combinations(pool, 2), ((a, b) for a in pool for b in others)):
            if budget <= 0 or len(found) >= MAX_FIXES:
                break
            if not room([a.kind, b.kind]):
                continue
            budget -= 1
            if session.ask(loaded, _without(loaded, {a.id, b.id})) == "sat":
                keep(_make_fix(session, loaded, [a, b]), [a, b])
    return sorted(found, key=lambda f: f.rank)


def _rank(o: Origin, mine: str | None = None) -> tuple:
    return (_KIND_RANK.get(o.kind, 9), not (mine is not None and o.id.startswith(mine)), o.id)


def _relaxable(o: Origin) -> bool:
    return o.kind not in ("structural", "namespace_pair", "flavor_missing", "terminating")


_KIND_RANK = {"min_count": 0, "usage": 1, "borrowing_limit": 2, "lending_limit": 2, "nominal": 3,
              "taint": 4, "selector": 4, "namespace_selector": 5, "namespace_labels": 5, "rule": 6,
              "coverage": 6, "undeclared": 6, "stop_policy": 7, "local_queue": 7, "cluster_queue": 7,
              "inactive": 8}


def _make_fix(session: Session, loaded: Loaded, relax: list[Origin]) -> Fix | None:
    """Turn relaxed origins into concrete changes; numbers get the smallest value that admits,
    found by bisection, and the whole fix is verified by one more check."""
    keep = _without(loaded, {o.id for o in relax})
    changes: list[Change] = []
    pins: list[T.Term] = []
    for o in relax:
        ch = _change(session, loaded, o, keep, pins)
        if ch is None:
            return None
        changes.append(ch)
    if session.ask(loaded, keep, pins) != "sat":
        return None  # not verified: don't offer it
    msg = " and ".join(_describe(c) for c in changes)
    rank = (len(changes), sum(_KIND_RANK.get(o.kind, 9) for o in relax), msg)
    return Fix(msg, changes, rank)


def _change(session: Session, loaded: Loaded, o: Origin, keep: list[str], pins: list[T.Term]) -> Change | None:
    p = o.param
    if o.kind in ("nominal", "borrowing_limit", "lending_limit") and p is not None and p.value is not None:
        var = T.IntVar(o.id.replace("quota|", "q|", 1), 0, BIG)
        scale = session.compiler.scale.get(p.resource, 1)
        best = _least(session, loaded, keep, pins, var, p.value // scale)
        if best is None:
            return None
        pins.append(T.eq(var, best))
        return Change("raise", p.subject, p.field, format_quantity(p.value, p.resource),
                      format_quantity(best * scale, p.resource), o.id, best * scale)
    if o.kind == "min_count" and p is not None and p.value is not None:
        ps_name = o.id.split("|", 1)[1]
        n = next(pv.count for pv in loaded.problem.pod_sets if pv.pod_set.name == ps_name)
        best = _most(session, loaded, keep, pins, n, 1, p.value)
        if best is None:
            return None
        pins.append(T.eq(n, best))
        return Change("lower", p.subject, "min_count", str(p.value), str(best), o.id, best)
    if o.kind == "usage" and p is not None:
        return Change("wait", p.subject, "admission", None, None, o.id)
    if o.kind == "taint" and p is not None:
        return Change("tolerate", p.subject, "tolerations", None, p.resource, o.id)
    kinds = {"selector": "edit", "namespace_selector": "edit", "namespace_labels": "label", "rule": "edit",
             "coverage": "edit", "undeclared": "edit", "stop_policy": "edit", "local_queue": "create",
             "cluster_queue": "create", "inactive": "edit"}
    if o.kind in kinds:
        return Change(kinds[o.kind], o.message, o.kind, None, None, o.id)
    return None


def _least(session: Session, loaded: Loaded, keep, pins, var: T.Term, lo: int) -> int | None:
    """The least value >= lo of `var` that admits (monotone), by doubling then bisection."""
    def ok(x: int) -> bool:
        return session.ask(loaded, keep, pins + [T.le(var, x)]) == "sat"
    step, hi = 1, lo + 1
    while not ok(hi):
        step *= 2
        hi = lo + step
        if step > 2**50:
            return None
    a, b = lo, hi
    while a < b:
        mid = (a + b) // 2
        if ok(mid):
            b = mid
        else:
            a = mid + 1
    return a


def _most(session: Session, loaded: Loaded, keep, pins, var: T.Term, lo: int, hi: int) -> int | None:
    """The largest value in [lo, hi] of a count that admits, by bisection."""
    def ok(x: int) -> bool:
        return session.ask(loaded, keep, pins + [T.eq(var, x)]) == "sat"
    if not ok(lo):
        return None
    a, b = lo, hi
    while a < b:
        mid = (a + b + 1) // 2
        if ok(mid):
            a = mid
        else:
            b = mid - 1
    return a


def _describe(c: Change) -> str:
    if c.kind == "raise":
        return f"raise the {c.field} of {c.subject} from {c.old} to {c.new}"
    if c.kind == "lower":
        return f"lower `min_count` of {c.subject} to {c.new}: it is admitted with {c.new} pods"
    if c.kind == "wait":
        many = c.subject.startswith("the workloads")
        return f"wait for {c.subject} to finish (or preempt {'them' if many else 'it'})"
    if c.kind == "tolerate":
        return f"add a toleration for `{c.new}` to {c.subject}"
    if c.kind == "create":
        return f"fix: {c.subject}"
    return f"change what says: {c.subject}"


@dataclass
class Obstacles:
    """What keeps one workload out on its own: blame origins and the one-workload fixes."""

    origins: list[Origin] = field(default_factory=list)
    candidates: list[Fix] = field(default_factory=list)
    groups: list[list[Origin]] = field(default_factory=list)  # independent obstacles
    pod_set: str | None = None  # the pod set placement blames (its origins name no pod set)


def own_obstacles(session: Session, wl: Workload) -> Obstacles:
    """The blame and one-workload fixes of `wl`'s own problem at the session's state (for a workload
    whose queue's StrictFIFO head, not its own size, kept it out in the run)."""
    loaded = session.load(symbolic_problem(session, wl), make_solver(session.limits))
    return obstacles_of(session, loaded, blame_cores(session, loaded).cores)


def obstacles_of(session: Session, loaded: Loaded, cores: list) -> Obstacles:
    """`own_obstacles` from a problem loaded at the session's state and its blame cores found there
    (the one-workload fixes are searched next, on the same solver)."""
    seen: dict[str, Origin] = {}
    for c in cores:
        for o in c.origins:
            seen.setdefault(o.id, o)
    origins = list(seen.values())
    return Obstacles(origins, fixes(session, loaded, origins) if origins else [], [list(c.origins) for c in cores])
