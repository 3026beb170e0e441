"""What every verb of the Python API shares: exit codes, reading inputs for the engine, the solver's limits."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kadmit import workspace as ws
from kadmit.diagnostics import Diagnostic, Diagnostics, Severity
from kadmit.engine.solver.codes import UNDECIDED
from kadmit.render.codes import KAD008
from kadmit.scope import blocking
from kadmit.source import SourceMap

EXIT_OK = 0
EXIT_FINDINGS = 1  # errors found (or warnings, when strict); files that fmt would change
EXIT_INPUT = 2  # an input could not be read, an output not written, or bad usage
EXIT_UNKNOWN = 3  # the solver could not decide within its limits
EXIT_INTERNAL = 70  # a bug in kadmit (EX_SOFTWARE)


def exit_code(diagnostics: list[Diagnostic], *, input_error: bool, strict: bool = False) -> int:
    """2 for unreadable input (it wins), 3 for a check the solver left undecided (KAD41x), 1 for errors
    (or warnings when strict), else 0."""
    if input_error:
        return EXIT_INPUT
    if any(d.code in UNDECIDED for d in diagnostics):
        return EXIT_UNKNOWN
    worst = {d.severity for d in diagnostics}
    if Severity.ERROR in worst or (strict and Severity.WARNING in worst):
        return EXIT_FINDINGS
    return EXIT_OK


def path_kind(raw: str) -> str:
    """"dir", "file", "other" (exists, neither) or "missing" — also for a name no file can have
    (longer than the file system allows, a NUL in it), which the caller reports as unreadable."""
    from pathlib import Path

    try:
        p = Path(raw)
        return "dir" if p.is_dir() else "file" if p.is_file() else "other" if p.exists() else "missing"
    except (OSError, ValueError):
        return "missing"


def file_limits(max_file_bytes: int | None) -> ws.Limits:
    return ws.Limits() if max_file_bytes is None else ws.Limits(max_file_bytes=max_file_bytes)


@dataclass
class Loaded:
    """A workspace ready for the engine, or the reason it isn't (diagnostics and an exit code)."""

    workspace: ws.Workspace
    diagnostics: list[Diagnostic]
    exit_code: int  # EXIT_OK when the engine may run

    @property
    def sources(self) -> SourceMap:
        return self.workspace.sources


def load_for_engine(paths: list[str], *, max_file_bytes: int | None = None,
                    workspace: ws.Workspace | None = None, cluster: ws.Text | None = None) -> Loaded:
    """Load and validate `paths` and a live `cluster` read (`api.read_cluster`), or take `workspace`, read
    already (an editor's); the engine runs only on a model without errors (exit 2 otherwise: its input
    can't be read as a cluster state). An object Kueue's webhook refuses (KAD170), and any other error
    inside only such objects, is no such error: Kueue refuses it alone and decides the rest, so the
    engine does too (the object listed as skipped; `admit` exits 1 for it, as for any error it leaves aside)."""
    loaded = ws.load(list(paths), limits=file_limits(max_file_bytes), texts=[cluster] if cluster else []) \
        if workspace is None else workspace
    if workspace is None and not loaded.input_error and not loaded.diagnostics.has_errors \
            and not _holds_objects(loaded.model):
        _nothing_read(loaded)
    diagnostics = loaded.diagnostics.sorted()
    has_errors = bool(blocking(loaded.model, diagnostics))
    code = EXIT_INPUT if (loaded.input_error or has_errors) else EXIT_OK
    return Loaded(loaded, diagnostics, code)


def _holds_objects(model) -> bool:
    """Whether the inputs hold anything kadmit decides on (objects it only lists as skipped don't count)."""
    return any(getattr(model, name) for name in type(model).model_fields if name not in ("skipped", "unread_kinds", "broken", "span", "spans"))


def _nothing_read(loaded: ws.Workspace) -> None:
    """Inputs that hold no object are unusable (exit 2), said with what was not read and why, never a
    silent "0 of 0"."""
    from kadmit.diagnostics import KAD004

    unread = sum(1 for d in loaded.diagnostics.items if d.code == "KAD020")
    skipped = sum(1 + s.more for s in loaded.model.skipped)
    why = [f"{unread} not read, each listed with the reason (KAD020)"] if unread else []
    if skipped:  # for many a reason, not their kinds alone (a template's objects, a Job no queue names): the first's
        first = loaded.model.skipped[0]
        why.append(f"{skipped} object{'' if skipped == 1 else 's'} not decided, the first "
                   f"({first.object.kind} {first.object.key}): {first.reason}")
    loaded.diagnostics.emit(KAD004, "nothing to decide: the inputs hold no Kueue or Kubernetes object kadmit reads"
                            + "".join(f"; {w}" for w in why),
                            help="name the files or folders that hold the cluster's queues and workloads")
    loaded.input_error = True


def no_optimal(e: Exception) -> list[Diagnostic]:
    return [Diagnostics().emit(KAD008, f"optimal mode needs OR-tools: {e}", help="install the extra: pip install 'kadmit[optimal]'")]


def solver_limits(rlimit: int | None, timeout_ms: int | None):
    """Z3's limits per check: `--rlimit` and `--timeout` where given, the defaults elsewhere."""
    from kadmit.engine.solver.z3backend import Limits

    base = Limits()
    return Limits(rlimit=rlimit or base.rlimit, timeout_ms=timeout_ms or base.timeout_ms, seed=base.seed)


def one_question(verb):
    """Run an API verb in a Z3 context of its own (`z3backend.fresh_context`), so that asking it again
    in the same process (the language server, a script) answers as a new process does."""
    @functools.wraps(verb)
    def asked(*args, **kwargs):
        from kadmit.engine.solver.z3backend import fresh_context  # z3 only for the verbs that solve

        with fresh_context():
            return verb(*args, **kwargs)
    return asked
