"""Validating a model again after an edit: only the checks whose inputs the edit changed.

An edit changes objects of the edited files only; every other object of the new model is the very
object the old model had (the files not edited are not read again), at the same place when the
edited files give as many objects as before, and an object of an edited file read again equal to
the old one (spans aside) reads and reports the same. A check reads a known set of objects; one whose
objects are all unchanged reports what it reported on the old model, which was reported when that
model was validated. So re-running the checks that read a changed object finds every error the
edit can introduce — the errors of the new model that the old one didn't have are the same as a full
validation finds — at a cost proportional to what the edit changed and what reads it:

- a change outside cohorts, cluster queues, local queues and workloads (a flavor, topology, priority
  class, namespace, node, pod, rule, the configuration, jobs, claim templates, broken objects):
  everything is validated again;
- cohorts and cluster queues: their own checks (quotas, flavor references, namespace selector),
  cohort cycles and parents, local queues' targets, unused flavors; local queues: duplicates and
  targets;
- workloads: the edited ones' own checks, and the references of every workload that reads a changed
  object — queued to or in the namespace of a changed local queue, routed to or admitted to a
  changed cluster queue (found through the old model's workloads by queue and admission, computed
  once); duplicate names where a changed workload's name is taken twice;
- rules: typed again whenever anything changed (they read every name and resource).

What is not reported: diagnostics of checks whose inputs didn't change (reported before), so the
list is not the full validation's; what it is for is telling whether an edit adds an error.
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress
from operator import is_not

from kadmit.diagnostics import Diagnostics
from kadmit.index import ModelIndex
from kadmit.model import Model, Workload
from kadmit.validate.cluster import check_affinity, check_namespace_selector, check_usage
from kadmit.validate.names import duplicates, check_cohort_cycles
from kadmit.validate.quotas import check_quotas
from kadmit.validate.references import (check_admission_check_refs, check_cohort_refs, check_flavor_refs, check_local_queue_refs,
                                        check_workload_refs)
from kadmit.validate.rules import typecheck_rule
from kadmit.validate.whole import validate
from kadmit.validate.workloads import check_balanced, check_claims, check_workload, claim_template_keys, dra_gate

TREE = ("cohorts", "cluster_queues", "local_queues", "workloads")


@dataclass
class Changes:
    """Per collection of the model, the objects of the new model that differ from the old model's
    (`added`) and the old objects they replace (`removed`). `positional`: the collections that
    kept their length, compared place by place — an unchanged place holds the very same object, or
    one equal to it (read again from an edited file: spans aside, nothing a check reads differs),
    and `removed[i]` is the object `added[i]` replaced."""

    added: dict[str, list] = field(default_factory=dict)
    removed: dict[str, list] = field(default_factory=dict)
    positional: set[str] = field(default_factory=set)

    @property
    def names(self) -> set[str]:
        return set(self.added) | set(self.removed)


_last: list = []  # weak references to the last (old, new) compared, and their Changes: a
# re-decision asks twice (validating, then finding the parts to decide again)


def changes(old: Model, new: Model) -> Changes:
    """What `new` (`old` read again after an edit) holds that `old` doesn't, per collection."""
    if _last and _last[0]() is old and _last[1]() is new:
        return _last[2]
    out = Changes()
    for name in type(old).model_fields:
        a, b = getattr(old, name), getattr(new, name)
        if a is b or not isinstance(a, tuple):
            continue
        if len(a) == len(b):
            out.positional.add(name)
            at = [i for i in compress(range(len(a)), map(is_not, a, b)) if a[i] != b[i]]
            removed, added = [a[i] for i in at], [b[i] for i in at]
        else:
            ids_a, ids_b = {id(x) for x in a}, {id(y) for y in b}
            removed = [x for x in a if id(x) not in ids_b]
            added = [y for y in b if id(y) not in ids_a]
        if removed:
            out.removed[name] = removed
        if added:
            out.added[name] = added
    _last[:] = [weakref.ref(old), weakref.ref(new), out]
    return out


class Checked:
    """A validated model, the baseline of `validate_since`, with what it looks up in it computed
    once: its workloads' places by local queue, namespace and admission, and how often each
    workload name is taken."""

    def __init__(self, model: Model) -> None:
        self.model = model

    @cached_property
    def places(self) -> tuple[dict[str, list[int]], dict[str, list[int]], dict[str, list[int]]]:
        return _places(self.model.workloads)

    @cached_property
    def key_counts(self) -> Counter:
        return Counter(w.key for w in self.model.workloads)


def _places(workloads) -> tuple[dict[str, list[int]], dict[str, list[int]], dict[str, list[int]]]:
    by_queue: dict[str, list[int]] = {}
    by_namespace: dict[str, list[int]] = {}
    by_admission: dict[str, list[int]] = {}
    for i, w in enumerate(workloads):
        by_queue.setdefault(f"{w.namespace}/{w.queue}", []).append(i)
        by_namespace.setdefault(w.namespace, []).append(i)
        if w.admission is not None:
            by_admission.setdefault(w.admission.cluster_queue, []).append(i)
    return by_queue, by_namespace, by_admission


def validate_since(before: Checked, model: Model, diags: Diagnostics) -> None:
    """Report to `diags` what the checks reading an object `model` changed from `before.model`
    report (see the module docstring): every error a full validation of `model` finds that
    `before.model` didn't have is among them."""
    ch = changes(before.model, model)
    if any(name not in TREE for name in ch.names):
        validate(model, diags)
        return
    names = ch.names & set(TREE)
    if not names:
        return
    index = ModelIndex(model)
    added = ch.added
    by_name = lambda o: o.name  # noqa: E731
    if "cohorts" in names or "cluster_queues" in names:
        check_cohort_cycles(index, diags)
        check_usage(index, diags)
    if "cohorts" in names:
        duplicates(diags, "cohort", model.cohorts, by_name)
        check_cohort_refs(index, diags)
    if "cluster_queues" in names:
        duplicates(diags, "cluster queue", model.cluster_queues, by_name)
    if "local_queues" in names:
        duplicates(diags, "local queue", model.local_queues, lambda q: q.key)
    if "local_queues" in names or "cluster_queues" in names:
        check_local_queue_refs(index, diags)
    for owner in (*added.get("cohorts", ()), *added.get("cluster_queues", ())):
        check_quotas(owner, diags)
    for cq in added.get("cluster_queues", ()):
        check_namespace_selector(cq, diags)
        check_flavor_refs(cq, "cluster queue", index, diags)
        check_admission_check_refs(cq, index, diags)
    edited = added.get("workloads", [])
    known = claim_template_keys(model) if edited and model.claim_templates else set()
    for wl in edited:
        check_workload(wl, diags)
        check_affinity(wl, diags)
        check_claims(wl, known, diags, dra_gate(model))
        check_balanced(wl, diags, model.config)
    for wl in _readers(before, model, ch):
        check_workload_refs(wl, index, diags)
    _workload_duplicates(before, model, ch, diags)
    for rule in model.rules:
        typecheck_rule(rule, index, diags)


def _readers(before: Checked, model: Model, ch: Changes) -> list[Workload]:
    """The workloads whose references read a changed object: the edited ones, those queued to or
    in the namespace of a changed local queue, and those routed (through their local queue) or
    admitted to a changed cluster queue."""
    out = {id(w): w for w in ch.added.get("workloads", ())}
    namespaces: set[str] = set()
    cq_names: set[str] = set()
    for q in (*ch.added.get("local_queues", ()), *ch.removed.get("local_queues", ())):
        namespaces.add(q.namespace)
        cq_names.add(q.cluster_queue)
    cq_names |= {c.name for c in (*ch.added.get("cluster_queues", ()), *ch.removed.get("cluster_queues", ()))}
    if not namespaces and not cq_names:
        return list(out.values())
    queues = {q.key for q in model.local_queues if q.cluster_queue in cq_names}
    if "workloads" in ch.positional or "workloads" not in ch.names:
        # unchanged places hold the old model's objects: the old model's places stand for them
        by_queue, by_namespace, by_admission = before.places
    else:
        by_queue, by_namespace, by_admission = _places(model.workloads)
    at: set[int] = set()
    for k in queues:
        at.update(by_queue.get(k, ()))
    for ns in namespaces:
        at.update(by_namespace.get(ns, ()))
    for c in cq_names:
        at.update(by_admission.get(c, ()))
    for i in sorted(at):
        w = model.workloads[i]
        out.setdefault(id(w), w)
    return list(out.values())


def _workload_duplicates(before: Checked, model: Model, ch: Changes, diags: Diagnostics) -> None:
    """A changed workload whose name is now taken twice: the duplicates of the whole collection
    are reported (rare: an error either way)."""
    gone = Counter(w.key for w in ch.removed.get("workloads", ()))
    new = Counter(w.key for w in ch.added.get("workloads", ()))
    if any(before.key_counts[k] - gone[k] + n > 1 for k, n in new.items()):
        duplicates(diags, "workload", model.workloads, lambda w: w.key)
