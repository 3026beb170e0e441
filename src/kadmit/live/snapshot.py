"""A cluster snapshot's text: a header saying what was read from where and when, then one YAML
document per object kubectl listed (as JSON: written as YAML by `live.emit`, laid out as `kubectl get
-o yaml` lays it out, with the trees reading it gives); and reading the header back.

The header is YAML comments, so any YAML reader reads the objects alone. Its lines that say the
state is incomplete (`# not listed: …`, `# no Kueue: …`, `# no Kueue configuration: …`) are read
back by `replay` whenever kadmit reads a snapshot, from the cluster or from a file, so that every
answer on it says so, with the header line as the place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kadmit.diagnostics import Diagnostics
from kadmit.live.codes import KAD034, KAD036, KAD037
from kadmit.live.discover import Target
from kadmit.live.emit import Emitter
from kadmit.manifests.yamltree import Val
from kadmit.source import SNAPSHOT_MARKER, Span

MARKER = SNAPSHOT_MARKER
FORMAT = 1
NOT_LISTED = "not listed"
NO_KUEUE = "no Kueue"
NO_CONFIG = "no Kueue configuration"
_REPLAYED = {NOT_LISTED: KAD034, NO_KUEUE: KAD036, NO_CONFIG: KAD037}
_LINE = re.compile(r"# (not listed|no Kueue configuration|no Kueue): (.+)")
INCOMPLETE_HELP = ("every answer rests on the cluster's state without these objects: grant `list` on them, "
                   "or read the cluster with a context that may")
_HELP = {KAD034: INCOMPLETE_HELP,
         KAD036: "install Kueue, or read the cluster it runs in",
         KAD037: "give Kueue's Configuration as a file beside `--cluster` if it runs with another one"}


@dataclass
class Listed:
    """What listing one kind gave: its objects' documents, or why not (some namespaces or all)."""

    target: Target
    docs: list[dict] = field(default_factory=list)  # the objects, as kubectl's JSON has them
    failed: str | None = None  # why it was not listed at all
    cut: str | None = None  # why its read was stopped (too large, stalled, cut short): the whole read fails
    forbidden: bool = False  # failed for want of rights (403)
    missed: tuple[str, ...] = ()  # namespaces it could not be listed in (it was read in the others)
    missed_why: str = ""
    namespaces: int = 0  # of how many namespaces, when listed namespace by namespace
    left_out: int = 0  # objects listed and not kept (ConfigMaps other than Kueue's)

    @property
    def count(self) -> int:
        return len(self.docs)


@dataclass
class Origin:
    """Where and when: the kubeconfig context, its cluster and server, the versions that read it."""

    context: str
    cluster: str = ""
    user: str = ""
    server: str = ""
    server_version: str = ""
    kubectl_version: str = ""
    kadmit_version: str = ""
    read_at: str = ""
    seconds: float = 0.0
    through: str = "kubectl get"  # how the kinds were listed: `kubectl proxy` (live.proxy) or `kubectl get`


def compose(origin: Origin, listed: list[Listed], not_served: tuple[str, ...], notes: list[tuple[str, str]]) -> str:
    """The snapshot's text (`composed`'s without the trees)."""
    return composed(origin, listed, not_served, notes)[0]


def composed(origin: Origin, listed: list[Listed], not_served: tuple[str, ...],
             notes: list[tuple[str, str]]) -> tuple[str, list[Val]]:
    """The snapshot's text and its documents' trees, as `parse_documents` reads them from it. `notes`: (kind
    of line, text) for the header's replayed lines other than the kinds not listed (no Kueue, no
    configuration)."""
    versions = ", ".join(v for v in (f"kubectl {origin.kubectl_version}" if origin.kubectl_version else "",
                                     f"kadmit {origin.kadmit_version}" if origin.kadmit_version else "") if v)
    who = ", ".join(f"{k} {v}" for k, v in (("cluster", origin.cluster), ("user", origin.user)) if v)
    head = [f"{MARKER} {FORMAT}: every object of the kinds kadmit reads, as the API server gave it (JSON), in YAML",
            "# (read it with `kadmit admit|why|check|simulate FILE`; the `not listed` lines below are reported again)",
            f"# context: {origin.context}" + (f" ({who})" if who else ""),
            f"# server: {origin.server or 'unknown'}" + (f" (Kubernetes {origin.server_version})"
                                                          if origin.server_version else ""),
            f"# read at: {origin.read_at}, in {origin.seconds:.2f} s" + (f", by {versions}" if versions else ""),
            "# listed (" + ("one request per kind through `kubectl proxy`" if origin.through == "kubectl proxy" else
                            "one `kubectl get RESOURCE -o json` each") + ", every namespace at once):"]
    shown = [(t.target.shown + _where(t), t) for t in listed if t.failed is None]
    width = max((len(s) for s, _ in shown), default=0)
    for s, t in shown:
        extra = f" ({t.left_out} other ConfigMap{'s' if t.left_out != 1 else ''} left out: not Kueue's)" \
            if t.left_out else ""
        head.append(f"#   {s.ljust(width)}  {t.count}{extra}")
    if not_served:
        head.append(f"# not served (kadmit reads them; this server has no API for them): {', '.join(not_served)}")
    for t in listed:
        if t.failed is not None:
            head.append(f"# {NOT_LISTED}: {t.target.shown} {t.target.where()}: {_one_line(t.failed)}")
        elif t.missed:
            names = ", ".join(t.missed[:8]) + (f", … ({len(t.missed) - 8} more)" if len(t.missed) > 8 else "")
            head.append(f"# {NOT_LISTED}: {t.target.shown} in namespace{'s' if len(t.missed) != 1 else ''} "
                        f"{names}: {_one_line(t.missed_why)}")
    head.extend(f"# {kind}: {_one_line(text)}" for kind, text in notes)
    out = Emitter(len(head) + 1)  # the documents' lines, after the header and its `---`
    lines = out.lines
    trees = []
    for t in listed:
        for i, obj in enumerate(t.docs):
            if trees:
                lines.append("---")
            if i == 0:
                lines.append(f"# {t.target.shown}{_where(t)}: {t.count} object{'s' if t.count != 1 else ''}")
            trees.append(out.document(obj))
    if not lines:
        return "\n".join(head) + "\n", trees
    return "\n".join(head) + "\n---\n" + "\n".join(lines) + "\n", trees


def _where(t: Listed) -> str:
    if t.target.namespace:
        return f" in namespace {t.target.namespace}"
    if t.namespaces:
        return f" in {t.namespaces - len(t.missed)} of {t.namespaces} namespaces"
    return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def is_snapshot(text: str) -> bool:
    return text.startswith(MARKER)


def replay(text: str, name: str, diags: Diagnostics) -> list[str]:
    """The header's lines that say the state is incomplete, as warnings placed at them; returns what
    was not listed, one line each (what an answer on this state rests without)."""
    incomplete = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.startswith("#"):
            break
        m = _LINE.fullmatch(line.rstrip("\r"))
        if m is None:
            continue
        code = _REPLAYED[m.group(1)]
        at = Span(name, number, 3, number, len(line.rstrip("\r")) + 1)
        message = f"{m.group(1)}: {m.group(2)}" if code == KAD034 else m.group(2)
        diags.emit(code, message, at, help=_HELP[code])
        if code == KAD034:
            incomplete.append(m.group(2))
    return incomplete
