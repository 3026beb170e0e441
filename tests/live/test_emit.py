"""Objects kubectl listed as JSON, written as a snapshot's YAML with their trees (`live.emit`): the tree
written is the tree reading the text gives (`parse_documents`), node for node: kinds, values, places and
keys' places; and the text reads back, with any YAML reader, as the objects."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.live.emit import Emitter, quoted, scalar
from kadmit.manifests.yamltree import MAP, SEQ, Val, parse_documents

ROOT = Path(__file__).resolve().parents[2]


def differ(a: Val, b: Val, path: str = "$") -> str | None:
    """Where the written tree `a` and the read one `b` first differ, or None."""
    if (a.kind, a.line, a.col, a.end_line, a.end_col) != (b.kind, b.line, b.col, b.end_line, b.end_col):
        return f"{path}: written {a!r} {a.line}:{a.col}-{a.end_line}:{a.end_col}, read {b!r} " \
               f"{b.line}:{b.col}-{b.end_line}:{b.end_col}"
    if a.kind == MAP:
        if list(a.v) != list(b.v) or a.keys != b.keys:
            return f"{path}: keys {a.keys} read as {b.keys}"
        return next((d for k in a.v if (d := differ(a.v[k], b.v[k], f"{path}.{k}"))), None)
    if a.kind == SEQ:
        if len(a.v) != len(b.v):
            return f"{path}: {len(a.v)} items read as {len(b.v)}"
        return next((d for i, (x, y) in enumerate(zip(a.v, b.v)) if (d := differ(x, y, f"{path}[{i}]"))), None)
    if a.v != b.v or type(a.v) is not type(b.v):
        return f"{path}: {a.v!r} read as {b.v!r}"
    return None


def written_and_read(objects: list, first: int = 3) -> tuple[str, list[Val], list[Val]]:
    """The objects written as documents after `first` lines of comments, their trees, and the text's."""
    e = Emitter(first)
    trees = []
    for obj in objects:
        if trees:
            e.lines.append("---")
        trees.append(e.document(obj))
    text = "# a\n# b\n# c\n" + "\n".join(e.lines) + "\n"
    diags = Diagnostics()
    read = list(parse_documents(text, "s.yaml", diags))
    assert not diags.items, [d.message for d in diags.items]
    return text, trees, read


def assert_same(objects: list) -> None:
    text, trees, read = written_and_read(objects)
    assert len(read) == len(trees)
    for tree, got in zip(trees, read):
        assert differ(tree, got) is None, (differ(tree, got), text)
    assert [d for d in yaml.safe_load_all(text)] == objects


def example_objects() -> list[dict]:
    out = []
    for path in sorted((ROOT / "examples" / "ml-platform-kueue").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                out.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    return json.loads(json.dumps(out, default=str))  # as JSON has them (timestamps are strings)


def test_the_example_s_objects_are_written_with_the_trees_reading_them_gives() -> None:
    objects = example_objects()
    assert len(objects) > 30
    assert_same(objects)


def test_kueue_s_configmap_is_a_literal_block_read_back_line_for_line() -> None:
    config = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n\n# comment\nfairSharing: {}\n"
    cm = {"apiVersion": "v1", "data": {"controller_manager_config.yaml": config, "x": "a\n\n\n", "y": "a\nb"},
          "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"}}
    text, _, _ = written_and_read([cm])
    assert "  controller_manager_config.yaml: |\n    apiVersion: config.kueue.x-k8s.io/v1beta2\n" in text
    assert "  x: |+\n    a\n\n\n" in text and '  "y": |-\n    a\n    b\n' in text  # `y:` is the key "true"
    assert_same([cm])


def test_strings_that_would_read_as_something_else_are_quoted() -> None:
    for s in ("true", "1", "1.5", "~", "null", "2026-01-01", "2026-12-04T23:37:52Z", "", " a", "a ", "- a", "a: b",
              "a #b", "*x", "&x", "!x", "%x", "@x", "`x", "<<", "=", "...", "---", "0x1f", "1_000", ":8081", "y", "N", "1e3", "0o17", "08", "\u2028",
              "\x85", "\ufeff", "é\x7f"):
        text, kind, value = scalar(s)
        assert text == quoted(s) and (kind, value) == ("str", s)
        assert_same([{"k": s, s or "e": [s]}])
    for s in ("\x00\n", "\ufeffa\n", "\x85\nb", "a\r\nb\n", "\ta\n", " a\nb", "\na"):  # line-broken, not a literal block
        assert scalar(s)[0] == quoted(s) and "|" not in written_and_read([{"k": s}])[0]
        assert_same([{"k": s, "l": [s]}])
    for s in ("Never", "nvidia.com/gpu", "a:b", "https://x/y", "team-a", "a b c", "éü", "(x)", "/bin/sh"):
        assert scalar(s)[0] == s


def test_numbers_read_back_as_the_same_numbers() -> None:
    values = [0, -1, 2**62, 2**300, 0.5, -2.25, 1e20, 1e-7, 123456789.125, 1.0, True, False, None]
    assert_same([{"v": values, "m": {str(i): v for i, v in enumerate(values)}}])


_text = st.lists(st.sampled_from(list("ab -:#'\"\n\t\\/{}[],&*!|>%@`?=~.") + ["---", "...", "é", "  ", "\r", "\x85",
                                                                            "\u2028", "\x00", "\x7f", "😀", "true", "1"]),
                 max_size=10).map("".join)
_scalar = st.one_of(_text, st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none())
_value = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.one_of(_text, st.sampled_from(["a", "kind", "<<", "1"])), inner,
                                                 max_size=3)), max_leaves=16)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.dictionaries(_text, _value, min_size=1, max_size=4),
                          st.lists(_value, min_size=1, max_size=3)), min_size=1, max_size=3))
def test_generated_values_are_written_with_the_trees_reading_them_gives(objects: list) -> None:
    assert_same(objects)


def test_a_key_too_long_for_yaml_is_written_by_pyyaml_and_read_back() -> None:
    assert_same([{"apiVersion": "v1", "data": {"k" * 1500: "v", "short": ["x", {"y": 1}]}, "kind": "ConfigMap"},
                 {"after": "it"}])
