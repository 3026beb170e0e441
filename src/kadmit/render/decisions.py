"""Admission decisions and explanations as human text and JSON."""

from __future__ import annotations

import json

from kadmit.edits import unified_diff
from kadmit.engine.decide import WhyResult
from kadmit.engine.result import AdmitResult
from kadmit.engine.explain.marco import origin_dict
from kadmit.identity import display_names, object_dict, object_of, skipped_dict
from kadmit.placement.domains import level_label
from kadmit.render.excerpt import window
from kadmit.quantity import format_quantity
from kadmit.source import SourceMap, Span


# --- admit --------------------------------------------------------------------------------------

def admit_dict(result: AdmitResult, skipped=()) -> dict:
    """`skipped`: the input's objects that are not work (`Model.skipped`)."""
    decisions = []
    for d in result.decisions:
        a = d.assignment
        pod_sets = []
        if a is not None:
            placed = {p.request.pod_set: p for p in (a.placement.pod_sets if a.placement else [])}
            for ps in d.workload.pod_sets:
                p = placed.get(ps.name)
                entry = {"name": ps.name, "count": a.counts.get(ps.name, 0),
                         "flavors": dict(sorted(a.flavors.get(ps.name, {}).items())),
                         "placement": dict(sorted(p.nodes.items())) if p else {}}
                if p is not None:
                    entry["topology"] = {"name": p.request.topology, "request": _request_text(p.request),
                                         "level": p.level, "domains": list(p.domains)}
                pod_sets.append(entry)
        decisions.append({
            "workload": d.key,
            "object": object_dict(object_of(d.workload)),
            "admitted": d.admitted,
            "cluster_queue": d.cluster_queue if d.admitted else None,
            "pod_sets": pod_sets,
            "borrowing": bool(a and a.borrowing),
            "preempted": [{"workload": v.key, "cluster_queue": v.cluster_queue, "reason": v.reason}
                          for v in d.preempted],
            "preempted_by": d.preempted_by,
            "preemption_reason": d.preemption_reason,
            "reasons": [r.as_dict() for r in result.reasons.get(d.key, [])],
            "usage": {f"{fl}/{res}": format_quantity(v, res) for (fl, res), v in sorted(a.usage.items())}
            if a else {},
            "cycle": d.cycle,
            "unknown": d.unknown,
            "notes": list(d.notes),
        })
    out = {"mode": result.mode, "decisions": decisions, "skipped": [skipped_dict(s) for s in skipped],
           "solver": result.solver, "loops": [lp.as_dict() for lp in result.loops],
           "gangs": [gang_dict(g) for g in result.gangs]}
    if result.optimal is not None:
        out["optimal"] = result.optimal
    return out


def gang_dict(g) -> dict:
    """A gang kube-scheduler places (not Kueue's): its decision as data."""
    return {"gang": g.name, "object": {"apiVersion": g.gang.api_version, "kind": g.gang.kind,
                                       "namespace": g.gang.namespace, "name": g.gang.name},
            "placed": g.placed, "min_count": g.min_count, "pods": g.existing, "bound": g.bound,
            "need": g.need, "nodes": dict(sorted(g.nodes.items())), "reason": g.reason, "unknown": g.unknown}


def _gang_lines(gangs) -> list[str]:
    rows = [("GANG", "PLACED", "KIND", "PODS", "NOTE")]
    for g in gangs:
        rows.append((g.name, "unknown" if g.unknown else ("yes" if g.placed else "no"),
                     f"{g.gang.kind} ({g.gang.api_version})", f"{g.bound + sum(g.nodes.values())}/{g.min_count}",
                     g.reason))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return (["", "gangs (placed by kube-scheduler all-or-nothing, not admitted by Kueue):"]
            + ["  " + "  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows])


def _request_text(req) -> str:
    r = req.request
    text = r.mode if r.level is None else f"{r.mode} {r.level}"
    return f"implicit {text}" if req.implicit else text


def placement_summary(a) -> list[str]:
    """One line per placed pod set: where it landed, by domain, e.g.
    `workers: 3 pods in rack b1/r2 (required rack) on h100-r2-0:1, h100-r2-1:2`."""
    out = []
    for p in (a.placement.pod_sets if a is not None and a.placement else []):
        pods = sum(p.nodes.values())
        where = ""
        if p.level is not None:
            short = level_label(p.level)
            n = len(p.domains)
            if short == "host":
                p_domains = tuple(d.rsplit("/", 1)[-1] for d in p.domains)
            else:
                p_domains = p.domains
            where = (f" in {short} {p_domains[0]}" if n == 1 else
                     f" across {n} {short}s ({', '.join(p_domains[:4])}{', …' if n > 4 else ''})")
        nodes = ", ".join(f"{k}:{v}" for k, v in list(sorted(p.nodes.items()))[:6])
        more = f", … {len(p.nodes) - 6} more nodes" if len(p.nodes) > 6 else ""
        out.append(f"{p.request.pod_set}: {pods} pod{'' if pods == 1 else 's'}{where} ({_request_text(p.request)}) on {nodes}{more}")
    return out


def admit_json(result: AdmitResult, skipped=()) -> str:
    return json.dumps(admit_dict(result, skipped), indent=2) + "\n"


def skipped_lines(skipped) -> list[str]:
    """A summary line, then one line per object the input holds that is not work kadmit decides."""
    if not skipped:
        return []
    out = [f"{len(skipped)} object{'s' if len(skipped) != 1 else ''} in the input not decided:"]
    for s in skipped[:SKIPPED_SHOWN]:
        where = f" ({s.span.file}:{s.span.line})" if s.span is not None else ""
        out.append(f"  {s.object.kind} {s.object.key}{where}: {s.reason}")
    if len(skipped) > SKIPPED_SHOWN:
        kinds = sorted({s.object.kind for s in skipped[SKIPPED_SHOWN:]})
        out.append(f"  … and {len(skipped) - SKIPPED_SHOWN} more ({', '.join(kinds[:6])}"
                   f"{', …' if len(kinds) > 6 else ''}): `--format json` lists them all")
    return out


SKIPPED_SHOWN = 20


def admit_human(result: AdmitResult, skipped=()) -> str:
    names = display_names([d.workload for d in result.decisions])
    rows = [("WORKLOAD", "ADMITTED", "CLUSTER QUEUE", "POD SETS", "NOTE")]
    for d in result.decisions:
        a = d.assignment
        if a is not None:
            sets = "; ".join(
                f"{ps} {a.counts.get(ps, 0)}×" + ",".join(sorted(set(fl.values())) or ["-"])
                for ps, fl in sorted(a.flavors.items()))
            preempted = [f"preempted {', '.join(v.key for v in d.preempted)}"] if d.preempted and d.admitted else []
            note = "; ".join((["borrowing"] if a.borrowing else []) + preempted + list(d.notes))
        else:
            sets = ""
            reasons = result.reasons.get(d.key, [])
            note = reasons[0].message if reasons else ""
            if len(reasons) > 1:
                note += f" (+{len(reasons) - 1} more: kadmit why {names.get(d.key, d.key)})"
        if d.loop is not None:
            note = "in a preemption loop (see the warning below)" if d.loop.settled else "still moving when the run stopped"
        rows.append((names.get(d.key, d.key), "unknown" if d.unknown else ("yes" if d.admitted else "no"),
                     d.cluster_queue or "-", sets or "-", note))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]
    placed = [(d.key, line) for d in result.decisions if d.admitted for line in placement_summary(d.assignment)]
    if placed:
        lines.append("")
        lines.append("placement (topology-aware):")
        lines.extend(f"  {names.get(key, key)} {line}" for key, line in placed)
    admitted = sum(1 for d in result.decisions if d.admitted)
    if result.gangs:
        lines.extend(_gang_lines(result.gangs))
    for lp in result.loops:
        lines.append("")
        lines.append(f"warning[{'KAD535' if lp.settled else 'KAD536'}]: {lp.message()}")
        lines.extend(f"  --> {r.span}  {r.text}" for r in lp.rules if r.span is not None)
        lines.append("   = note: the run stops there; these workloads are undecided (exit 3)")
    lines.append("")
    if result.optimal:
        o = result.optimal
        proof = "proven optimal" if o.get("proven_optimal") else f"best found, {o.get('status', '?')}"
        victims = o.get("victims") or []
        lines.append(f"{admitted} of {len(result.decisions) - len(victims)} pending workloads admitted"
                     + (f", {len(victims)} admitted workload(s) preempted" if victims else "")
                     + f" (optimal mode, CP-SAT, {proof}, {o.get('seconds', 0)} s)")
        beyond = o.get("admitted_beyond_ordered") or []
        fewer = o.get("not_admitted_vs_ordered") or []
        by_ordered = o.get("victims_ordered") or []
        lines.append(f"beyond ordered: {', '.join(beyond) if beyond else 'nothing'}"
                     + (f"; ordered admits instead: {', '.join(fewer)}" if fewer else "")
                     + (f"; victims: {', '.join(victims) or 'none'} (ordered preempts "
                        f"{', '.join(by_ordered) or 'none'})" if victims or by_ordered else ""))
    else:
        pending = [d for d in result.decisions if d.workload.admission is None]
        victims = [d for d in result.decisions if d.preempted_by and not d.admitted]
        lines.append(f"{sum(1 for d in pending if d.admitted)} of {len(pending)} pending workloads admitted"
                     + (f", {len(victims)} admitted workload(s) preempted" if victims else "")
                     + f" ({result.mode} mode, {result.solver.get('checks', 0)} solver checks)")
    lines.extend(skipped_lines(skipped))
    return "\n".join(line.rstrip() for line in lines) + "\n"


# --- why ----------------------------------------------------------------------------------------

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
        "admitted": result.admitted,
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
        "fixes": [f.as_dict() for f in result.fixes],
        "fixes_found": result.fixes_found,
        "fixes_complete": result.fixes_complete,
        "candidates_tried": result.candidates_tried,
        "redecisions": result.fixes_checked or 0,
        "fixes_mode": result.fixes_mode,
        "fixes_notes": result.fixes_notes,
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
    return [f"{pad} |", f"{gutter} | {win.text}", f"{pad} | {' ' * column}{'^' * width}"]


def why_human(result: WhyResult, sources: SourceMap, workload_span: Span | None, workload=None,
              skipped=()) -> str:
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
    for r in result.reasons:
        out.append(f"   = reason: {r.message}")
    if result.placement is not None:
        out.extend(_placement_lines(result.placement))
    groups = result.blame_groups or ([result.blame] if result.blame else [])
    for gi, group in enumerate(groups):
        if result.blame_kind == "queue":
            out.append("waits behind the head of its queue (the strategy, the head, and a minimal set that keeps "
                       "the head out):" if group and group[0].kind == "queueing" else
                       "its own obstacle, even without the head (a minimal set that forbids it):")
        elif result.blame_kind == "gang":
            out.append("blame (a minimal set that keeps the gang off the nodes; each one matters):" if gi == 0
                       else "another reason on its own (a minimal set that keeps it off the nodes too):")
        elif result.blame_kind == "placement":
            out.append("blame (a minimal set that keeps the pod set off the nodes; each one matters):" if gi == 0
                       else "another reason on its own (a minimal set that keeps it off the nodes too):")
        elif result.blame_kind in _BLAME_TITLES:
            out.append(_BLAME_TITLES[result.blame_kind])
        else:
            out.append("blame (a minimal set of statements that together forbid it; each one matters):" if gi == 0
                       else "another reason on its own (a minimal set that forbids it too):")
        for o in group:
            where = str(o.span) if o.span else "(no source location)"
            out.append(f"  --> {where}  {o.message}")
            if o.span is not None:
                out.extend("     " + line for line in _excerpt(o.span, sources))
    if result.placement is not None and not result.placement.unsat:
        out.append("   = note: counting pods node by node the pod set fits; Kueue's greedy placement still "
                   "fails, so there is no core to blame")
    if len(groups) > 1 and not result.blame_complete and result.placement is None:
        out.append(f"   = note: {len(groups)} minimal sets shown; more exist (kadmit stops enumerating there)")
    if result.fixes:
        out.append(f"fixes (each proven by changing the input and deciding the whole cluster again in "
                   f"{result.fixes_mode} mode; fewest side effects first):")
        for i, f in enumerate(result.fixes, 1):
            out.extend(_fix_lines(i, f))
        out.extend(_fixes_notes(result))
    elif result.fixes_checked is not None and not result.admitted and not result.unknown:
        out.append(f"fixes: none proven ({plural(result.fixes_checked, 'change')} of the input decided again; "
                   "none admits it)" if result.fixes_checked else "fixes: none in reach of a change of the input")
        out.extend(f"   = note: {n}" for n in result.fixes_notes)
        out.extend(_fixes_notes(result))
    out.extend(skipped_lines(skipped))
    return "\n".join(out) + "\n"


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


def _fix_lines(i: int, f) -> list[str]:
    waits = all(c.edit is None for c in f.changes)
    out = [f"  {i}. " + ("no change of the input: " if waits else "change " if len(f.changes) == 1
                        else f"change all {len(f.changes)}: ")
           + "; ".join(c.describe() for c in f.changes) + f.needs]
    out.append(f"     then: {f.outcome_text}")
    if not f.effects:
        out.append("     side effects: none (no other workload's decision changes)")
    else:
        out.append(f"     side effects on {plural(len(f.effects), 'other workload')}:")
        out.extend(f"       - `{e.workload}` {e.kind}: {e.before.describe(e.nodes_only)} → {e.after.describe(e.nodes_only)}"
                   for e in f.effects)
    return out


_BLAME_TITLES = {
    "preemption": "preemption (the policy that allowed it, and the workloads involved):",
    "loop": "the loop (the preemption settings that allow it, and the workloads in it):",
}


def _placement_lines(p) -> list[str]:
    """The `placement:` section of `why`: the failing pod set, kube-scheduler's histogram for one
    of its pods, the topology view and the best domains, against the run's final state."""
    out = ["placement (topology-aware scheduling, at the run's final state):",
           f"   = pod set {p.pod_set}: {p.count} pod{'' if p.count == 1 else 's'}, {p.request}, flavor {p.flavor}, topology {p.topology}",
           f"   = one pod: {p.histogram}",
           f"   = topology: {p.topology_view}"]
    if p.domains and p.level:
        shown = ", ".join(f"{d} fits {n}" for d, n in p.domains)
        out.append(f"   = {p.level}s, most room first: {shown}")
    return out
