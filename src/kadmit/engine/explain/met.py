"""The state a workload met when Kueue last tried it: the run's state at the start of the scheduling
cycle it was last decided in (the usage its nomination saw), made from the run's end state by undoing
the holder changes the session's journal recorded since (`Session.keep_journal`)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from kadmit.engine.admission.session import Session, SolverUnknown
from kadmit.model import Workload


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
                session.situations.holder_changed(h.cluster_queue, h.workload)
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
                    session.situations.holder_changed(h.cluster_queue, h.workload)
    finally:
        session._met = False  # type: ignore[attr-defined]


def met_starts(session: Session, cycle: int, wl: Workload, origins) -> dict[str, int]:
    """Per quota number among `origins` (`quota|…` ids), the least value with which `wl` fits on its
    own at the state it met when Kueue last tried it (one-workload checks under `Session.what_if`,
    doubling then bisecting to a thousandth): where the search for a fix of that number starts. A
    number no value of which lets it fit there is left out."""
    out: dict[str, int] = {}
    with as_met(session, cycle):
        for o in origins:
            parts = o.id.split("|")
            if len(parts) != 5 or parts[0] != "quota" or o.param is None or o.param.value is None:
                continue
            kind, name = parts[1].split(":", 1)
            entry = (kind, name, parts[2], parts[3], parts[4])
            old = o.param.value

            def fits(x: int) -> bool:
                try:
                    with session.what_if([(*entry, x)]):
                        got, _ = session.try_admit(wl)
                except (KeyError, ValueError, SolverUnknown):
                    return False
                return got is not None
            step, hi = max(1, old // 8, 1000), None
            for _ in range(24):
                if fits(old + step):
                    hi = old + step
                    break
                step *= 2
            if hi is not None:
                lo = old
                while hi - lo > 1 and (hi - lo) * 1000 > hi:
                    mid = (lo + hi) // 2
                    if fits(mid):
                        hi = mid
                    else:
                        lo = mid
                out[o.id] = hi
    return out
