"""The Python API: one function per CLI verb (`check`, `fmt`, `admit`, `why`); the CLI is a thin shell over it."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kadmit import workspace as ws
from kadmit.scope import decidable, untouched_model
from kadmit.atomic import write_text_atomic
from kadmit.diagnostics import KAD004, Diagnostic, Diagnostics, Severity
from kadmit.render.codes import KAD005, KAD006, KAD008, KAD009, KAD010, KAD011
from kadmit.source import SourceMap

EXIT_OK = 0
EXIT_FINDINGS = 1  # errors found (or warnings, when strict); files that fmt would change
EXIT_INPUT = 2  # an input could not be read, an output not written, or bad usage
EXIT_INTERNAL = 70  # a bug in kadmit (EX_SOFTWARE)


def exit_code(diagnostics: list[Diagnostic], *, input_error: bool, strict: bool = False) -> int:
    """2 for unreadable input (it wins), 1 for errors (or warnings when strict), else 0."""
    if input_error:
        return EXIT_INPUT
    worst = {d.severity for d in diagnostics}
    if Severity.ERROR in worst or (strict and Severity.WARNING in worst):
        return EXIT_FINDINGS
    return EXIT_OK


def _limits(max_file_bytes: int | None) -> ws.Limits:
    return ws.Limits() if max_file_bytes is None else ws.Limits(max_file_bytes=max_file_bytes)


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


def check(paths: list[str], *, strict: bool = False,
          max_file_bytes: int | None = None, deep: bool = False) -> CheckResult:
    """Read and validate `paths` (files or folders, recursively) as one model; with `deep`, and no
    errors, also run the symbolic analyses (`engine.analysis.deep`)."""
    loaded = ws.load(list(paths), limits=_limits(max_file_bytes))
    if deep and not loaded.input_error and not loaded.diagnostics.has_errors:
        from kadmit.engine.analysis.deep import deep_check

        loaded.diagnostics.extend(deep_check(loaded.model))
    diagnostics = loaded.diagnostics.sorted()
    return CheckResult(loaded, diagnostics,
                       exit_code(diagnostics, input_error=loaded.input_error, strict=strict))


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
    named = {Path(p).resolve() for p in paths if Path(p).exists() and not Path(p).is_dir()}
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
    limits = _limits(max_file_bytes)
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
    reader = ws.Reader(sources, diags, _limits(max_file_bytes))
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

EXIT_UNKNOWN = 3  # the solver could not decide within its limits


@dataclass
class Loaded:
    """A workspace ready for the engine, or the reason it isn't (diagnostics and an exit code)."""

    workspace: ws.Workspace
    diagnostics: list[Diagnostic]
    exit_code: int  # EXIT_OK when the engine may run

    @property
    def sources(self) -> SourceMap:
        return self.workspace.sources


def load_for_engine(paths: list[str], *, max_file_bytes: int | None = None) -> Loaded:
    """Load and validate; the engine runs only on a model without errors (exit 2 otherwise:
    its input can't be read as a cluster state)."""
    loaded = ws.load(list(paths), limits=_limits(max_file_bytes))
    diagnostics = loaded.diagnostics.sorted()
    has_errors = any(d.severity is Severity.ERROR for d in diagnostics)
    code = EXIT_INPUT if (loaded.input_error or has_errors) else EXIT_OK
    return Loaded(loaded, diagnostics, code)


def _no_optimal(e: Exception) -> list[Diagnostic]:
    return [Diagnostics().emit(KAD008, f"optimal mode needs OR-tools: {e}", help="install the extra: pip install 'kadmit[optimal]'")]


@dataclass
class AdmitOutcome:
    loaded: Loaded
    result: "object | None"  # engine.decide.AdmitResult
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    held: list = field(default_factory=list)  # model.Skipped: pending workloads of trees with errors


def admit(paths: list[str], *, mode: Literal["ordered", "optimal"] = "ordered",
          rlimit: int | None = None, timeout_ms: int | None = None, time_budget: float = 10.0,
          max_file_bytes: int | None = None, tas_profile: str = "Mixed") -> AdmitOutcome:
    """Decide the pending workloads under `paths` (with errors: of the trees they don't touch, exit 1)."""
    from kadmit.engine.decide import admit as decide_all
    from kadmit.engine.optimal.solve import OptimalUnavailable
    from kadmit.engine.solver.z3backend import Limits

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes)
    scoped = decidable(loaded.workspace.model, loaded.diagnostics, loaded.workspace.input_error)
    if scoped is None:
        return AdmitOutcome(loaded, None, loaded.exit_code, loaded.diagnostics)
    model, held = scoped
    try:
        with ws.long_lived():  # the model read stays out of the collector's walks while deciding
            result = decide_all(model, mode, _solver_limits(rlimit, timeout_ms) or Limits(),
                                time_budget=time_budget, tas_profile=tas_profile)  # type: ignore[arg-type]
    except (ImportError, OptimalUnavailable) as e:
        return AdmitOutcome(loaded, None, EXIT_INPUT, _no_optimal(e))
    code = EXIT_UNKNOWN if result.unknown else EXIT_FINDINGS if loaded.exit_code != EXIT_OK else EXIT_OK
    from kadmit.engine.optimal.placement import unhonoured
    diags_out = unhonoured(model, loaded.diagnostics) if mode == "optimal" else loaded.diagnostics
    return AdmitOutcome(loaded, result, code, diags_out, held)


@dataclass
class WhyOutcome:
    loaded: Loaded
    result: "object | None"  # engine.decide.WhyResult
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)


def why(workload: str, paths: list[str], *, rlimit: int | None = None,
        timeout_ms: int | None = None, max_file_bytes: int | None = None,
        tas_profile: str = "Mixed", mode: str = "ordered", time_budget: float = 10.0) -> WhyOutcome:
    """Explain why workload `namespace/name` is or isn't admitted."""
    from kadmit.engine.decide import why as explain

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes)
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
    from kadmit.engine.optimal.solve import OptimalUnavailable
    try:
        result = explain(model, workload, _solver_limits(rlimit, timeout_ms), tas_profile, mode,  # type: ignore[arg-type]
                         time_budget, inputs=ws.Reloader(loaded.workspace, scope))
    except (ImportError, OptimalUnavailable) as e:
        return WhyOutcome(loaded, None, EXIT_INPUT, _no_optimal(e))
    code = EXIT_UNKNOWN if result.unknown else (EXIT_OK if result.admitted else EXIT_FINDINGS)
    return WhyOutcome(loaded, result, code, loaded.diagnostics)


def why_capacity(workload: str, paths: list[str], nodepool: str, *, max_file_bytes: int | None = None,
                 tas_profile: str = "Mixed") -> tuple[object | None, list[Diagnostic]]:
    """`why --with-capacity NODEPOOL[:NAME]`: the fewest new nodes of a Karpenter pool that admit
    `workload` (kadmit.simulate.capacity.CapacityAnswer), or None with the diagnostics."""
    from kadmit.simulate.capacity import with_capacity
    from kadmit.simulate.codes import KAD705
    from kadmit.simulate.karpenter import read_nodepools

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes)
    diags = Diagnostics()
    path, _, name = nodepool.partition(":") if not Path(nodepool).exists() else (nodepool, "", "")
    pools = read_nodepools(path, ws.Reader(loaded.sources, diags, _limits(max_file_bytes)), diags)
    if pools is None or loaded.exit_code != EXIT_OK:
        return None, diags.sorted()
    chosen = [p for p in pools if not name or p.name == name]
    if len(chosen) != 1:
        diags.emit(KAD705, f"`{path}` holds {len(pools)} NodePools: name one as `{path}:NAME`" if not name
                   else f"no NodePool `{name}` in `{path}`")
        return None, diags.sorted()
    return with_capacity(loaded.workspace.model, workload, chosen[0], tas_profile=tas_profile), diags.sorted()


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
            diags.emit(KAD011, f"{s.object.kind} `{s.object.key}` is not pending work: {s.reason}", s.span)
        return EXIT_FINDINGS, diags.sorted()
    diags.emit(KAD009, f"no workload `{name}` in the inputs",
               help=did_you_mean(name, found.known) or "name it as `namespace/name` or `Kind/namespace/name`")
    return EXIT_INPUT, diags.sorted()


def _solver_limits(rlimit: int | None, timeout_ms: int | None):
    from kadmit.engine.solver.z3backend import Limits

    base = Limits()
    return Limits(rlimit=rlimit or base.rlimit, timeout_ms=timeout_ms or base.timeout_ms, seed=base.seed)


# --- simulate ---------------------------------------------------------------------------------------

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


def simulate(paths: list[str], *, trace: str | None = None, until: str | None = None,
             start: str | None = None, mode: Literal["ordered", "optimal"] = "ordered",
             scoring: str = "LeastAllocated", tas_profile: str = "Mixed", add_nodes: list[str] = (),
             nodepools: list[str] = (), compare: list[str] = (), rlimit: int | None = None,
             timeout_ms: int | None = None, max_file_bytes: int | None = None,
             progress=None, cycle_latency: str | None = None) -> SimulateOutcome:
    """Replay the state under `paths` (and the arrivals of `trace`) over time; with `compare`, the
    same arrivals under a second policy too."""
    from kadmit.simulate.setup import prepare, replay

    loaded = load_for_engine(paths, max_file_bytes=max_file_bytes)
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
    solver = _solver_limits(rlimit, timeout_ms)
    result = replay(loaded.workspace.model, plan, mode=mode, scoring=scoring, tas_profile=tas_profile,
                    limits=solver, progress=progress)
    second = None
    if other is not None:
        second = replay(other.workspace.model, plan, mode=mode, scoring=scoring, tas_profile=tas_profile,
                        limits=solver, progress=progress)
    code = EXIT_UNKNOWN if result["summary"].get("unknown") else EXIT_OK
    return SimulateOutcome(loaded, result, code, diags.sorted(), second, other)


# --- test ---------------------------------------------------------------------------------------

@dataclass
class TestOutcome:
    """Every test's result, the texts read, diagnostics (test files and policies), and the exit code."""

    results: list  # review.testrun.TestResult
    diagnostics: list[Diagnostic]
    sources: SourceMap
    exit_code: int
    seconds: float = 0.0


def test(paths: list[str], *, max_file_bytes: int | None = None) -> TestOutcome:
    """Run the policy tests (`*.kadtest.yaml`) under `paths`. Tests in a folder run against that
    folder's own policy and state; a test file named alone, against its own folder.
    Exit code: 0 every test passed, 1 a test failed, 2 unreadable or invalid input."""
    import time

    from kadmit.review.codes import KAD803
    from kadmit.review.testfile import read_tests
    from kadmit.review.testrun import Runner

    t0 = time.perf_counter()
    limits = _limits(max_file_bytes)
    sources = SourceMap()
    diags = Diagnostics()
    groups: dict[Path, list[Path]] = {}
    failed = False
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(ws.TEST_SUFFIXES)
                           and not any(part.startswith(".") for part in f.relative_to(p).parts))
            for f in found:
                groups.setdefault(ws.policy_folder(f.parent, p), []).append(f)
        elif p.is_file():
            groups.setdefault(p.parent, []).append(p)
        else:
            diags.emit(KAD004, f"no such file or folder: `{raw}`")
            failed = True
    if not failed and not groups:
        diags.emit(KAD803, "no policy tests (`*.kadtest.yaml`) in " + ", ".join(f"`{p}`" for p in paths),
                   help="write tests beside the policy, e.g. `policy.kadtest.yaml`")
        failed = True
    results = []
    reader = ws.Reader(sources, diags, limits)
    for folder, files in sorted(groups.items()):
        cases = []
        for f in files:
            text = reader.read(f)
            if text is not None:
                cases += read_tests(text, ws.display_name(f), diags)
        base = ws.load([str(folder)], limits=limits)
        sources.update(base.sources)
        if base.input_error or base.diagnostics.has_errors:
            diags.extend(base.diagnostics.sorted())
            failed = True
            continue
        runner = Runner(base.model)
        results += [runner.run(case) for case in cases]
    failed = failed or reader.failed or diags.has_errors
    if failed:
        code = EXIT_INPUT
    elif any(r.status != "pass" for r in results):
        code = EXIT_FINDINGS if all(r.status != "error" for r in results) else EXIT_INPUT
    else:
        code = EXIT_OK
    return TestOutcome(results, diags.sorted(), sources, code, time.perf_counter() - t0)


@dataclass
class SweepOutcome:
    result: dict | None  # {"variants": [row, …]}: see kadmit.simulate.sweep.run_variant
    exit_code: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: SourceMap = field(default_factory=SourceMap)


def sweep(paths: list[str], sweep_file: str, *, trace: str | None = None, until: str | None = None,
          start: str | None = None, executor: str = "process", ray_address: str | None = None,
          workers: int | None = None, max_file_bytes: int | None = None, mode: str = "ordered",
          cycle_latency: str | None = None) -> SweepOutcome:
    """Replay every variant of `sweep_file` and tabulate them (`mode`, `cycle_latency`: unless a variant sets its own)."""
    from kadmit.simulate.sweep import Common, read_sweep, run_sweep

    sources = SourceMap()
    diags = Diagnostics()
    reader = ws.Reader(sources, diags, _limits(max_file_bytes))
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
    common = Common(trace, until, start, max_file_bytes, mode, cycle_latency)
    if not common.check(diags):
        return SweepOutcome(None, EXIT_INPUT, diags.sorted(), sources)
    rows = run_sweep(spec, common, executor, workers, ray_address)
    code = EXIT_INPUT if any("error" in r for r in rows) else EXIT_OK
    return SweepOutcome({"variants": rows}, code, diags.sorted(), sources)


# --- diff ---------------------------------------------------------------------------------------

@dataclass
class DiffOutcome:
    """What `diff` found (None when an input couldn't be read), both models, and the exit code."""

    result: "object | None"  # review.diff.DiffResult
    diagnostics: list[Diagnostic]
    sources: SourceMap
    exit_code: int
    base_spec: str = ""
    head_spec: str = ""
    base_model: "object | None" = None
    head_model: "object | None" = None


def diff(base: str, head: str, *, state: list[str] = (), envelopes: bool = True, rlimit: int | None = None,
         timeout_ms: int | None = None, max_file_bytes: int | None = None) -> DiffOutcome:
    """Compare two versions of a policy (folders or `git:REV[:PATH]`), each with its own state plus
    `state`. Exit code: 0 nothing changes, 1 something does, 2 unreadable or invalid input, 3 unknown."""
    import tempfile

    from kadmit.review.diff import diff_models
    from kadmit.review.revisions import materialize

    diags = Diagnostics()
    sources = SourceMap()
    with tempfile.TemporaryDirectory(prefix="kadmit-diff-") as tmp:
        folders = [materialize(spec, Path(tmp) / side, diags) for spec, side in ((base, "base"), (head, "head"))]
        if any(f is None for f in folders):
            return DiffOutcome(None, diags.sorted(), sources, EXIT_INPUT, base, head)
        loaded = [load_for_engine([str(f), *state], max_file_bytes=max_file_bytes) for f in folders]
        prefixes = [ws.display_name(Path(tmp) / side) + "/" for side in ("base", "head")]
        for one in loaded:
            for name, text in one.sources.items():
                sources.add(_unprefix(name, prefixes), text)
            diags.extend(_relabel_diagnostic(d, prefixes) for d in one.diagnostics)
        if any(one.exit_code != EXIT_OK for one in loaded):
            return DiffOutcome(None, diags.sorted(), sources, EXIT_INPUT, base, head)
        mb, mh = (one.workspace.model for one in loaded)
        result = diff_models(mb, mh, _solver_limits(rlimit, timeout_ms), envelopes=envelopes)
        _relabel(result, prefixes)
    code = EXIT_UNKNOWN if result.unknown else (EXIT_OK if result.empty else EXIT_FINDINGS)
    return DiffOutcome(result, diags.sorted(), sources, code, base, head, mb, mh)


def _unprefix(text: str, prefixes: list[str]) -> str:
    for p in prefixes:
        text = text.replace(p, "")
    return text


def _relabel_diagnostic(d: Diagnostic, prefixes: list[str]) -> Diagnostic:
    import dataclasses

    def span(sp):
        return sp if sp is None else sp.model_copy(update={"file": _unprefix(sp.file, prefixes)})
    return dataclasses.replace(d, span=span(d.span), labels=tuple(dataclasses.replace(x, span=span(x.span))
                                                                  for x in d.labels))


def _relabel(result, prefixes: list[str]) -> None:
    """Files read from a `git:` revision are named `git:REV/PATH`, not by the temporary folder."""
    import dataclasses

    result.changes[:] = [c if c.span is None else dataclasses.replace(
        c, span=c.span.model_copy(update={"file": _unprefix(c.span.file, prefixes)})) for c in result.changes]
    for d in result.decisions:
        d.why[:] = [_unprefix(line, prefixes) for line in d.why]
