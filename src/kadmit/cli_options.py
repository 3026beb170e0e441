"""What the command line's commands share: the solver, file-size and placement options, the terminal's
width, and how a refused input ends a deciding command."""

from __future__ import annotations

import os
import sys

import click

from kadmit import api
from kadmit.cli_cluster import report as _report
from kadmit.cli_cluster import terminal as _terminal


def width() -> int | None:
    """The terminal's width for text that should fit it: stdout's columns on a terminal, else $COLUMNS
    when set, else None (no limit: a pipe gets every word)."""
    if _terminal("stdout"):
        import shutil
        return shutil.get_terminal_size().columns
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else None


max_size_option = click.option(
    "--max-file-size", "max_file_bytes", type=click.IntRange(min=1), default=None,
    metavar="BYTES", help="Refuse files larger than this (default 64 MiB); with a live cluster, a kind's listing too.")


solver_options = [
    click.option("--rlimit", type=click.IntRange(min=1), default=None,
                 help="Deterministic Z3 resource limit per check (default 5,000,000)."),
    click.option("--timeout", "timeout_ms", type=click.IntRange(min=1), default=None, metavar="MS",
                 help="Wall-clock safety net per Z3 check, in milliseconds (default 60,000; --rlimit is the limit that decides)."),
]


def with_options(options):
    def wrap(f):
        for opt in reversed(options):
            f = opt(f)
        return f
    return wrap


tas_profile_option = click.option(
    "--tas-profile", type=click.Choice(["Mixed", "BestFit", "LeastFreeCapacity", "MostFreeCapacity"]),
    default="Mixed", show_default=True,
    help="Topology-aware placement algorithm (Kueue's TAS profiles). Mixed: BestFit for required and "
         "preferred (pack into the tightest domain that fits), LeastFreeCapacity for unconstrained (fill "
         "the fullest nodes first); MostFreeCapacity spreads onto the emptiest domains.")

time_budget_option = click.option(
    "--time-budget", type=click.FloatRange(min=0.1), default=10.0, show_default=True, metavar="SECONDS",
    help="Work for optimal mode's search, in CP-SAT's deterministic seconds (about one second each on a typical "
         "machine): the same input gets the same answer on a busy machine.")


def engine_refused(outcome, color: str, format_: str = "human") -> None:
    """The inputs could not be read as a cluster state: show why on stderr (and, for `--format json`, as a JSON
    document on stdout: `render.json_report.diagnostics_json`) and exit."""
    _report(outcome.diagnostics, outcome.loaded.sources, color)
    if format_ == "json":
        json_refused(outcome.diagnostics)
    if outcome.loaded.exit_code != api.EXIT_OK and api.check_lists_errors(outcome.diagnostics):
        click.echo("kadmit decides only on inputs without errors; `kadmit check` lists them", err=True)
    sys.exit(outcome.exit_code)


def json_refused(diagnostics) -> None:
    """`--format json` on input refused (exit 2, or 1 for `why` on work not pending): stdout still gets one JSON
    document, the diagnostics."""
    from kadmit.render.json_report import diagnostics_json
    click.echo(diagnostics_json(diagnostics), nl=False)
