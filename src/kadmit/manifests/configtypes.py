"""Kueue's Configuration decoded as Kueue's manager decodes it: every value against the Go type of its field.

Kueue v0.17.0 reads its Configuration file with pkg/config's fromFile: the YAML converted to JSON
(sigs.k8s.io/yaml), then decoded strictly into `apis/config/<version>.Configuration` by Go's
encoding/json (sigs.k8s.io/json's copy). A value JSON can't put in its field stops the manager, with Go's
error: `json: cannot unmarshal string into Go struct field Configuration.manageJobsWithoutQueueName of
type bool`, or the error of the field type's own decoder (a metav1.Duration's time.ParseDuration, a
resource.Quantity's ParseQuantity). kadmit reports each such value at its place, with the error Kueue
prints for it (Kueue stops at the first, in its JSON's key order). Unknown fields are the schema check's
(KAD180); duplicate keys the YAML reader's (KAD151).

The Go types are Kueue's own, read by reflection (`kueue-oracle config --types`, data/kueueconfig.json).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from kadmit.durations import go_parse_duration
from kadmit.manifests.codes import KAD156, KAD157
from kadmit.manifests.configcheck import refused
from kadmit.manifests.fields import Fields
from kadmit.manifests.gojson import go_float, quantity_error
from kadmit.manifests.yamltree import BOOL, FLOAT, HUGE, INT, MAP, NULL, SEQ, Val

# What Go's errors call a JSON value (encoding/json's UnmarshalTypeError.Value)
_JSON_KIND = {MAP: "object", SEQ: "array", BOOL: "bool", INT: "number", FLOAT: "number", HUGE: "number"}
DURATION, QUANTITY = "unmarshaler:v1.Duration", "unmarshaler:resource.Quantity"
UNMARSHALERS = (DURATION, QUANTITY)  # the field types of the Configuration that decode themselves
_HELP = {"bool": "write `true` or `false`, unquoted", "string": "quote it",
         "int": "write a whole number, unquoted", "uint": "write a whole number, unquoted",
         "float": "write a number, unquoted", "struct": "write a mapping of its fields",
         "slice": "write a list", "map": "write a mapping",
         DURATION: "write a duration as text, like `5m` or `1h30m`"}


@lru_cache(maxsize=None)
def go_types() -> dict:
    """The Go types of the Configuration, by version (kueue-oracle config --types)."""
    return json.loads(resources.files("kadmit.manifests.schema").joinpath("data", "kueueconfig.json").read_text())


def json_kind(v: Val) -> str:
    return _JSON_KIND.get(v.kind, "string")


def json_number(v: Val) -> str:
    """A YAML number as the JSON text sigs.k8s.io/yaml writes of it (Go's json.Marshal)."""
    if v.kind == FLOAT:
        return go_float(v.v)
    if v.kind == HUGE:
        return go_float(float(int(str(v.v).replace("_", ""), 0)))
    return str(v.v)


def _number_error(text: str, t: dict) -> bool:
    """Whether Go's decoder refuses JSON number `text` for a field of numeric type `t` (strconv)."""
    bits, decode = t.get("bits", 64), t["decode"]
    if decode == "float":
        try:
            x = float(text)
        except ValueError:
            return True
        return bits == 32 and abs(x) > 3.4028234663852886e38 and x != float("inf")
    if any(c in text for c in ".eE"):
        return True
    n = int(text)
    if decode == "uint":
        return not 0 <= n < 2 ** bits
    return not -(2 ** (bits - 1)) <= n < 2 ** (bits - 1)


class _Decoder:
    """One Configuration's decoding: each refused value reported (`Fields.mistyped`, so that the
    readers after it do not report it again)."""

    def __init__(self, f: Fields) -> None:
        self.f = f
        self.refused = 0

    def refuse(self, code: str, error: str, at: Val, help: str | None) -> None:
        self.refused += 1
        self.f.mistyped(code, refused(error), at, help=help,
                        notes=["Kueue's manager decodes its Configuration into Go types before anything else "
                               "(pkg/config); it exits with this error"])

    def wrong_type(self, v: Val, t: dict, struct: str, path: list[str], type_name: str | None = None) -> None:
        value = json_kind(v)
        if value == "number" and t["decode"] in ("int", "uint", "float"):
            value = f"number {json_number(v)}"
        where = f"Go struct field {struct}.{'.'.join(path)}" if struct else "Go value"
        self.refuse(KAD156, f"json: cannot unmarshal {value} into {where} of type {type_name or t['type']}", v,
                    _HELP.get(t["decode"]))

    def value(self, v: Val, t: dict, struct: str, path: list[str]) -> None:
        decode, kind = t["decode"], v.kind
        if kind == NULL and t.get("null") != "unmarshal":
            return  # Go's decoder leaves the field as it is (a pointer nil)
        if decode == DURATION:  # metav1.Duration.UnmarshalJSON: a JSON string, then time.ParseDuration
            if kind not in (NULL, MAP, SEQ, BOOL, INT, FLOAT, HUGE):
                error = go_parse_duration(str(v.v))[1]
            elif kind == NULL:
                error = go_parse_duration("")[1]
            else:
                self.wrong_type(v, {"decode": DURATION}, struct, path, "string")
                return
            if error is not None:
                self.refuse(KAD157, error, v, _HELP[DURATION])
            return
        if decode == QUANTITY:  # resource.Quantity.UnmarshalJSON: the JSON text (a string unquoted), parsed
            if kind == NULL:
                return
            text = ("true" if v.v else "false") if kind == BOOL else json_number(v) if json_kind(v) == "number" \
                else "{" if kind == MAP else "[" if kind == SEQ else str(v.v).strip()
            error = quantity_error(text)
            if error is not None:
                self.refuse(KAD157, error, v, "write a quantity, like `500m`, `2` or `64Gi`")
            return
        if decode == "any":
            return
        if decode == "struct":
            if kind != MAP:
                self.wrong_type(v, t, struct, path)
                return
            fields = t["fields"]
            for key, sub in v.v.items():
                ft = fields.get(key)
                if ft is not None:  # an unknown field: the schema check's (KAD180)
                    self.value(sub, ft, t["name"], [*path, *ft.get("via", ()), key])
            return
        if decode in ("slice", "map"):
            if kind != (SEQ if decode == "slice" else MAP):
                self.wrong_type(v, t, struct, path)
                return
            for item in (v.v if decode == "slice" else v.v.values()):
                self.value(item, t["elem"], struct, path)
            return
        want = {"bool": BOOL, "string": None}.get(decode, "number")
        if want == "number":
            if json_kind(v) != "number" or _number_error(json_number(v), t):
                self.wrong_type(v, t, struct, path)
        elif (kind != BOOL if want == BOOL else json_kind(v) != "string"):
            self.wrong_type(v, t, struct, path)


def check(f: Fields, doc: Val, version: str) -> int:
    """Report each value of a Configuration document (a mapping) Kueue's decoding into its Go types refuses
    (KAD156 for a value of another JSON type, KAD157 for a duration or quantity its parser refuses);
    returns how many. A version kadmit has no Go types of is not checked."""
    t = go_types().get(version)
    if t is None or doc.kind != MAP:
        return 0
    d = _Decoder(f)
    d.value(doc, t, "", [])
    return d.refused
