"""Workloads being deleted that keep their quota because no reconciler of Kueue's lets them go: their job's
integration is not enabled (the Configuration's `integrations.frameworks`), so nothing drops Kueue's finalizer,
and Kueue's scheduler, which reads no deletion, counts their quota (`manifests.jobs.manage` leaves such a
job's Workloads as read). `why` names them among the holders and offers enabling the integration (`knobs.integration_knob`)."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.model import Model, Workload
from kadmit.modelconfig import reconciles
from kadmit.source import Span


@dataclass(frozen=True)
class KeptDeleting:
    """An admitted Workload being deleted that its job's disabled integration keeps."""

    workload: str
    job: str  # its job, as `why` names it: `JobSet ns/held`
    framework: str  # the integration that would let it go, as `integrations.frameworks` lists it
    frameworks: tuple[str, ...]  # the integrations the Configuration enables
    config: Span | None  # the Configuration that leaves it out

    def says(self, holds: str = "") -> str:
        """Why it holds quota (`holds`: how much, `4 cpu in default`), in a sentence."""
        where = f" at {self.config.file}:{self.config.line}" if self.config is not None else ""
        held = f", holding {holds}," if holds else ""
        return (f"`{self.workload}` ({self.job}){held} is being deleted and keeps its quota: its integration "
                f"`{self.framework}` is not enabled (integrations.frameworks of the Configuration{where}: "
                f"{', '.join(self.frameworks) or 'none'}), so no reconciler of Kueue's drops its finalizer, and "
                "Kueue's scheduler reads no deletion")

    def as_dict(self) -> dict:
        return {"workload": self.workload, "job": self.job, "framework": self.framework,
                "frameworks": list(self.frameworks),
                "config": {"file": self.config.file, "line": self.config.line} if self.config else None}


def kept_deleting(model: Model, wl: Workload | None) -> KeptDeleting | None:
    """`wl` where it is admitted, being deleted, and kept only because its job's integration is not among those
    the input's Configuration enables; None otherwise (no Configuration saying which: Kueue's installed one
    enables every integration kadmit reads)."""
    c = model.config
    if wl is None or not wl.deleting or not wl.admitted or wl.finished or wl.origin is None or c is None \
            or c.frameworks is None:
        return None
    job = next((j for j in model.jobs if j.object == wl.origin), None)
    if job is None or reconciles(c.frameworks, job.framework, job.parent_marked):
        return None
    o = wl.origin
    return KeptDeleting(wl.key, f"{o.kind} {o.key}", job.framework, c.frameworks, c.span)
