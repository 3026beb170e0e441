"""`why`'s answer as human text and JSON: the workload's standing in a few lines, its blame, and the
fixes proven for it."""

from __future__ import annotations

import json
import re

from kadmit.edits import unified_diff
from kadmit.engine.decide import WhyResult
from kadmit.engine.explain.marco import origin_dict
from kadmit.engine.explain.replay import HARMFUL, SAME_OUTCOME
from kadmit.identity import kueue_dict, kueue_key, object_dict, object_of, skipped_dict
from kadmit.quantity import format_quantity
from kadmit.render.decisions import gang_dict, skipped_lines
from kadmit.render.excerpt import one_line
from kadmit.render.json_report import diagnostic_dict
from kadmit.render.why_blame import _blame, _blame_full
from kadmit.render.wrap import PIPE_ITEMS, fill_items, fit
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
    own = result.standing.cluster_queue if result.standing is not None else None
    if result.fixes:
        if full:
            out.append(f"fixes (each proven by changing the input and deciding the cluster again in "
                       f"{result.fixes_mode} mode):")
            actor = None
        else:  # the first group said in the title, in a line
            actor = result.fixes[0].actor
            out.append(f"fixes {ACTORS[actor].split(' (')[0].rstrip(':')} (each proven by deciding the changed input "
                       f"again, {result.fixes_mode} mode):")
        last = None  # the file the fix above changes, when it changes one only (`in the same file`)
        for i, f in enumerate(result.fixes, 1):
            if f.actor != actor:
                actor = f.actor
                out.append(f"  {ACTORS[actor]}")
            out.extend(_fix_lines(i, f, full, width, own, workload, None if full else last))
            files = {c.knob.span.file for c in f.changes if c.knob.span is not None}
            last = files.pop() if len(files) == 1 and all(c.knob.span is not None for c in f.changes) else None
        # the notes on the search name changes of the platform's that admit nothing alone or were not
        # tried: where a fix of the platform's is shown, `--all` gives them
        notes = full or not any(f.actor == "platform" for f in result.fixes)
        out.extend(f"   = note: {n if full else getattr(n, 'brief', n)}" for n in result.fixes_notes if notes)
        more = _fixes_notes(result)
        adds = [] if full else _all_adds(result, notes)
        if more and adds:  # one line: `= note: 1 more fix proven, `--fixes 4` shows it; `--all`: …`
            more[-1] += f"; {adds.pop()}"
        out.extend(more + [f"   = note: {a}" for a in adds])
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
    elif (result.admitted and d is not None and not d.kueue_admitted) or result.reasons[:1] and result.reasons[0].code in ("KAD504", "KAD539"):
        checks = (d is not None and bool(d.waiting_checks)) or result.reasons[0].code == "KAD504"
        out.append(f"warning[{'KAD504' if checks else 'KAD539'}]: {'workload ' if name == result.workload else ''}"
                   f"`{name}` has quota reserved, waiting for " + ("admission checks (Kueue admits it when they are "
                   "Ready)" if checks else "its topology assignment (Kueue admits it when it is made)"))
    elif result.admitted:
        out.append(f"note[KAD502]: {'workload ' if name == result.workload else ''}`{name}` is admitted")
    else:
        out.append(f"error[KAD501]: {'workload ' if name == result.workload else ''}`{name}` can't be admitted")
    if workload is not None and workload.origin is not None:  # the Workload Kueue makes of it, on the first line
        key = kueue_key(workload)
        out[0] += f" (Workload {key})" if key is not None else " (its Workload's name is given by the cluster: the input holds no UID)"
    if workload_span is None and result.gang is not None:
        workload_span = result.gang.gang.span
    if workload_span is not None:
        out.append(f"  --> {workload_span}")
    for ps in workload.pod_sets if workload is not None else ():
        if ps.origin:
            out.append(f"   = pod set {ps.name}: {ps.count} pod{'' if ps.count == 1 else 's'} from {ps.origin}")
    if not result.admitted and result.gang is None:
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


def _fixes_notes(result: WhyResult) -> list[str]:
    """What the list of fixes leaves out: fixes proven but not shown, a budget spent before the end."""
    out = []
    more = result.fixes_found - len(result.fixes)
    if more > 0:
        out.append(f"   = note: {more} more {'fix' if more == 1 else 'fixes'} proven, `--fixes "
                   f"{result.fixes_found}` shows {'it' if more == 1 else 'them'}")
    if result.fixes_checked is not None and not result.unknown and result.fixes_checked > 0 and \
            not result.fixes_complete and more <= 0:
        out.append(f"   = note: the budget of {result.fixes_checked} changes decided again ran out before every "
                   "candidate was tried; `--budget N` tries more")
    return out


def _all_adds(result: WhyResult, notes: bool) -> list[str]:
    """What the fixes' default view leaves to `--all` (`[]`: nothing): the notes on the search for fixes
    (unless `notes` shows them); each fix in full where one is said short: how its changes depend on each
    other (`Proven.needs`), side effects not named."""
    parts = []
    if result.fixes_notes and not notes:
        parts.append(f"{len(result.fixes_notes)} more note{'' if len(result.fixes_notes) == 1 else 's'}")
    named = sum(min(len(names), NAMED) for f in result.fixes if f.summary is not None
                for kind, _, names in f.summary.by_kind if kind in HARMFUL)
    if any(f.needs for f in result.fixes) or sum(len(f.effects) for f in result.fixes) > named:
        parts.append("each fix in full")
    return [f"`--all`: {', '.join(parts)}"] if parts else []


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _fix_lines(i: int, f, full: bool = False, width: int | None = None, own: str | None = None,
               workload=None, after: str | None = None) -> list[str]:
    """A proven fix: its changes, then what it admits the workload with and its side effects. By default
    the side effects are counted by kind on the outcome's line, the few harmed named, and how the changes
    depend on each other (`Proven.needs`) is left to `--all`; `--all` lists every side effect. `own`: the
    workload's ClusterQueue and `workload` its model (an outcome in that queue with every pod set whole says
    on which flavors only). `after`: the file the fix above changes, named there: here `the same file` (where
    that is shorter)."""
    waits = all(c.edit is None for c in f.changes)
    parts = {c.knob.within[1:2] for c in f.changes}
    briefs = [c.brief(part=len(parts) > 1) for c in f.changes]
    needs = f.needs if full else ""
    one = len(f.changes) == 1 and not full and briefs[0] is not None and \
        _RESOURCE_FIELD.fullmatch(f.changes[0].knob.within[2]) is not None and \
        briefs[0].startswith(f"{f.changes[0].knob.within[2]}: ")  # one quota number of a manifest: as several are
    if (len(f.changes) > 1 or one) and None not in briefs and \
            len({(c.knob.within[0], c.knob.span.file) for c in f.changes}) == 1:  # one object: named once
        k = f.changes[0].knob
        within = k.within[0] + (f", {k.within[1]}" if len(parts) == 1 else "")
        file = SAME_FILE if k.span.file == after and len(k.span.file) > len(SAME_FILE) else k.span.file
        head = f"  {i}. change all {len(f.changes)} of {within}, in {file}{needs}:"
        if full:
            out = [head, *fill_items("       ", briefs, "       ", width or PIPE_ITEMS)]
        else:  # the changes after the object, on its line (a terminal wraps them under the number)
            names = [c.knob.within[2] for c in f.changes]
            fields = {n.rpartition(" ")[2] for n in names}
            sep = ", "
            if len(parts) == 1 and all(" " in n and b.startswith(f"{n}: ") for n, b in zip(names, briefs)):
                if len(fields) == 1:  # one field of each resource: said once, `cpu: "768" → "4240" (:24)`
                    every = f"all {len(f.changes)} " if len(f.changes) > 1 else ""
                    head = f"  {i}. change {every}{fields.pop()} of {within}, in {file}:"
                    briefs = [f"{n.rpartition(' ')[0]}: {b[len(n) + 2:]}" for n, b in zip(names, briefs)]
                else:  # `nominalQuota: cpu "576" → "4048" (:35), …; lendingLimit: cpu …`
                    briefs, sep = _by_field(briefs, names), "; "
            out = [f"{head} {sep.join(briefs)}"]
    else:
        head = f"  {i}. " + ("no change of the input: " if waits else "change " if len(f.changes) == 1
                             else f"change all {len(f.changes)}: ")
        described = [_same_file(c, after) for c in f.changes]
        described[-1] += needs
        # on a terminal, changes to different objects each start a line of their own
        out = fill_items(head, described, "       ", width if len(described) > 1 else None, sep=";")
    if full:
        out.append(f"     then: {f.outcome_text}")
        if not f.effects:
            out.append("     side effects: none (no other workload's decision changes)")
        else:
            out.append(f"     side effects on {plural(len(f.effects), 'other workload')}:")
            out.extend(f"       - `{e.workload}` {e.kind}: {e.before.describe(e.nodes_only)} → "
                       f"{e.after.describe(e.nodes_only)}" for e in f.effects)
        return out
    then = f"     then {_outcome(f, own, workload)}"
    s = f.summary
    if s is None:
        return out + [then]
    if s.all_ahead:
        then += f"; admits the {plural(s.ahead, 'workload')} ahead of it too"
    harm = [(kind, n, names) for kind, n, names in s.by_kind if kind in HARMFUL]
    calm = [(kind, n) for kind, n, _ in s.by_kind if kind not in HARMFUL and kind != SAME_OUTCOME]
    same = sum(n for kind, n, _ in s.by_kind if kind == SAME_OUTCOME)
    ahead = s.ahead if not s.all_ahead else 0
    admitted = sum(n for kind, n in calm if kind in _ADMITTED) + ahead
    items = [f"{n} {kind}" for kind, n, _ in harm]
    named = [(n, names[:NAMED]) for _, n, names in harm if names][:1]  # the first kind's first, said last
    if admitted:
        items.append(f"{admitted} admitted" + (f" ({ahead} ahead of it)" if ahead else ""))
    items += [f"{n} {_SHORT.get(kind, kind)}" for kind, n in calm if kind not in _ADMITTED]
    n = sum(n for _, n, _ in harm) + sum(n for _, n in calm) + ahead
    tail = f"; {same} evicted either way" if same else ""
    if not n:
        return out + [f"{then}; side effects: none" + (" besides" if s.all_ahead else
                                                       " (no other workload's decision changes)" if not same else "")
                      + tail]
    who = "".join(f"; harmed: {', '.join(f'`{w}`' for w in names)}{', …' if len(names) < k else ''}"
                  for k, names in named)
    return out + [f"{then}; side effects on {n} other{'' if n == 1 else 's'}: {', '.join(items)}{tail}{who}"]


_RESOURCE_FIELD = re.compile(r"[^\s`]+ [a-z][A-Za-z]*")  # a manifest's quota number: `nvidia.com/gpu nominalQuota`


def _same_file(change, after: str | None) -> str:
    """`Change.describe`, its place `:LINE of the same file` where its file is `after` (the fix above's) and
    its name is longer."""
    text = change.describe()
    k = change.knob
    if after is None or k.span is None or k.span.file != after or not text.startswith(f"{k.where()}: ") or \
            len(k.span.file) <= len(SAME_FILE):
        return text
    return f":{k.span.line} of {SAME_FILE}: {text[len(k.where()) + 2:]}"


SAME_FILE = "the same file"  # the file the fix above changes (named there), where it is shorter than its name


NAMED = 1  # harmed workloads a fix's side effects name by default (`--all`: every one)
_ADMITTED = ("pending → admitted", "evicted → admitted")  # admitted where it was not: counted as one
_SHORT = {"moved to another queue or flavor": "moved"}  # `--all` says each kind whole


def _by_field(briefs: list[str], names: list[str]) -> list[str]:
    """Changes of one object's numbers grouped by field, each field said once, in the order they come:
    `nominalQuota: cpu "576" → "4048" (:35), memory …`, `lendingLimit: cpu "288" → "2024" (:36), …`."""
    groups: dict[str, list[str]] = {}
    for brief, name in zip(briefs, names):
        res, _, field = name.rpartition(" ")
        groups.setdefault(field, []).append(f"{res} {brief[len(name) + 2:]}")
    return [f"{field}: {', '.join(items)}" for field, items in groups.items()]


def _outcome(f, own: str | None, workload=None) -> str:
    """What the fix admits the workload with, without its name (it is the one asked about): in its own
    ClusterQueue with every pod set whole on the same flavors, `admitted on h100`; else
    `admitted to ClusterQueue `q` with 1 pod of `main` on h100` as `Proven.outcome_text` says it."""
    o = f.outcome
    whole = {ps.name: ps.count for ps in workload.pod_sets} if workload is not None else {}
    flavors = {tuple(sorted({fl for _, fl in fls})) for _, _, fls in o.pod_sets}
    if o.admitted and not o.waiting and own is not None and o.cluster_queue == own and not o.nodes and len(flavors) == 1 and \
            all(whole.get(name) == count for name, count, _ in o.pod_sets) and len(o.pod_sets) == len(whole) \
            and next(iter(flavors)):
        return f"admitted on {', '.join(next(iter(flavors)))}"
    text = f.outcome_text
    if text.startswith(f"`{f.target}` is "):
        text = text[len(f"`{f.target}` is "):]
    if own is not None and text.startswith(f"admitted to ClusterQueue `{own}` with "):
        text = "admitted with " + text[len(f"admitted to ClusterQueue `{own}` with "):]
    return text


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
        line = (f"waits behind the {st.behind_strategy} head `{st.behind}`"
                + (" (the API server refuses Kueue's admission write of it: requeued at once)" if st.behind_refused
                   else "" if st.behind_strategy == "StrictFIFO" else " (it has flavors left to try)"))
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
