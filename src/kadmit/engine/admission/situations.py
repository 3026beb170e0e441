"""Answers shared among workloads in the same situation: what a nomination reads, as a key.

Kueue's nomination of a pending workload (flavor assignment, the preemption oracle, victims) reads
its cluster queue, the workload's shape, sizes and priority — its creation time only where
`withinClusterQueue: LowerOrNewerEqualPriority` compares it — and the state of its cohort tree: the
usage per cluster queue and which workloads hold quota there. Workloads that agree on all of that get
the same answer, so 15,000 pending workloads of 3 shapes are 3 questions per state of their tree.
Topology-aware placement reads the nodes as well: sessions that place pods share nothing here.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from kadmit.engine.quota import node_id
from kadmit.model import ClusterQueue, Workload

V = TypeVar("V")
MAX_ANSWERS = 1_000_000
_UNSEEN = object()


class Situations:
    """Per session: situation keys, the cohort trees they read, and the answers kept per key."""

    def __init__(self, session) -> None:
        self.session = session
        self.answers: dict[tuple, object] = {}
        self._epochs: dict[str, int] = {}  # cohort-tree root -> a fresh number when its holders change
        self._epoch = 0
        self._trees: dict[str, tuple[str, tuple[str, ...]]] = {}  # queue -> (its root, the tree's queues)
        self._usage: dict[str, tuple] = {}  # root -> (usage object, its version, the tree's queues' usage)

    def clear(self) -> None:
        """Forget every answer (quota numbers or solver units changed)."""
        self.answers.clear()

    def holders_changed(self, *queues: str) -> None:
        """Admitted workloads of these cluster queues came or went."""
        for cq in queues:
            self._epoch += 1
            self._epochs[self.cohort_tree(cq)[0]] = self._epoch

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
        if s._tas or wl.key in s.holders:
            return None
        root, queues = self.cohort_tree(cq.name)
        known = self._usage.get(root)
        if known is not None and known[0] is s.usage and known[1] == s.usage.version:
            usage = known[2]
        else:
            data = s.usage.data
            usage = tuple(tuple(sorted((fr, v) for fr, v in data[q].items() if v)) if q in data else ()
                          for q in queues)
            self._usage[root] = (s.usage, s.usage.version, usage)
        sizes = tuple((ps.count, ps.min_count, tuple(sorted(ps.requests.items()))) for ps in wl.pod_sets)
        created = wl.created if cq.preemption.within_cluster_queue == "LowerOrNewerEqualPriority" else None
        return (cq.name, s._shape(wl), sizes, s.index.priority(wl), created, preemption,
                self._epochs.get(root, 0), usage)

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
