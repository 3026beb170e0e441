"""Running an exported ValidatingAdmissionPolicy with cel-python (`celpy`): its match conditions,
variables in order, and validations, on one object, as the API server does. celpy is standard CEL;
the Kubernetes extension functions the policies use are given here from Kubernetes' own definitions
(k8s.io/apiserver/pkg/cel/library: quantity.go `quantity`, `isInteger`, `asInteger`,
`asApproximateFloat`; lists.go `sum`, `max`; cel-go ext/lists `lists.range`, `slice`). This is the
test's reading of those libraries: the API server itself is the check of them (tests/kube/)."""

from __future__ import annotations

import re
from fractions import Fraction

import celpy
from celpy import celtypes

_QTY = re.compile(r"^(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?P<suffix>[numkMGTPE]|[KMGTPE]i|[eE][+-]?[0-9]+)?$")
_BIN = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DEC = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1), "k": 10**3,
        "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}


class Quantity:
    def __init__(self, value: Fraction) -> None:
        self.value = value


def quantity(text) -> Quantity:
    m = _QTY.match(str(text))
    if not m:
        raise ValueError(f"quantities must match the regular expression: {text!r}")
    suffix = m.group("suffix") or ""
    mult = _BIN.get(suffix) or _DEC.get(suffix) or Fraction(10) ** int(suffix[1:])
    value = Fraction(m.group("num")) * mult
    return Quantity(-value if m.group("sign") == "-" else value)


def is_integer(q: Quantity) -> celtypes.BoolType:
    return celtypes.BoolType(q.value.denominator == 1 and -2**63 <= q.value < 2**63)


def as_integer(q: Quantity) -> celtypes.IntType:
    if q.value.denominator != 1:
        raise ValueError("cannot convert value to integer")
    return celtypes.IntType(int(q.value))


def as_float(q: Quantity) -> celtypes.DoubleType:
    return celtypes.DoubleType(float(q.value))


def _sum(items) -> celtypes.Value:
    total = sum(int(x) for x in items)
    return celtypes.IntType(total)


def _max(items) -> celtypes.Value:
    if not items:
        raise ValueError("max of an empty list")
    return max(items)


FUNCTIONS = {"quantity": quantity, "isInteger": is_integer, "asInteger": as_integer,
             "asApproximateFloat": as_float, "sum": _sum, "max": _max,
             "range": lambda _lists, n: celtypes.ListType([celtypes.IntType(i) for i in range(int(n))]),
             "slice": lambda xs, a, b: celtypes.ListType(xs[int(a):int(b)])}

_ENV = celpy.Environment()
_PROGRAMS: dict[str, object] = {}


def run(expression: str, activation: dict):
    prog = _PROGRAMS.get(expression)
    if prog is None:
        prog = _PROGRAMS[expression] = _ENV.program(_ENV.compile(expression), functions=FUNCTIONS)
    return prog.evaluate(activation)


def admit(policy: dict, obj: dict, namespace_labels: dict[str, str]) -> bool | None:
    """True: the policy lets `obj` be created; False: it refuses it; None: it does not apply."""
    ns = obj["metadata"].get("namespace", "default")
    base = {"object": celpy.json_to_cel(obj), "oldObject": None,
            "request": celpy.json_to_cel({"namespace": ns, "operation": "CREATE"}),
            "namespaceObject": celpy.json_to_cel({"metadata": {"name": ns, "labels": namespace_labels}}),
            "lists": celtypes.StringType("lists")}
    for cond in policy["spec"]["matchConditions"]:
        if not bool(run(cond["expression"], base)):
            return None
    values: dict = {}
    for var in policy["spec"]["variables"]:
        values[var["name"]] = run(var["expression"], {**base, "variables": celtypes.MapType(
            {celtypes.StringType(k): v for k, v in values.items()})})
    act = {**base, "variables": celtypes.MapType({celtypes.StringType(k): v for k, v in values.items()})}
    return all(bool(run(v["expression"], act)) for v in policy["spec"]["validations"])
