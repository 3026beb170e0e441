"""`why`'s answer said in a few lines: blame sets that differ only by resource, or only by which
admitted workloads they count as holders, as one; each queue's or cohort's quota numbers and the usage
held there on one line, the workloads holding a flavor on one line; a fix's side effects counted by
kind, with the workloads ahead of it in line that it admits too said apart."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain.replay import SAME_OUTCOME, Effect
from kadmit.quantity import format_quantity
from kadmit.source import Span

MAX_SETS = 3  # blame sets shown unless every one is asked for
MAX_NAMED = 3  # workloads named in a fix's side effects (of the kinds that harm them)
MAX_PER_KIND = 3  # ... of one kind (then "…": the count stays exact)


@dataclass
class Line:
    """One line of a blame set: a statement, or every quota number and held usage of one queue, cohort
    or holder, in the set's resources."""

    text: str
    span: Span | None
    ids: list[str] = field(default_factory=list)


@dataclass
class BlameSet:
    """Minimal sets of statements that differ only by resource, said as one (`sets` of them)."""

    lines: list[Line]
    sets: int = 1
    resources: list[str] = field(default_factory=list)
    origins: list[Origin] = field(default_factory=list)  # every statement of the sets, once
    holders_vary: bool = False  # the sets name different admitted workloads as holders

    def as_dict(self) -> dict:
        return {"sets": self.sets, "resources": self.resources, "holders_vary": self.holders_vary,
                "lines": [{"text": ln.text, "file": ln.span.file if ln.span else None,
                           "line": ln.span.line if ln.span else None,
                           "column": ln.span.column if ln.span else None} for ln in self.lines]}


_HEAD = re.compile(r"^head\|([^|]+)\|")  # a StrictFIFO head's own statement (explain.decision)


def _head(o: Origin) -> tuple[str, str]:
    """(the head's key or "", the statement's id without the head's prefix)."""
    m = _HEAD.match(o.id)
    return (m.group(1), o.id[m.end():]) if m else ("", o.id)


def _parts(o: Origin) -> tuple[str, str, str, str] | None:
    """(subject key, flavor, resource, which) of a quota number or held usage; None for other statements.
    A StrictFIFO head's statements have its key in the subject (`head:KEY:` before it)."""
    head, oid = _head(o)
    bits = oid.split("|")
    pre = f"head:{head}:" if head else ""
    if o.kind in ("nominal", "borrowing_limit", "lending_limit") and bits[0] == "quota" and len(bits) == 5:
        return pre + bits[1], bits[2], bits[3], bits[4]
    if o.kind == "usage" and bits[0] == "usage" and len(bits) == 4:
        return pre + bits[1], bits[2], bits[3], "usage"
    return None


def _holder(o: Origin) -> tuple[str, str, str] | None:
    """(head prefix, flavor, resource) of one admitted workload's usage (not a queue's grouped usage)."""
    if o.kind != "usage":
        return None
    head, oid = _head(o)
    bits = oid.split("|")
    if len(bits) != 4 or bits[0] != "usage" or bits[1].startswith("cq:"):
        return None
    return (f"head:{head}:" if head else ""), bits[2], bits[3]


def _abstract(o: Origin) -> str:
    """The statement with its resource left out, and one admitted workload's usage with the workload too."""
    h = _holder(o)
    if h is not None:
        return f"{h[0]}held|{h[1]}"
    p = _parts(o)
    return o.id if p is None else f"{p[0]}|{p[1]}|{p[3]}"


def merge(groups: list[list[Origin]]) -> list[BlameSet]:
    """Blame sets that differ only by resource merged (in order of first appearance), each said in lines."""
    order: list[frozenset] = []
    by: dict[frozenset, list[list[Origin]]] = {}
    for g in groups:
        key = frozenset(_abstract(o) for o in g)
        if key not in by:
            order.append(key)
            by[key] = []
        by[key].append(g)
    out = []
    for key in order:
        sets = by[key]
        seen: dict[str, Origin] = {}
        for g in sets:
            for o in g:
                seen.setdefault(o.id, o)
        origins = list(seen.values())
        per_set = [frozenset(o.id for o in g if _holder(o) is not None) for g in sets]
        vary = len({frozenset(_without_resource(i) for i in ids) for ids in per_set}) > 1
        resources = sorted({p[2] for o in origins if (p := _parts(o)) is not None})
        differ = len({frozenset(p[2] for o in g if (p := _parts(o)) is not None) for g in sets}) > 1
        out.append(BlameSet(lines(origins, sets), len(sets), resources if differ else [], origins, vary))
    return out


def _without_resource(oid: str) -> str:
    return oid.rpartition("|")[0]


_HELD = re.compile(r"^(?:\(`[^`]*`\) )?(\d+) admitted workloads in cluster queue ")


def lines(origins: list[Origin], sets: list[list[Origin]] | None = None) -> list[Line]:
    """One line per statement, except quota numbers and held usage: one line per queue or cohort (its
    nominal quota, limits and what its admitted workloads hold, per flavor), and one line for the
    admitted workloads holding a flavor (how many and how much in each of `sets`, the largest named)."""
    out: list[Line] = []
    at: dict[str, Line] = {}
    rows: dict[str, dict[str, dict[str, list[tuple[str, int]]]]] = {}  # subject -> which -> flavor -> [(res, v)]
    spans: dict[str, dict[str, Span | None]] = {}  # subject -> which -> the first span
    held: dict[tuple[str, str], int] = {}  # (subject, flavor) -> how many workloads hold it (grouped usage)
    holders: dict[tuple[str, str], Line] = {}  # (head prefix, flavor) -> the line of its holders
    for o in origins:
        h = _holder(o)
        if h is not None:
            line = holders.get(h[:2])
            if line is None:
                line = holders[h[:2]] = Line("", o.span, [])
                out.append(line)
            line.ids.append(o.id)
            continue
        p = _parts(o)
        if p is None:
            out.append(Line(o.message, o.span, [o.id]))
            continue
        subject, flavor, res, which = p
        line = at.get(subject)
        if line is None:
            line = at[subject] = Line("", o.span, [])
            out.append(line)
            rows[subject], spans[subject] = {}, {}
        line.ids.append(o.id)
        value = o.param.value if o.param is not None and o.param.value is not None else 0
        rows[subject].setdefault(which, {}).setdefault(flavor, []).append((res, value))
        spans[subject].setdefault(which, o.span)
        if which == "usage":
            m = _HELD.match(o.message)
            if m:
                held[subject, flavor] = max(held.get((subject, flavor), 0), int(m.group(1)))
    for subject, line in at.items():
        line.text = _subject_text(subject, rows[subject], {f: n for (sub, f), n in held.items() if sub == subject})
        # a queue's line points at its quota numbers rather than at its header
        line.span = next((spans[subject][w] for w in ("nominal", "borrowing_limit", "lending_limit", "usage")
                          if spans[subject].get(w) is not None), line.span)
    by_id = {o.id: o for o in origins}
    for (pre, flavor), line in holders.items():
        line.text = _holders_text(pre, flavor, [by_id[i] for i in line.ids], sets or [origins])
    return out


def _holders_text(pre: str, flavor: str, union: list[Origin], sets: list[list[Origin]]) -> str:
    """`22 admitted workloads hold 123 cpu in default (`a` 20, `b` 20, `c` 20 and 19 more)`; when the
    sets count different holders, the range over the sets and how many they name together."""
    ids = {o.id for o in union}
    counts, totals = [], []
    for g in sets:
        mine = [o for o in g if o.id in ids]
        counts.append(len({_head(o)[1].split("|")[1] for o in mine}))
        per: dict[str, int] = {}
        for o in mine:
            res = _head(o)[1].rpartition("|")[2]
            per[res] = per.get(res, 0) + _value(o)
        totals.append(per)
    amount: dict[str, int] = {}
    for o in union:
        w = _head(o)[1].split("|")[1]
        amount[w] = amount.get(w, 0) + _value(o)
    named = sorted(amount, key=lambda w: (-amount[w], w))
    resources = sorted({r for t in totals for r in t})

    def span(xs: list[int], fmt) -> str:
        return fmt(min(xs)) if min(xs) == max(xs) else f"{fmt(min(xs))}–{fmt(max(xs))}"
    held = ", ".join(span([t.get(r, 0) for t in totals], lambda v, r=r: _q(v, r)) + f" {r}" for r in resources)
    n = span(counts, lambda v: f"{v:,}")
    who = f"{n} admitted workload{'' if n == '1' else 's'}"
    if len(named) > max(counts):
        who += f" (of {len(named):,} the sets name)"
    one = resources[0] if len(resources) == 1 else None
    top = ", ".join(f"`{w}`" + (f" {_q(amount[w], one)}" if one else "") for w in named[:3])
    more = f" and {len(named) - 3:,} more" if len(named) > 3 else ""
    head = f"(`{pre.split(':', 1)[1][:-1]}`) " if pre else ""
    return f"{head}{who} {'holds' if n == '1' else 'hold'} {held} in {flavor}: {top}{more}"


def _value(o: Origin) -> int:
    return o.param.value if o.param is not None and o.param.value is not None else 0


def _amounts(per_flavor: dict[str, list[tuple[str, int]]], counts: dict[str, int] | None = None,
             said: str | None = None) -> str:
    """`64 nvidia.com/gpu in h100, 48 in a100` (one resource named once; not at all where it is `said`
    already), or per flavor `256 cpu, 2Ti memory in h100; 128 cpu in a100`; with `counts`, how many
    workloads hold each (`(9 workloads)` the first time, `(26)` after)."""
    names = {r for vals in per_flavor.values() for r, _ in vals}
    one = len(names) == 1
    out: list[str] = []
    counted = False
    for i, (f, vals) in enumerate(per_flavor.items()):
        amounts = ", ".join(f"{_q(v, r)}" + (f" {r}" if not one or (i == 0 and names != {said}) else "")
                            for r, v in sorted(vals))
        held = ""
        if counts and f in counts:
            held = f" ({counts[f]} workloads)" if not counted else f" ({counts[f]})"
            counted = True
        out.append(f"{amounts} in {f}{held}")
    return (", " if one else "; ").join(out)


def _the_one(rows: dict) -> str | None:
    """The resource a queue's line names, where its numbers name only one."""
    names = {r for which in rows.values() for vals in which.values() for r, _ in vals}
    return next(iter(names)) if len(names) == 1 else None


def _subject_text(subject: str, rows: dict, held: dict[str, int]) -> str:
    if subject.startswith("head:"):  # a StrictFIFO head's own statement: `head:KEY:SUBJECT`
        key, _, rest = subject[5:].partition(":")
        return f"(`{key}`) " + _subject_text(rest, rows, held)
    kind, _, name = subject.partition(":")
    parts = []
    for which, label in (("nominal", "nominal quota"), ("borrowing_limit", "borrowing limit"),
                         ("lending_limit", "lending limit")):
        if which in rows:
            parts.append(f"{label} {_amounts(rows[which])}")
    if kind in ("cq", "cohort"):
        who = f"{'cohort' if kind == 'cohort' else 'cluster queue'} `{name}`"
        if "usage" in rows:
            usage = rows["usage"]  # in the order its quota names the flavors
            order = [f for which in ("nominal", "borrowing_limit", "lending_limit") for f in rows.get(which, {})]
            usage = dict(sorted(usage.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
            said = _the_one(rows) if len(parts) else None
            parts.append(f"in use {_amounts(usage, held, said)}")
        return f"{who}: {'; '.join(parts)}"
    # one admitted workload's usage (`subject` is its key)
    return f"admitted workload `{subject}` holds {_amounts(rows.get('usage', {}))}"


def _q(milli: int, resource: str) -> str:
    text = format_quantity(milli, resource)
    return f"{int(text):,}" if text.isdigit() else text


# --- side effects ------------------------------------------------------------------------------

@dataclass
class EffectSummary:
    """A fix's side effects by kind (harmful kinds first), with a few workloads named; the pending
    workloads ahead of the target in its queue that the fix admits too, apart."""

    total: int
    by_kind: list[tuple[str, int, list[str]]]  # kind, how many, the ones named
    ahead: int = 0  # workloads ahead of it in line that the fix admits too
    all_ahead: bool = False  # ... and they are every one ahead of it

    def as_dict(self) -> dict:
        return {"total": self.total, "by_kind": {k: n for k, n, _ in self.by_kind}, "admits_ahead": self.ahead,
                "admits_all_ahead": self.all_ahead}


def summarize(effects: list[Effect], ahead: frozenset[str] = frozenset(), named: int = MAX_NAMED,
              per_kind: int = MAX_PER_KIND) -> EffectSummary:
    """Effects counted by kind, harmful kinds first then the most frequent; the workloads a fix harms
    named, at most `per_kind` of a kind and `named` in all (`--all` and the JSON name every one). Workloads in `ahead` (pending before it in its queue)
    that the fix admits are counted apart."""
    admitted_ahead = [e for e in effects if e.workload in ahead and e.kind == "pending → admitted"]
    rest = [e for e in effects if not (e.workload in ahead and e.kind == "pending → admitted")]
    kinds: dict[str, list[Effect]] = {}
    for e in rest:
        kinds.setdefault(e.kind, []).append(e)
    order = sorted(kinds, key=lambda k: (not kinds[k][0].harmful, k == SAME_OUTCOME, -len(kinds[k]), k))
    left = named
    by_kind = []
    for k in order:
        names = [e.workload for e in kinds[k][:min(left, per_kind)]] if kinds[k][0].harmful else []
        left -= len(names)
        by_kind.append((k, len(kinds[k]), names))
    n = len(admitted_ahead)
    return EffectSummary(len(effects), by_kind, n, bool(ahead) and n == len(ahead))
