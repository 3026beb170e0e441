"""Admissible at all: each workload alone on an empty cluster (no other workload, no bound pod).

Other workloads only take quota and nodes away, and on an empty cluster there is nothing to
preempt, so a workload that isn't admitted here is never admitted, whatever else happens.
"""

from __future__ import annotations

from kadmit.engine.admission.session import Assignment, Session, SolverUnknown
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Model


def empty_cluster(model: Model, keys: list[str]) -> Model:
    """`model` with only the workloads `keys`, pending, and no bound pods."""
    wanted = set(keys)
    return model.model_copy(update={
        "workloads": tuple(w.model_copy(update={"admission": None}) for w in model.workloads
                           if w.key in wanted and not w.finished),
        "pods": ()})


class Undecided:
    """The solver could not say within its limits whether the workload is admissible alone."""

    def __repr__(self) -> str:
        return "UNDECIDED"


UNDECIDED = Undecided()


def admissible_alone(model: Model, keys: list[str], limits: Limits | None = None,
                     cache: ShapeCache | None = None) -> dict[str, Assignment | None | Undecided]:
    """Per workload key, Kueue's assignment for it alone on an empty cluster (None: never admissible;
    `UNDECIDED`: the solver ran out). One session answers them all; nothing is committed between
    questions."""
    empty = empty_cluster(model, keys)
    session = Session(empty, limits, cache=cache)
    out: dict[str, Assignment | None] = {}
    for key in sorted(set(keys)):
        wl = session.index.workloads.get(key)
        if wl is None:
            continue
        try:
            out[key] = session.try_admit(wl)[0]
        except SolverUnknown:
            out[key] = UNDECIDED
    return out
