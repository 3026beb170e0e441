"""Explanations: a minimal unsat core over tracked statements (blame), and verified fixes (minimal
correction sets with the smallest change of each number)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain, combinations

from kadmit.engine.solver import terms as T
from kadmit.engine.compile.problem import Origin, Problem
from kadmit.engine.admission.session import Loaded, Session
from kadmit.engine.compile.symbolic import BIG
from kadmit.model import Workload
from kadmit.quantity import format_quantity

MAX_FIXES = 5
MAX_PAIR_CHECKS = 60
MAX_PER_KIND = 2  # fixes of one kind (e.g. "wait for"), so the handful shown is varied


@dataclass(frozen=True)
class Change:
    """One edit of the input: what, where, from which value to which."""

    kind: str  # raise, lower, remove, wait, tolerate, label, edit
    subject: str
    field: str
    old: str | None = None
    new: str | None = None
    origin: str = ""  # the origin id it relaxes

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


@dataclass
class Blame:
    """A minimal set of origins that together forbid admission; each was checked to matter."""

    origins: list[Origin] = field(default_factory=list)
    minimal: bool = True


def symbolic_problem(session: Session, wl: Workload) -> Problem:
    holders = sorted(session.holders.values(), key=lambda h: h.workload)
    return session.compiler.problem(wl, session.usage, "symbolic", holders=holders)


def blame(session: Session, loaded: Loaded, relaxed: frozenset[str] = frozenset()) -> Blame | None:
    """A minimal core of the loaded problem's statements (leaving out `relaxed`) that makes
    admission unsat, or None when it is satisfiable. Minimised by deletion: every member is checked
    to matter."""
    ids = [k for k in sorted(loaded.lits) if k not in relaxed]
    if session.ask(loaded, ids) == "sat":
        return None
    in_core = session.last_core(loaded)
    origins = loaded.problem.origins()
    # Start from Z3's core plus the workload's own demand, then shrink by deletion, trying first
    # what explains least (usage, then limits) so the demand and the binding limits stay.
    core = [k for k in ids if k in in_core or origins[k].kind == "min_count"]
    core.sort(key=lambda k: (_KEEP_ORDER.get(origins[k].kind, 5), k))
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if session.ask(loaded, trial) == "unsat":
            core = trial
        else:
            i += 1
    core.sort(key=lambda k: (origins[k].span.key() if origins[k].span else ("~",), k))
    return Blame([origins[k] for k in core], minimal=True)


def blame_groups(session: Session, loaded: Loaded, most: int = 3) -> list[Blame]:
    """Independent obstacles: a minimal core, then another among what is left once the first is
    relaxed, and so on. Each group is minimal given the earlier ones relaxed."""
    groups: list[Blame] = []
    relaxed: set[str] = set()
    while len(groups) < most:
        b = blame(session, loaded, frozenset(relaxed))
        if b is None or not b.origins:
            break
        groups.append(b)
        relaxed |= {o.id for o in b.origins}
    return groups


# deletion order for core shrinking: lower goes first
_KEEP_ORDER = {"usage": 0, "lending_limit": 1, "borrowing_limit": 2, "nominal": 3, "min_count": 9}


def _without(loaded: Loaded, drop: set[str]) -> list[str]:
    return [k for k in sorted(loaded.lits) if k not in drop]


def fixes(session: Session, loaded: Loaded, core: list[Origin]) -> list[Fix]:
    """Minimal correction sets of size one or two over the tracked statements, each with the
    smallest change of its numbers, each verified by a re-solve. Candidates are tried in rank
    order (cheapest kind of change first) and at most MAX_PER_KIND of a kind are kept, so a
    handful of varied fixes comes out without working out every one."""
    origins = loaded.problem.origins()
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


def _rank_key(o: Origin) -> tuple:
    return (_KIND_RANK.get(o.kind, 9), o.id)


def _relaxable(o: Origin) -> bool:
    return o.kind not in ("structural", "namespace_pair", "flavor_missing")


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
                      format_quantity(best * scale, p.resource), o.id)
    if o.kind == "min_count" and p is not None and p.value is not None:
        ps_name = o.id.split("|", 1)[1]
        n = next(pv.count for pv in loaded.problem.pod_sets if pv.pod_set.name == ps_name)
        best = _most(session, loaded, keep, pins, n, 1, p.value)
        if best is None:
            return None
        pins.append(T.eq(n, best))
        return Change("lower", p.subject, "min_count", str(p.value), str(best), o.id)
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
