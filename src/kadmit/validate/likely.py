"""Likely mistakes that Kueue accepts silently and no other check reports (KAD30x): a requested
resource nothing provides while a close name is provided (`nvidia.com/gpus`, `memroy`)."""

from __future__ import annotations

import difflib

from kadmit.diagnostics import Diagnostics, Label
from kadmit.effective import counted
from kadmit.identity import about, object_of
from kadmit.model import Model, PodSet, Workload
from kadmit.validate.codes import UNPROVIDED_RESOURCE

STANDARD = ("cpu", "memory", "ephemeral-storage", "pods")  # Kubernetes' own: never a misspelling
CUTOFF = 0.75  # `gpu`/`cpu` (0.67) are two resources; `nvidia.com/gpus`/`nvidia.com/gpu` (0.97) one
SHOWN = 3  # other requests of a flagged resource shown as labels


def misspelt_resources(model: Model) -> dict[str, str]:
    """Each requested resource no cluster queue or cohort covers and no node has, that is close to
    one that is covered, allocatable or standard -> that close name. Requests as Kueue counts them
    for quota (`kadmit.effective`), and, when the input has nodes, as the pods ask for them."""
    requested: set[str] = set()
    for wl in counted(model).workloads:
        for ps in wl.pod_sets:
            requested.update(ps.requests)
            if model.nodes:
                requested.update(ps.placed_requests)
    covered = {r for owner in (*model.cluster_queues, *model.cohorts) for g in owner.resource_groups
               for r in g.covered_resources}
    allocatable = {r for n in model.nodes for r in n.allocatable}
    provided = covered | allocatable
    candidates = sorted(provided | set(STANDARD))
    out = {}
    for res in sorted(requested - provided - set(STANDARD)):
        close = difflib.get_close_matches(res, [c for c in candidates if c != res], n=1, cutoff=CUTOFF)
        if close:
            out[res] = close[0]
    return out


def _requests(model: Model, res: str) -> list[tuple[Workload, PodSet]]:
    """The pod sets requesting `res`, in the order of their places in the input."""
    def place(wp: tuple[Workload, PodSet]) -> tuple:
        sp = wp[1].field_span(f"requests.{res}") or wp[0].span
        return (sp.file, sp.line, sp.column) if sp is not None else ("", 0, 0)

    return sorted(((wl, ps) for wl in model.workloads for ps in wl.pod_sets
                   if res in ps.requests or res in ps.placed_requests), key=place)


def check_likely_mistakes(model: Model, diags: Diagnostics) -> None:
    for res, meant in misspelt_resources(model).items():
        found = _requests(model, res)
        if not found:
            continue
        wl, ps = found[0]
        o = object_of(wl)
        nodes = " and no node has it" if model.nodes else ""
        notes = ["Kueue never admits a workload requesting a resource its cluster queue doesn't cover: "
                 "it stays pending"]
        if wl.origin is not None:  # named by its workload's key, the same in a `.kad` import of it
            notes.insert(0, f"`{wl.key}` is the workload Kueue makes of {o.kind} `{o.key}`")
        workloads = {w.key for w, _ in found}
        if len(found) > 1:
            notes.append(f"requested by {len(found)} pod sets of {len(workloads)} "
                         f"workload{'s' if len(workloads) > 1 else ''}")
        labels = [Label(sp, f"also requested by `{object_of(w).key}`")
                  for w, p in found[1:1 + SHOWN] if (sp := p.field_span(f"requests.{res}")) is not None]
        diags.emit(UNPROVIDED_RESOURCE,
                   f"`{res}` is requested by pod set `{ps.name}` of workload `{wl.key}`, but no cluster queue "
                   f"covers it{nodes}", ps.field_span(f"requests.{res}") or wl.span,
                   help=f"did you mean `{meant}`?", notes=notes, labels=labels, about=about(*{w.key: w for w, _ in found}.values()))
