"""What deciding every pending workload returns: decisions, reasons for the pending, solver figures."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.admission.loops import PreemptionLoop
from kadmit.engine.admission.ordered import Decision
from kadmit.engine.placing.gangs import GangDecision
from kadmit.engine.admission.reasons import Reason


@dataclass
class AdmitResult:
    mode: str
    decisions: list[Decision]
    reasons: dict[str, list[Reason]]
    solver: dict
    unknown: bool
    optimal: dict | None = None  # CP-SAT: status, objective, bound, extra admissions vs ordered
    loops: list[PreemptionLoop] = field(default_factory=list)  # preemption loops the run stopped
    gangs: list[GangDecision] = field(default_factory=list)  # pod groups kube-scheduler places all-or-nothing
