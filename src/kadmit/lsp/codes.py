"""Diagnostic codes of the language server (`kadmit lsp`, KAD950–KAD959)."""

from kadmit.diagnostics import register

KAD950 = register("KAD950", "language server unavailable", "error",
                  "`kadmit lsp` speaks the Language Server Protocol with pygls, an optional extra that is "
                  "not installed: `pip install 'kadmit[lsp]'`.")
