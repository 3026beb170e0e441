"""Where a model's names are defined and used: every flavor, queue, cohort, priority class,
topology, rule, namespace, node and workload, read from the spans both front ends put on the model
(so `.kad` files and manifests alike), for editors to go from a name to its definition and uses."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property

from kadmit.index import ModelIndex, resolve_level
from kadmit.model import Model
from kadmit.source import Span
from kadmit.validate.rules import rule_names

# What a name names; `level` is a topology level a pod set's request names (its topology's `levels`
# entry is the definition).
KINDS = ("topology", "flavor", "cohort", "cluster_queue", "local_queue", "priority", "namespace", "node",
         "workload", "rule", "level", "admission_check", "provisioning_config", "multikueue_config",
         "multikueue_cluster")
# an AdmissionCheck's parameters and the objects its built-in controllers read, by the `.kad` word
CONFIG_KINDS = {"ProvisioningRequestConfig": "provisioning_config", "MultiKueueConfig": "multikueue_config",
                "MultiKueueCluster": "multikueue_cluster"}


@dataclass(frozen=True)
class Occurrence:
    """One place a name is written: its definition, or a use."""

    kind: str
    name: str  # the object's key: a local queue's and a workload's `namespace/name`; a level's `topology/level`
    span: Span
    definition: bool

    def contains(self, line: int, column: int) -> bool:
        s = self.span
        end_line = s.end_line or s.line
        end_column = s.end_column if s.end_column is not None else s.column + 1
        return (s.line, s.column) <= (line, column) and (line, column) <= (end_line, end_column)


def _size(o: Occurrence) -> tuple[int, int]:
    s = o.span
    return ((s.end_line or s.line) - s.line, (s.end_column or s.column) - s.column)


class Symbols:
    """Every occurrence of a name in a model, found by place and by name."""

    def __init__(self, model: Model, index: ModelIndex | None = None) -> None:
        self.model = model
        self.index = index or ModelIndex(model)
        self.all: list[Occurrence] = []
        self._seen: set[tuple] = set()
        self._collect()
        del self._seen

    def _add(self, kind: str, name: str | None, span: Span | None, definition: bool = False) -> None:
        if name and span is not None and span.line:
            at = (kind, name, tuple(span), definition)
            if at not in self._seen:  # `flavor = h100` of a pod set names it once per resource
                self._seen.add(at)
                self.all.append(Occurrence(kind, name, span, definition))

    def _groups(self, owner) -> None:
        for g in owner.resource_groups:
            for fq in g.flavors:
                self._add("flavor", fq.flavor, fq.spans.get("flavor"))

    def _collect(self) -> None:
        m, add = self.model, self._add
        for t in m.topologies:
            add("topology", t.name, t.spans.get("name"), True)
            for i, level in enumerate(t.levels):
                add("level", f"{t.name}/{level}", t.spans.get(f"levels.{i}"), True)
        for f in m.flavors:
            add("flavor", f.name, f.spans.get("name"), True)
            add("topology", f.topology, f.spans.get("topology"))
        for c in m.cohorts:
            if c.explicit:
                add("cohort", c.name, c.spans.get("name"), True)
            add("cohort", c.parent, c.spans.get("parent"))
            self._groups(c)
        for q in m.cluster_queues:
            add("cluster_queue", q.name, q.spans.get("name"), True)
            add("cohort", q.cohort, q.spans.get("cohort"))
            self._groups(q)
            for r in q.admission_checks:
                add("admission_check", r.name, r.spans.get("name"))
                for i, fl in enumerate(r.on_flavors):
                    add("flavor", fl, r.spans.get(f"on_flavors.{i}"))
        for ac in m.admission_checks:
            add("admission_check", ac.name, ac.spans.get("name"), True)
            p = ac.parameters
            if p is not None and p.kind in CONFIG_KINDS:
                add(CONFIG_KINDS[p.kind], p.name, p.span)
        for c in m.check_configs:
            add(CONFIG_KINDS[c.kind], c.name, c.spans.get("name"), True)
            for i, cluster in enumerate(c.clusters):
                add("multikueue_cluster", cluster, c.spans.get(f"clusters.{i}"))
        for lq in m.local_queues:
            add("local_queue", lq.key, lq.spans.get("name"), True)
            add("cluster_queue", lq.cluster_queue, lq.spans.get("cluster_queue"))
        for p in m.priority_classes:
            add("priority", p.name, p.spans.get("name"), True)
        for ns in m.namespaces:
            add("namespace", ns.name, ns.spans.get("name"), True)
        for n in m.nodes:
            add("node", n.name, n.spans.get("name"), True)
        for w in m.workloads:
            self._workload(w)
        for r in m.rules:
            add("rule", r.name, r.spans.get("name"), True)
            for lit, kind in rule_names(r, self.index):
                add(kind, str(lit.value), lit.span)

    def _workload(self, w) -> None:
        add = self._add
        add("workload", w.key, w.spans.get("name"), True)
        add("local_queue", f"{w.namespace}/{w.queue}", w.spans.get("queue"))
        add("priority", w.priority_class, w.spans.get("priority_class"))
        for st in w.check_states:
            add("admission_check", st.name, st.span if w.spans.get(f"check_states.{st.name}") else None)
        topology = self.topology_of(w)
        for ps in w.pod_sets:
            if ps.topology is not None and ps.topology.level and topology is not None:
                level = resolve_level(topology, ps.topology.level)
                if level is not None:
                    add("level", f"{topology.name}/{level}", ps.topology.spans.get("level"))
        if w.admission is not None:
            add("cluster_queue", w.admission.cluster_queue, w.admission.spans.get("cluster_queue"))
            for psa in w.admission.pod_sets:
                for res, flavor in psa.flavors.items():
                    add("flavor", flavor, psa.spans.get(f"flavors.{res}"))

    def topology_of(self, w):
        """The topology of the flavors of the queue `w` is routed to (the first flavor with one)."""
        cq = self.index.cluster_queue_of(w)
        for g in cq.resource_groups if cq is not None else ():
            for fq in g.flavors:
                f = self.index.flavors.get(fq.flavor)
                if f is not None and f.topology is not None and f.topology in self.index.topologies:
                    return self.index.topologies[f.topology]
        return None

    @cached_property
    def _by_file(self) -> dict[str, tuple[list[tuple[int, int]], list[Occurrence]]]:
        out: dict[str, list[Occurrence]] = {}
        for o in self.all:
            out.setdefault(o.span.file, []).append(o)
        return {f: ([(o.span.line, o.span.column) for o in occ], occ)
                for f, occ in ((f, sorted(v, key=lambda o: (o.span.line, o.span.column))) for f, v in out.items())}

    @cached_property
    def _by_name(self) -> dict[tuple[str, str], list[Occurrence]]:
        out: dict[tuple[str, str], list[Occurrence]] = {}
        for o in self.all:
            out.setdefault((o.kind, o.name), []).append(o)
        return out

    def at(self, file: str, line: int, column: int) -> Occurrence | None:
        """The name written at 1-based `line`, `column` of `file` (the innermost, where spans nest)."""
        starts, occ = self._by_file.get(file, ([], []))
        lo, hi = bisect_left(starts, (line, 0)), bisect_right(starts, (line, column))
        found = [o for o in occ[lo:hi] if o.contains(line, column)]  # names are written on one line
        return min(found, key=_size) if found else None

    def definitions(self, kind: str, name: str) -> list[Occurrence]:
        return [o for o in self._by_name.get((kind, name), []) if o.definition]

    def references(self, kind: str, name: str) -> list[Occurrence]:
        """Every use of the name (definitions not included), in file order."""
        return sorted((o for o in self._by_name.get((kind, name), []) if not o.definition),
                      key=lambda o: o.span.key())

    def names(self, kind: str) -> list[str]:
        """Every name of `kind` defined or used, sorted."""
        return sorted({name for k, name in self._by_name if k == kind})
