"""A plain-Python reference of Kueue's admission: quota arithmetic, scheduling order, preemption.

It is the oracle the Z3 engine is tested against and the baseline of the benchmarks. It
imports only the model, the index and quantities. See `quota` (the quota tree), `flavors`
(flavor assignment, partial admission, flavor modes), `scheduler` (queues and cycles),
`preemption` (victim selection, classical and fair sharing) and `preempting` (the replay with
preemption, `decide(model, preemption=True)`) for the semantics followed and the choices made
where Kueue's answer depends on timing; docs/PREEMPTION.md describes Kueue's rules.
"""

from __future__ import annotations

from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.reference.preemption import (
    Admitted,
    FairSharing,
    Preemptor,
    Snapshot,
    Target,
    get_targets,
)
from kadmit.reference.quota import FR, QuotaTree
from kadmit.reference.replay import decide
from kadmit.reference.scheduler import RefDecision, RefPodSet, build_tree

__all__ = ["Admitted", "FairSharing", "Preemptor", "RefDecision", "RefPodSet", "Snapshot", "Target", "available",
           "build_tree", "decide", "get_targets", "potential_available"]


def _tree(model: Model, usage: dict[str, dict[FR, int]]) -> QuotaTree:
    tree = QuotaTree(ModelIndex(model))
    for cq in sorted(usage):
        if cq in tree.queues:
            tree.add_usage(cq, usage[cq])
    return tree


def available(model: Model, usage: dict[str, dict[FR, int]], cq: str, fr: FR) -> int:
    """What cluster queue `cq` can still use of `fr = (flavor, resource)` given each queue's
    usage (clamped at 0, as `ClusterQueueSnapshot.Available`)."""
    return _tree(model, usage).available(cq, fr)


def potential_available(model: Model, cq: str, fr: FR) -> int:
    """The largest request `cq` could admit in `fr` with nothing admitted ("maximum capacity")."""
    return QuotaTree(ModelIndex(model)).potential_available(cq, fr)
