"""`kadmit diff` as human text, JSON and Markdown (a pull-request comment, from a jinja2 template)."""

from __future__ import annotations

import json

from kadmit.quantity import format_quantity
from kadmit.render.decisions import admit_dict
from kadmit.render.templating import template


def _q(gang) -> str | None:
    return None if gang is None else format_quantity(gang.total, gang.resource)


def gang_text(gang) -> str:
    return f"{gang.pods} × {format_quantity(gang.per_pod, gang.resource)} {gang.resource}"


def witness_kad(gang) -> str:
    """The witness as `.kad` text to run through `kadmit why` (with the namespace and local queue
    made up for it, when the policy has none for its cluster queue)."""
    lines = []
    if gang.made_up is not None:
        labels = ", ".join(f'"{k}" = "{v}"' for k, v in gang.made_up)
        lines += [f"namespace {gang.namespace} {{ labels = {{ {labels} }} }}",
                  f"local_queue {gang.namespace}/{gang.queue} -> {gang.cluster_queue}"]
    req = format_quantity(gang.per_pod, gang.resource)
    lines += [f"workload {gang.namespace}/envelope-witness {{", f"  queue = {gang.queue}",
              "  pod_group gang {", f"    count       = {gang.pods}", f"    min_count   = {gang.pods}",
              f"    requests    = {{ {gang.resource} = {req} }}"]
    if gang.node_labels:
        sel = ", ".join(f'"{k}" = "{v}"' for k, v in gang.node_labels)
        lines.append(f"    node_selector = {{ {sel} }}")
    if gang.tolerations:
        tols = ", ".join(f'"{t.key}:{t.effect}"' for t in gang.tolerations)
        lines.append(f"    tolerations = [{tols}]")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def _decision(result, key: str, d, model_wl) -> dict | None:
    if d is not None:
        return next(x for x in admit_dict(result)["decisions"] if x["workload"] == key)
    if model_wl is not None and model_wl.admitted:
        return {"workload": key, "admitted": True, "cluster_queue": model_wl.admission.cluster_queue,
                "note": "admitted in the input and left running"}
    return None


def diff_dict(outcome) -> dict:
    r = outcome.result
    wb = {w.key: w for w in outcome.base_model.workloads}
    wh = {w.key: w for w in outcome.head_model.workloads}
    envelopes = []
    for e in r.envelopes:
        w = e.witness
        envelopes.append({
            "cluster_queue": e.cluster_queue, "flavor": e.flavor, "resource": e.resource,
            "before": _q(e.before), "after": _q(e.after),
            "before_gang": gang_text(e.before) if e.before else None,
            "after_gang": gang_text(e.after) if e.after else None,
            "witness": None if w is None else {
                "admitted": e.witness_side, "pods": w.pods, "per_pod": format_quantity(w.per_pod, w.resource),
                "total": format_quantity(w.total, w.resource), "namespace": w.namespace, "queue": w.queue,
                "kad": witness_kad(w)}})
    return {
        "base": outcome.base_spec, "head": outcome.head_spec, "changed": not r.empty,
        "changes": [c.as_dict() for c in r.changes],
        "decisions": [{"workload": d.workload,
                       "before": _decision(r.base, d.workload, d.before, wb.get(d.workload)),
                       "after": _decision(r.head, d.workload, d.after, wh.get(d.workload)),
                       "summary": {"before": d.before_state, "after": d.after_state},
                       "why": {"side": d.why_side, "lines": d.why}} for d in r.decisions],
        "envelopes": envelopes,
        **({} if r.manifests is None else {"manifests": [m.as_dict() for m in r.manifests]}),
        "unknown": r.unknown,
        "undecided": [{"what": what, "object": key, "side": side} for what, key, side in r.undecided],
    }


def diff_shown(diagnostics) -> list:
    """The diagnostics `diff` reports once it has an answer (on stderr, and in its JSON as `diagnostics`): errors
    only, as both sides' warnings would say each of a file's twice."""
    return [d for d in diagnostics if d.severity.value == "error"]


def diff_json(outcome) -> str:
    from kadmit.render.json_report import diagnostic_dict

    return json.dumps({**diff_dict(outcome), "diagnostics": [diagnostic_dict(d) for d in diff_shown(outcome.diagnostics)]},
                      indent=2) + "\n"


def _envelope_line(e) -> str:
    before = f"{_q(e.before)} ({gang_text(e.before)})" if e.before else "nothing"
    after = f"{_q(e.after)} ({gang_text(e.after)})" if e.after else "nothing"
    return f"{e.cluster_queue} on {e.flavor}, {e.resource}: largest gang {before} → {after}"


def _witness_line(e) -> str:
    w = e.witness
    if w is None:
        return "no single gang tells the two apart at the policy's units"
    verb = "could" if e.witness_side == "before" else "can now"
    tail = "; no longer" if e.witness_side == "before" else "; could not before"
    return f"{e.cluster_queue} {verb} admit {gang_text(w)} on {e.flavor}{tail}"


def diff_human(outcome) -> str:
    r = outcome.result
    lines = [f"kadmit diff {outcome.base_spec} → {outcome.head_spec}", ""]
    if r.empty:
        return "\n".join(lines + ["no changes: same policy, same decisions, same envelopes"]) + "\n"
    lines.append(f"policy and state changes ({len(r.changes)}):")
    lines += [f"  {c.text()}" + (f"  ({c.span.file}:{c.span.line})" if c.span else "") for c in r.changes] or ["  none"]
    lines += ["", f"decisions that change on the state ({len(r.decisions)}):"]
    for d in r.decisions:
        lines.append(f"  {d.workload}: {d.before_state} → {d.after_state}")
        lines += [f"      why ({'HEAD' if d.why_side == 'after' else 'BASE'}): {w}" for w in d.why[:6]]
    if not r.decisions:
        lines.append("  none")
    lines += ["", f"envelopes on an empty cluster that change ({len(r.envelopes)}):"]
    for e in r.envelopes:
        lines.append(f"  {_envelope_line(e)}")
        lines.append(f"      witness: {_witness_line(e)}")
    if not r.envelopes:
        lines.append("  none")
    if r.undecided:
        lines += ["", f"not decided within the solver's limits ({len(r.undecided)}; raise --rlimit or --timeout):"]
        lines += [f"  {what}" for what, _, _ in r.undecided]
    if r.manifests is not None:
        lines += ["", f"Kueue manifests that change ({len(r.manifests)}, as `kadmit export` writes them):"]
        for m in r.manifests:
            lines += ["  " + line for line in m.diff.splitlines()]
        if not r.manifests:
            lines.append("  none")
    return "\n".join(lines) + "\n"


def diff_markdown(outcome) -> str:
    r = outcome.result
    return template("diff.md.j2").render(
        base=outcome.base_spec, head=outcome.head_spec, r=r, envelope_line=_envelope_line,
        witness_line=_witness_line, witness_kad=witness_kad, quantity=_q, gang_text=gang_text)
