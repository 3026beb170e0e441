"""A plain-Python replay of Kueue's admission: the oracle the engine is tested against and the
baseline of the benchmarks.

It is written from Kueue's own sources, in Kueue's shape and names, with its own data
structures and nothing from the engine: it imports only the model, the index, the effective
state and quantities. Modules, in import order:

- `quota`: resource nodes and the quota tree (`resource_node.go`, ClusterQueue / Cohort snapshots);
- `snapshot`: the workloads holding quota per ClusterQueue (`workload.Info`, the cache snapshot);
- `common`: what both preemption strategies share (policies, candidate order, fill-back);
- `classical`, `fair_sharing`: the two strategies, dominant resource shares, the tournament's shares;
- `preemption`: `GetTargets`, the preemption oracle, fair-sharing settings;
- `flavors`: the flavor assigner with its modes, and partial admission;
- `queues`: ClusterQueue queueing (StrictFIFO / BestEffortFIFO, inadmissible workloads);
- `scheduler`: the scheduling cycle; `preempting` the same with preemption on; `replay` `decide()`.

docs/PREEMPTION.md describes Kueue's preemption rules; each module's docstring says which of
Kueue's functions it replays and the choices made where Kueue's answer depends on timing.
"""

from __future__ import annotations

from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.reference.preemption import Admitted, FairSharing, Preemptor, Snapshot, Target, get_targets
from kadmit.reference.quota import FR, QuotaTree
from kadmit.reference.replay import decide
from kadmit.reference.scheduler import RefDecision, RefPodSet, build_tree

__all__ = ["Admitted", "FairSharing", "Preemptor", "RefDecision", "RefPodSet", "Snapshot", "Target", "available",
           "build_tree", "decide", "get_targets", "potential_available"]


def available(model: Model, usage: dict[str, dict[FR, int]], cq: str, fr: FR) -> int:
    """What ClusterQueue `cq` can still use of `fr = (flavor, resource)` given each queue's
    usage (clamped at 0, as `ClusterQueueSnapshot.Available`)."""
    tree = QuotaTree(ModelIndex(model))
    for name in sorted(usage):
        if name in tree.queues:
            tree.add_usage(name, usage[name])
    return tree.available(cq, fr)


def potential_available(model: Model, cq: str, fr: FR) -> int:
    """The largest request `cq` could admit in `fr` with nothing admitted ("maximum capacity")."""
    return QuotaTree(ModelIndex(model)).potential_available(cq, fr)
