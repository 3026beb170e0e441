"""The rule language's expression tree and rules (re-exported by `kadmit.model`): what `.kad` rules
say, as the syntax lowers them and validate, engine and export read them."""

# annotations are evaluated as written (no `from __future__ import annotations`): pydantic reads
# them when it builds the classes at import, and strings would be compiled and evaluated first

from typing import Annotated, Literal, Union

from pydantic import Field

from kadmit.modelbase import Obj


class Literal_(Obj):
    """A literal: integer, quantity (milli-units), string, boolean, or a bare name
    (a flavor, priority class, queue... resolved by the validator)."""

    kind: Literal["int", "quantity", "string", "bool", "name"]
    value: Union[int, str, bool]


class Ref(Obj):
    """A path such as `workload.namespace`, `pod_group.requests[nvidia.com/gpu]`, `flavor`,
    or `g.count` for a quantifier's variable. Index keys appear as path parts."""

    path: tuple[str, ...]


class Unary(Obj):
    op: Literal["not", "-"]
    arg: "Expr"


class Binary(Obj):
    op: Literal["and", "or", "implies", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"]
    left: "Expr"
    right: "Expr"


class InSet(Obj):
    elem: "Expr"
    items: tuple["Expr", ...]
    negated: bool = False


class Quantifier(Obj):
    kind: Literal["all", "any"]
    var: str
    domain: Ref  # e.g. workload.pod_groups
    body: "Expr"


Expr = Annotated[Union[Literal_, Ref, Unary, Binary, InSet, Quantifier], Field(union_mode="left_to_right")]

for _cls in (Unary, Binary, InSet, Quantifier):
    _cls.model_rebuild()


class Rule(Obj):
    """`require` and `forbid` are hard; `prefer … weight N` is soft."""

    name: str
    kind: Literal["require", "forbid", "prefer"]
    weight: int = 0
    expr: Expr
