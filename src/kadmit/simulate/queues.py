"""The replay's pending workloads as Kueue's queue manager keeps them between instants.

A workload that arrives (or is evicted) is `fresh`: the next decision in its part tries it. One
that was tried and not admitted is parked — Kueue's inadmissible list — in its cohort tree, until
quota is released there: a run finishing between instants (its tree is `dirty`: every workload
parked there is tried again, Kueue's QueueInadmissibleWorkloads), or an eviction during a decision
(`decide_ordered` reads the tree's parked workloads then, and only then). StrictFIFO queues park
nothing: Kueue keeps their heads in its heap, so their workloads are tried whenever their part is.

Under SchedulingEquivalenceHashing each BestEffortFIFO queue also keeps the scheduling hashes its
decisions found inadmissible (`hashes`, `Equivalence.recorded`), until quota is released in its tree: a
workload arriving with one of them is parked at once, untried (Kueue's PushOrUpdate).
"""

from __future__ import annotations

from kadmit.engine.admission.decisions import Decision
from kadmit.engine.admission.equivalence import Equivalence
from kadmit.model import Workload


class Parked:
    """The parked workloads of one cohort tree, read by `decide_ordered` only if quota is released there."""

    __slots__ = ("workloads", "keys")

    def __init__(self, workloads: dict[str, Workload], keys: dict[str, None]) -> None:
        self.workloads, self.keys = workloads, keys

    def __iter__(self):
        return (self.workloads[k] for k in list(self.keys))


class Queues:
    def __init__(self, index, tree, parts) -> None:
        """`index` and `tree`: the replay's whole-cluster session's; `parts`: its `simulate.parts.Parts`."""
        self.ix, self.tree, self.parts = index, tree, parts
        self.pending: dict[str, dict[str, None]] = {}  # cq ("": none) -> its pending workloads, in arrival order
        self.fresh: dict[str, None] = {}  # pending and not tried since it arrived (or was evicted)
        self.parked: dict[str, dict[str, None]] = {}  # cohort root -> its BestEffortFIFO queues' parked workloads
        self.last: dict[str, object] = {}  # pending workload -> its last Decision (why it waits)
        self._member: dict[str, str] = {}  # cohort root -> one of its cluster queues (names its part)
        self._cq_of: dict[str, str] = {}  # workload -> its cluster queue ("": none)
        # SchedulingEquivalenceHashing: cq -> the hashes found inadmissible there (and the head that found each)
        self.hashes: dict[str, dict[tuple, str]] = {}
        self._equivalence: dict[str, Equivalence] = {}  # part -> its session's hashes

    def cluster_queue(self, key: str) -> str:
        """The cluster queue a workload waits in ("": none); its local queue never changes."""
        got = self._cq_of.get(key)
        if got is None:
            cq = self.ix.cluster_queue_of(self.ix.workloads[key])
            got = self._cq_of[key] = cq.name if cq else ""
        return got

    def _root(self, cq: str) -> str | None:
        """The cohort tree a cluster queue's workloads are parked in (None: they never are)."""
        if not cq or cq not in self.ix.cluster_queues or self.ix.cluster_queues[cq].queueing_strategy == "StrictFIFO":
            return None
        return self.tree.root(f"cq:{cq}")

    def _unpark(self, key: str, cq: str) -> None:
        root = self._root(cq)
        if root is not None and key in self.parked.get(root, ()):
            del self.parked[root][key]
            if not self.parked[root]:
                del self.parked[root]

    def add(self, key: str) -> str:
        """It waits in its queue, fresh (parked, untried, if its queue found its scheduling hash
        inadmissible since quota was last released in its tree); returns the queue."""
        cq = self.cluster_queue(key)
        self.pending.setdefault(cq, {})[key] = None
        self._unpark(key, cq)
        head = self._equivalent(key, cq)
        if head is None:
            self.fresh[key] = None
        else:
            root = self._root(cq)
            assert root is not None
            self.fresh.pop(key, None)
            self.parked.setdefault(root, {})[key] = None
            self._member.setdefault(root, cq)
            self.last[key] = Decision(self.ix.workloads[key], False, cq, equivalent_to=head)
        return cq

    def _equivalent(self, key: str, cq: str) -> str | None:
        """The head whose scheduling hash, found inadmissible in `cq`, the workload shares (None: none)."""
        recorded = self.hashes.get(cq)
        if not recorded or self._root(cq) is None:
            return None
        return recorded.get(self._hashing(cq).key(self.parts.session(cq).index.workloads[key]))

    def _hashing(self, cq: str) -> Equivalence:
        part = self.parts.part(cq)
        eq = self._equivalence.get(part)
        if eq is None:
            eq = self._equivalence[part] = Equivalence(self.parts.session(cq))
        return eq

    def _stays(self, wl: Workload, cq: str) -> bool:
        """A parked workload queueInadmissibleWorkloads leaves parked: under the gate, one whose namespace
        its ClusterQueue does not select (as `engine.admission.queueing.requeued`)."""
        session = self.parts.session(cq)
        return self._hashing(cq).on and not session.compiler.namespace_ok(session.index.cluster_queues[cq],
                                                                          wl.namespace)

    def remove(self, key: str) -> str:
        """It is admitted: it waits no more; returns the queue it waited in."""
        cq = self.cluster_queue(key)
        del self.pending[cq][key]
        if not self.pending[cq]:
            del self.pending[cq]
        self._unpark(key, cq)
        self.fresh.pop(key, None)
        self.last.pop(key, None)
        return cq

    def tried(self, d) -> None:
        """A decision left it pending: parked (StrictFIFO: left in its queue), `d` saying why."""
        key = d.key
        self.fresh.pop(key, None)
        cq = self.cluster_queue(key)
        root = self._root(cq)
        if root is not None:
            self.parked.setdefault(root, {})[key] = None
            self._member.setdefault(root, cq)
        self.last[key] = d

    def to_decide(self, dirty: set[str]) -> dict[str, tuple[list[Workload], dict[str, Parked]]]:
        """Per part to decide now (something arrived in it, or quota was released in one of its
        cohort trees, `dirty`): the workloads to try — fresh ones, StrictFIFO queues' and the parked
        ones of dirty trees — and, per other tree of the part, its parked workloads. Fresh ones are
        taken (a decision tries them)."""
        part_of = self.parts.part
        for cq in [cq for cq in self.hashes if f"cq:{cq}" in self.tree.nodes and self.tree.root(f"cq:{cq}") in dirty]:
            del self.hashes[cq]  # queueInadmissibleWorkloads
        active = {part_of(self.cluster_queue(key)) for key in self.fresh}
        active.update(part_of(cq) for cq in self.pending if cq and self.tree.root(f"cq:{cq}") in dirty)
        asked: dict[str, tuple[list[Workload], dict[str, Parked]]] = {}
        if not active:
            return asked

        def ask(part: str) -> tuple[list[Workload], dict[str, Parked]]:
            return asked.setdefault(part, ([], {}))
        for key in self.fresh:
            cq = self.cluster_queue(key)
            ask(part_of(cq))[0].append(self.parts.session(cq).index.workloads[key])
        for cq, keys in self.pending.items():
            if cq and part_of(cq) in active and self._root(cq) is None:
                workloads = self.parts.session(cq).index.workloads
                ask(part_of(cq))[0].extend(workloads[k] for k in keys if k not in self.fresh)
        for root, keys in self.parked.items():
            cq = self._member[root]
            if part_of(cq) not in active:
                continue
            workloads = self.parts.session(cq).index.workloads
            if root in dirty:
                ask(part_of(cq))[0].extend(workloads[k] for k in keys
                                           if not self._stays(workloads[k], self.cluster_queue(k)))
            else:
                ask(part_of(cq))[1][root] = Parked(workloads, keys)
        self.fresh = {}
        return asked
