"""What one workload's answer depends on: its cohort tree, and whether the input's errors touch it.

Kueue decides each cohort tree on its own, so an error in another tree (a broken cluster queue, a
workload with a bad quantity) can't change the answer for a workload: `why` answers on the model
without the broken objects of other trees. Errors that Kueue itself turns into a state of the cluster
queue (a missing flavor or topology: the queue is inactive) are the engine's to explain.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from math import inf

from kadmit.diagnostics import SERVER_WORDS, Diagnostic, Severity
from kadmit.identity import repeat_name
from kadmit.index import ModelIndex
from kadmit.model import Fragment, Model, ObjectRef, Skipped, Workload

KUEUE_STATES = {"KAD200", "KAD205"}  # FlavorNotFound, TopologyNotFound: the cluster queue is inactive
# Errors about an object refused on its own (Kueue's webhook, KAD170; the API server, for a version it
# does not serve, KAD171; a job whose priority class is missing, whose Workload Kueue never creates,
# KAD172): it is no work (listed as skipped) and nothing else depends on it; Kueue decides the rest.
REFUSED_ALONE = frozenset({"KAD170", "KAD171", "KAD172"})
# Errors of an object the API server refuses (`kubectl apply`, `_blocking`): an unknown field (strict field
# validation), a value of a wrong type, a bad quantity or timestamp (it can't decode it), a value it refuses (its
# validation, its LimitRanger), a name, label or annotation it refuses
SERVER_REFUSED = frozenset({"KAD180", "KAD156", "KAD158", "KAD163", "KAD157", "KAD195", "KAD196", "KAD197"})
# Kinds refused alone for such an error: never created, so what reads them reads nothing (a Pod holds no node, a
# training runtime is no TrainJob's: `trainjob.with_runtime`; a job naming a PriorityClass so refused gets no
# Workload, KAD172; a LimitRange or a RuntimeClass adds nothing to a pod set), and Kueue decides the rest (the
# oracle skips each with the server's words; kadmit lists each, `decidable`)
REFUSED_KINDS = frozenset({"Pod", "TrainingRuntime", "ClusterTrainingRuntime", "Workload", "PriorityClass",
                           "LimitRange", "RuntimeClass", "Namespace", "Node"})


def blocks(d: Diagnostic) -> bool:
    """Whether error `d` stands between the input and an answer (or a part of it)."""
    return d.severity is Severity.ERROR and d.code not in REFUSED_ALONE


def blocking(model: Model, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The errors of `diagnostics` that stand between `model` and an answer (`_blocking`)."""
    if not any(blocks(d) for d in diagnostics):
        return []
    objects = [(field, TREE_KINDS.get(field), o) for field in (*TREE_KINDS, *OTHER_KINDS)
               for o in getattr(model, field)]
    objects += [("broken", b.kind, b) for b in model.broken]
    return [d for d, _ in _blocking(diagnostics, Owners(objects))]


def _blocking(diagnostics: list[Diagnostic], holding: "Owners") -> list[tuple[Diagnostic, list[tuple]]]:
    """The errors that stand between the input and an answer, each with the objects holding it: not
    a refusal (KAD170), nor another error inside only objects refused (a job whose label the API
    server would refuse as well: Kubernetes never creates it, whatever else is wrong with it)."""
    refused = {id(o) for d in diagnostics if d.code in REFUSED_ALONE for _, _, o in holding.of(d.span)}
    refused |= set(server_refused(diagnostics, holding))
    out = []
    for d in diagnostics:
        if not blocks(d):
            continue
        owners = holding.of(d.span)
        if owners and all(id(o) in refused for _, _, o in owners):
            continue
        out.append((d, owners))
    return out
def server_refused(diagnostics: list[Diagnostic], holding: "Owners", *, work: bool = False
                   ) -> dict[int, tuple[ObjectRef, list[Diagnostic]]]:
    """The objects of `REFUSED_KINDS` left out for an error the API server refuses them for (`SERVER_REFUSED`),
    by id, each with those errors; `work`: of the jobs and Workloads left out (`_is_work`) instead."""
    out: dict[int, tuple[ObjectRef, list[Diagnostic]]] = {}
    for d in diagnostics:
        if d.code in SERVER_REFUSED:
            for field, kind, o in holding.of(d.span):
                if field == "broken" and (_is_work(o) if work else kind in REFUSED_KINDS):
                    out.setdefault(id(o), (o, []))[1].append(d)
    return out


# Kinds of another tree that can be left out of a question; an error anywhere else (nodes, pods,
# priority classes, rules, the configuration) may change any answer.
TREE_KINDS = {"cluster_queues": "ClusterQueue", "cohorts": "Cohort", "local_queues": "LocalQueue",
              "workloads": "Workload", "flavors": "ResourceFlavor", "topologies": "Topology"}
OTHER_KINDS = ("priority_classes", "namespaces", "nodes", "pods", "rules", "scheduler_configs", "jobs", "gangs")


def _key(field: str, obj) -> str:
    return obj.key if field in ("local_queues", "workloads") else obj.name


def tree_of(index: ModelIndex, key: str) -> dict[str, set[str]]:
    """Kind -> keys of the objects workload `key`'s answer depends on, by Kubernetes kind."""
    model = index.model
    wl = index.workloads[key]
    lq_key = f"{wl.namespace}/{wl.queue}"
    lq = index.local_queues.get(lq_key)
    cq_name = lq.cluster_queue if lq is not None else None
    cq = index.cluster_queues.get(cq_name) if cq_name else None
    root_of = {}

    def root(cohort: str | None) -> str | None:
        if not cohort:
            return None
        if cohort not in root_of:
            path = index.cohort_path(cohort)
            root_of[cohort] = path[-1] if path else cohort
        return root_of[cohort]

    mine = root(cq.cohort) if cq is not None else None
    cqs = {c.name for c in model.cluster_queues if (mine is not None and root(c.cohort) == mine)}
    cqs |= {cq_name} if cq_name else set()
    cohorts = {c for c in index.cohorts if mine is not None and root(c) == mine}
    lqs = {q.key for q in model.local_queues if q.cluster_queue in cqs} | {lq_key}
    wls = {w.key for w in model.workloads if f"{w.namespace}/{w.queue}" in lqs
           or (w.admission is not None and w.admission.cluster_queue in cqs)} | {key}
    flavors = {fq.flavor for owner in [*model.cluster_queues, *model.cohorts]
               if (owner.name in cqs if owner in model.cluster_queues else owner.name in cohorts)
               for g in owner.resource_groups for fq in g.flavors}
    flavors |= {f for w in model.workloads if w.key in wls and w.admission is not None
                for psa in w.admission.pod_sets for f in psa.flavors.values()}
    topologies = {f.topology for f in model.flavors if f.name in flavors and f.topology}
    return {"ClusterQueue": cqs, "Cohort": cohorts, "LocalQueue": lqs, "Workload": wls,
            "ResourceFlavor": flavors, "Topology": topologies}


def _inside(inner, outer) -> bool:
    if inner is None or outer is None or inner.file != outer.file:
        return False
    end = (outer.end_line or outer.line, outer.end_column or 10**9)
    return (outer.line, outer.column) <= (inner.line, inner.column) <= end


def _end(span) -> tuple[int, int]:
    return (span.end_line or span.line, span.end_column or 10**9)


class Owners:
    """The objects whose span holds a diagnostic's position, found without a walk over every object
    per diagnostic: per file, the objects sorted by where they start, with the furthest end any of
    the first i reaches, so a lookup walks back from the position only while an object may still
    hold it (objects hardly nest, so that is the few that do)."""

    def __init__(self, objects: list[tuple]) -> None:
        self.objects = objects
        by_file: dict[str, list[tuple[tuple[int, int], int]]] = {}
        for i, item in enumerate(objects):
            span = item[2].span
            if span is not None:
                by_file.setdefault(span.file, []).append(((span.line, span.column), i))
        self._files: dict[str, tuple[list[tuple[int, int]], list[int], list[tuple[int, int]]]] = {}
        for file, entries in by_file.items():
            entries.sort()
            reach: list[tuple[int, int]] = []
            far = (0, 0)
            for _, i in entries:
                far = max(far, _end(objects[i][2].span))
                reach.append(far)
            self._files[file] = ([start for start, _ in entries], [i for _, i in entries], reach)

    def of(self, span) -> list[tuple]:
        """The objects holding `span`'s start, in the order they were given."""
        got = self._files.get(span.file) if span is not None else None
        if got is None:
            return []
        starts, order, reach = got
        at = (span.line, span.column)
        found = []
        j = bisect_right(starts, at) - 1
        while j >= 0 and reach[j] >= at:
            i = order[j]
            if _inside(span, self.objects[i][2].span):
                found.append(i)
            j -= 1
        return [self.objects[i] for i in sorted(found)]


def holds_nodes(w: Workload) -> bool:
    """Whether an admitted workload's pods hold nodes (a topology assignment), which every tree
    placing pods on those nodes sees."""
    return w.admission is not None and not w.finished and any(p.placement for p in w.admission.pod_sets)


def untouched_model(model: Model, diagnostics: list[Diagnostic], key: str) -> tuple[Model | None, list[Diagnostic]]:
    """The model to answer for workload `key` on, without the objects of other trees that have
    errors; or None and the errors that touch it. An admitted workload of another tree whose pods
    hold nodes stays, errors and all: leaving it out would free nodes that are occupied (its quota
    is its own tree's, which the answer doesn't read)."""
    index = ModelIndex(model)
    if key not in index.workloads:
        return None, [d for d in diagnostics if blocks(d)]
    tree = tree_of(index, key)
    objects = [(field, TREE_KINDS.get(field), o) for field in (*TREE_KINDS, *OTHER_KINDS)
               for o in getattr(model, field)]
    objects += [("broken", b.kind, b) for b in model.broken]  # ObjectRefs: `key` as the tree's
    drop: set[int] = set()
    touching: list[Diagnostic] = []
    holding = Owners(objects)
    for d, owners in _blocking(diagnostics, holding):
        if d.code in KUEUE_STATES and owners:
            continue
        if not owners:
            touching.append(d)
            continue
        for field, kind, o in owners:
            k = o.key if field == "broken" else (_key(field, o) if kind else None)
            if kind is None or kind in GLOBAL_BROKEN or k in tree.get(kind, ()):
                touching.append(d)
                break
            if field == "workloads" and holds_nodes(o):
                continue  # its pods are on nodes whatever its errors: it stays, holding them
            drop.add(id(o))
    if touching:
        return None, touching
    kept = {field: tuple(o for o in getattr(model, field) if id(o) not in drop) for field in TREE_KINDS}
    return model.model_copy(update={**kept, "broken": ()}), []


# Broken objects of these kinds (left out of the model for their errors) may change any answer.
GLOBAL_BROKEN = {"Node", "Pod", "Namespace", "PriorityClass", "WorkloadPriorityClass", "Configuration",
                 "ConfigMap", "ResourceClaimTemplate", "DeviceClass", "PodGroup"}
_IDS = {"ClusterQueue": "cq", "Cohort": "co", "LocalQueue": "lq", "Workload": "wl"}


def _is_work(ref: ObjectRef) -> bool:
    """A job of a kind Kueue integrates (a Pod too), or a Workload: what `admit` decides (not policy)."""
    from kadmit.manifests import KINDS

    kind = KINDS.get((ref.api_version.rpartition("/")[0], ref.kind))
    return kind is not None and (kind.target in ("jobs", "workloads") or ref.kind == "Pod")


def decidable(model: Model, diagnostics: list[Diagnostic],
              input_error: bool = False) -> tuple[Model, list[Skipped]] | None:
    """What `admit` decides: without errors, the model. With errors, as Kueue goes on in the cohort
    trees a broken object doesn't reach: the model without the trees the errors touch (the same
    reading as `why`'s), and the pending workloads of those trees, not decided; None when the input
    is unreadable or an error may change every answer (one outside any tree: a node, a pod, a rule,
    a priority class, the configuration)."""
    if input_error:
        return None
    if not any(blocks(d) for d in diagnostics):
        return model, []
    up: dict[str, str] = {}

    def find(x: str) -> str:
        up.setdefault(x, x)
        while up[x] != x:
            up[x] = up[up[x]]
            x = up[x]
        return x

    def union(a: str, b: str) -> None:
        up[find(a)] = find(b)

    for c in model.cohorts:
        if c.parent:
            union(f"co:{c.name}", f"co:{c.parent}")
    for cq in model.cluster_queues:
        find(f"cq:{cq.name}")
        if cq.cohort:
            union(f"cq:{cq.name}", f"co:{cq.cohort}")
    for lq in model.local_queues:
        union(f"lq:{lq.key}", f"cq:{lq.cluster_queue}")
    for w in model.workloads:
        union(f"wl:{w.key}", f"lq:{w.namespace}/{w.queue}")
        if w.admission is not None:
            union(f"wl:{w.key}", f"cq:{w.admission.cluster_queue}")
    # a flavor (and its topology) belongs to every tree that names it
    users: dict[str, set[str]] = {}
    for owner, kind in [*((c, "cq") for c in model.cluster_queues), *((c, "co") for c in model.cohorts)]:
        for g in owner.resource_groups:
            for fq in g.flavors:
                users.setdefault(fq.flavor, set()).add(f"{kind}:{owner.name}")
    for t in {f.topology for f in model.flavors if f.topology}:
        users[f"topology:{t}"] = set().union(*(users.get(f.name, set()) for f in model.flavors if f.topology == t))

    def trees(kind: str, key: str) -> set[str]:
        if kind in _IDS:
            return {f"{_IDS[kind]}:{key}"}
        if kind == "ResourceFlavor":
            return users.get(key, set()) | {f"flavor:{key}"}
        if kind == "Topology":
            return users.get(f"topology:{key}", set()) | {f"topology:{key}"}
        return set()

    objects = [(field, TREE_KINDS.get(field), o) for field in (*TREE_KINDS, *OTHER_KINDS)
               for o in getattr(model, field)]
    objects += [("broken", b.kind, b) for b in model.broken]
    tainted: set[str] = set()
    holding = Owners(objects)
    for d, owners in _blocking(diagnostics, holding):
        if d.code in KUEUE_STATES and owners:
            continue  # Kueue keeps the queue inactive: the engine explains it
        if not owners or any(kind is None or kind in GLOBAL_BROKEN for _, kind, _ in owners):
            return None
        for field, kind, o in owners:
            tainted |= {find(x) for x in trees(kind, o.key if field == "broken" else _key(field, o))}
    held = [w for w in model.workloads if find(f"wl:{w.key}") in tainted]
    if any(holds_nodes(w) for w in held):
        return None  # its placement holds nodes the other trees place on: leaving it out would free them
    keep = {
        "cluster_queues": tuple(c for c in model.cluster_queues if find(f"cq:{c.name}") not in tainted),
        "cohorts": tuple(c for c in model.cohorts if find(f"co:{c.name}") not in tainted),
        "local_queues": tuple(q for q in model.local_queues if find(f"lq:{q.key}") not in tainted),
        "workloads": tuple(w for w in model.workloads if find(f"wl:{w.key}") not in tainted),
        "flavors": tuple(f for f in model.flavors if f"flavor:{f.name}" not in tainted),
        "topologies": tuple(t for t in model.topologies if f"topology:{t.name}" not in tainted),
        "broken": ()}
    # a pending workload is not decided; an admitted one is listed too, as whether it stays admitted (Kueue may
    # preempt it for another of its tree) is not decided either
    skipped = [Skipped(object=w.origin or ObjectRef(api_version="kueue.x-k8s.io/v1beta2", kind="Workload",
                                                    namespace=w.namespace, name=w.name),
                       reason="not decided: an error in the input touches its cohort tree" if w.admission is None
                       else "admitted in the input; whether it stays admitted is not decided: an error in the input "
                            "touches its cohort tree", span=w.span)
               for w in held if not w.finished]
    # a job or Workload left out for its own errors is listed too: nothing of the input is dropped unsaid (the
    # repeats of one `generateName` object numbered as Kueue's API server names them: `number_repeats`)
    refused = server_refused(diagnostics, holding, work=True)
    skipped += [Skipped(object=b, reason=f"{UNDECIDED_HERE}: {refusal_reason(refused[id(b)][1])}" if id(b) in refused
                        else f"{UNDECIDED_HERE} (`kadmit check` lists it)", span=b.span)
                for b in model.broken if _is_work(b)]
    # and a built-in object the API server refuses, with its words: the oracle lists it so
    skipped += [Skipped(object=b, reason=refusal_reason(errors), span=b.span)
                for b, errors in server_refused(diagnostics, holding).values() if not _is_work(b)]
    return model.model_copy(update=keep), skipped


UNDECIDED_HERE = "not decided: an error in the input, in this object"


def refusal_reason(errors: list[Diagnostic]) -> str:
    """Why an object the API server refuses is skipped, in kadmit's words: that the server refuses it, so it is never
    created, each error's words (those quoting the server's without the prefix they share) with the server's own
    where a note quotes them (an unknown field, a bad label: `SERVER_WORDS`), and what to do (the errors' helps)."""
    words = dict.fromkeys(d.message.removeprefix("the API server refuses the object: ")
                          + "".join(f" ({n.removeprefix(SERVER_WORDS)})" for n in d.notes if n.startswith(SERVER_WORDS))
                          for d in errors)
    helps = dict.fromkeys(d.help for d in errors if d.help)
    lead = ("the API server refuses a write of its status, so no cluster holds it as written"
            if all(d.message.startswith(("`status.", "unknown field `status.")) for d in errors)
            else "the API server refuses it, so it is never created")
    return (f"{lead}: " + "; ".join(words)
            + (f"; to have it created: {'; '.join(helps)}" if helps else ""))


def number_repeats(fragments: list[Fragment]) -> list[Fragment]:
    """The fragments (one a file, in merge order) with the repeats of one `generateName` job declined for an input
    error (`broken`) numbered in input order, across files (`job-`, `job-#2`, ...), each listed by its own name. The
    API server creates none of them (it refuses each, as the Kueue oracle's kubevalidate and CRD checks do), so none
    takes a name: the decided repeats are numbered on their own (`manage._number_repeats`), as the oracle names those
    it creates (`identify`)."""
    declined: Counter = Counter()  # per prefix, the declined repeats so far
    out = []
    for frag in fragments:
        at = sorted((_position(b.span), i) for i, b in enumerate(frag.broken) if _is_work(b))
        if not at:
            out.append(frag)
            continue
        broken = list(frag.broken)
        for _, i in at:
            o = broken[i]
            key = (o.group, o.kind, o.namespace or "default", o.name)
            declined[key] += 1
            broken[i] = o.model_copy(update={"name": repeat_name(o.name, declined[key])})
        out.append(frag.model_copy(update={"broken": broken}))
    return out


def _position(span) -> tuple:
    return (span.line, span.column) if span is not None else (inf, inf)
