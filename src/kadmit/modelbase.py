"""The base of every model object (`kadmit.model`): frozen, strict about unknown fields, located
by `span` and `spans`, which take no part in equality or hashing."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

from typing import Any, ClassVar

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
    if isinstance(v, Shapes):
        return None  # equal to None (`Shapes.__eq__`), so hashed alike
    if isinstance(v, dict):
        return frozenset((k, _hashable(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    return v


class Shapes(tuple):
    """What Kueue compares of a prebuilt Workload and its job (`Workload.shapes`; `EquivalentToWorkload`):
    its maximumExecutionTimeSeconds; per pod set the count, minCount, containers and init containers, and
    tolerations (`manifests.workloads.template_shape`); a Workload's also what Kueue merges into it while it
    holds quota (`manifests.workloads.running_shape`), and its `status.reclaimablePods` and admission as written
    (`manifests.reclaim.reclaim_applied`). Read for every Workload and a job naming one
    (`Job.prebuilt`); a flavor's tolerations as written too (`ResourceFlavor.written_tolerations`).
    Invisible to equality and hashing, as spans are: the model holds no containers elsewhere, so two
    Workloads that say the same to admission stay equal (a `.kad` Workload, which has none, and a
    manifest's)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, Shapes)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return 0

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            lambda v: v if isinstance(v, Shapes) else Shapes(v),
            serialization=core_schema.plain_serializer_function_ser_schema(tuple))


class HashOnly(Shapes):
    """What only Kueue's scheduling hash reads of a pod set (`PodSet.index`): invisible to equality and hashing,
    as `Shapes` is (a `.kad` pod set, which has none, and a manifest's stay equal)."""

    __slots__ = ()
