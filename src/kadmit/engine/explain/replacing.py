"""A workload slice (ElasticJobsViaWorkloadSlices) explained as what Kueue asks of it: the replacement of its
job's admitted slice, on that slice's flavors, needing only its usage beyond the old slice's (`admission.slices`).
Inside `as_replacement` the session's state has the old slice's quota counted as freed (its pods stay on their
nodes) and its flavors pinned, as Kueue's nomination of the replacement sees it: standing, blame cores and fixes'
starting points found there never blame the old slice for holding quota the replacement takes over."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from kadmit.engine.admission import slices
from kadmit.engine.admission.session import Session
from kadmit.engine.compile.tracked import Origin, Problem, Tracked
from kadmit.engine.solver import terms as T
from kadmit.featuregates import enabled
from kadmit.model import Workload


@dataclass(frozen=True)
class Replacing:
    """The admitted slice a workload slice replaces, and what that slice holds per (flavor, resource)."""

    old: str
    holds: tuple[tuple[tuple[str, str], int], ...]
    # ElasticJobsViaWorkloadSlicesWithTAS on: only its new pods are placed, the old slice's kept on their nodes
    # (and counted there twice, `slices.previous`); off: every pod placed again beside the old slice's
    only_new_pods: bool = False

    def held(self, resource: str) -> list[tuple[str, int]]:
        """What the old slice holds of `resource`, per flavor."""
        return [(f, v) for (f, r), v in self.holds if r == resource]

    def as_dict(self) -> dict:
        from kadmit.quantity import format_quantity
        return {"old": self.old, "holds": {f"{f}/{r}": format_quantity(v, r) for (f, r), v in self.holds},
                "only_new_pods_placed": self.only_new_pods}


def replacing(session: Session, wl: Workload) -> Replacing | None:
    """The admitted slice `wl` replaces (in its ClusterQueue, the gate on: `slices.replaced`); None for others."""
    h = slices.replaced(session, wl)
    if h is None:
        return None
    return Replacing(h.workload, tuple(sorted((fr, v) for fr, v in h.amounts.items() if v > 0)),
                     only_new_pods=bool(session.pool.elastic))


def replaced_slice(session: Session, wl: Workload, cluster_queue: str | None) -> str | None:
    """The slice an admitted workload slice replaced: the input's admitted Workload it names, in the ClusterQueue
    it was admitted to, the gate on (once admitted, the old slice is finished and holds nothing: `slices.admitted`)."""
    if not wl.replaces or not enabled(session.model.config, slices.GATE):
        return None
    old = session.index.workloads.get(wl.replaces)
    if old is None or old.admission is None or old.admission.cluster_queue != cluster_queue:
        return None
    return old.key


@contextmanager
def as_replacement(session: Session, wl: Workload) -> Iterator[Replacing | None]:
    """Questions asked inside see `wl`'s old slice's quota freed and its flavors pinned, as Kueue's nomination of
    the replacement does (`Session.nominate`); for a workload that replaces none, the state as it is."""
    r = replacing(session, wl)
    if r is None:
        yield None
        return
    with slices.pinned(session, wl), session.suspended([r.old], nodes=False):
        yield r


def pinned_statements(session: Session, wl: Workload, problem: Problem) -> list[Tracked]:
    """Inside `as_replacement`: the replacement's pinned flavors as tracked statements of its symbolic problem,
    one per pod set and flavor its old slice was not given (Kueue's "could not assign F flavor since the original
    workload is assigned: G"), blamed on the old slice, so that a core over them says the slice's flavors are
    kept."""
    pins = session.slice_pins or {}
    old = session.index.workloads.get(wl.replaces)
    span = old.span if old is not None else None
    out: list[Tracked] = []
    for pv in problem.pod_sets:
        name = pv.pod_set.name
        for gi, choices in sorted(pv.flavors.items()):
            resources = sorted(r for r, g in pv.group_of.items() if g == gi)
            for fname, v in choices:
                why = slices.mismatch(pins, [name], resources, fname)
                if why is None:
                    continue
                kept = sorted({pins.get(name, {}).get(r, "") for r in resources} - {""})
                out.append(Tracked(Origin(f"slice|{name}|{fname}", "slice",
                                          f"pod set `{name}` keeps the flavor{'s' if len(kept) > 1 else ''} of the slice "
                                          f"it replaces, `{wl.replaces}` ({', '.join(kept) or 'none'}): it can't use flavor "
                                          f"`{fname}` (ElasticJobsViaWorkloadSlices)", span), T.not_(v)))
    return out
