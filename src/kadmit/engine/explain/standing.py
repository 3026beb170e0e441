"""Where a workload that waits stands, in numbers: what it needs and the most its queue can reach
through the cohort tree (own nominal quota, what it may borrow and who lends it), its place in its
queue as Kueue's visibility API counts it, and — when it would fit an empty cluster — who held what it
needed when Kueue last tried it and whether its queue may preempt them."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.admission.ordered import Decision, queue_order_key
from kadmit.engine.admission.session import Session
from kadmit.engine.explain.kept import KeptDeleting, kept_deleting
from kadmit.engine.explain.replacing import Replacing
from kadmit.engine.preemption.candidates import Preemptor, buffer, candidates_by_queue, satisfies_policy
from kadmit.engine.quota import FR, QuotaTree, node_id
from kadmit.model import Workload
from kadmit.quantity import format_quantity


@dataclass(frozen=True)
class Reach:
    """The most a cluster queue can take of one flavor-resource (Kueue's "maximum capacity"), and from whom."""

    flavor: str
    resource: str
    most: int
    own: int  # its nominal quota
    borrowed: int  # what the rest comes from its cohort tree
    lenders: tuple[tuple[str, int], ...] = ()  # who puts what in the pools it borrows from
    limit: int | None = None  # its borrowing limit, when that is what stops it short of the pools
    free: int | None = None  # what was left of it for one more workload when Kueue last tried this one

    @property
    def lent(self) -> int:
        return sum(n for _, n in self.lenders)

    def as_dict(self) -> dict:
        q = lambda v: format_quantity(v, self.resource)  # noqa: E731
        return {"flavor": self.flavor, "resource": self.resource, "most": q(self.most), "own": q(self.own),
                "borrowed": q(self.borrowed), "lenders": {who: q(n) for who, n in self.lenders},
                "borrowing_limit": q(self.limit) if self.limit is not None else None,
                "free": q(self.free) if self.free is not None else None}


@dataclass(frozen=True)
class Holding:
    """Who held a flavor-resource of the workload's cohort tree when Kueue last tried it."""

    flavor: str
    resource: str
    used: int  # of what the queue can reach, in use
    by_priority: tuple[tuple[int, int, int], ...]  # (priority, workloads, amount), highest first
    policies: str  # the queue's preemption policies, in Kueue's names
    preemptible: int = 0  # holders its policies allow preempting
    freed: int = 0  # what preempting all of those would free
    # holders being deleted that keep their quota, their job's integration off (`kept.kept_deleting`), each
    # with what it holds
    kept: tuple[tuple[KeptDeleting, int], ...] = ()

    @property
    def holders(self) -> int:
        return sum(n for _, n, _ in self.by_priority)

    def as_dict(self) -> dict:
        q = lambda v: format_quantity(v, self.resource)  # noqa: E731
        return {"flavor": self.flavor, "resource": self.resource, "used": q(self.used),
                "by_priority": [{"priority": p, "workloads": n, "amount": q(a)} for p, n, a in self.by_priority],
                "policies": self.policies, "preemptible": self.preemptible, "freed": q(self.freed),
                "kept_being_deleted": [{**k.as_dict(), "amount": q(a)} for k, a in self.kept]}


@dataclass
class Standing:
    workload: str
    cluster_queue: str | None
    priority: int
    needs: dict[str, int] = field(default_factory=dict)  # resource -> total at the smallest counts
    # per resource, the pod sets asking for it: (pod set, pods at the smallest count, request per pod)
    shape: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)
    pods: int = 0
    min_pods: int = 0  # pods it needs at once (partial admission goes down to this)
    resource: str | None = None  # the resource the first sentence is about
    reach: list[Reach] = field(default_factory=list)  # that resource, per flavor it may take, most first
    fits_empty: bool = False  # it fits its queue's quota on an empty cluster
    position: int | None = None  # Kueue's positionInClusterQueue (0: first)
    pending: int = 0  # pending workloads in its ClusterQueue
    local_queue: str = ""
    position_in_local_queue: int | None = None
    ahead: dict[str, int] = field(default_factory=dict)  # what the pending ahead of it request
    ahead_keys: frozenset[str] = field(default=frozenset(), repr=False)  # the pending ahead of it
    held: Holding | None = None
    quota: bool = False  # quota is what keeps it out (Kueue's reasons are about quota), not a gate or the nodes
    behind: str | None = None  # the head it waits behind (StrictFIFO, or one with flavors left to try)
    behind_strategy: str = "StrictFIFO"  # ... its ClusterQueue's queueing strategy
    behind_refused: bool = False  # ... a head whose admission write the API server refuses (requeued at once)
    head: Standing | None = None  # ... and where that head stands
    head_met: bool = False  # ... at the state it met when Kueue last tried it
    evicted_by: str | None = None  # it held quota and was preempted by this workload (then requeued)
    evicted_reason: str | None = None  # Kueue's reason for that preemption (InClusterQueue, InCohortReclamation, …)
    # of `resource`, what the ready, schedulable nodes of each flavor it may take hold in all (flavor, amount);
    # empty without nodes in the input
    nodes_hold: list[tuple[str, int]] = field(default_factory=list)
    # a workload slice: the admitted slice of its job it replaces, whose quota the standing counts as freed
    # (`replacing.as_replacement`: Kueue asks only the usage beyond it)
    replacing: Replacing | None = None

    @property
    def beyond_nodes(self) -> bool:
        """It needs more of `resource` than every node of its flavors holds together: no change of
        quota alone admits it."""
        return bool(self.nodes_hold) and self.resource is not None and \
            self.needs[self.resource] > sum(n for _, n in self.nodes_hold)

    @property
    def short(self) -> bool:
        """It needs more than its queue can reach of `resource` in any flavor."""
        return bool(self.resource) and not self.fits_empty

    @property
    def short_now(self) -> bool:
        """It fits an empty cluster but needed more of `resource` than was free when last tried."""
        return self.fits_empty and self.resource is not None and \
            self.needs[self.resource] > max((r.free or 0 for r in self.reach), default=0)

    def as_dict(self) -> dict:
        q = format_quantity
        return {"cluster_queue": self.cluster_queue, "priority": self.priority,
                "needs": {r: q(v, r) for r, v in sorted(self.needs.items())}, "pods": self.pods,
                "min_pods": self.min_pods, "resource": self.resource, "fits_empty_cluster": self.fits_empty,
                "reach": [r.as_dict() for r in self.reach],
                "position_in_cluster_queue": self.position, "pending_in_cluster_queue": self.pending,
                "local_queue": self.local_queue, "position_in_local_queue": self.position_in_local_queue,
                "ahead": {r: q(v, r) for r, v in sorted(self.ahead.items())},
                "held": self.held.as_dict() if self.held is not None else None,
                "quota_keeps_it_out": self.quota, "waiting_behind": self.behind,
                "nodes_hold": {f: q(n, self.resource) for f, n in self.nodes_hold}, "beyond_nodes": self.beyond_nodes,
                "head": self.head.as_dict() if self.head is not None else None,
                "evicted_by": self.evicted_by, "evicted_reason": self.evicted_reason,
                "replacing": self.replacing.as_dict() if self.replacing is not None else None}


def standing(session: Session, decisions: dict[str, Decision], wl: Workload, quota: bool = False) -> Standing | None:
    """The workload's standing at the session's state (the state it met, `met.as_met`), its place in
    line at the end of the run; None when it has no cluster queue. `quota`: quota is what keeps it
    out (else the first sentence is not about quota)."""
    cq = session.index.cluster_queue_of(wl)
    if cq is None:
        return None
    tree = session.compiler.tree
    nid = node_id(cq.name, False)
    out = Standing(wl.key, cq.name, session.index.priority(wl), local_queue=wl.queue, quota=quota)
    out.pods = sum(ps.count for ps in wl.pod_sets)
    out.min_pods = sum(ps.min_count if ps.min_count is not None else ps.count for ps in wl.pod_sets)
    for ps in wl.pod_sets:
        n = ps.min_count if ps.min_count is not None else ps.count
        for res, q in ps.requests.items():
            if q > 0 and n > 0:  # (a pod set of count 0 needs nothing: a need of 0 would divide by it below)
                out.needs[res] = out.needs.get(res, 0) + n * q
                out.shape.setdefault(res, []).append((ps.name, n, q))
    groups = {r: g for g in cq.resource_groups for r in g.covered_resources}
    reaches: dict[str, list[Reach]] = {}
    for res in sorted(out.needs):
        g = groups.get(res)
        # a workload slice (inside `replacing.as_replacement`): only the flavors its old slice was given
        kept = {f.get(res) for f in session.slice_pins.values()} if session.slice_pins is not None else None
        got = [reach(tree, nid, (fq.flavor, res), session) for fq in g.flavors
               if kept is None or fq.flavor in kept] if g is not None else []
        reaches[res] = sorted(got, key=lambda r: (-r.most, [fq.flavor for fq in g.flavors].index(r.flavor)))
    out.fits_empty = all(any(all(out.needs[r] <= _most(reaches[r], fq.flavor) for r in out.needs if groups.get(r) is g)
                             for fq in g.flavors)
                         for g in {id(g): g for r, g in groups.items() if r in out.needs}.values()) and \
        all(r in groups for r in out.needs)
    if out.needs:
        if not out.fits_empty:  # the resource furthest out of reach
            out.resource = max(out.needs, key=lambda r: (out.needs[r] / max(1, reaches[r][0].most if reaches[r]
                                                                            else 0), r))
        else:  # the resource furthest out of what was free
            out.resource = max(out.needs, key=lambda r: ((out.needs[r] - max((x.free or 0) for x in reaches[r]))
                                                         / out.needs[r], r))
        out.reach = reaches[out.resource]
        out.nodes_hold = _nodes_hold(session, [x.flavor for x in out.reach], out.resource)
    _place_in_line(session, decisions, wl, out)
    if out.short_now:
        best = max(out.reach, key=lambda x: (x.free or 0, x.most))
        out.held = holding(session, wl, cq.name, (best.flavor, best.resource), best)
    return out


def _nodes_hold(session: Session, flavors: list[str], res: str) -> list[tuple[str, int]]:
    """What the ready, schedulable nodes carrying each flavor's node labels hold of `res`, when every
    one of the flavors is topology-aware (Kueue then places pods on nodes to admit; otherwise it
    admits on quota alone and the nodes are kube-scheduler's business) and the input has nodes."""
    nodes = [n for n in session.model.nodes if n.ready and not n.unschedulable]
    if not session.model.nodes:
        return []
    by = {f.name: f for f in session.model.flavors}
    if not flavors or any(by.get(name) is None or by[name].topology is None for name in flavors):
        return []
    out = []
    for name in flavors:
        f = by.get(name)
        if f is None:
            continue
        held = sum(n.allocatable.get(res, 0) for n in nodes
                   if all(n.labels.get(k) == v for k, v in f.node_labels.items()))
        out.append((name, held))
    return out


def _most(reaches: list[Reach], flavor: str) -> int:
    return next((r.most for r in reaches if r.flavor == flavor), 0)


def reach(tree: QuotaTree, nid: str, fr: FR, session: Session | None = None) -> Reach:
    """What the cluster queue `nid` can reach of `fr` with nothing in use, and where it comes from:
    its nominal quota, and for each cohort above it the cohort's own quota and what each other member
    lends (its subtree quota less what it keeps); with `session`, what was free at its state."""
    flavor, res = fr
    entry = tree.entry(nid, fr)
    most = max(0, tree.available(nid, fr, None)) if entry.declared else 0
    own = entry.nominal if entry.declared else 0
    lenders: list[tuple[str, int]] = []
    path = tree.path(nid)
    for below, above in zip(path, path[1:]):
        node = tree.nodes[above]
        own_pool = tree.entry(above, fr).nominal
        if own_pool > 0:
            lenders.append((f"cohort {node.name}", own_pool))
        for ch in sorted(node.children):
            if ch == below:
                continue
            lend = tree.subtree(ch, fr) - tree.guaranteed(ch, fr)
            if lend > 0:
                lenders.append((("cohort " if tree.nodes[ch].is_cohort else "") + tree.nodes[ch].name, lend))
    borrowed = max(0, most - own)
    lent = sum(n for _, n in lenders)
    limit = entry.borrowing_limit if entry.borrowing_limit is not None and borrowed < lent \
        and borrowed == entry.borrowing_limit else None
    free = max(0, tree.available(nid, fr, session.usage)) if session is not None and entry.declared else None
    return Reach(flavor, res, most, own, borrowed, tuple(lenders), limit, free)


def _place_in_line(session: Session, decisions: dict[str, Decision], wl: Workload, out: Standing) -> None:
    """Kueue's visibility API (pkg/visibility/storage/pending_workloads_cq.go): the ClusterQueue's
    pending workloads in queue order — priority, then queue-order time (creation), then (Kueue: the
    UID; kadmit: the key) — at the end of the run; the position in the LocalQueue counts only the
    workloads ahead with the same LocalQueue name, as Kueue keys it (`Spec.QueueName`, not its namespace)."""
    pending = [d.workload for d in decisions.values()
               if not d.admitted and d.cluster_queue == out.cluster_queue and d.workload.active
               and not d.workload.finished]
    pending.sort(key=lambda w: queue_order_key(session, w))
    out.pending = len(pending)
    at = next((i for i, w in enumerate(pending) if w.key == wl.key), None)
    if at is None:
        return
    out.position = at
    ahead = pending[:at]
    out.position_in_local_queue = sum(1 for w in ahead if w.queue == wl.queue)
    out.ahead_keys = frozenset(w.key for w in ahead)
    for w in ahead:
        for ps in w.pod_sets:
            for res, q in ps.requests.items():
                if res in out.needs and q > 0:
                    out.ahead[res] = out.ahead.get(res, 0) + ps.count * q


def holding(session: Session, wl: Workload, cq: str, fr: FR, r: Reach) -> Holding:
    """Who holds `fr` in the queue's cohort tree at the session's state, by priority, and which of them
    the queue's preemption policies allow evicting for `wl` (Kueue's withinClusterQueue for its own
    queue, reclaimWithinCohort for the queues using more than their nominal quota), with what they
    would free."""
    tree = session.compiler.tree
    root = tree.root(node_id(cq, False))
    queues = [q for q, c in candidates_by_queue(session).items()
              if node_id(q, False) in tree.nodes and tree.root(node_id(q, False)) == root]
    by: dict[int, list[int]] = {}
    pol = session.index.cluster_queues[cq].preemption
    p = Preemptor(wl.key, cq, session.index.priority(wl), wl.created, {}, frozenset(), buffer(session))
    preemptible = freed = 0
    kept: list[tuple[KeptDeleting, int]] = []
    for q in sorted(queues):
        for c in candidates_by_queue(session)[q].values():
            amount = c.amounts.get(fr, 0)
            if amount <= 0 or c.key == wl.key:
                continue
            row = by.setdefault(c.priority, [0, 0])
            row[0] += 1
            row[1] += amount
            if (k := kept_deleting(session.model, session.index.workloads.get(c.key))) is not None:
                kept.append((k, amount))
            same = c.cluster_queue == cq
            borrowing = not same and session.usage.get(q, fr) > tree.subtree(node_id(q, False), fr)
            if (same and satisfies_policy(pol.within_cluster_queue, p, c)) or (
                    borrowing and satisfies_policy(pol.reclaim_within_cohort, p, c)):
                preemptible += 1
                freed += amount
    policies = f"withinClusterQueue {pol.within_cluster_queue}, reclaimWithinCohort {pol.reclaim_within_cohort}"
    return Holding(fr[0], fr[1], max(0, r.most - (r.free or 0)),
                   tuple((prio, n, a) for prio, (n, a) in sorted(by.items(), reverse=True)), policies,
                   preemptible, freed, tuple(kept))
