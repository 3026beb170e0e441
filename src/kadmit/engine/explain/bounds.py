"""Arithmetic over the model, no re-decision: which quota numbers (and priorities) can admit a
pending workload at all, and from which values to search them.

Necessary condition (`Bound.necessary`). When workload W is admitted to its ClusterQueue C, C holds
at least what must be admitted before it, and no queue holds more than it can ever reach:
- C can reach, per flavor and resource, at most nominal + borrowingLimit (Kueue's `available`
  never exceeds subtree quota + borrowing limit − usage for a queue with a parent; nominal for one
  without a cohort), and never more than the whole cohort tree's nominal quotas (each cohort's
  subtree quota is at most the sum of its children's and its own); per resource, summed over
  C's flavors;
- what must be in C when W is admitted: C's admitted workloads of the input, W's own smallest
  request (`min_count` pods), and workloads of W's LocalQueue ahead of it in Kueue's queue order
  (priority, then creation): under StrictFIFO every one of them (the head blocks the queue until
  admitted); under BestEffortFIFO those W dominates (same pod sets except requests, each request at
  most W's, in queues whose resource groups have one flavor each for W's resources): such a
  workload is set aside only when it did not fit the usage at the start of a cycle, usage only
  grows, so W would not fit later either.
  Per flavor, C holds at most that reach, or what it held at the start when that is more (an input
  over its quota: usage in a flavor-resource W does not take is not checked by W's admission).
The second part rests on usage never going down during the run: it holds only when nothing in the
cohort tree can preempt (every queue's policies Never) and nothing but quota decides (no rules, no
topology-aware flavor, no DRA, W active). Otherwise `sound` is False and the bound claims nothing:
no candidate is skipped and no change is called minimal by it.

Under preemption, StrictFIFO (`Bound.fifo`). Usage may go down, but W's ClusterQueue C admits W only
as the head of its queue, and Kueue orders a queue by priority first (then time, then UID; no
admission fair sharing on C): when W is admitted, no workload of C's queue with a higher priority than
W's is pending in it. Every such workload that Kueue keeps in the queue until admitted (active, not
inadmissible, not finished, its LocalQueue targets C and holds nothing back, a namespace C takes:
under StrictFIFO Kueue moves only a namespace mismatch out of the queue) is then admitted in C, at
least at its `min_count` (one admitted at the start, evicted since, has come back to C's queue with
its priority and must be admitted again): pending at the start, or admitted in C at the start
(counted at the smaller of what it held and its smallest request). Equal priorities are not counted
(an evicted workload queues again behind W by its eviction time). And C never holds more of a
flavor-resource than it held at the start or than Kueue's `available` lets an admission take: at
most nominal + borrowingLimit, and at most its own nominal plus what the rest of its cohort tree can
lend (each other queue's nominal, or its lendingLimit if less; every cohort's own nominal):
preemption frees quota, it creates none. So the sum over C's flavors of that cap, per resource C
covers, must hold W's smallest request and every higher-priority workload's; else no run admits W.

Sufficient estimate (`Bound.enough`): the value with which C has room for everything queued ahead of
W whatever the other queues of its tree take (each at most its nominal + borrowing limit and its own
demand): a starting value the first re-decision usually admits with. It is only a starting point;
every fix is still proven by deciding again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.identity import queue_uid
from kadmit.index import ModelIndex, admitted_usage
from kadmit.model import ClusterQueue, Model, PodSet, Workload

Entry = tuple[str, str, str, str, str]  # (cq | cohort, name, flavor, resource, nominal | borrowing_limit | lending_limit)
IMPOSSIBLE = -1  # no value of the number satisfies the necessary condition
BIG = 1 << 62


def entry_of(origin_id: str) -> Entry | None:
    """`quota|cq:NAME|FLAVOR|RES|FIELD` -> ("cq", NAME, FLAVOR, RES, FIELD)."""
    parts = origin_id.split("|")
    if len(parts) != 5 or parts[0] != "quota" or ":" not in parts[1]:
        return None
    kind, name = parts[1].split(":", 1)
    return kind, name, parts[2], parts[3], parts[4]


def min_request(wl: Workload) -> dict[str, int]:
    """What `wl` takes at its smallest admissible counts, per resource."""
    out: dict[str, int] = {}
    for ps in wl.pod_sets:
        n = ps.min_count if ps.min_count is not None else ps.count
        for r, q in ps.requests.items():
            out[r] = out.get(r, 0) + n * q
    return out


def _same_but_requests(a: PodSet, b: PodSet) -> bool:
    return (a.count == b.count and a.min_count == b.min_count and a.node_selector == b.node_selector
            and a.node_affinity == b.node_affinity and a.tolerations == b.tolerations
            and a.topology is None and b.topology is None and not a.claim_templates and not b.claim_templates)


def dominated(a: Workload, w: Workload) -> bool:
    """`a` asks for no more than `w` in every pod set and is otherwise the same shape."""
    if len(a.pod_sets) != len(w.pod_sets):
        return False
    for pa, pw in zip(a.pod_sets, w.pod_sets):
        if not _same_but_requests(pa, pw):
            return False
        if any(q > pw.requests.get(r, 0) for r, q in pa.requests.items() if q > 0):
            return False
    return True


@dataclass
class Bound:
    """Conditions on the quota numbers of `workload`'s cohort tree for it to be admitted."""

    workload: Workload
    cluster_queue: str | None
    sound: bool = False
    why_not: str = ""  # why the necessary condition is not claimed (sound False)
    own: set[str] = field(default_factory=set)  # the node ids "cq:NAME" of the workload's queue
    cohort: bool = False  # the queue is in a cohort
    strict: bool = False
    single: bool = False  # each of the queue's resource groups the workload asks from has one flavor
    quotas: dict[str, dict[tuple[str, str], tuple[int, int | None]]] = field(default_factory=dict)  # node -> fr -> (nominal, bl)
    flavors: dict[str, list[str]] = field(default_factory=dict)  # resource -> the queue's flavors for it
    held: dict[str, dict[tuple[str, str], int]] = field(default_factory=dict)  # cq -> fr -> admitted usage at the start
    demand: dict[str, dict[str, int]] = field(default_factory=dict)  # cq -> resource -> everything pending
    queue: list[tuple[tuple, dict[str, int], bool]] = field(default_factory=list)  # (order, min request, dominated)
    priority: int = 0  # the workload's own
    # the StrictFIFO claim, sound under preemption (see the module docstring)
    fifo: bool = False
    fifo_why_not: str = ""
    above: list[tuple[int, dict[str, int]]] = field(default_factory=list)  # (priority, least held once admitted)
    lending: dict[str, dict[tuple[str, str], int | None]] = field(default_factory=dict)  # node -> fr -> lendingLimit
    start: dict[tuple[str, str], int] = field(default_factory=dict)  # fr -> what the queue holds at the start (both claims)

    @classmethod
    def of(cls, model: Model, wl: Workload) -> "Bound":
        """On the model the engine decides on (`kadmit.effective`, a session's model: requests as
        Kueue counts them; not applied here, transformations must not apply twice)."""
        ix = ModelIndex(model)
        wl = ix.workloads.get(wl.key, wl)
        cq = ix.cluster_queue_of(wl)
        out = cls(wl, cq.name if cq is not None else None)
        out.priority = ix.priority(wl)
        if cq is None:
            out.why_not = "the workload has no ClusterQueue"
            return out
        path = ix.cohort_path(cq.cohort)
        if path and ix.cohorts[path[-1]].parent in path:
            out.why_not = "its cohorts form a cycle"
            return out
        root = path[-1] if path else None
        cohorts = [c for c in ix.cohorts if root is not None and (ix.cohort_path(c) or [None])[-1] == root]
        tree: list[ClusterQueue] = [cq] if root is None else [
            q for q in ix.cluster_queues.values() if q.cohort in set(cohorts)]
        out.cohort = root is not None
        out.own = {f"cq:{cq.name}"}
        out.strict = cq.queueing_strategy == "StrictFIFO"
        for q in tree:
            out.quotas[f"cq:{q.name}"] = _quota_table(q.resource_groups)
        for c in cohorts:
            out.quotas[f"cohort:{c}"] = _quota_table(ix.cohorts[c].resource_groups)
        asked = {r for ps in wl.pod_sets for r, q in ps.requests.items() if q > 0}
        out.single = True
        for g in cq.resource_groups:
            for r in g.covered_resources:
                out.flavors.setdefault(r, []).extend(fq.flavor for fq in g.flavors)
            if asked & set(g.covered_resources) and len(g.flavors) != 1:
                out.single = False
        # usage held at the start and what is pending, per queue of the tree
        names = {q.name for q in tree}
        lq_key = f"{wl.namespace}/{wl.queue}"
        seen: dict[str, int] = {}
        for w in model.workloads:
            seen[w.key] = seen.get(w.key, 0) + 1
        for w in model.workloads:
            if w.finished or seen[w.key] > 1:  # a duplicate (reported by the validator): not counted
                continue
            if w.admission is not None:
                if w.admission.cluster_queue in names and not w.evicted:
                    h = out.held.setdefault(w.admission.cluster_queue, {})
                    for fr, v in admitted_usage(w).items():
                        h[fr] = h.get(fr, 0) + v
                continue
            wcq = ix.cluster_queue_of(w)
            if wcq is None or wcq.name not in names or not w.active:
                continue
            d = out.demand.setdefault(wcq.name, {})
            req = min_request(w)
            for r, v in req.items():
                d[r] = d.get(r, 0) + v
            if f"{w.namespace}/{w.queue}" == lq_key and w.key != wl.key and not w.inadmissible:
                out.queue.append(((-ix.priority(w), w.created, queue_uid(w), w.key), req, dominated(w, wl)))
        out.queue.sort(key=lambda e: e[0])
        for w in model.workloads:  # anything admitted to the queue at the start, even evicted or finished
            if w.admission is not None and w.admission.cluster_queue == cq.name:
                for fr, v in admitted_usage(w).items():
                    out.start[fr] = out.start.get(fr, 0) + v
        out.why_not = _unsound(model, ix, wl, cq, tree)
        out.sound = not out.why_not
        out._strict_fifo(model, ix, cq, tree, cohorts, seen)
        return out

    def _strict_fifo(self, model: Model, ix: ModelIndex, cq: ClusterQueue, tree: list[ClusterQueue],
                     cohorts: list[str], seen: dict[str, int]) -> None:
        """The StrictFIFO claim's numbers: what the queue's higher-priority workloads hold once
        admitted, what the queue holds at the start, the tree's lending limits."""
        wl = self.workload
        self.fifo_why_not = _not_fifo(model, ix, wl, cq)
        if self.fifo_why_not:
            return
        for q in tree:
            self.lending[f"cq:{q.name}"] = _lending_table(q.resource_groups)
        for c in cohorts:
            self.lending[f"cohort:{c}"] = _lending_table(ix.cohorts[c].resource_groups)
        ns_ok: dict[str, bool] = {}
        for w in model.workloads:
            if w.key == wl.key or w.finished or seen[w.key] > 1 or not w.active or w.inadmissible:
                continue
            lq = ix.local_queues.get(f"{w.namespace}/{w.queue}")
            if lq is None or lq.cluster_queue != cq.name or lq.stop_policy != "None":
                continue
            ok = ns_ok.get(w.namespace)
            if ok is None:
                ok = ns_ok[w.namespace] = cq.namespace_selector is not None and \
                    cq.namespace_selector.matches(ix.namespace_labels(w.namespace))
            if not ok:
                continue  # Kueue moves it out of even a StrictFIFO queue: it need not go first
            req = min_request(w)
            if w.admission is not None and not w.evicted:
                if w.admission.cluster_queue != cq.name:
                    continue  # admitted elsewhere: it enters C's queue only if evicted there
                held: dict[str, int] = {}
                for (f, r), v in admitted_usage(w).items():
                    if f in self.flavors.get(r, ()):
                        held[r] = held.get(r, 0) + v
                req = {r: min(v, held.get(r, 0)) for r, v in req.items()}
            self.above.append((ix.priority(w), req))
        self.above.sort(key=lambda e: -e[0])
        self.fifo = True

    # --- the numbers under changes ----------------------------------------------------------------

    def _value(self, changes: dict[Entry, int], nid: str, fr: tuple[str, str]) -> tuple[int, int | None]:
        nominal, bl = self.quotas.get(nid, {}).get(fr, (0, None))
        kind, name = nid.split(":", 1)
        nominal = changes.get((kind, name, fr[0], fr[1], "nominal"), nominal)
        bl = changes.get((kind, name, fr[0], fr[1], "borrowing_limit"), bl)
        return nominal, bl

    def _total(self, changes: dict[Entry, int], fr: tuple[str, str]) -> int:
        return sum(self._value(changes, nid, fr)[0] for nid in self.quotas)

    def _cap(self, changes: dict[Entry, int], cq: str, res: str, flavors: list[str], start: bool = False) -> int:
        """The most queue `cq` can ever reach of `res` in `flavors` by admissions; `start`: or hold,
        per flavor, when it held more at the start (an input over its quota stays so)."""
        out = 0
        for f in flavors:
            nominal, bl = self._value(changes, f"cq:{cq}", (f, res))
            if not self.cohort:
                reach = nominal
            else:
                total = self._total(changes, (f, res))
                reach = total if bl is None else min(nominal + bl, total)
            out += max(reach, self.start.get((f, res), 0)) if start else reach
        return out

    def need(self, priority: int | None = None, everything: bool = False) -> dict[str, int]:
        """What the queue holds when the workload is admitted (at its `priority`): what it held at
        the start, what must be admitted before it (`everything`: all that is queued ahead), itself."""
        me = (-(priority if priority is not None else self.priority), self.workload.created, queue_uid(self.workload), self.workload.key)
        out = self._held(self.cluster_queue or "")
        for r, v in min_request(self.workload).items():
            out[r] = out.get(r, 0) + v
        for order, req, dom in self.queue:
            if order >= me:
                break
            if everything or self.strict or (dom and self.single):
                for r, v in req.items():
                    out[r] = out.get(r, 0) + v
        return out

    def _held(self, cq: str) -> dict[str, int]:
        """What queue `cq` holds at the start, per resource, in the flavors the bound counts."""
        out: dict[str, int] = {}
        for (f, r), v in self.held.get(cq, {}).items():
            if f in self.flavors.get(r, ()):
                out[r] = out.get(r, 0) + v
        return out

    def necessary(self, changes: dict[Entry, int] | None = None, priority: int | None = None) -> bool:
        """False only when no run can admit the workload with these numbers (and priority)."""
        if self.cluster_queue is None:
            return True
        changes = changes or {}
        if self.fifo and not self.fifo_necessary(changes, priority):
            return False
        if not self.sound:
            return True
        return all(v <= self._cap(changes, self.cluster_queue, r, self.flavors.get(r, []), start=True)
                   for r, v in self.need(priority).items() if v > 0)

    @property
    def claims(self) -> bool:
        """Whether any necessary condition is claimed (else `necessary` is always True)."""
        return self.cluster_queue is not None and (self.sound or self.fifo)

    def fifo_need(self, priority: int | None = None) -> dict[str, int]:
        """StrictFIFO: what the queue holds when the workload is admitted at `priority`, at least: its
        own smallest request and that of every higher-priority workload of its queue."""
        p = priority if priority is not None else self.priority
        out = dict(min_request(self.workload))
        for prio, req in self.above:
            if prio <= p:
                break
            for r, v in req.items():
                out[r] = out.get(r, 0) + v
        return out

    def fifo_necessary(self, changes: dict[Entry, int], priority: int | None = None) -> bool:
        """The StrictFIFO condition (True when not claimed)."""
        if not self.fifo or self.cluster_queue is None:
            return True
        return all(v <= self._fifo_cap(changes, r) for r, v in self.fifo_need(priority).items()
                   if v > 0 and self.flavors.get(r))

    def _fifo_cap(self, changes: dict[Entry, int], res: str) -> int:
        """The most the queue can hold of `res` in its flavors for it, under preemption: per flavor,
        what it held at the start or what an admission can reach, whichever is more."""
        cq = f"cq:{self.cluster_queue}"
        out = 0
        for f in self.flavors.get(res, ()):
            fr = (f, res)
            nominal, bl = self._value(changes, cq, fr)
            reach = nominal
            if self.cohort:
                lend = nominal
                for nid in self.quotas:
                    if nid == cq:
                        continue
                    n, _ = self._value(changes, nid, fr)
                    kind, name = nid.split(":", 1)
                    ll = changes.get((kind, name, f, res, "lending_limit"), self.lending.get(nid, {}).get(fr))
                    lend += n if kind == "cohort" or ll is None else min(n, ll)
                reach = lend if bl is None else min(nominal + bl, lend)
            out += max(reach, self.start.get(fr, 0))
        return out

    def least(self, entry: Entry, old: int) -> int | None:
        """The least value (>= old) of one quota number that meets the necessary condition;
        IMPOSSIBLE when none does; None when the bound claims nothing."""
        if not self.claims:
            return None
        return least_value(lambda v: self.necessary({entry: v}), old)

    def enough(self, entry: Entry, old: int) -> int | None:
        """A starting value: the least value (>= old) of one quota number with which the queue has
        room for everything queued ahead of the workload and itself, whatever the other queues of
        the tree hold (at most their reach and their demand); None where that can't be worked out."""
        cq = self.cluster_queue
        if cq is None:
            return None
        need = self.need(everything=True)

        def room(v: int) -> bool:
            ch = {entry: v}
            for r, want in need.items():
                if want <= 0:
                    continue
                fl = self.flavors.get(r, [])
                if not fl:
                    return False
                mine = self._cap(ch, cq, r, fl)
                if self.cohort:
                    total = sum(self._total(ch, (f, r)) for f in fl)
                    others = 0
                    for nid in self.quotas:
                        if nid.startswith("cq:") and nid not in self.own:
                            name = nid[3:]
                            reach = self._cap(ch, name, r, fl)
                            has = self._held(name).get(r, 0) + self.demand.get(name, {}).get(r, 0)
                            others += min(reach, has)
                    mine = min(mine, total - others)
                if mine < want:
                    return False
            return True
        got = least_value(room, old)
        return None if got == IMPOSSIBLE else got


def least_value(ok, old: int) -> int:
    """The least v >= old with ok(v), for ok monotone in v; IMPOSSIBLE when not even at BIG."""
    if ok(old):
        return old
    if not ok(BIG):
        return IMPOSSIBLE
    lo, step = old, 1
    while not ok(old + step):
        lo = old + step
        step *= 2
    hi = old + step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _quota_table(groups) -> dict[tuple[str, str], tuple[int, int | None]]:
    out: dict[tuple[str, str], tuple[int, int | None]] = {}
    for g in groups:
        for fq in g.flavors:
            for rq in fq.resources:
                out.setdefault((fq.flavor, rq.resource), (rq.nominal, rq.borrowing_limit))
    return out


def _lending_table(groups) -> dict[tuple[str, str], int | None]:
    out: dict[tuple[str, str], int | None] = {}
    for g in groups:
        for fq in g.flavors:
            for rq in fq.resources:
                out.setdefault((fq.flavor, rq.resource), rq.lending_limit)
    return out


def _topology_flavor(ix: ModelIndex, cq: ClusterQueue) -> str:
    """The first flavor of the ClusterQueue that has a topology, said as a reason; "" when none."""
    for g in cq.resource_groups:
        for fq in g.flavors:
            f = ix.flavors.get(fq.flavor)
            if f is not None and f.topology:
                return f"flavor `{f.name}` has a topology"
    return ""


def _not_fifo(model: Model, ix: ModelIndex, wl: Workload, cq: ClusterQueue) -> str:
    """Why the StrictFIFO claim is not made: "" when it is."""
    if cq.queueing_strategy != "StrictFIFO":
        return "its ClusterQueue is not StrictFIFO"
    if model.config is not None and model.config.admission_fair_sharing is not None and cq.admission_fair_sharing:
        return "admission fair sharing orders its queue"
    if model.rules:
        return "rules decide besides quota"
    if topology := _topology_flavor(ix, cq):
        return topology
    if not wl.active or wl.inadmissible:
        return "the workload is inactive or inadmissible"
    if wl.admission is not None and not wl.evicted:
        return "the workload is admitted at the start (it stays so without passing the head)"
    return ""


def _unsound(model: Model, ix: ModelIndex, wl: Workload, cq: ClusterQueue, tree: list[ClusterQueue]) -> str:
    """Why usage might go down during the run, or something besides quota decide: "" when neither."""
    if model.rules:
        return "rules decide besides quota"
    for q in tree:
        p = q.preemption
        if p.within_cluster_queue != "Never" or p.reclaim_within_cohort != "Never" or (
                p.borrow_within_cohort is not None and p.borrow_within_cohort.policy != "Never"):
            return f"ClusterQueue `{q.name}` may preempt"
    if topology := _topology_flavor(ix, cq):
        return topology
    if not wl.active or wl.inadmissible:
        return "the workload is inactive or inadmissible"
    if any(ps.topology is not None or ps.claim_templates for ps in wl.pod_sets):
        return "the workload asks for a topology or devices"
    return ""
