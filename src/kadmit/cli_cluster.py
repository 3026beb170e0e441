"""The command line's live cluster: `--cluster`/`--context`/`--kubeconfig` for the verbs that read a
cluster state, `kadmit snapshot`, and what they share with the other commands (colour, diagnostics on
standard error)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import click

from kadmit import api
from kadmit.diagnostics import Diagnostic
from kadmit.render.human import render_human
from kadmit.source import SourceMap

PLUGIN = "kubectl kadmit"  # the program's name as a kubectl plugin (`cli.kubectl_main`)


def use_color(choice: str, stream: str = "stdout") -> bool:
    """Colour when asked, or (auto) when the stream is a terminal and NO_COLOR is unset or empty."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return terminal(stream)


def terminal(stream: str) -> bool:
    """Whether the stream is a terminal (progress is drawn there, never on a pipe)."""
    isatty = getattr(sys.stdout if stream == "stdout" else sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def report(diagnostics: list[Diagnostic], sources: SourceMap, color: str) -> None:
    """Human diagnostics on stderr, without the summary line (fmt prints its own)."""
    if diagnostics:
        painted = use_color(color, "stderr")
        click.echo(render_human(diagnostics, sources, files_checked=None, color=painted),
                   err=True, nl=False, color=painted)


color_option = click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
    help="Colour the human format (auto: only on a terminal, and not when NO_COLOR is set).")

cluster_options = [
    click.option("--cluster", is_flag=True,
                 help="Also read the live cluster of the kubeconfig's current context through kubectl: every kind "
                      "kadmit reads (as the kubectl plugin, a verb given no PATH reads it)."),
    click.option("--context", metavar="NAME", help="The kubeconfig context to read (implies --cluster)."),
    click.option("--kubeconfig", metavar="FILE",
                 help="The kubeconfig to read it with (implies --cluster; default: kubectl's own, "
                      "$KUBECONFIG or ~/.kube/config)."),
]


def read_for(paths, cluster: bool, context: str | None, kubeconfig: str | None, max_file_bytes: int | None = None,
             meanwhile: Callable[[], None] | None = None):
    """The live cluster read the options ask for (`api.read_cluster`), or None: files only. No PATH and
    no cluster is a usage error, except as the kubectl plugin, which then reads the cluster. `meanwhile`
    runs while the cluster is read (the read in a thread of its own: its kubectls mostly wait on the
    server), and the read is returned once both are done (`imported`: the modules the command decides
    with, which it would import after the read)."""
    plugin = click.get_current_context().find_root().info_name == PLUGIN
    if not (cluster or context or kubeconfig or (plugin and not paths)):
        if not paths:
            raise click.UsageError("give PATH... (files or folders), or --cluster to read the live cluster")
        return None
    if meanwhile is None:
        return api.read_cluster(context, kubeconfig, max_file_bytes=max_file_bytes)
    with ThreadPoolExecutor(1, thread_name_prefix="kadmit-read") as pool:
        reading = pool.submit(api.read_cluster, context, kubeconfig, max_file_bytes=max_file_bytes)
        meanwhile()
        return reading.result()


def imported(*modules: str) -> Callable[[], None]:
    """Importing `modules` (a command's own, which it would import after the read): `read_for`'s
    `meanwhile`. The read imports only modules of the stages before the engine's, which never import a
    later stage's (tests/test_architecture.py), so the two threads never wait on each other's imports."""
    def run() -> None:
        for name in modules:
            importlib.import_module(name)
    return run


@click.command("snapshot")
@click.option("--output", "-o", required=True, metavar="FILE", help="The file to write (`-`: standard output).")
@click.option("--context", metavar="NAME", help="The kubeconfig context to read (default: its current one).")
@click.option("--kubeconfig", metavar="FILE",
              help="The kubeconfig (default: kubectl's own, $KUBECONFIG or ~/.kube/config).")
@click.option("--max-file-size", "max_file_bytes", type=click.IntRange(min=1), default=None, metavar="BYTES",
              help="Refuse a kind whose listing is larger than this, as a file is refused (default 64 MiB).")
@color_option
def snapshot(output: str, context: str | None, kubeconfig: str | None, max_file_bytes: int | None, color: str) -> None:
    """Read the live cluster through kubectl (every kind kadmit reads) into one YAML file, written
    atomically, to replay (`kadmit admit FILE`, `why W FILE`, ...) or attach to a ticket. Its header says
    what was read from where and when, and what could not be listed.

    Exit codes: 0 written (kinds that could not be listed are warnings), 2 nothing usable read (no
    kubectl, unknown context, server unreachable, not authenticated, a kind's listing too large, stalled
    or cut short) or FILE not writable.
    """
    outcome = api.snapshot(output, context=context, kubeconfig=kubeconfig, max_file_bytes=max_file_bytes)
    report(outcome.diagnostics, outcome.sources, color)
    if output == "-" and outcome.text is not None:
        click.echo(outcome.text, nl=False)
    elif outcome.written:
        objects = f"{outcome.objects} object{'' if outcome.objects == 1 else 's'}"
        click.echo(f"wrote {outcome.written}: {objects} from context `{outcome.context}`, "
                   f"read in {outcome.seconds:.2f} s")
    sys.exit(outcome.exit_code)
