"""Reading inputs: paths -> files -> front ends -> one merged model, plus every diagnostic on the way."""

from __future__ import annotations

import errno
import functools
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, Sequence

from kadmit import budget
from kadmit.budget import DEFAULT_MAX_FILE_BYTES, INPUT_FILES, MAX_FILES, Limits  # noqa: F401 (re-exported)
from kadmit.collector import long_lived, paused_gc  # noqa: F401 (long_lived re-exported)
from kadmit.diagnostics import KAD001, KAD002, KAD003, KAD004, Diagnostics
from kadmit.model import Fragment, Model, merge
from kadmit.scope import number_repeats
from kadmit.source import KAD_SUFFIXES, SNAPSHOT_MARKER, STDIN_NAME, SourceMap, Span, is_manifest_text  # noqa: F401 (re-exported)

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
HELM_CHART = "Chart.yaml"  # a folder holding it is a Helm chart: templates, not manifests
TEST_SUFFIXES = (".kadtest.yaml", ".kadtest.yml")  # policy tests (`kadmit test`), not policy or state
STDIN = "-"


@dataclass
class Workspace:
    """The model read from a set of paths, the texts read, and what was found on the way."""

    model: Model
    sources: SourceMap
    diagnostics: Diagnostics
    files: list[str] = field(default_factory=list)
    input_error: bool = False  # some path could not be read at all (exit code 2)
    parts: list[tuple[str, Fragment]] = field(default_factory=list)  # each file's objects, in merge order
    documents: dict = field(default_factory=dict)  # manifest file -> manifests.documents.Indexed (re-read by document)
    incomplete: list[str] = field(default_factory=list)  # what a cluster snapshot read could not list (KAD034)
    jobs_applied: tuple | None = None  # what turning jobs into workloads read and made (`manage.apply_jobs_kept`)
    resources_applied: object | None = None  # what adjusting their requests read and made (`resources.Adjusted`)


class Text(Protocol):
    """An input that is no file (a live cluster read: `kadmit.live.read.Snapshot`): manifests text named
    for spans, or None when nothing usable was read, and the diagnostics of reading it."""

    name: str
    text: str | None
    diagnostics: list


def display_name(path: Path) -> str:
    """How a file is named in diagnostics: relative to the working directory when below it."""
    try:
        rel = path.resolve().relative_to(_resolved_directory(os.getcwd()))
        return rel.as_posix()
    except ValueError:
        return path.as_posix()


@functools.lru_cache(maxsize=8)
def _resolved_directory(directory: str) -> Path:
    """The working directory (`os.getcwd()`, what `Path.cwd()` holds) resolved once per directory, not on each
    name asked for (about 20 per file read: half of display_name's cost). Its answer can't go stale: getcwd gives
    a path without symbolic links, so `Path.resolve` gives the same path for it as long as it is the answer."""
    return Path(directory).resolve()


class Reader:
    """Reads files once each, bounded in size, recording texts and I/O diagnostics."""

    def __init__(self, sources: SourceMap, diags: Diagnostics, limits: Limits,
                 overlay: dict[Path, str] | None = None) -> None:
        self.sources = sources
        self.diags = diags
        self.limits = limits
        self.failed = False
        self.overlay = overlay or {}  # resolved path -> text that stands for the file's (an editor's buffer)

    def read(self, path: Path, at: Span | None = None) -> str | None:
        name = display_name(path)
        if name in self.sources:
            return self.sources.text(name)
        if self.overlay and (text := self.overlay.get(path.resolve())) is not None:
            data = text.encode("utf-8", "surrogatepass")  # read as the file's bytes would be
            if len(data) > self.limits.max_file_bytes:
                return self._too_large(name, len(data), at)
            return self.decode(name, data, at) if self._within(name, len(data)) else None
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise IsADirectoryError(errno.EISDIR, "a folder, where a file is expected") if path.is_dir() \
                    else OSError(errno.EINVAL, "not a regular file")
            if size > self.limits.max_file_bytes:
                return self._too_large(name, size, at)
            if not self._within(name, size):
                return None
            data = path.read_bytes()
        except FileNotFoundError:
            self.diags.emit(KAD001, f"no such file or folder: `{name}`", at)  # as `collect` says it
            self.failed = True
            return None
        except OSError as e:
            self.diags.emit(KAD001, f"can't read `{name}`: {e.strerror or e}", at)
            self.failed = True
            return None
        return self.decode(name, data, at)

    def _within(self, name: str, size: int) -> bool:
        """Whether the file's bytes fit the inputs' bound together (the load's budget, when counting)."""
        b = budget.current()
        if b is None or b.take_bytes(size, name):
            return True
        self.failed = True
        return False

    def _too_large(self, name: str, size: int, at: Span | None) -> None:
        self.diags.emit(KAD003, f"`{name}` is {size:,} bytes; kadmit reads files up to "
                        f"{self.limits.max_file_bytes:,} bytes", at or Span(file=name, line=1, column=1),
                        help="split the file, or raise the limit with --max-file-size")
        self.failed = True
        return None

    def read_stdin(self) -> str | None:
        """Standard input, once, bounded like a file and named `<stdin>`."""
        if STDIN_NAME in self.sources:
            return self.sources.text(STDIN_NAME)
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read(self.limits.max_file_bytes + 1) if stream is not None else \
            (sys.stdin.read(self.limits.max_file_bytes + 1) or "").encode()
        if len(data) > self.limits.max_file_bytes:
            self.diags.emit(KAD003, f"standard input holds more than {self.limits.max_file_bytes:,} bytes",
                            help="raise the limit with --max-file-size")
            self.failed = True
            return None
        if not self._within(STDIN_NAME, len(data)):
            return None
        return self.decode(STDIN_NAME, data, None)

    def decode(self, name: str, data: bytes, at: Span | None) -> str | None:
        if b"\x00" in data[:8192]:
            self.diags.emit(KAD002, f"`{name}` is a binary file, not policy text",
                            at or Span(file=name, line=1, column=1))
            self.failed = True
            return None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
            self.diags.emit(KAD002, f"`{name}` is not valid UTF-8 (byte 0x{data[e.start]:02x})",
                            Span(file=name, line=line, column=col),
                            help="kadmit reads policy and manifests as UTF-8 text")
            self.failed = True
            return None
        self.sources.add(name, text)
        return text


def _wanted(name: str) -> bool:
    return name.endswith(KAD_SUFFIXES + MANIFEST_SUFFIXES) and not name.startswith(".") and not name.endswith(TEST_SUFFIXES)


def _count(folder: Path) -> int:
    return sum(1 for _, _, names in os.walk(folder) for n in names if not n.startswith("."))


def _chart_of(path: Path) -> Path | None:
    """The Helm chart (a folder holding `Chart.yaml`) `path` is in or is, if any."""
    here = path.absolute()
    for folder in ([here] if here.is_dir() else []) + list(here.parents):
        if (folder / HELM_CHART).is_file():
            return folder
    return None


def _chart_note(chart: Path, files: int, diags: Diagnostics) -> None:
    """A Helm chart is templates rendered with values, not manifests: listed once, not read."""
    from kadmit.manifests.codes import KAD020

    shown = display_name(chart)
    diags.emit(KAD020, f"not read: Helm chart `{shown}` ({files} file{'' if files == 1 else 's'}: templates "
               "and the values they are rendered with)", Span(file=display_name(chart / "Chart.yaml"), line=1, column=1),
               help=f"kadmit reads the manifests the chart renders to: `helm template {shown} | kadmit check -`")


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except (OSError, ValueError):  # a name longer than the file system allows, a NUL in it
        return False


def collect_files(paths: list[str], diags: Diagnostics, limits: Limits) -> tuple[list[Path], bool]:
    """Expand folders recursively into policy and manifest files, sorted; report missing paths.
    Files of Helm charts (folders holding `Chart.yaml`) are left out (`collect` lists them)."""
    files, failed, _ = collect(paths, diags, limits)
    return files, failed


def collect(paths: list[str], diags: Diagnostics, limits: Limits) -> tuple[list[Path], bool, dict[Path, int]]:
    """`collect_files`, and the Helm charts met on the way: chart folder -> its files named or walked."""
    out: list[Path] = []
    failed = False
    charts: dict[Path, int] = {}
    for raw in paths:
        if raw == STDIN:
            out.append(Path(STDIN))
            continue
        p = Path(raw)
        try:
            is_dir, exists = p.is_dir(), p.exists()
        except (OSError, ValueError) as e:  # a name longer than the file system allows, a NUL in it
            diags.emit(KAD001, f"can't read `{raw[:200]}`: " + (getattr(e, "strerror", None) or "not a path"))
            failed = True
            continue
        chart = _chart_of(p) if exists else None
        if chart is not None:
            charts[chart] = charts.get(chart, 0) + (1 if p.is_file() else _count(p))
        elif is_dir:
            found = []
            for dirpath, dirnames, filenames in os.walk(p):
                if dirpath != str(p) and HELM_CHART in filenames:
                    charts[Path(dirpath).absolute()] = _count(Path(dirpath))
                    dirnames[:] = []
                    continue
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for f in sorted(filenames):
                    if _wanted(f):
                        found.append(Path(dirpath) / f)
            out.extend(sorted(found))
        elif exists:
            out.append(p)
        else:
            diags.emit(KAD001, f"no such file or folder: `{raw[:200]}`")
            failed = True
    unique: dict[Path | str, Path] = {}
    for p in out:
        unique.setdefault(STDIN if p == Path(STDIN) else p.resolve(), p)
    files = list(unique.values())
    if len(files) > limits.max_files:
        diags.emit(KAD003, f"{len(files):,} input files; kadmit reads at most {limits.max_files:,}")
        return [], True, charts
    return files, failed, charts


def load(paths: list[str], *, limits: Limits | None = None, validate: bool = True,
         root: Path | None = None, overlay: dict[Path, str] | None = None,
         cache: "ReadCache | None" = None, texts: Sequence[Text] = ()) -> Workspace:
    """Read `paths` (files or folders) and `texts` (manifests read from elsewhere: a live cluster) into
    one validated model.

    `.kad` files go to the language front end, `.yaml`/`.yml`/`.json` to the manifest front end.
    Imports in `.kad` files may not leave `root` (default: the common folder of the inputs).
    An editor's workspace passes `overlay` (resolved path -> text read instead of the file's, a file
    below a folder of `paths` that isn't saved yet included) and a `cache` of the readings of the
    last load, so that only files whose text changed are read again.
    """
    from kadmit.manifests.jobs.manage import apply_jobs_kept
    from kadmit.manifests.managergates import with_manager_gates
    from kadmit.manifests.resources import apply_resources_kept, limit_ranger, limit_ranger_templates
    from kadmit.validate import validate as run_validation

    limits = limits or Limits()
    sources = SourceMap()
    diags = Diagnostics()
    files, failed, charts = collect(paths, diags, limits)
    for chart in sorted(charts):
        _chart_note(chart, charts[chart], diags)
    if overlay:
        files += _unsaved(paths, files, overlay)
    reader = Reader(sources, diags, limits, overlay)
    for t in texts:
        diags.extend(t.diagnostics)
        failed = failed or t.text is None
    if not files and not failed and not charts and not texts:
        diags.emit(KAD004, "no `.kad`, `.yaml`, `.yml` or `.json` files in "
                   + ", ".join(f"`{p}`" for p in paths))
        failed = True
    if root is None:
        roots = [p.resolve() if p.is_dir() else p.resolve().parent for p in map(Path, paths)
                 if p != Path(STDIN) and _exists(p)]
        root = Path(os.path.commonpath(roots)) if roots else Path.cwd()

    documents: dict = {}
    incomplete: list[str] = []
    with paused_gc():
        with budget.counting(limits.budget()) as counted:
            parts = _read_all(files, root, reader, diags, documents, incomplete, cache)
            parts.extend(_read_texts(texts, reader, diags, documents, incomplete))
        if counted.exceeded:  # what was read is not the input: validating it would report references into the rest
            counted.report(diags)
            failed = True
            validate = False
        merged = with_manager_gates(merge(number_repeats([frag for _, frag in parts])), diags)
        applied, jobs_applied = apply_jobs_kept(limit_ranger(merged, diags), diags)
        model, resources_applied = apply_resources_kept(applied)
        limit_ranger_templates(model, diags)
        if validate:
            run_validation(model, diags)
    names = [display_name(f) for f in files if f != Path(STDIN)] + ([STDIN_NAME] if Path(STDIN) in files else [])
    names += [t.name for t in texts if t.name in sources]
    return Workspace(model=model, sources=sources, diagnostics=diags, files=names,
                     input_error=failed or reader.failed, parts=parts, documents=documents, incomplete=incomplete,
                     jobs_applied=jobs_applied, resources_applied=resources_applied)


def _read_all(files: list[Path], root: Path, reader: "Reader", diags: Diagnostics,
              documents: dict, incomplete: list[str], cache: "ReadCache | None" = None) -> list[tuple[str, Fragment]]:
    """Each file's objects with its name, in merge order (standard input's named `<stdin>`); each
    manifest file's index by document into `documents`; what a cluster snapshot among them says it
    could not list into `incomplete`."""
    parts: list[tuple[str, Fragment]] = []
    stdin = Path(STDIN) in files
    files = [f for f in files if f != Path(STDIN)]
    kad_files = [f for f in files if f.suffix in KAD_SUFFIXES]
    other = [f for f in files if f.suffix not in KAD_SUFFIXES]
    if kad_files:
        from kadmit import syntax  # the language front end (and Lark) only for `.kad` inputs
        from kadmit.syntax.lower import lower_text

        parts.extend(syntax.read_kad_named(kad_files, root, reader.read, display_name, diags,
                                           _counted(cache.lower if cache is not None else lower_text)))
    for f in other:
        text = reader.read(f)
        if text is None:
            continue
        if _templated(text, display_name(f), diags):
            from kadmit.manifests.notread import template_objects  # its objects: listed, not read

            parts.append((display_name(f), Fragment(skipped=template_objects(text, display_name(f)))))
            continue
        _snapshot_header(text, display_name(f), diags, incomplete)
        if cache is not None:
            read = cache.manifest
        else:
            from kadmit.manifests.documents import read_indexed  # the manifest reader (and PyYAML): for manifests
            read = read_indexed
        said = len(diags.items)
        frag, documents[display_name(f)] = read(text, display_name(f), diags)
        parts.append((display_name(f), frag))
        if len(diags.items) == said and not any(getattr(frag, name) for name in type(frag).model_fields if name != "spans"):
            _empty_note(display_name(f), f.suffix, diags)
    if stdin:
        text = reader.read_stdin()
        if text is not None:
            _snapshot_header(text, STDIN_NAME, diags, incomplete)
            parts.extend(read_stdin_text(text, diags, reader, root))
    return parts


def _counted(lower):
    """`lower`, with each `.kad` file's objects and Workloads counted against the load's budget (the
    file's fragment left out, empty, when they pass it)."""
    def counted(text: str, name: str, diags: Diagnostics):
        from kadmit.syntax.lower import Lowered

        got = lower(text, name, diags)
        b = budget.current()
        if b is not None and not b.take_file(name, objects_in(got.fragment), len(got.fragment.workloads)):
            return Lowered(Fragment(), got.imports)
        return got
    return counted


def objects_in(fragment: Fragment) -> int:
    """The objects a fragment holds (what is only listed as not read or broken is none, nor a creation time)."""
    return sum(len(getattr(fragment, name)) for name in type(fragment).model_fields
               if name not in ("skipped", "unread_kinds", "broken", "creation_times"))


def _read_texts(texts: Sequence[Text], reader: Reader, diags: Diagnostics, documents: dict,
                incomplete: list[str]) -> list[tuple[str, Fragment]]:
    """The manifests of inputs that are no files, each indexed by document like a manifest file."""
    parts: list[tuple[str, Fragment]] = []
    if not texts:
        return parts
    from kadmit.manifests.documents import read_indexed

    for t in texts:
        if t.text is None:
            continue
        size = len(t.text.encode("utf-8"))
        if size > reader.limits.max_file_bytes:
            diags.emit(KAD003, f"`{t.name}` is {size:,} bytes; kadmit reads inputs up to "
                       f"{reader.limits.max_file_bytes:,} bytes", help="raise the limit with --max-file-size")
            reader.failed = True
            continue
        if not reader._within(t.name, size):
            continue
        reader.sources.add(t.name, t.text)
        _snapshot_header(t.text, t.name, diags, incomplete)
        trees = getattr(t, "trees", None)  # a cluster read's documents, made with its text (`live.emit`)
        if trees is not None:
            t.trees = None  # taken once (the model keeps its nodes): another load of the same read parses the text
        frag, documents[t.name] = read_indexed(t.text, t.name, diags, trees)
        parts.append((t.name, frag))
    return parts


def _snapshot_header(text: str, name: str, diags: Diagnostics, incomplete: list[str]) -> None:
    """A cluster snapshot's header says what could not be read: reported again wherever it is read."""
    if not text.startswith(SNAPSHOT_MARKER):  # (`live.snapshot.is_snapshot`; that module is loaded for a snapshot only)
        return
    from kadmit.live.snapshot import replay

    incomplete.extend(replay(text, name, diags))


def _empty_note(name: str, suffix: str, diags: Diagnostics) -> None:
    """A manifest file without one document is listed as not read, so that nothing passes unsaid."""
    from kadmit.manifests import NOT_READ_HELP
    from kadmit.manifests.codes import KAD020

    what = "" if suffix in MANIFEST_SUFFIXES else f" (a `{suffix}` file named on the command line is read as YAML)" \
        if suffix else " (a file named on the command line is read as YAML)"
    diags.emit(KAD020, f"not read: `{name}` holds no object: it is empty, or only comments{what}",
               Span(file=name, line=1, column=1), help=NOT_READ_HELP)


def _templated(text: str, name: str, diags: Diagnostics) -> bool:
    """Whether a manifest file is a Go template (`{{ … }}`: Helm, gomplate) or a Jinja one (`{% … %}`: Ansible's,
    cloud-init's): not read, listed (KAD020)."""
    from kadmit.manifests.codes import KAD020
    from kadmit.manifests.notread import template_line

    at = template_line(text)
    if at is None:
        return False
    line = text.split("\n", at[0])[at[0] - 1]
    jinja = line.startswith(("{%", "{#"), at[1] - 1)
    diags.emit(KAD020, "not read: a Jinja template (`{% … %}`), not a manifest" if jinja else
               "not read: a Go template (`{{ … }}`), not a manifest", Span(name, at[0], at[1], at[0], at[1] + 2),
               help="kadmit reads the manifests a template renders to (`helm template …`, `gomplate …`"
                    + (", `ansible-playbook …`)" if jinja else ")"))
    return True


def _unsaved(paths: list[str], files: list[Path], overlay: dict[Path, str]) -> list[Path]:
    """Files of `overlay` below a folder of `paths` that the walk didn't find (not saved yet), as
    the walk would have taken them, sorted."""
    folders = [Path(p).resolve() for p in paths if p != STDIN and Path(p).is_dir()]
    found = {f.resolve() for f in files}
    return sorted(p for p in overlay if p not in found and p.name.endswith(KAD_SUFFIXES + MANIFEST_SUFFIXES)
                  and not p.name.endswith(TEST_SUFFIXES) and any(p.is_relative_to(d) for d in folders)
                  and not any(part.startswith(".") for d in folders if p.is_relative_to(d)
                              for part in p.relative_to(d).parts))


class ReadCache:
    """Each file's reading kept by its text between loads of the same paths (an editor's open
    workspace): a file whose text hasn't changed is not read again. Its objects are the very objects
    read before (so `validate.incremental` finds them unchanged by identity) and its diagnostics are
    reported again, as reading it again would."""

    def __init__(self) -> None:
        self._kad: dict[str, tuple[str, object, list]] = {}
        self._manifests: dict[str, tuple[str, tuple, list, int, int]] = {}  # ... objects, Workloads
        self.read: set[str] = set()  # the files read (not found here) since `reads` was last cleared

    def lower(self, text: str, name: str, diags: Diagnostics):
        """`syntax.lower.lower_text`, remembered."""
        from kadmit.syntax.lower import lower_text

        got = self._kad.get(name)
        if got is None or got[0] != text:
            mine = Diagnostics()
            got = self._kad[name] = (text, lower_text(text, name, mine), mine.items)
            self.read.add(name)
        diags.extend(got[2])
        return got[1]

    def manifest(self, text: str, name: str, diags: Diagnostics):
        """`manifests.documents.read_indexed`, remembered."""
        from kadmit.manifests.documents import read_indexed

        got = self._manifests.get(name)
        b = budget.current()
        if got is None or got[0] != text:
            mine = Diagnostics()
            before = (b.objects, b.workloads) if b is not None else (0, 0)
            read = read_indexed(text, name, mine)
            got = (text, read, mine.items, *((b.objects - before[0], b.workloads - before[1]) if b else (0, 0)))
            if b is None or not b.exceeded:  # (a file cut short by the budget is read again next time)
                self._manifests[name] = got
            self.read.add(name)
        elif b is not None and not b.take_file(name, got[3], got[4]):  # counted as when it was read
            return Fragment(), None
        diags.extend(got[2])
        return got[1]

    def keep(self, names: set[str]) -> None:
        """Forget the files not among `names` (deleted, or no longer read)."""
        for table in (self._kad, self._manifests):
            for name in [n for n in table if n not in names]:
                del table[name]


def read_stdin_text(text: str, diags: Diagnostics, reader: Reader, root: Path) -> list[tuple[str, Fragment]]:
    """Standard input as manifests (YAML or JSON) or as `.kad` policy, told apart by its text, each
    fragment with its file's name (`<stdin>`, or an imported file's). `.kad` imports from standard
    input are resolved from the working directory."""
    from kadmit import manifests, syntax

    if is_manifest_text(text):
        return [(STDIN_NAME, manifests.read_manifest_text(text, STDIN_NAME, diags))]
    virtual = Path.cwd() / STDIN_NAME

    def read(path: Path, at: Span | None = None) -> str | None:
        return text if path == virtual else reader.read(path, at)

    def name(path: Path) -> str:
        return STDIN_NAME if path == virtual else display_name(path)

    return syntax.read_kad_named([virtual], Path(os.path.commonpath([root, Path.cwd()])), read, name, diags)


def is_kad_text(name: str, text: str) -> bool:
    """Whether file `name` (standard input: told by its text) is `.kad` policy."""
    return not is_manifest_text(text) if name == STDIN_NAME else name.endswith(KAD_SUFFIXES)


def policy_folder(folder: Path, top: Path) -> Path:
    """The folder whose policy and state a test file in `folder` runs against: the nearest one, up to
    `top`, that holds policy or manifest files itself."""
    here = folder
    while True:
        if any(f.is_file() and f.name.endswith(KAD_SUFFIXES + MANIFEST_SUFFIXES)
               and not f.name.endswith(TEST_SUFFIXES) for f in here.iterdir()):
            return here
        if here.resolve() == top.resolve() or here.parent == here:
            return folder
        here = here.parent
