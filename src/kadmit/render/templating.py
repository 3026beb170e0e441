"""The jinja2 environment for report templates (`render/templates/`)."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=8)
def template(name: str) -> jinja2.Template:
    """A template by file name; XML templates escape what they insert."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True,
                             autoescape=name.endswith(".xml.j2"), undefined=jinja2.StrictUndefined)
    return env.get_template(name)
