"""`why`'s fixes as text: each proven fix's changes, what it admits the workload with and its side effects,
grouped by who makes the change; and what the list of fixes leaves out."""

from __future__ import annotations

import re

from kadmit.engine.decide import WhyResult
from kadmit.engine.explain.replay import HARMFUL, SAME_OUTCOME
from kadmit.render.wrap import PIPE_ITEMS, fill_items


ACTORS = {"platform": "by the platform team (quotas, limits, policies, queues, nodes):",
          "owner": "by the workload's owner (its spec):",
          "others": "by the owners of other workloads (their specs):",
          "nobody": "by nobody (wait for a workload that holds what it needs to finish):"}


def fixes_lines(result: WhyResult, full: bool = False, width: int | None = None, workload=None) -> list[str]:
    """The fixes proven for the workload: by default grouped by who makes them, the first group named in the
    title, each fix's side effects counted by kind; `full` (`--all`): each fix in full. Where none is proven,
    what was tried."""
    out: list[str] = []
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
    return out


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
    waits = all(c.edit is None and c.knob.kind == "wait" for c in f.changes)  # (an integration: a change not made)
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
