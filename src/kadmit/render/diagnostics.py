"""Diagnostics in every output format: one entry point the CLI calls with the chosen format."""

from __future__ import annotations

from typing import Literal

from kadmit.diagnostics import Diagnostic
from kadmit.render.human import render_human, summary_line
from kadmit.source import SourceMap

Format = Literal["human", "json", "sarif", "github"]
FORMATS: tuple[str, ...] = ("human", "json", "sarif", "github")


def render(diagnostics: list[Diagnostic], sources: SourceMap, format: Format = "human", *,
           files_checked: int = 0, color: bool = False) -> str:
    """All of `diagnostics` (already sorted) in `format`, ending with a newline.

    The human and github formats end with the summary line; json carries the summary as data.
    """
    if format == "human":
        return render_human(diagnostics, sources, files_checked=files_checked, color=color)
    if format == "json":  # the other formats' modules are loaded when asked for
        from kadmit.render.json_report import render_json
        return render_json(diagnostics, files_checked=files_checked)
    if format == "sarif":
        from kadmit.render.sarif import render_sarif
        return render_sarif(diagnostics, sources)
    if format == "github":
        from kadmit.render.github import render_github
        return render_github(diagnostics) + summary_line(diagnostics, files_checked) + "\n"
    raise ValueError(f"unknown output format {format!r}")
