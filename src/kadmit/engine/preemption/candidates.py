"""Who preemption is about: the preemptor, admitted workloads as candidates (Kueue's C1, C4), and Kueue's reasons."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.engine.quota import FR, QuotaTree, node_id
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
    """Every holder of the session as a preemption candidate (cluster queues of the tree only);
    kept per session until its admitted workloads change (`session.version`)."""
    return list(_cached_candidates(session)[0])


def candidates_by_queue(session) -> dict[str, dict[str, Candidate]]:
    """The candidates of `candidates_of` per cluster queue, by key (shared: don't change them)."""
    return _cached_candidates(session)[1]


def ranked_by_queue(session) -> dict[str, tuple[Candidate, ...]]:
    """The candidates of `candidates_by_queue` per cluster queue in `rank` order (shared)."""
    got = _cached_candidates(session)
    if got[2] is None:
        got[2] = {cq: tuple(sorted(row.values(), key=_RANK)) for cq, row in got[1].items()}
    return got[2]


def ranked_using(session, cq: str, needs: frozenset[FR], below: int | None) -> tuple[Candidate, ...]:
    """The candidates of `cq` in `ranked_by_queue`'s order that use a flavor-resource of `needs`
    (`Candidate.uses`), of priority below `below` (None: any): the lists classical preemption collects
    candidates from, kept with the candidates per session version (the oracle's and the victims'
    searches of a cycle's heads ask the same ones)."""
    got = _cached_candidates(session)
    if got[3] is None:
        got[3] = {}
    key = (cq, needs, below)
    out = got[3].get(key)
    if out is None:
        out = got[3][key] = tuple(c for c in ranked_by_queue(session).get(cq, ())
                                  if (below is None or c.priority < below) and not needs.isdisjoint(c.frs))
    return out


def _RANK(c: Candidate) -> tuple:
    return c.rank


def _cached_candidates(session) -> list:
    """[the candidates, per queue by key, per queue ranked (made when first asked), `ranked_using`'s lists
    (made when first asked)], per session version."""
    version = getattr(session, "version", None)
    cached = getattr(session, "_preemption_candidates", None)
    if version is not None and cached is not None and cached[0] == version:
        return cached[1]
    tree: QuotaTree = session.compiler.tree
    rows = getattr(session, "_preemption_rows", None) if version is not None else None
    if rows is None or rows[0] is not tree:
        rows = (tree, {})
    out, by_queue = _candidates(session, rows[1])
    got = [out, by_queue, None, None]
    if version is not None:
        session._preemption_candidates = (version, got)
        session._preemption_rows = rows
    return got


def _candidates(session, rows: dict) -> tuple[list[Candidate], dict[str, dict[str, Candidate]]]:
    """The candidates in holder order. A holder's Candidate is built once and kept in `rows` (by
    key, with the holder it was built from and its commit stamp), so a change of the admitted set
    only builds the candidates of the holders that changed."""
    nodes = session.compiler.tree.nodes
    index = session.index
    cycles = getattr(session, "admitted_cycle", {})
    out: list[Candidate] = []
    by_queue: dict[str, dict[str, Candidate]] = {}
    for pos, (key, h) in enumerate(session.holders.items()):
        stamp = cycles.get(key, pos) if h.new else None
        row = rows.get(key)
        if row is not None and row[0] is h and row[1] == stamp:
            c = row[2]
        else:
            c = _candidate(index, nodes, key, h, stamp)
            rows[key] = (h, stamp, c)
        if c is None:
            continue
        out.append(c)
        q = by_queue.get(c.cluster_queue)
        if q is None:
            by_queue[c.cluster_queue] = q = {}
        q[key] = c
    return out, by_queue


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
            and p.created < c.created
    return policy == "Any"
