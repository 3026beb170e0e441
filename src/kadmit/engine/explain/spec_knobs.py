"""Places in a workload's own spec a fix may change (its owner makes the change: `prove.actor_of`):
a pod set's count or minimum, a replicated job's parallelism, a topology request, tolerations, the
priority class, an unconstrained topology request."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from kadmit.engine.explain.knobs import Knob, field_span, is_kad, taint_text, text_at
from kadmit.model import Model, Taint, Workload
from kadmit.source import SourceMap, Span


def _of_workload(build):
    """A builder of knobs in a workload's spec: its knob names the workload (`Knob.workload`), whose
    owner makes the change (`prove.actor_of`)."""
    @functools.wraps(build)
    def built(*args, **kwargs) -> Knob | None:
        knob = build(*args, **kwargs)
        wl = next((a for a in args if isinstance(a, Workload)), None)
        return knob if knob is None or wl is None else replace(knob, workload=wl.key)
    return built


@_of_workload
def pod_set_knob(sources: SourceMap, wl: Workload, ps_name: str, which: str) -> Knob | None:
    """`min_count` or `count` of a pod set."""
    idx = next((i for i, p in enumerate(wl.pod_sets) if p.name == ps_name), None)
    if idx is None:
        return None
    ps = wl.pod_sets[idx]
    value = ps.min_count if which == "min_count" else ps.count
    span = field_span(ps, which)
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
    span = field_span(ps, "parallelism") if ps is not None else None
    old = text_at(sources, span)
    if ps is None or span is None or old is None or not old.strip("\"'").isdigit():
        return None
    written = int(old.strip("\"'"))
    replicas_text = text_at(sources, field_span(ps, "count"))
    replicas = int(replicas_text.strip("\"'")) if replicas_text and replicas_text.strip("\"'").isdigit() else 1
    if replicas <= 0 or written <= 1 or ps.count % replicas or ps.count // replicas > written:
        return None
    return Knob("count", span, old, "`parallelism`", f"replicated job `{ps_name}` of {_job(wl)}"
                + (f" ({replicas} jobs)" if replicas > 1 else ""), written, scale=replicas)


@_of_workload
def topology_knob(sources: SourceMap, wl: Workload, ps_name: str) -> Knob | None:
    """The word `required` of a pod set's topology request (a fix makes it `preferred`)."""
    idx = next((i for i, p in enumerate(wl.pod_sets) if p.name == ps_name), None)
    if idx is None:
        return None
    ps = wl.pod_sets[idx]
    span = field_span(ps, "topology")
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
    span = field_span(ps, "tolerations")
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
    if field_span(ps, "name") is not None:  # a Workload's own pod set
        field, subject = f"spec.podSets[{idx}].template.spec.tolerations", f"Workload `{wl.key}`"
    else:  # a job's pod template
        job = f"{wl.origin.kind} `{wl.origin.name}`" if wl.origin is not None else f"the job of workload `{wl.key}`"
        field, subject = "the pod template's `spec.tolerations`", f"{job} (pod set `{ps.name}`)"

    def knob(at: Span, old: str, new: str) -> Knob:
        return Knob("tolerate", at, old, field, subject, new, shown=item)

    span = field_span(ps, "tolerations")
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
    span = field_span(ps, "template_spec")
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


@_of_workload
def priority_knob(model: Model, sources: SourceMap, wl: Workload) -> Knob | None:
    """A workload's priority class, as written: a `.kad` workload's `priority`, a job's
    `kueue.x-k8s.io/priority-class` label, a Workload's `spec.priorityClassName`."""
    span = field_span(wl, "priority_class")
    old = text_at(sources, span)
    if span is None or old is None or wl.priority is not None or old.strip("\"'") != wl.priority_class:
        return None
    return _written_knob("priority", "priority", sources, wl, span, old, PRIORITY_LABEL, "priorityClassName",
                         wl.priority_class)


@_of_workload
def queue_name_knob(sources: SourceMap, wl: Workload) -> Knob | None:
    """The name of the LocalQueue a workload is queued to, as written: a `.kad` workload's `queue`, a
    job's `kueue.x-k8s.io/queue-name` label, a Workload's `spec.queueName`."""
    span = field_span(wl, "queue")
    old = text_at(sources, span)
    if span is None or old is None or old.strip("\"'") != wl.queue:
        return None
    return _written_knob("queue_name", "queue", sources, wl, span, old, QUEUE_LABEL, "queueName", wl.queue)


def _written_knob(kind: str, kad_field: str, sources: SourceMap, wl: Workload, span: Span, old: str, label: str,
                  spec_field: str, value: str) -> Knob | None:
    """A workload's knob where it is written: a `.kad` workload's field `kad_field`, a job's
    label `label`, or a Workload's `spec.<spec_field>`; None elsewhere (the span is no such value)."""
    if is_kad(span, sources):
        return Knob(kind, span, old, f"`{kad_field}`", f"workload `{wl.key}`", old, kad=True)
    key = key_of_value(sources.line(span.file, span.line) or "", span.column)
    if key == label:
        return Knob(kind, span, old, f"metadata.labels[{label}]", _job(wl), value)
    if key == spec_field:
        return Knob(kind, span, old, f"spec.{spec_field}", f"Workload `{wl.key}`", value)
    return None


QUEUE_LABEL = "kueue.x-k8s.io/queue-name"

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
    if field_span(ps, "name") is not None:  # a Workload's own pod set
        text = "topologyRequest: {unconstrained: true}"
        got = _key_before(sources, ps.span, text)
        field, subject = f"spec.podSets[{idx}]", f"Workload `{wl.key}`"
    else:
        annotation = f'{UNCONSTRAINED}: "true"'
        if field_span(ps, "template_annotations") is not None:
            text, field = annotation, "the pod template's metadata.annotations"
            got = _key_before(sources, field_span(ps, "template_annotations"), text)
        elif field_span(ps, "template_metadata") is not None:
            text, field = f"annotations: {{{annotation}}}", "the pod template's metadata"
            got = _key_before(sources, field_span(ps, "template_metadata"), text)
        else:
            text, field = f"metadata: {{annotations: {{{annotation}}}}}", "the pod template"
            got = _key_before(sources, field_span(ps, "template"), text)
        job = f"{wl.origin.kind} `{wl.origin.name}`" if wl.origin is not None else f"the job of workload `{wl.key}`"
        subject = f"{job} (pod set `{ps_name}`)"
    if got is None:
        return None
    at, old, new = got
    return Knob("cover", at, old, field, subject, new, shown=f"`{text}`")
