"""`export` and `import`: read the inputs, convert (`kadmit.export`), write the output folder atomically;
diagnostics and exit codes as every verb."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kadmit.api import common as api
from kadmit.atomic import write_text_atomic
from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit.source import SourceMap


@dataclass
class WriteOutcome:
    """What a converting verb wrote (paths), its diagnostics, the texts read, its exit code."""

    written: list[str]
    diagnostics: list[Diagnostic]
    sources: SourceMap
    exit_code: int
    files: dict[str, str] = field(default_factory=dict)  # file name -> text, written or not


def _prepare(output: str | None, diags: Diagnostics) -> Path | None:
    from kadmit.export.codes import KAD904

    if output is None:  # asked after the inputs, so that an unreadable input is said first (KAD001)
        diags.emit(KAD904, "no output folder given", help="name the folder to write with `--output FOLDER` (`-o`)")
        return None
    out = Path(output)
    if out.exists() and not out.is_dir():
        diags.emit(KAD904, f"`{output}` is not a folder", help="name a folder for the exported files")
        return None
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        diags.emit(KAD904, f"can't create `{output}`: {e.strerror or e}")
        return None
    return out


def _write(out: Path, files: dict[str, str], stale: list[Path], diags: Diagnostics) -> list[str]:
    from kadmit.render.codes import KAD006

    written = []
    for name, text in files.items():
        try:
            (out / name).parent.mkdir(exist_ok=True)
            write_text_atomic(out / name, text)
        except OSError as e:
            diags.emit(KAD006, f"can't write `{out / name}`: {e.strerror or e}")
            continue
        written.append(str(out / name))
    for path in stale:
        try:
            path.unlink()
        except OSError as e:
            diags.emit(KAD006, f"can't remove `{path}`, left from an earlier export: {e.strerror or e}")
    return written


def export(paths: list[str], output: str | None, *, format: Literal["yaml", "json"] = "yaml", workloads: bool = False,
           nodes: bool = False, allow_unenforced: bool = False, max_file_bytes: int | None = None) -> WriteOutcome:
    """Write the model under `paths` as Kubernetes/Kueue manifests into `output`, one file per kind.
    Exit code: 0 written, 1 rules the cluster would not enforce (nothing written unless
    `allow_unenforced`), 2 unusable input or output folder."""
    from kadmit.export import FILES, export_model, file_name
    from kadmit.render.manifests import json_text, yaml_text

    loaded = api.load_for_engine(paths, max_file_bytes=max_file_bytes)
    diags = Diagnostics(list(loaded.diagnostics))
    if loaded.exit_code != api.EXIT_OK:
        return WriteOutcome([], diags.sorted(), loaded.sources, loaded.exit_code)
    result = export_model(loaded.workspace.model, workloads=workloads, nodes=nodes,
                          allow_unenforced=allow_unenforced)
    diags.extend(result.diagnostics)
    sources = [str(p) for p in paths]
    ext = "yaml" if format == "yaml" else "json"
    render = yaml_text if format == "yaml" else json_text
    files = {file_name(stem, ext): render([(d.obj, d.span, d.what) for d in result.files[stem]], sources)
             for stem in FILES if result.files.get(stem)}
    if diags.has_errors:
        return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_FINDINGS, files)
    out = _prepare(output, diags)
    if out is None:
        return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_INPUT, files)
    stale = [p for stem in FILES for e in ("yaml", "json") if file_name(stem, e) not in files
             and (p := out / file_name(stem, e)).is_file() and _ours(p)]
    written = _write(out, files, stale, diags)
    code = api.EXIT_INPUT if len(written) < len(files) else api.EXIT_OK
    return WriteOutcome(written, diags.sorted(), loaded.sources, code, files)


def _ours(path: Path) -> bool:
    """A file an earlier `kadmit export` wrote (its header, or its objects' source annotations)."""
    try:
        head = path.read_text(encoding="utf-8")[:4096]
    except (OSError, UnicodeDecodeError):
        return False
    return head.startswith("# Written by `kadmit export`") or '"kadmit.dev/source"' in head


def import_(paths: list[str], output: str | None, *, workloads: bool = False,
            max_file_bytes: int | None = None) -> WriteOutcome:
    """Write the Kueue manifests under `paths` as `.kad` files in `output`, one per concern, formatted.
    Exit code: 0 written, 2 input with errors, an unusable output folder, or a `.kad` file of the
    input in the way."""
    from kadmit.export.codes import KAD921, KAD922
    from kadmit.export.kad import CONCERNS, header, import_model
    from kadmit.syntax import format_text

    loaded = api.load_for_engine(paths, max_file_bytes=max_file_bytes)
    diags = Diagnostics(list(loaded.diagnostics))
    if loaded.exit_code != api.EXIT_OK:
        if not loaded.workspace.input_error:
            diags.emit(KAD921, "the input has errors: nothing imported", help="`kadmit check` lists them")
        return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_INPUT)
    result = import_model(loaded.workspace.model, workloads=workloads)
    diags.extend(result.diagnostics)
    files: dict[str, str] = {}
    for concern in CONCERNS:
        stmts = result.files.get(concern)
        if not stmts:
            continue
        name = f"{concern}.kad"
        formatted, found = format_text(header([str(p) for p in paths]) + "\n\n".join(stmts) + "\n", name)
        if formatted is None:  # a bug: what kadmit wrote doesn't parse
            diags.extend(found)
            return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_INTERNAL)
        files[name] = formatted
    if not files:  # said, not silent: the user gets no file and would otherwise get no word
        diags.emit(KAD922, "nothing to import: the input holds nothing a `.kad` file says; no file written",
                   help="`kadmit admit` lists the objects it does not decide, and why")
        return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_OK)
    out = _prepare(output, diags)
    if out is None:
        return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_INPUT, files)
    folder = out.resolve()
    clash = sorted(f for f in loaded.workspace.files if folder in Path(f).resolve().parents)
    if clash:  # the import would sit beside (or over) what it was read from, and be read with it
        diags.emit(KAD921, f"`{output}` holds `{clash[0]}`, a file of the input: nothing written",
                   help="import into a folder of its own")
        return WriteOutcome([], diags.sorted(), loaded.sources, api.EXIT_INPUT, files)
    stale = [p for c in CONCERNS if f"{c}.kad" not in files and (p := out / f"{c}.kad").is_file()
             and p.read_text(encoding="utf-8", errors="replace").startswith("# Imported by `kadmit import`")]
    written = _write(out, files, stale, diags)
    code = api.EXIT_INPUT if len(written) < len(files) else api.EXIT_OK
    return WriteOutcome(written, diags.sorted(), loaded.sources, code, files)
