"""Model objects lowering made, kept at less memory: every pydantic object records the names of the
fields it was given in a set of its own (hundreds of bytes, more than most of its values); objects
with the same names can share one. Pydantic changes that set only on a copy (`model_copy`) or when a
non-frozen model is assigned to, and every model object is frozen.

Each object's field dict is also rebuilt as a key-sharing dict: CPython keeps the field names of every
instance of a class once and each instance only its values (about half the bytes of the dict pydantic
builds). It is an ordinary dict to every reader; a copy or a new key simply makes a dict of its own."""

from __future__ import annotations

from sys import getsizeof

from pydantic import BaseModel

from kadmit.source import Span, Spans

_SHARED: dict[frozenset[str], set[str]] = {}
_set = object.__setattr__
_new = object.__new__
_SMALLER: dict[type, bool] = {}  # False: a class whose first key-sharing dict was no smaller than pydantic's


def _key_sharing(o: BaseModel) -> dict:
    """`o`'s field dict, rebuilt as CPython's key-sharing dict of its class (set attribute by
    attribute on a bare instance, which is how an instance dict shares its class's keys)."""
    bare = _new(type(o))
    for k, v in o.__dict__.items():
        _set(bare, k, v)
    return bare.__dict__


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
            kind = type(o)
            if _SMALLER.get(kind, True):
                d = _key_sharing(o)
                smaller = getsizeof(d) < getsizeof(o.__dict__)
                if smaller:
                    _set(o, "__dict__", d)
                elif kind not in _SMALLER:  # a class with few fields: its key-sharing dicts are larger
                    _SMALLER[kind] = False
                _SMALLER.setdefault(kind, True)
            if not isinstance(o, Spans):  # holds only spans
                stack.extend(o.__dict__.values())
        elif isinstance(o, (tuple, list)) and not isinstance(o, Span):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
