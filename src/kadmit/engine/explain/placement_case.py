"""What `why`'s placement explanation works on (`explain.placement`): the failing pod set's request at full
counts as the session's `try_admit` recorded it, the free capacity it saw and the what-ifs start from (`_Case`),
and who holds the room on the nodes (bound pods, admitted workloads)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping

from kadmit.engine.admission.session import Session
from kadmit.engine.placing.pool import PlacementFailure, TASRequest, WorkloadPlacement, pod_set_of
from kadmit.index import resolve_level
from kadmit.model import Pod, Workload
from kadmit.placement.domains import DomainTree
from kadmit.placement.filters import histogram, static_fit
from kadmit.placement.inventory import PODS, add, pod_usage, subtract
from kadmit.placement.slices import previous_leaves
from kadmit.source import Span

Free = Mapping[str, Mapping[str, int]]


@dataclass
class _Case:
    """What the explanation works on: the workload's TAS requests at full counts, which one
    failed, the free capacity the re-runs start from, and what the failing pod set saw."""

    session: Session
    wl: Workload
    requests: list[TASRequest]
    failing: int
    base: dict[str, dict[str, int]]  # free capacity `place` starts from for the what-ifs
    seen: dict[str, dict[str, int]]  # free capacity the failing pod set saw
    tree: DomainTree
    level_idx: int  # the requested level (the lowest for `unconstrained`)
    # a workload slice's pods its old slice keeps (ElasticJobsViaWorkloadSlicesWithTAS: handleScaleUp places only
    # the others, `placement.slices`); `seen` counts the kept pods twice on their nodes, as Kueue's placement of
    # the new ones does, and `once` is the free capacity with them counted once (kube-scheduler's view)
    kept: int = 0
    once: dict[str, dict[str, int]] | None = None

    @property
    def req(self) -> TASRequest:
        return self.requests[self.failing]

    @property
    def need(self) -> int:
        """The pods Kueue places of the failing pod set: a slice's beyond those its old slice keeps."""
        return self.req.count - self.kept

    @property
    def subject(self) -> str:
        return f"pod set {self.wl.key}:{self.req.pod_set}"

    def place(self, requests: list[TASRequest] | None = None, free: Free | None = None) -> WorkloadPlacement:
        return self.session.pool.place(requests or self.requests, free=self.base if free is None else free)

    def with_request(self, new: TASRequest) -> list[TASRequest]:
        return self.requests[:self.failing] + [new] + self.requests[self.failing + 1:]


# --- the failure and the requests ------------------------------------------------------------------

def _current_failure(session: Session, wl: Workload) -> PlacementFailure | None:
    """Ask `try_admit` at the final state: a placement failure recorded now (at full counts)
    while nothing is admitted means quota fits and placement doesn't. A failure recorded by an
    earlier cycle is put back when this try records none, so the session is left as it was."""
    saved = session.placement_failures.pop(wl.key, None)
    got = None
    try:
        got, _ = session.try_admit(wl)
    finally:
        now = session.placement_failures.get(wl.key)
        if now is None and saved is not None:
            session.placement_failures[wl.key] = saved
    return now if got is None else None


def _case(session: Session, wl: Workload, failure: PlacementFailure) -> _Case | None:
    pool = session.pool
    cq = session.index.cluster_queue_of(wl)
    tree = pool.tree(failure.request.flavor)
    if cq is None or tree is None or not tree.levels:
        return None
    requests = list(failure.requests)
    seen = _after(pool.free, wl, failure.before)
    if failure.request in requests:
        failing, base = requests.index(failure.request), dict(pool.free)
    else:  # not expected: place the failing pod set alone, after what the earlier ones took
        requests, failing, base = [failure.request], 0, seen
    request = failure.request.request
    if request.mode == "unconstrained":
        level_idx = len(tree.levels) - 1
    else:
        key = resolve_level(tree.topology, request.level)
        if key is None:
            return None
        level_idx = tree.levels.index(key)
    case = _Case(session, wl, requests, failing, base, seen, tree, level_idx)
    prev = previous_leaves(tree, failure.request.previous) if failure.request.previous is not None else None
    if prev and failure.request.count > sum(n for _, n in prev):  # a slice scaled up: only its new pods placed
        per_pod = failure.request.template.request_map
        case.kept, case.once = sum(n for _, n in prev), seen
        case.seen = dict(seen)
        for key, pods in prev:  # the old pods' usage added to the placement's assumed usage (ComputeUsagePerDomain)
            case.seen[key] = subtract(seen.get(key) or {}, pod_usage(per_pod, pods))
    return case


def _after(free: Free, wl: Workload, before: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Free capacity once the earlier pod sets of `wl` took their nodes (`before`)."""
    out = {n: dict(f) for n, f in free.items()}
    for ps_name, nodes in sorted(before.items()):
        per_pod = pod_set_of(wl, ps_name).placed_requests
        for node, pods in sorted(nodes.items()):
            if node in out:
                out[node] = subtract(out[node], pod_usage(per_pod, pods))
    return out


def _request_text(req: TASRequest) -> str:
    r = req.request
    text = r.mode if r.level is None else f"{r.mode} {r.level}"
    return f"implicit {text}" if req.implicit else text


def _kueue_message(failure: PlacementFailure) -> str:
    return f"couldn't assign flavors to pod set {failure.pod_set}: {failure.message}"


def _histogram(session: Session, req: TASRequest, free: Free) -> str:
    return histogram(req.template, session.pool.inventory.nodes, free=free)


# --- what holds the room -------------------------------------------------------------------------

def _scarce(case: _Case, names: list[str]) -> str | None:
    """The resource that stops more pods on the nodes `names`: per node that passes the pod's
    filters, the requested resource that leaves room for the fewest pods binds; the one binding
    on most nodes that something holds capacity on (else on most nodes) is scarce. `pods` binds
    only when nothing else does."""
    tpl = case.req.template
    usable = [n for n in names if static_fit(tpl, case.tree.nodes[n])]
    if not usable:
        return None
    held = [n for n in usable if case.session.pool.holders.get(n)]
    votes = Counter(b for b in (_binding(tpl.requests, case.seen.get(n, {})) for n in held or usable) if b)
    if not votes:
        return None
    return min(votes, key=lambda r: (-votes[r], r == PODS, r))


def _binding(requests: tuple[tuple[str, int], ...], free: Mapping[str, int]) -> str | None:
    """The requested resource that leaves room for the fewest pods on a node with `free`."""
    best: tuple | None = None
    for res, per_pod in requests:
        if per_pod > 0:
            key = (max(0, free.get(res, 0)) // per_pod, res == PODS, res)
            best = key if best is None or key < best else best
    return None if best is None else best[2]


@dataclass
class _Holder:
    key: str
    kind: str  # pod, workload
    usage: dict[str, dict[str, int]]  # node -> what it holds there
    span: Span | None
    new: bool = False  # a workload admitted earlier in this run

    def amount(self, resource: str | None, nodes: set[str] | None = None) -> int:
        if resource is None:
            return 0
        return sum(u.get(resource, 0) for n, u in self.usage.items() if nodes is None or n in nodes)

    @property
    def label(self) -> str:
        return f"{self.kind} `{self.key}`"


def _holders(case: _Case, nodes: list[str]) -> list[_Holder]:
    """Who holds capacity on `nodes`: bound pods (their requests) and admitted workloads (their
    placements, from the input or this run), sorted by key."""
    session, pool = case.session, case.session.pool
    pods: dict[str, Pod] = {}
    for p in session.model.pods:
        if p.holds_capacity:
            pods.setdefault(f"{p.namespace}/{p.name}", p)
    keys = sorted({k for n in nodes for k in pool.holders.get(n, ())})
    out = []
    for key in keys:
        usage: dict[str, dict[str, int]] = {}
        placed = pool.placed.get(key, {})
        pod = pods.get(key)
        for n in nodes:
            if key not in pool.holders.get(n, ()):
                continue
            use = dict(placed.get(n, {}))
            if pod is not None and pod.node_name == n:
                use = add(use, pod_usage(pod.requests))
            if use:
                usage[n] = use
        if not usage:
            continue
        if key in pool.placed:
            h = session.holders.get(key)
            wl = session.index.workloads.get(key)
            span = h.span if h is not None and h.span is not None else (wl.span if wl else None)
            out.append(_Holder(key, "workload", usage, span, bool(h and h.new)))
        else:
            out.append(_Holder(key, "pod", usage, pod.span if pod else None))
    return out


def _fit_nodes(case: _Case, names) -> list[str]:
    """The nodes among `names` that pass the pod's filters (only capacity can stop it there)."""
    tpl = case.req.template
    return sorted(n for n in names if static_fit(tpl, case.tree.nodes[n]))
