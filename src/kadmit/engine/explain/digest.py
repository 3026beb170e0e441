"""`why`'s answer said in a few lines: blame sets that differ only by resource as one, each queue's or
cohort's quota numbers and the usage held there on one line; a fix's side effects counted by kind,
with the workloads ahead of it in line that it admits too said apart."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kadmit.engine.compile.problem import Origin
from kadmit.engine.explain.replay import SAME_OUTCOME, Effect
from kadmit.quantity import format_quantity
from kadmit.source import Span

MAX_SETS = 3  # blame sets shown unless every one is asked for
MAX_NAMED = 5  # workloads named in a fix's side effects


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

    def as_dict(self) -> dict:
        return {"sets": self.sets, "resources": self.resources,
                "lines": [{"text": ln.text, "file": ln.span.file if ln.span else None,
                           "line": ln.span.line if ln.span else None,
                           "column": ln.span.column if ln.span else None} for ln in self.lines]}


def _parts(o: Origin) -> tuple[str, str, str, str] | None:
    """(subject key, flavor, resource, which) of a quota number or held usage; None for other statements."""
    bits = o.id.split("|")
    if o.kind in ("nominal", "borrowing_limit", "lending_limit") and bits[0] == "quota" and len(bits) == 5:
        return bits[1], bits[2], bits[3], bits[4]
    if o.kind == "usage" and bits[0] == "usage" and len(bits) == 4:
        return bits[1], bits[2], bits[3], "usage"
    return None


def _abstract(o: Origin) -> str:
    """The statement with its resource left out."""
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
        resources = sorted({p[2] for o in origins if (p := _parts(o)) is not None})
        out.append(BlameSet(lines(origins), len(sets), resources if len(sets) > 1 else [], origins))
    return out


_HELD = re.compile(r"^(\d+) admitted workloads in cluster queue ")


def lines(origins: list[Origin]) -> list[Line]:
    """One line per statement, except quota numbers and held usage: one line per queue or cohort (its
    nominal quota, limits and what its admitted workloads hold, per flavor) and per holder."""
    out: list[Line] = []
    at: dict[str, Line] = {}
    rows: dict[str, dict[str, dict[str, list[tuple[str, int]]]]] = {}  # subject -> which -> flavor -> [(res, v)]
    spans: dict[str, dict[str, Span | None]] = {}  # subject -> which -> the first span
    held: dict[tuple[str, str], int] = {}  # (subject, flavor) -> how many workloads hold it (grouped usage)
    for o in origins:
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
    return out


def _amounts(per_flavor: dict[str, list[tuple[str, int]]], counts: dict[str, int] | None = None) -> str:
    """`64 nvidia.com/gpu in h100, 48 in a100` (one resource named once), or per flavor
    `256 cpu, 2Ti memory in h100; 128 cpu in a100`; with `counts`, how many workloads hold each."""
    one = len({r for vals in per_flavor.values() for r, _ in vals}) == 1
    out = []
    for i, (f, vals) in enumerate(per_flavor.items()):
        amounts = ", ".join(f"{_q(v, r)}" + (f" {r}" if not one or i == 0 else "") for r, v in sorted(vals))
        held = f" ({counts[f]} workloads)" if counts and f in counts else ""
        out.append(f"{amounts} in {f}{held}")
    return (", " if one else "; ").join(out)


def _subject_text(subject: str, rows: dict, held: dict[str, int]) -> str:
    kind, _, name = subject.partition(":")
    parts = []
    for which, label in (("nominal", "nominal quota"), ("borrowing_limit", "borrowing limit"),
                         ("lending_limit", "lending limit")):
        if which in rows:
            parts.append(f"{label} {_amounts(rows[which])}")
    if kind in ("cq", "cohort"):
        who = f"{'cohort' if kind == 'cohort' else 'cluster queue'} `{name}`"
        if "usage" in rows:
            parts.append(f"its admitted workloads hold {_amounts(rows['usage'], held)}")
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


def summarize(effects: list[Effect], ahead: frozenset[str] = frozenset(), named: int = MAX_NAMED) -> EffectSummary:
    """Effects counted by kind, harmful kinds first then the most frequent; at most `named` workloads
    named across kinds (harmful ones first). Workloads in `ahead` (pending before it in its queue)
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
        names = [e.workload for e in kinds[k][:left]] if k != SAME_OUTCOME else []
        left -= len(names)
        by_kind.append((k, len(kinds[k]), names))
    n = len(admitted_ahead)
    return EffectSummary(len(effects), by_kind, n, bool(ahead) and n == len(ahead))
