"""ElasticJobsViaWorkloadSlices in the scheduling cycle: a Workload that replaces an admitted slice of its job
(`Workload.replaces`, `manifests.jobs.slices`) in its own ClusterQueue (workloadslicing.ReplacedWorkloadSlice) is
assigned flavors as Kueue's flavor assigner assigns them with `replaceWorkloadSlice` set: each pod set keeps the
flavors of the old slice's pod set at its place (`pins`: any other flavor fails, "could not assign …"), and needs
only what it asks beyond the old slice's usage (flavorassigner.go findFlavorForPodSets and Assignment.append: the
old slice's requests subtracted). kadmit asks the same question with the old slice's quota taken out of the state
and the replacement's whole usage asked (`Session.nominate` asks every nomination of one so): the same end state is
checked, the cohort tree's arithmetic over the usage it ends with. The old slice's pods stay on their nodes: with
ElasticJobsViaWorkloadSlicesWithTAS off Kueue places every pod of a slice beside them (its TAS snapshot keeps them);
with it on only the new pods, the old ones counted twice (`previous`, `placement.slices`).
Preemption finds victims among the others (the old slice is no victim: FindReplacedSliceTarget takes it out of the
targets). The scheduler's `fits` check and what the cycle holds for it are the usage beyond the old slice's
(`beyond`) with the old slice counted gone, as Kueue's entry usage and its preemption targets (the old slice among
them) are; admitted, the old slice is finished (replaceWorkloadSlice: Finished, WorkloadSliceReplaced) and its
usage freed (`admitted`)."""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from typing import Iterator

from kadmit.featuregates import enabled
from kadmit.model import Workload

GATE = "ElasticJobsViaWorkloadSlices"


def replaced(session, wl: Workload):
    """The holder of the admitted slice `wl` replaces, in `wl`'s ClusterQueue, with the gate on; else None
    (ReplacedWorkloadSlice: found only among the ClusterQueue's workloads)."""
    if not wl.replaces or not enabled(session.model.config, GATE):
        return None
    h = session.holders.get(wl.replaces)
    cq = session.index.cluster_queue_of(wl)
    if h is None or cq is None or h.cluster_queue != cq.name:
        return None
    return h


def pins(session, wl: Workload) -> dict[str, dict[str, str]] | None:
    """Per pod set of `wl`, the flavor of each resource the old slice's pod set at the same place was admitted
    with (Kueue reads the old slice's TotalRequests by the pod set's index); None where `wl` replaces none. A pod
    set past the old slice's, or a resource it was not given, has no flavor Kueue accepts ("")."""
    h = replaced(session, wl)
    if h is None:
        return None
    old = session.index.workloads.get(h.workload)
    admitted = old.admission.pod_sets if old is not None and old.admission is not None else ()
    return {ps.name: dict(admitted[i].flavors) if i < len(admitted) else {} for i, ps in enumerate(wl.pod_sets)}


def mismatch(pinned: dict[str, dict[str, str]], names: list[str], resources: list[str], fname: str) -> str | None:
    """Kueue's reason a flavor fails the replacement's pod sets `names` for a resource group (`resources`), given
    its `pins`: the old slice was given another flavor; None where it suits."""
    for name in names:
        for r in resources:
            original = pinned.get(name, {}).get(r, "")
            if original != fname:
                return f"could not assign {fname} flavor since the original workload is assigned: {original}"
    return None


def old_requests(session, wl: Workload) -> dict[str, dict[str, int]]:
    """Per pod set of `wl`, what the old slice's pod set at its place holds of each resource (milli-units; Kueue
    subtracts it from the replacement's request); {} where `wl` replaces none."""
    h = replaced(session, wl)
    old = session.index.workloads.get(h.workload) if h is not None else None
    if old is None or old.admission is None:
        return {}
    by_name = {ps.name: ps for ps in old.pod_sets}
    out: dict[str, dict[str, int]] = {}
    for ps, psa in zip(wl.pod_sets, old.admission.pod_sets):
        spec = by_name.get(psa.name)
        out[ps.name] = dict(psa.usage) if psa.usage else \
            {r: q * psa.count for r, q in (spec.requests if spec is not None else {}).items()}
    return out


def previous(session, wl: Workload) -> dict[str, tuple[tuple[str, int], ...]]:
    """With ElasticJobsViaWorkloadSlicesWithTAS on, per pod set of `wl`, the topology assignment of the old slice's
    pod set of its name (getPreviousTopologyAssignment: by name, where it has one), Kueue's domain IDs -> pods in
    the assignment's order: the placement keeps those pods (`placement.slices`); {} where `wl` replaces none."""
    h = replaced(session, wl) if session.pool.elastic else None
    old = session.index.workloads.get(h.workload) if h is not None else None
    if old is None or old.admission is None:
        return {}
    return {psa.name: tuple(psa.placement.items()) for psa in old.admission.pod_sets if psa.placement}


def old_on(session, names: list[str], fname: str, resources: list[str]) -> dict[str, int]:
    """In the flavor search of a replacement slice (`pinned`), what the old slice's pod sets at the places of its
    pod sets `names` hold of each resource on flavor `fname` (the pins keep each pod set on its old flavor): the
    part of its request that Kueue subtracts before its maximum-capacity and nominal checks; {} for others."""
    old, pinned_to = session.slice_old, session.slice_pins or {}
    return {r: sum(old.get(n, {}).get(r, 0) for n in names if pinned_to.get(n, {}).get(r) == fname)
            for r in resources} if old else {}


@contextmanager
def pinned(session, wl: Workload) -> Iterator[None]:
    """Flavor searches inside see the pins of `wl`'s old slice (`mismatch`) and its requests (`old_on`), and its
    placements the old slice's topology assignments (`previous`)."""
    before, old, had = session.slice_pins, session.slice_old, session.pool.previous.get(wl.key)
    session.slice_pins, session.slice_old = pins(session, wl), old_requests(session, wl)
    session.pool.previous[wl.key] = previous(session, wl)
    try:
        yield
    finally:
        session.slice_pins, session.slice_old = before, old
        if had is None:
            del session.pool.previous[wl.key]
        else:
            session.pool.previous[wl.key] = had


def replacing(session, wl: Workload) -> list[str]:
    """Inside `pinned` for `wl` (its nomination as a replacement, `Session.nominate`, where its old slice is
    suspended and `replaced` finds it no more), the old slice: Kueue's preemption targets of the replacement start
    with it (ReplacedWorkloadSlice), so updateAssignmentForTAS places it with the old slice's pods gone; [] else."""
    return [wl.replaces] if wl.replaces and session.slice_pins is not None else []


def gone(session, wl: Workload) -> list[str]:
    """The old slice, as one of `wl`'s preemption targets in the scheduler's `fits` check; [] for others."""
    h = replaced(session, wl)
    return [h.workload] if h is not None else []


def beyond(session, wl: Workload, usage: dict) -> dict:
    """`usage` less the old slice's (Kueue's entry usage: Assignment.Usage.Quota, the delta); `usage` itself
    where `wl` replaces none."""
    h = replaced(session, wl)
    if h is None:
        return usage
    return {fr: v - h.amounts.get(fr, 0) for fr, v in usage.items()}


def admitted(session, wl: Workload) -> dict:
    """`wl` is admitted: the slice it replaces is finished (replaceWorkloadSlice), its usage freed. Returned: that
    usage taken off once more for the rest of the cycle (negative amounts, for the cycle to hold; {} where `wl`
    replaces none): the old slice stays among the cycle's preempted workloads, whose usage Kueue's `fits` takes out
    of the snapshot for every later entry (scheduler.go fits, SimulateWorkloadRemoval), though the snapshot never
    held the replacement's whole usage, only the usage beyond the old slice's, on top of it."""
    h = replaced(session, wl)
    if h is None:
        return {}
    session.finish(h.workload)
    return {fr: -v for fr, v in h.amounts.items()}


def entry(session, wl: Workload, a):
    """Assignment `a` as Kueue's entry holds it in a cycle without victims (resourcesToReserve of its usage):
    a replacement slice's usage beyond its old slice's."""
    h = replaced(session, wl)
    return a if h is None else dataclasses.replace(a, usage=beyond(session, wl, a.usage))
