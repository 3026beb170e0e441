"""`kadmit export`: a model as the objects a cluster runs — Kueue's manifests (v0.17.0, `v1beta2`), the
Namespaces and Nodes it names, and ValidatingAdmissionPolicies for the rules the API server can judge
(`export.rules`). Objects are grouped one file per kind, sorted by name, each with the place in the
input it came from; what has no Kueue form is reported (KAD901), never left out silently."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.diagnostics import Diagnostics
from kadmit.export import policy, state
from kadmit.export.codes import KAD901
from kadmit.index import ModelIndex
from kadmit.model import Model
from kadmit.source import Span

# One file per kind, in the order a cluster applies them.
FILES = ("namespaces", "kueue-configuration", "workload-priority-classes", "priority-classes", "topologies",
         "resource-flavors", "cohorts", "cluster-queues", "local-queues", "validating-admission-policies",
         "nodes", "workloads", "admission-checks")  # checks last: the numbers before them stay as they were
CONFIGURATION = "kueue-configuration"


def file_name(stem: str, ext: str = "yaml") -> str:
    """Where a kind's file goes in the output folder: numbered in apply order, so that `kubectl apply -f
    DIR` creates namespaces first; Kueue's Configuration, which is no API object (it goes into Kueue's
    manager config), in the subfolder `kueue/`, which `kubectl apply -f DIR` doesn't read."""
    if stem == CONFIGURATION:
        return f"kueue/configuration.{ext}"
    return f"{[s for s in FILES if s != CONFIGURATION].index(stem) + 1:02d}-{stem}.{ext}"


@dataclass(frozen=True)
class Doc:
    """One exported object and where in the input it came from."""

    obj: dict
    span: Span | None
    what: str  # how a header names it: `cluster_queue team-vision`


@dataclass
class Export:
    files: dict[str, list[Doc]] = field(default_factory=dict)  # file stem -> objects, sorted
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    unenforced: list[str] = field(default_factory=list)  # rules no admission policy enforces

    def objects(self) -> list[dict]:
        return [d.obj for stem in FILES for d in self.files.get(stem, ())]


def _first(items, key):
    """The first of each name (the validator reports duplicates; later stages use the first)."""
    seen: dict = {}
    for x in items:
        seen.setdefault(key(x), x)
    return [seen[k] for k in sorted(seen)]


def export_model(model: Model, *, workloads: bool = False, nodes: bool = False,
                 allow_unenforced: bool = False) -> Export:
    """Every object of `model` as Kubernetes/Kueue objects. `workloads` adds the Workloads, `nodes`
    the Nodes. Rules the API server can't judge are reported (KAD902/KAD905: errors unless
    `allow_unenforced`)."""
    from kadmit.export.rules import admission_policies

    ix = ModelIndex(model)
    out = Export()
    d = out.diagnostics

    def put(stem: str, obj: dict, span: Span | None, what: str) -> None:
        out.files.setdefault(stem, []).append(Doc(obj, span, what))

    for ns in _first(model.namespaces, lambda n: n.name):
        put("namespaces", policy.namespace(ns), ns.span, f"namespace {ns.name}")
    if model.config is not None:
        put("kueue-configuration", policy.configuration(model.config, d), model.config.span,
            "scheduler: the fields to merge into Kueue's manager Configuration (controller_manager_config.yaml)")
        for extra in model.scheduler_configs[1:]:
            d.emit(KAD901, "a second scheduler configuration is left out: Kueue reads one", extra.span)
    for pc in _first(model.priority_classes, lambda p: (p.kind, p.name)):
        stem = "workload-priority-classes" if pc.kind == "workload" else "priority-classes"
        put(stem, policy.priority_class(pc, d), pc.span, f"priority {pc.name}")
    for t in _first(model.topologies, lambda t: t.name):
        put("topologies", policy.topology(t), t.span, f"topology {t.name}")
    for f in _first(model.flavors, lambda f: f.name):
        put("resource-flavors", policy.flavor(f), f.span, f"flavor {f.name}")
    for c in _first((c for c in model.cohorts if c.explicit), lambda c: c.name):
        put("cohorts", policy.cohort(c), c.span, f"cohort {c.name}")
    for cq in _first(model.cluster_queues, lambda q: q.name):
        put("cluster-queues", policy.cluster_queue(cq, d), cq.span, f"cluster_queue {cq.name}")
    for lq in _first(model.local_queues, lambda q: q.key):
        put("local-queues", policy.local_queue(lq), lq.span, f"local_queue {lq.key}")
    for ac in _first(model.admission_checks, lambda a: a.name):
        put("admission-checks", policy.admission_check(ac), ac.span, f"admission_check {ac.name}")
    for kind, word in (("ProvisioningRequestConfig", "provisioning_config"), ("MultiKueueConfig", "multikueue_config"),
                       ("MultiKueueCluster", "multikueue_cluster")):
        for c in _first((c for c in model.check_configs if c.kind == kind), lambda c: c.name):
            put("admission-checks", policy.check_config(c), c.span, f"{word} {c.name}")
    for obj, span, what in admission_policies(model, ix, d, out.unenforced, allow_unenforced):
        put("validating-admission-policies", obj, span, what)
    if nodes:
        for n in _first(model.nodes, lambda n: n.name):
            put("nodes", state.node(n), n.span, f"node {n.name}")
    if workloads:
        for wl in _first(model.workloads, lambda w: w.key):
            put("workloads", state.workload(ix, wl, d), wl.span, f"workload {wl.key}")
    _unexported(model, workloads, nodes, d)
    return out


def _unexported(model: Model, workloads: bool, nodes: bool, d: Diagnostics) -> None:
    """What the model holds that this export leaves out, each reported once with its place."""
    for what, items, flag in (("node", model.nodes, "--nodes"), ("workload", model.workloads, "--workloads")):
        chosen = nodes if what == "node" else workloads
        if items and not chosen:
            d.emit(KAD901, f"{len(items)} {what}{'s' if len(items) != 1 else ''} left out of the export",
                   items[0].span, help=f"add `{flag}` to write them")
    for kind, items in (("pod", model.pods), ("job", model.jobs), ("gang", model.gangs),
                        ("ResourceClaimTemplate", model.claim_templates), ("LimitRange", model.limit_ranges),
                        ("RuntimeClass", model.runtime_classes), ("DeviceClass", model.device_classes),
                        ("training runtime", model.training_runtimes)):
        for x in items:
            name = x.object.qualified if hasattr(x, "object") else getattr(x, "key", None) or "/".join(
                part for part in (getattr(x, "namespace", None), getattr(x, "name", "")) if part)
            d.emit(KAD901, f"{kind} `{name}` is left out: kadmit export writes Kueue's objects (a job is written "
                   "as its Workload, with `--workloads`)" + (
                       "; the admission policies judge requests as the pod templates write them, without its "
                       "defaults or overhead" if kind in ("LimitRange", "RuntimeClass") and model.rules else ""),
                   x.span)
