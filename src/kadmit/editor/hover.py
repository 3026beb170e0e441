"""What to show for the name or quantity under the cursor."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kadmit.editor.project import Snapshot
from kadmit.quantity import QuantityError, parse_quantity
from kadmit.render import editor as md
from kadmit.source import Span
from kadmit.symbols import CONFIG_KINDS
from kadmit.validate.rules import known_resources

_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?(?![A-Za-z0-9_.])")
_RESOURCE_KEY = re.compile(r'"?([A-Za-z0-9_.\-/]+)"?\s*[=:]\s*"?\Z')


@dataclass(frozen=True)
class Hover:
    markdown: str
    span: Span  # what the hover is about


def hover(snap: Snapshot, file: str, line: int, column: int) -> Hover | None:
    """The hover at 1-based `line`, `column` (characters) of `file`."""
    occ = snap.symbols.at(file, line, column)
    if occ is not None:
        text = _describe(snap, occ.kind, occ.name)
        return Hover(text, occ.span) if text else None
    return _gate(snap, file, line, column) or _quantity(snap, file, line, column)


def _describe(snap: Snapshot, kind: str, name: str) -> str | None:
    ix = snap.index
    if kind == "cluster_queue" and name in ix.cluster_queues:
        return _cluster_queue(snap, ix.cluster_queues[name])
    if kind == "cohort":
        return _cohort(snap, name)
    if kind == "flavor" and name in ix.flavors:
        return _flavor(snap, ix.flavors[name])
    if kind == "workload" and name in ix.workloads:
        return _workload(snap, ix.workloads[name])
    if kind == "local_queue" and name in ix.local_queues:
        lq = ix.local_queues[name]
        waiting = sum(1 for w in snap.model.workloads if f"{w.namespace}/{w.queue}" == name)
        return md.simple_md(f"local queue `{name}`", [f"cluster queue: `{lq.cluster_queue}`",
                                                     f"workloads: {waiting}", f"stop policy: {lq.stop_policy}"])
    if kind == "priority":
        found = [p for p in snap.model.priority_classes if p.name == name]
        return md.simple_md(f"priority class `{name}`", [
            f"{'WorkloadPriorityClass' if p.kind == 'workload' else 'PriorityClass'}: value {p.value}"
            + (" (the default)" if p.global_default else "") for p in found] or ["not defined"])
    if kind == "topology" and name in ix.topologies:
        t = ix.topologies[name]
        users = sorted(f.name for f in snap.model.flavors if f.topology == name)
        return md.simple_md(f"topology `{name}`", ["levels, outermost first: " + " → ".join(f"`{lv}`" for lv in t.levels),
                                                  "flavors: " + (", ".join(f"`{u}`" for u in users) or "—")])
    if kind == "admission_check":
        return _admission_check(snap, name)
    if kind in ("provisioning_config", "multikueue_config", "multikueue_cluster"):
        return _check_config(snap, kind, name)
    if kind == "level":
        topo, _, level = name.partition("/")
        return md.simple_md(f"topology level `{level}`", [f"of topology `{topo}`"])
    if kind == "rule":
        rule = next((r for r in snap.model.rules if r.name == name), None)
        if rule is None:
            return None
        body = snap.text(rule.span.file) if rule.span is not None else None
        lines = [f"{rule.kind}" + (f", weight {rule.weight}" if rule.kind == "prefer" else "")]
        if body and rule.span is not None and rule.span.end_line:
            lines += ["```kad", *body.splitlines()[rule.span.line - 1:rule.span.end_line], "```"]
        return md.simple_md(f"rule `{name}`", lines)
    if kind == "namespace" and name in ix.namespaces:
        ns = ix.namespaces[name]
        return md.simple_md(f"namespace `{name}`", ["labels: " + (", ".join(f"`{k}={v}`" for k, v in sorted(ns.labels.items())) or "—")])
    if kind == "node":
        node = next((n for n in snap.model.nodes if n.name == name), None)
        if node is None:
            return None
        alloc = ", ".join(f"{r}={md.format_quantity(q, r)}" for r, q in sorted(node.allocatable.items()))
        return md.simple_md(f"node `{name}`", [f"allocatable: {alloc or '—'}",
                                              "labels: " + (", ".join(f"`{k}={v}`" for k, v in sorted(node.labels.items())) or "—")])
    return None


def _tree(snap: Snapshot):
    """The quota tree of the model Kueue acts on, and the admitted workloads' usage (kept per snapshot)."""
    got = snap._answers.get("tree")
    if got is None:
        from kadmit.effective import effective
        from kadmit.engine.quota import QuotaTree, Usage
        from kadmit.index import ModelIndex, admitted_usage

        ix = ModelIndex(effective(snap.model))
        usage = Usage()
        for w in ix.model.workloads:
            if w.admission is not None and w.admission.cluster_queue in ix.cluster_queues:
                usage.add(w.admission.cluster_queue, admitted_usage(w))
        got = snap._answers["tree"] = (QuotaTree(ix), usage)
    return got


def _rows(owner, queue: str | None, snap: Snapshot) -> list[md.QuotaRow]:
    """`owner`'s quota, flavor by flavor; for cluster queue `queue`, with its reach and what is free."""
    from kadmit.engine.quota import node_id

    tree, usage = _tree(snap) if queue is not None else (None, None)
    nid = node_id(queue, False) if queue is not None else ""
    known = tree is not None and nid in tree.nodes
    return [md.QuotaRow(fq.flavor, rq.resource, rq.nominal, rq.borrowing_limit, rq.lending_limit,
                        tree.available(nid, (fq.flavor, rq.resource), None) if known else None,
                        tree.available(nid, (fq.flavor, rq.resource), usage) if known else None)
            for g in owner.resource_groups for fq in g.flavors for rq in fq.resources]


def _cluster_queue(snap: Snapshot, cq) -> str:
    ix = snap.index
    lqs = sorted(q.key for q in snap.model.local_queues if q.cluster_queue == cq.name)
    pending = sum(1 for w in snap.model.workloads if w.admission is None and not w.finished
                  and (c := ix.cluster_queue_of(w)) is not None and c.name == cq.name)
    admitted = sum(1 for w in snap.model.workloads if w.admitted and w.admission.cluster_queue == cq.name)
    path = ix.cohort_path(cq.cohort) if cq.cohort else []
    return md.cluster_queue_md(cq, _rows(cq, cq.name, snap), path, lqs, pending, admitted)


def _cohort(snap: Snapshot, name: str) -> str | None:
    ix = snap.index
    c = ix.cohorts.get(name)
    if c is None:
        return None
    children, queues = ix.cohort_children.get(name, ([], []))
    return md.cohort_md(c, _rows(c, None, snap), ix.cohort_path(name), sorted(children), sorted(queues))


def _flavor(snap: Snapshot, f) -> str:
    users = sorted({("cohort " if kind == "c" else "") + o.name
                    for kind, group in (("q", snap.model.cluster_queues), ("c", snap.model.cohorts))
                    for o in group for g in o.resource_groups for fq in g.flavors if fq.flavor == f.name})
    return md.flavor_md(f, users)


def decisions(snap: Snapshot):
    """`kadmit admit` on the snapshot (kept with it): the result, or None when it can't decide."""
    if "admit" not in snap._answers:
        from kadmit import api

        out = api.admit([], workspace=snap.workspace)
        snap._answers["admit"] = out.result
    return snap._answers["admit"]


def _workload(snap: Snapshot, w) -> str:
    cq = snap.index.cluster_queue_of(w)
    line = None
    if w.admission is not None and not w.finished:
        line = f"admitted to `{w.admission.cluster_queue}` (it holds quota)"
    else:
        result = decisions(snap)
        d = next((d for d in result.decisions if d.key == w.key), None) if result is not None else None
        if d is not None:
            line = md.decision_line(d, result.reasons.get(d.key, []))
        elif result is None:
            line = "decision: not decided (errors in the input may change it: see the diagnostics)"
        else:
            line = "decision: not decided (an error in its cohort tree: see the diagnostics)"
    return md.workload_md(w, cq.name if cq is not None else None, snap.index.priority(w), line)


_GATE_KEY = re.compile(r'"?\b([A-Z][A-Za-z0-9]+)"?\s*[=:]')


def _gate(snap: Snapshot, file: str, line: int, column: int) -> Hover | None:
    """A feature gate named as a key (a `.kad` scheduler's `feature_gates`, a Configuration's `featureGates`): its
    stage, default and what kadmit does with it (`manifests.gates.describe`)."""
    text = snap.sources.line(file, line)
    if text is None:
        return None
    for m in _GATE_KEY.finditer(text):
        if m.start(1) < column <= m.end(1) + 1:
            from kadmit.manifests import gates

            lines = gates.describe(m.group(1))
            return Hover(md.simple_md(f"feature gate `{m.group(1)}`", lines + [
                "Kueue v0.17.0's gates: docs/KUEUE-DIFFERENCES.md §7"]), Span(file, line, m.start(1) + 1, line, m.end(1) + 1)) \
                if lines else None
    return None


def _quantity(snap: Snapshot, file: str, line: int, column: int) -> Hover | None:
    text = snap.sources.line(file, line)
    if text is None:
        return None
    for m in _NUMBER.finditer(text):
        if m.start() < column <= m.end() + 1 and (m.start() == 0 or not re.match(r"[A-Za-z0-9_.\-/]", text[m.start() - 1])):
            try:
                milli = parse_quantity(m.group())
            except QuantityError:
                return None
            key = _RESOURCE_KEY.search(text[:m.start()])
            resource = key.group(1) if key and key.group(1) in known_resources(snap.index) else ""
            return Hover(md.quantity_md(m.group(), milli, resource),
                         Span(file, line, m.start() + 1, line, m.end() + 1))
    return None


def _admission_check(snap: Snapshot, name: str) -> str:
    """An admission check: its controller and parameters, whether Kueue takes it as Active (and why
    not), and the queues that require it."""
    activity = snap.index.check_activity
    ac = activity.checks.get(name)
    queues = [(cq.name, r.on_flavors) for cq in sorted(snap.model.cluster_queues, key=lambda c: c.name)
              for r in cq.admission_checks if r.name == name]
    used = "cluster queues: " + (", ".join(f"`{q}`" + (f" (on {', '.join(f'`{f}`' for f in fl)})" if fl else "")
                                           for q, fl in queues) or "—")
    if ac is None:
        return md.simple_md(f"admission check `{name}`", ["not defined", used])
    p = ac.parameters
    why = activity.inactive_reason(name)
    return md.simple_md(f"admission check `{name}`", [
        f"controller: `{ac.controller}`",
        "parameters: " + (f"{p.kind} `{p.name}`" + (f" ({p.api_group})" if p.api_group else "") if p is not None else "—"),
        "Active" if not why else f"not Active: {why}", used])


def _check_config(snap: Snapshot, kind: str, name: str) -> str | None:
    found = [c for c in snap.model.check_configs if CONFIG_KINDS[c.kind] == kind and c.name == name]
    if not found:
        return md.simple_md(f"{kind} `{name}`", ["not defined"])
    c = found[0]
    if c.kind == "ProvisioningRequestConfig":
        users = sorted(a.name for a in snap.model.admission_checks if a.parameters is not None
                       and a.parameters.kind == c.kind and a.parameters.name == name)
        return md.simple_md(f"ProvisioningRequestConfig `{name}`", [
            f"provisioning class: `{c.provisioning_class}`",
            "managed resources: " + (", ".join(f"`{r}`" for r in c.managed_resources) or "all"),
            "admission checks: " + (", ".join(f"`{u}`" for u in users) or "—")])
    if c.kind == "MultiKueueConfig":
        return md.simple_md(f"MultiKueueConfig `{name}`", ["clusters: " + (", ".join(f"`{x}`" for x in c.clusters) or "—")])
    return md.simple_md(f"MultiKueueCluster `{name}`", [
        "Active (as given)" if c.status_active else "not Active: Kueue has not connected to it",
        f"kubeconfig: `{c.kubeconfig}`" if c.kubeconfig else f"cluster profile: `{c.cluster_profile}`"])
