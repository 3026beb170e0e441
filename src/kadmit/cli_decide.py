"""The deciding commands `admit` and `why`: their options, the live read they ask for, and their output
streams and exit codes over `kadmit.api` (`kadmit.cli` adds them to the command group)."""

from __future__ import annotations

import sys
from functools import partial

import click

from kadmit import api
from kadmit.cli_cluster import cluster_options, color_option, imported, read_for
from kadmit.cli_cluster import report as _report
from kadmit.cli_cluster import terminal as _terminal
from kadmit.cli_options import (engine_refused, max_size_option, solver_options, tas_profile_option,
                                time_budget_option, width, with_options)


# The modules `admit` and `why` import to decide and to say it, imported while the live cluster is read
# (`read_for`'s `meanwhile`); each is one the command imports anyway (tests/cli/test_cluster_read_meanwhile.py)
ADMIT_MODULES = ("kadmit.render.cluster", "kadmit.render.decisions", "kadmit.render.progress", "kadmit.engine.decide",
                 "kadmit.manifests.documents", "kadmit.manifests.jobs.manage")
WHY_MODULES = ("kadmit.render.cluster", "kadmit.render.why", "kadmit.render.progress", "kadmit.engine.decide",
               "kadmit.manifests.documents", "kadmit.manifests.jobs.manage", "kadmit.engine.explain.part",
               "kadmit.engine.explain.prove", "kadmit.engine.explain.standing", "kadmit.engine.explain.cores",
               "kadmit.engine.explain.fixes", "kadmit.engine.explain.met", "kadmit.engine.explain.placement")


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--mode", type=click.Choice(["ordered", "optimal"]), default="ordered", show_default=True,
              help="ordered: Kueue's own decisions; optimal: the most admitted work by priority (CP-SAT).")
@click.option("--format", "format_", type=click.Choice(["human", "json"]), default="human",
              show_default=True)
@time_budget_option
@tas_profile_option
@with_options(solver_options)
@with_options(cluster_options)
@max_size_option
@color_option
def admit(paths, mode, format_, time_budget, tas_profile, rlimit, timeout_ms, cluster, context, kubeconfig,
          max_file_bytes, color) -> None:
    """Decide which pending workloads are admitted: queue, flavors and counts.

    Exit codes: 0 decided (whatever is admitted), 1 errors in the input, the cohort trees they
    don't touch decided (the others' pending workloads listed as not decided), 2 unreadable input or
    an error that may change every decision, 3 the solver could not decide within its limits.
    """
    live = read_for(paths, cluster, context, kubeconfig, max_file_bytes, meanwhile=imported(*ADMIT_MODULES))
    from kadmit.render.cluster import incomplete_json, incomplete_text
    from kadmit.engine.explain.differ import differ_counts
    from kadmit.render.decisions import admit_human, admit_outcome_json, admit_shown
    from kadmit.render.progress import progress

    with progress(format_ == "human" and _terminal("stderr")) as report:
        outcome = api.admit(list(paths), mode=mode, rlimit=rlimit, timeout_ms=timeout_ms, time_budget=time_budget,
                            max_file_bytes=max_file_bytes, tas_profile=tas_profile, progress=report, cluster=live)
    if outcome.result is None:
        engine_refused(outcome, color, format_)
    _report(admit_shown(outcome.diagnostics), outcome.loaded.sources, color)
    incomplete = outcome.loaded.workspace.incomplete
    if format_ == "json":
        click.echo(incomplete_json(admit_outcome_json(outcome), incomplete), nl=False)
    else:
        skipped = (*outcome.loaded.workspace.model.skipped, *outcome.held)
        click.echo(admit_human(outcome.result, skipped, width=width(), **differ_counts(outcome.diagnostics))
                   + incomplete_text(incomplete), nl=False)
    sys.exit(outcome.exit_code)


@click.command()
@click.argument("workload")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "format_", type=click.Choice(["human", "json", "patch"]), default="human",
              show_default=True, help="patch: fix 1 (or --apply-fix N) as a unified diff.")
@click.option("--apply-fix", "apply_fix", type=click.IntRange(min=1), default=None, metavar="N",
              help="Print fix N's edit of the input files as a unified diff (the files are not changed); "
              "exit 1 for a fix that only waits for a running workload to finish (it has no edit).")
@click.option("--mode", type=click.Choice(["ordered", "optimal"]), default="ordered", show_default=True,
              help="optimal: also say where the optimal assignment decides it differently (CP-SAT).")
@time_budget_option
@tas_profile_option
@with_options(solver_options)
@with_options(cluster_options)
@max_size_option
@color_option
@click.option("--with-capacity", "with_capacity", metavar="NODEPOOL[:NAME]",
              help="Also say how many new nodes of this Karpenter NodePool (karpenter.sh/v1 YAML) would admit it.")
@click.option("--fixes", "fixes", type=click.IntRange(min=0), default=3, show_default=True, metavar="N",
              help="Show the N best proven fixes (0: search none, the fastest answer).")
@click.option("--all", "show_all", is_flag=True, help="Every reason, every blame set with the lines of input "
              "it names, and every side effect of each fix (by default: a few lines each).")
@click.option("--budget", type=click.IntRange(min=1), default=None, metavar="N",
              help="Prove fixes with at most N changes decided again (default 60). A count, not seconds: the "
              "same input gets the same fixes on any machine, however busy.")
def why(workload, paths, format_, apply_fix, mode, time_budget, tas_profile, rlimit, timeout_ms, cluster, context,
        kubeconfig, max_file_bytes, color, with_capacity, fixes, show_all, budget) -> None:
    """Explain why WORKLOAD (namespace/name) is or isn't admitted: reasons in Kueue's words,
    the lines of policy and state responsible, and verified fixes.

    Exit codes: 0 admitted, 1 not admitted, 2 unreadable or invalid input or unknown workload,
    3 the solver could not decide within its limits.
    """
    live = read_for(paths, cluster, context, kubeconfig, max_file_bytes, meanwhile=imported(*WHY_MODULES))
    from kadmit.render.cluster import incomplete_json, incomplete_text
    from kadmit.render.why import WhyStream, why_human, why_json, why_patch
    from kadmit.render.progress import progress

    shown = max(fixes, apply_fix or (1 if format_ == "patch" else 0))
    with progress(format_ != "json" and _terminal("stderr")) as report:
        # the first lines as soon as they are known (before fixes are proven), on a terminal or a pipe alike
        echo = partial(click.echo, nl=False)
        stream = WhyStream(echo if report is None else partial(report.above, echo), show_all, width()) \
            if format_ == "human" and apply_fix is None else None
        outcome = api.why(workload, list(paths), rlimit=rlimit, timeout_ms=timeout_ms, max_file_bytes=max_file_bytes,
                          tas_profile=tas_profile, mode=mode, time_budget=time_budget, fixes=shown, budget=budget,
                          progress=report, cluster=live, stages=stream.stage if stream is not None else None)
    if outcome.result is None:
        engine_refused(outcome, color, format_)
    shown = api.why_diagnostics(outcome.diagnostics, outcome.loaded.workspace.model, outcome.result.workload)
    _report(shown, outcome.loaded.sources, color)
    if apply_fix is not None or format_ == "patch":
        n = apply_fix or 1
        fixes = outcome.result.fixes
        if outcome.exit_code == api.EXIT_UNKNOWN and n > len(fixes):  # no fixes because nothing was decided
            model = outcome.loaded.workspace.model
            wl = next((w for w in model.workloads if w.key == outcome.result.workload), None)
            click.echo(why_human(outcome.result, outcome.loaded.sources, wl.span if wl else None, wl, model.skipped),
                       err=True, nl=False)
            sys.exit(api.EXIT_UNKNOWN)
        if n > len(fixes):
            click.echo(f"error: `{outcome.result.workload}` has {len(fixes)} proven fix{'' if len(fixes) == 1 else 'es'}; "
                       f"there is no fix {n}", err=True)
            sys.exit(api.EXIT_INPUT if fixes or outcome.result.admitted else api.EXIT_FINDINGS)
        patch = why_patch(fixes[n - 1], outcome.loaded.sources)
        if not patch:  # it waits for a holder: nothing in the input to change
            click.echo(f"fix {n} changes no input file: {fixes[n - 1].changes[0].describe()}", err=True)
            sys.exit(api.EXIT_FINDINGS)
        click.echo(patch, nl=False)
        waits = [c.describe() for c in fixes[n - 1].changes if c.edit is None]
        if waits:  # the patch is not the whole fix: it holds only once these finish too
            click.echo(f"fix {n} also needs what no edit of the input says: {'; '.join(waits)}", err=True)
        sys.exit(api.EXIT_OK)
    model = outcome.loaded.workspace.model
    wl = next((w for w in model.workloads if w.key == outcome.result.workload), None)
    incomplete = outcome.loaded.workspace.incomplete
    if format_ == "json":
        click.echo(incomplete_json(why_json(outcome.result, wl, model.skipped, shown), incomplete), nl=False)
    else:
        text = why_human(outcome.result, outcome.loaded.sources, wl.span if wl else None, wl, model.skipped,
                         full=show_all, width=width()) + incomplete_text(incomplete)
        click.echo(stream.rest(text) if stream is not None else text, nl=False)
    if with_capacity:
        answer, diagnostics = api.why_capacity(outcome.result.workload, list(paths), with_capacity, max_file_bytes=max_file_bytes,
                                               tas_profile=tas_profile, rlimit=rlimit, timeout_ms=timeout_ms,
                                               cluster=live)
        _report(diagnostics, outcome.loaded.sources, color)
        if answer is None:
            sys.exit(api.EXIT_INPUT)
        click.echo(("capacity: " if format_ == "human" else "") + answer.text(), err=format_ == "json")
        if answer.undecided:
            sys.exit(api.EXIT_UNKNOWN)
    sys.exit(outcome.exit_code)
