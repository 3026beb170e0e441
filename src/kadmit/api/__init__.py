"""The Python API: one function per CLI verb; the CLI is a thin shell over it. `check`, `fmt`, `admit`
and `why` are here; `simulate` and `sweep` in `api.simulation`, `test` and `diff` in `api.review`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kadmit import workspace as ws
from kadmit.api.common import (EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, Loaded, one_question,
                               exit_code, file_limits, load_for_engine, no_optimal, path_kind,
                               solver_limits)
from kadmit.api.cluster import SnapshotOutcome, check_lists_errors, cluster_unread, cluster_warnings, read_cluster, snapshot
from kadmit.scope import blocking, decidable, untouched_model
from kadmit.atomic import write_text_atomic
from kadmit.diagnostics import KAD004, Diagnostic, Diagnostics, Severity, Subject
from kadmit.identity import subject
from kadmit.model import SKIPPED_NAMED
from kadmit.render.codes import KAD005, KAD006, KAD009, KAD010, KAD011
from kadmit.source import SourceMap

__all__ = ["WriteOutcome", "export", "import_", "EXIT_FINDINGS", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK", "EXIT_UNKNOWN", "AdmitOutcome", "CheckResult",
           "DiffOutcome", "FmtResult", "Loaded", "SimulateOutcome", "SweepOutcome", "TestOutcome", "WhyOutcome",
           "admit", "check", "diff", "exit_code", "fmt", "load_for_engine", "lookup", "simulate", "sweep", "test",
           "why", "why_capacity", "SnapshotOutcome", "check_lists_errors", "cluster_unread", "cluster_warnings", "out_of_step", "why_diagnostics", "read_cluster",
           "snapshot"]

# The verbs of other modules, imported on first use: `check`, `admit` and `why` don't load them.
_ELSEWHERE = {"WriteOutcome": "convert", "export": "convert", "import_": "convert",
              "DiffOutcome": "review", "TestOutcome": "review", "diff": "review", "test": "review",
              "SimulateOutcome": "simulation", "SweepOutcome": "simulation", "simulate": "simulation",
              "sweep": "simulation"}


def __getattr__(name: str):
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


# --- check ------------------------------------------------------------------------------------

@dataclass
class CheckResult:
    """What `check` found: the loaded workspace, its diagnostics sorted, and the exit code."""

    workspace: ws.Workspace
    diagnostics: list[Diagnostic]
    exit_code: int

    @property
    def sources(self) -> SourceMap:
        return self.workspace.sources

    @property
    def files(self) -> list[str]:
        return self.workspace.files


def check(paths: list[str], *, strict: bool = False, max_file_bytes: int | None = None, deep: bool = False,
          rlimit: int | None = None, timeout_ms: int | None = None, cluster: ws.Text | None = None) -> CheckResult:
    """Read and validate `paths` (files or folders, recursively) and a live `cluster` read as one model;
    with `deep`, and no errors, also run the symbolic analyses (`engine.analysis.deep`) within the
    solver's limits (an analysis they stop is a KAD410 error: exit 3)."""
    loaded = ws.load(list(paths), limits=file_limits(max_file_bytes), texts=[cluster] if cluster else [])
    add_stall(loaded)
    if deep and not loaded.input_error and not loaded.diagnostics.has_errors:
        from kadmit.engine.analysis.deep import deep_check
        from kadmit.engine.solver.z3backend import fresh_context

        with fresh_context():
            loaded.diagnostics.extend(deep_check(loaded.model, solver_limits(rlimit, timeout_ms)))
    diagnostics = loaded.diagnostics.sorted()
    return CheckResult(loaded, diagnostics,
                       exit_code(diagnostics, input_error=loaded.input_error, strict=strict))


def add_stall(loaded: ws.Workspace) -> None:
    """KAD542, which `admit` and `why` give, for `check` and the editor (`editor.project`) too: the engine's rule
    (`engine.admission.stalls`), on input the engine would decide, loaded only where a ClusterQueue orders by
    admission fair sharing."""
    from kadmit.engine.afs import AdmissionFairSharing

    if loaded.input_error or not AdmissionFairSharing(loaded.model).queues \
            or blocking(loaded.model, loaded.diagnostics.sorted()):
        return
    from kadmit.engine.admission.stalls import stall_diagnostics

    loaded.diagnostics.items.extend(stall_diagnostics(loaded.model))


# --- fmt --------------------------------------------------------------------------------------

FmtMode = Literal["check", "diff", "write"]


@dataclass
class FormattedFile:
    """One `.kad` file: its text, its canonical text (None when it doesn't parse), diagnostics."""

    path: str
    original: str
    formatted: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    written: bool = False

    @property
    def changed(self) -> bool:
        return self.formatted is not None and self.formatted != self.original

    def diff(self) -> str:
        """A unified diff from the file to its formatted text ("" when unchanged)."""
        if not self.changed:
            return ""
        assert self.formatted is not None
        import difflib

        lines = difflib.unified_diff(self.original.splitlines(keepends=True),
                                     self.formatted.splitlines(keepends=True),
                                     fromfile=f"a/{self.path}", tofile=f"b/{self.path}")
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)


@dataclass
class FmtResult:
    """Every file `fmt` looked at, all diagnostics sorted, the texts read, and the exit code."""

    files: list[FormattedFile]
    diagnostics: list[Diagnostic]
    sources: SourceMap
    exit_code: int
    input_error: bool = False  # some input unreadable or some output unwritable

    @property
    def changed(self) -> list[FormattedFile]:
        return [f for f in self.files if f.changed]


def _kad_files(paths: list[str], diags: Diagnostics,
               limits: ws.Limits) -> tuple[list[Path], bool]:
    """The `.kad` files under `paths`; a named file that isn't one is an error (folders skip them)."""
    files, failed = ws.collect_files(list(paths), diags, limits)
    named = {Path(p).resolve() for p in paths if path_kind(p) in ("file", "other")}
    kad = []
    for f in files:
        if f.suffix in ws.KAD_SUFFIXES:
            kad.append(f)
        elif f.resolve() in named:
            diags.emit(KAD005, f"`{ws.display_name(f)}` is not a `.kad` file",
                       help="kadmit fmt formats policy files only")
            failed = True
    if not kad and not failed:
        diags.emit(KAD004, "no `.kad` files in " + ", ".join(f"`{p}`" for p in paths))
        failed = True
    return kad, failed


def fmt(paths: list[str], mode: FmtMode = "check", *,
        max_file_bytes: int | None = None) -> FmtResult:
    """Format the `.kad` files under `paths`.

    `check` and `diff` only compute; `write` replaces each changed file atomically, and only
    when every file was read and parsed (one error anywhere and nothing is written).
    Exit code: 2 unreadable input or unwritable output, 1 parse errors (or, for `check` and
    `diff`, files that would change), else 0.
    """
    from kadmit.syntax import format_text

    if mode not in ("check", "diff", "write"):
        raise ValueError(f"unknown fmt mode {mode!r}")
    if ws.STDIN in paths:
        return _fmt_stdin(paths, mode, max_file_bytes)
    limits = file_limits(max_file_bytes)
    sources = SourceMap()
    diags = Diagnostics()
    files, failed = _kad_files(paths, diags, limits)
    reader = ws.Reader(sources, diags, limits)
    results: list[tuple[Path, FormattedFile]] = []
    for path in files:
        text = reader.read(path)
        if text is None:
            continue
        name = ws.display_name(path)
        formatted, found = format_text(text, name)
        one = FormattedFile(name, text, formatted, Diagnostics(list(found)).sorted())
        diags.extend(one.diagnostics)
        results.append((path, one))
    failed = failed or reader.failed
    unparsed = any(one.formatted is None for _, one in results)
    if mode == "write" and not failed and not unparsed and not diags.has_errors:
        for path, one in results:
            if not one.changed:
                continue
            assert one.formatted is not None
            try:
                write_text_atomic(path, one.formatted)
            except OSError as e:
                diags.emit(KAD006, f"can't write `{one.path}`: {e.strerror or e}",
                           help="the file is unchanged")
                failed = True
            else:
                one.written = True
    diagnostics = diags.sorted()
    code = exit_code(diagnostics, input_error=failed)
    if code == EXIT_OK and (unparsed or (mode != "write" and any(o.changed for _, o in results))):
        code = EXIT_FINDINGS
    return FmtResult([one for _, one in results], diagnostics, sources, code, failed)


def _fmt_stdin(paths: list[str], mode: FmtMode, max_file_bytes: int | None) -> FmtResult:
    """`fmt -`: the `.kad` text of standard input, formatted (never written back)."""
    from kadmit.syntax import format_text

    sources = SourceMap()
    diags = Diagnostics()
    if len(paths) > 1 or mode == "write":
        diags.emit(KAD005, "`-` (standard input) is formatted on its own, to standard output",
                   help="pass `-` alone, without --write")
        return FmtResult([], diags.sorted(), sources, EXIT_INPUT, True)
    reader = ws.Reader(sources, diags, file_limits(max_file_bytes))
    text = reader.read_stdin()
    if text is None:
        return FmtResult([], diags.sorted(), sources, EXIT_INPUT, True)
    formatted, found = format_text(text, ws.STDIN_NAME)
    one = FormattedFile(ws.STDIN_NAME, text, formatted, Diagnostics(list(found)).sorted())
    diagnostics = one.diagnostics
    code = exit_code(diagnostics, input_error=False)
    if code == EXIT_OK and (formatted is None or (mode != "write" and one.changed)):
        code = EXIT_FINDINGS
    return FmtResult([one], diagnostics, sources, code, False)


# --- admit and why ------------------------------------------------------------------------------

@dataclass
class AdmitOutcome:
    loaded: Loaded
    result: "object | None"  # engine.decide.AdmitResult
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    held: list = field(default_factory=list)  # model.Skipped: pending workloads of trees with errors


@one_question
def admit(paths: list[str], *, mode: Literal["ordered", "optimal"] = "ordered",
          rlimit: int | None = None, timeout_ms: int | None = None, time_budget: float = 10.0,
          max_file_bytes: int | None = None, tas_profile: str = "Mixed",
          workspace: ws.Workspace | None = None, progress=None, cluster: ws.Text | None = None) -> AdmitOutcome:
    """Decide the pending workloads under `paths` and of a live `cluster` read, or of `workspace` read
    already (an editor's); with errors, of the trees they don't touch (exit 1). `progress`
    (`engine.progress.Report`) is told of every scheduling cycle."""
    from kadmit.engine.decide import admit as decide_all
    from kadmit.engine.optimal.codes import OptimalUnavailable
    from kadmit.engine.solver.z3backend import Limits

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes, workspace=workspace, cluster=cluster)
    scoped = decidable(loaded.workspace.model, loaded.diagnostics, loaded.workspace.input_error)
    if scoped is None:
        return AdmitOutcome(loaded, None, loaded.exit_code, loaded.diagnostics)
    model, held = scoped
    try:
        with ws.long_lived():  # the model read stays out of the collector's walks while deciding
            result = decide_all(model, mode, solver_limits(rlimit, timeout_ms) or Limits(),
                                time_budget=time_budget, tas_profile=tas_profile,  # type: ignore[arg-type]
                                progress=progress)
    except (ImportError, OptimalUnavailable) as e:
        return AdmitOutcome(loaded, None, EXIT_INPUT, no_optimal(e))
    # an error the answer leaves aside (a touched tree, an object refused alone: KAD170, KAD171) is exit 1
    errors = loaded.exit_code != EXIT_OK or any(d.severity is Severity.ERROR for d in loaded.diagnostics)
    code = EXIT_UNKNOWN if result.unknown else EXIT_FINDINGS if errors else EXIT_OK
    diags_out = loaded.diagnostics
    if mode == "optimal":
        from kadmit.engine.optimal.placement import unhonoured
        diags_out = unhonoured(model, loaded.diagnostics)
    return AdmitOutcome(loaded, result, code, diags_out, held)


@dataclass
class WhyOutcome:
    loaded: Loaded
    result: "object | None"  # engine.decide.WhyResult
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)


@one_question
def why(workload: str, paths: list[str], *, rlimit: int | None = None,
        timeout_ms: int | None = None, max_file_bytes: int | None = None,
        tas_profile: str = "Mixed", mode: str = "ordered", time_budget: float = 10.0,
        workspace: ws.Workspace | None = None, fixes: int = 3, budget: int | None = None,
        progress=None, cluster: ws.Text | None = None, stages=None) -> WhyOutcome:
    """Explain why workload `namespace/name` (under `paths` and of a live `cluster` read, or of
    `workspace` read already) is or isn't admitted, with up to `fixes` proven fixes (0: none searched)
    found within `budget` changes decided again (default `prove.DEFAULT_BUDGET`); `progress`
    (`engine.progress.Report`) is told of scheduling cycles and re-decisions; `stages(what, result,
    loaded)` is handed the answer's first stages before fixes are proven (`engine.progress.Stage`)."""
    from kadmit.edited import Reloader
    from kadmit.engine.decide import why as explain
    from kadmit.engine.explain.prove import DEFAULT_BUDGET, Proving

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes, workspace=workspace, cluster=cluster)
    model, scope = loaded.workspace.model, None
    if loaded.exit_code != EXIT_OK:
        # errors elsewhere don't stop an answer about a workload whose cohort tree they don't touch
        key = None if loaded.workspace.input_error else lookup(model, workload).key
        scoped = untouched_model(model, loaded.diagnostics, key)[0] if key else None
        if scoped is None:
            return WhyOutcome(loaded, None, loaded.exit_code, loaded.diagnostics)
        model, scope = scoped, (lambda m, diags: untouched_model(m, diags, key)[0])  # fixes re-read that part
    found = lookup(model, workload)
    if found.key is None:
        from kadmit.engine.decide import gang_names
        if workload not in gang_names(model):
            return WhyOutcome(loaded, None, *_not_found(workload, found))
    else:
        workload = found.key
    from kadmit.engine.optimal.codes import OptimalUnavailable
    try:
        result = explain(model, workload, solver_limits(rlimit, timeout_ms), tas_profile, mode,  # type: ignore[arg-type]
                         time_budget, inputs=Reloader(loaded.workspace, scope),
                         proving=Proving(fixes, budget or DEFAULT_BUDGET, progress,
                                         None if stages is None else (lambda what, r: stages(what, r, loaded))))
    except (ImportError, OptimalUnavailable) as e:
        return WhyOutcome(loaded, None, EXIT_INPUT, no_optimal(e))
    waiting = result.decision is not None and result.admitted and not result.decision.kueue_admitted  # not Admitted yet
    code = EXIT_UNKNOWN if result.unknown else (EXIT_OK if result.admitted and not waiting else EXIT_FINDINGS)
    return WhyOutcome(loaded, result, code, loaded.diagnostics)


@one_question
def why_capacity(workload: str, paths: list[str], nodepool: str, *, max_file_bytes: int | None = None,
                 tas_profile: str = "Mixed", rlimit: int | None = None,
                 timeout_ms: int | None = None, cluster: ws.Text | None = None) -> tuple[object | None, list[Diagnostic]]:
    """`why --with-capacity NODEPOOL[:NAME]`: the fewest new nodes of a Karpenter pool that admit
    `workload` (kadmit.simulate.capacity.CapacityAnswer), or None with the diagnostics; an answer
    the solver's limits left open is `undecided`, with a KAD414 error."""
    from kadmit.simulate.capacity import with_capacity
    from kadmit.simulate.codes import KAD705
    from kadmit.simulate.karpenter import read_nodepools

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes, cluster=cluster)
    diags = Diagnostics()
    path, _, name = nodepool.partition(":") if path_kind(nodepool) == "missing" else (nodepool, "", "")
    pools = read_nodepools(path, ws.Reader(loaded.sources, diags, file_limits(max_file_bytes)), diags)
    if pools is None or loaded.exit_code != EXIT_OK:
        return None, diags.sorted()
    chosen = [p for p in pools if not name or p.name == name]
    if len(chosen) != 1:
        diags.emit(KAD705, f"`{path}` holds {len(pools)} NodePools: name one as `{path}:NAME`" if not name
                   else f"no NodePool `{name}` in `{path}`")
        return None, diags.sorted()
    answer = with_capacity(loaded.workspace.model, workload, chosen[0], tas_profile=tas_profile,
                           limits=solver_limits(rlimit, timeout_ms))
    if answer.undecided:
        from kadmit.engine.solver.codes import KAD414
        diags.emit(KAD414, f"could not decide within the solver's limits how many new nodes of NodePool "
                   f"`{chosen[0].name}` would admit `{workload}`", help="raise --rlimit or --timeout")
    return answer, diags.sorted()


def out_of_step(diagnostics: list[Diagnostic], model, key: str) -> list[Diagnostic]:
    """The warnings (KAD175) of the Workloads Kueue's job reconciler updates or deletes as out of step with the
    job of the Workload `key`: what `why` shows of the load's diagnostics beside the cluster's."""
    wl = next((w for w in model.workloads if w.key == key), None)
    if wl is None:
        return []
    mine = {Subject("Workload", wl.namespace, wl.name)}
    if wl.origin is not None:
        mine.add(Subject(wl.origin.kind, wl.origin.namespace, wl.origin.name))
    return [d for d in diagnostics if d.code == "KAD175" and not mine.isdisjoint(d.about)]


def why_diagnostics(diagnostics: list[Diagnostic], model, key: str) -> list[Diagnostic]:
    """The load's diagnostics `why` shows beside its answer on the Workload `key`, in its human and JSON formats
    alike: the cluster read's (`cluster_warnings`) and the job's Workloads out of step (`out_of_step`)."""
    return cluster_warnings(diagnostics) + out_of_step(diagnostics, model, key)


def lookup(model, name: str):
    """The workload `name` means (`kadmit.identity.find`)."""
    from kadmit.identity import find

    return find(model, name)


def _not_found(name: str, found) -> tuple[int, list[Diagnostic]]:
    """Exit code and diagnostics for a name that picks no single workload."""
    from kadmit.diagnostics import did_you_mean

    diags = Diagnostics()
    if found.candidates:
        diags.emit(KAD010, f"`{name}` names more than one workload: " + ", ".join(f"`{c}`" for c in found.candidates),
                   help="name one of them as written")
        return EXIT_INPUT, diags.sorted()
    if found.skipped:
        for s in found.skipped:
            diags.emit(KAD011, f"{s.object.kind} `{s.object.key}` is not pending work: {s.reason}", s.span,
                       about=(subject(s.object),))
        return EXIT_FINDINGS, diags.sorted()
    counted = found.counted
    if counted:  # objects of kinds kadmit does not read, past the ones listed by name: it may be one of them
        s = counted[0]
        rest = sum(c.more for c in counted)
        diags.emit(KAD009, f"no workload `{name}` in the inputs; of the objects of kinds kadmit does not read, "
                   f"{rest:,} are counted, not named (the first after {s.object.kind} `{s.object.key}`), and it "
                   f"may be one of them: not pending work ({s.reason})", s.span,
                   help=f"kadmit names up to {SKIPPED_NAMED} objects of one such kind per file")
        return EXIT_INPUT, diags.sorted()
    diags.emit(KAD009, f"no workload `{name}` in the inputs",
               help=did_you_mean(name, found.known) or "name it as `namespace/name` or `Kind/namespace/name`")
    return EXIT_INPUT, diags.sorted()
