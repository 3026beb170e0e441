"""The scheduling replay with Kueue's preemption (`decide(model, preemption=True)`): the
scheduler of `scheduler.py` with the preemption oracle on, and, with fair sharing, the
fair-sharing order and preemption strategies (docs/PREEMPTION.md, part 3)."""

from __future__ import annotations

from kadmit.model import Model
from kadmit.reference.common import FairSharing
from kadmit.reference.preemption import fair_settings  # noqa: F401 (callers take it from here)
from kadmit.reference.scheduler import OVERLAPPING, Entry, Scheduler  # noqa: F401


class PreemptingScheduler(Scheduler):
    """One replay of Kueue's scheduling with preemption over a model."""

    def __init__(self, model: Model, fair: FairSharing | None = None) -> None:
        super().__init__(model, fair, preemption=True)
