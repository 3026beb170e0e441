"""The command line: argument parsing, output streams and exit codes over `kadmit.api`."""

from __future__ import annotations

import errno
import os
import sys
import textwrap

import click

from kadmit import api
from kadmit.cli_cluster import PLUGIN, cluster_options, color_option, read_for, snapshot, use_color
from kadmit.cli_cluster import report as _report
from kadmit.cli_cluster import terminal as _terminal
from kadmit.cli_decide import admit, why
from kadmit.cli_options import engine_refused, json_refused, max_size_option, solver_options, tas_profile_option, with_options
from kadmit.diagnostics import Diagnostics, all_codes, code_info, did_you_mean, load_all_codes
from kadmit.render import FORMATS, render
from kadmit.render.codes import KAD007
from kadmit.kueueversion import KUEUE_VERSION
from kadmit.atomic import write_text_atomic
from kadmit.source import SourceMap

REPORT_URL = "https://github.com/kadmit/kadmit/issues"


class Kadmit(click.Group):
    """The command group; turns an unexpected exception into a short report and exit 70."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except OSError as e:
            if e.errno == errno.EPIPE:  # click's main handles a closed pipe quietly
                raise
            self._internal(ctx, e)
        except Exception as e:  # noqa: BLE001 - the one place exceptions stop
            self._internal(ctx, e)

    @staticmethod
    def _internal(ctx: click.Context, e: Exception) -> None:
        if os.environ.get("KADMIT_TRACEBACK"):
            raise e
        click.echo(f"internal error: {type(e).__name__}: {e}", err=True)
        click.echo("this is a bug in kadmit, not in your input; please report it with the "
                   f"command you ran and its inputs at {REPORT_URL} "
                   "(set KADMIT_TRACEBACK=1 for the traceback)", err=True)
        ctx.exit(api.EXIT_INTERNAL)


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`--version`: the installed version is looked up only when asked (reading the installed
    packages' metadata costs every other command's start-up)."""
    if not value or ctx.resilient_parsing:
        return
    from kadmit.render.sarif import tool_version

    click.echo(f"kadmit, version {tool_version()} (decides as Kueue {KUEUE_VERSION})", color=ctx.color)
    ctx.exit()


@click.group("kadmit", cls=Kadmit, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and exit.")
def cli() -> None:
    """kadmit: check Kueue-style admission policies and explain admission decisions.

    Exit codes: 0 clean, 1 findings (or: the workload is not admitted), 2 unreadable input or bad
    usage, 3 the solver could not decide within its limits, 70 internal error.
    """


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "format_", type=click.Choice(FORMATS), default="human",
              show_default=True, help="Output format for diagnostics.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) on warnings too.")
@click.option("--deep", is_flag=True,
              help="Also run the symbolic analyses (Z3): workloads never admissible, flavors never assigned, "
                   "contradictory, vacuous or implied rules, quota above node capacity, topology levels on no "
                   "node, limits that never take effect (KAD75x warnings; gate with --strict).")
@with_options(solver_options)
@with_options(cluster_options)
@max_size_option
@color_option
def check(paths: tuple[str, ...], format_: str, strict: bool, deep: bool, rlimit: int | None, timeout_ms: int | None,
          cluster: bool, context: str | None, kubeconfig: str | None, max_file_bytes: int | None, color: str) -> None:
    """Check policies and manifests (files or folders, recursively).

    Exit codes: 0 clean (warnings allowed unless --strict), 1 findings, 2 unreadable input or bad
    usage, 3 (--deep) an analysis the solver could not decide within its limits.
    """
    if (rlimit or timeout_ms) and not deep:
        raise click.UsageError("--rlimit and --timeout limit the solver, which only --deep runs")
    live = read_for(paths, cluster, context, kubeconfig, max_file_bytes)
    result = api.check(list(paths), strict=strict, max_file_bytes=max_file_bytes, deep=deep, rlimit=rlimit,
                       timeout_ms=timeout_ms, cluster=live)
    painted = format_ == "human" and use_color(color)
    click.echo(render(result.diagnostics, result.sources, format_,  # type: ignore[arg-type]
                      files_checked=len(result.files), color=painted), nl=False, color=painted)
    sys.exit(result.exit_code)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--check", "check_", is_flag=True,
              help="Exit 1 and list the files whose formatting would change.")
@click.option("--diff", is_flag=True, help="Print unified diffs; exit 1 if any file would change.")
@click.option("--write", is_flag=True, help="Rewrite changed files in place (atomically).")
@max_size_option
@color_option
def fmt(paths: tuple[str, ...], check_: bool, diff: bool, write: bool,
        max_file_bytes: int | None, color: str) -> None:
    """Format .kad files. Without a flag, print one formatted file to stdout."""
    modes = [m for m, on in (("check", check_), ("diff", diff), ("write", write)) if on]
    if len(modes) > 1:
        raise click.UsageError(f"--{modes[0]} and --{modes[1]} can't be combined")
    if not modes and len(paths) > 1:
        raise click.UsageError("to format several files, pass --check, --diff or --write")
    mode = modes[0] if modes else "check"
    result = api.fmt(list(paths), mode, max_file_bytes=max_file_bytes)  # type: ignore[arg-type]
    if not modes and len(result.files) > 1:
        raise click.UsageError(f"`{paths[0]}` holds {len(result.files)} .kad files; to format "
                               "several files, pass --check, --diff or --write")
    _report(result.diagnostics, result.sources, color)
    if not modes:
        if result.input_error:
            sys.exit(api.EXIT_INPUT)
        if any(one.formatted is None for one in result.files) or api.exit_code(
                result.diagnostics, input_error=False) != api.EXIT_OK:
            sys.exit(api.EXIT_FINDINGS)
        for one in result.files:
            click.echo(one.formatted, nl=False)
        sys.exit(api.EXIT_OK)
    changed = result.changed
    unparsed = sum(1 for one in result.files if one.formatted is None)
    tail = f", {unparsed} not parsed" if unparsed else ""
    if mode == "check":
        for one in changed:
            click.echo(f"would reformat {one.path}")
        tidy = len(result.files) - len(changed) - unparsed
        click.echo(f"{_plural(len(changed), 'file')} would be reformatted, "
                   f"{tidy} already formatted{tail}", err=True)
    elif mode == "diff":
        for one in changed:
            click.echo(one.diff(), nl=False)
        click.echo(f"{_plural(len(changed), 'file')} would be reformatted{tail}", err=True)
    else:
        written = [one for one in result.files if one.written]
        for one in written:
            click.echo(f"reformatted {one.path}")
        if result.exit_code == api.EXIT_OK:
            click.echo(f"{_plural(len(written), 'file')} reformatted, "
                       f"{len(result.files) - len(written)} left unchanged", err=True)
        else:
            click.echo("nothing written" if not written else
                       f"{_plural(len(written), 'file')} reformatted before the failure", err=True)
    sys.exit(result.exit_code)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--trace", type=click.Path(), help="Arrivals: CSV or JSON Lines, one workload per row.")
@click.option("--until", metavar="DURATION", help="Stop the clock here (seconds or e.g. 72h).")
@click.option("--start", metavar="TIME", help="The instant the inputs describe (RFC 3339); default: "
              "the latest creation time among their workloads.")
@click.option("--mode", type=click.Choice(["ordered", "optimal"]), default="ordered", show_default=True)
@click.option("--cycle-latency", metavar="DURATION", help="Decide only every DURATION, as a scheduling cycle "
              "that takes time (default: decisions take no simulated time).")
@click.option("--scoring", type=click.Choice(["LeastAllocated", "MostAllocated"]), default="LeastAllocated",
              show_default=True, help="kube-scheduler's scoring for pods that admission doesn't place.")
@click.option("--add-nodes", multiple=True, metavar="TIME:PATH", help="The nodes in PATH join at TIME.")
@click.option("--nodepool", "nodepools", multiple=True, type=click.Path(),
              help="Karpenter NodePools (karpenter.sh/v1) that provision nodes for pods that wait.")
@click.option("--compare", multiple=True, type=click.Path(), metavar="OTHER_PATH",
              help="Replay the same arrivals under this policy too, side by side.")
@click.option("--sweep", type=click.Path(), help="Run the variants of SWEEP.yaml and tabulate them.")
@click.option("--executor", type=click.Choice(["process", "ray"]), default="process", show_default=True,
              help="Where sweep variants run.")
@click.option("--ray-address", metavar="ADDRESS", help="An existing Ray cluster (ray.init(address=...)).")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Sweep processes (default: CPUs).")
@click.option("--format", "format_", type=click.Choice(["human", "json"]), default="human", show_default=True)
@click.option("--report", type=click.Path(), metavar="FILE.html", help="Write a self-contained HTML report.")
@click.option("--budget", "work_budget", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop the replay once it has decided pending workloads N times in all (default 20,000,000; "
              "exit 3, KAD717): a backlog decided again at every event costs the product of the two.")
@tas_profile_option
@with_options(solver_options)
@with_options(cluster_options)
@max_size_option
@color_option
def simulate(paths, trace, until, start, mode, cycle_latency, scoring, add_nodes, nodepools, compare, sweep,
             executor, ray_address, workers, format_, report, work_budget, tas_profile, rlimit, timeout_ms, cluster,
             context, kubeconfig, max_file_bytes, color) -> None:
    """Replay the cluster under PATHS over time: arrivals (the inputs' pending work, `--trace`),
    Kueue's decisions at every instant, runs of their `kadmit.dev/duration`, evictions and restarts.

    Exit codes: 0 simulated, 1 an object refused alone left out (KAD170, KAD171; the rest replayed),
    2 unreadable or invalid input, 3 the solver could not decide some workload (or, in a sweep, some
    variant's) within its limits, or the replay stopped at its work budget (--budget, KAD717).
    """
    from kadmit.render.simulation import progress_bar, simulate_human, simulate_json

    if sweep:
        if not paths:
            raise click.UsageError("a sweep reads its variants' PATHs: give PATH... (`kadmit snapshot` writes the "
                                   "live cluster to a file a sweep can read)")
        from kadmit.render.simulation import sweep_human
        got = api.sweep(list(paths), sweep, trace=trace, until=until, start=start, executor=executor,
                        ray_address=ray_address, workers=workers, max_file_bytes=max_file_bytes, mode=mode,
                        cycle_latency=cycle_latency, rlimit=rlimit, timeout_ms=timeout_ms, work_budget=work_budget)
        _report(got.diagnostics, got.sources, color)
        if got.result is not None:
            click.echo(simulate_json(got.result, diagnostics=got.diagnostics) if format_ == "json"
                       else sweep_human(got.result), nl=False)
        elif format_ == "json":
            json_refused(got.diagnostics)
        sys.exit(got.exit_code)
    live = read_for(paths, cluster, context, kubeconfig, max_file_bytes)
    with progress_bar(format_ == "human" and use_color(color, "stderr")) as progress:
        outcome = api.simulate(list(paths), trace=trace, until=until, start=start, mode=mode, scoring=scoring,
                               tas_profile=tas_profile, add_nodes=list(add_nodes), nodepools=list(nodepools),
                               compare=list(compare), rlimit=rlimit, timeout_ms=timeout_ms,
                               max_file_bytes=max_file_bytes, progress=progress, cycle_latency=cycle_latency,
                               cluster=live, work_budget=work_budget)
    if outcome.result is None:
        engine_refused(outcome, color, format_)
    shown = [d for d in outcome.diagnostics if d.severity.value != "note"]
    _report(shown, outcome.sources, color)
    if report:
        from kadmit.render.report import simulate_html
        try:
            write_text_atomic(report, simulate_html(outcome.result, outcome.compare))
        except OSError as e:
            click.echo(f"error[KAD006]: can't write `{report}`: {e.strerror or e}", err=True)
            sys.exit(api.EXIT_INPUT)
    if format_ == "json":
        click.echo(simulate_json(outcome.result, outcome.compare, shown), nl=False)
    else:
        click.echo(simulate_human(outcome.result, outcome.compare, use_color(color)), nl=False)
    sys.exit(outcome.exit_code)


@cli.command("test")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "format_", type=click.Choice(["human", "json", "junit"]), default="human",
              show_default=True, help="junit: JUnit XML for CI test reports.")
@with_options(solver_options)
@max_size_option
@color_option
def test_(paths, format_, rlimit, timeout_ms, max_file_bytes, color) -> None:
    """Run policy tests (`*.kadtest.yaml`) against the policy and state beside them.

    A folder's tests run against that folder's own policy and state. Without PATHS: the working
    directory, where finding no tests is a note, not an error (PATHS named that hold none exit 2). Each test may add, remove
    or change objects (`given`) and expects outcomes per workload (`expect`): admitted (with
    cluster_queue, flavors, counts, nodes, domain, borrowing), not_admitted (with reason,
    blames), preempted (by), not_preempted, never_admissible, admissible, and `diagnostics`.

    Exit codes: 0 every test passed, 1 a test failed, 2 unreadable input or a test that can't run,
    3 a test reads a decision the solver could not make within its limits.
    """
    from kadmit.render.tests_report import tests_human, tests_json, tests_junit

    outcome = api.test(list(paths), max_file_bytes=max_file_bytes, rlimit=rlimit, timeout_ms=timeout_ms)
    _report(outcome.diagnostics, outcome.sources, color)
    render_one = {"human": tests_human, "json": tests_json, "junit": tests_junit}[format_]
    if outcome.results or format_ != "human":
        click.echo(render_one(outcome), nl=False)
    sys.exit(outcome.exit_code)


@cli.command("diff")
@click.argument("base")
@click.argument("head")
@click.option("--state", "state", multiple=True, type=click.Path(), metavar="PATH",
              help="State (workloads, nodes) added to both sides; repeatable.")
@click.option("--format", "format_", type=click.Choice(["human", "json", "markdown"]), default="human",
              show_default=True, help="markdown: a pull-request comment.")
@click.option("--no-envelopes", is_flag=True, help="Skip the largest-gang envelopes (the slowest part).")
@click.option("--manifests", is_flag=True, help="Also show how the Kueue manifests `kadmit export` writes change.")
@with_options(solver_options)
@max_size_option
@color_option
def diff_(base, head, state, format_, no_envelopes, manifests, rlimit, timeout_ms, max_file_bytes, color) -> None:
    """What changing the policy from BASE to HEAD does.

    BASE and HEAD are folders or `git:REV[:PATH]` (a revision of the repository in the working
    directory, PATH from its root). Reports the semantic changes (quotas with numbers, queues,
    cohorts, flavors, rules), every decision on the state that changes, with `why`, and per
    cluster queue, flavor and resource the largest gang admissible on an empty cluster, with a
    witness gang admitted on one side only.

    Exit codes: 0 nothing changes, 1 something does, 2 unreadable or invalid input, 3 the solver
    could not decide within its limits.
    """
    from kadmit.render.diff_report import diff_human, diff_json, diff_markdown, diff_shown
    from kadmit.render.progress import progress

    with progress(format_ != "json" and _terminal("stderr")) as report:
        outcome = api.diff(base, head, state=list(state), envelopes=not no_envelopes, rlimit=rlimit,
                           timeout_ms=timeout_ms, max_file_bytes=max_file_bytes, manifests=manifests,
                           progress=report)
    if outcome.result is None:
        _report(outcome.diagnostics, outcome.sources, color)
        if format_ == "json":
            json_refused(outcome.diagnostics)
        sys.exit(outcome.exit_code)
    _report(diff_shown(outcome.diagnostics), outcome.sources, color)
    click.echo({"human": diff_human, "json": diff_json, "markdown": diff_markdown}[format_](outcome), nl=False)
    sys.exit(outcome.exit_code)


@cli.command("export")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--output", "-o", type=click.Path(), help="The folder to write, one file per kind (required).")
@click.option("--format", "format_", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True)
@click.option("--workloads", is_flag=True, help="Also write the workloads, as Kueue Workloads.")
@click.option("--nodes", is_flag=True, help="Also write the nodes, as Nodes.")
@click.option("--allow-unenforced", is_flag=True,
              help="Write the export even when some rules can't be enforced by the API server (warned).")
@max_size_option
@color_option
def export_(paths, output, format_, workloads, nodes, allow_unenforced, max_file_bytes, color) -> None:
    """Write the policy as Kueue manifests (v0.17.0, kueue.x-k8s.io/v1beta2), its rules as
    ValidatingAdmissionPolicies.

    Exit codes: 0 written, 1 a rule the cluster would not enforce (nothing written; see
    --allow-unenforced), 2 unusable input or output folder.
    """
    outcome = api.export(list(paths), output, format=format_, workloads=workloads, nodes=nodes,
                                allow_unenforced=allow_unenforced, max_file_bytes=max_file_bytes)
    _report(outcome.diagnostics, outcome.sources, color)
    for path in outcome.written:
        click.echo(f"wrote {path}")
    sys.exit(outcome.exit_code)


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--output", "-o", type=click.Path(), help="The folder to write `.kad` files into (required).")
@click.option("--workloads", is_flag=True, help="Also write the workloads and nodes (the cluster's state).")
@max_size_option
@color_option
def import_(paths, output, workloads, max_file_bytes, color) -> None:
    """Write Kueue manifests as formatted `.kad` files, one per concern (flavors, queues, cohorts,
    topology, priorities, ...). What the language can't say yet is kept as a comment (KAD920).

    Exit codes: 0 written, 2 input with errors or unusable output folder.
    """
    outcome = api.import_(list(paths), output, workloads=workloads, max_file_bytes=max_file_bytes)
    _report(outcome.diagnostics, outcome.sources, color)
    for path in outcome.written:
        click.echo(f"wrote {path}")
    sys.exit(outcome.exit_code)


@cli.command()
@click.argument("code", required=False)
@color_option
def codes(code: str | None, color: str) -> None:
    """List every diagnostic code, or explain one.

    `kadmit codes` prints the table; `kadmit codes KAD203` describes one code.
    """
    load_all_codes()
    table = all_codes()
    if code is None:
        for info in table:
            click.echo(f"{info.code}  {info.severity.value:<7}  {info.title}")
        return
    info = code_info(code.strip().upper())
    if info is None:
        diags = Diagnostics()
        diags.emit(KAD007, f"unknown diagnostic code `{code}`",
                   help=did_you_mean(code.strip().upper(), [i.code for i in table])
                   or "`kadmit codes` lists every code")
        _report(diags.sorted(), SourceMap(), color)
        sys.exit(api.EXIT_INPUT)
    click.echo(f"{info.code}: {info.title} ({info.severity.value})\n")
    click.echo(textwrap.fill(info.description, width=88))
    if info.kueue_rule:
        click.echo(f"\nMirrors Kueue: {info.kueue_rule}")


@cli.command()
def lsp() -> None:
    """Run the language server for `.kad` policy over standard input and output (editors start it:
    docs/EDITORS.md). Needs the `lsp` extra: pip install 'kadmit[lsp]'; exit 2 without it."""
    from kadmit.collector import one_shot_process
    from kadmit.lsp import main as serve
    one_shot_process(False)  # it serves on: each decision's leftovers are collected (collector.long_lived)

    sys.exit(serve())


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script for SHELL.

    bash: `eval "$(kadmit completion bash)"` in ~/.bashrc; zsh: the same in ~/.zshrc;
    fish: `kadmit completion fish > ~/.config/fish/completions/kadmit.fish`.
    """
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    assert cls is not None
    click.echo(cls(cli, {}, "kadmit", "_KADMIT_COMPLETE").source())


cli.add_command(admit)
cli.add_command(why)
cli.add_command(snapshot)


def main() -> None:
    cli(prog_name="kadmit")


def kubectl_main() -> None:
    """`kubectl kadmit …`: the same commands as a kubectl plugin (the `kubectl-kadmit` executable); a
    verb that reads a cluster state and is given no PATH reads the live cluster."""
    cli(prog_name=PLUGIN)
