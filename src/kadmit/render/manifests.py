"""Exported objects as files: multi-document YAML with a header naming each object's place in the
input, or a JSON `List` (JSON has no comments: each object's place is its `kadmit.dev/source`
annotation). Keys keep the order the exporter wrote them in; output is byte-identical run to run."""

from __future__ import annotations

import copy
import json

from kadmit.pyyaml import yaml

SOURCE_ANNOTATION = "kadmit.dev/source"


class _Dumper(yaml.SafeDumper):
    """Block style, lists indented under their key (as kubectl writes them)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):
        return super().increase_indent(flow, False)


def _str(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def place(span) -> str:
    return f"{span.file}:{span.line}" if span is not None else "(no source)"


def yaml_text(docs, sources: list[str]) -> str:
    """`docs`: (object, span, what) in order."""
    head = ("# Written by `kadmit export` from " + ", ".join(sources) + " for Kueue v0.17.0; "
            "regenerate rather than edit.\n")
    parts = []
    for obj, span, what in docs:
        body = yaml.dump(obj, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=1 << 30,
                         allow_unicode=True)
        parts.append(f"---\n# {what} ({place(span)})\n{body}")
    return head + "".join(parts)


def json_text(docs, sources: list[str]) -> str:
    items = []
    for obj, span, _ in docs:
        o = copy.deepcopy(obj)
        if "metadata" in o:
            o["metadata"].setdefault("annotations", {})[SOURCE_ANNOTATION] = place(span)
            o["metadata"]["annotations"] = dict(sorted(o["metadata"]["annotations"].items()))
        items.append(o)
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2, ensure_ascii=False) + "\n"
