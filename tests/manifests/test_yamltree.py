"""The located YAML layer: values, locations, duplicates, merges, and bounded alias expansion."""

from __future__ import annotations

import math

from opcount import calls

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import yamltree
from kadmit.manifests.yamltree import parse_documents


def parse(text: str):
    diags = Diagnostics()
    return list(parse_documents(text, "f.yaml", diags)), diags


def test_values_and_locations_are_one_based_in_spans():
    (doc,), diags = parse("a: 1\nb:\n  - x\n  - 2.5\n  - true\n  - null\nc: '007'\n")
    assert not diags.items
    assert doc.plain() == {"a": 1, "b": ["x", 2.5, True, None], "c": "007"}
    b = doc.v["b"]
    assert (b.v[0].span("f.yaml").line, b.v[0].span("f.yaml").column) == (3, 5)
    assert doc.keys["c"][0] + 1 == 7
    assert doc.span("f.yaml").line == 1 and doc.span("f.yaml").end_line == 7


def test_keys_are_named_as_kubectl_names_them():
    """go-yaml resolves a plain key as a value, sigs.k8s.io/yaml writes it as JSON's text: `yes:` and `y:` are
    the key "true", `0x10:` "16"; a quoted key stays as written; a null key can't be converted (KAD153)."""
    (doc,), diags = parse("yes: 1\n1: 2\nnull: 3\n0x10: 4\n'y': 5\n1.0: 6\n")
    assert doc.plain() == {"true": 1, "1": 6, "16": 4, "y": 5}
    assert [(d.code, d.span.line) for d in diags.items] == [("KAD153", 3), ("KAD173", 6)]


def test_multiple_documents_and_empty_ones():
    docs, diags = parse("---\n---\na: 1\n---\n~\n")
    assert [d.plain() if d else d for d in docs] == [None, {"a": 1}, None]
    assert not diags.items


def test_json_is_yaml():
    (doc,), diags = parse('{"a": [1, 2, {"b": "c"}], "d": null}')
    assert doc.plain() == {"a": [1, 2, {"b": "c"}], "d": None}
    assert not diags.items


def test_duplicate_key_reports_both_places_and_keeps_the_last():
    (doc,), diags = parse("a: 1\nb: 2\na: 3\n")
    assert doc.plain() == {"a": 3, "b": 2}
    (d,) = diags.items
    assert d.code == "KAD173" and (d.span.line, d.span.column) == (3, 1) and "line 1" in d.message
    assert d.severity.name == "WARNING"


def test_a_duplicate_key_in_kueue_configuration_is_an_error():
    # Kueue's manager decodes its Configuration strictly (pkg/config: serializer.EnableStrict)
    (doc,), diags = parse("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                          "namespace: a\nnamespace: b\n")
    assert doc.plain()["namespace"] == "b"
    (d,) = diags.items
    assert d.code == "KAD151" and (d.span.line, d.span.column) == (4, 1) and "line 3" in d.message
    assert d.severity.name == "ERROR"


def test_merge_keys_and_aliases():
    (doc,), diags = parse("base: &b {x: 1, z: 2}\nm:\n  <<: *b\n  z: 3\nk: *b\n")
    assert not diags.items
    assert doc.plain()["m"] == {"x": 1, "z": 3}
    assert doc.v["k"] is doc.v["base"]  # aliases share the node; nothing is copied


def test_billion_laughs_is_refused_without_expanding_it():
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9))
    got = []
    work = calls(lambda: got.append(parse(text)))
    docs, diags = got[0]
    # counted, not timed: work in proportion to the 377 characters (679 calls when written), not to the
    # 10^9 nodes they expand to
    assert work < 20 * len(text), work
    assert docs == []
    assert [d.code for d in diags.items] == ["KAD152"]
    assert "alias expansion" in diags.items[0].message


def test_aliases_count_every_visit(monkeypatch):
    monkeypatch.setattr(yamltree, "MAX_EXPANDED_NODES", 50)
    ok = "a: &a [1, 2, 3]\nb: [*a, *a]\n"
    assert not parse(ok)[1].items
    many = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [" + ", ".join(["*a"] * 6) + "]\n"
    assert [d.code for d in parse(many)[1].items] == ["KAD152"]


def test_depth_is_bounded_directly_and_through_aliases():
    _, diags = parse("[" * 101 + "]" * 101)
    assert [d.code for d in diags.items] == ["KAD152"]
    _, diags = parse("[" * 100 + "]" * 100)
    assert not diags.items
    deep = "a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n"
    _, diags = parse(deep)
    assert [d.code for d in diags.items] == ["KAD152"] and "through alias" in diags.items[0].message


def test_self_reference_and_undefined_alias():
    assert [d.code for d in parse("&a [1, *a]")[1].items] == ["KAD152"]
    assert [d.code for d in parse("a: *nowhere")[1].items] == ["KAD150"]


def test_syntax_errors_are_located_and_keep_earlier_documents():
    docs, diags = parse("a: 1\n---\nb: [1, 2\n")
    assert [d.plain() for d in docs] == [{"a": 1}]
    (d,) = diags.items
    assert d.code == "KAD150" and d.span.line >= 3


def test_complex_keys_and_unknown_tags():
    """A collection can't be a key (go-yaml refuses it); go-yaml ignores a tag it does not know: the text."""
    (doc,), diags = parse("? [a, b]\n: 1\nc: !custom x\nd: !!python/int 1\ne: !custom {f: 1}\n")
    assert doc.plain() == {"c": "x", "d": "1", "e": {"f": 1}}
    assert [d.code for d in diags.items] == ["KAD153"]


def test_timestamps_are_their_text():
    """go-yaml reads a timestamp into an interface{} as the text written (decode.go), so kubectl sends that."""
    (doc,), diags = parse("t: 2026-11-20T08:00:00Z\nd: 2026-11-20\ns: 2026-11-20 08:00:00\n")
    assert doc.plain() == {"t": "2026-11-20T08:00:00Z", "d": "2026-11-20", "s": "2026-11-20 08:00:00"}
    assert {v.kind for v in doc.v.values()} == {"str"} and not diags.items


def test_integers_are_go_yamls():
    """No sexagesimal (`1:30` is text); past int64 an integer is a uint64, past that a float, past that text."""
    (doc,), diags = parse("a: 1" + ":0" * 3000 + "\nb: 12\nc: 18446744073709551615\nd: 99999999999999999999\n"
                          "e: 1" + "0" * 400 + "\nf: 1:30\n")
    assert doc.v["a"].kind == "str" and doc.v["b"].v == 12 and doc.v["c"].v == 2 ** 64 - 1
    assert doc.v["d"].kind == "float" and doc.v["d"].v == 1e20
    assert doc.v["e"].kind == "str" and doc.v["f"].v == "1:30"
    assert not diags.items


def test_an_anchored_key_is_a_string_its_alias_can_repeat():
    (doc,), diags = parse("&k name: a\nother: *k\n")
    assert doc.plain() == {"name": "a", "other": "name"}
    assert doc.v["other"].span("f.yaml").line == 1  # the alias is the anchored key, where it was written
    assert not diags.items


def test_collection_ends_and_key_positions_survive_merges_and_nesting():
    text = "base: &b\n  x: 1\n  z: [1, 2]\nm:\n  <<: *b\n  z: 3\nl:\n- a\n- {k: v}\n"
    (doc,), diags = parse(text)
    assert not diags.items
    assert doc.plain() == {"base": {"x": 1, "z": [1, 2]}, "m": {"x": 1, "z": 3}, "l": ["a", {"k": "v"}]}
    m = doc.v["m"]
    assert m.keys["z"][:2] == (5, 2) and m.keys["x"][:2] == (1, 2)  # own key, merged key where written
    assert (m.line, m.col, m.end_line, m.end_col) == (4, 2, 5, 6)
    lst = doc.v["l"]
    assert (lst.line, lst.end_line, lst.end_col) == (7, 8, 7)  # where its last value ends


def test_spans_built_without_validation_equal_validated_ones():
    from kadmit.source import Span, Spans, located, located_spans

    fast, slow = located("f.yaml", 3, 5, 3, 9), Span(file="f.yaml", line=3, column=5, end_line=3, end_column=9)
    assert fast.same_place(slow) and slow.same_place(fast)
    assert fast.model_dump() == slow.model_dump() and repr(fast) == repr(slow) and str(fast) == str(slow)
    assert fast.model_fields_set == slow.model_fields_set and fast.model_copy(update={"line": 4}).line == 4
    spans = located_spans({"name": fast})
    assert spans.get("name").same_place(fast) and spans.model_dump() == Spans(items={"name": slow}).model_dump()


def test_repeated_plain_scalars_keep_their_own_places_and_reports():
    (doc,), diags = parse("a: .inf\nb: .inf\nc: 7\nd: 7\ne: true\nf: 'true'\n")
    assert [doc.v[k].v for k in "cdef"] == [7, 7, True, "true"] and math.isinf(doc.v["a"].v) and math.isinf(doc.v["b"].v)
    assert [(d.code, d.span.line) for d in diags.items] == [("KAD153", 1), ("KAD153", 2)]  # each reported
    assert [(doc.v[k].line, doc.v[k].col) for k in "cd"] == [(2, 3), (3, 3)]


def test_explicitly_tagged_values_that_are_not_of_their_tag_are_reported_not_raised():
    text = "a: !!int \nb: !!bool maybe\nc: !!timestamp x\nd: !!float\ne: !!int 7\nf: !!float 7\n"
    (doc,), diags = parse(text)
    assert doc.plain() == {"a": "", "b": "maybe", "c": "x", "d": "", "e": 7, "f": 7.0}
    assert [(d.code, d.span.line) for d in diags.items] == [("KAD150", 1), ("KAD150", 2), ("KAD150", 3),
                                                           ("KAD150", 4)]
    assert diags.items[0].message == "kubectl can't read this YAML: `yaml: cannot decode !!null `` as a !!int`"
