"""The jinja2 environment for report templates (`render/templates/`)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import jinja2

from kadmit.render.excerpt import escaped

TEMPLATES = Path(__file__).resolve().parent / "templates"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # characters XML 1.0 can't hold


def _xml(value: object) -> object:
    """Text an XML template inserts, each character XML can't hold written as its escape (`\\x1b`): a test named
    with a control character would make the document one no parser reads."""
    return _NOT_XML.sub(lambda m: escaped(m.group(0)), value) if isinstance(value, str) else value


@functools.lru_cache(maxsize=8)
def template(name: str) -> jinja2.Template:
    """A template by file name; XML templates escape what they insert (markup, and characters XML can't hold)."""
    xml = name.endswith(".xml.j2")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, autoescape=xml,
                             undefined=jinja2.StrictUndefined, finalize=_xml if xml else None)
    return env.get_template(name)
