"""Workloads by the names users give: the object each stands for, how it is shown, and how a
name typed on the command line finds it (`namespace/name`, `Kind/namespace/name`, or Kueue's
Workload name)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kadmit.diagnostics import Subject
from kadmit.model import Job, Model, ObjectRef, PriorityClass, SchedulerConfig, Skipped, Workload

WORKLOAD_API = "kueue.x-k8s.io/v1beta2"


def object_of(wl: Workload) -> ObjectRef:
    """The object a workload stands for: the job it was made from, else the Workload itself."""
    if wl.origin is not None:
        return wl.origin
    return ObjectRef(api_version=WORKLOAD_API, kind="Workload", namespace=wl.namespace, name=wl.name)


# why a Workload's name in Kueue is not known (`kueue_key` None): what Kueue's name hashes is not in the input
KUEUE_NAME_UNKNOWN = ("given by the cluster: Kueue's name for the Workload it makes of a job hashes the UID the API "
                      "server gives the job (a pod a controller makes: the pod's, and its name), which the input "
                      "does not hold")
# said where the workload's key is kadmit's own (`own_name`)
OWN_KEY = "`{key}` is kadmit's own key for it (the object's name, `:`, the part it stands for), not a Kueue name"


# what separates an object's name from the part of it a workload stands for in kadmit's own key (`own_name`): no
# Kubernetes object's name holds it, so the key cannot pass for a Workload's name in Kueue
OWN_KEY_MARK = ":"


def own_name(o: ObjectRef, part: str | None) -> str:
    """kadmit's own name for one of the several workloads of `o` whose Kueue names hash UIDs the input does not
    hold (a Deployment's replicas, a JobSet's Jobs, the pods a controller makes): the object's name, `:`, and the
    part (`serve:replica-0`, `js:job-js-w-0`), else the object's kind (two kinds sharing a name: `a:job`)."""
    return f"{o.name}{OWN_KEY_MARK}{'-'.join((part or o.kind).lower().split())}"


def kueue_key(wl: Workload) -> str | None:
    """Kueue's `namespace/name` of the Workload (the oracle's `kueue_workload`): the name Kueue gives the Workload
    it makes of a job (`Workload.kueue_name`: `job-<name>-<hash>`, a pod group's Workload the group's name), else
    the Workload's own, where the input holds it; None where the name hashes a UID the input does not hold
    (`kueue_name` "": a job without `metadata.uid`, the pods a Deployment makes): KUEUE_NAME_UNKNOWN."""
    if wl.kueue_name == "":
        return None
    return f"{wl.namespace}/{wl.kueue_name or wl.name}"


def kueue_dict(wl: Workload) -> dict:
    """`kueue_workload` in admit's and why's JSON: Kueue's name, or null with `kueue_workload_unknown` saying why."""
    key = kueue_key(wl)
    if key is not None:
        return {"kueue_workload": key}
    return {"kueue_workload": None, "kueue_workload_unknown": KUEUE_NAME_UNKNOWN + own_key_note(wl)}


def own_key_note(wl: Workload) -> str:
    """`; ` and OWN_KEY where the workload's key is kadmit's own (`own_name`), else "": said after why Kueue's name
    is not known, in the JSON (`kueue_dict`) and on why's first line alike."""
    return f"; {OWN_KEY.format(key=wl.key)}" if OWN_KEY_MARK in wl.name else ""


# the middle of the UUIDs the API server draws (uuid.New: version 4, its first digit uniform over 0-f)
MADE_UID = "8"


def queue_uid(wl: Workload) -> str:
    """The UID a queue breaks a tie on priority and creation time by (cluster_queue.go baseCompareFunc): the
    input's; for a Workload Kueue has yet to make of a job (`kueue_name` set, no UID), whose UID the API server
    draws at random, MADE_UID, so that it comes after a given UID below the middle and before one above it, the
    likelier order of each pair (certain but for 2^-32 at 00000000-… or ffffffff-…; two such Workloads tie,
    taken by key); "" for a Workload the input holds without one."""
    return wl.uid or (MADE_UID if wl.kueue_name is not None else "")


_REPEAT = re.compile(r"#(\d+)")


def repeat_order(key: str) -> tuple:
    """A sort key for workload keys that orders the repeats of one `generateName` object by number
    (`_number_repeats`): `a-#2` before `a-#10`, where text would put `#10` first.

    >>> sorted(["ns/a-#10", "ns/a-#2", "ns/a-", "ns/b"], key=repeat_order)
    ['ns/a-', 'ns/a-#2', 'ns/a-#10', 'ns/b']
    """
    parts = _REPEAT.split(key)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def repeat_name(name: str, n: int) -> str:
    """The name of the `n`th object of one `generateName` prefix in input order (Kueue's API server gives
    each its own suffix; kadmit numbers them): the first keeps the prefix, the second `sample-job-#2`."""
    return name if n == 1 else f"{name}#{n}"


def subject(o: ObjectRef) -> Subject:
    """An object as a diagnostic is about it (`Diagnostic.about`)."""
    return Subject(o.kind, o.namespace, o.name)


def about(*objects) -> tuple[Subject, ...]:
    """The objects a diagnostic is about (`Diagnostic.about`), from the model's: a workload as the object it stands
    for (`object_of`), a job as its object, a priority class as a `WorkloadPriorityClass` or `PriorityClass`, an
    admission check's configuration by its kind, Kueue's Configuration (one per cluster) with no name, any other
    by its class (`ClusterQueue`, `Cohort`, `ResourceFlavor`, `Topology`, `LocalQueue`, `Node`, ...)."""
    out = []
    for o in objects:
        if isinstance(o, Workload):
            o = object_of(o)
        elif isinstance(o, Job):
            o = o.object
        if isinstance(o, ObjectRef):
            out.append(subject(o))
        elif isinstance(o, PriorityClass):
            out.append(Subject("WorkloadPriorityClass" if o.kind == "workload" else "PriorityClass", None, o.name))
        elif isinstance(o, SchedulerConfig):
            out.append(Subject("Configuration", None, ""))
        else:
            kind = o.kind if isinstance(getattr(o, "kind", None), str) else type(o).__name__
            out.append(Subject(kind, getattr(o, "namespace", None), o.name))
    return tuple(dict.fromkeys(out))  # each once (a name defined twice is about one object)


def object_dict(o: ObjectRef) -> dict:
    return {"apiVersion": o.api_version, "kind": o.kind, "namespace": o.namespace, "name": o.name}


def skipped_dict(s: Skipped) -> dict:
    """An object not decided; `more`: the objects of its kind after it in its file, counted (`Skipped.more`)."""
    out = {**object_dict(s.object), "reason": s.reason}
    if s.more:
        out["more"] = s.more
    return out


def display_names(workloads: list[Workload] | tuple[Workload, ...]) -> dict[str, str]:
    """How each workload (by key) is shown: its object's `namespace/name`; `Kind/namespace/name`
    where objects of two kinds share that name; the Workload's own key where one object made
    several workloads."""
    objects: dict[str, set[tuple[str, str]]] = {}
    per_object: dict[tuple[str, str, str | None, str], int] = {}
    for wl in workloads:
        o = object_of(wl)
        objects.setdefault(o.key, set()).add((o.group, o.kind))
        ident = (o.group, o.kind, o.namespace, o.name)
        per_object[ident] = per_object.get(ident, 0) + 1
    out = {}
    for wl in workloads:
        o = object_of(wl)
        shown = o.qualified if len(objects[o.key]) > 1 else o.key
        if per_object[(o.group, o.kind, o.namespace, o.name)] > 1:
            shown += f" ({wl.part or wl.name})"
        out[wl.key] = shown
    return out


@dataclass
class Lookup:
    """What a typed name found: one workload key, or candidates when ambiguous, or the skipped
    objects it names."""

    key: str | None = None
    candidates: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # every name that would work, for did-you-mean
    # entries counting objects not listed by name (`Skipped.more`) of the kind and namespace asked for:
    # the name may be one of theirs
    counted: list[Skipped] = field(default_factory=list)


def find(model: Model, text: str) -> Lookup:
    """Resolve `text`: Kueue's Workload key first; then `Kind/namespace/name`; then
    `namespace/name` of the object; a bare name is in namespace `default`."""
    workloads = model.workloads
    by_key = {w.key: w for w in workloads}
    known = sorted(set(by_key) | {object_of(w).key for w in workloads} | {object_of(w).qualified for w in workloads})
    if text in by_key:
        return Lookup(key=text, known=known)
    aliases = {f"{w.namespace}/{w.kueue_name}": w.key for w in workloads if w.kueue_name}
    if text in aliases:
        return Lookup(key=aliases[text], known=known)
    parts = text.split("/")
    kind = None
    if len(parts) == 3:
        kind, ns, name = parts
    elif len(parts) == 2:
        ns, name = parts
    else:
        ns, name = "default", text
    if kind is None and f"default/{text}" in by_key and len(parts) == 1:
        return Lookup(key=f"default/{text}", known=known)
    hits = [w for w in workloads if (object_of(w).namespace or "default") == ns and object_of(w).name == name
            and (kind is None or object_of(w).kind.lower() == kind.lower())]
    skipped = [s for s in model.skipped if (s.object.namespace or "default") == ns and s.object.name == name
               and (kind is None or s.object.kind.lower() == kind.lower())]
    objects = sorted({object_of(w).qualified for w in hits} | {s.object.qualified for s in skipped})
    if len(objects) > 1 or len(hits) > 1:
        cands = objects if len(objects) > 1 else sorted(w.key for w in hits)
        return Lookup(candidates=cands, known=known)
    if hits:
        return Lookup(key=hits[0].key, known=known)
    counted = [] if skipped else [s for s in model.skipped if s.more and (s.object.namespace or "default") == ns
                                  and (kind is None or s.object.kind.lower() == kind.lower())]
    return Lookup(skipped=skipped, known=known, counted=counted)
