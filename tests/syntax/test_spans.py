"""`Span` as a 5-tuple read by name: invisible to equality and hashing, immutable, dumped and copied
as the pydantic model it replaced was, and the same however it is built."""

from __future__ import annotations

import copy
import pickle

import pytest

from kadmit.model import PodSet
from kadmit.source import Span, Spans, located, located_spans


def test_span_reads_and_compares_as_before() -> None:
    s = Span(file="a.kad", line=3, column=5, end_line=4, end_column=2)
    assert (s.file, s.line, s.column, s.end_line, s.end_column) == ("a.kad", 3, 5, 4, 2)
    assert str(s) == "a.kad:3:5" and s.key() == ("a.kad", 3, 5)
    assert repr(s) == "Span(file='a.kad', line=3, column=5, end_line=4, end_column=2)"
    other = Span("b.kad", 1, 1)
    assert s == other and not (s != other) and hash(s) == hash(other) and s == None  # noqa: E711
    assert not s.same_place(other) and s.same_place(located("a.kad", 3, 5, 4, 2))
    assert (other.end_line, other.end_column) == (None, None)
    assert other.model_fields_set == {"file", "line", "column"} and len(s.model_fields_set) == 5
    with pytest.raises(AttributeError):
        s.line = 4  # type: ignore[misc]


def test_span_copies_pickles_and_dumps() -> None:
    s = located("a.kad", 300, 7, 300, 9)
    for again in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
        assert type(again) is Span and again.same_place(s)
    assert s.model_copy(update={"file": "b.kad"}).same_place(Span("b.kad", 300, 7, 300, 9))
    ps = PodSet(name="w", span=s, spans=located_spans({"name": s}))
    dumped = ps.model_dump()
    assert dumped["span"] == {"file": "a.kad", "line": 300, "column": 7, "end_line": 300, "end_column": 9}
    back = PodSet.model_validate(dumped)
    assert back == ps and back.span.same_place(s) and back.spans.get("name").same_place(s)
    assert '"span":{"file":"a.kad","line":300' in ps.model_dump_json()
    assert located_spans({"name": s}) == Spans(items={"name": s})
    with pytest.raises(ValueError):
        PodSet(name="w", span=(1, 2))


def test_spans_is_immutable_and_dumps_copies_and_validates_as_the_model_it_replaced() -> None:
    s = located("a.kad", 2, 3, 2, 9)
    sp = Spans(items={"name": s, "requests.cpu": {"file": "a.kad", "line": 4, "column": 1}})
    assert sp.get("requests.cpu").same_place(Span("a.kad", 4, 1)) and sp.get("nope") is None
    assert sp == Spans() and hash(sp) == hash(Spans()) and sp == None  # noqa: E711
    with pytest.raises(AttributeError):
        sp.items = {}  # type: ignore[misc]
    for again in (pickle.loads(pickle.dumps(sp)), copy.deepcopy(sp), copy.copy(sp), sp.model_copy()):
        assert type(again) is Spans and list(again.items) == ["name", "requests.cpu"]
        assert again.get("name").same_place(s)
    assert sp.model_copy(update={"items": {}}).items == {}
    ps = PodSet(name="w", spans=sp)
    dumped = ps.model_dump()
    assert dumped["spans"] == {"items": {"name": dict(file="a.kad", line=2, column=3, end_line=2, end_column=9),
                                         "requests.cpu": dict(file="a.kad", line=4, column=1, end_line=None,
                                                              end_column=None)}}
    assert '"spans":{"items":{"name":{"file":"a.kad","line":2' in ps.model_dump_json()
    back = PodSet.model_validate(dumped)
    assert back.spans.get("name").same_place(s) and PodSet(name="w").spans.items == {}
    with pytest.raises(ValueError):
        PodSet(name="w", spans={"name": s})  # not {"items": {...}}


def test_lowered_objects_read_compare_and_copy_as_pydantic_built_ones() -> None:
    from kadmit.diagnostics import Diagnostics
    from kadmit.model import Workload
    from kadmit.syntax.lower import lower_text

    text = ("workload ns/w1 {\n  queue = lq\n  priority = 5\n  pod_group main {\n    count = 2\n"
            "    requests = { cpu = 1 }\n  }\n}\n")
    got = lower_text(text, "a.kad", Diagnostics()).fragment.workloads
    built = Workload(namespace="ns", name="w1", queue="lq", priority=5,
                     pod_sets=(PodSet(name="main", count=2, requests={"cpu": 1000}),))
    assert got == (built,) or got == [built]
    w = got[0]
    plain = {"span", "spans", "pod_sets"}
    assert hash(w) == hash(built) and w.model_dump(exclude=plain) == built.model_dump(exclude=plain)
    assert w.pod_sets[0].model_dump(exclude=plain) == built.pod_sets[0].model_dump(exclude=plain)
    assert list(w.__dict__) == list(built.__dict__) and w.pod_sets[0].requests == {"cpu": 1000}
    moved = w.model_copy(update={"queue": "other"})
    assert moved.queue == "other" and w.queue == "lq" and moved.pod_sets == w.pod_sets
    assert w.spans.get("priority").same_place(Span("a.kad", 3, 14, 3, 15))
    assert w.pod_sets[0].spans.get("requests.cpu").line == 6
