"""The replay's independent parts: one engine session per part, decided only when something in it moved.

Why a part can be decided alone (the same argument as `engine.explain.replay`): in `ordered` mode a
workload interacts with another only through quota and preemption, both confined to one cohort tree,
and through node capacity, which admission reads only for pod sets on flavors with a topology (TAS).
So cluster queues are joined into one part when they share a cohort tree, when a workload's local
queue and its admission name two of them, and every queue with a topology flavor joins one part
(the nodes those flavors select may overlap). Every part has its own `Session` over the part's
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

from kadmit.engine.admission.session import Session, ShapeCache, Stats
from kadmit.model import Model

WHOLE = ""  # the part of workloads with no cluster queue (decided without quota), and of everything unsplit
TAS = "~tas"  # the part every queue with a topology flavor joins


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
        session over all of it (its pool is the one every part shares)."""
        self.whole = whole
        self.split = split and not model.rules and len(model.cluster_queues) > 1
        self.of: dict[str, str] = {}  # cluster queue -> its part
        self.sessions: dict[str, Session] = {}
        ix = whole.index
        topo = {f.name for f in ix.flavors.values() if f.topology}
        up: dict[str, str] = {}

        def find(x: str) -> str:
            up.setdefault(x, x)
            while up[x] != x:
                up[x] = up[up[x]]
                x = up[x]
            return x

        def join(a: str, b: str) -> None:
            ra, rb = find(a), find(b)
            if ra != rb:
                up[max(ra, rb)] = min(ra, rb)

        tree = whole.compiler.tree
        for cq in sorted(ix.cluster_queues.values(), key=lambda c: c.name):
            nid = f"cq:{cq.name}"
            find(nid)
            if nid in tree.nodes:
                join(nid, tree.root(nid))
            if any(fq.flavor in topo for g in cq.resource_groups for fq in g.flavors):
                join(nid, TAS)
        for wl in model.workloads:
            cq = ix.cluster_queue_of(wl)
            if cq is not None and wl.admission is not None and wl.admission.cluster_queue in ix.cluster_queues:
                join(f"cq:{cq.name}", f"cq:{wl.admission.cluster_queue}")
        groups = {name: find(f"cq:{name}") for name in ix.cluster_queues}
        # queues whose admission reads node capacity (or shares a cohort tree with one that does):
        # a release of node capacity requeues their parked workloads
        self.tas_queues = {q for q, g in groups.items() if TAS in up and g == find(TAS)}
        if not self.split:
            self.of = {name: WHOLE for name in ix.cluster_queues}
            return
        self.of = groups
        # each part's slice of the model: its queues, cohorts, local queues and workloads
        cqs: dict[str, list] = {}
        for cq in model.cluster_queues:
            cqs.setdefault(self.of[cq.name], []).append(cq)
        cohorts: dict[str, list] = {}
        for co in model.cohorts:
            nid = f"cohort:{co.name}"
            if nid in tree.nodes and tree.root(nid) in up:
                cohorts.setdefault(find(tree.root(nid)), []).append(co)
        lqs: dict[str, list] = {}
        for lq in model.local_queues:
            if lq.cluster_queue in self.of:
                lqs.setdefault(self.of[lq.cluster_queue], []).append(lq)
        wls: dict[str, list] = {}
        for wl in model.workloads:
            part = self.part_of(wl)
            if part != WHOLE:
                wls.setdefault(part, []).append(wl)
        cache = _SlicesCache()
        for part in sorted(cqs):
            sub = model.model_copy(update={
                "cluster_queues": tuple(cqs[part]), "cohorts": tuple(cohorts.get(part, ())),
                "local_queues": tuple(lqs.get(part, ())), "workloads": tuple(wls.get(part, ())),
                "nodes": (), "pods": ()})  # nodes: the shared pool
            self.sessions[part] = Session(sub, whole.limits, whole.pool.profile, cache=cache, pool=whole.pool)

    def part_of(self, wl) -> str:
        """The part a workload is decided in (its admission's queue when it has one)."""
        ix = self.whole.index
        if wl.admission is not None and wl.admission.cluster_queue in self.of:
            return self.of[wl.admission.cluster_queue]
        cq = ix.cluster_queue_of(wl)
        return self.of.get(cq.name, WHOLE) if cq is not None else WHOLE

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
