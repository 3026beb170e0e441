"""The base of every model object (`kadmit.model`): frozen, strict about unknown fields, located
by `span` and `spans`, which take no part in equality or hashing."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from kadmit.source import NO_SPANS, Span, Spans


class Obj(BaseModel):
    """Base of every model object: frozen, strict about unknown fields, located."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    span: Span | None = None
    spans: Spans = NO_SPANS
    # fields that take no part in equality (their types compare equal) nor in hashing
    _outside: ClassVar[frozenset[str]] = frozenset({"span", "spans"})

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + tuple(
            _hashable(v) for k, v in self.__dict__.items() if k not in self._outside))

    def field_span(self, key: str) -> Span | None:
        """The span of one field, falling back to the object's own span."""
        return self.spans.get(key) or self.span


def _hashable(v):
    if isinstance(v, dict):
        return frozenset((k, _hashable(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    return v
