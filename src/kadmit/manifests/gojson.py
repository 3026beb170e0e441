"""Go's `encoding/json` output for the few Kubernetes types Kueue hashes, byte for byte.

Kueue names some things by a hash of Go JSON (a pod group's roles: `utilpod.GenerateRoleHash`),
so kadmit must write the same bytes Go would: struct fields in their declared order with
`omitempty` as Go applies it, map keys sorted, nil slices, maps and pointers as `null`, strings
escaped as Go escapes them (`<`, `>`, `&`, U+2028 and U+2029 too), and resource quantities as
`resource.Quantity.MarshalJSON` writes them (the text as given when Go's parser finds it
canonical, else the canonical form; k8s.io/apimachinery pkg/api/resource, quantity.go).

A type is a tuple: `("str",)`, `("int",)`, `("bool",)`, `("qty",)`, `("ptr", T)`, `("slice", T)`,
`("map", T)` (string keys) or `("struct", ((json_name, T, omitempty), ...))`. Values are read
from the YAML tree as the oracle's decoding reads them (a field of the wrong shape is the zero
value: such an object is refused before anything hashes it).
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction

from kadmit.manifests.yamltree import BOOL, FLOAT, INT, MAP, SEQ, STR, Val
from kadmit.quantity import canonical_quantity

STR_T, INT_T, BOOL_T, QTY_T = ("str",), ("int",), ("bool",), ("qty",)
# a quantity of a built-in kind's ResourceList, which the API server rounds up to milli-units on create
# (core/v1 SetDefaults_ResourceList: `0.0001` is stored as `1m`)
MILLI_QTY_T = ("mqty",)

_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_HTML = re.compile("[<>&\u2028\u2029]")


def go_string(s: str) -> str:
    """A JSON string as Go's encoder writes it (HTML characters escaped; `\\b`, `\\f` short)."""
    return _HTML.sub(lambda m: _ESCAPES[m.group()], json.dumps(s, ensure_ascii=False))


def go_float(x: float) -> str:
    """A float64 as Go's encoder writes it: shortest digits, `e` notation outside [1e-6, 1e21)."""
    a = abs(x)
    if a == 0 or 1e-6 <= a < 1e21:  # the shortest digits, as a decimal (`3`, `18446744073709552000`, `-0`)
        return format(Decimal(repr(x)).normalize(), "f")
    mantissa, exp = repr(x).split("e") if "e" in repr(x) else (repr(x), "0")
    e = int(exp)
    return f"{mantissa.removesuffix('.0')}e{e}" if e < 0 else f"{mantissa.removesuffix('.0')}e+{e:02d}"


def scalar_text(v: Val) -> str:
    """The text a scalar becomes on its way through JSON (a quantity written as a number)."""
    if v.kind == STR:
        return v.v
    if v.kind == BOOL:
        return "true" if v.v else "false"
    if v.kind == FLOAT:
        return go_float(v.v)
    return str(v.v)


def encode(v: Val | None, t: tuple) -> str:
    """The Go JSON of the value `v` read as type `t`."""
    kind = t[0]
    null = v is None or v.kind == "null"
    if kind == "str":
        return go_string("" if null else scalar_text(v))
    if kind == "int":
        return "0" if null or v.kind != INT else str(v.v)
    if kind == "bool":
        return "true" if not null and v.kind == BOOL and v.v else "false"
    if kind in ("qty", "mqty"):
        return '"0"' if null else go_string(go_quantity(scalar_text(v), kind == "mqty"))
    if kind == "ptr":
        return "null" if null else encode(v, t[1])
    if kind == "slice":
        return "null" if null or v.kind != SEQ else "[" + ",".join(encode(x, t[1]) for x in v.v) + "]"
    if kind == "map":
        if null or v.kind != MAP:
            return "null"
        return "{" + ",".join(f"{go_string(k)}:{encode(v.v[k], t[1])}" for k in sorted(v.v)) + "}"
    fields = v.v if not null and v.kind == MAP else {}
    out = []
    for name, ft, omitempty in t[1]:
        fv = fields.get(name)
        if omitempty and empty(fv, ft):
            continue
        out.append(f"{go_string(name)}:{encode(fv, ft)}")
    return "{" + ",".join(out) + "}"


def empty(v: Val | None, t: tuple) -> bool:
    """What `omitempty` leaves out: false, 0, "", a nil pointer, an empty slice or map (never a
    struct)."""
    if v is None or v.kind == "null":
        return t[0] != "struct"
    kind = t[0]
    if kind in ("slice", "map"):
        return v.kind not in (SEQ, MAP) or not v.v
    if kind == "str":
        return scalar_text(v) == ""
    if kind == "int":
        return v.kind != INT or v.v == 0
    if kind == "bool":
        return not (v.kind == BOOL and v.v)
    return False


# --- resource.Quantity ---------------------------------------------------------------------------

_DEC = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_SPLIT = re.compile(r"^([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$")
_MAX_INT64 = 2**63 - 1
_NANO = Fraction(1, 10**9)


def go_quantity(text: str, milli: bool = False) -> str:
    """The text `resource.Quantity.MarshalJSON` writes for a quantity parsed from `text`
    (`ParseQuantity`, then `String`; with `milli`, `RoundUp(-3)` between: a value finer than
    milli-units is rounded up, then written canonically); `text` itself where Go can't parse it
    (such an object is refused before anything is hashed)."""
    parsed = _parse(text.strip())
    if parsed is None:
        return text
    kept, value, fmt = parsed
    if milli and (value * 1000).denominator != 1:
        return canonical_quantity(Fraction(-((-value * 1000).numerator // (value * 1000).denominator), 1000), fmt)
    return kept if kept is not None else canonical_quantity(value, fmt)


def _parse(s: str) -> tuple[str | None, Fraction, str] | None:
    """(the text kept as canonical or None, the value, the format: "DecimalSI", "BinarySI" or
    "DecimalExponent") as `ParseQuantity` reads `s`."""
    if not s:
        return None
    if s == "0":
        return s, Fraction(0), "DecimalSI"
    m = _SPLIT.match(s)
    if not m or (m.group(4) is None and not (m.group(2) or m.group(3)) and not m.group(5)):
        return None
    sign, _zeros, num, denom, suf = m.groups()
    num, denom = num or "0", denom or ""
    if suf in _DEC:
        base, exponent, fmt = 10, _DEC[suf], "DecimalSI"
    elif suf in _BIN:
        base, exponent, fmt = 2, _BIN[suf], "BinarySI"
    elif len(suf) > 1 and suf[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suf[1:]):
        base, exponent, fmt = 10, int(suf[1:]), "DecimalExponent"
    else:
        return None
    positive = sign != "-"
    mantissa, scale, precision = 1, 0, 0
    if fmt == "BinarySI":
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            value = int(shifted) * mantissa
            if value <= _MAX_INT64:
                amount = Fraction(value if positive else -value) * Fraction(10) ** scale
                if fmt == "BinarySI":
                    keep = exponent % 10 == 0 and int(shifted) & 7 != 0
                else:
                    keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return (s if keep else None), amount, fmt
    amount = Fraction(f"{num}.{denom}" if denom else num)
    amount *= Fraction(10) ** exponent if base == 10 else 2**exponent
    if amount:
        amount = -((-amount) // _NANO) * _NANO  # rounded up to a nano-unit (away from zero)
    if fmt == "BinarySI" and amount > _MAX_INT64:
        amount = Fraction(_MAX_INT64)
    if fmt == "BinarySI" and 0 < amount < 1:
        fmt = "DecimalSI"
    return None, (amount if positive else -amount), fmt


QUANTITY_FORMAT = ("quantities must match the regular expression "
                   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")  # resource.ErrFormatWrong
QUANTITY_NUMERIC = "unable to parse numeric part of quantity"  # resource.ErrNumeric
QUANTITY_SUFFIX = "unable to parse quantity's suffix"  # resource.ErrSuffix
_DIGITS = frozenset("0123456789")
_DEC_VALUE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def quantity_error(s: str) -> str | None:
    """The error `resource.ParseQuantity` returns for `s` (parseQuantityString, the suffix's
    interpretation, the numeric part), or None when it parses."""
    if not s:
        return QUANTITY_FORMAT
    if s == "0":
        return None
    end, pos = len(s), 1 if s[0] in "+-" else 0
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return None
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return None
    num, pos, denom = s[pos:i] or "0", i, ""
    if s[pos] == ".":
        i = pos = pos + 1
        while i < end and s[i] in _DIGITS:
            i += 1
        if i >= end:
            return None  # the whole text a number: no suffix
        denom, pos = s[pos:i], i
    value, start = s[:pos], pos
    while pos < end and s[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end:
        if s[pos] in "+-":
            pos += 1
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        if pos < end:
            return QUANTITY_FORMAT
    suffix = s[start:]
    if suffix in _DEC:
        fmt, exponent = "DecimalSI", _DEC[suffix]
    elif suffix in _BIN:
        fmt, exponent = "BinarySI", _BIN[suffix]
    elif len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suffix[1:]) \
            and -(2**63) <= int(suffix[1:]) < 2**63:
        fmt, exponent = "DecimalExponent", int(suffix[1:])
    else:
        return QUANTITY_SUFFIX
    if fmt == "BinarySI":
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1 if not denom else -1
        scale = 0
    else:
        precision, scale = 18 - (len(num) + len(denom)), exponent
    if precision >= 0 and scale - len(denom) >= -9:
        return None  # the fast path: num and denom are digits
    return None if _DEC_VALUE.fullmatch(value) else QUANTITY_NUMERIC
