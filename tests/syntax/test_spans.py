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
