"""Blame: a minimal unsat core over tracked statements, and independent obstacles as further
cores."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.compile.problem import Origin, Problem
from kadmit.engine.admission.session import Loaded, Session
from kadmit.model import Workload


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
