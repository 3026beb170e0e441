"""Places in the input a fix may change (knobs): the span and text there, the field's name in the
input's own vocabulary (Kueue's field names in manifests, `.kad` names in policy), and the edit for a
new value; the places in a workload's own spec are in `spec_knobs`."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.edits import Edit
from kadmit.model import ClusterQueue, Cohort, Model, Taint
from kadmit.quantity import format_quantity
from kadmit.source import SourceMap, Span

KAD = (".kad",)


def is_kad(span: Span, sources: SourceMap) -> bool:
    """Whether the span is in `.kad` policy (standard input: told by its text)."""
    return sources.is_kad(span.file)


def field_span(obj, key: str) -> Span | None:
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
    # taints, finish, wait (no edit), integration (no edit), tolerate, allocatable, preemption, priority, cover (`coverage`),
    # queue_name, new_local_queue (a LocalQueue document added)
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
    quota_of: str = ""  # a quota number's queue or cohort (`cq:NAME`, `cohort:NAME`), else ""

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
        """The edit that sets `value`; None for a knob no edit can set (waiting for a holder; a holder being
        deleted that an integration would let go, `integration_knob`)."""
        return None if self.kind in NO_EDIT else Edit.at(self.span, self.old, self.before + self.render(value) + self.after)

    def shown_as(self, value: int | str) -> str:
        """`shown` with the value in place of `{}` (quoted as the edit writes it)."""
        text = self.render(value)
        if self.before.endswith(('"', "'")):
            text = f"{self.before[-1]}{text}{self.before[-1]}"
        return self.shown.replace("{}", text)

    def where(self) -> str:
        return f"{self.span.file}:{self.span.line}"


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
    span = field_span(rq, which)
    old = text_at(sources, span)
    if span is None or old is None or value is None:
        return None
    if is_kad(span, sources):
        label = "cluster_queue" if kind == "cq" else "cohort"
        field = f"`{res}`" if which == "nominal" else f"`{_KAD_LIMIT[which]}` of `{res}`"
        return Knob("quota", span, old, f"{field} in flavor `{fname}`", f"{label} `{name}`", value, res, kad=True,
                    within=(f"{label} `{name}`", f"flavor `{fname}`", field), quota_of=nid)
    label = "ClusterQueue" if kind == "cq" else "Cohort"
    path = f"spec.resourceGroups[{gi}].flavors[{fi}].resources[{ri}].{_KUEUE_LIMIT[which]}"
    return Knob("quota", span, old, path, f"{label} `{name}` ({fname}, {res})", value, res,
                within=(f"{label} `{name}`", f"flavor {fname}", f"{res} {_KUEUE_LIMIT[which]}"), quota_of=nid)


def queueing_knob(sources: SourceMap, cq: ClusterQueue) -> Knob | None:
    span = field_span(cq, "queueing_strategy")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("queueing", span, old, "`queueing`", f"cluster_queue `{cq.name}`", old, kad=True)
    return Knob("queueing", span, old, "spec.queueingStrategy", f"ClusterQueue `{cq.name}`", old)


def best_effort(knob: Knob) -> str:
    return "best_effort_fifo" if knob.kad else "BestEffortFIFO"


def stop_policy_knob(sources: SourceMap, cq: ClusterQueue) -> Knob | None:
    span = field_span(cq, "stop_policy")
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
    span = field_span(lq, "cluster_queue")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("local_queue", span, old, "target", f"local_queue `{key}`", lq.cluster_queue, kad=True)
    return Knob("local_queue", span, old, "spec.clusterQueue", f"LocalQueue `{key}`", lq.cluster_queue)


def new_local_queue_knob(sources: SourceMap, lq, namespace: str) -> Knob | None:
    """A LocalQueue of `lq`'s name created in `namespace` (a workload there queued to a name only
    another namespace has), written as a document before `lq`'s own; the new value is the
    ClusterQueue it points at. Only where `lq`'s manifest document starts with `apiVersion:` at its
    first column (none in `.kad` policy or a `List`'s items)."""
    span = lq.span
    line = sources.line(span.file, span.line) if span is not None else None
    if span is None or span.column != 1 or not line or not line.startswith("apiVersion:") or is_kad(span, sources):
        return None
    line = line.rstrip("\r\n")
    at = Span(file=span.file, line=span.line, column=1, end_line=span.line, end_column=len(line) + 1)
    before = (f"{line}\nkind: LocalQueue\nmetadata:\n  name: {lq.name}\n  namespace: {namespace}\n"
              "spec:\n  clusterQueue: ")
    return Knob("new_local_queue", at, line, "a new LocalQueue", f"LocalQueue `{namespace}/{lq.name}`", "",
                before=before, after=f"\n---\n{line}")


def label_knob(model: Model, sources: SourceMap, namespace: str, key: str) -> Knob | None:
    ns = next((n for n in model.namespaces if n.name == namespace), None)
    if ns is None or key not in ns.labels:
        return None
    span = field_span(ns, f"labels.{key}")
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
            span = field_span(fq, "flavor") or field_span(cq, f"resource_groups.{gi}.flavors.{fi}")
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
    span = field_span(rule, "expr")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    return Knob("rule", span, old, "expression", f"rule `{name}`", rule.kind)


def node_taints_knob(model: Model, sources: SourceMap, node: str) -> Knob | None:
    """A node's `taints` list when it is written on one line with one taint (a fix empties it)."""
    n = next((x for x in model.nodes if x.name == node), None)
    if n is None or len(n.taints) != 1:
        return None
    span = field_span(n, "taints")
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


def integration_knob(model: Model, sources: SourceMap, key: str) -> Knob | None:
    """An admitted Workload being deleted that its job's disabled integration keeps (`kept.kept_deleting`):
    enabling the integration lets its reconciler drop the finalizer, and the Workload goes with its quota. Where
    the Configuration is a document of its own that writes no `integrations`, the edit adds them, the defaults'
    frameworks kept (`enable`: proven by deciding the edited input again, the kind's other jobs managed too);
    else no edit is made and the fix is proven by deciding again without the Workload (`integration`, as one
    waiting for a holder is)."""
    from kadmit.engine.explain.kept import kept_deleting
    wl = next((w for w in model.workloads if w.key == key), None)
    k = kept_deleting(model, wl)
    if k is None or wl is None or wl.span is None:
        return None
    line = _integrations_missing(sources, model.config.span)
    if line is not None:
        span = model.config.span
        added = f"{line}\nintegrations: {{frameworks: [{', '.join((*k.frameworks, k.framework))}]}}"
        return Knob("enable", Span(span.file, span.line, 1, span.line, len(line) + 1), line, "integrations.frameworks",
                    f"`{k.framework}`", added, shown=f"`{key}` ({k.job})")
    return Knob("integration", model.config.span or wl.span, "", "integrations.frameworks",
                f"`{k.framework}`", key, shown=f"`{key}` ({k.job})")


def _integrations_missing(sources: SourceMap, span: Span | None) -> str | None:
    """The first line of a YAML document of its own (a top-level mapping from column 1) that is a Configuration
    writing no `integrations` key; None otherwise (one inside a ConfigMap, one that writes them, `.kad`)."""
    if span is None or is_kad(span, sources):
        return None
    first = sources.line(span.file, span.line)
    if first is None or not first.startswith(("apiVersion:", "kind:")):
        return None
    lines, n = [], span.line
    while (text := sources.line(span.file, n)) is not None and (n == span.line or not text.startswith("---")):
        lines.append(text)
        n += 1
    if not any(t.replace(" ", "") in ("kind:Configuration", "kind:'Configuration'", 'kind:"Configuration"') for t in lines) \
            or any(t.startswith(("integrations:", "{")) for t in lines):
        return None
    return first


NO_EDIT = ("wait", "integration")  # knobs proven by deciding again without a holder, with no edit of the input


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
    span = field_span(n, f"allocatable.{res}")
    old = text_at(sources, span)
    if span is None or old is None:
        return None
    if is_kad(span, sources):
        return Knob("allocatable", span, old, f"`allocatable` `{res}`", f"node `{node}`", n.allocatable[res], res,
                    kad=True)
    return Knob("allocatable", span, old, f"status.allocatable[{res}]", f"Node `{node}`", n.allocatable[res], res)


def taint_text(t: Taint) -> str:
    """A taint as `.kad` writes it: `key=value:Effect` (or `key:Effect`)."""
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


_PREEMPT_FIELDS = {"within_cluster_queue": "withinClusterQueue", "reclaim_within_cohort": "reclaimWithinCohort"}
_KAD_ENUM = {"Never": "never", "LowerPriority": "lower_priority", "Any": "any",
             "LowerOrNewerEqualPriority": "lower_or_newer_equal_priority"}


def preemption_knob(sources: SourceMap, cq: ClusterQueue, which: str) -> Knob | None:
    """`withinClusterQueue` or `reclaimWithinCohort` of a queue's preemption policy, as written."""
    p = cq.preemption
    span = field_span(p, which) if p is not None else None
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
