"""`Fields.spans` packs an object's spans straight from its nodes (`source.packed_spans`), without making a
Span of each first; it must give what building the Spans and packing them gives (`Fields._spans`), in every
case: nodes, spans of the file, one of another file, one with a position unknown, one past 32 bits, none."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.fields import Fields
from kadmit.manifests.yamltree import STR, Val
from kadmit.source import Span, located

F = "m.yaml"
NODE = Val(STR, "x", 2, 4, 2, 9)
CASES = {
    "nodes": {"a": NODE, "b": Val(STR, "y", 0, 0, 0, 1)},
    "nodes-and-none": {"a": None, "b": NODE, "c": None},
    "spans-of-the-file": {"a": located(F, 3, 5, 3, 10), "b": NODE},
    "span-of-another-file": {"a": NODE, "b": located("other.yaml", 1, 1, 1, 2)},
    "position-unknown": {"a": NODE, "b": Span(file=F, line=4, column=1)},
    "past-32-bits": {"a": Val(STR, "x", 2**32, 0, 2**32, 1)},
    "none": {},
    "all-none": {"a": None},
}


@pytest.mark.parametrize("items", list(CASES.values()), ids=list(CASES))
def test_packed_spans_are_the_spans_built(items) -> None:
    f = Fields(F, Diagnostics())
    fast, built = f.spans(dict(items)), f._spans(dict(items))
    assert fast.items == built.items and list(fast.items) == list(built.items)
    assert (fast._items is None) == (built._items is None)  # packed alike
    for key in items:
        assert fast.get(key) == built.get(key)
