"""Covering a resource a cluster queue has no quota for (Kueue: "resource … unavailable in
ClusterQueue"): the resource added to one of its resource groups, as Kueue requires it — named in
the group's `coveredResources` and given a quota in every flavor of the group (in the same order) —
either in a flavor the group has, or in a flavor appended to the group. Each option is the edits
that only make a valid queue together; the one number searched (the quota in the flavor meant to
hold the workload) is a knob, the rest is fixed text."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kadmit.engine.explain.bounds import min_request
from kadmit.engine.explain.knobs import Knob, is_kad
from kadmit.engine.explain.spec_knobs import unconstrained_knob
from kadmit.model import ClusterQueue, FlavorQuotas, Model, ResourceGroup, Workload
from kadmit.quantity import format_quantity
from kadmit.source import SourceMap, Span

MAX_GROUPS = 2
MAX_NEW_FLAVORS = 2


@dataclass
class Option:
    """Edits that cover `resource` together: `fixed` (knob, value) pairs, and `searched`, the quota
    the workload is to use (None: every value is fixed)."""

    resource: str
    fixed: list[tuple[Knob, int | str]] = field(default_factory=list)
    searched: Knob | None = None
    start: int = 0


def cover_options(model: Model, sources: SourceMap, cq: ClusterQueue, res: str, wl: Workload) -> list[Option]:
    """Ways to give `cq` quota for `res`, most direct first: a quota in a flavor of a group whose
    nodes have the resource (any flavor when the input has no nodes), then a flavor whose nodes
    have it appended to the group with the workload's demand as its quotas."""
    need = min_request(wl)
    used = {fq.flavor for g in cq.resource_groups for fq in g.flavors}
    flavors = {f.name: f for f in model.flavors}

    def has(fname: str) -> bool:
        f = flavors.get(fname)
        if f is None:
            return False
        if not model.nodes:
            return True  # no nodes in the input: Kueue admits on quota alone
        return any(n.allocatable.get(res, 0) > 0 and all(n.labels.get(k) == v for k, v in f.node_labels.items())
                   for n in model.nodes)

    def topology_asks(fname: str) -> list[tuple[Knob, int | str]] | None:
        """Kueue places a pod set on a topology flavor of a queue with other flavors only when it
        asks for a topology: the pod sets that request `res` without one ask for no constraint."""
        f = flavors.get(fname)
        if f is None or not f.topology or all(flavors.get(x) is not None and flavors[x].topology for x in used):
            return []
        out = []
        for ps in wl.pod_sets:
            if ps.requests.get(res, 0) > 0 and ps.topology is None:
                k = unconstrained_knob(sources, wl, ps.name)
                if k is None:
                    return None
                out.append((k, k.value))
        return out

    out: list[Option] = []
    for gi, group in enumerate(cq.resource_groups[:MAX_GROUPS]):
        if res in group.covered_resources or not group.flavors:
            continue
        listed = _covered_edit(sources, group, res)
        entries = [_entry(sources, fq, res) for fq in group.flavors]
        if listed is None or any(e is None for e in entries):
            continue
        kad = listed.kad
        subject = f"cluster_queue `{cq.name}`" if kad else f"ClusterQueue `{cq.name}`"
        group_path = "`resources`" if kad else f"spec.resourceGroups[{gi}]"
        listed = replace(listed, field=group_path if kad else f"{group_path}.coveredResources", subject=subject)
        entries = [replace(e, field=f"flavor `{fq.flavor}`" if kad else f"{group_path}.flavors[{fi}].resources",
                           subject=subject) for fi, (e, fq) in enumerate(zip(entries, group.flavors)) if e is not None]
        for fi, fq in enumerate(group.flavors):
            asks = topology_asks(fq.flavor)
            if not has(fq.flavor) or asks is None:
                continue
            zeros = [(e, 0) for j, e in enumerate(entries) if j != fi]
            out.append(Option(res, [(listed, listed.value)] + zeros + asks, entries[fi], max(need.get(res, 0), 1)))
        for fname in sorted(n for n in flavors if n not in used and has(n))[:MAX_NEW_FLAVORS]:
            quotas = {r: need.get(r, 0) for r in (*group.covered_resources, res)}
            added = _new_flavor(sources, group, fname, quotas, kad)
            asks = topology_asks(fname)
            if added is None or asks is None:
                continue
            added = replace(added, field=group_path if kad else f"{group_path}.flavors", subject=subject)
            out.append(Option(res, [(listed, listed.value)] + [(e, 0) for e in entries] + [(added, added.value)]
                              + asks))
    return out


def _quoted(v: int, res: str) -> str:
    return f'"{format_quantity(v, res)}"'


def _covered_edit(sources: SourceMap, group: ResourceGroup, res: str) -> Knob | None:
    """`res` named in the group's covered resources: first in a manifest's list, last in `.kad`'s."""
    sp = group.spans.get("covered_resources") if group.spans is not None else None
    if sp is None:
        return None
    if is_kad(sp, sources):  # after the last covered resource's name
        n = len(group.covered_resources)
        last = group.spans.get(f"covered_resources.{n - 1}") if group.spans is not None and n else None
        if last is None or last.end_line not in (None, last.line) or not is_kad(last, sources):
            return None
        at = Span(last.file, last.line, last.end_column, last.line, last.end_column)
        return Knob("cover", at, "", "`resources`", "", f", {res}", kad=True, shown=f"`{res}`")
    line = sources.line(sp.file, sp.line) or ""
    first = line[sp.column - 1:sp.column]
    at = Span(sp.file, sp.line, sp.column, sp.line, sp.column + 1)
    if first == "[":
        new = f'["{res}", ' if line[sp.column:].strip()[:1] != "]" else f'["{res}"'
        return Knob("cover", at, "[", "coveredResources", "", new, shown=f"`{res}`")
    indent = line[:sp.column - 1]
    if first != "-" or indent.strip():
        return None
    return Knob("cover", at, "-", "coveredResources", "", f"- {res}\n{indent}-", shown=f"`{res}`")


def _entry(sources: SourceMap, fq: FlavorQuotas, res: str) -> Knob | None:
    """A quota of `res` in flavor `fq` (its value searched or set): before the flavor's first
    resource in a manifest, after its last in `.kad`."""
    if not fq.resources:
        return None
    if fq.span is not None and is_kad(fq.span, sources):
        last = fq.resources[-1].span
        if last is None or last.end_line not in (None, last.line):
            return None
        at = Span(last.file, last.line, last.end_column, last.line, last.end_column)
        return Knob("cover", at, "", "", "", 0, res, kad=True, shown=f"`{res} = {{}}`",
                    before=f"  {res} = ")
    sp = fq.resources[0].span
    if sp is None:
        return None
    line = sources.line(sp.file, sp.line) or ""
    item = f"{{name: {res}, nominalQuota: {{}}}}"
    shown = f"`{item}` (flavor `{fq.flavor}`)"
    head = line[:sp.column - 1].rstrip()
    if line[sp.column - 1:sp.column] == "{" and head.endswith(("[", ",")):  # a flow mapping in a flow list
        at = Span(sp.file, sp.line, sp.column, sp.line, sp.column + 1)
        return Knob("cover", at, "{", "", "", 0, res, shown=shown, before=f'{{name: {res}, nominalQuota: "',
                    after='"}, {')
    dash = len(head) - 1
    if not head.endswith("-") or head[:dash].strip():
        return None
    indent = line[:dash]
    at = Span(sp.file, sp.line, dash + 1, sp.line, dash + 2)
    return Knob("cover", at, "-", "", "", 0, res, shown=shown, before=f'- {{name: {res}, nominalQuota: "',
                after=f'"}}\n{indent}-')


def _new_flavor(sources: SourceMap, group: ResourceGroup, fname: str, quotas: dict[str, int],
                kad: bool) -> Knob | None:
    """Flavor `fname` appended to the group, with `quotas` (in the group's covered order with the
    new resource where `_covered_edit` puts it: first in a manifest, last in `.kad`)."""
    last, first = group.flavors[-1], group.flavors[0]
    if kad:
        sp = last.span
        if sp is None or sp.end_line is None:
            return None
        head = sources.line(sp.file, sp.line) or ""
        indent = head[:sp.column - 1]
        if indent.strip():
            return None
        body = "  ".join(f"{r} = {format_quantity(v, r)}" for r, v in quotas.items())
        at = Span(sp.file, sp.end_line, sp.end_column, sp.end_line, sp.end_column)
        text = f"\n{indent}flavor {fname} {{ {body} }}"
        return Knob("cover", at, "", "", "", text, kad=True, shown=f"flavor `{fname} {{ {body} }}`")
    order = [list(quotas)[-1], *list(quotas)[:-1]]
    # the last flavor ends on the line of its last scalar (or of a quota's closing brace); in a block
    # list of flavors (checked at the first one's dash) nothing after it on that line is another's
    ends = [s for s in ([last.spans.get("flavor")] if last.spans is not None else [])
            + [rq.spans.get(k) for rq in last.resources if rq.spans is not None
               for k in ("resource", "nominal", "borrowing_limit", "lending_limit")]
            + [rq.span for rq in last.resources if rq.span is not None and
               (sources.line(rq.span.file, rq.span.line) or "")[rq.span.column - 1:rq.span.column] == "{"]
            if s is not None]
    fsp = first.span
    if not ends or fsp is None:
        return None
    end = max(ends, key=lambda s: (s.end_line or s.line, s.end_column or 0))
    end_line = end.end_line or end.line
    fline = sources.line(fsp.file, fsp.line) or ""
    head = fline[:fsp.column - 1].rstrip()
    if not head.endswith("-") or head[:-1].strip():
        return None
    indent = head[:-1]
    body = ", ".join(f"{{name: {r}, nominalQuota: {_quoted(quotas[r], r)}}}" for r in order)
    item = f"{{name: {fname}, resources: [{body}]}}"
    line = sources.line(end.file, end_line) or ""
    at = Span(end.file, end_line, len(line) + 1, end_line, len(line) + 1)
    return Knob("cover", at, "", "", "", f"\n{indent}- {item}", shown=f"`{item}`")


def out_of_reach(model: Model, sources: SourceMap, cq: ClusterQueue, res: str, wl: Workload) -> str:
    """Why `cover_options` has nothing to try: no node has the resource, no flavor's nodes have it,
    or the queue's resource groups are not written so that an edit can add it."""
    nodes = [n for n in model.nodes if n.allocatable.get(res, 0) > 0]
    if model.nodes and not nodes:
        return (f"ClusterQueue `{cq.name}` has no quota for `{res}`, and no node has `{res}` allocatable: a quota "
                f"for it would admit `{wl.key}` to pods no node can run")
    if model.nodes and not any(all(n.labels.get(k) == v for k, v in f.node_labels.items())
                               for f in model.flavors for n in nodes):
        return (f"ClusterQueue `{cq.name}` has no quota for `{res}`, and the nodes that have it match no "
                f"ResourceFlavor's nodeLabels")
    return (f"ClusterQueue `{cq.name}` has no quota for `{res}`, and its resource groups are not written so that "
            f"an edit can add it to one (each list on one line, or one item a line)")
