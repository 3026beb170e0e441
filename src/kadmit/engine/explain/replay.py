"""Deciding again after a change: what every workload ends with, re-decided only in the independent
parts of the cluster the change touches.

Independence (why re-deciding a part is the same as re-deciding all): in `ordered` mode a workload
interacts with another only through quota (shared within one cohort tree), preemption (within one
cohort tree) and node capacity (taken only by pod sets on flavors with a topology). So cluster queues
are joined when they share a cohort tree, when a workload's local queue and its admission name two
of them, and all queues with a topology flavor are joined into one part (with the queue of every
workload admitted with pods on nodes, which the part's placements see). Decisions of a part depend
only on its own objects and on the model-wide ones (flavors, topologies, priority classes, nodes,
pods, rules, the scheduler's configuration); a change to a model-wide object re-decides everything.
Jobs as submitted are read into workloads only: a job's edit (a priority-class label) touches the
parts of the workloads it changes.
Both the old and the new model's joins are taken together, so a change that moves a queue to another
cohort re-decides both trees. `tests/engine/test_fixes_proven.py` checks the equivalence on generated
clusters.

Cost: a re-decision reads what the edit changed (`validate.incremental.changes`: unchanged objects are
the very objects of the base model, at their places), decides the touched parts, and computes the
states of their workloads only: every other workload's state and decision is the base's, seen
through an `Overlay` rather than copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Mapping

from kadmit.engine.admission.checks import mark_checks
from kadmit.engine.admission.ordered import Decision, decide_ordered
from kadmit.engine.admission.session import Session
from kadmit.engine.admission.shapes import ShapeCache
from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Model, Workload
from kadmit.placement.tas import Profile
from kadmit.scope import holds_nodes
from kadmit.validate.incremental import Changes, changes


@dataclass(frozen=True)
class State:
    """What a workload ends a run with."""

    admitted: bool
    cluster_queue: str | None = None
    pod_sets: tuple[tuple[str, int, tuple[tuple[str, str], ...]], ...] = ()  # name, count, (resource, flavor)
    nodes: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()  # pod set, (node, pods)
    preempted_by: str | None = None
    unknown: bool = False
    # quota reserved (`admitted`) in a queue with admission checks not all Ready: Kueue's Admitted waits for these
    waiting: tuple[str, ...] = ()

    @property
    def pods(self) -> int:
        return sum(c for _, c, _ in self.pod_sets)

    def flavors(self) -> set[str]:
        return {f for _, _, fl in self.pod_sets for _, f in fl}

    def describe(self, nodes: bool = False) -> str:
        """The state in words; with `nodes`, each pod set's nodes too (for moves between nodes alone)."""
        if self.unknown:
            return "undecided (solver limit)"
        if not self.admitted:
            return f"evicted by {self.preempted_by}" if self.preempted_by else "pending"
        on = {p: sorted(n for n, _ in ns) for p, ns in self.nodes} if nodes else {}
        sets = "; ".join(f"{name}: {plural(count, 'pod')} on {', '.join(sorted({f for _, f in fl})) or 'no flavor'}"
                         + (f", nodes {', '.join(on[name])}" if on.get(name) else "")
                         for name, count, fl in self.pod_sets)
        again = f", after being evicted by {self.preempted_by}" if self.preempted_by else ""
        if self.waiting:
            return f"quota reserved in {self.cluster_queue} ({sets}){again}, waiting for {checks(self.waiting)}"
        return f"admitted to {self.cluster_queue} ({sets}){again}"

    def as_dict(self) -> dict:
        out = {"admitted": self.admitted and not self.waiting, "cluster_queue": self.cluster_queue,
               "pod_sets": [{"name": n, "count": c, "flavors": dict(fl),
                             **({"nodes": dict(next((ns for p, ns in self.nodes if p == n), ()))}
                                if any(p == n for p, _ in self.nodes) else {})}
                            for n, c, fl in self.pod_sets]}
        # as admit's JSON: Admitted once every admission check is Ready; until then quota reserved
        return {**out, "quota_reserved": True, "waiting_for": list(self.waiting)} if self.waiting else out


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def checks(names: tuple[str, ...]) -> str:
    """`admission check `a`` or `admission checks `a`, `b``."""
    return f"admission check{'s' if len(names) > 1 else ''} " + ", ".join(f"`{n}`" for n in names)


# what a person minds: losing an admission, an eviction, fewer pods; a workload admitted in the run on
# another flavor or other nodes is a side effect, not a harm (Kueue never moves a running workload)
HARMFUL = ("admitted → evicted", "admitted → pending", "pending → admitted, then evicted", "with fewer pods",
           "evicted, then admitted again", "changed", "undecided")
SAME_OUTCOME = "evicted by another preemptor"  # evicted either way: no change a person sees


@dataclass(frozen=True)
class Effect:
    """How a change moves another workload: its state before and after."""

    workload: str
    before: State
    after: State

    @property
    def kind(self) -> str:
        """The change as before → after states a person recognises: pending, admitted, evicted (by a
        preemptor, pending again), or admitted differently (fewer or more pods, moved to another queue or
        flavor, other nodes)."""
        b, a = self.before, self.after
        if b.unknown or a.unknown:
            return "undecided"
        if b.admitted and not a.admitted:
            return "admitted → evicted" if a.preempted_by else "admitted → pending"
        if not b.admitted and a.admitted:
            return "evicted → admitted" if b.preempted_by and not a.preempted_by else "pending → admitted"
        if not b.admitted:
            if a.preempted_by and not b.preempted_by:
                return "pending → admitted, then evicted"
            if b.preempted_by and not a.preempted_by:
                return "evicted → pending"  # it is not admitted at all any more: no eviction either
            return "evicted by another preemptor"  # evicted either way, by another preemptor
        if a.pods < b.pods:
            return "with fewer pods"
        if a.cluster_queue != b.cluster_queue or a.flavors() != b.flavors():
            return "moved to another queue or flavor"
        if a.pods > b.pods:
            return "with more pods"
        if a.nodes != b.nodes:
            return "on other nodes"
        if a.preempted_by and not b.preempted_by:
            return "evicted, then admitted again"
        if b.preempted_by and not a.preempted_by:
            return "no longer evicted"
        return "evicted by another preemptor" if a.preempted_by and b.preempted_by else "changed"

    @property
    def harmful(self) -> bool:
        return self.kind in HARMFUL

    @property
    def nodes_only(self) -> bool:
        """Admitted before and after to the same queue, flavors and counts: only its nodes differ."""
        b, a = self.before, self.after
        return (b.admitted and a.admitted and a.cluster_queue == b.cluster_queue and a.pod_sets == b.pod_sets
                and a.nodes != b.nodes)

    def as_dict(self) -> dict:
        return {"workload": self.workload, "kind": self.kind, "before": self.before.describe(self.nodes_only),
                "after": self.after.describe(self.nodes_only)}


def state_of(d: Decision | None, wl: Workload, evicted_by: str | None = None) -> State:
    """A decision's outcome, or (no decision) the workload as the input has it; `evicted_by`: the
    preemptor that evicted it during the run, if any (a victim may be admitted again later)."""
    if d is None:
        if wl.admitted and wl.admission is not None:
            return State(True, wl.admission.cluster_queue, tuple(
                (p.name, p.count, tuple(sorted(p.flavors.items()))) for p in wl.admission.pod_sets),
                tuple((p.name, tuple(sorted(p.placement.items()))) for p in wl.admission.pod_sets if p.placement))
        return State(False)
    if d.unknown:
        return State(False, d.cluster_queue, unknown=True)
    if not d.admitted or d.assignment is None:
        return State(False, d.cluster_queue, preempted_by=d.preempted_by)
    a = d.assignment
    nodes = ()
    if a.placement is not None:
        # by Kueue's values (hostnames, racks), as an admitted workload's input placement names them
        nodes = tuple(sorted((p.request.pod_set, tuple(sorted(p.assignment.items()))) for p in a.placement.pod_sets))
    return State(True, a.cluster_queue, tuple(sorted(
        (ps, a.counts.get(ps, 0), tuple(sorted(fl.items()))) for ps, fl in a.flavors.items())), nodes,
        preempted_by=evicted_by, waiting=d.waiting_checks)


def states(model: Model, decisions: Mapping[str, Decision], keys: list[str] | None = None) -> dict[str, State]:
    """Every unfinished workload's state after a run (`keys`: the workloads' keys, if known)."""
    by: dict[str, str] = {}
    for d in sorted((d for d in decisions.values() if d.preempted), key=lambda d: (d.cycle, d.key)):
        for v in d.preempted:
            by[v.key] = d.key
    keys = keys if keys is not None else [w.key for w in model.workloads]
    return {k: state_of(decisions.get(k), w, by.get(k)) for k, w in zip(keys, model.workloads) if not w.finished}


# --- parts -------------------------------------------------------------------------------------

class _Parts:
    def __init__(self) -> None:
        self.up: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.up.setdefault(x, x)
        while self.up[x] != x:
            self.up[x] = self.up[self.up[x]]
            x = self.up[x]
        return x

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.up[max(ra, rb)] = min(ra, rb)


TAS = "tas:"  # the part every queue with a topology flavor joins


def _cohort_root(model: Model, cohort: str) -> str:
    parents = {c.name: c.parent for c in model.cohorts}
    seen = {cohort}
    while parents.get(cohort):
        cohort = parents[cohort] or cohort
        if cohort in seen:
            break
        seen.add(cohort)
    return cohort


def queue_of(model: Model, wl: Workload, lqs: dict[str, str]) -> list[str]:
    """The cluster queues a workload takes part in: its local queue's and its admission's."""
    out = []
    if f"{wl.namespace}/{wl.queue}" in lqs:
        out.append(lqs[f"{wl.namespace}/{wl.queue}"])
    if wl.admission is not None:
        out.append(wl.admission.cluster_queue)
    return out


def _join_model(parts: _Parts, model: Model) -> None:
    topo = {f.name for f in model.flavors if f.topology}
    for cq in model.cluster_queues:
        parts.find(f"cq:{cq.name}")
        if cq.cohort:
            parts.join(f"cq:{cq.name}", f"co:{_cohort_root(model, cq.cohort)}")
        if any(fq.flavor in topo for g in cq.resource_groups for fq in g.flavors):
            parts.join(f"cq:{cq.name}", TAS)
    for co in model.cohorts:
        parts.join(f"co:{co.name}", f"co:{_cohort_root(model, co.name)}")
    lqs = {lq.key: lq.cluster_queue for lq in model.local_queues}
    for wl in model.workloads:
        qs = queue_of(model, wl, lqs)
        for a, b in zip(qs, qs[1:]):
            parts.join(f"cq:{a}", f"cq:{b}")
        if topo and wl.admission is not None and holds_nodes(wl):  # its nodes are the placing part's
            parts.join(f"cq:{wl.admission.cluster_queue}", TAS)


GLOBAL_KINDS = ("flavors", "topologies", "priority_classes", "nodes", "pods", "rules", "scheduler_configs")
# read into workloads and never by the engine (`Session` leaves them out of its policy): a change to a
# job is the change to its workloads, which names the parts it touches
WORKLOAD_SOURCES = ("jobs",)


def changed_objects(old: Model, new: Model, ch: Changes | None = None) -> dict[str, list]:
    """Per model collection, the objects in one model and not the other (old and new versions)
    that differ (an object read again, equal to the old one, is not a change). `ch`: the changes
    of `new` from `old`, if known."""
    ch = ch if ch is not None else changes(old, new)
    out: dict[str, list] = {}
    for name in sorted(ch.names):
        only_a = {_key(x): x for x in ch.removed.get(name, ())}
        only_b = {_key(x): x for x in ch.added.get(name, ())}
        diff = [x for k, x in only_a.items() if only_b.get(k) != x]
        diff += [x for k, x in only_b.items() if only_a.get(k) != x]
        if diff:
            out[name] = diff
    return out


def _key(x) -> str:
    return str(getattr(x, "key", None) or getattr(x, "name", None) or repr(x))


def touched_keys(old: Model, new: Model, ch: Changes | None = None) -> set[str] | None:
    """The part keys (`cq:`/`co:` names) a change touches, or None when it touches everything."""
    changed = changed_objects(old, new, ch)
    if any(k in changed for k in GLOBAL_KINDS):
        return None
    if set(changed) - {"cluster_queues", "cohorts", "local_queues", "workloads", "namespaces", *WORKLOAD_SOURCES}:
        return None
    keys: set[str] = set()
    for cq in changed.get("cluster_queues", []):
        keys.add(f"cq:{cq.name}")
    for co in changed.get("cohorts", []):
        keys.add(f"co:{co.name}")
    for m in (old, new):
        lqs = {lq.key: lq.cluster_queue for lq in m.local_queues}
        for lq in changed.get("local_queues", []):
            keys.add(f"cq:{lq.cluster_queue}")
            if lq.key in lqs:
                keys.add(f"cq:{lqs[lq.key]}")
        for wl in changed.get("workloads", []):
            keys |= {f"cq:{q}" for q in queue_of(m, wl, lqs)}
        if any(not queue_of(m, wl, lqs) for wl in changed.get("workloads", [])):
            return None  # a workload in no part (no queue): its state is not any part's to give
        names = {ns.name for ns in changed.get("namespaces", [])}
        if names:
            for wl in m.workloads:
                if wl.namespace in names:
                    keys |= {f"cq:{q}" for q in queue_of(m, wl, lqs)}
    return keys


def restrict(model: Model, roots: set[str], parts: _Parts) -> Model:
    """The model with only the queues, cohorts, local queues and workloads of the given parts."""
    cqs = tuple(cq for cq in model.cluster_queues if parts.find(f"cq:{cq.name}") in roots)
    names = {cq.name for cq in cqs}
    cohorts = tuple(co for co in model.cohorts if parts.find(f"co:{co.name}") in roots)
    lqs = tuple(lq for lq in model.local_queues if lq.cluster_queue in names)
    lq_map = {lq.key: lq.cluster_queue for lq in model.local_queues}
    wls = tuple(w for w in model.workloads if any(q in names for q in queue_of(model, w, lq_map)))
    return model.model_copy(update={"cluster_queues": cqs, "cohorts": cohorts, "local_queues": lqs,
                                    "workloads": wls})


_COLLECTIONS = ("cluster_queues", "cohorts", "local_queues", "workloads")


def _joins_of(name: str, x) -> tuple:
    """What `_join_model` and `restrict` read of one object of a collection: an object whose
    signature is unchanged joins the same parts and belongs to the same part."""
    if name == "cluster_queues":
        return (x.name, x.cohort, tuple(fq.flavor for g in x.resource_groups for fq in g.flavors))
    if name == "cohorts":
        return (x.name, x.parent)
    if name == "local_queues":
        return (x.key, x.cluster_queue)
    if name == "workloads":
        return (x.key, x.namespace, x.queue, x.admission.cluster_queue if x.admission is not None else None,
                holds_nodes(x))
    return ()


@dataclass
class Baseline:
    """A decided model: its decisions and what every workload ended with. The parts of its model
    and each set of parts' members are computed once and reused by every `decide_again`."""

    model: Model
    decisions: dict[str, Decision]
    states: dict[str, State] = field(default_factory=dict)
    _parts: _Parts | None = field(default=None, repr=False)
    _members: dict = field(default_factory=dict, repr=False)  # frozenset(roots) -> {collection: indices}
    # compiled shapes and solver answers shared by the re-decisions (a quota edit compiles nothing new)
    shapes: ShapeCache = field(default_factory=ShapeCache, repr=False)

    def __post_init__(self) -> None:
        if not self.states:
            self.states = states(self.model, self.decisions)

    @property
    def parts(self) -> _Parts:
        if self._parts is None:
            self._parts = _Parts()
            _join_model(self._parts, self.model)
        return self._parts

    def members(self, roots: set[str]) -> dict[str, list[int]]:
        """Per collection, the positions in the model of the objects `restrict` keeps for `roots`."""
        key = frozenset(roots)
        got = self._members.get(key)
        if got is None:
            sub = restrict(self.model, set(roots), self.parts)
            got = {}
            for name in _COLLECTIONS:
                kept = {id(x) for x in getattr(sub, name)}
                got[name] = [i for i, x in enumerate(getattr(self.model, name)) if id(x) in kept]
            self._members[key] = got
        return got


def same_joins(old: Model, new: Model, ch: Changes | None = None) -> bool:
    """Whether `new` joins the same parts as `old` and keeps each object at its place: the same
    number of objects per collection, and every object that differs (not the same object) has the
    same join signature (`_joins_of`) as the one at its place in `old`. Then `old`'s parts are
    `new`'s, and restricting `new` takes the objects at the places restricting `old` takes."""
    ch = ch if ch is not None else changes(old, new)
    for name in _COLLECTIONS:
        if name not in ch.names:
            continue
        if name not in ch.positional:
            return False
        for x, y in zip(ch.removed[name], ch.added[name]):  # place by place
            if _joins_of(name, x) != _joins_of(name, y):
                return False
    return True


_HIDDEN = object()


class Overlay(Mapping):
    """A mapping that is `base` with the keys `hidden` left out and `own`'s entries over it: a
    re-decision's states or decisions, the untouched parts' seen through from the base run
    without a copy (so a re-decision costs its parts, not the cluster): an untouched workload's
    state is the base's very object. Setting a key sets an entry of its own."""

    def __init__(self, base: Mapping, own: dict, hidden: set) -> None:
        self.base, self.own, self.hidden = base, own, hidden

    def __getitem__(self, key):
        got = self.own.get(key, _HIDDEN)
        if got is not _HIDDEN:
            return got
        if key in self.hidden:
            raise KeyError(key)
        return self.base[key]

    def __setitem__(self, key, value) -> None:
        """An entry of its own (a prover completing its baseline puts the rest's states in)."""
        self.own[key] = value

    def __iter__(self) -> Iterator:
        own, hidden = self.own, self.hidden
        yield from (k for k in self.base if k not in hidden and k not in own)
        yield from own

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass
class Replay:
    """One change decided again: every workload's state afterwards, and how much was re-decided."""

    states: Mapping[str, State]
    decisions: Mapping[str, Decision]
    redecided: int  # workloads decided again
    whole: bool  # the whole cluster was decided again
    session: Session | None = None  # the session that decided the re-decided part, as the run left it


def _decided(session: Session) -> dict[str, Decision]:
    """The session's ordered decisions, each that reserves quota in a queue with admission checks with
    their states (as `engine.decide` marks the run's): a fix there gives quota, and Kueue admits later."""
    decided = list(decide_ordered(session))
    mark_checks(session.index, decided)
    return {d.key: d for d in decided}


def decide_again(base: Baseline, new: Model, limits: Limits | None = None,
                 tas_profile: Profile = "Mixed", incremental: bool = True) -> Replay:
    """Decide `new` (the base model after a change) in `ordered` mode: only the parts the change
    touches, the others' decisions kept from `base` (see the module docstring)."""
    ch = changes(base.model, new) if incremental else None
    keys = touched_keys(base.model, new, ch) if incremental else None
    if keys is not None:
        if same_joins(base.model, new, ch):  # the base's parts stand: reuse them and their members
            parts = base.parts
            roots = {parts.find(k) for k in keys}
            at = base.members(roots)
            sub = new.model_copy(update={name: tuple(getattr(new, name)[i] for i in at[name])
                                         for name in _COLLECTIONS})
            session = Session(sub, limits, tas_profile, base.shapes)
            decided = _decided(session)
            # same_joins: the same key at every place, so the re-decided keys are the same in the
            # base; outside them nothing changed and the base's states and decisions stand
            keys = [w.key for w in sub.workloads]
            redo = set(keys)
            own = states(sub, decided, keys)  # every unfinished re-decided workload's
            return Replay(Overlay(base.states, own, redo), Overlay(base.decisions, decided, redo),
                          len(sub.workloads), False, session)
        parts = _Parts()  # the change joins other parts: both models' joins together
        _join_model(parts, base.model)
        _join_model(parts, new)
        roots = {parts.find(k) for k in keys}
        sub = restrict(new, roots, parts)
        redo = {w.key for w in sub.workloads} | {w.key for w in restrict(base.model, roots, parts).workloads}
        session = Session(sub, limits, tas_profile, base.shapes)
        decided = _decided(session)
        decisions = {k: d for k, d in base.decisions.items() if k not in redo} | decided
        # outside the re-decided parts nothing changed: the run's states stand
        mine = states(sub, decided)
        out: dict[str, State] = {}
        for w in new.workloads:
            k = w.key
            if w.finished:
                continue
            if k in redo:
                out[k] = mine.get(k, State(False))
            elif k in base.states:
                out[k] = base.states[k]
        return Replay(out, decisions, len(sub.workloads), False, session)
    session = Session(new, limits, tas_profile, base.shapes)
    decisions = _decided(session)
    return Replay(states(new, decisions), decisions, len(new.workloads), True, session)


def effects(before: Mapping[str, State], after: Mapping[str, State], target: str) -> list[Effect]:
    """Every other workload whose state changed, sorted harmful first, then by name. A workload the
    change itself marks finished is the change, not a side effect."""
    # an overlay on `before` differs from it only in its own entries
    keys = after.own if isinstance(after, Overlay) and after.base is before else after
    out = [Effect(k, before.get(k, State(False)), after[k])
           for k in sorted(keys) if k != target and before.get(k, State(False)) != after[k]]
    return sorted(out, key=lambda e: (not e.harmful, e.workload))
