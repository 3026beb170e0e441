"""Negative requests in a cohort (KAD262): a Configuration transformation with a negative output
factor makes requests below 0, which Kueue counts as they are; in a cohort its books then depend on
the order it met the workloads."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Label
from kadmit.identity import about
from kadmit.effective import counted
from kadmit.index import ModelIndex
from kadmit.model import Workload
from kadmit.validate.codes import NEGATIVE_IN_COHORT

SHOWN = 3  # workloads named per queue


def check_negative_in_cohort(index: ModelIndex, diags: Diagnostics) -> None:
    """One warning per ClusterQueue in a cohort whose workloads request or hold a negative amount."""
    model = index.model
    cfg = model.config
    if not any(p.usage and min(p.usage.values()) < 0 for wl in model.workloads if wl.admission
               for p in wl.admission.pod_sets) and not (
            cfg is not None and any(q < 0 for t in cfg.transformations for q in t.outputs.values())):
        return
    by_cq: dict[str, list[tuple[Workload, str]]] = {}
    for wl in counted(model).workloads:
        res = _negative(wl)
        if res is None:
            continue
        cq = index.cluster_queues.get(wl.admission.cluster_queue) if wl.admission else index.cluster_queue_of(wl)
        if cq is not None and cq.cohort is not None:
            by_cq.setdefault(cq.name, []).append((wl, res))
    for name, found in sorted(by_cq.items()):
        cq = index.cluster_queues[name]
        shown = ", ".join(f"`{wl.namespace}/{wl.name}` ({res})" for wl, res in found[:SHOWN])
        more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        diags.emit(NEGATIVE_IN_COHORT,
                   f"ClusterQueue `{name}` is in cohort `{cq.cohort}` and workloads of it ask for a negative "
                   f"amount: {shown}{more}; Kueue's cohort usage then depends on the order it met them",
                   cq.field_span("cohort") or cq.span,
                   labels=[Label(wl.span, "asks for a negative amount") for wl, _ in found[:SHOWN] if wl.span],
                   notes=["Kueue passes to the cohort only usage above the queue's unused guaranteed quota, "
                          "which a negative amount never is, and keeps what an earlier positive amount put "
                          "there; kadmit counts the cohort's usage as Kueue's rebuild of the cohort tree does "
                          "(each queue's usage above its guaranteed quota, at least 0), one of its answers"],
                   help="keep the Configuration's transformation outputs at 0 or more, or this queue out of "
                        "cohorts", about=about(cq, *(wl for wl, _ in found)))


def _negative(wl: Workload) -> str | None:
    """The first resource `wl` asks for or holds below 0 (its recorded usage where admitted with one)."""
    if wl.admission is not None and any(p.usage for p in wl.admission.pod_sets):
        return next((res for p in wl.admission.pod_sets for res, q in sorted(p.usage.items()) if q < 0), None)
    for ps in wl.pod_sets:
        for res, q in sorted(ps.requests.items()):
            if q < 0:
                return res
    return None
