"""Who preemption is about: the preemptor, admitted workloads as candidates (Kueue's C1, C4), and Kueue's reasons."""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass
from datetime import timedelta

from kadmit.engine.quota import FR, QuotaTree, node_id
from kadmit.featuregates import enabled
from kadmit.model import Workload


# Kueue's Preempted-condition reasons.
IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

HUMAN_REASONS = {
    IN_CLUSTER_QUEUE: "prioritization in the ClusterQueue",
    IN_COHORT_RECLAMATION: "reclamation within the cohort",
    IN_COHORT_FAIR_SHARING: "Fair Sharing within the cohort",
    IN_COHORT_RECLAIM_WHILE_BORROWING: "reclamation within the cohort while borrowing",
}

# What the oracle answers (Kueue's PreemptionPossibility).
NO_CANDIDATES = "NoCandidates"
PREEMPT = "Preempt"
RECLAIM = "Reclaim"

# Fair-sharing preemption rules (F5).
LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"  # S2-a
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"  # S2-b
DEFAULT_STRATEGIES = (LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE)


@dataclass(frozen=True)
class Victim:
    """An admitted workload a preemptor evicts, and under which of Kueue's reasons."""

    key: str
    cluster_queue: str
    reason: str  # one of the IN_* reasons
    priority: int


@dataclass(frozen=True)
class Preemptor:
    """A pending workload asking for preemption: its queue, priority, queue-order time, the usage
    of its whole flavor assignment, and the flavor-resources assigned in Preempt mode (§2 A6)."""

    key: str
    cluster_queue: str
    priority: int
    created: object  # datetime: LowerOrNewerEqualPriority compares it
    usage: dict[FR, int]
    needs: frozenset[FR]
    # SchedulerTimestampPreemptionBuffer on: how much newer a candidate of equal priority must be (`buffer`)
    buffer: timedelta | None = None


# --- candidates ---------------------------------------------------------------------------------

@dataclass(eq=False)
class Candidate:
    """An admitted workload as preemption sees it. `reserved` orders quota-reservation times
    (higher = reserved later; equal times equal); workloads admitted in this run come after every
    input workload, in the order they were committed."""

    key: str
    cluster_queue: str
    amounts: dict[FR, int]
    priority: int
    created: object  # queue-order timestamp
    reserved: tuple  # (0, reservation timestamp), or (1, commit cycle) if admitted in this run
    evicted: bool
    uid: str = ""  # the Workload's UID where the input gives it: Kueue's last tie-break

    def __post_init__(self) -> None:
        late, at = self.reserved
        # `order` without the queue's part: how two candidates of one queue (or two of other queues) sort
        self.rank = (not self.evicted, self.priority, -late, -at, self.uid, self.key)
        self.frs = frozenset(self.amounts)  # the flavor-resources it was assigned

    def order(self, preemptor_cq: str) -> tuple:
        """`CandidatesOrdering` (C4): already evicted first, other queues before the preemptor's,
        lower priority first, most recently reserved first, then the UID (the input Workload's, also when
        admitted in this run; else the key: Kueue gives the Workload it makes of a job a UID kadmit can't know)."""
        late, at = self.reserved
        return (not self.evicted, self.cluster_queue == preemptor_cq, self.priority, -late, -at, self.uid, self.key)

    def uses(self, needs: frozenset[FR]) -> bool:
        """`WorkloadUsesResources`: it was assigned some flavor-resource that needs preemption."""
        return not needs.isdisjoint(self.frs)


def _timestamp(value) -> float:
    ts = getattr(value, "timestamp", None)
    return ts() if callable(ts) else float(value or 0)


def candidates_of(session) -> list[Candidate]:
    """Every holder of the session as a preemption candidate (cluster queues of the tree only), in
    holder order; kept per session until its admitted workloads change (`session.version`)."""
    by_queue = _cached(session).by_queue
    out = []
    for key, h in session.holders.items():
        c = by_queue.get(h.cluster_queue, {}).get(key)
        if c is not None:
            out.append(c)
    return out


def candidates_by_queue(session) -> dict[str, dict[str, Candidate]]:
    """The candidates of `candidates_of` per cluster queue, by key (in no order that means anything: a queue's
    changes are put in where they come; shared: don't change them)."""
    return _cached(session).by_queue


def ranked_by_queue(session) -> dict[str, tuple[Candidate, ...]]:
    """The candidates of `candidates_by_queue` per cluster queue in `rank` order (shared)."""
    got = _cached(session)
    if got.ranked is None:
        kept = got.kept_ranked
        got.ranked = {cq: kept[cq] if cq in kept else tuple(sorted(row.values(), key=_RANK))
                      for cq, row in got.by_queue.items()}
    return got.ranked


def ranked_using(session, cq: str, needs: frozenset[FR], below: int | None) -> tuple[Candidate, ...]:
    """The candidates of `cq` in `ranked_by_queue`'s order that use a flavor-resource of `needs`
    (`Candidate.uses`), of priority below `below` (None: any): the lists classical preemption collects
    candidates from, kept with the candidates of `cq` while its holders don't change (the oracle's and the
    victims' searches of a cycle's heads ask the same ones)."""
    got = _cached(session)
    lists = got.using.get(cq)
    if lists is None:
        lists = got.using[cq] = {}
    key = (needs, below)
    out = lists.get(key)
    if out is None:
        out = lists[key] = tuple(c for c in ranked_by_queue(session).get(cq, ())
                                 if (below is None or c.priority < below) and not needs.isdisjoint(c.frs))
    return out


def using_sums(session, cq: str, needs: frozenset[FR], below: int | None, frs: tuple[FR, ...],
               bound: int | None) -> tuple[int, tuple[int, ...]]:
    """`sums_of(ranked_using(session, cq, needs, below), frs, bound)`, kept with that list (what
    classical preemption sums to tell whether a preemptor could fit at all: O(queues), not O(candidates))."""
    got = _cached(session)
    sums = got.sums.get(cq)
    if sums is None:
        sums = got.sums[cq] = {}
    key = (needs, below, frs, bound)
    out = sums.get(key)
    if out is None:
        out = sums[key] = sums_of(ranked_using(session, cq, needs, below), frs, bound)
    return out


def sums_of(cands, frs: tuple[FR, ...], bound: int | None) -> tuple[int, tuple[int, ...]]:
    """How many of `cands` are of priority below `bound` (None: any), and their amounts of each of `frs`."""
    n = 0
    row = [0] * len(frs)
    for c in cands:
        if bound is not None and c.priority >= bound:
            continue
        n += 1
        amounts = c.amounts
        for i, fr in enumerate(frs):
            row[i] += amounts.get(fr, 0)
    return n, tuple(row)


def _RANK(c: Candidate) -> tuple:
    return c.rank


class _Kept:
    """A session's candidates for one set of admitted workloads (`version`): per cluster queue by key,
    per queue ranked (made when first asked), `ranked_using`'s lists and `using_sums`' sums. The next
    set's are made from it, queue by queue: a queue whose holders didn't change (`Situations.queue_epochs`)
    keeps its row, its ranked tuple, its lists and sums; a changed queue's are those before with the
    holders that came, went or changed since (`Situations.queue_log`, read from `marks`) taken out and put
    in at their place, or, where the log doesn't tell (trimmed, or a commit stamp changed: `Stamps`), built
    again from its holders. Every Candidate is built once per holder (`rows`: key -> (the holder it was built from, its
    commit stamp, it))."""

    __slots__ = ("version", "tree", "rows", "epochs", "marks", "restamps", "by_queue", "ranked", "kept_ranked",
                 "using", "sums", "positional")

    def __init__(self, version, tree: QuotaTree, rows: dict, epochs: dict[str, int]) -> None:
        self.version = version
        self.tree = tree
        self.rows = rows
        self.epochs = epochs  # the queues' epochs this was built at
        self.marks: dict[str, int] = {}  # queue -> how much of its `queue_log` this was built with (absent: none)
        self.restamps: int | None = None  # the session's `admitted_cycle.restamps` this was built at
        self.by_queue: dict[str, dict[str, Candidate]] = {}
        self.ranked: dict[str, tuple[Candidate, ...]] | None = None
        self.kept_ranked: dict[str, tuple[Candidate, ...]] = {}  # unchanged queues' ranked tuples, from before
        self.using: dict[str, dict[tuple, tuple[Candidate, ...]]] = {}
        self.sums: dict[str, dict[tuple, tuple[int, tuple[int, ...]]]] = {}  # `using_sums`', per queue
        self.positional = False  # a candidate's stamp is its holder's position (no admitted cycle known)


def _cached(session) -> _Kept:
    """The session's candidates for its admitted workloads now, kept per session version."""
    version = getattr(session, "version", None)
    cached: _Kept | None = getattr(session, "_preemption_candidates", None)
    if version is not None and cached is not None and cached.version == version:
        return cached
    tree: QuotaTree = session.compiler.tree
    situations = getattr(session, "situations", None)
    epochs = getattr(situations, "queue_epochs", None)
    if version is None or epochs is None:
        got = _Kept(version, tree, {}, {})
        _fill(session, got, None)
        return got
    if cached is None or cached.tree is not tree or cached.positional:
        got = _Kept(version, tree, cached.rows if cached is not None and cached.tree is tree else {}, dict(epochs))
        _fill(session, got, None)
    else:
        got = _Kept(version, tree, cached.rows, dict(epochs))
        changed = {cq for cq, e in epochs.items() if cached.epochs.get(cq) != e}
        if not _fill(session, got, changed, cached):
            got = _Kept(version, tree, cached.rows, dict(epochs))
            _fill(session, got, None)
    session._preemption_candidates = got
    return got


def _fill(session, got: _Kept, changed: set[str] | None, before: _Kept | None = None) -> bool:
    """`got`'s candidates per queue: every queue's (`changed` None), or those of the queues in `changed`
    with the others' kept from `before`. False (nothing kept) when a changed queue holds a candidate whose
    stamp is its holder's position, which any other queue's change moves: then every queue is built again."""
    nodes = got.tree.nodes
    index = session.index
    cycles = getattr(session, "admitted_cycle", {})
    rows = got.rows
    by_queue = got.by_queue
    situations = getattr(session, "situations", None)
    log: dict[str, list] | None = getattr(situations, "queue_log", None)
    got.restamps = getattr(cycles, "restamps", None)
    if changed is not None:
        assert before is not None
        got.marks = dict(before.marks)
        if not changed:  # the same holders under another version (a suspension undone)
            by_queue.update(before.by_queue)
            got.kept_ranked = before.ranked if before.ranked is not None else before.kept_ranked
            got.using = dict(before.using)
            got.sums = dict(before.sums)
            return True
        for cq, row in before.by_queue.items():
            if cq not in changed:
                by_queue[cq] = row
        kept = before.ranked if before.ranked is not None else before.kept_ranked
        got.kept_ranked = {cq: t for cq, t in kept.items() if cq not in changed}
        got.using = {cq: lists for cq, lists in before.using.items() if cq not in changed}
        got.sums = {cq: sums for cq, sums in before.sums.items() if cq not in changed}
        walk = set()
        for cq in sorted(changed):
            keys = _logged(situations, log, cq, before.marks.get(cq, 0)) \
                if got.restamps is not None and got.restamps == before.restamps else None
            if keys is None:
                walk.add(cq)
            elif not _update(session, got, before, cq, keys, cycles):
                return False
        for key, h in session.holders.items() if walk else ():
            cq = h.cluster_queue
            if cq not in walk:
                continue
            if h.new and key not in cycles:
                return False
            stamp = cycles[key] if h.new else None
            row = rows.get(key)
            if row is not None and row[0] is h and row[1] == stamp:
                c = row[2]
            else:
                c = _candidate(index, nodes, key, h, stamp)
                rows[key] = (h, stamp, c)
            if c is None:
                continue
            q = by_queue.get(cq)
            if q is None:
                by_queue[cq] = q = {}
            q[key] = c
        _mark(situations, log, got, changed)
        return True
    for pos, (key, h) in enumerate(session.holders.items()):
        if h.new:
            stamp = cycles.get(key, pos)
            if key not in cycles:
                got.positional = True
        else:
            stamp = None
        row = rows.get(key)
        if row is not None and row[0] is h and row[1] == stamp:
            c = row[2]
        else:
            c = _candidate(index, nodes, key, h, stamp)
            rows[key] = (h, stamp, c)
        if c is None:
            continue
        q = by_queue.get(h.cluster_queue)
        if q is None:
            by_queue[h.cluster_queue] = q = {}
        q[key] = c
    if log is not None:
        _mark(situations, log, got, log)
    return True


def _logged(situations, log: dict[str, list] | None, cq: str, mark: int) -> list[str] | None:
    """The keys of the queue's holders that came, went or changed since `mark` (`Situations.queue_log`,
    in order, once each), or None when the log doesn't tell (not kept, or trimmed past `mark`)."""
    if log is None:
        return None
    entries = log.get(cq)
    start = situations.queue_log_start.get(cq, 0)
    if entries is None or mark < start:
        return None
    return list(dict.fromkeys(entries[mark - start:]))


def _mark(situations, log: dict[str, list] | None, got: _Kept, queues) -> None:
    """`got` is up to date with the log of `queues`."""
    if log is None:
        return
    starts = situations.queue_log_start
    for cq in queues:
        entries = log.get(cq)
        if entries is not None:
            got.marks[cq] = starts.get(cq, 0) + len(entries)


def _update(session, got: _Kept, before: _Kept, cq: str, keys: list[str], cycles) -> bool:
    """The queue's row, ranked tuple, lists and sums from `before`'s, with the holders of `keys` taken
    out and put in as they are now. False when one of them is stamped by its position (see `_fill`)."""
    rows, holders, index, nodes = got.rows, session.holders, session.index, got.tree.nodes
    row = dict(before.by_queue.get(cq, ()))
    out: list[Candidate] = []
    into: list[Candidate] = []
    for key in keys:
        old = row.pop(key, None)
        h = holders.get(key)
        c = None
        if h is not None and h.cluster_queue == cq:
            if h.new and key not in cycles:
                return False
            stamp = cycles[key] if h.new else None
            kept = rows.get(key)
            if kept is not None and kept[0] is h and kept[1] == stamp:
                c = kept[2]
            else:
                c = _candidate(index, nodes, key, h, stamp)
                rows[key] = (h, stamp, c)
        if c is not None:
            row[key] = c
        if c is not old:
            if old is not None:
                out.append(old)
            if c is not None:
                into.append(c)
    if row:
        got.by_queue[cq] = row
    kept_ranked = before.ranked if before.ranked is not None else before.kept_ranked
    ranked = kept_ranked.get(cq)
    if ranked is not None:
        got.kept_ranked[cq] = _moved(ranked, out, into, None)
    lists = before.using.get(cq)
    if lists is not None:
        got.using[cq] = {(needs, below): _moved(t, out, into, (needs, below)) for (needs, below), t in lists.items()}
    sums = before.sums.get(cq)
    if sums is not None:
        got.sums[cq] = {key: _summed(n, total, out, into, key) for key, (n, total) in sums.items()}
    return True


def _moved(t: tuple[Candidate, ...], out: list[Candidate], into: list[Candidate],
           using: tuple | None) -> tuple[Candidate, ...]:
    """`t` (in rank order) without `out` and with `into`, of those `ranked_using`'s (needs, below) keeps
    (None: all), each at its place by rank (ranks differ: keys do)."""
    if using is not None:
        needs, below = using
        out = [c for c in out if (below is None or c.priority < below) and not needs.isdisjoint(c.frs)]
        into = [c for c in into if (below is None or c.priority < below) and not needs.isdisjoint(c.frs)]
        if not out and not into:
            return t
    lst = list(t)
    for c in out:
        i = bisect_left(lst, c.rank, key=_RANK)
        assert lst[i] is c
        del lst[i]
    for c in into:
        insort(lst, c, key=_RANK)
    return tuple(lst)


def _summed(n: int, total: tuple[int, ...], out: list[Candidate], into: list[Candidate],
            key: tuple) -> tuple[int, tuple[int, ...]]:
    """`using_sums`' (count, sums) for `key` with `out` taken away and `into` added."""
    needs, below, frs, bound = key
    row = list(total)
    for sign, cands in ((-1, out), (1, into)):
        for c in cands:
            if (below is not None and c.priority >= below) or needs.isdisjoint(c.frs) or \
                    (bound is not None and c.priority >= bound):
                continue
            n += sign
            amounts = c.amounts
            for i, fr in enumerate(frs):
                row[i] += sign * amounts.get(fr, 0)
    return n, tuple(row)


def _candidate(index, nodes, key: str, h, stamp) -> Candidate | None:
    if node_id(h.cluster_queue, False) not in nodes:
        return None
    wl: Workload | None = index.workloads.get(key)
    uid = ""
    if wl is None:
        priority, created, at, evicted = index.default_priority, None, None, False
    else:
        priority, created = index.priority(wl), wl.created
        at = (wl.admission.admitted_at if wl.admission is not None else None) or wl.created
        evicted = bool(wl.evicted) and not h.new
        uid = wl.uid or ""  # an input Workload admitted in this run keeps its UID
    # admitted in this run: after every input workload, by the cycle that admitted it (ties: key)
    when = (1, stamp) if h.new else (0, _timestamp(at))
    return Candidate(key, h.cluster_queue, dict(h.amounts), priority, created, when, evicted, uid)


def satisfies_policy(policy: str, p: Preemptor, c: Candidate) -> bool:
    """C1: withinClusterQueue / reclaimWithinCohort allow preempting `c`."""
    if policy == "LowerPriority":
        return p.priority > c.priority
    if policy == "LowerOrNewerEqualPriority":
        if p.priority > c.priority:
            return True
        return p.priority == c.priority and p.created is not None and c.created is not None \
            and p.created < c.created and (p.buffer is None or c.created - p.created > p.buffer)  # type: ignore[operator]
    return policy == "Any"


TIMESTAMP_PREEMPTION_BUFFER = timedelta(minutes=5)  # preemption_policy.go timestampPreemptionBuffer


def buffer(session) -> timedelta | None:
    """With Kueue's SchedulerTimestampPreemptionBuffer gate on (off by default), LowerOrNewerEqualPriority
    preempts a candidate of equal priority only when it is more than 5 minutes newer than the preemptor
    (SatisfiesPreemptionPolicy)."""
    return TIMESTAMP_PREEMPTION_BUFFER if enabled(session.model.config, "SchedulerTimestampPreemptionBuffer") else None
