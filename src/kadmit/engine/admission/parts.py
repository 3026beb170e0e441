"""The independent parts of a cluster: sets of cluster queues that can be decided apart from the rest.

Why a part can be decided alone: in `ordered` mode a workload interacts with another only through
quota and preemption, both confined to one cohort tree, and through node capacity, which admission
reads only for pod sets on flavors with a topology (TAS). So cluster queues are joined into one part
when they share a cohort tree (a cycle of cohort parents, which the quota tree cuts into roots, is
kept whole: its queues are inactive for it), when a workload's local queue and its admission name
two of them, and every queue with a topology flavor joins one part (the nodes those flavors select
may overlap). With `holders`, an admitted workload that holds nodes (a placement in its admission)
is in that part, with its queues if they exist: a session built over the part alone must see the
nodes it holds. Under admission fair sharing, a workload holding quota whose LocalQueue doesn't exist
may make every cycle fail (KAD542), and the workload controller's timers (a workload's maximum execution
time, a backoff's end) act when the whole run gets to them: then all queues are one part.

The parts' users: `simulate.parts` (one session per part over one shared node pool, decided when
something in the part moved) and `engine.decide.why` (decides only the part of the workload it
explains). What stays model-wide — flavors, topologies, priority classes, nodes, pods, rules, the
Configuration — is in every part's slice. User rules may read anything in the cluster: their users
decide a model with rules whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.afs import AdmissionFairSharing
from kadmit.engine.quota import QuotaTree, node_id
from kadmit.index import ModelIndex
from kadmit.model import Model, Workload

WHOLE = ""  # the part of workloads with no cluster queue (decided without quota), and of everything unsplit
TAS = "~tas"  # the part every queue with a topology flavor joins


@dataclass
class Split:
    """Which part each cluster queue (and so each local queue and workload) belongs to."""

    index: ModelIndex
    of: dict[str, str] = field(default_factory=dict)  # cluster queue -> its part
    cohorts: dict[str, str] = field(default_factory=dict)  # cohort -> its part (cohort trees with a queue)
    tas_queues: set[str] = field(default_factory=set)  # queues in the part that reads node capacity
    holders: str | None = None  # with `holders`: the part of the workloads that hold nodes

    def part_of(self, wl: Workload) -> str:
        """The part a workload is decided in (its admission's queue when it has one)."""
        if self.holders is not None and holds_nodes(wl):
            return self.holders
        if wl.admission is not None and wl.admission.cluster_queue in self.of:
            return self.of[wl.admission.cluster_queue]
        cq = self.index.cluster_queue_of(wl)
        return self.of.get(cq.name, WHOLE) if cq is not None else WHOLE

    def slices(self, model: Model, parts: set[str] | None = None, nodes: bool = True) -> dict[str, Model]:
        """Each part's slice of `model` (of the given parts only): its queues, cohorts, local queues
        (WHOLE: those naming no queue) and workloads, and everything model-wide (without nodes and pods
        when `nodes` is False: the parts then share one node pool)."""
        keep = (lambda p: True) if parts is None else parts.__contains__
        got: dict[str, dict[str, list]] = {}

        def put(part: str, name: str, x) -> None:
            if keep(part):
                got.setdefault(part, {}).setdefault(name, []).append(x)
        for cq in model.cluster_queues:
            put(self.of.get(cq.name, WHOLE), "cluster_queues", cq)
        for co in model.cohorts:
            if co.name in self.cohorts:
                put(self.cohorts[co.name], "cohorts", co)
        for lq in model.local_queues:
            put(self.of.get(lq.cluster_queue, WHOLE), "local_queues", lq)
        for wl in model.workloads:
            put(self.part_of(wl), "workloads", wl)
        extra = {} if nodes else {"nodes": (), "pods": ()}
        return {part: model.model_copy(update={
            name: tuple(got[part].get(name, ())) for name in ("cluster_queues", "cohorts", "local_queues", "workloads")}
            | extra) for part in sorted(got)}

    def slice(self, model: Model, parts: set[str]) -> Model:
        """One model of the given parts together (the objects of each, in the model's order)."""
        by = parts
        cqs = tuple(cq for cq in model.cluster_queues if self.of.get(cq.name, WHOLE) in by)
        cohorts = tuple(co for co in model.cohorts if self.cohorts.get(co.name) in by)
        lqs = tuple(lq for lq in model.local_queues if self.of.get(lq.cluster_queue, WHOLE) in by)
        wls = tuple(wl for wl in model.workloads if self.part_of(wl) in by)
        return model.model_copy(update={"cluster_queues": cqs, "cohorts": cohorts, "local_queues": lqs,
                                        "workloads": wls})

    def parts(self) -> set[str]:
        return set(self.of.values()) | {WHOLE} | ({self.holders} if self.holders is not None else set())


def holds_nodes(wl: Workload) -> bool:
    """Whether an admitted workload's pods hold nodes (a placement in its admission)."""
    return wl.admission is not None and any(p.placement for p in wl.admission.pod_sets)


def split(model: Model, index: ModelIndex, tree: QuotaTree, holders: bool = False) -> Split:
    """The parts of `model` (`index` and `tree`: the index and quota tree of the model the parts are
    decided in; `model` may hold more workloads, e.g. every one a replay will see arrive)."""
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

    topo = {f.name for f in index.flavors.values() if f.topology}
    for cq in sorted(index.cluster_queues.values(), key=lambda c: c.name):
        nid = node_id(cq.name, False)
        find(nid)
        if nid in tree.nodes:
            join(nid, tree.root(nid))
        if any(fq.flavor in topo for g in cq.resource_groups for fq in g.flavors):
            join(nid, TAS)
    for name in sorted(index.cohorts):  # a cycle of parents: the tree makes each of its cohorts a root
        parent = index.cohorts[name].parent
        nid, pid = node_id(name, True), node_id(parent or "", True)
        if parent and nid in tree.nodes and pid in tree.nodes and tree.root(nid) != tree.root(pid):
            join(tree.root(nid), tree.root(pid))
    for wl in model.workloads:
        cq = index.cluster_queue_of(wl)
        admitted = wl.admission.cluster_queue if wl.admission is not None else None
        if cq is not None and admitted in index.cluster_queues:
            join(node_id(cq.name, False), node_id(admitted, False))
        if holders and holds_nodes(wl):
            find(TAS)
            for name in (cq.name if cq is not None else None, admitted):
                if name in index.cluster_queues:
                    join(node_id(name, False), TAS)
    afs = AdmissionFairSharing(index.model).queues
    if afs and any(wl.admission is not None and wl.admission.cluster_queue in afs
                   and f"{wl.namespace}/{wl.queue}" not in index.local_queues for wl in model.workloads) \
            or any(wl.max_exec or (wl.requeue_at is not None and wl.requeued_false)
                   or (wl.admission is not None and any(c.retry_at for c in wl.check_states)) for wl in model.workloads):
        # such a holder may make Kueue's snapshot fail, and then no cycle schedules anything anywhere (KAD542,
        # `afs.stalled_by`); a workload controller timer (a maximum execution time, a backoff's end, a Retry check's: controller_timers)
        # fires if the whole run's clock gets there, whichever queues keep it going: the queues are decided together
        for name in index.cluster_queues:
            join(node_id(name, False), node_id(min(index.cluster_queues), False))
    out = Split(index, {name: find(node_id(name, False)) for name in index.cluster_queues})
    out.tas_queues = {q for q, g in out.of.items() if TAS in up and g == find(TAS)}
    out.holders = find(TAS) if holders and TAS in up else None
    for name in index.cohorts:
        nid = node_id(name, True)
        if nid in tree.nodes and tree.root(nid) in up:
            out.cohorts[name] = find(tree.root(nid))
    return out
