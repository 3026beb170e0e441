"""The Python API of `kadmit simulate`: one replay (and `--compare`), and sweeps of variants."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kadmit import workspace as ws
from kadmit.api.common import (EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, EXIT_UNKNOWN, Loaded, file_limits, load_for_engine, one_question,
                               solver_limits)
from kadmit.diagnostics import Diagnostic, Diagnostics, Severity
from kadmit.source import SourceMap


@dataclass
class SimulateOutcome:
    loaded: Loaded
    result: dict | None  # kadmit.simulate.results: summary, queues, flavors, workloads, series, run
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    compare: dict | None = None  # the same arrivals under the `compare` policy
    compare_loaded: Loaded | None = None

    @property
    def sources(self) -> SourceMap:
        return self.loaded.sources


@one_question
def simulate(paths: list[str], *, trace: str | None = None, until: str | None = None,
             start: str | None = None, mode: Literal["ordered", "optimal"] = "ordered",
             scoring: str = "LeastAllocated", tas_profile: str = "Mixed", add_nodes: list[str] = (),
             nodepools: list[str] = (), compare: list[str] = (), rlimit: int | None = None,
             timeout_ms: int | None = None, max_file_bytes: int | None = None,
             progress=None, cycle_latency: str | None = None, cluster: ws.Text | None = None,
             work_budget: int | None = None) -> SimulateOutcome:
    """Replay the state under `paths` and of a live `cluster` read (and the arrivals of `trace`) over
    time; with `compare`, the same arrivals under a second policy too."""
    from kadmit.simulate.setup import prepare, replay

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes, cluster=cluster)
    if loaded.exit_code != EXIT_OK:
        return SimulateOutcome(loaded, None, loaded.exit_code, loaded.diagnostics)
    diags = Diagnostics(list(loaded.diagnostics))
    other = None
    if compare:
        other = load_for_engine(list(compare), max_file_bytes=max_file_bytes)
        diags.extend(other.diagnostics)
        if other.exit_code != EXIT_OK:
            return SimulateOutcome(loaded, None, other.exit_code, diags.sorted(), compare_loaded=other)
    limits = ws.Limits() if max_file_bytes is None else ws.Limits(max_file_bytes=max_file_bytes)
    plan = prepare(loaded.workspace, trace=trace, until=until, start=start, add_nodes=list(add_nodes),
                   nodepools=list(nodepools), diags=diags, limits=limits, cycle=cycle_latency)
    if plan is None:
        return SimulateOutcome(loaded, None, EXIT_INPUT, diags.sorted())
    solver = solver_limits(rlimit, timeout_ms)
    result = replay(loaded.workspace.model, plan, mode=mode, scoring=scoring, tas_profile=tas_profile,
                    limits=solver, progress=progress, work_budget=work_budget)
    second = None
    if other is not None:
        second = replay(other.workspace.model, plan, mode=mode, scoring=scoring, tas_profile=tas_profile,
                        limits=solver, progress=progress, work_budget=work_budget)
    spans = {w.key: w.span for w in loaded.workspace.model.workloads} | {w.key: w.span for _, w in plan.arrivals}
    undecided = _undecided(result, "", spans, diags) | _stopped(result, "", diags)
    if second is not None:
        undecided |= _undecided(second, f" under `{' '.join(compare)}`", spans, diags)
        undecided |= _stopped(second, f" under `{' '.join(compare)}`", diags)
    # an error the replay leaves aside (an object refused alone: KAD170, KAD171) is exit 1, as for `admit`
    refused = any(d.severity is Severity.ERROR for x in (loaded, other) if x is not None for d in x.diagnostics)
    code = EXIT_UNKNOWN if undecided else EXIT_FINDINGS if refused else EXIT_OK
    return SimulateOutcome(loaded, result, code, diags.sorted(), second, other)


def _undecided(result: dict, where: str, spans: dict, diags: Diagnostics) -> bool:
    """KAD413 for the workloads whose decision the solver's limits left unknown during a replay."""
    from kadmit.engine.solver.codes import KAD413

    keys = result["summary"].get("undecided", [])
    if keys:
        shown = ", ".join(f"`{k}`" for k in keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
        diags.emit(KAD413, f"the replay{where} could not decide {len(keys)} workload(s) within the solver's limits: "
                   f"{shown}", spans.get(keys[0]), help="they waited where Kueue would have decided; raise --rlimit "
                   "or --timeout")
    return bool(keys)


def _stopped(result: dict, where: str, diags: Diagnostics) -> bool:
    """KAD717 for a replay that stopped at its work budget (its results end there: exit 3)."""
    from kadmit.simulate.codes import KAD717

    got = result["summary"].get("stopped")
    if got:
        diags.emit(KAD717, f"the replay{where} stopped at {got['at']:g} s: it decided pending workloads "
                   f"{got['work']:,} times, past its budget of {got['budget']:,}; what it shows ends there",
                   help="replay a shorter trace or window (--until), or raise the budget with --budget N")
    return bool(got)


@dataclass
class SweepOutcome:
    result: dict | None  # {"variants": [row, …]}: see kadmit.simulate.sweep.run_variant
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: SourceMap = field(default_factory=SourceMap)


@one_question
def sweep(paths: list[str], sweep_file: str, *, trace: str | None = None, until: str | None = None,
          start: str | None = None, executor: str = "process", ray_address: str | None = None,
          workers: int | None = None, max_file_bytes: int | None = None, mode: str = "ordered",
          cycle_latency: str | None = None, rlimit: int | None = None, timeout_ms: int | None = None,
          work_budget: int | None = None) -> SweepOutcome:
    """Replay every variant of `sweep_file` and tabulate them (`mode`, `cycle_latency`: unless a variant
    sets its own). Exit code: 2 unreadable input or a variant that could not run, 3 a variant whose
    replay left decisions unknown within the solver's limits (KAD413), else 0."""
    from kadmit.simulate.sweep import DIAGNOSTICS, Common, read_sweep, run_sweep

    sources = SourceMap()
    diags = Diagnostics()
    reader = ws.Reader(sources, diags, file_limits(max_file_bytes))
    text = reader.read(Path(sweep_file))
    if text is None:
        return SweepOutcome(None, EXIT_INPUT, diags.sorted(), sources)
    spec = read_sweep(sweep_file, text, list(paths), diags)
    if spec is None:
        return SweepOutcome(None, EXIT_INPUT, diags.sorted(), sources)
    if executor == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            from kadmit.simulate.codes import KAD707
            diags.emit(KAD707, "`--executor ray` needs Ray", help="install the extra: pip install 'kadmit[ray]'")
            return SweepOutcome(None, EXIT_INPUT, diags.sorted(), sources)
    common = Common(trace, until, start, max_file_bytes, mode, cycle_latency, rlimit, timeout_ms, work_budget)
    if not common.check(diags):
        return SweepOutcome(None, EXIT_INPUT, diags.sorted(), sources)
    rows = run_sweep(spec, common, executor, workers, ray_address)
    undecided = False
    for r in rows:
        diags.extend(r.pop(DIAGNOSTICS, ()))  # each variant's inputs' warnings; those variants share are said once
        undecided |= _undecided({"summary": r}, f" of variant `{r['variant']}`", {}, diags)
        undecided |= _stopped({"summary": r}, f" of variant `{r['variant']}`", diags)
        if "error" in r:
            from kadmit.simulate.codes import KAD716
            from kadmit.source import Span
            at = r.get("at")
            diags.emit(KAD716, f"variant `{r['variant']}` could not run: {r['error']}",
                       Span(file=at[0], line=at[1], column=at[2]) if at else None)
    code = EXIT_INPUT if any("error" in r for r in rows) else EXIT_UNKNOWN if undecided else EXIT_OK
    return SweepOutcome({"variants": rows}, code, diags.sorted(), sources)
