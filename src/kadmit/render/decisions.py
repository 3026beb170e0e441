"""Admission decisions and explanations as human text and JSON."""

from __future__ import annotations

import json
import textwrap

from kadmit.engine.afs import STALL_HELP
from kadmit.engine.explain.differ import differ_counts, may_differ
from kadmit.engine.result import AdmitResult
from kadmit.identity import display_names, kueue_dict, object_dict, object_of, skipped_dict
from kadmit.model import SKIPPED_NAMED
from kadmit.placement.domains import level_label
from kadmit.quantity import format_quantity
from kadmit.render.excerpt import one_line
from kadmit.render.wrap import Verbatim, fit


# --- admit --------------------------------------------------------------------------------------

def admit_dict(result: AdmitResult, skipped=(), unmodelled: int = 0, refused_pods: int = 0, gated_pods: int = 0) -> dict:
    """`skipped`: the input's objects that are not work (`Model.skipped`); `unmodelled`, `refused_pods`, `gated_pods`: as
    for `admit_human`, whose summary's lines on what may make Kueue's answer differ are `may_differ` here."""
    decisions = []
    workloads = {d.key: d.workload for d in result.decisions}  # every victim is decided: evicted in the run
    for d in result.decisions:
        a = d.assignment
        pod_sets = []
        if a is not None:
            placed = {p.request.pod_set: p for p in (a.placement.pod_sets if a.placement else [])}
            for ps in d.workload.pod_sets:
                p = placed.get(ps.name)
                entry = {"name": ps.name, "count": a.counts.get(ps.name, 0),
                         "flavors": dict(sorted(a.flavors.get(ps.name, {}).items())),
                         "placement": dict(sorted(p.assignment.items())) if p else {}}
                if p is not None:
                    entry["topology"] = {"name": p.request.topology, "request": _request_text(p.request),
                                         "level": p.level, "domains": list(p.domains)}
                    if p.unplaced:  # Kueue admits it with pods on no node (`PodSetPlacement.unplaced`)
                        entry["topology"]["unplaced"] = {"pods": p.request.count - sum(p.nodes.values()),
                                                         "reason": p.unplaced}
                pod_sets.append(entry)
        decisions.append({
            "workload": d.key,
            "object": object_dict(object_of(d.workload)),
            **kueue_dict(d.workload),
            # Kueue's Admitted: quota reserved, every admission check Ready, no topology assignment pending
            "admitted": d.kueue_admitted,
            "quota_reserved": d.admitted,
            "admission_checks": [{"name": n, "state": st} for n, st in d.checks],
            "cluster_queue": d.cluster_queue if d.admitted else None,
            "pod_sets": pod_sets,
            "borrowing": bool(a and a.borrowing),
            "preempted": [{"workload": v.key, **kueue_dict(workloads[v.key]), "cluster_queue": v.cluster_queue,
                           "reason": v.reason} for v in d.preempted],
            "preempted_by": d.preempted_by,
            "preemption_reason": d.preemption_reason,
            "reasons": [r.as_dict() for r in result.reasons.get(d.key, [])],
            "usage": {f"{fl}/{res}": format_quantity(v, res) for (fl, res), v in sorted(a.usage.items())}
            if a else {},
            "cycle": d.cycle,
            "unknown": d.unknown,
            "notes": list(d.notes),
            # Kueue's Finished condition once its job reconciler fails to start it (KAD161): its Admitted and
            # QuotaReserved stay, but it holds no quota, as the oracle's `finished` says
            "finished": {"reason": "FailedToStart", "message": d.workload.start_fails}
            if d.admitted and d.workload.start_fails else None,
        })
    out = {"mode": result.mode, "decisions": decisions, "skipped": [skipped_dict(s) for s in skipped],
           "solver": result.solver, "loops": [lp.as_dict() for lp in result.loops],
           "gangs": [gang_dict(g) for g in result.gangs],
           "may_differ": may_differ(result, unmodelled, refused_pods, gated_pods)}
    if result.optimal is not None:
        out["optimal"] = result.optimal
    return out


def waiting_text(d) -> str:
    """A decision that reserved quota in a queue with admission checks not all Ready, or with every check Ready
    and a topology assignment delayed for them not made (`Decision.topology_pending`: Kueue's
    HasTopologyAssignmentsPending keeps it from Admitted)."""
    names = d.waiting_checks
    if not names:
        return "quota reserved, waiting for the topology assignment"
    return (f"quota reserved, waiting for admission check{'s' if len(names) > 1 else ''} " + ", ".join(names))


def _waiting(d) -> bool:
    """Quota reserved and not Admitted (Kueue's state): `waiting_text`'s."""
    return d.admitted and not d.kueue_admitted


def _waiting_counts(decisions) -> str:
    """The summary's words for the workloads with quota reserved and not Admitted."""
    checks = sum(1 for d in decisions if _waiting(d) and d.waiting_checks)
    topology = sum(1 for d in decisions if _waiting(d) and not d.waiting_checks)
    return ((f", {checks} with quota reserved waiting for admission checks" if checks else "")
            + (f", {topology} with quota reserved waiting for the topology assignment" if topology else ""))


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
            + [Verbatim("  " + "  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4]) for r in rows])


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
        leaves = p.assignment  # by the lowest level's values (hostnames, or racks), as Kueue's assignment
        nodes = ", ".join(f"{k}:{v}" for k, v in list(sorted(leaves.items()))[:6]) or "no node (an empty assignment)"
        more = f", … {len(leaves) - 6} more" if len(leaves) > 6 else ""
        short = (f"; {p.request.count - pods} of its {p.request.count} pods on no node ({p.unplaced}): Kueue assigns it so"
                 if p.unplaced else "")
        out.append(f"{p.request.pod_set}: {pods} pod{'' if pods == 1 else 's'}{where} ({_request_text(p.request)}) on "
                   f"{nodes}{more}{short}")
    return out


def admit_json(result: AdmitResult, skipped=(), unmodelled: int = 0, refused_pods: int = 0, gated_pods: int = 0) -> str:
    return json.dumps(admit_dict(result, skipped, unmodelled, refused_pods, gated_pods), indent=2) + "\n"


def admit_shown(diagnostics) -> list:
    """The diagnostics `admit` reports (on stderr, and in its JSON as `diagnostics`): all but notes."""
    return [d for d in diagnostics if d.severity.value != "note"]


def admit_outcome_dict(outcome) -> dict:
    """`admit --format json`'s document for a decided `api.AdmitOutcome`: `admit_dict` with the pending workloads
    held back (`outcome.held`) among `skipped`, and `diagnostics` (`admit_shown`, as `check --format json`
    writes each)."""
    from kadmit.render.json_report import diagnostic_dict

    skipped = (*outcome.loaded.workspace.model.skipped, *outcome.held)
    return {**admit_dict(outcome.result, skipped, **differ_counts(outcome.diagnostics)),
            "diagnostics": [diagnostic_dict(d) for d in admit_shown(outcome.diagnostics)]}


def admit_outcome_json(outcome) -> str:
    return json.dumps(admit_outcome_dict(outcome), indent=2) + "\n"


def skipped_lines(skipped) -> list[str]:
    """A summary line, then one line per object the input holds that is not work kadmit decides (an
    entry that counts more objects of its kind, `Skipped.more`, says how many)."""
    if not skipped:
        return []
    total = sum(1 + s.more for s in skipped)
    out = [f"{total} object{'s' if total != 1 else ''} in the input not decided:"]
    for s in skipped[:SKIPPED_SHOWN]:
        where = f" ({s.span.file}:{s.span.line})" if s.span is not None else ""
        more = f" (and {s.more:,} more `{s.object.kind}` after it in its file, counted, not listed)" if s.more else ""
        out.append(one_line(f"  {s.object.kind} {s.object.key}{where}: {s.reason}{more}"))
    if len(skipped) > SKIPPED_SHOWN:
        rest = skipped[SKIPPED_SHOWN:]
        kinds = sorted({s.object.kind for s in rest})
        counted = any(s.more for s in skipped)
        out.append(f"  … and {sum(1 + s.more for s in rest)} more ({', '.join(kinds[:6])}"
                   f"{', …' if len(kinds) > 6 else ''}): `--format json` lists them"
                   + (f", the objects of one kind past {SKIPPED_NAMED} in a file by count" if counted else " all"))
    return out


SKIPPED_SHOWN = 20


def _bare(message: str) -> str:
    """A reason without Kueue's `couldn't assign flavors to pod set X: ` lead (the row names the workload)."""
    head, sep, rest = message.partition(": ")
    return rest if sep and head.startswith("couldn't assign flavors to pod set") else message


def _fit(text: str, room: int, tail: str) -> str:
    """`text` and `tail` in `room` characters, the text cut with an ellipsis where it must be."""
    room = max(room, 12)
    if len(text) + len(tail) <= room:
        return text + tail
    return text[:max(1, room - len(tail) - 1)].rstrip(" ,;") + "…" + tail


def _wrapped(line: str, width: int | None) -> list[str]:
    """A placement line in `width` columns: wrapped between words, its continuation indented; a name
    longer than the room is never cut (the line runs over instead)."""
    if width is None or len(line) <= width:
        return [line]
    return textwrap.wrap(line, width=max(width, 24), initial_indent="", subsequent_indent="      ",
                         break_long_words=False, break_on_hyphens=False) or [line]


def admit_human(result: AdmitResult, skipped=(), width: int | None = None, unmodelled: int = 0,
                refused_pods: int = 0, gated_pods: int = 0) -> str:
    """The decisions as a table; with `width` (a terminal's), each row's note is cut to fit it and the
    lines below the tables wrapped to it (`render.wrap`);
    `unmodelled`: how many settings kadmit does not model the input sets (KAD161), which the summary
    says may make Kueue's answer differ; `refused_pods`: how many pod sets' pods the API server refuses
    (KAD199), and `gated_pods`: how many StatefulSets' pods Kueue leaves gated (KAD188), which the summary says
    hold quota without running."""
    names = display_names([d.workload for d in result.decisions])
    rows = [("WORKLOAD", "ADMITTED", "CLUSTER QUEUE", "POD SETS", "NOTE")]
    short: list[tuple[int, str, int]] = []  # row, its first reason, how many more
    for d in result.decisions:
        a = d.assignment
        if a is not None:
            sets = "; ".join(
                f"{ps} {a.counts.get(ps, 0)}×" + ",".join(sorted(set(fl.values())) or ["-"])
                for ps, fl in sorted(a.flavors.items()))
            preempted = [f"preempted {', '.join(v.key for v in d.preempted)}"] if d.preempted and d.admitted else []
            note = "; ".join(([waiting_text(d)] if _waiting(d) else []) + (["borrowing"] if a.borrowing else [])
                             + preempted + list(d.notes))
        else:
            sets = ""
            reasons = result.reasons.get(d.key, [])
            note = one_line(reasons[0].message) if reasons else ""
            if len(reasons) > 1:
                shown = names.get(d.key, d.key)  # `why` takes the key where the name shown adds the part
                note += f" (+{len(reasons) - 1} more: kadmit why {d.key if ' (' in shown else shown})"
                short.append((len(rows), one_line(reasons[0].message), len(reasons) - 1))
        if d.loop is not None:
            note = "in a preemption loop (see the warning below)" if d.loop.settled else "still moving when the run stopped"
        rows.append((one_line(names.get(d.key, d.key)), "unknown" if d.unknown else (
                     ("reserved" if _waiting(d) else "yes") if d.admitted else "no"),
                     d.cluster_queue or "-", sets or "-", note))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    room = None if width is None else width - sum(widths) - 8
    cut = False
    if room is not None:
        more = dict((i, (m, n)) for i, m, n in short)
        for i, r in enumerate(rows[1:], 1):
            if len(r[4]) > room:
                message, n = more.get(i, (r[4], 0))
                rows[i] = r[:4] + (_fit(_bare(message), room, f" (+{n} more)" if n else ""),)
                cut = True
    lines = [Verbatim("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4]) for r in rows]
    if cut:
        lines.append("(notes cut to the terminal's width: `kadmit why WORKLOAD` gives each one whole)")
    placed = [(d.key, line) for d in result.decisions if d.admitted for line in placement_summary(d.assignment)]
    if placed:
        lines.append("")
        lines.append("placement (topology-aware):")
        for key, line in placed:
            lines.extend(_wrapped(f"  {names.get(key, key)} {line}", width))
    admitted = sum(1 for d in result.decisions if d.kueue_admitted)
    if result.gangs:
        lines.extend(_gang_lines(result.gangs))
    for lp in result.loops:
        lines.append("")
        lines.append(f"warning[{'KAD535' if lp.settled else 'KAD536'}]: {lp.message()}")
        lines.extend(f"  --> {r.span}  {r.text}" for r in lp.rules if r.span is not None)
        lines.append("   = note: the run stops there; these workloads are undecided (exit 3)")
    for _, stalled in sorted({d.stalled.message: d.stalled for d in result.decisions if d.stalled}.items()):
        lines.append("")
        lines.append(f"warning[KAD542]: {stalled.message}")
        lines.extend(f"  --> {span}  Workload {key}" for key, span in stalled.holders if span is not None)
        lines.append(f"   = help: {STALL_HELP}")
    lines.append("")
    if result.optimal:
        o = result.optimal
        proof = "proven optimal" if o.get("proven_optimal") else f"best found, {o.get('status', '?')}"
        victims = o.get("victims") or []
        lines.append(f"{admitted} of {len(result.decisions) - len(victims)} pending workloads admitted"
                     + _waiting_counts(result.decisions)
                     + (f", {len(victims)} admitted workload(s) preempted" if victims else "")
                     + f" (optimal mode, CP-SAT, {proof}, {o.get('seconds', 0)} s)")
        beyond = o.get("admitted_beyond_ordered") or []
        fewer = o.get("not_admitted_vs_ordered") or []
        by_ordered = o.get("victims_ordered") or []
        lines.append(f"beyond ordered: {', '.join(beyond) if beyond else 'nothing'}"
                     + (f"; ordered admits instead: {', '.join(fewer)}" if fewer else "")
                     + (f"; victims: {', '.join(victims) or 'none'} (ordered preempts "
                        f"{', '.join(by_ordered) or 'none'})" if victims or by_ordered else ""))
        if o.get("ordered_undecided"):
            lines.append(f"ordered mode could not decide {', '.join(o['ordered_undecided'])} within the solver's "
                         "limits: what waits here is undecided, and so is the comparison (exit 3; raise --rlimit or --timeout)")
    else:
        pending = [d for d in result.decisions if d.workload.admission is None]
        victims = [d for d in result.decisions if d.preempted_by and not d.admitted]
        lines.append(f"{sum(1 for d in pending if d.kueue_admitted)} of {len(pending)} pending "
                     "workloads admitted"
                     + _waiting_counts(pending)
                     + (f", {len(victims)} admitted workload(s) preempted" if victims else "")
                     + f" ({result.mode} mode, {result.solver.get('checks', 0)} solver checks)")
    if width is not None and len(lines[-1]) > width and " (" in lines[-1]:  # the summary: its mode on a line of its own
        head, _, tail = lines[-1].partition(" (")
        lines[-1:] = [head, "(" + tail]
    lines.extend(m["message"] for m in may_differ(result, unmodelled, refused_pods, gated_pods))
    lines.extend(skipped_lines(skipped))
    return "\n".join(line.rstrip() for line in fit(lines, width)) + "\n"

