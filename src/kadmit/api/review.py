"""The Python API of policy review: `test` (policy tests beside a policy) and `diff` (what a change does)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kadmit import workspace as ws
from kadmit.api.common import (EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, EXIT_UNKNOWN, file_limits, load_for_engine,
                               one_question, path_kind, solver_limits)
from kadmit.diagnostics import KAD001, Diagnostic, Diagnostics
from kadmit.engine.solver.codes import KAD412
from kadmit.source import SourceMap


@dataclass
class TestOutcome:
    """Every test's result, the texts read, diagnostics (test files and policies), and the exit code."""

    results: list  # review.testrun.TestResult
    diagnostics: list[Diagnostic]
    sources: SourceMap
    exit_code: int
    seconds: float = 0.0


@one_question
def test(paths: list[str], *, max_file_bytes: int | None = None, rlimit: int | None = None,
         timeout_ms: int | None = None) -> TestOutcome:
    """Run the policy tests (`*.kadtest.yaml`) under `paths`. Tests in a folder run against that
    folder's own policy and state; a test file named alone, against its own folder. No paths: the
    working directory, where finding no tests is a note (KAD803; a pre-commit hook passes on a
    repository without policy tests); paths named that hold none are an error (KAD803, exit 2).
    Exit code: 0 every test passed, 1 a test failed, 2 unreadable or invalid input or a test that
    can't run, 3 a test reads a decision the solver could not make within its limits (KAD411)."""
    import time

    from kadmit.review.codes import KAD803
    from kadmit.review.testfile import read_tests
    from kadmit.review.testrun import Runner

    t0 = time.perf_counter()
    limits = file_limits(max_file_bytes)
    sources = SourceMap()
    diags = Diagnostics()
    groups: dict[Path, list[Path]] = {}
    failed = False
    named = bool(paths)
    paths = list(paths) or ["."]
    for raw in paths:
        p, kind = Path(raw), path_kind(raw)
        if kind == "dir":
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(ws.TEST_SUFFIXES)
                           and not any(part.startswith(".") for part in f.relative_to(p).parts))
            for f in found:
                groups.setdefault(ws.policy_folder(f.parent, p), []).append(f)
        elif kind == "file":
            groups.setdefault(p.parent, []).append(p)
        else:
            diags.emit(KAD001, f"can't read `{raw[:200]}`: not a file or folder" if kind == "other"
                       else f"no such file or folder: `{raw[:200]}`")
            failed = True
    if not failed and not groups and named:
        diags.emit(KAD803, "no policy tests (`*.kadtest.yaml`) in " + ", ".join(f"`{p}`" for p in paths),
                   help="write tests beside the policy, e.g. `policy.kadtest.yaml`")
        failed = True
    elif not failed and not groups:
        diags.emit(KAD803, "no policy tests found (`*.kadtest.yaml`) under the working directory: nothing to run",
                   severity="note", help="write tests beside the policy, e.g. `policy.kadtest.yaml`")
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
        runner = Runner(base.model, solver_limits(rlimit, timeout_ms))
        results += [runner.run(case) for case in cases]
    failed = failed or reader.failed or diags.has_errors
    statuses = {r.status for r in results}
    if failed or "error" in statuses:
        code = EXIT_INPUT
    elif "unknown" in statuses:
        code = EXIT_UNKNOWN
    elif "fail" in statuses:
        code = EXIT_FINDINGS
    else:
        code = EXIT_OK
    return TestOutcome(results, diags.sorted(), sources, code, time.perf_counter() - t0)


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


@one_question
def diff(base: str, head: str, *, state: list[str] = (), envelopes: bool = True, rlimit: int | None = None,
         timeout_ms: int | None = None, max_file_bytes: int | None = None, manifests: bool = False,
         progress=None) -> DiffOutcome:
    """Compare two versions of a policy (folders or `git:REV[:PATH]`), each with its own state plus
    `state`; `progress` (`engine.progress.Report`) is told of the envelopes searched. Exit code: 0
    nothing changes, 1 something does, 2 unreadable or invalid input, 3 unknown."""
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
        result = diff_models(mb, mh, solver_limits(rlimit, timeout_ms), envelopes=envelopes, manifests=manifests,
                             progress=progress)
        _relabel(result, prefixes)
        for what, key, side in result.undecided:
            model = mb if side == "before" else mh
            obj = next((o for o in (*model.workloads, *model.cluster_queues)
                        if getattr(o, "key", o.name) == key), None)
            diags.add(_relabel_diagnostic(Diagnostics().emit(
                KAD412, f"could not decide within the solver's limits {what} ({base if side == 'before' else head})",
                obj.span if obj is not None else None, help="raise --rlimit or --timeout"), prefixes))
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
