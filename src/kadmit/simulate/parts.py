"""The replay's independent parts: one engine session per part, decided only when something in it moved.

The parts are the engine's (`engine.admission.parts`, where the argument for deciding a part alone
is): cluster queues sharing a cohort tree, or named by one workload's local queue and admission, and
every queue with a topology flavor, in one part. Every part has its own `Session` over the part's
queues, cohorts, local queues and workloads; all sessions share one `NodePool` (the nodes
kube-scheduler binds to as well), so the TAS part reads the capacity every other pod takes.

What this buys: the engine's per-question costs that grow with the session (preemption candidates
over every admitted workload, the cohort usage memo, the set of holders copied while targets are
suspended) grow with the part instead of with the cluster. Deciding stays as incremental as
Kueue's queue manager: a part is decided at an instant only for its workloads that arrived or its
parked workloads requeued by a release in their tree (`Simulator._decide`); untouched parts are not
asked and keep their state.

`split=False` (one session for the whole cluster) is the reference path: the same replay's JSON,
outside `"run"`, is byte-identical (`tests/simulate/test_parts.py`). Optimal mode and user rules
(which may read anything in the cluster) always use one session.
"""

from __future__ import annotations

from kadmit.engine.admission.parts import TAS, WHOLE, split as split_parts
from kadmit.engine.admission.session import Session, Stats
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.model import Model

__all__ = ["Parts", "TAS", "WHOLE"]


class _SlicesCache(ShapeCache):
    """Compiled shapes and answers shared by the parts' sessions. The parts are slices of one policy,
    so a shape (the queue's structure and the pod sets', never the queue's name, see
    `Session._shape`) compiles to the same problem in every part, as it does for two queues of one
    session; the solver units stay in the key (`Session._loaded_shape`)."""

    def policy_key(self, model: Model) -> int:
        return 0


class Parts:
    def __init__(self, model: Model, whole: Session, split: bool) -> None:
        """`model`: the replay's model (every workload that will arrive included); `whole`: the
        session over all of it (its pool is the one every part shares). The parts are
        `engine.admission.parts`' (holders of nodes need not join: the pool is shared)."""
        self.whole = whole
        self.split = split and not model.rules and len(model.cluster_queues) > 1
        self.sessions: dict[str, Session] = {}
        self._split = split_parts(model, whole.index, whole.compiler.tree)
        # queues whose admission reads node capacity (or shares a cohort tree with one that does):
        # a release of node capacity requeues their parked workloads
        self.tas_queues = self._split.tas_queues
        if not self.split:
            self.of = {name: WHOLE for name in whole.index.cluster_queues}
            return
        self.of = self._split.of  # cluster queue -> its part
        cache = _SlicesCache()
        for part, sub in self._split.slices(model, nodes=False).items():  # nodes: the shared pool
            if part != WHOLE:
                self.sessions[part] = Session(sub, whole.limits, whole.pool.profile, cache=cache, pool=whole.pool)

    def part_of(self, wl) -> str:
        """The part a workload is decided in (its admission's queue when it has one)."""
        return self._split.part_of(wl) if self.split else WHOLE

    def session(self, cq: str | None) -> Session:
        """The session deciding the cluster queue `cq` (None or unknown: the whole cluster's)."""
        return self.sessions.get(self.of.get(cq or "", WHOLE), self.whole)

    def part(self, cq: str | None) -> str:
        return self.of.get(cq or "", WHOLE)

    def all(self) -> list[Session]:
        return [self.sessions[p] for p in sorted(self.sessions)] or [self.whole]

    def stats(self) -> Stats:
        out = Stats()
        for s in [self.whole] + [self.sessions[p] for p in sorted(self.sessions)]:
            out.checks += s.stats.checks
            out.unknown += s.stats.unknown
            out.memo_hits += s.stats.memo_hits
            out.seconds += s.stats.seconds
        return out
