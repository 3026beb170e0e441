"""Objects of the input sharing a UID, which no cluster holds (KAD198): jobs (Kueue's job reconciler tells them
apart by kind and name, so each is still decided) and Workloads (Kueue breaks its last ties by UID)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Label, Subject
from kadmit.identity import subject
from kadmit.manifests.codes import KAD198
from kadmit.model import Job, Workload


def shared_uids(jobs: tuple[Job, ...], diags: Diagnostics) -> set[str]:
    """The UIDs two or more jobs of the input carry, each later one reported (KAD198) at its UID,
    naming where the first carrying it is. A cluster can't hold them; Kueue's job reconciler tells
    jobs apart by kind and name (FindMatchingWorkloads), so each is still decided."""
    first: dict[str, Job] = {}
    shared: set[str] = set()
    for job in jobs:
        uid = job.object.uid
        if not uid:
            continue
        orig = first.setdefault(uid, job)
        if orig is job:
            continue
        shared.add(uid)
        where = orig.object.field_span("uid")
        at = f" ({where})" if where is not None else ""
        diags.emit(KAD198, f"`{job.object.qualified}` has the UID `{uid}` of `{orig.object.qualified}`{at}; "
                   "no cluster holds two objects with one UID", job.object.field_span("uid"),
                   labels=[Label(where, "first carried here")] if where is not None else [],
                   notes=["Kueue's job reconciler finds a job's Workloads by its kind and name, not its UID: "
                          "it makes a Workload for each, and kadmit decides both"],
                   help="give one of them its own UID, or remove one", about=(subject(job.object), subject(orig.object)))
    return shared


def shared_workload_uids(workloads: tuple[Workload, ...], diags: Diagnostics) -> None:
    """Each Workload of the input carrying an earlier one's UID, reported (KAD198) at its UID.
    Kueue keys Workloads by namespace and name, but breaks its last ties by UID: the queue's order
    (`baseCompareFunc`: the order they reach the queue) and the preemption victims'
    (`CandidatesOrdering`, sorted unstably from a map: Go's map order, from run to run;
    tests/oracle/features/tie-victims-with-one-uid.yaml); kadmit takes them by name."""
    first: dict[str, Workload] = {}
    for wl in workloads:
        if not wl.uid:
            continue
        orig = first.setdefault(wl.uid, wl)
        if orig is wl:
            continue
        where = orig.field_span("uid")
        at = f" ({where})" if where is not None else ""
        diags.emit(KAD198, f"Workload `{wl.key}` has the UID `{wl.uid}` of Workload `{orig.key}`{at}; no cluster "
                   "holds two objects with one UID", wl.field_span("uid"),
                   labels=[Label(where, "first carried here")] if where is not None else [],
                   notes=["Kueue breaks its last ties by UID (the queue's order, the order of preemption "
                          "victims): where these two tie on everything before it, Kueue's order between them is "
                          "not fixed (victims come in Go's map order, from run to run); kadmit takes them by name"],
                   help="give one of them its own UID, or remove one",
                   about=(Subject("Workload", wl.namespace, wl.name), Subject("Workload", orig.namespace, orig.name)))
