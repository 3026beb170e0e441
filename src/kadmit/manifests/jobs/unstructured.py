"""A pod spec decoded as Go's unstructured converter decodes it (k8s.io/apimachinery runtime
`FromUnstructuredWithValidation`, strict): how AppWrapper's `GetPodTemplateSpec` (project-codeflare/appwrapper
pkg/utils) hands Kueue a component's pod template. The API server takes a component's template as it is
written (the AppWrapper CRD keeps it free-form), so a value of a wrong type or an unknown field there is met
only by that decoding, in Kueue's reconciler, which then makes no Workload.

The converter walks a struct's fields in their Go order (data/go_order.json) and stops at the first value it
can't convert, whose error it returns; unknown fields are collected on the way and returned, sorted, only when
nothing failed. Its words, as it gives them (tests/oracle/test_unstructured_pod_specs.py checks each against
Kueue's code): `unrecognized type: string` (a boolean, a fraction, a mapping or a list for a string),
`cannot convert int64 to string`, `cannot convert float64 to int32`, `cannot restore struct from: string`,
`cannot restore slice from map`, `cannot restore map from slice`; a quantity and an int-or-string decode
themselves from JSON (`quantities must match the regular expression ...`, `json: cannot unmarshal bool into Go
value of type int32`); `strict decoding error: unknown field "containers[0].foo", ...`. Where two values of
one map (`nodeSelector`, `resources.limits`) fail, Go's map order picks the one it names; kadmit names the
first written. A timestamp (an ephemeral volume's claim template's metadata) is taken as text, unparsed.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

from kadmit.manifests import schema
from kadmit.manifests.fields import whole_number
from kadmit.manifests.gojson import go_float
from kadmit.manifests.yamltree import BOOL, FLOAT, HUGE, INT, MAP, NULL, OTHER, SEQ, STR, TIME, Val

# the Go kind a value written in YAML has once kubectl sent it as JSON and the converter read it back
_GO_KIND = {STR: "string", TIME: "string", OTHER: "string", BOOL: "bool", INT: "int64", FLOAT: "float64", HUGE: "float64",
            MAP: "map", SEQ: "slice"}
_JSON_KIND = {STR: "string", TIME: "string", OTHER: "string", BOOL: "bool", INT: "number", FLOAT: "number", HUGE: "number",
              MAP: "object", SEQ: "array"}
_GO_SCALAR = {"str": "string", "bool": "bool", "i32": "int32", "i64": "int64", "num": "float64"}
_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
_SUFFIXES = frozenset(("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"))


class _Failed(Exception):
    pass


@lru_cache(maxsize=None)
def _order() -> dict[str, list[str]]:
    return json.loads(resources.files(schema.__name__).joinpath("data", "go_order.json").read_text())["types"]


def _kind(v: Val) -> str:
    """The YAML kind as kubectl sends it: a float with no fraction is an integer."""
    return INT if v.kind == FLOAT and whole_number(v) is not None else v.kind


def _quantity_error(text: str) -> str | None:
    """resource.ParseQuantity's error for `text` (as UnmarshalJSON gives it, trimmed), or None."""
    if text == "0":
        return None
    m = re.fullmatch(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*)([+-]?[0-9]*)", text) if text else None
    if m is None:
        return _FORMAT_WRONG
    suffix = m.group(4) + m.group(5)
    if suffix in _SUFFIXES or re.fullmatch(r"[eE][+-]?[0-9]+", suffix):
        return None
    return "unable to parse quantity's suffix"


def _json_text(v: Val) -> str:
    """The JSON text the converter hands a type that decodes itself."""
    kind = _kind(v)
    if kind == INT:
        return str(whole_number(v))
    if kind in (FLOAT, HUGE):
        return go_float(float(v.v))
    return {BOOL: str(v.v).lower(), MAP: "{", SEQ: "["}.get(kind, "")


def _leaf(v: Val, code: str) -> str | None:
    kind = _kind(v)
    if code in ("*", "s", "b64", "time"):
        return None  # free-form; base64 data and timestamps: taken as text (see the module's note)
    if code == "q":
        if kind in (STR, TIME, OTHER):
            return _quantity_error(str(v.v).strip())
        return _quantity_error(_json_text(v))
    if code == "ios":
        if kind in (STR, TIME, OTHER):
            return None
        if kind == INT and -(2**31) <= whole_number(v) < 2**31:
            return None
        shown = f"number {_json_text(v)}" if kind in (INT, FLOAT, HUGE) else _JSON_KIND[kind]
        return f"json: cannot unmarshal {shown} into Go value of type int32"
    target = _GO_SCALAR[code]
    if target == "string":
        if kind in (STR, TIME, OTHER):
            return None
        return "cannot convert int64 to string" if kind == INT else "unrecognized type: string"
    if target == "bool":
        return None if kind == BOOL else "unrecognized type: bool"
    if target == "float64":
        return None if kind in (INT, FLOAT, HUGE) else "unrecognized type: float64"
    if kind == INT:  # int32, int64: converted without a range check
        return None
    if kind in (FLOAT, HUGE):
        return f"cannot convert float64 to {target}"
    return f"unrecognized type: {target}"


def _decode(v: Val, tree, path: str, unknown: list[str]) -> None:
    """Raise _Failed with the converter's error at the first value it can't convert; collect unknown fields."""
    if v.kind == NULL:
        return
    if type(tree) is str and not tree.startswith("core:"):
        error = _leaf(v, tree)
        if error is not None:
            raise _Failed(error)
        return
    if type(tree) is str:
        fields = schema._core()["types"][tree[5:]]
        if v.kind != MAP:
            raise _Failed(f"cannot restore struct from: {_GO_KIND[_kind(v)]}")
        for key in _order()[tree[5:]]:
            sub = v.v.get(key)
            if sub is not None:
                _decode(sub, fields[key], f"{path}.{key}" if path else key, unknown)
        unknown += [f"{path}.{key}" if path else key for key in v.v if key not in fields]
        return
    if "l" in tree:
        if v.kind != SEQ:
            raise _Failed(f"cannot restore slice from {_GO_KIND[_kind(v)]}")
        for i, item in enumerate(v.v):
            _decode(item, tree["l"], f"{path}[{i}]", unknown)
        return
    if "m" in tree:
        if v.kind != MAP:
            raise _Failed(f"cannot restore map from {_GO_KIND[_kind(v)]}")
        for sub in v.v.values():  # a map's keys are not in the path of an unknown field
            _decode(sub, tree["m"], path, unknown)
        return
    raise _Failed(f"unrecognized type: {tree}")  # no other tree under a PodSpec (go_order.json covers them)


def pod_spec_error(spec: Val) -> str | None:
    """The converter's error decoding `spec` into a v1.PodSpec, or None when it decodes."""
    unknown: list[str] = []
    try:
        _decode(spec, "core:V1PodSpec", "", unknown)
    except _Failed as e:
        return str(e)
    if unknown:
        return "strict decoding error: " + ", ".join(f'unknown field "{u}"' for u in sorted(unknown))
    return None
