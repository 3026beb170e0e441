"""`kadmit lsp`: the language server for `.kad` policy (and the manifests beside it) over standard
input and output. A front end over `kadmit.editor` as the CLI is over `kadmit.api`: it converts
positions and messages of the protocol and holds no logic of its own. pygls is imported only here,
and only when the server starts."""

from __future__ import annotations

import sys


def main() -> int:
    """Serve one editor on standard input and output until it exits; 2 when pygls is missing."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        from kadmit.diagnostics import Diagnostics
        from kadmit.lsp.codes import KAD950
        from kadmit.render.human import render_human
        from kadmit.source import SourceMap

        diags = Diagnostics()
        diags.emit(KAD950, "`kadmit lsp` needs pygls, which is not installed",
                   help="install the extra: pip install 'kadmit[lsp]'")
        sys.stderr.write(render_human(diags.sorted(), SourceMap(), files_checked=None, color=False))
        return 2
    from kadmit.lsp.server import serve

    serve()
    return 0
