"""Pending workloads whose order in their queue no input holds (KAD260): tied on priority and
creation time, with a job among them whose Workload Kueue has yet to make (its UID, Kueue's last
tie-break, is the API server's random draw)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from kadmit.diagnostics import Diagnostics, Label
from kadmit.identity import about, queue_uid
from kadmit.index import ModelIndex
from kadmit.model import Workload
from kadmit.validate.codes import QUEUE_ORDER_UNKNOWN

SHOWN = 6  # names listed in a message; the rest counted


@dataclass(frozen=True)
class Tie:
    """Pending workloads of one queue tied on priority and creation time, in kadmit's order (the
    input's UIDs, `identity.queue_uid`, then names: engine.admission.ordered), `made` of them jobs whose Workload Kueue
    has yet to make (no UID)."""

    cluster_queue: str
    local_queue: str  # where admission fair sharing orders the ClusterQueue by LocalQueue, else ""
    priority: int
    created: datetime
    members: tuple[Workload, ...]
    made: tuple[Workload, ...]

    @property
    def where(self) -> str:
        return f"ClusterQueue `{self.cluster_queue}`" + (f" (LocalQueue `{self.local_queue}`)" if self.local_queue else "")

    @property
    def how(self) -> str:
        return ("by UID (one Kueue has yet to make as the middle of the random UIDs), then by name"
                if any(w.uid for w in self.members) else "by name")

    def order(self, most: int = SHOWN) -> str:
        names = [f"`{w.key}`" for w in self.members]
        return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")

    def stamp(self) -> str:
        return self.created.isoformat().replace("+00:00", "Z")


def queue_ties(index: ModelIndex) -> list[Tie]:
    """Every tied group of pending workloads whose order is Kueue's random draw: a ClusterQueue's
    (and, where admission fair sharing orders it, a LocalQueue's) workloads of one priority created
    in one second, one or more of them made of a job here (no UID: Kueue's reconciler creates its
    Workload, and the API server gives it a random UUID). Kueue orders them by UID (baseCompareFunc)."""
    model = index.model
    afs = model.config is not None and model.config.admission_fair_sharing is not None
    groups: dict[tuple, list[Workload]] = {}
    for wl in model.workloads:
        if wl.admission is not None or wl.finished or not wl.active or wl.inadmissible:
            continue
        cq = index.cluster_queue_of(wl)
        if cq is None:
            continue
        lq = wl.queue if afs and cq.admission_fair_sharing else ""
        groups.setdefault((cq.name, lq, -index.priority(wl), wl.created), []).append(wl)
    out = []
    for (cq_name, lq, neg_priority, created), members in sorted(groups.items(), key=lambda kv: kv[0]):
        made = tuple(w for w in members if w.kueue_name is not None and not w.uid)
        if len(members) > 1 and made:
            out.append(Tie(cq_name, lq, -neg_priority, created, tuple(sorted(members, key=lambda w: (queue_uid(w), w.key))),
                           made))
    return out


def check_queue_ties(index: ModelIndex, diags: Diagnostics) -> None:
    """One warning per tied group whose order no input holds (KAD260), at its first job."""
    for t in queue_ties(index):
        first = t.made[0]
        jobs = ("none of them has its Workload in the input" if len(t.made) == len(t.members) else
                f"{len(t.made)} of them {'has' if len(t.made) == 1 else 'have'} no Workload in the input")
        diags.emit(
            QUEUE_ORDER_UNKNOWN,
            f"{len(t.members)} pending workloads of {t.where} tie on priority {t.priority} and creation time "
            f"{t.stamp()}, and {jobs}: Kueue orders them by their Workloads' UIDs, which the API server "
            "draws at random as Kueue's job reconciler creates each, so their order is not in the input",
            first.span,
            labels=[Label(w.span, "tied with it") for w in t.members if w is not first and w.span is not None][:SHOWN - 1],
            notes=[f"kadmit takes them in the order {t.order()} ({t.how}): one of the orders Kueue may take; on "
                   "the cluster another may come first, and be admitted where kadmit admits a later one"],
            help="read the cluster's Workloads too (`kubectl get workloads -A -o yaml`): their UIDs and creation "
                 "times give the order", about=about(*t.members))


def tie_of(index: ModelIndex, key: str) -> Tie | None:
    """The tied group whose order no input holds that workload `key` is in, if any."""
    return next((t for t in queue_ties(index) if any(w.key == key for w in t.members)), None)
