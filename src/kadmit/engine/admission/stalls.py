"""KAD542 for `kadmit check`: the stall an `admit` run meets at its first cycle (`afs.stalled_by`: under
admission fair sharing a Workload holding quota whose LocalQueue doesn't exist makes Kueue's snapshot fail
every cycle), found by the same rule on a session of the input not yet run, as a diagnostic located at the
Workload that makes it (and the others as labels)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostic, Label, Severity
from kadmit.engine.admission.codes import KAD542
from kadmit.engine.admission.session import Session
from kadmit.engine.afs import STALL_HELP, stall, stalled_by
from kadmit.identity import about
from kadmit.model import Model


def stall_diagnostics(model: Model) -> list[Diagnostic]:
    """The KAD542 warning `admit` and `why` give for `model` (none where Kueue schedules as usual)."""
    session = Session(model)
    holders = stalled_by(session)
    if not holders:
        return []
    s = stall(holders, session)
    (_, first), *rest = s.holders
    return [Diagnostic(KAD542, Severity.WARNING, s.message, first, STALL_HELP, (),
                       tuple(Label(span, f"Workload {key}") for key, span in rest if span is not None),
                       about(*holders))]
