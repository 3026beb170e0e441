"""A workload slice's topology-aware placement with Kueue's ElasticJobsViaWorkloadSlicesWithTAS gate on: Kueue
v0.17.0's handleElasticWorkload (pkg/cache/scheduler/tas_elastic_workloads.go), called for a pod set (the workers of
a pod-set group) whose TAS request carries the topology assignment of the old slice's pod set of the same name
(tas_flavorassigner.go getPreviousTopologyAssignment).

- A previous assignment naming a domain the flavor's topology no longer has is stale
  (IsTopologyAssignmentStale): the pod set is placed afresh, as any other.
- More pods than before (handleScaleUp): the old pods stay where they are and only the new ones (the delta) are
  placed; the old pods take their nodes' capacity first (ComputeUsagePerDomain of the new pod set's single-pod
  requests, the pods counted too, added to the placement's assumed usage). Kueue's snapshot holds the old slice's
  pods on those nodes already, so they are counted twice there: with 2 old pods of 1 cpu on a node of 4 cpu, a
  delta of 2 finds 0 cpu free (tests/oracle/features/feature-gate-elastic-jobs-via-workload-slices-with-tas-on*).
  The placement is the delta's merged with the old one (mergeTopologyAssignments).
- As many pods: the old assignment itself; fewer: the old one cut to the count from its end (TruncateAssignment).

With the gate on Kueue refuses a required or preferred topology of any pod set, a slice's or not
(tas_flavorassigner.go WorkloadsTopologyRequests: "required topology is not supported with
ElasticJobsViaWorkloadSlices"), as an error of the pod set set after the assignment's mode was taken: a workload
that fits on quota is admitted with that pod set placed nowhere; one that needs preemption has Kueue's message
"failed to assign flavors to pod set NAME: <the error>" (Assignment.Message: an error is the whole message).

This module resolves the old assignment onto a tree's leaves and cuts and merges placements; `engine.placing.pool`
places the delta."""

from __future__ import annotations

from typing import Sequence

from kadmit.model import PodSet
from kadmit.placement.domains import DomainTree


def refused_topology(gate: bool, ps: PodSet) -> str | None:
    """Kueue's error for pod set `ps`'s topology request with ElasticJobsViaWorkloadSlicesWithTAS (`gate`) on: a
    required or preferred one; None for an unconstrained one, none, or the gate off."""
    mode = ps.topology.mode if ps.topology is not None else None
    if not gate or mode not in ("required", "preferred"):
        return None
    return f"{mode} topology is not supported with ElasticJobsViaWorkloadSlices"


def previous_leaves(tree: DomainTree, previous: Sequence[tuple[str, int]]) -> list[tuple[str, int]] | None:
    """The old slice's assignment (Kueue's domain ID -> pods, in the assignment's order) on `tree`'s leaves, by
    placement key; None where a domain is not in the tree (stale: Kueue places the pod set afresh)."""
    out = []
    for domain, pods in previous:
        key = tree.leaf_by_id.get(domain)
        if key is None:
            return None
        out.append((key, pods))
    return out


def truncated(previous: Sequence[tuple[str, int]], count: int) -> list[tuple[str, int]]:
    """TruncateAssignment: the first domains of the assignment, in its order, up to `count` pods (the last one
    cut), none for a count of 0 or less."""
    out, remaining = [], count
    for key, pods in previous:
        if remaining <= 0:
            break
        out.append((key, min(pods, remaining)))
        remaining -= min(pods, remaining)
    return out


def merged(*placements: Sequence[tuple[str, int]]) -> dict[str, int]:
    """mergeTopologyAssignments: the pods of the placements summed per leaf, sorted by leaf. A leaf summed to 0
    (the delta's negative count there as large as the old pods) is kept, as Kueue keeps it: its admission write
    is refused (engine/admission/decisions.py `refused_write`)."""
    out: dict[str, int] = {}
    for placement in placements:
        for key, pods in placement:
            out[key] = out.get(key, 0) + pods
    return dict(sorted(out.items()))
