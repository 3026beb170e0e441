"""Blame: every independent reason a workload is not admitted, as minimal unsat cores over the
tracked statements of its symbolic problem (enumerated by `marco`)."""

from __future__ import annotations

import dataclasses

from kadmit.engine.compile.problem import Problem
from kadmit.engine.admission.session import Loaded, Session
from kadmit.engine.explain.marco import MAX_CORES, Enumeration, enumerate_cores, resource_hints
from kadmit.model import Workload


def symbolic_problem(session: Session, wl: Workload) -> Problem:
    holders = sorted(session.holders.values(), key=lambda h: h.workload)
    problem = session.compiler.problem(wl, session.usage, "symbolic", holders=holders)
    if session.slice_pins is None:
        return problem
    from kadmit.engine.explain.replacing import pinned_statements
    return dataclasses.replace(problem, tracked=problem.tracked + pinned_statements(session, wl, problem))


def blame_cores(session: Session, loaded: Loaded, most: int = MAX_CORES, whole: str | None = None) -> Enumeration:
    """Every independent reason, up to `most`: minimal unsat cores of the loaded problem's tracked
    statements (MARCO-style; see `marco`), each minimal by deletion. Empty when it is satisfiable.
    `whole`: the answer with every statement standing, when the caller asked it last (not again:
    the solver's next answers may depend on what it was asked before)."""
    ids = sorted(loaded.lits)
    if (whole if whole is not None else session.ask(loaded, ids)) == "sat":
        return Enumeration()
    origins = loaded.problem.origins()
    return enumerate_cores(ids, origins, lambda sub: session.ask(loaded, sub) == "unsat",
                           lambda: session.last_core(loaded), most=most, hints=resource_hints(ids, origins))
