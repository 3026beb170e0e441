"""The API for editors (`kadmit lsp` stands on it as the CLI on `kadmit.api`): a workspace kept open,
its diagnostics as `kadmit check` gives them, and what is written where — hovers, definitions and
uses of names, completions, formatting and fixes."""

from kadmit.editor.project import Project, Snapshot

__all__ = ["Project", "Snapshot"]
