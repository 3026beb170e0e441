"""Rendering: diagnostics (and later decisions) as human text, JSON, SARIF or GitHub annotations."""

from kadmit.render import codes as codes  # registers KAD005–KAD019
from kadmit.render.diagnostics import FORMATS, Format, render

__all__ = ["FORMATS", "Format", "render"]
