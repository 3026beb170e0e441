"""The Workloads of the input being deleted (`metadata.deletionTimestamp`) as Kueue's reconcilers leave them:
the pods a pod reconciler stops as their Workload goes, and a warning (KAD161) where kadmit does not model what
lets one go (`manage.apply_jobs` decides which go)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Subject
from kadmit.manifests.codes import KAD161
from kadmit.manifests.jobs.groups import GROUP_NAME as POD_GROUP
from kadmit.model import Model


def not_stopped(model: Model, untouched: set[str] = frozenset()) -> tuple:
    """The pods of the input but those Kueue's pod reconciler stops as their Workload is being deleted (a
    pod group's member whose group's Workload, named as the group, is; a pod owning one): it deletes them
    (`Pod.Stop`), so they hold no node's capacity (the oracle gives them to that reconciler, never to its node
    usage). Not those of `untouched` Workloads, which no reconciler takes. The model's own tuple where none is."""
    going = {w.key for w in model.workloads if w.deleting and w.key not in untouched}
    owners = {(w.origin.namespace or "default", w.origin.name) for w in model.workloads
              if w.deleting and w.key not in untouched and w.origin is not None and w.origin.kind == "Pod"}
    if not going:
        return model.pods
    kept = tuple(p for p in model.pods if f"{p.namespace}/{p.labels.get(POD_GROUP)}" not in going
                 and (p.namespace, p.name) not in owners)
    return model.pods if len(kept) == len(model.pods) else kept


def unmodelled_deletions(workloads, gone: set[int], diags: Diagnostics | None,
                          prebuilt: dict[int, str] | None = None) -> None:
    """A warning (KAD161) for each Workload being deleted (`Workload.deleting`) that no job of the input
    lets go: one whose owner is not in the input, or is of a kind whose reconciler kadmit does not model
    for it (a Deployment's pod's), or a StatefulSet's or LeaderWorkerSet group's whose pods, through which
    Kueue lets it go, are not in the input. kadmit reads it as if it were not being deleted."""
    if diags is None:
        return
    prebuilt = prebuilt or {}
    for i, wl in enumerate(workloads):
        if not wl.deleting or i in gone:
            continue
        kind = wl.origin.kind if wl.origin is not None else None
        owner = f"{kind} `{wl.origin.name}`" if wl.origin is not None else "its owner"
        if i in prebuilt:
            why = (f"the input holds no pod of its group (`{POD_GROUP}: {wl.name}`), through which Kueue lets it go "
                   f"(its pod reconciler deletes them and drops the Workload's finalizer, and the {prebuilt[i]} "
                   f"reconciler makes a new Workload, queued afresh; a cluster has them: the {prebuilt[i]} "
                   "controller makes them, gated)")
        elif kind == "Pod":
            why = (f"{owner} is not a pod of the input (Kueue's pod reconciler deletes the pod and drops the Workload's "
                   "finalizer, so the Workload goes with its quota, and a ReplicaSet's pod gets a new one in its place)")
        else:
            why = (f"{owner} is not a job of the input whose reconciler kadmit models for it (Kueue's suspends the "
                   "job and drops the Workload's finalizer, so the Workload goes with its quota)")
        diags.emit(KAD161, f"`metadata.deletionTimestamp` of Workload `{wl.key}` is not modelled: {why}; kadmit "
                   "reads it as if it were not being deleted, and its decision may differ from Kueue's",
                   wl.field_span("deleting"), about=(Subject("Workload", wl.namespace, wl.name),))
