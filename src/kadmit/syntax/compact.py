"""Model objects lowering made, kept at less memory: every pydantic object records the names of the
fields it was given in a set of its own (hundreds of bytes, more than most of its values); objects
with the same names can share one. Pydantic changes that set only on a copy (`model_copy`) or when a
non-frozen model is assigned to, and every model object is frozen."""

from __future__ import annotations

from pydantic import BaseModel

from kadmit.source import Span, Spans

_SHARED: dict[frozenset[str], set[str]] = {}
_set = object.__setattr__


def share_field_sets(obj: object) -> None:
    """Give `obj` and every model object inside it the shared set equal to its own."""
    stack = [obj]
    shared = _SHARED
    while stack:
        o = stack.pop()
        if isinstance(o, BaseModel):
            names = o.__pydantic_fields_set__
            key = frozenset(names)
            one = shared.get(key)
            if one is None:
                one = shared[key] = set(key)
            if one is not names:
                _set(o, "__pydantic_fields_set__", one)
            if not isinstance(o, Spans):  # holds only spans
                stack.extend(o.__dict__.values())
        elif isinstance(o, (tuple, list)) and not isinstance(o, Span):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
