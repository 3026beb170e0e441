"""`why`'s answer as human text and JSON: the workload's standing in a few lines, its blame, and the
fixes proven for it."""

from __future__ import annotations

import json
import re

from kadmit.edits import unified_diff
from kadmit.engine.decide import WhyResult
from kadmit.engine.explain.digest import MAX_SETS
from kadmit.engine.explain.marco import origin_dict
from kadmit.engine.explain.replay import SAME_OUTCOME
from kadmit.identity import object_dict, object_of, skipped_dict
from kadmit.quantity import format_quantity
from kadmit.render.decisions import gang_dict, skipped_lines
from kadmit.render.excerpt import window
from kadmit.render.wrap import PIPE_ITEMS, Verbatim, fill_items, fit
from kadmit.source import SourceMap, Span


def _loc(span: Span | None) -> dict:
    if span is None:
        return {"file": None, "line": None, "column": None}
    return {"file": span.file, "line": span.line, "column": span.column}


def why_dict(result: WhyResult, workload=None, skipped=()) -> dict:
    """`workload`: the model's Workload asked about (its object and pod sets' origins)."""
    d = result.decision
    a = d.assignment if d else None
    return {
        "workload": result.workload,
        "object": object_dict(object_of(workload)) if workload is not None else None,
        "pod_set_origins": {ps.name: ps.origin for ps in workload.pod_sets if ps.origin}
        if workload is not None else {},
        "admitted": result.admitted and not (d is not None and d.waiting_checks),
        "quota_reserved": result.admitted and result.gang is None,
        "admission_checks": [{"name": n, "state": st} for n, st in d.checks] if d is not None else [],
        "cluster_queue": d.cluster_queue if d else None,
        "flavors": a.flavors if a else {},
        "counts": a.counts if a else {},
        "reasons": [r.as_dict() for r in result.reasons],
        "blame": [{**_loc(o.span), "message": o.message, "kind": o.kind} for o in result.blame],
        "blame_groups": [[{**_loc(o.span), "message": o.message, "kind": o.kind} for o in g]
                         for g in result.blame_groups],
        "blame_minimal": result.blame_minimal,
        "blame_kind": result.blame_kind,
        "blame_complete": result.blame_complete,
        "cores": [[origin_dict(o) for o in g] for g in result.blame_groups],
        "blame_sets": [bs.as_dict() for bs in result.blame_sets],
        "fixes": [f.as_dict() for f in result.fixes],
        "fixes_found": result.fixes_found,
        "fixes_complete": result.fixes_complete,
        "candidates_tried": result.candidates_tried,
        "redecisions": result.fixes_checked or 0,
        "refused_by_arithmetic": result.fixes_refused,
        "fixes_mode": result.fixes_mode,
        "fixes_notes": result.fixes_notes,
        "standing": result.standing.as_dict() if result.standing is not None else None,
        "explained_at": "last try" if result.met else "end of run",
        "placement": result.placement.as_dict() if result.placement else None,
        "gang": gang_dict(result.gang) if result.gang is not None else None,
        "unknown": result.unknown,
        "skipped": [skipped_dict(s) for s in skipped],
        "solver": result.solver,
    }


def why_patch(fix, sources: SourceMap) -> str:
    """A proven fix's edits as a unified diff of the input files (empty for a fix that only waits for
    a holder: no edit of the input says a workload finished)."""
    edits = [c.edit for c in fix.changes if c.edit is not None]
    texts = {e.file: sources.text(e.file) or "" for e in edits}
    return unified_diff(texts, edits)


def why_json(result: WhyResult, workload=None, skipped=()) -> str:
    return json.dumps(why_dict(result, workload, skipped), indent=2) + "\n"


def _excerpt(span: Span, sources: SourceMap) -> list[str]:
    text = sources.line(span.file, span.line)
    if text is None:
        return []
    gutter = str(span.line)
    start = max(span.column - 1, 0)
    end = span.end_column - 1 if span.end_line == span.line and span.end_column else len(text)
    win = window(text, start)
    column, width = win.marks(start, max(min(end, len(text)), start + 1))
    pad = " " * len(gutter)
    return [Verbatim(f"{pad} |"), Verbatim(f"{gutter} | {win.text}"), Verbatim(f"{pad} | {' ' * column}{'^' * width}")]


def why_human(result: WhyResult, sources: SourceMap, workload_span: Span | None, workload=None,
              skipped=(), full: bool = False, width: int | None = None) -> str:
    """The answer in a few lines: the header, where the workload stands, Kueue's reasons, blame (sets
    that differ only by resource as one, at most three) and the fixes with their side effects counted
    by kind. `full` (`--all`): every reason, every blame set with the lines of input it names, and
    every side effect. `width` (a terminal's): every line wrapped to it (`render.wrap`); None, whole."""
    out = _explained(result, sources, workload_span, workload, full)
    if result.fixes:
        out.append(f"fixes (each proven by changing the input and deciding the cluster again in "
                   f"{result.fixes_mode} mode):")
        actor = None
        for i, f in enumerate(result.fixes, 1):
            if f.actor != actor:
                actor = f.actor
                out.append(f"  {ACTORS[actor]}")
            out.extend(_fix_lines(i, f, full, width))
        out.extend(f"   = note: {n if full else getattr(n, 'brief', n)}" for n in result.fixes_notes)
        out.extend(_fixes_notes(result))
    elif result.fixes_checked is not None and not result.admitted and not result.unknown:
        refused = (f", {result.fixes_refused} more refused by arithmetic (what the queue can reach)"
                   if result.fixes_refused else "")
        out.append(f"fixes: none proven ({plural(result.fixes_checked, 'change')} of the input decided again{refused}; "
                   "none admits it)" if result.fixes_checked or result.fixes_refused
                   else "fixes: none in reach of a change of the input")
        out.extend(f"   = note: {n if full else getattr(n, 'brief', n)}" for n in result.fixes_notes)
        out.extend(_fixes_notes(result))
    out.extend(skipped_lines(skipped))
    return "\n".join(fit(out, width)) + "\n"


def _leaf_by_leaf(p) -> str:
    """How the placement cores count: node by node, or rack by rack on each rack's summed capacity."""
    return "rack by rack (each on its nodes' summed free capacity)" if p.racks else "node by node"


def _explained(result: WhyResult, sources: SourceMap, workload_span: Span | None, workload,
               full: bool) -> list[str]:
    """The answer up to its fixes: the header, where the workload stands, Kueue's reasons, the blame."""
    out = _head(result, workload_span, workload)
    out += _reasons(result, full)
    if result.placement is not None:
        out.extend(_placement_lines(result.placement, result.met))
    out += _blame_full(result, sources) if full else _blame(result)
    if result.placement is not None and not result.placement.unsat and result.placement.group is not None:
        out.append(f"   = note: counting pods {_leaf_by_leaf(result.placement)} the pod set fits with its group's "
                   "leader; Kueue's greedy placement still fails, so there is no core to blame")
    elif result.placement is not None and not result.placement.unsat:
        out.append(f"   = note: counting pods {_leaf_by_leaf(result.placement)} the pod set fits; Kueue's greedy "
                   "placement still fails, so there is no core to blame")
    if len(result.blame_groups) > 1 and not result.blame_complete and result.placement is None:
        out.append(f"   = note: {len(result.blame_groups)} minimal sets found; more exist (kadmit stops "
                   "enumerating there)")
    return out


class WhyStream:
    """`why` as text (on a terminal or a pipe), in the order its parts are known: the first lines (the
    decision, what the workload needs and can reach, its place in line) as soon as the engine hands them over
    (`engine.progress.Stage`), then the reasons and the blame, then the rest once fixes are proven.
    Each part shown is the start of the answer as `why_human` renders it; `rest(text)` is what is
    left of the whole answer (all of it again, after a line saying so, where it no longer starts with
    what was shown: the solver's limits were met later, or the blame changed the state explained).
    `width` as `why_human`'s: each line is wrapped on its own, so a part shown stays the answer's start."""

    def __init__(self, write, full: bool = False, width: int | None = None) -> None:
        self.write, self.full, self.width, self.shown = write, full, width, ""

    def stage(self, what: str, result: WhyResult, loaded) -> None:
        wl = next((w for w in loaded.workspace.model.workloads if w.key == result.workload), None)
        span = wl.span if wl is not None else None
        lines = _head(result, span, wl) if what == "standing" else \
            _explained(result, loaded.sources, span, wl, self.full)
        text = "\n".join(fit(lines, self.width)) + "\n"
        if text.startswith(self.shown) and len(text) > len(self.shown):
            self.write(text[len(self.shown):])
            self.shown = text

    def rest(self, text: str) -> str:
        if text.startswith(self.shown):
            return text[len(self.shown):]
        return "(the lines above changed once the answer was complete; in full:)\n" + text


MAX_REASONS = 3  # Kueue's reasons shown unless every one is asked for
ACTORS = {"platform": "by the platform team (quotas, limits, policies, queues, nodes):",
          "owner": "by the workload's owner (its spec):",
          "others": "by the owners of other workloads (their specs):",
          "nobody": "by nobody (wait for a workload that holds what it needs to finish):"}


def _head(result: WhyResult, workload_span: Span | None, workload) -> list[str]:
    out: list[str] = []
    name = result.workload
    if workload is not None and workload.origin is not None:
        o = workload.origin
        name = f"{o.kind} {o.key}"
    d = result.decision
    if d is not None and d.loop is not None:
        out.append(f"warning[{'KAD535' if d.loop.settled else 'KAD536'}]: kadmit can't decide `{name}`: "
                   + ("it is in a preemption loop" if d.loop.settled else "the run did not settle"))
    elif result.unknown:
        out.append(f"error[KAD503]: kadmit couldn't decide whether `{name}` can be admitted "
                   "within the solver's limits")
    elif result.gang is not None:
        out.append(f"note[KAD541]: gang `{name}` is placed" if result.admitted
                   else f"error[KAD540]: gang `{name}` can't be placed (kube-scheduler, all-or-nothing)")
    elif (result.admitted and d is not None and d.waiting_checks) or (result.reasons and result.reasons[0].code == "KAD504"):
        out.append(f"warning[KAD504]: {'workload ' if name == result.workload else ''}`{name}` has quota reserved, "
                   "waiting for admission checks (Kueue admits it when they are Ready)")
    elif result.admitted:
        out.append(f"note[KAD502]: {'workload ' if name == result.workload else ''}`{name}` is admitted")
    else:
        out.append(f"error[KAD501]: {'workload ' if name == result.workload else ''}`{name}` can't be admitted")
    if workload_span is None and result.gang is not None:
        workload_span = result.gang.gang.span
    if workload_span is not None:
        out.append(f"  --> {workload_span}")
    if workload is not None and workload.origin is not None:
        made = f"{workload.namespace}/{workload.kueue_name or workload.name}"
        out.append(f"   = workload: {made} (the Workload Kueue makes of it)")
    for ps in workload.pod_sets if workload is not None else ():
        if ps.origin:
            out.append(f"   = pod set {ps.name}: {ps.count} pod{'' if ps.count == 1 else 's'} from {ps.origin}")
    if not result.admitted and result.gang is None:
        out.extend(f"   = {line}" for line in standing_lines(result))
    return out


def _reasons(result: WhyResult, full: bool) -> list[str]:
    """Kueue's reasons; unless `full`, the first few, those about the resource the standing is about first."""
    reasons = list(result.reasons)
    if not full and len(reasons) > MAX_REASONS:
        r = result.standing.resource if result.standing is not None else None
        about = [x for x in reasons if r and f" {r} " in f" {x.message} "]
        reasons = (about + [x for x in reasons if x not in about])[:MAX_REASONS]
    out = [f"   = reason: {r.message}" for r in reasons]
    if len(reasons) < len(result.reasons):
        more = len(result.reasons) - len(reasons)
        out.append(f"   = reason: … {more} more (`--all` lists every one)")
    return out


def _blame_title(result: WhyResult, first: bool, group: list | None = None, merged=None) -> str:
    if result.blame_kind == "queue":
        return ("waits behind the head of its queue (the strategy, the head, and a minimal set that keeps the head "
                "out):" if group and group[0].kind == "queueing" else
                "its own obstacle, even without the head (a minimal set that forbids it):")
    if result.blame_kind in _BLAME_TITLES:
        return _BLAME_TITLES[result.blame_kind]
    where = {"gang": "keeps the gang off the nodes", "placement": "keeps the pod set off the nodes"}.get(
        result.blame_kind, "forbids it")
    if merged is not None and merged.sets > 1:
        differ = ([f"by resource ({', '.join(merged.resources)})"] if merged.resources else []) + \
            (["by which admitted workloads hold the quota"] if merged.holders_vary else [])
        return (f"{'blame' if first else 'another reason on its own'}: {merged.sets} minimal sets that differ only "
                f"{' and '.join(differ) or 'in how they are found'}, as one; each line matters:")
    if first:
        return f"blame (a minimal set that {where}; each one matters):" if result.blame_kind in ("gang", "placement") \
            else "blame (a minimal set of statements that together forbid it; each one matters):"
    return f"another reason on its own (a minimal set that {where.replace('forbids it', 'forbids it')} too):"


def _blame(result: WhyResult) -> list[str]:
    """Each blame set in lines (sets that differ only by resource as one), at most `MAX_SETS` of them; a
    set's lines that a set shown above says already (at the same place, in the same words but for the
    StrictFIFO head they were about) named by their places only, where there are two or more."""
    out: list[str] = []
    sets = result.blame_sets
    said: set[tuple[str, str]] = set()
    for i, bs in enumerate(sets[:MAX_SETS]):
        out.append(_blame_title(result, i == 0, bs.origins, bs))
        wheres = [f"{ln.span.file}:{ln.span.line}:{ln.span.column}" if ln.span else "(no source location)"
                  for ln in bs.lines]
        keys = [(w, _ABOUT_HEAD.sub("", ln.text)) for w, ln in zip(wheres, bs.lines)]
        again = [ln.span for k, ln in zip(keys, bs.lines) if k in said and ln.span is not None]
        for where, key, line in zip(wheres, keys, bs.lines):
            if len(again) < 2 or key not in said or line.span is None:
                out.append(f"  {where}  {line.text}")
        said.update(keys)
        if len(again) >= 2:
            out.append(f"   = {'and ' if len(again) < len(bs.lines) else ''}the {len(again)} lines "
                       f"said above at {_places(again)}")
    if len(sets) > MAX_SETS:
        more = len(sets) - MAX_SETS
        out.append(f"   = note: {more} more blame set{'' if more == 1 else 's'} (`--all` lists every one)")
    return out


_ABOUT_HEAD = re.compile(r"^\(`[^`]*`\) ")  # a line about the StrictFIFO head (`digest.lines`)


def _places(spans: list[Span]) -> str:
    """`a.yaml:30:23, :116:23; b.yaml:5:1`: each file named once, in the order given."""
    out: list[str] = []
    last = None
    for sp in spans:
        here = f"{sp.line}:{sp.column}"
        if sp.file == last:
            out[-1] += f", :{here}"
        else:
            out.append(f"{sp.file}:{here}")
        last = sp.file
    return "; ".join(out)


def _blame_full(result: WhyResult, sources: SourceMap) -> list[str]:
    """Every blame set as found, each statement with the line of input it names."""
    out: list[str] = []
    groups = result.blame_groups or ([result.blame] if result.blame else [])
    for gi, group in enumerate(groups):
        out.append(_blame_title(result, gi == 0, group))
        for o in group:
            where = str(o.span) if o.span else "(no source location)"
            out.append(f"  --> {where}  {o.message}")
            if o.span is not None:
                out.extend(Verbatim("     " + line) for line in _excerpt(o.span, sources))
    return out


def _fixes_notes(result: WhyResult) -> list[str]:
    """What the list of fixes leaves out: fixes proven but not shown, a budget spent before the end."""
    out = []
    more = result.fixes_found - len(result.fixes)
    if more > 0:
        out.append(f"   = note: {more} more {'fix' if more == 1 else 'fixes'} proven; `--fixes "
                   f"{result.fixes_found}` shows {'it' if more == 1 else 'them'}")
    if result.fixes_checked is not None and not result.unknown and result.fixes_checked > 0 and \
            not result.fixes_complete and more <= 0:
        out.append(f"   = note: the budget of {result.fixes_checked} changes decided again ran out before every "
                   "candidate was tried; `--budget N` tries more")
    return out


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _fix_lines(i: int, f, full: bool = False, width: int | None = None) -> list[str]:
    waits = all(c.edit is None for c in f.changes)
    parts = {c.knob.within[1:2] for c in f.changes}
    briefs = [c.brief(part=len(parts) > 1) for c in f.changes]
    if len(f.changes) > 1 and None not in briefs and \
            len({(c.knob.within[0], c.knob.span.file) for c in f.changes}) == 1:  # one object: named once
        k = f.changes[0].knob
        within = k.within[0] + (f", {k.within[1]}" if len(parts) == 1 else "")
        out = [f"  {i}. change all {len(f.changes)} of {within}, in {k.span.file}{f.needs}:",
               *fill_items("       ", briefs, "       ", width or PIPE_ITEMS)]
    else:
        head = f"  {i}. " + ("no change of the input: " if waits else "change " if len(f.changes) == 1
                             else f"change all {len(f.changes)}: ")
        described = [c.describe() for c in f.changes]
        described[-1] += f.needs
        # on a terminal, changes to different objects each start a line of their own
        out = fill_items(head, described, "       ", width if len(described) > 1 else None, sep=";")
    out.append(f"     then: {f.outcome_text}")
    if full:
        if not f.effects:
            out.append("     side effects: none (no other workload's decision changes)")
        else:
            out.append(f"     side effects on {plural(len(f.effects), 'other workload')}:")
            out.extend(f"       - `{e.workload}` {e.kind}: {e.before.describe(e.nodes_only)} → "
                       f"{e.after.describe(e.nodes_only)}" for e in f.effects)
        return out
    s = f.summary
    if s is not None and s.all_ahead:
        out.append(f"     admits the {plural(s.ahead, 'workload')} ahead of it too")
    kinds = [k for k in s.by_kind if k[0] != SAME_OUTCOME] if s is not None else []
    same = next((n for kind, n, _ in s.by_kind if kind == SAME_OUTCOME), 0) if s is not None else 0
    if s is not None and s.ahead and not s.all_ahead:
        kinds.append(("pending → admitted, ahead of it in line", s.ahead, []))
    tail = f"; {same} more evicted either way, by another preemptor" if same else ""
    if not kinds:
        out.append("     side effects: none" + (" besides" if s is not None and s.all_ahead else
                                                " (no other workload's decision changes)" if not same else "") + tail)
        return out
    n = sum(k for _, k, _ in kinds)
    items = [f"{k} {kind}" + (f" ({', '.join(f'`{w}`' for w in names)}{', …' if len(names) < k else ''})"
                              if names else "") for kind, k, names in kinds]
    items[-1] += tail
    out.extend(fill_items(f"     side effects on {plural(n, 'other workload')}: ", items, "       ", width))
    return out


_BLAME_TITLES = {
    "preemption": "preemption (the policy that allowed it, and the workloads involved):",
    "loop": "the loop (the preemption settings that allow it, and the workloads in it):",
}


def _placement_lines(p, met: bool = False) -> list[str]:
    """The `placement:` section of `why`: the failing pod set, kube-scheduler's histogram for one
    of its pods, the topology view and the best domains, when Kueue last tried it (`met`) or at the
    end of the run."""
    out = [f"placement (topology-aware scheduling, {'when Kueue last tried it' if met else 'at the end of the run'}):",
           f"   = pod set {p.pod_set}: {p.count} pod{'' if p.count == 1 else 's'}, {p.request}, flavor {p.flavor}, topology {p.topology}",
           *([f"   = {p.group}"] if p.group else []),
           f"   = one pod: {p.histogram}",
           f"   = topology: {p.topology_view}"]
    if p.domains and p.level:
        shown = ", ".join(f"{d} fits {n}" for d, n in p.domains)
        out.append(f"   = {p.level}s, most room first: {shown}")
    return out


# --- standing ----------------------------------------------------------------------------------

def standing_lines(result: WhyResult) -> list[str]:
    """A few sentences with the numbers: what the workload needs and the most it can reach and through
    whom (or, for a gang the nodes can't hold, the room the best domain has); its place in line; and,
    when it would fit an empty cluster, who held what it needed and whether its queue may preempt them."""
    return _standing(result.standing, result.placement, result.met)


def _standing(st, p, met: bool) -> list[str]:
    if st is None:
        return []
    out = []
    r = st.resource
    if st.behind is not None:  # the head's numbers first: it is what keeps this one out
        line = (f"waits behind `{st.behind}`, which can't be admitted and holds back every workload behind it "
                f"in {st.behind_strategy} ClusterQueue {st.cluster_queue}"
                + ("" if st.behind_strategy == "StrictFIFO" else " (it has flavors left to try)"))
        head = [x for x in _standing(st.head, None, st.head_met) if not x[:1].isdigit()] \
            if st.head is not None and st.head.quota else []
        if head and head[0].startswith("needs "):
            line += f": it {head.pop(0)}"
        out.append(line)
        out.extend(f"the head: {x}" for x in head)
    if p is not None:
        out.append(f"needs {p.count} pod{'' if p.count == 1 else 's'} of {p.pod_set} placed at once ({p.request} "
                   f"in flavor {p.flavor}); {p.topology_view.split(': ', 1)[-1]}")
    elif r is not None and st.quota:
        sets = st.shape.get(r, [])
        pods = " + ".join(f"{n} pod{'' if n == 1 else 's'} × {_q(each, r)}" for _, n, each in sets)
        if st.min_pods < st.pods:
            head = f"needs at least {_q(st.needs[r], r)} {r} ({pods}; partial admission goes no lower)"
        else:
            head = f"needs {_q(st.needs[r], r)} {r}" + (" at once" if st.pods > 1 else "") + \
                (f" ({pods})" if sum(n for _, n, _ in sets) > 1 else "")
        if not st.reach:
            out.append(f"{head}; ClusterQueue {st.cluster_queue} has no quota for {r}")
        else:
            shown = st.reach[:2] if st.short else [max(st.reach, key=lambda x: (x.free or 0, x.most))]
            reach = " and ".join(_reach_text(x) for x in shown)
            line = f"{head}; {st.cluster_queue} can reach {'at most ' if st.short else ''}{reach}"
            if st.beyond_nodes:
                held = " and ".join(f"{_q(n, r)} in {f}" for f, n in st.nodes_hold)
                line += f"; the nodes of its flavors hold {held}: no change of quota alone admits it"
            out.append(line)
    if st.evicted_by is not None:
        out.append(f"evicted by `{st.evicted_by}`" + (f" ({st.evicted_reason})" if st.evicted_reason else "")
                   + " and requeued: it waits again in its ClusterQueue's order (priority, then creation time)")
    if st.position is not None:
        line = (f"{_ordinal(st.position + 1)} of {st.pending} pending in ClusterQueue {st.cluster_queue}"
                f" ({_ordinal((st.position_in_local_queue or 0) + 1)} in LocalQueue {st.local_queue})")
        if st.position == 0:
            line += "; nothing of equal or higher priority is ahead of it"
        else:
            res = r if r in st.ahead else next(iter(sorted(st.ahead)), None)
            wants = f" request {_q(st.ahead[res], res)} {res}" if res is not None else ""
            line += f"; the {st.position:,} ahead of it (priority {st.priority} or higher){wants}"
        out.append(line)
    h = st.held
    if h is not None and st.quota and p is None:
        when = "when Kueue last tried it" if met else "at the end of the run"
        reach = next((x for x in st.reach if x.flavor == h.flavor), None)
        most = f" of the {_q(reach.most, h.resource)}" if reach is not None else ""
        holders = ", ".join(f"{n} at priority {pr}" for pr, n, _ in h.by_priority[:3]) + (
            ", …" if len(h.by_priority) > 3 else "")
        line = f"{when}, {_q(h.used, h.resource)}{most} {h.resource} in {h.flavor} were in use"
        if h.holders:
            line += f", held by {h.holders} workload{'' if h.holders == 1 else 's'} ({holders})"
        if h.preemptible:
            line += (f"; its queue may preempt {h.preemptible} of them ({h.policies}), freeing "
                     f"{_q(h.freed, h.resource)}")
        else:
            line += f"; its queue may preempt none of them ({h.policies})"
        out.append(line)
    return out


def _reach_text(x) -> str:
    q = lambda v: _q(v, x.resource)  # noqa: E731
    text = f"{q(x.most)} in {x.flavor}"
    if not x.borrowed:
        return text + (" (its own quota)" if x.own else "")
    names = [who for who, _ in x.lenders]
    who = _names(names)
    if x.limit is not None:
        return (f"{text} = {q(x.own)} own + {q(x.borrowed)} borrowed (capped by its borrowing limit; {who} "
                f"lend{'s' if len(names) == 1 else ''} {q(x.lent)})")
    return f"{text} = {q(x.own)} own + {q(x.borrowed)} lent by {who}"


def _names(names: list[str], most: int = 3) -> str:
    """`a`, `a and b`, `a, b and c`, `a, b, c and 2 more`."""
    if len(names) > most:
        return ", ".join(names[:most]) + f" and {len(names) - most} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _q(milli: int, resource: str) -> str:
    """A quantity as Kubernetes writes it, a whole number grouped by thousands (1,540 cpu)."""
    text = format_quantity(milli, resource)
    return f"{int(text):,}" if text.isdigit() else text


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
