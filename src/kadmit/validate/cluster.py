"""Topologies, flavors, priority classes, and objects that nothing uses or nothing reaches."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics, Label
from kadmit.identity import about
from kadmit.index import HOSTNAME_LABEL, ModelIndex
from kadmit.model import ClusterQueue, Model, Node, Requirement, ResourceFlavor, Topology, Workload
from kadmit.modelscheduling import NODE_OPERATORS, expression_errors, field_errors
from kadmit.source import Span
from kadmit.validate.codes import (BAD_REQUIREMENT, DUPLICATE_LEVEL, DUPLICATE_TAINT, HOSTNAME_NOT_LAST, LEVEL_COUNT,
                                   MANY_DEFAULTS, NIL_SELECTOR, PRIORITY_RANGE, SELECTOR_MATCHES_NOTHING,
                                   SHARED_HOSTNAME, UNPARSABLE_AFFINITY, UNUSED_FLAVOR)
from kadmit.validate.workloads import INT32

MAX_LEVELS = 16
HIGHEST_USER_PRIORITY = 1_000_000_000
SYSTEM_PREFIX = "system-"


def check_topology(t: Topology, diags: Diagnostics) -> None:
    at = t.field_span("levels")
    if not 1 <= len(t.levels) <= MAX_LEVELS:
        diags.emit(LEVEL_COUNT, f"topology `{t.name}` has {len(t.levels)} levels; Kueue accepts 1 to {MAX_LEVELS}", at, about=about(t))
    seen: set[str] = set()
    for i, level in enumerate(t.levels):
        lat = t.spans.get(f"levels.{i}") or at
        if level in seen:
            diags.emit(DUPLICATE_LEVEL, f"topology `{t.name}` lists level `{level}` twice", lat, about=about(t))
        seen.add(level)
    if HOSTNAME_LABEL in t.levels and t.levels[-1] != HOSTNAME_LABEL:
        i = t.levels.index(HOSTNAME_LABEL)
        diags.emit(HOSTNAME_NOT_LAST, f"`{HOSTNAME_LABEL}` is not the last level of topology `{t.name}`",
                   t.spans.get(f"levels.{i}") or at, help=f"move `{HOSTNAME_LABEL}` to the end of `levels`", about=about(t))


def check_flavor(fl: ResourceFlavor, diags: Diagnostics) -> None:
    seen: dict[tuple[str, str], int] = {}
    for i, taint in enumerate(fl.node_taints):
        k = (taint.key, taint.effect)
        at = fl.spans.get(f"node_taints.{i}") or taint.span or fl.field_span("node_taints")
        if k in seen:
            first = fl.spans.get(f"node_taints.{seen[k]}") or fl.node_taints[seen[k]].span
            diags.emit(DUPLICATE_TAINT, f"flavor `{fl.name}` has two taints with key `{taint.key}` and effect "
                       f"`{taint.effect}`", at, labels=[Label(first, "first here")] if first else [], about=about(fl))
        else:
            seen[k] = i


def check_hostnames(model: Model, diags: Diagnostics) -> None:
    """A warning at each node whose `kubernetes.io/hostname` value an earlier node (by name) has."""
    first: dict[str, Node] = {}
    for node in sorted(model.nodes, key=lambda n: n.name):
        host = node.labels.get(HOSTNAME_LABEL)
        if host is None:
            continue
        orig = first.setdefault(host, node)
        if orig is node:
            continue
        where = orig.field_span("labels")  # (a label, not in the message: a `.kad` import says the same)
        notes = []
        apart = sorted({k for k in set(node.labels) | set(orig.labels) if node.labels.get(k) != orig.labels.get(k)})
        if node.taints != orig.taints:
            apart.append("taints")
        if apart:
            notes.append(f"they differ in {', '.join(f'`{k}`' for k in apart)}: Kueue filters and places the "
                         "shared leaf by whichever node it reads first (Go map order), so its answer may vary; "
                         f"kadmit takes `{orig.name}`'s")
        diags.emit(SHARED_HOSTNAME, f"node `{node.name}` has the `{HOSTNAME_LABEL}` value `{host}` of node "
                   f"`{orig.name}`; on a topology whose lowest level is the hostname, Kueue counts the two "
                   "as one host holding their summed free capacity", node.field_span("labels"),
                   labels=[Label(where, "first here")] if where is not None else [], notes=notes,
                   help="give each node its own hostname", about=about(node, orig))


def check_priority_classes(model: Model, diags: Diagnostics) -> None:
    for kind in ("workload", "pod"):
        defaults = [p for p in model.priority_classes if p.kind == kind and p.global_default]
        for extra in defaults[1:]:
            first = defaults[0]
            diags.emit(MANY_DEFAULTS, f"{kind} priority classes `{first.name}` and `{extra.name}` are both "
                       f"marked default", extra.field_span("global_default"),
                       labels=[Label(first.span, "first default here")] if first.span else [],
                       help="mark one priority class default", about=about(extra, first))
    for p in model.priority_classes:
        at = p.field_span("value")
        if not INT32[0] <= p.value <= INT32[1]:
            diags.emit(PRIORITY_RANGE, f"priority class `{p.name}` has value {p.value}, outside the 32-bit range", at, about=about(p))
        elif p.kind == "pod" and p.value > HIGHEST_USER_PRIORITY and not p.name.startswith(SYSTEM_PREFIX):
            diags.emit(PRIORITY_RANGE, f"priority class `{p.name}` has value {p.value}, above "
                       f"{HIGHEST_USER_PRIORITY} (reserved for `{SYSTEM_PREFIX}` classes)",
                       at, help=f"use a value of at most {HIGHEST_USER_PRIORITY}", about=about(p))


def check_usage(index: ModelIndex, diags: Diagnostics) -> None:
    model = index.model
    used = {fq.flavor for owner in (*model.cluster_queues, *model.cohorts)
            for g in owner.resource_groups for fq in g.flavors}
    # a cluster queue or cohort with errors may use any flavor: say nothing rather than something false
    unknowable = bool(index.broken_keys("ClusterQueue") or index.broken_keys("Cohort"))
    for fl in index.flavors.values():
        if fl.name not in used and not unknowable:
            diags.emit(UNUSED_FLAVOR, f"flavor `{fl.name}` is not used by any cluster queue or cohort",
                       fl.field_span("name"), about=about(fl))
    labels = [ns.effective_labels() for ns in index.namespaces.values()]
    by_label: dict[tuple[str, str], list[dict[str, str]]] = {}  # (key, value) -> the labels of namespaces carrying it
    for lab in labels:
        for kv in lab.items():
            by_label.setdefault(kv, []).append(lab)
    for cq in index.cluster_queues.values():
        sel = cq.namespace_selector
        if sel is None:
            diags.emit(NIL_SELECTOR, f"cluster queue `{cq.name}` has no namespace selector, so it matches no "
                       f"namespace", cq.field_span("name"),
                       help="use `namespaces = all` (`namespaceSelector: {}`) to admit from every namespace", about=about(cq))
        elif model.namespaces and not _selects_some(sel, labels, by_label):
            diags.emit(SELECTOR_MATCHES_NOTHING,
                       f"the namespace selector of cluster queue `{cq.name}` matches none of the declared namespaces",
                       cq.field_span("namespace_selector"), about=about(cq))


def _selects_some(sel, labels: list[dict[str, str]], by_label: dict[tuple[str, str], list[dict[str, str]]]) -> bool:
    """Whether the selector matches a declared namespace: among those carrying the rarest of its
    labels (a label no namespace carries rules it out), so a queue per namespace costs linear time."""
    if any(kv not in by_label for kv in sel.match_labels.items()):
        return False
    fewest = min((by_label[kv] for kv in sel.match_labels.items()), key=len, default=labels)
    return any(sel.matches(lab) for lab in fewest)


def check_requirement(req: Requirement, where: str, at: Span | None, diags: Diagnostics,
                      owner: ClusterQueue) -> None:
    """Kubernetes' rules for one requirement of a label selector (`owner`'s)."""
    op, n = req.operator, len(req.values)
    problem = None
    if op in ("In", "NotIn") and n == 0:
        problem = f"`{op}` needs at least one value"
    elif op in ("Exists", "DoesNotExist") and n:
        problem = f"`{op}` takes no values"
    elif op in ("Gt", "Lt"):
        problem = f"`{op}` is not a label selector operator"
    if problem:
        diags.emit(BAD_REQUIREMENT, f"requirement on `{req.key}` in {where}: {problem}", req.span or at, about=about(owner))


def check_selectors(model: Model, diags: Diagnostics) -> None:
    for cq in model.cluster_queues:
        check_namespace_selector(cq, diags)
    for wl in model.workloads:
        check_affinity(wl, diags)


def check_namespace_selector(cq: ClusterQueue, diags: Diagnostics) -> None:
    sel = cq.namespace_selector
    for req in sel.match_expressions if sel else ():
        check_requirement(req, f"the namespace selector of cluster queue `{cq.name}`",
                          cq.field_span("namespace_selector"), diags, cq)


def check_affinity(wl: Workload, diags: Diagnostics) -> None:
    """A warning at each required node-affinity requirement Kueue's parse refuses (KAD246), `matchExpressions`
    and `matchFields`: the pod set is kept and decided as Kueue reads it (a manifest's template the API server
    validates is refused there)."""
    tas = "under topology-aware scheduling no topology flavor fits it (\"invalid affinity node selectors ...\")"
    for ps in wl.pod_sets:
        for i, term in enumerate(ps.node_affinity):
            for kind, reqs, errors_of in (("matchExpressions", term.match_expressions, expression_errors),
                                          ("matchFields", term.match_fields, field_errors)):
                for j, req in enumerate(reqs):
                    errors = errors_of(req, f"nodeSelectorTerms[{i}].{kind}[{j}]")
                    if not errors:
                        continue
                    on = f"on `{req.key}`" if req.key else "with an empty key"
                    if kind == "matchFields":
                        note = f"its flavor assigner drops `matchFields` (flavorSelector), and {tas}"
                        fix = "a `matchFields` requirement takes `In` or `NotIn` with one value (a node name)"
                    else:
                        note = ("a flavor whose labels match no term of the affinity fails the pod set (\"failed to "
                                f"assign flavors to pod set {ps.name}: ...\", its other flavors untried), and {tas}")
                        fix = ("fix the requirement: `In`/`NotIn` take values, `Exists`/`DoesNotExist` none, "
                               "`Gt`/`Lt` one integer" if req.operator in NODE_OPERATORS else
                               "use one of the operators `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`")
                    diags.emit(UNPARSABLE_AFFINITY, f"Kueue cannot parse the requirement {on} in the "
                               f"node affinity of pod set `{ps.name}` of `{wl.key}`: `{errors[0]}`",
                               req.span or ps.field_span("node_affinity") or wl.span,
                               notes=[f"Kueue keeps the workload: {note}; kadmit decides it so"], help=fix,
                               about=about(wl))
