"""The Python API of a live cluster: `read_cluster` (the input `--cluster` adds to every verb) and
`snapshot` (`kadmit snapshot`: the same read, written to a file to replay or attach to a ticket)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kadmit import workspace as ws
from kadmit.api.common import EXIT_INPUT, exit_code
from kadmit.atomic import write_text_atomic
from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit.render.codes import KAD006
from kadmit.source import SourceMap

STDOUT = "-"
LIVE_CODES = range(30, 50)  # KAD030-KAD049: reading a cluster (kadmit.live.codes)


def cluster_warnings(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of reading a cluster (what an answer that prints no other load diagnostics,
    `why`, still shows: what could not be listed, no Kueue, no configuration)."""
    return [d for d in diagnostics if d.code.startswith("KAD0") and int(d.code[3:]) in LIVE_CODES]


def cluster_unread(diagnostics: list[Diagnostic]) -> bool:
    """Whether the live cluster could not be read at all (an error of reading it)."""
    return any(d.severity.value == "error" for d in cluster_warnings(diagnostics))


def check_lists_errors(diagnostics: list[Diagnostic]) -> bool:
    """Whether the errors that refused an engine verb's input are ones `kadmit check` lists: not only the
    live cluster unread, and not only KAD004 (inputs holding nothing to decide, which check passes)."""
    return not cluster_unread(diagnostics) and any(d.severity.value == "error" and d.code != "KAD004"
                                                   for d in diagnostics)


def read_cluster(context: str | None = None, kubeconfig: str | None = None, *, max_file_bytes: int | None = None):
    """Every kind kadmit reads, from the kubeconfig's context through kubectl (`kadmit.live.read.Snapshot`:
    give it to a verb as `cluster=`; when nothing usable was read its text is None and its diagnostics
    say why, and the verb exits 2). Each kind's listing is held to `max_file_bytes` as a file is."""
    from kadmit.live.read import read

    return read(context, kubeconfig, max_bytes=max_file_bytes or ws.DEFAULT_MAX_FILE_BYTES)


@dataclass
class SnapshotOutcome:
    """What `snapshot` did: the file written (None if nothing was), the text, the read's diagnostics
    (its header's warnings placed in the written file), and the exit code."""

    written: str | None
    text: str | None
    diagnostics: list[Diagnostic]
    sources: SourceMap
    exit_code: int
    objects: int = 0
    seconds: float = 0.0
    context: str = ""


def snapshot(output: str, *, context: str | None = None, kubeconfig: str | None = None,
             cluster=None, max_file_bytes: int | None = None) -> SnapshotOutcome:
    """Read the cluster (or take `cluster`, a read already made) and write its snapshot to `output`
    atomically (`-`: not written, the text is returned for standard output). Exit code: 0 written
    (warnings about kinds not listed allowed), 2 nothing usable read or `output` not writable."""
    from kadmit.live.snapshot import replay

    snap = cluster if cluster is not None else read_cluster(context, kubeconfig, max_file_bytes=max_file_bytes)
    sources = SourceMap()
    if snap.text is None:
        return SnapshotOutcome(None, None, list(snap.diagnostics), sources, EXIT_INPUT)
    name = snap.name if output == STDOUT else ws.display_name(Path(output))
    sources.add(name, snap.text)
    diags = Diagnostics(list(snap.diagnostics))
    replay(snap.text, name, diags)
    origin = snap.origin
    done = SnapshotOutcome(None if output == STDOUT else output, snap.text, [], sources, 0, snap.objects,
                           origin.seconds if origin else 0.0, origin.context if origin else "")
    if output != STDOUT:
        try:
            write_text_atomic(output, snap.text)
        except OSError as e:
            diags.emit(KAD006, f"can't write `{output}`: {e.strerror or e}", help="nothing was written")
            done.written = None
    done.diagnostics = diags.sorted()
    done.exit_code = EXIT_INPUT if done.written is None and output != STDOUT else exit_code(done.diagnostics,
                                                                                              input_error=False)
    return done
