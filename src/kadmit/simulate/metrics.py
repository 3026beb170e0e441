"""What a replay records over time: step series of usage, queue depth and free nodes, and events."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Series:
    """A step function: `points` are (ms, value) where the value changes."""

    points: list[tuple[int, int]] = field(default_factory=list)

    def set(self, t: int, v: int) -> None:
        if self.points and self.points[-1][1] == v:
            return
        if self.points and self.points[-1][0] == t:
            self.points[-1] = (t, v)
            if len(self.points) > 1 and self.points[-2][1] == v:
                self.points.pop()
            return
        self.points.append((t, v))

    @property
    def last(self) -> int:
        return self.points[-1][1] if self.points else 0

    def integral(self, end: int) -> int:
        """∫ value dt over [0, end] (value·ms)."""
        total = 0
        for (t, v), nxt in zip(self.points, self.points[1:] + [(end, 0)]):
            lo, hi = max(0, t), min(end, nxt[0])
            if hi > lo:
                total += v * (hi - lo)
        return total

    def maximum(self) -> int:
        return max((v for _, v in self.points), default=0)

    def sampled(self, times: list[int]) -> list[int]:
        """The value at each of `times` (ascending)."""
        out, i, v = [], 0, 0
        for t in times:
            while i < len(self.points) and self.points[i][0] <= t:
                v = self.points[i][1]
                i += 1
            out.append(v)
        return out


class Recorder:
    """Fed by the simulator as things change; summarised by `kadmit.simulate.results`."""

    def __init__(self, sim) -> None:
        self.sim = sim
        self.usage: dict[tuple[str, str, str], Series] = {}  # (cq, flavor, resource)
        self.allocated: dict[tuple[str, str], Series] = {}  # (flavor, resource), every queue together
        self.depth: dict[str, Series] = {}  # cq -> pending workloads
        self.running_series = Series()
        self.pending_pod_rows = Series()
        self.evictions: list[tuple[int, str]] = []
        self.added: list[tuple[int, str, list[str]]] = []  # (ms, source, node names)
        self.removed: list[tuple[int, str, list[str]]] = []  # (ms, source, node names): consolidated
        self.whole_free: dict[str, Series] = {}  # flavor (or "" for all nodes) -> nodes with nothing bound
        self.node_alloc: dict[str, Series] = {}  # resource -> allocated on nodes, every holder
        self.whole_gpu: dict[str, Series] = {}  # "8-GPU" -> nodes of that many GPUs with all of them free
        self._keys: dict[str, set] = {}
        self._facts: dict[str, tuple] | None = None
        self._seen: dict[str, tuple] = {}
        self._tot_alloc: dict[str, int] = {}
        self._tot_whole: dict[str, int] = {"": 0}
        self._tot_gpu: dict[str, int] = {}
        self._log_at = 0
        self._primed = False  # every node counted once; after that only the ones that changed
        self._nodes_dirty = True
        self.end = 0

    # --- fed by the simulator ---------------------------------------------------------------------

    def usage_changed(self, cq: str, t: int) -> None:
        row = self.sim.parts.session(cq).usage.data.get(cq, {})
        keys = self._keys.setdefault(cq, set())
        keys.update((cq, fl, res) for fl, res in row)
        for key in keys:
            v = row.get((key[1], key[2]), 0)
            s = self.usage.setdefault(key, Series())
            before = s.last
            if v != before:
                s.set(t, v)
                a = self.allocated.setdefault((key[1], key[2]), Series())
                a.set(t, a.last + v - before)

    def queue_depth(self, cq: str, t: int, delta: int) -> None:
        s = self.depth.setdefault(cq, Series())
        s.set(t, s.last + delta)

    def running(self, t: int, delta: int) -> None:
        self.running_series.set(t, self.running_series.last + delta)

    def pending_pods(self, t: int, delta: int) -> None:
        self.pending_pod_rows.set(t, self.pending_pod_rows.last + delta)

    def evicted(self, cq: str, t: int) -> None:
        self.evictions.append((t, cq))

    def nodes_added(self, t: int, cap) -> None:
        self.added.append((t, cap.source, sorted(n.name for n in cap.nodes)))
        self._nodes_dirty = True

    def nodes_removed(self, t: int, source: str, names: list[str]) -> None:
        self.removed.append((t, source, sorted(names)))
        self._facts = None  # counted again without them
        self._nodes_dirty = True

    def nodes_changed(self) -> None:
        self._nodes_dirty = True

    def sample(self, t: int) -> None:
        """Node-level figures (whole free nodes per flavor and GPU size, allocated per resource) at
        every instant where a node's free capacity changed: only those nodes are counted again."""
        if self._nodes_dirty or self.sim.pool.free.log[self._log_at:]:
            self._nodes_dirty = False
            self._sample_nodes(t)

    def _node_facts(self) -> dict[str, tuple]:
        """Per node, once (again when nodes join): allocatable, its items, its flavors, GPU size key."""
        nodes = self.sim.kube.nodes
        if self._facts is None or len(self._facts) != len(nodes):
            flavors = sorted(self.sim.ix.flavors.values(), key=lambda f: f.name)
            self._facts = {}
            for n in nodes:
                mine = tuple(fl.name for fl in flavors
                             if fl.node_labels and all(n.labels.get(k) == v for k, v in fl.node_labels.items()))
                g = n.allocatable.get("nvidia.com/gpu", 0)
                self._facts[n.name] = (dict(n.allocatable), tuple(n.allocatable.items()), mine, g,
                                       f"{g // 1000}-GPU" if g > 0 else None)
            self._seen = {}
            self._tot_alloc, self._tot_whole, self._tot_gpu = {}, {"": 0}, {}
            for fact in self._facts.values():
                if fact[4] is not None:
                    self._tot_gpu.setdefault(fact[4], 0)
            self._primed = False
        return self._facts

    def _sample_nodes(self, t: int) -> None:
        """Node figures kept as running totals: only nodes whose free capacity changed since the
        last sample (the free-capacity change log) are counted again."""
        sim = self.sim
        if not sim.kube.nodes and not self.removed:
            return  # (after nodes left, the zeros are figures too)
        free = sim.pool.free
        facts = self._node_facts()
        log = free.log
        names = set(log[self._log_at:]) if self._primed else facts
        self._primed = True
        self._log_at = len(log)
        for name in names:
            f = free.get(name)
            if f is None or name not in facts:
                continue  # removed since
            old = self._seen.get(name)
            if old is not None and old[0] is f:
                continue
            allocatable, items, mine, g, gkey = facts[name]
            used = {r: q - f.get(r, 0) for r, q in items if r != "pods"}
            idle = f == allocatable or all(f.get(r, 0) >= q for r, q in items)
            gwhole = gkey is not None and f.get("nvidia.com/gpu", 0) >= g
            if old is not None:
                self._count(old[1], old[2], old[3], mine, gkey, -1)
            self._count(used, idle, gwhole, mine, gkey, +1)
            self._seen[name] = (f, used, idle, gwhole)
        flavors = sorted(f.name for f in sim.ix.flavors.values() if f.node_labels)
        for fl in [""] + flavors:
            self.whole_free.setdefault(fl, Series()).set(t, self._tot_whole.get(fl, 0))
        for r, v in sorted(self._tot_alloc.items()):
            self.node_alloc.setdefault(r, Series()).set(t, v)
        for k, v in sorted(self._tot_gpu.items()):
            self.whole_gpu.setdefault(k, Series()).set(t, v)

    def _count(self, used: dict, idle: bool, gwhole: bool, mine: tuple, gkey: str | None, sign: int) -> None:
        for r, v in used.items():
            self._tot_alloc[r] = self._tot_alloc.get(r, 0) + sign * v
        if idle:
            self._tot_whole[""] += sign
            for fl in mine:
                self._tot_whole[fl] = self._tot_whole.get(fl, 0) + sign
        if gwhole:
            self._tot_gpu[gkey] += sign  # type: ignore[index]

    def close(self, end: int) -> None:
        self.end = end
        self._nodes_dirty = True
        self._sample_nodes(end)
