"""Answers shared among workloads in the same situation: what a nomination reads, as a key.

Kueue's nomination of a pending workload (flavor assignment, the preemption oracle, victims) reads
its cluster queue, the workload's shape, sizes and priority — its creation time only where
`withinClusterQueue: LowerOrNewerEqualPriority` compares it — and the state of its cohort tree: the
usage per cluster queue and which workloads hold quota there. Workloads that agree on all of that get
the same answer, so 15,000 pending workloads of 3 shapes are 3 questions per state of their tree.
Topology-aware placement reads the nodes as well: sessions that place pods share nothing here.
"""

from __future__ import annotations

import weakref
from typing import Callable, TypeVar

from kadmit.engine.quota import node_id
from kadmit.model import ClusterQueue, Workload

V = TypeVar("V")
MAX_ANSWERS = 1_000_000
MAX_LOG = 65_536  # a queue's holder changes kept (`Situations.queue_log`)
_UNSEEN = object()

_FACTS: dict[int, tuple] = {}  # id(workload) -> (a weak reference to it, its pod sets' structure, sizes)
_STRUCTURES: dict[tuple, int] = {}  # pod sets' structure -> its number (equal structures, one number)


def workload_facts(wl: Workload) -> tuple[int, tuple]:
    """What situations and shapes read of the workload object alone: each pod set's structure (name,
    which resources it asks for, selectors, affinity, tolerations, topology), as a number equal
    structures share (hashing model objects such as tolerations is slow), and its sizes (count,
    min_count, requests). Computed once per object and shared by every session that sees it (the
    sessions that re-decide a changed model see mostly the same, immutable, workload objects)."""
    got = _FACTS.get(id(wl))
    if got is not None and got[0]() is wl:
        return got[1], got[2]
    structure = tuple((ps.name, tuple(sorted((r, q > 0) for r, q in ps.requests.items())),
                       tuple(sorted(ps.node_selector.items())), ps.node_affinity, ps.tolerations, ps.topology,
                       None if ps.pod_requests is None else tuple(sorted(ps.pod_requests)))
                      for ps in wl.pod_sets)
    sizes = tuple((ps.count, ps.min_count, tuple(sorted(ps.requests.items()))) for ps in wl.pod_sets)
    number = _STRUCTURES.get(structure)
    if number is None:
        if len(_STRUCTURES) > MAX_ANSWERS:
            _STRUCTURES.clear()  # numbers taken before stay distinct: the next ones start above them
        number = _STRUCTURES[structure] = _next_structure()
    structure = number
    ident = id(wl)
    _FACTS[ident] = (weakref.ref(wl, lambda _, ident=ident: _FACTS.pop(ident, None)), structure, sizes)
    return structure, sizes


_structures = [0]


def _next_structure() -> int:
    _structures[0] += 1
    return _structures[0]


class Stamps(dict):
    """A session's `admitted_cycle` (workload admitted in this run -> its cycle) that counts how often a
    stamp already given changes or goes (`restamps`; a replay in steps stamps its admissions again): the
    preemption candidates kept per queue hold their stamps only while it doesn't move."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.restamps = 0

    def __setitem__(self, key, value) -> None:
        if key in self:
            self.restamps += 1
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:
        self.restamps += 1
        super().__delitem__(key)

    def pop(self, *args):
        self.restamps += 1
        return super().pop(*args)

    def popitem(self):
        self.restamps += 1
        return super().popitem()

    def clear(self) -> None:
        self.restamps += 1
        super().clear()

    def update(self, *args, **kwargs) -> None:
        self.restamps += 1
        super().update(*args, **kwargs)

    def setdefault(self, key, default=None):
        self.restamps += 1
        return super().setdefault(key, default)


class Situations:
    """Per session: situation keys, the cohort trees they read, and the answers kept per key. A key is
    three numbers: what the workload brings (its queue and shape, sizes, priority, creation time where
    read), computed once per workload and session; whether preemption is allowed; the state of its tree
    (which workloads hold quota there, and its usage), numbered once per change of the usage."""

    def __init__(self, session) -> None:
        self.session = session
        self.answers: dict[tuple, object] = {}
        self._epochs: dict[str, int] = {}  # cohort-tree root -> a fresh number when its holders change
        self._epoch = 0
        self.queue_epochs: dict[str, int] = {}  # cluster queue -> a fresh number when its holders change
        # cluster queue -> the keys of its holders that came, went or changed, in order, from the
        # position `queue_log_start` (the log's front is dropped as it grows)
        self.queue_log: dict[str, list[str]] = {}
        self.queue_log_start: dict[str, int] = {}
        self._trees: dict[str, tuple[str, tuple[str, ...]]] = {}  # queue -> (its root, the tree's queues)
        # root -> (usage object, its version, the root's epoch, the number of the tree's state)
        self._usage: dict[str, tuple] = {}
        self._states: dict[tuple, int] = {}  # (root, epoch, the tree's queues' usage) -> its number
        self._static: dict[int, tuple] = {}  # id(workload) -> (it, its queue, key, root, what it brings' number)
        self._statics: dict[tuple, int] = {}  # what a workload brings -> its number
        self._numbers = 0  # numbers are never reused: an answer kept is never read for another situation

    def clear(self) -> None:
        """Forget every answer (quota numbers or solver units changed)."""
        self.answers.clear()

    def holder_changed(self, cq: str, key: str) -> None:
        """The admitted workload `key` of cluster queue `cq` came, went or changed."""
        self._epoch += 1
        self._epochs[self.cohort_tree(cq)[0]] = self.queue_epochs[cq] = self._epoch
        log = self.queue_log.get(cq)
        if log is None:
            log = self.queue_log[cq] = []
        elif len(log) >= MAX_LOG:
            half = len(log) // 2
            del log[:half]
            self.queue_log_start[cq] = self.queue_log_start.get(cq, 0) + half
        log.append(key)

    def cohort_tree(self, cq: str) -> tuple[str, tuple[str, ...]]:
        """The root of the queue's cohort tree and the tree's cluster queues, sorted."""
        got = self._trees.get(cq)
        if got is None:
            tree = self.session.compiler.tree
            nid = node_id(cq, False)
            if nid not in tree.nodes:
                got = self._trees[cq] = (nid, (cq,))
                return got
            root = tree.root(nid)
            queues, todo = [], [root]
            while todo:
                node = tree.nodes[todo.pop()]
                if node.is_cohort:
                    todo.extend(node.children)
                else:
                    queues.append(node.name)
            got = (root, tuple(sorted(queues)))
            for q in got[1]:
                self._trees[q] = got
        return got

    def key(self, wl: Workload, cq: ClusterQueue, preemption: bool) -> tuple | None:
        """What a nomination of `wl` in `cq` reads, or None when it can't be shared."""
        s = self.session
        if s._tas or wl.key in s.last_tried or wl.replaces:  # node state, a search that starts past the first
            return None  # flavor, or a workload slice's (its old slice's flavors: `slices`)
        known = self._static.get(id(wl))
        if known is None or known[0] is not wl or known[1] is not cq:
            created = wl.created if cq.preemption.within_cluster_queue == "LowerOrNewerEqualPriority" else None
            static = (cq.name, s._shape(wl), workload_facts(wl)[1], s.index.priority(wl), created)
            number = self._statics.get(static)
            if number is None:
                number = self._statics[static] = self._number()
            known = self._static[id(wl)] = (wl, cq, wl.key, self.cohort_tree(cq.name)[0], number)
        if known[2] in s.holders:
            return None
        root, number = known[3], known[4]
        usage, epoch = s.usage, self._epochs.get(root, 0)
        state = self._usage.get(root)
        if state is None or state[0] is not usage or state[1] != usage.version or state[2] != epoch:
            data = usage.data
            queues = self.cohort_tree(cq.name)[1]
            now = (root, epoch, tuple(tuple(sorted((fr, v) for fr, v in data[q].items() if v)) if q in data else ()
                                      for q in queues))
            number_now = self._states.get(now)
            if number_now is None:
                if len(self._states) > MAX_ANSWERS:
                    self._states.clear()
                number_now = self._states[now] = self._number()
            state = self._usage[root] = (usage, usage.version, epoch, number_now)
        return (number, preemption, state[3])

    def _number(self) -> int:
        self._numbers += 1
        return self._numbers

    def remember(self, key: tuple, value) -> None:
        if len(self.answers) > MAX_ANSWERS:
            self.answers.clear()
        self.answers[key] = value

    def recall(self, key: tuple):
        """The answer kept for `key`, or `UNSEEN`."""
        return self.answers.get(key, _UNSEEN)

    def shared(self, what: str, wl: Workload, compute: Callable[[], V]) -> V:
        """`compute()` for `wl`, shared with every workload in the same situation: for answers that
        read only what a nomination reads. Callers must not change the value."""
        cq = self.session.index.cluster_queue_of(wl)
        key = self.key(wl, cq, True) if cq is not None else None
        if key is None:
            return compute()
        key = (what,) + key
        got = self.answers.get(key, _UNSEEN)
        if got is _UNSEEN:
            got = compute()
            self.remember(key, got)
        return got  # type: ignore[return-value]


UNSEEN = _UNSEEN
