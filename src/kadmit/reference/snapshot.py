"""Kueue's scheduling snapshot as preemption uses it (`pkg/cache/scheduler/snapshot.go`): the
quota tree plus, per ClusterQueue, the workloads holding quota there (`workload.Info`), which
preemption removes and adds back while it searches.

Where Kueue breaks the last tie by UID (`CandidatesOrdering`: `a.Obj.UID`), a workload holding
quota in the input is compared by its Workload's UID, then its key; one admitted during the
replay has a UID only Kueue knows (empty here: before the input's, then by key).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kadmit.model import ClusterQueue, Cohort
from kadmit.reference.quota import FR, QuotaTree, ResourceNode, path_parent_to_root


@dataclass(frozen=True)
class Admitted:
    """One workload holding quota in a ClusterQueue (Kueue's `workload.Info`)."""

    key: str
    cluster_queue: str
    priority: int
    created: datetime  # queue-order timestamp (LowerOrNewerEqualPriority compares it)
    admitted_at: datetime  # quota reservation time ("most recently admitted first")
    usage: dict[FR, int]
    evicted: bool = False  # already being evicted: preferred as a victim, not evicted twice
    uid: str = ""  # the input Workload's UID ("" when unknown): Kueue's last tie-break


class Snapshot:
    """The quota tree and the workloads admitted in every ClusterQueue."""

    def __init__(self, tree: QuotaTree, specs: dict[str, ClusterQueue], cohorts: dict[str, Cohort],
                 admitted: list[Admitted] = ()) -> None:
        self.tree = tree
        self.specs = specs
        self.cohort_specs = cohorts
        self.workloads: dict[str, dict[str, Admitted]] = {}
        for name in tree.queues:
            self.workloads[name] = {}
        for info in admitted:
            self.workloads.setdefault(info.cluster_queue, {})[info.key] = info

    def add(self, info: Admitted) -> None:
        """`AddWorkload`."""
        self.workloads.setdefault(info.cluster_queue, {})[info.key] = info
        self.tree.add_usage(info.cluster_queue, info.usage)

    def remove(self, info: Admitted) -> None:
        """`RemoveWorkload`."""
        self.workloads[info.cluster_queue].pop(info.key)
        self.tree.remove_usage(info.cluster_queue, info.usage)

    def admitted(self, cq: str) -> list[Admitted]:
        """The ClusterQueue's workloads, by key."""
        held = self.workloads.get(cq, {})
        return [held[key] for key in sorted(held)]

    def find(self, key: str) -> Admitted | None:
        for held in self.workloads.values():
            if key in held:
                return held[key]
        return None

    def fair_weight(self, node: ResourceNode) -> float:
        """`parseFairWeight`: the node's weight, 1 when none is set (0 is allowed)."""
        if node.is_cluster_queue:
            spec = self.specs.get(node.name)
        else:
            spec = self.cohort_specs.get(node.name)
        setting = None if spec is None else getattr(spec, "fair_sharing", None)
        if setting is None:
            return 1.0
        return setting.weight / 1000

    def path(self, cq: str) -> str:
        """`buildCQPath`: `/root/…/parent/cq`."""
        names = [cohort.name for cohort in path_parent_to_root(self.tree.queues[cq])]
        names.reverse()
        return "/" + "/".join(names + [cq])
