"""The human diagnostic format: rustc-style snippets with carets under the blamed source."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kadmit.diagnostics import Diagnostic, Label, Severity, code_info
from kadmit.render.excerpt import MAX_LINE_WIDTH, TAB_WIDTH, clean, clip, one_line, window  # noqa: F401 (re-exported)
from kadmit.source import SourceMap, Span

if TYPE_CHECKING:
    import jinja2

_STYLES = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "note": "\x1b[1;36m",
    "gutter": "\x1b[1;34m",
    "bold": "\x1b[1m",
    "ok": "\x1b[1;32m",
}
_RESET = "\x1b[0m"

_TEMPLATE = """\
{{ d.severity | paint(d.severity) }}{{ ('[' ~ d.code ~ ']') | paint(d.severity) }}{{ (': ' ~ d.message) | paint('bold') }}
{% for s in d.sections %}
{% if not loop.first and s.rows %}
{{ pad }} {{ '|' | paint('gutter') }}
{% endif %}
{{ pad }}{{ s.arrow | paint('gutter') }} {{ s.location }}
{% if s.rows %}
{{ pad }} {{ '|' | paint('gutter') }}
{% for r in s.rows %}
{% if r.number is none %}
{{ '...' | paint('gutter') }}
{% elif r.marks is none %}
{{ ('%*d |' | format(d.width, r.number)) | paint('gutter') }}{% if r.text %} {{ r.text }}{% endif %}

{% else %}
{{ pad }} {{ '|' | paint('gutter') }} {{ r.indent }}{{ r.marks | paint(r.style) }}{% if r.label %} {{ r.label | paint(r.style) }}{% endif %}

{% endif %}
{% endfor %}
{% endif %}
{% endfor %}
{% if d.footer %}
{% if d.sections and d.sections[-1].rows %}
{{ pad }} {{ '|' | paint('gutter') }}
{% endif %}
{% for kind, text in d.footer %}
{{ pad }} {{ ('= ' ~ kind ~ ':') | paint('bold') }} {{ text }}
{% endfor %}
{% endif %}
"""


@dataclass
class Row:
    """One output row of a snippet: a source line, a mark row under it, or a gap (`...`)."""

    number: int | None = None
    text: str = ""
    marks: str | None = None
    indent: str = ""
    label: str = ""
    style: str = "gutter"


@dataclass
class Section:
    arrow: str
    location: str
    rows: list[Row] = field(default_factory=list)


@dataclass
class _Mark:
    span: Span
    label: str
    primary: bool


@dataclass
class View:
    """A diagnostic laid out for the template."""

    severity: str
    code: str
    message: str
    width: int
    sections: list[Section]
    footer: list[tuple[str, str]]


def _extent(span: Span, length: int) -> tuple[int, int]:
    """Character range [start, end) of `span` on its first line, at least one character wide.

    A span past the end of the line points just after its last character; a span running
    onto later lines is marked to the end of its first line.
    """
    start = min(max(span.column - 1, 0), length)
    if span.end_line is not None and span.end_line > span.line:
        end = length
    elif span.end_column is not None and (span.end_line is None or span.end_line == span.line):
        end = min(max(span.end_column - 1, start), length)
    else:
        end = start + 1
    return start, max(end, start + 1)


def _line_rows(number: int, text: str, marks: list[_Mark], severity: str) -> list[Row]:
    n = len(text)
    extents = [_extent(m.span, n) for m in marks]
    win = window(text, min(start for start, _ in extents))
    rows = [Row(number=number, text=win.text.rstrip())]
    order = sorted(zip(marks, extents), key=lambda me: (me[1][0], not me[0].primary))
    for mark, (start, end) in order:
        column, width = win.marks(start, end)
        rows.append(Row(number=number, marks=("^" if mark.primary else "-") * width,
                        indent=" " * column, label=one_line(mark.label),
                        style=severity if mark.primary else "gutter"))
    return rows


def _line(sources: SourceMap, file: str, number: int) -> str | None:
    """A source line; the empty line after a final newline counts (end-of-file spans sit there)."""
    text = sources.line(file, number)
    if text is None and number >= 1:
        whole = sources.text(file)
        if whole is not None and number == len(whole.splitlines()) + 1:
            return ""
    return text


def _section(arrow: str, file: str, marks: list[_Mark],
             sources: SourceMap, severity: str) -> tuple[Section, list[_Mark]]:
    """A snippet of one file with every mark in it; also the marks whose line can't be shown."""
    first = min(marks, key=lambda m: (not m.primary, m.span.line, m.span.column)).span
    section = Section(arrow, one_line(f"{file}:{first.line}:{first.column}"))
    by_line: dict[int, list[_Mark]] = {}
    for m in marks:
        by_line.setdefault(m.span.line, []).append(m)
    missing: list[_Mark] = []
    previous = None
    for number in sorted(by_line):
        text = _line(sources, file, number)
        if text is None:
            missing.extend(by_line[number])
            continue
        if previous is not None and number == previous + 2:  # one hidden line: show it
            between = clip(_line(sources, file, previous + 1) or "")
            section.rows.append(Row(number=previous + 1, text=between.rstrip()))
        elif previous is not None and number > previous + 2:
            section.rows.append(Row(number=None))
        section.rows.extend(_line_rows(number, text, by_line[number], severity))
        previous = number
    return section, missing


def layout(d: Diagnostic, sources: SourceMap) -> View:
    """Group a diagnostic's primary span and labels into per-file snippet sections."""
    severity = d.severity.value
    footer: list[tuple[str, str]] = []
    sections: list[Section] = []
    labels: list[Label] = list(d.labels)
    if d.span is None:
        footer.extend(("note", f"{one_line(lb.message)} ({lb.span})") for lb in labels)
    else:
        primary_label = ""
        for label in labels:
            if label.span.same_place(d.span):
                primary_label = label.message
                labels.remove(label)
                break
        by_file: dict[str, list[_Mark]] = {d.span.file: [_Mark(d.span, primary_label, True)]}
        for label in labels:
            by_file.setdefault(label.span.file, []).append(_Mark(label.span, label.message, False))
        files = [d.span.file] + sorted(f for f in by_file if f != d.span.file)
        for file in files:
            section, missing = _section("-->" if file == d.span.file else ":::", file,
                                        by_file[file], sources, severity)
            if section.arrow == "-->" or section.rows:
                sections.append(section)
            # a label whose line can't be shown still needs its message, so it becomes a note
            footer.extend(("note", f"{one_line(m.label)} ({m.span})") for m in missing
                          if m.label)
    if d.help:
        footer.append(("help", clean(d.help)))
    footer.extend(("note", clean(n)) for n in d.notes)
    numbers = [r.number for s in sections for r in s.rows if r.number is not None]
    width = len(str(max(numbers))) if numbers else 1
    return View(severity, d.code, one_line(d.message), width, sections, footer)


def _painter(color: bool):
    def paint(text: object, style: str) -> str:
        text = str(text)
        if not color or not text:
            return text
        return f"{_STYLES.get(style, '')}{text}{_RESET}"
    return paint


@functools.lru_cache(maxsize=2)
def _template(color: bool) -> jinja2.Template:
    import jinja2  # only when a diagnostic is shown: a clean run never loads the template engine

    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             autoescape=False, undefined=jinja2.StrictUndefined)
    env.filters["paint"] = _painter(color)
    return env.from_string(_TEMPLATE)


def render_one(d: Diagnostic, sources: SourceMap, *, color: bool = False) -> str:
    """One diagnostic as a rustc-style block, ending with a newline."""
    view = layout(d, sources)
    return _template(color).render(d=view, pad=" " * view.width)


def summary_line(diagnostics: list[Diagnostic], files_checked: int, *, color: bool = False) -> str:
    """The last line: `error: 2 errors, 1 warning found` or `ok: 3 files checked, no problems`."""
    paint = _painter(color)
    counts = [(sum(1 for d in diagnostics if d.severity is s), s) for s in Severity]
    parts = [f"{n} {s.value}{'' if n == 1 else 's'}" for n, s in counts if n]
    files = f"{files_checked} file{'' if files_checked == 1 else 's'} checked"
    if not parts:
        return f"{paint('ok', 'ok')}: {files}, no problems"
    worst = next(s for n, s in counts if n)
    if worst is Severity.NOTE:
        return f"{paint('ok', 'ok')}: {files}, {', '.join(parts)}"
    return f"{paint(worst.value, worst.value)}: {', '.join(parts)} found"


SHOWN_PER_CODE = 10  # a code reported more often shows its first ones, then a count line


def _more_line(code: str, severity: str, hidden: int, color: bool) -> str:
    info = code_info(code)
    title = f" ({info.title})" if info is not None else ""
    paint = _painter(color)
    return (f"{paint(f'{severity}[{code}]', severity)}: {hidden:,} more{title} not shown; "
            "`kadmit check --format json` (or `sarif`) lists every one\n")


def render_human(diagnostics: list[Diagnostic], sources: SourceMap, *,
                 files_checked: int | None, color: bool = False) -> str:
    """Every diagnostic as a snippet block, blank-line separated, then the summary line
    (left out when `files_checked` is None). A code reported more than `SHOWN_PER_CODE` times
    shows its first ones (in the order given) and then one line counting the rest (two or more:
    one alone is shown, where a count line would take its place)."""
    total: dict[str, int] = {}
    for d in diagnostics:
        total[d.code] = total.get(d.code, 0) + 1
    shown = {code: n if n <= SHOWN_PER_CODE + 1 else SHOWN_PER_CODE for code, n in total.items()}
    seen: dict[str, int] = {}
    blocks = []
    for d in diagnostics:
        n = seen[d.code] = seen.get(d.code, 0) + 1
        if n <= shown[d.code]:
            blocks.append(render_one(d, sources, color=color))
    severity = {d.code: d.severity.value for d in diagnostics}
    blocks += [_more_line(code, severity[code], n - shown[code], color)
               for code, n in total.items() if n > shown[code]]
    if files_checked is not None:
        blocks.append(summary_line(diagnostics, files_checked, color=color) + "\n")
    return "\n".join(blocks)
