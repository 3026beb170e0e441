"""A field of a later release than the one the server runs: the real API server and kadmit both
refuse it, at the same key."""

from __future__ import annotations

import textwrap

from kube.server import KubeAPIServer

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text


def refused_by_server_and_kadmit(server: KubeAPIServer, manifest: str, field: str, line: int) -> str:
    """Assert `kubectl apply --dry-run=server` refuses `manifest` for the unknown `field` and kadmit
    reports KAD180 for it on `line` alone; then that the server takes the manifest without its last
    line (the field), which is returned."""
    proc = server.run("apply", "--dry-run=server", "-f", "-", input=manifest, check=False)
    assert proc.returncode != 0 and f'unknown field "{field}"' in proc.stderr, proc.stderr
    diags = Diagnostics()
    read_manifest_text(textwrap.dedent(manifest), "m.yaml", diags)
    unknown = [d for d in diags.sorted() if d.code == "KAD180"]
    assert [(d.span.line, field in d.message) for d in unknown] == [(line, True)], [d.message for d in diags.sorted()]
    without = manifest.rsplit("\n", 2)[0] + "\n"
    server.run("apply", "--dry-run=server", "-f", "-", input=without)
    return without
