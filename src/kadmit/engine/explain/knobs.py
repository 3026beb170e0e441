"""Places in the input a fix may change (knobs): the span and text there, the field's name in the
input's own vocabulary (Kueue's field names in manifests, `.kad` names in policy), and the edit for a
new value."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from kadmit.edits import Edit
from kadmit.model import ClusterQueue, Cohort, Model, Taint, Workload
from kadmit.quantity import format_quantity
from kadmit.source import SourceMap, Span

KAD = (".kad",)


def is_kad(span: Span, sources: SourceMap) -> bool:
    """Whether the span is in `.kad` policy (standard input: told by its text)."""
    return sources.is_kad(span.file)


def _own(obj, key: str) -> Span | None:
    """The span of one field of `obj` as written (never the object's own span as a fallback)."""
    return obj.spans.get(key) if obj.spans is not None else None


def text_at(sources: SourceMap, span: Span | None) -> str | None:
    """The source text a one-line span covers."""
    if span is None or (span.end_line is not None and span.end_line != span.line):
        return None
    line = sources.line(span.file, span.line)
    if line is None:
        return None
    end = span.end_column - 1 if span.end_column else len(line)
    return line[span.column - 1:end] or None


@dataclass(frozen=True)
class Knob:
    """One value in the input: where, what it says now, and how it is named."""

    kind: str  # quota, min_count, count, queueing, stop_policy, local_queue, label, rule, flavor_ref, topology,
    # taints, finish, wait (no edit), tolerate, allocatable, preemption, priority, cover (`coverage`)
    span: Span
    old: str  # the text at the span
    field: str  # e.g. `spec.resourceGroups[0].flavors[0].resources[2].nominalQuota` or `borrow`
    subject: str  # e.g. "ClusterQueue `team-vision`" or "cluster_queue `team-vision`"
    value: int | str
    resource: str = ""
    scale: int = 1  # pods per unit of the written number (a job's replicas), else 1
    kad: bool = False  # written in `.kad` policy (else a manifest)
    shown: str = ""  # the new value as the reader should see it, where the edit's text spans lines
    before: str = ""  # text written before the value (a value inside new text: `coverage`)
    after: str = ""
    workload: str = ""  # the workload whose spec it is in (a pod set's count, its priority, …), else ""
    within: tuple[str, str, str] = ()  # (object, part, value): `ClusterQueue `a``, `flavor a100`, `cpu nominalQuota`

    def render(self, value: int | str) -> str:
        if isinstance(value, int) and self.kind in ("quota", "allocatable", "cover"):
            text = format_quantity(value, self.resource)
        elif isinstance(value, int):
            text = str(value)
        else:
            text = value
        if len(self.old) >= 2 and self.old[0] == self.old[-1] and self.old[0] in "\"'":
            text = f"{self.old[0]}{text}{self.old[0]}"
        return text

    def edit(self, value: int | str) -> Edit | None:
        """The edit that sets `value`; None for a knob no edit can set (waiting for a holder)."""
        return None if self.kind == "wait" else Edit.at(self.span, self.old, self.before + self.render(value) + self.after)

    def shown_as(self, value: int | str) -> str:
        """`shown` with the value in place of `{}` (quoted as the edit writes it)."""
        text = self.render(value)
        if self.before.endswith(('"', "'")):
            text = f"{self.before[-1]}{text}{self.before[-1]}"
        return self.shown.replace("{}", text)

    def where(self) -> str:
        return f"{self.span.file}:{self.span.line}"


def _of_workload(build):
    """A builder of knobs in a workload's spec: its knob names the workload (`Knob.workload`), whose
    owner makes the change (`prove.actor_of`)."""
    @functools.wraps(build)
    def built(*args, **kwargs) -> Knob | None:
        knob = build(*args, **kwargs)
        wl = next((a for a in args if isinstance(a, Workload)), None)
        return knob if knob is None or wl is None else replace(knob, workload=wl.key)
    return built


def _quota_path(groups, fname: str, res: str) -> tuple[int, int, int] | None:
    for gi, g in enumerate(groups):
        for fi, fq in enumerate(g.flavors):
            if fq.flavor != fname:
                continue
            for ri, rq in enumerate(fq.resources):
                if rq.resource == res:
                    return gi, fi, ri
    return None


_KUEUE_LIMIT = {"nominal": "nominalQuota", "borrowing_limit": "borrowingLimit", "lending_limit": "lendingLimit"}
_KAD_LIMIT = {"borrowing_limit": "borrow", "lending_limit": "lend"}


def quota_knob(model: Model, sources: SourceMap, nid: str, fname: str, res: str, which: str) -> Knob | None:
    """A nominal quota, borrowing or lending limit of a cluster queue (`cq:NAME`) or cohort (`cohort:NAME`)."""
    kind, name = nid.split(":", 1)
    objs: tuple[ClusterQueue | Cohort, ...] = model.cluster_queues if kind == "cq" else model.cohorts
    obj = next((o for o in objs if o.name == name), None)
    if obj is None:
        return None
    at = _quota_path(obj.resource_groups, fname, res)
    if at is None:
        return None
    gi, fi, ri = at
    rq = obj.resource_groups[gi].flavors[fi].resources[ri]
    value = getattr(rq, "nominal" if which == "nominal" else which)
    span = _own(rq, which)
    old = text_at(sources, span)
    if span is None or old is None or value is None:
        return None
    if is_kad(span, sources):
        label = "cluster_queue" if kind == "cq" else "cohort"
        field = f"`{res}`" if which == "nominal" else f"`{_KAD_LIMIT[which]}` of `{res}`"
        return Knob("quota", span, old, f"{field} in flavor `{fname}`", f"{label} `{name}`", value, res, kad=True,
                    within=(f"{label} `{name}`", f"flavor `{fname}`", field))
    label = "ClusterQueue" if kind == "cq" else "Cohort"
    path = f"spec.resourceGroups[{gi}].flavors[{fi}].resources[{ri}].{_KUEUE_LIMIT[which]}"
    return Knob("quota", span, old, path, f"{label} `{name}` ({fname}, {res})", value, res,
                within=(f"{label} `{name}`", f"flavor {fname}", f"{res} {_KUEUE_LIMIT[which]}"))


@_of_workload
def pod_set_knob(sources: SourceMap, wl: Workload, ps_name: str, which: str) -> Knob | None:
    """`min_count` or `count` of a pod set."""
    idx = next((i for i, p in enumerate(wl.pod_sets) if p.name == ps_name), None)
    if idx is None:
        return None
    ps = wl.pod_sets[idx]
    value = ps.min_count if which == "min_count" else ps.count
    span = _own(ps, which)
    old = text_at(sources, span)
    if span is None or old is None or value is None or not old.strip("\"'").isdigit():
        return None
    written = int(old.strip("\"'"))
    key = key_of_value(sources.line(span.file, span.line) or "", span.column)
    if is_kad(span, sources):
        if written != value:
            return None
        return Knob(which, span, old, f"`{which}`", f"pod_group `{ps_name}` of workload `{wl.key}`", value, kad=True)
    if key in ("count", "minCount") and written == value:
        field = "minCount" if which == "min_count" else "count"
        return Knob(which, span, old, f"spec.podSets[{idx}].{field}", f"Workload `{wl.key}`", value)
    if which == "min_count" and key == MIN_PARALLELISM and written == value:
        return Knob(which, span, old, f"metadata.annotations[{key}]", _job(wl), value)
    # a job's own field (a JobSet's `replicas`, a Job's `parallelism`): the pod set counts
    # `value // written` pods per unit of it
    if which != "count" or written <= 0 or value % written or not key:
        return None
    per = value // written
    return Knob(which, span, old, f"`{key}`", f"the job of workload `{wl.key}`"
                + (f" ({per} pods each)" if per > 1 else ""), written, scale=per)


MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
# The key a value is written after: the last plain or quoted scalar before its `:`
_KEY = re.compile(r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s{}\[\],"'#][^{}\[\],#]*?))\s*:\s*$""")


def key_of_value(line: str, column: int) -> str:
    """The mapping key of the value at `column` (1-based) of a YAML or JSON line: `count` in `  count: 2`,
    `- count: 2`, a flow mapping's `{name: main, count: 2}` and JSON's `"count": 2`; "" when the value
    follows no key on its line."""
    m = _KEY.search(line[:column - 1])
    if m is None:
        return ""
    double, single, plain = m.groups()
    if double is not None:
        return double
    if single is not None:
        return single.replace("''", "'")
    while plain.startswith("- "):  # a block sequence's item: `- count: 2`
        plain = plain[2:].lstrip()
    return plain.strip()


def _job(wl: Workload) -> str:
    return f"{wl.origin.kind} `{wl.origin.name}`" if wl.origin is not None else f"the job of workload `{wl.key}`"


@_of_workload
def per_job_knob(sources: SourceMap, wl: Workload, ps_name: str) -> Knob | None:
    """The `parallelism` of a replicated job's template (a JobSet's pod set counts `replicas` ×
    pods per job): each unit of it is `replicas` pods."""
    ps = next((p for p in wl.pod_sets if p.name == ps_name), None)
    span = _own(ps, "parallelism") if ps is not None else None
    old = text_at(sources, span)
    if ps is None or span is None or old is None or not old.strip("\"'").isdigit():
        return None
    written = int(old.strip("\"'"))
    replicas_text = text_at(sources, _own(ps, "count"))
    replicas = int(replicas_text.strip("\"'")) if replicas_text and replicas_text.strip("\"'").isdigit() else 1
    if replicas <= 0 or written <= 1 or ps.count % replicas or ps.count // replicas > written:
        return None
    return Knob("count", span, old, "`parallelism`", f"replicated job `{ps_name}` of {_job(wl)}"
                + (f" ({replicas} jobs)" if replicas > 1 else ""), written, scale=replicas)


def queueing_knob(sources: SourceMap, cq: ClusterQueue) -> Knob | None:
    span = _own(cq, "queueing_strategy")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("queueing", span, old, "`queueing`", f"cluster_queue `{cq.name}`", old, kad=True)
    return Knob("queueing", span, old, "spec.queueingStrategy", f"ClusterQueue `{cq.name}`", old)


def best_effort(knob: Knob) -> str:
    return "best_effort_fifo" if knob.kad else "BestEffortFIFO"


def stop_policy_knob(sources: SourceMap, cq: ClusterQueue) -> Knob | None:
    span = _own(cq, "stop_policy")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("stop_policy", span, old, "`stop_policy`", f"cluster_queue `{cq.name}`", old, kad=True)
    return Knob("stop_policy", span, old, "spec.stopPolicy", f"ClusterQueue `{cq.name}`", old)


def no_stop(knob: Knob) -> str:
    return "none" if knob.kad and knob.old.islower() else "None"


def local_queue_knob(model: Model, sources: SourceMap, key: str) -> Knob | None:
    lq = next((q for q in model.local_queues if q.key == key), None)
    if lq is None:
        return None
    span = _own(lq, "cluster_queue")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("local_queue", span, old, "target", f"local_queue `{key}`", lq.cluster_queue, kad=True)
    return Knob("local_queue", span, old, "spec.clusterQueue", f"LocalQueue `{key}`", lq.cluster_queue)


def label_knob(model: Model, sources: SourceMap, namespace: str, key: str) -> Knob | None:
    ns = next((n for n in model.namespaces if n.name == namespace), None)
    if ns is None or key not in ns.labels:
        return None
    span = _own(ns, f"labels.{key}")
    old = text_at(sources, span)
    if span is None or old is None or ns.labels[key] not in old:
        return None
    # the span may cover `key = "value"` or `key: value`; edit the value only
    at = old.rfind(ns.labels[key])
    value_span = Span(file=span.file, line=span.line, column=span.column + at,
                      end_line=span.line, end_column=span.column + at + len(ns.labels[key]))
    if is_kad(span, sources):
        return Knob("label", value_span, ns.labels[key], f"label `{key}`", f"namespace `{namespace}`", ns.labels[key], kad=True)
    return Knob("label", value_span, ns.labels[key], f"metadata.labels.{key}", f"Namespace `{namespace}`",
                ns.labels[key])


def flavor_ref_knob(sources: SourceMap, cq: ClusterQueue, fname: str) -> Knob | None:
    for gi, g in enumerate(cq.resource_groups):
        for fi, fq in enumerate(g.flavors):
            if fq.flavor != fname:
                continue
            span = _own(fq, "flavor") or _own(cq, f"resource_groups.{gi}.flavors.{fi}")
            old = text_at(sources, span)
            if span is None or old is None or fname not in old:
                continue
            at = old.find(fname)
            name_span = Span(file=span.file, line=span.line, column=span.column + at, end_line=span.line,
                             end_column=span.column + at + len(fname))
            if is_kad(span, sources):
                return Knob("flavor_ref", name_span, fname, f"flavor `{fname}`", f"cluster_queue `{cq.name}`", fname, kad=True)
            return Knob("flavor_ref", name_span, fname, f"spec.resourceGroups[{gi}].flavors[{fi}].name",
                        f"ClusterQueue `{cq.name}`", fname)
    return None


def rule_knob(model: Model, sources: SourceMap, name: str) -> Knob | None:
    """A rule's expression, when it is on one line (a fix sets it to `true`/`false`)."""
    rule = next((r for r in model.rules if r.name == name), None)
    if rule is None:
        return None
    span = _own(rule, "expr")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    return Knob("rule", span, old, "expression", f"rule `{name}`", rule.kind)


@_of_workload
def topology_knob(sources: SourceMap, wl: Workload, ps_name: str) -> Knob | None:
    """The word `required` of a pod set's topology request (a fix makes it `preferred`)."""
    idx = next((i for i, p in enumerate(wl.pod_sets) if p.name == ps_name), None)
    if idx is None:
        return None
    ps = wl.pod_sets[idx]
    span = _own(ps, "topology")
    if span is None or ps.topology is None or ps.topology.mode != "required":
        return None
    line = sources.line(span.file, span.line) or ""
    at = line.rfind("required", 0, span.column - 1 + len("required"))
    if at < 0:
        return None
    word = Span(file=span.file, line=span.line, column=at + 1, end_line=span.line, end_column=at + 1 + len("required"))
    if is_kad(span, sources):
        return Knob("topology", word, "required", "`topology`", f"pod_group `{ps_name}` of workload `{wl.key}`",
                    "required", kad=True)
    field = ("metadata.annotations[kueue.x-k8s.io/podset-required-topology]" if "podset-required-topology" in line
             else f"spec.podSets[{idx}].topologyRequest.required")
    return Knob("topology", word, "required", field, f"Workload `{wl.key}`", "required")


def node_taints_knob(model: Model, sources: SourceMap, node: str) -> Knob | None:
    """A node's `taints` list when it is written on one line with one taint (a fix empties it)."""
    n = next((x for x in model.nodes if x.name == node), None)
    if n is None or len(n.taints) != 1:
        return None
    span = _own(n, "taints")
    old = text_at(sources, span)
    if span is None or old is None or not (old.startswith("[") and old.endswith("]")):
        return None
    kad = is_kad(span, sources)
    return Knob("taints", span, old, "`taints`" if kad else "spec.taints", f"node `{node}`", old, kad=kad)


def finish_knob(model: Model, sources: SourceMap, key: str) -> Knob | None:
    """An admitted workload that holds what the asked one needs, finished: in `.kad`, marked
    `finished = true` after its opening brace; in manifests no edit says a workload finished, so
    the fix waits for it (`wait_knob`)."""
    wl = next((w for w in model.workloads if w.key == key), None)
    if wl is None or wl.span is None or not wl.admitted:
        return None
    if not is_kad(wl.span, sources):
        return wait_knob(model, key)
    line = sources.line(wl.span.file, wl.span.line) or ""
    at = line.find("{", wl.span.column - 1)
    if at < 0:
        return None
    span = Span(file=wl.span.file, line=wl.span.line, column=at + 1, end_line=wl.span.line, end_column=at + 2)
    new = "{ finished = true" + (" " if line[at + 1:].strip() else "")
    return Knob("finish", span, "{", "`finished`", f"workload `{key}`", new, kad=True)


def wait_knob(model: Model, key: str) -> Knob | None:
    """A running workload or bound pod (`pod:ns/name`) to wait for: no edit of the input, the fix is
    proven by deciding again with it finished (`finished`)."""
    if key.startswith("pod:"):
        pod = next((p for p in model.pods if f"{p.namespace}/{p.name}" == key[4:] and p.holds_capacity), None)
        if pod is None or pod.span is None:
            return None
        return Knob("wait", pod.span, "", "", f"pod `{key[4:]}`", key)
    wl = next((w for w in model.workloads if w.key == key), None)
    if wl is None or wl.span is None or not wl.admitted or wl.finished:
        return None
    return Knob("wait", wl.span, "", "", f"workload `{key}`", key)


def finished(model: Model, keys: list[str]) -> Model:
    """The model with workloads `keys` finished and pods `pod:ns/name` succeeded: what the cluster
    decides once the holders a fix waits for are gone."""
    pods = {k[4:] for k in keys if k.startswith("pod:")}
    done = {k for k in keys if not k.startswith("pod:")}
    update: dict = {}
    if done:
        update["workloads"] = tuple(w.model_copy(update={"finished": True}) if w.key in done else w
                                    for w in model.workloads)
    if pods:
        update["pods"] = tuple(p.model_copy(update={"phase": "Succeeded"}) if f"{p.namespace}/{p.name}" in pods
                               else p for p in model.pods)
    return model.model_copy(update=update) if update else model


def allocatable_knob(model: Model, sources: SourceMap, node: str, res: str) -> Knob | None:
    """A node's allocatable quantity of one resource, as written (`status.allocatable` in a Node
    manifest, `allocatable` in `.kad`)."""
    n = next((x for x in model.nodes if x.name == node), None)
    if n is None or res not in n.allocatable:
        return None
    span = _own(n, f"allocatable.{res}")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("allocatable", span, old, f"`allocatable` `{res}`", f"node `{node}`", n.allocatable[res], res,
                    kad=True)
    return Knob("allocatable", span, old, f"status.allocatable[{res}]", f"Node `{node}`", n.allocatable[res], res)


@_of_workload
def tolerate_knob(sources: SourceMap, wl: Workload, ps_name: str, taint: Taint) -> Knob | None:
    """A pod set's tolerations with one more, for `taint`: in `.kad`, appended to a one-line list
    or a new `tolerations` attribute after the pod group's opening brace; in a manifest, the pod
    template's `spec.tolerations` (see `_yaml_tolerate`)."""
    idx = next((i for i, p in enumerate(wl.pod_sets) if p.name == ps_name), None)
    if idx is None:
        return None
    ps = wl.pod_sets[idx]
    if ps.span is None:
        return None
    if not is_kad(ps.span, sources):
        return _yaml_tolerate(sources, wl, idx, taint)
    toleration = taint_text(taint)
    where = f"pod_group `{ps_name}` of workload `{wl.key}`"
    span = _own(ps, "tolerations")
    if span is not None:
        old = text_at(sources, span)
        if old is None or not (old.startswith("[") and old.endswith("]")):
            return None
        inner = old[1:-1].strip()
        new = f"[{inner}, \"{toleration}\"]" if inner else f"[\"{toleration}\"]"
        return Knob("tolerate", span, old, "`tolerations`", where, new, kad=True)
    line = sources.line(ps.span.file, ps.span.line) or ""
    at = line.find("{", ps.span.column - 1)
    if at < 0:
        return None
    brace = Span(file=ps.span.file, line=ps.span.line, column=at + 1, end_line=ps.span.line, end_column=at + 2)
    new = f"{{ tolerations = [\"{toleration}\"]" + (" " if line[at + 1:].strip() else "")
    return Knob("tolerate", brace, "{", "`tolerations`", where, new, kad=True)


def taint_text(t: Taint) -> str:
    """A taint as `.kad` writes it: `key=value:Effect` (or `key:Effect`)."""
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def _toleration_item(t: Taint) -> str:
    """A toleration of `t` as a flow mapping (valid YAML and JSON)."""
    if t.value:
        return f'{{"key": "{t.key}", "operator": "Equal", "value": "{t.value}", "effect": "{t.effect}"}}'
    return f'{{"key": "{t.key}", "operator": "Exists", "effect": "{t.effect}"}}'


def _yaml_tolerate(sources: SourceMap, wl: Workload, idx: int, taint: Taint) -> Knob | None:
    """A manifest pod template's `spec.tolerations` with one more: appended to a one-line flow list,
    put before the first item of a block list, or a new `tolerations` key before the template
    spec's first key. The new text may span lines; the edit replaces text on one line."""
    ps = wl.pod_sets[idx]
    item = _toleration_item(taint)
    if _own(ps, "name") is not None:  # a Workload's own pod set
        field, subject = f"spec.podSets[{idx}].template.spec.tolerations", f"Workload `{wl.key}`"
    else:  # a job's pod template
        job = f"{wl.origin.kind} `{wl.origin.name}`" if wl.origin is not None else f"the job of workload `{wl.key}`"
        field, subject = "the pod template's `spec.tolerations`", f"{job} (pod set `{ps.name}`)"

    def knob(at: Span, old: str, new: str) -> Knob:
        return Knob("tolerate", at, old, field, subject, new, shown=item)

    span = _own(ps, "tolerations")
    if span is not None:
        line = sources.line(span.file, span.line) or ""
        old = text_at(sources, span)
        if old is not None and old.startswith("[") and old.endswith("]"):
            inner = old[1:-1].strip()
            return knob(span, old, f"[{inner}, {item}]" if inner else f"[{item}]")
        indent = line[:span.column - 1]
        if line[span.column - 1:span.column] != "-" or indent.strip():
            return None
        at = Span(file=span.file, line=span.line, column=span.column, end_line=span.line, end_column=span.column + 1)
        return knob(at, "-", f"- {item}\n{indent}-")
    span = _own(ps, "template_spec")
    if span is None:
        return None
    line = sources.line(span.file, span.line) or ""
    indent, rest = line[:span.column - 1], line[span.column - 1:]
    if rest.startswith("{"):  # a flow mapping: first in it
        got = _key_before(sources, span, f"tolerations: [{item}]")
        return knob(*got) if got is not None else None
    key = rest.split(":", 1)[0]
    if indent.strip() or not key or ":" not in rest or key.startswith(("{", "[", "\"", "'", "?")):
        return None
    at = Span(file=span.file, line=span.line, column=span.column, end_line=span.line, end_column=span.column + len(key))
    return knob(at, key, f"tolerations: [{item}]\n{indent}{key}")


_PREEMPT_FIELDS = {"within_cluster_queue": "withinClusterQueue", "reclaim_within_cohort": "reclaimWithinCohort"}
_KAD_ENUM = {"Never": "never", "LowerPriority": "lower_priority", "Any": "any",
             "LowerOrNewerEqualPriority": "lower_or_newer_equal_priority"}


def preemption_knob(sources: SourceMap, cq: ClusterQueue, which: str) -> Knob | None:
    """`withinClusterQueue` or `reclaimWithinCohort` of a queue's preemption policy, as written."""
    p = cq.preemption
    span = _own(p, which) if p is not None else None
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    value = getattr(p, which)
    if is_kad(span, sources):
        return Knob("preemption", span, old, f"`preemption {{ {which} }}`", f"cluster_queue `{cq.name}`", value, kad=True)
    return Knob("preemption", span, old, f"spec.preemption.{_PREEMPT_FIELDS[which]}", f"ClusterQueue `{cq.name}`",
                value)


def enum_text(knob: Knob, value: str) -> str:
    """A Kueue enum value as the knob's file writes it."""
    return _KAD_ENUM.get(value, value) if knob.kad else value


@_of_workload
def priority_knob(model: Model, sources: SourceMap, wl: Workload) -> Knob | None:
    """A workload's priority class, as written: a `.kad` workload's `priority`, a job's
    `kueue.x-k8s.io/priority-class` label, a Workload's `spec.priorityClassName`."""
    span = _own(wl, "priority_class")
    old = text_at(sources, span)
    if span is None or old is None or wl.priority is not None or old.strip("\"'") != wl.priority_class:
        return None
    if is_kad(span, sources):
        return Knob("priority", span, old, "`priority`", f"workload `{wl.key}`", old, kad=True)
    key = key_of_value(sources.line(span.file, span.line) or "", span.column)
    if key == PRIORITY_LABEL:
        return Knob("priority", span, old, f"metadata.labels[{PRIORITY_LABEL}]", _job(wl), wl.priority_class)
    if key == "priorityClassName":
        return Knob("priority", span, old, "spec.priorityClassName", f"Workload `{wl.key}`", wl.priority_class)
    return None


PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"


UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"


def _key_before(sources: SourceMap, span: Span | None, key_text: str) -> tuple[Span, str, str] | None:
    """A new `key: value` (`key_text`) first in the mapping at `span`: (where, old, new), for a block
    mapping (before its first key, at its indentation) or a flow one (after its `{`)."""
    if span is None:
        return None
    line = sources.line(span.file, span.line) or ""
    rest = line[span.column - 1:]
    if rest.startswith("{"):
        at = Span(span.file, span.line, span.column, span.line, span.column + 1)
        return at, "{", "{" + key_text + ("" if rest[1:].lstrip().startswith("}") else ", ")
    head = line[:span.column - 1]
    if head.strip() not in ("", "-"):
        return None
    key = rest.split(":", 1)[0]
    if not key or ":" not in rest or key.startswith(("[", "\"", "'", "?", "#")):
        return None
    at = Span(span.file, span.line, span.column, span.line, span.column + len(key))
    return at, key, f"{key_text}\n{' ' * (span.column - 1)}{key}"


@_of_workload
def unconstrained_knob(sources: SourceMap, wl: Workload, ps_name: str) -> Knob | None:
    """A manifest pod set asking for topology-aware scheduling without a constraint: a Workload's
    `topologyRequest: {unconstrained: true}`, a job's pod template annotation
    `kueue.x-k8s.io/podset-unconstrained-topology: "true"` (Kueue places a pod set on a topology
    flavor of a queue that has other flavors only when it asks for a topology)."""
    idx = next((i for i, p in enumerate(wl.pod_sets) if p.name == ps_name), None)
    if idx is None:
        return None
    ps = wl.pod_sets[idx]
    if ps.topology is not None or ps.span is None:
        return None
    if is_kad(ps.span, sources):  # `topology = unconstrained` first in the pod group
        line = sources.line(ps.span.file, ps.span.line) or ""
        at = line.find("{", ps.span.column - 1)
        if at < 0:
            return None
        brace = Span(ps.span.file, ps.span.line, at + 1, ps.span.line, at + 2)
        new = "{ topology = unconstrained" + (" " if line[at + 1:].strip() else "")
        return Knob("cover", brace, "{", "`topology`", f"pod_group `{ps_name}` of workload `{wl.key}`", new,
                    kad=True, shown="`topology = unconstrained`")
    if _own(ps, "name") is not None:  # a Workload's own pod set
        text = "topologyRequest: {unconstrained: true}"
        got = _key_before(sources, ps.span, text)
        field, subject = f"spec.podSets[{idx}]", f"Workload `{wl.key}`"
    else:
        annotation = f'{UNCONSTRAINED}: "true"'
        if _own(ps, "template_annotations") is not None:
            text, field = annotation, "the pod template's metadata.annotations"
            got = _key_before(sources, _own(ps, "template_annotations"), text)
        elif _own(ps, "template_metadata") is not None:
            text, field = f"annotations: {{{annotation}}}", "the pod template's metadata"
            got = _key_before(sources, _own(ps, "template_metadata"), text)
        else:
            text, field = f"metadata: {{annotations: {{{annotation}}}}}", "the pod template"
            got = _key_before(sources, _own(ps, "template"), text)
        job = f"{wl.origin.kind} `{wl.origin.name}`" if wl.origin is not None else f"the job of workload `{wl.key}`"
        subject = f"{job} (pod set `{ps_name}`)"
    if got is None:
        return None
    at, old, new = got
    return Knob("cover", at, old, field, subject, new, shown=f"`{text}`")
