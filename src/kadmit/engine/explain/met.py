"""The state a workload met when Kueue last tried it: the run's state at the start of the scheduling
cycle it was last decided in (the usage its nomination saw), made from the run's end state by undoing
the holder changes the session's journal recorded since (`Session.keep_journal`)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from kadmit.engine.admission.session import Session


@contextmanager
def as_met(session: Session, cycle: int) -> Iterator[bool]:
    """Inside, the session holds what it held when `cycle` started: workloads admitted since are
    suspended, workloads evicted since hold their quota (and nodes) again; everything comes back
    after. Yields False (and changes nothing) when the session kept no journal, or inside another
    `as_met` (the state is then already an earlier one)."""
    journal = session.journal
    if journal is None or getattr(session, "_met", False):
        yield False
        return
    later = journal.changes[journal.start_of(cycle):]
    then = {k: (h, session.pool.placed.get(k)) for k, h in session.holders.items()}
    for admitted, h, placed in reversed(later):
        if admitted:
            then.pop(h.workload, None)
        else:
            then[h.workload] = (h, placed)
    gone = [k for k, h in session.holders.items() if k not in then or then[k][0] is not h]
    back = [(h, placed) for k, (h, placed) in then.items() if session.holders.get(k) is not h]
    session._met = True  # type: ignore[attr-defined]
    try:
        with session.suspended(gone):
            for h, placed in back:
                session.usage.add(h.cluster_queue, h.amounts)
                session.holders[h.workload] = h
                if placed:
                    session.pool._take(h.workload, placed)
                session.situations.holders_changed(h.cluster_queue)
            if back:
                session._new_version()
            try:
                yield True
            finally:
                for h, placed in reversed(back):
                    session.usage.add(h.cluster_queue, {fr: -v for fr, v in h.amounts.items()})
                    session.holders.pop(h.workload, None)
                    if placed:
                        session.pool.release(h.workload)
                    session.situations.holders_changed(h.cluster_queue)
    finally:
        session._met = False  # type: ignore[attr-defined]
