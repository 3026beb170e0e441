"""How a cycle of `ordered` mode processes its nominees: in Kueue's order (`processing_order`), and what a
head that needs preemption but found no victims holds for the rest of the cycle (`reserved`)."""

from __future__ import annotations

from kadmit.engine.admission.session import Assignment, Session
from kadmit.engine.admission.second_pass import SecondPass
from kadmit.featuregates import enabled


def processing_order(session: Session, entries: list, fair: bool):
    """Nominated heads in Kueue's processing order: lower borrowing height, higher priority, older
    (classical); with fair sharing, one tournament pick at a time against the usage as it stands
    after the entries processed before (preempt.fair_pick)."""
    ix = session.index
    if not fair:  # the priority only with the PrioritySortingWithinCohort gate on (makeClassicalIterator)
        by_priority = enabled(session.model.config, "PrioritySortingWithinCohort")
        yield from sorted(entries, key=lambda e: (not isinstance(e[2], SecondPass), (e[2].height if e[2] is not None else 0),
                                                  -ix.priority(e[1]) if by_priority else 0, e[1].created, e[1].key))
        return
    from kadmit.engine.preemption.fair_sharing import fair_pick
    left = list(entries)
    while left:
        picked = fair_pick(session, [(wl, name, dict(a.usage) if a is not None else {}) for name, wl, a in left])
        i = next(i for i, e in enumerate(left) if e[1] is picked[0])
        yield left.pop(i)


def reserved(session: Session, cq, a: Assignment) -> dict:
    """What a workload that needs preemption but found no victims holds for the rest of the cycle
    (Kueue's resourcesToReserve): its usage, capped at what is left of the queue's nominal quota,
    or of nominal plus borrowing limit when the assignment borrows."""
    from kadmit.engine.quota import node_id
    tree = session.compiler.tree
    nid = node_id(cq.name, False)
    out = {}
    for fr, v in a.usage.items():
        entry = tree.entry(nid, fr)
        used = session.usage.get(cq.name, fr)
        if a.borrowing:
            cap = v if entry.borrowing_limit is None else entry.nominal + entry.borrowing_limit - used
        else:
            cap = entry.nominal - used
        out[fr] = max(0, min(v, cap))
    return out
