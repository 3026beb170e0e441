"""`why`'s answer as human text and JSON: the workload's standing in a few lines, its blame, and the
fixes proven for it."""

from __future__ import annotations

import json
import re

from kadmit.edits import unified_diff
from kadmit.engine.decide import WhyResult
from kadmit.engine.explain.marco import origin_dict
from kadmit.identity import kueue_dict, kueue_key, object_dict, own_key_note, object_of, skipped_dict
from kadmit.render.decisions import gang_dict, skipped_lines
from kadmit.render.excerpt import one_line
from kadmit.render.json_report import diagnostic_dict
from kadmit.render.why_blame import _blame, _blame_full
from kadmit.render.why_fixes import fixes_lines
from kadmit.render.why_standing import standing_lines
from kadmit.render.wrap import fit
from kadmit.source import SourceMap, Span


def _loc(span: Span | None) -> dict:
    if span is None:
        return {"file": None, "line": None, "column": None}
    return {"file": span.file, "line": span.line, "column": span.column}


def why_dict(result: WhyResult, workload=None, skipped=(), diagnostics=()) -> dict:
    """`workload`: the model's Workload asked about (its object and pod sets' origins); `diagnostics`: those of the
    load the human answer shows beside it (`api.why_diagnostics`: a job's Workload out of step, KAD175; the
    cluster read's)."""
    d = result.decision
    a = d.assignment if d else None
    return {
        "workload": result.workload,
        "object": object_dict(object_of(workload)) if workload is not None else None,
        **(kueue_dict(workload) if workload is not None else {"kueue_workload": None}),
        "pod_set_origins": {ps.name: ps.origin for ps in workload.pod_sets if ps.origin}
        if workload is not None else {},
        "admitted": result.admitted and (d is None or d.kueue_admitted),
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
        "replaced_by": result.replaced_by,
        "skipped": [skipped_dict(s) for s in skipped],
        "solver": result.solver,
        "diagnostics": [diagnostic_dict(d) for d in diagnostics],
    }


def why_patch(fix, sources: SourceMap) -> str:
    """A proven fix's edits as a unified diff of the input files (empty for a fix that only waits for
    a holder: no edit of the input says a workload finished)."""
    edits = [c.edit for c in fix.changes if c.edit is not None]
    texts = {e.file: sources.text(e.file) or "" for e in edits}
    return unified_diff(texts, edits)


def why_json(result: WhyResult, workload=None, skipped=(), diagnostics=()) -> str:
    return json.dumps(why_dict(result, workload, skipped, diagnostics), indent=2) + "\n"


def why_human(result: WhyResult, sources: SourceMap, workload_span: Span | None, workload=None,
              skipped=(), full: bool = False, width: int | None = None) -> str:
    """The answer in a few lines: the header, where the workload stands, Kueue's reasons, blame (sets
    that differ only by resource as one, at most three) and the fixes with their side effects counted
    by kind. `full` (`--all`): every reason, every blame set with the lines of input it names, and
    every side effect. `width` (a terminal's): every line wrapped to it (`render.wrap`); None, whole."""
    out = _explained(result, sources, workload_span, workload, full)
    out.extend(fixes_lines(result, full, width, workload))
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
    if result.placement is not None and not result.placement.unsat and result.placement.slices_short:
        out.append(f"   = note: counting pods {_leaf_by_leaf(result.placement)} the pod set fits, but Kueue places "
                   "whole slices (above), so there is no core over pods to blame")
    elif result.placement is not None and not result.placement.unsat and result.placement.group is not None:
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
    elif (result.admitted and d is not None and not d.kueue_admitted) or result.reasons[:1] and result.reasons[0].code in ("KAD504", "KAD539"):
        checks = (d is not None and bool(d.waiting_checks)) or result.reasons[0].code == "KAD504"
        out.append(f"warning[{'KAD504' if checks else 'KAD539'}]: {'workload ' if name == result.workload else ''}"
                   f"`{name}` has quota reserved, waiting for " + ("admission checks (Kueue admits it when they are "
                   "Ready)" if checks else "its topology assignment (Kueue admits it when it is made)"))
    elif result.replaced_by is not None:
        out.append(f"note[KAD502]: {f'workload `{name}`' if name == result.workload else f'this slice of `{name}`'} "
                   f"is finished, replaced by its job's new slice `{result.replaced_by}`")
    elif result.admitted:
        out.append(f"note[KAD502]: {'workload ' if name == result.workload else ''}`{name}` is admitted")
    else:
        out.append(f"error[KAD501]: {'workload ' if name == result.workload else ''}`{name}` can't be admitted")
    if workload is not None and workload.origin is not None:  # the Workload Kueue makes of it, on the first line
        key = kueue_key(workload)
        out[0] += f" (Workload {key})" if key is not None else (" (its Workload's name is given by the cluster: the "
                                                                f"input holds no UID{own_key_note(workload)})")
    if workload_span is None and result.gang is not None:
        workload_span = result.gang.gang.span
    if workload_span is not None:
        out.append(f"  --> {workload_span}")
    for ps in workload.pod_sets if workload is not None else ():
        if ps.origin:
            out.append(f"   = pod set {ps.name}: {ps.count} pod{'' if ps.count == 1 else 's'} from {ps.origin}")
    if not result.admitted and result.gang is None and result.replaced_by is None:
        out.extend(f"   = {line}" for line in standing_lines(result))
    return out


def _reasons(result: WhyResult, full: bool) -> list[str]:
    """Kueue's reasons; unless `full`, the first few, those about the resource the standing is about first."""
    reasons = list(result.reasons)
    st = result.standing
    if not full and st is not None and st.behind is not None and not result.admitted and result.gang is None:
        # KAD519 says what the first line says (`waits behind the StrictFIFO head `x``): `--all` gives it
        reasons = [x for x in reasons if not (x.code == "KAD519" and f"waiting behind {st.behind}" in x.message)]
    if not full:
        said = _said_by_standing(result, reasons)
        reasons = [x for x in reasons if x not in said]
    every = len(reasons)
    if not full and len(reasons) > MAX_REASONS:
        r = result.standing.resource if result.standing is not None else None
        about = [x for x in reasons if r and f" {r} " in f" {x.message} "]
        reasons = (about + [x for x in reasons if x not in about])[:MAX_REASONS]
    out = [f"   = reason: {one_line(m)}" for m in (_one_word_apart([r.message for r in reasons]) if not full
                                         else [r.message for r in reasons])]
    if len(reasons) < every:
        more = every - len(reasons)
        out.append(f"   = reason: … {more} more (`--all` lists every one)")
    return out


def _said_by_standing(result: WhyResult, reasons: list) -> list:
    """The KAD533 reasons a standing line says already, each with every word of it: `needs N more R in flavor F,
    but ClusterQueue Q's preemption policies (P) allow evicting no admitted workload` where the line says who
    holds R in F and that its queue Q may preempt none of them (P), and another reason shown says Kueue's `R in
    flavor F, N more needed` (`--all` shows it)."""
    st = result.standing
    h = st.held if st is not None else None
    if h is None or h.preemptible or not st.quota or result.placement is not None or result.admitted \
            or result.gang is not None:
        return []
    out = []
    for x in reasons:
        m = _NO_EVICTION.fullmatch(x.message) if x.code == "KAD533" else None
        if m is None or (m.group("resource"), m.group("flavor"), m.group("queue"), m.group("policies")) != \
                (h.resource, h.flavor, st.cluster_queue, h.policies):
            continue
        needed = f"{h.resource} in flavor {h.flavor}, {m.group('amount')} more needed"
        if any(needed in y.message for y in reasons if y is not x and y.code != "KAD533"):
            out.append(x)
    return out


_NO_EVICTION = re.compile(r"needs (?P<amount>\S+) more (?P<resource>\S+) in flavor (?P<flavor>\S+), but ClusterQueue "
                          r"(?P<queue>\S+)'s preemption policies \((?P<policies>[^)]*)\) allow evicting no admitted "
                          r"workload")


def _one_word_apart(messages: list[str], most: int = 2) -> list[str]:
    """Messages that differ from the first of them in the same words only, at most `most` of them, said as
    one with each such word's values joined by `/` in the messages' order (`... in flavor a100/h100, ...
    > maximum capacity (24/32)`), at the first's place."""
    words = [m.split(" ") for m in messages]
    out, done = [], set()
    for i, w in enumerate(words):
        if i in done:
            continue
        group, at = [i], None
        for j in range(i + 1, len(words)):
            if j in done or len(words[j]) != len(w):
                continue
            diff = tuple(k for k, (a, b) in enumerate(zip(w, words[j])) if a != b)
            if 0 < len(diff) <= most and diff == (at or diff) and \
                    all(_ends(w[k]) == _ends(words[j][k]) and "`" not in w[k] for k in diff):  # names: apart
                at = diff
                group.append(j)
        done.update(group)
        if at is None:
            out.append(messages[i])
            continue
        merged = list(w)
        for k in at:
            head, tail = _ends(w[k])
            merged[k] = head + "/".join(words[j][k][len(head):len(words[j][k]) - len(tail)] for j in group) + tail
        out.append(" ".join(merged))
    return out


def _ends(word: str) -> tuple[str, str]:
    """A word's opening and closing marks: `(`, `)`, `,` ... (`(256),` -> ("(", "),"))."""
    head = re.match(r"[(\['\"]*", word).group(0)
    return head, re.search(r"[,.;:)\]'\"]*$", word[len(head):]).group(0)


def _placement_lines(p, met: bool = False) -> list[str]:
    """The `placement:` section of `why`: the failing pod set, kube-scheduler's histogram for one
    of its pods, the topology view and the best domains, when Kueue last tried it (`met`) or at the
    end of the run."""
    out = [f"placement (topology-aware scheduling, {'when Kueue last tried it' if met else 'at the end of the run'}):",
           f"   = pod set {p.pod_set}: {p.count} pod{'' if p.count == 1 else 's'}, {p.request}, flavor {p.flavor}, topology {p.topology}",
           *([f"   = only its {p.count - p.kept} new pods are placed: the {p.kept} of the slice it replaces, `{p.kept_from}`, "
              "keep their nodes, counted twice there (ElasticJobsViaWorkloadSlicesWithTAS)"] if p.kept else []),
           *([f"   = {p.group}"] if p.group else []),
           f"   = one pod: {p.histogram}",
           f"   = topology: {p.topology_view}"]
    if p.domains and p.level:
        shown = ", ".join(f"{d} fits {n}{f' {p.unit}' if p.unit else ''}" for d, n in p.domains)
        out.append(f"   = {p.level}s, most room first: {shown}")
    return out
