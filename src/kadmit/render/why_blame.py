"""`why`'s blame as text: each minimal set under its title, by default lines of one shape as one and
lines a set above says already named by their places; `--all`, every set whole with the lines of input
it names."""

from __future__ import annotations

import re

from kadmit.engine.decide import WhyResult
from kadmit.engine.explain.digest import MAX_SETS
from kadmit.render.excerpt import one_line, window
from kadmit.render.wrap import Verbatim
from kadmit.source import SourceMap, Span


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


_BLAME_TITLES = {
    "preemption": "preemption (the policy that allowed it, and the workloads involved):",
    "loop": "the loop (the preemption settings that allow it, and the workloads in it):",
}


HEAD_TITLE = "waits behind the head of its queue (its strategy, the head, a minimal set keeping the head out):"
# where the workload's own minimal set (what keeps it out even without the head) is the head's, line for line
HEAD_TITLE_BOTH = "waits behind the head of its queue (its strategy, the head, a minimal set keeping both out):"


def _blame_title(result: WhyResult, first: bool, group: list | None = None, merged=None) -> str:
    if result.blame_kind == "queue":
        return (HEAD_TITLE if group and group[0].kind == "queueing" else
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
    head: set[tuple[str, str]] = set()  # the lines of the first set about the StrictFIFO head, unprefixed
    for i, bs in enumerate(sets[:MAX_SETS]):
        out.append(_blame_title(result, i == 0, bs.origins, bs))
        wheres = [f"{ln.span.file}:{ln.span.line}:{ln.span.column}" if ln.span else "(no source location)"
                  for ln in bs.lines]
        keys = [(w, _ABOUT_HEAD.sub("", ln.text)) for w, ln in zip(wheres, bs.lines)]
        if i == 0:
            head = {k for k, ln in zip(keys, bs.lines) if _ABOUT_HEAD.match(ln.text) and ln.span is not None}
        again = [ln.span for k, ln in zip(keys, bs.lines) if k in said and ln.span is not None]
        shown = [line for key, line in zip(keys, bs.lines) if len(again) < 2 or key not in said or line.span is None]
        out.extend(f"  {where}  {text}" for where, text in _by_shape(shown))
        said.update(keys)
        if len(again) >= 2 and not shown and result.blame_kind == "queue" and i == 1 and set(keys) == head and \
                out[0] == HEAD_TITLE:  # its own set is the head's, every line: one title says both
            out.pop()
            out[0] = HEAD_TITLE_BOTH
        elif len(again) >= 2 and not shown and result.blame_kind == "queue":  # the head's lines again
            out[-1] = f"its own obstacle, even without the head (a minimal set): the same {len(again)} lines as above"
        elif len(again) >= 2 and not shown:  # every line said above: on the title's line
            out[-1] += f" the {len(again)} lines said above at {_places(again)}"
        elif len(again) >= 2:
            out.append(f"   = and the {len(again)} lines said above at {_places(again)}")
    if len(sets) > MAX_SETS:
        more = len(sets) - MAX_SETS
        out.append(f"   = note: {more} more blame set{'' if more == 1 else 's'} (`--all` lists every one)")
    return out


_ABOUT_HEAD = re.compile(r"^\(`[^`]*`\) ")  # a line about the StrictFIFO head (`digest.lines`)
# what differs between blame lines of one shape: a name in backquotes, or a number (with its unit)
_SLOT = re.compile(r"`[^`]*`|(?<![\w.:/+-])\d[\d,]*(?:\.\d+)?[A-Za-z]*(?![\w.:/+-])")
_PLURAL = ("queue", "cohort", "workload", "flavor", "node")  # a name's noun said of several names
_VERBS = {"is": "are", "has": "have", "holds": "hold", "uses": "use", "needs": "need", "lends": "lend"}


def _where(line) -> str:
    sp = line.span
    return f"{sp.file}:{sp.line}:{sp.column}" if sp else "(no source location)"


def _by_shape(lines: list) -> list[tuple[str, str]]:
    """(place, text) of each blame line, lines of one shape in one file as one, where they name different
    things (`cluster queue `a`: nominal quota 4 cpu` and `... `b`: ... 8 cpu`): at the first one's
    place, every place named (`q.yaml:30:23, :116:23`), the names listed and each number that differs
    given for each line in their order, equal or not (`cluster queues `a`, `b`: nominal quota 4/8 cpu`). Every number
    of every line is said; `--all` says each line whole."""
    shapes: dict[tuple, list] = {}
    for line in lines:
        if line.span is None:
            continue
        literal = tuple(_SLOT.split(line.text))
        kinds = tuple(m.group(0).startswith("`") for m in _SLOT.finditer(line.text))
        shapes.setdefault((line.span.file, literal, kinds), []).append(line)
    out, done = [], set()
    for line in lines:
        if id(line) in done:
            continue
        key = (line.span.file, tuple(_SLOT.split(line.text)),
               tuple(m.group(0).startswith("`") for m in _SLOT.finditer(line.text))) if line.span else None
        group = shapes.get(key, [line]) if key else [line]
        names = {tuple(m.group(0) for m in _SLOT.finditer(x.text) if m.group(0).startswith("`")) for x in group}
        if len(group) < 2 or len(names) < len(group):
            out.append((_where(line), line.text))
            done.add(id(line))
            continue
        done.update(id(x) for x in group)
        literal, kinds = key[1], key[2]
        values = list(zip(*([m.group(0) for m in _SLOT.finditer(x.text)] for x in group)))
        text = literal[0]
        for i, (is_name, vals) in enumerate(zip(kinds, values)):
            after = literal[i + 1]
            if is_name and len(set(vals)) == 1:
                text += vals[0]
            elif is_name:
                words = text.rsplit(" ", 2)
                if len(words) == 3 and words[2] == "" and words[1] in _PLURAL:
                    text = f"{words[0]} {words[1]}s "
                    verb = after[1:].split(" ", 1)[0]
                    if after.startswith(" ") and verb in _VERBS:  # `queues `a`, `b` use`, not `uses`
                        after = f" {_VERBS[verb]}{after[1 + len(verb):]}"
                text += ", ".join(vals)
            else:
                text += "/".join(vals)
            text += after
        out.append((_places([x.span for x in group]), text))
    return out


def _places(spans: list[Span]) -> str:
    """`a.yaml:30:23, :116, :204:5; b.yaml:5:1`: each file named once, in the order given; a place at the
    column of the file's first named by its line only."""
    out: list[str] = []
    last, column = None, None
    for sp in spans:
        if sp.file == last:
            out[-1] += f", :{sp.line}" + ("" if sp.column == column else f":{sp.column}")
        else:
            out.append(f"{sp.file}:{sp.line}:{sp.column}")
            column = sp.column
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
            out.append(f"  --> {where}  {one_line(o.message)}")
            if o.span is not None:
                out.extend(Verbatim("     " + line) for line in _excerpt(o.span, sources))
    return out
