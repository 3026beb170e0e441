"""The `.kad` language front end (owned by the syntax stage; the only importer of lark)."""

from __future__ import annotations

from kadmit.diagnostics import Diagnostics
from kadmit.model import Fragment
from kadmit.syntax import codes
from kadmit.syntax.fmt import format_text
from kadmit.syntax.imports import read_kad, read_kad_named
from kadmit.syntax.lower import lower_text

__all__ = ["codes", "format_text", "parse_text", "read_kad", "read_kad_named"]


def parse_text(text: str, filename: str, diags: Diagnostics) -> Fragment:
    """One file's objects; `import` statements are not followed (see `read_kad`)."""
    return lower_text(text, filename, diags).fragment
