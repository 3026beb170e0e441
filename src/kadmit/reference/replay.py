"""The reference's front door: what Kueue would do with every pending workload."""

from __future__ import annotations

from kadmit.effective import effective
from kadmit.model import Model
from kadmit.reference.preemption import fair_settings
from kadmit.reference.scheduler import RefDecision, Scheduler


def decide(model: Model, preemption: bool = False, fair_sharing: bool | None = None) -> list[RefDecision]:
    """What Kueue would do with every pending workload, sorted by workload key.

    `preemption=False` (the default, what the engine's differential tests compare with) replays
    admission alone: a workload that needs preemption doesn't fit. `preemption=True` replays
    Kueue's preemption and, with fair sharing on (`fair_sharing`, else the model's scheduler
    configuration), its fair-sharing admission order; victims get decisions too."""
    model = effective(model)
    if not preemption:
        return Scheduler(model).run()
    return Scheduler(model, fair_settings(model, fair_sharing), preemption=True).run()
