"""YAML scalars as kubectl reads them: go-yaml v2's resolution, through sigs.k8s.io/yaml's conversion to JSON.

kubectl (`create`, `apply`: k8s.io/apimachinery's YAML decoder) and Kueue's configuration loader convert
YAML to JSON with sigs.k8s.io/yaml.YAMLToJSON, which reads it with go-yaml v2 (go.yaml.in/yaml/v2): YAML
1.1's booleans with `y`/`n` (`y`, `yes`, `on`, `true`... in three cases), integers as Go's strconv reads
them (`0x1F`, `0o17`, `017`, `0b101`, `1_000`; none sexagesimal), numbers with an exponent without a dot
(`1e3`), dates and times kept as the text written, and a plain key resolved as a value is (`yes:` is the
key "true"). PyYAML resolves YAML 1.1 its own way; kadmit's reader takes only its events, and resolves
each plain scalar here, step for step as go-yaml's resolve.go and decode.go do (tests/oracle/test_yaml_scalars.py
compares every form with the real conversion).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from datetime import datetime

STR, INT, FLOAT, BOOL, NULL = "str", "int", "float", "bool", "null"  # yamltree's kinds of value (it imports this)

TAG = "tag:yaml.org,2002:"
STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG, BINARY_TAG, MERGE_TAG = (
    TAG + t for t in ("str", "bool", "int", "float", "null", "timestamp", "binary", "merge"))
_RESOLVABLE = {"", STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG}

_MAP: dict[str, tuple[str, str, object]] = {}  # resolve.go's resolveMap: text -> (tag, kind, value)
for _value, _words in ((True, "y Y yes Yes YES true True TRUE on On ON"),
                       (False, "n N no No NO false False FALSE off Off OFF")):
    for _w in _words.split():
        _MAP[_w] = (BOOL_TAG, BOOL, _value)
for _w in ("", "~", "null", "Null", "NULL"):
    _MAP[_w] = (NULL_TAG, NULL, None)
for _words, _value in ((".nan .NaN .NAN", math.nan), (".inf .Inf .INF +.inf +.Inf +.INF", math.inf),
                       ("-.inf -.Inf -.INF", -math.inf)):
    for _w in _words.split():
        _MAP[_w] = (FLOAT_TAG, FLOAT, _value)
_MAP["<<"] = (MERGE_TAG, STR, "<<")

# resolve.go's resolveTable: the first characters that may start something other than a string
_HINT = {**{c: "S" for c in "+-"}, **{c: "D" for c in "0123456789"}, **{c: "M" for c in "yYnNtTfFoO~"}, ".": "."}
FIRST = frozenset(_HINT)  # a plain scalar starting otherwise (and not empty) is a string

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_GO_FLOAT = re.compile(rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?")
_BASE_DIGITS = {2: re.compile(r"[01]+"), 8: re.compile(r"[0-7]*"), 10: re.compile(r"[0-9]+"),
                16: re.compile(r"[0-9a-fA-F]+")}
_INT64, _UINT64 = 1 << 63, 1 << 64


class Refused(Exception):
    """go-yaml (or sigs.k8s.io/yaml's conversion) refuses the document: kubectl can't read it."""


def _go_uint(s: str, base: int) -> int | None:
    """strconv.ParseUint's digits (no sign, no underscores: go-yaml removed them), or None."""
    if base == 0:
        base = 10
        if s[:1] == "0":
            if len(s) >= 3 and s[1] in "bB":
                base, s = 2, s[2:]
            elif len(s) >= 3 and s[1] in "oO":
                base, s = 8, s[2:]
            elif len(s) >= 3 and s[1] in "xX":
                base, s = 16, s[2:]
            else:
                base, s = 8, s[1:]
                if not _BASE_DIGITS[8].fullmatch(s):
                    return None
                return int(s, 8) if s else 0
    if not _BASE_DIGITS[base].fullmatch(s):
        return None
    n = int(s, base)
    return n if n < _UINT64 else None


def go_parse_int(s: str, base: int = 0) -> int | None:
    """strconv.ParseInt(s, base, 64), or None where Go refuses it (its syntax, its range)."""
    if not s:
        return None
    neg = s[0] == "-"
    u = _go_uint(s[1:] if s[0] in "+-" else s, base) if s[1:] or s[0] not in "+-" else None
    if u is None:
        return None
    if neg:
        return -u if u <= _INT64 else None
    return u if u < _INT64 else None


def go_parse_uint(s: str, base: int = 0) -> int | None:
    """strconv.ParseUint(s, base, 64), or None."""
    return _go_uint(s, base) if s else None


def go_parse_float(s: str) -> float | None:
    """strconv.ParseFloat(s, 64) of a decimal literal (underscores between digits), or None where Go
    refuses it (its syntax, or out of range: Go returns an error with ±Inf)."""
    if not _GO_FLOAT.fullmatch(s):
        return None
    x = float(s.replace("_", ""))
    return None if math.isinf(x) else x


def _timestamp(s: str) -> bool:
    """resolve.go's parseTimestamp: `YYYY-` first, then one of go-yaml's layouts (time.Parse)."""
    if len(s) < 5 or not re.fullmatch(r"[0-9]{4}-", s[:5]):
        return False
    return any(_layout(s, layout) for layout in _LAYOUTS)


# go-yaml v2's allowedTimestampFormats, as patterns: short date fields, optional fraction, zone.
_D = "[0-9]"
_LAYOUTS = tuple(re.compile(p.replace("D", _D)) for p in (
    r"(DDDD)-(DD?)-(DD?)T(DD?):(DD?):(DD?)(?:[.,](D+))?(Z|[+-]DD:DD)",
    r"(DDDD)-(DD?)-(DD?)t(DD?):(DD?):(DD?)(?:[.,](D+))?(Z|[+-]DD:DD)",
    r"(DDDD)-(DD?)-(DD?) (DD?):(DD?):(DD?)(?:[.,](D+))?",
    r"(DDDD)-(DD?)-(DD?)",
))


def _layout(s: str, layout: re.Pattern) -> bool:
    m = layout.fullmatch(s)
    if m is None:
        return False
    g = m.groups()
    try:
        datetime(int(g[0]), int(g[1]), int(g[2]), *(int(x) for x in g[3:6] if x is not None))
    except ValueError:
        return False
    if len(g) > 7 and g[7] not in (None, "Z"):
        hours, minutes = int(g[7][1:3]), int(g[7][4:6])
        return hours < 24 and minutes < 60
    return True


def resolve(tag: str, text: str) -> tuple[str, str, object]:
    """resolve.go's resolve for a tag go-yaml resolves ("" for a plain scalar): (the tag it resolves to,
    kadmit's kind, the value). A timestamp is its text (decode.go keeps it a string)."""
    hint = _HINT.get(text[:1], "N" if not text else None)
    if hint is None or tag == STR_TAG:
        return STR_TAG, STR, text
    known = _MAP.get(text)
    if known is not None:
        return known
    if hint == ".":
        x = go_parse_float(text)
        if x is not None:
            return FLOAT_TAG, FLOAT, x
    elif hint in ("D", "S"):
        if tag in ("", TIMESTAMP_TAG) and _timestamp(text):
            return TIMESTAMP_TAG, STR, text
        plain = text.replace("_", "")
        n = go_parse_int(plain)
        if n is None:
            n = go_parse_uint(plain)
        if n is not None:
            return INT_TAG, INT, n
        if _YAML_STYLE_FLOAT.fullmatch(plain):
            x = go_parse_float(plain)
            if x is not None:
                return FLOAT_TAG, FLOAT, x
        if plain.startswith("0b"):
            n = go_parse_int(plain[2:], 2)
            if n is None:
                n = go_parse_uint(plain[2:], 2)
            if n is not None:
                return INT_TAG, INT, n
        elif plain.startswith("-0b"):
            n = go_parse_int("-" + plain[3:], 2)
            if n is not None:
                return INT_TAG, INT, n
    return STR_TAG, STR, text


def _short(tag: str) -> str:
    return "!!" + tag[len(TAG):] if tag.startswith(TAG) else tag


def scalar(tag: str | None, text: str, plain: bool) -> tuple[str, object]:
    """A scalar node's kind and value as decode.go's scalar reads it into an interface{} (`tag` None when
    the node has none; `plain`: written without quotes). Raises Refused with go-yaml's error."""
    if tag is None:
        if not plain:
            return STR, text
        tag = ""
    if tag == BINARY_TAG:
        try:
            data = base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            raise Refused("yaml: !!binary value contains invalid base64 data") from None
        return STR, data.decode("utf-8", "replace")
    if tag not in _RESOLVABLE:
        return STR, text  # any other tag (`!`, `!custom`, `!!python/...`): go-yaml keeps the text
    rtag, kind, value = resolve(tag, text)
    if tag not in ("", rtag, STR_TAG):
        if tag == FLOAT_TAG and rtag == INT_TAG and value < _INT64:  # go-yaml converts a Go int, not a uint64
            return FLOAT, float(value)
        raise Refused(f"yaml: cannot decode {_short(rtag)} `{text}` as a {_short(tag)}")
    return kind, value


def non_finite(x: float) -> str:
    """What Go's json.Marshal says of a float JSON can't hold."""
    return "json: unsupported value: " + ("NaN" if math.isnan(x) else "+Inf" if x > 0 else "-Inf")


def key_text(kind: str, value: object, text: str) -> str:
    """The JSON key sigs.k8s.io/yaml makes of a resolved mapping key (convertToJSONableObject); raises
    Refused for a key it can't convert (null, an integer past int64)."""
    if kind == STR:
        return value  # a string (a timestamp's text too)
    if kind == BOOL:
        return "true" if value else "false"
    if kind == INT:
        if -_INT64 <= value < _INT64:
            return str(value)
        raise Refused(f"unsupported map key of type: uint64, key: {value:#x}, value: …")
    if kind == FLOAT:
        return _format_float32_g(value)
    raise Refused("unsupported map key of type: %!s(<nil>), key: <nil>, value: …")


def _format_float32_g(x: float) -> str:
    """strconv.FormatFloat(x, 'g', -1, 32) (shortest digits of the float32; `e` form for an exponent below
    -4 or from 6), with sigs.k8s.io/yaml's names for infinity and NaN."""
    f32 = struct.unpack("f", struct.pack("f", x))[0] if math.isfinite(x) and abs(x) < 3.5e38 else x
    if abs(x) >= 3.5e38 and math.isfinite(x):
        f32 = math.inf if x > 0 else -math.inf
    if math.isnan(f32):
        return ".nan"
    if math.isinf(f32):
        return ".inf" if f32 > 0 else "-.inf"
    if f32 == 0:
        return "-0" if math.copysign(1, f32) < 0 else "0"
    for precision in range(0, 9):  # the shortest digits that read back as the same float32
        text = f"{f32:.{precision}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            break
    mantissa, exp = text.split("e")
    sign, exponent = ("-" if mantissa[0] == "-" else ""), int(exp)
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    if exponent < -4 or exponent >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"
