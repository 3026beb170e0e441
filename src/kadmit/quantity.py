"""Kubernetes quantities as exact integers of milli-units, and their canonical display.

Every quantity in the model is an `int` counting thousandths of the unit (so `500m` cpu is 500,
`2` GPUs are 2000 and `64Gi` of memory is 64 * 2**30 * 1000). Like Kubernetes' `MilliValue`,
a value finer than a milli-unit is rounded up. Floats never appear.
"""

from __future__ import annotations

import re
from fractions import Fraction

MILLI = 1000

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3), "": 1,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_RE = re.compile(
    r"^(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$")

# Kubernetes bounds quantities to what fits in its int64 scaled representation, and Kueue counts
# every resource but CPU in whole units (`Value()`, int64): we bound the milli-value to that.
MAX_UNITS = 2**63 - 1
MAX_MILLI = MAX_UNITS * 1000  # Kueue holds non-CPU amounts in int64 units, not milli-units
_MAX_EXPONENT = 30


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity, or is out of range."""


def parse_quantity(text: str | int) -> int:
    """Parse a quantity into milli-units.

    >>> parse_quantity("500m"), parse_quantity("2"), parse_quantity("1.5")
    (500, 2000, 1500)
    >>> parse_quantity("1Ki"), parse_quantity("2e3")
    (1024000, 2000000)
    """
    milli = parse_exact(text) * MILLI
    result = -((-milli.numerator) // milli.denominator)  # ceiling, as MilliValue rounds up
    if abs(result) > MAX_MILLI:
        raise QuantityError(f"quantity `{text}` is out of range")
    return result


def parse_exact(text: str | int) -> Fraction:
    """A quantity's exact value in units (`100u` is 1/10000), unrounded.

    >>> parse_exact("100u"), parse_exact("-1.5")
    (Fraction(1, 10000), Fraction(-3, 2))
    """
    if isinstance(text, bool):
        raise QuantityError("a quantity can't be a boolean")
    if isinstance(text, int):
        value = Fraction(text)
    else:
        s = text.strip()
        if len(s) > 64:
            raise QuantityError(f"quantity `{s[:20]}…` is too long")
        m = _RE.match(s)
        if not m:
            raise QuantityError(f"`{text}` is not a Kubernetes quantity (e.g. `500m`, `2`, `64Gi`, `1.5`, `2e3`)")
        num = Fraction(m.group("num"))
        suffix = m.group("suffix") or ""
        if suffix in _BINARY:
            mult: Fraction | int = _BINARY[suffix]
        elif suffix in _DECIMAL:
            mult = _DECIMAL[suffix]
        else:
            exp = int(suffix[1:])
            if abs(exp) > _MAX_EXPONENT:
                raise QuantityError(f"quantity `{text}` is out of range")
            mult = Fraction(10) ** exp
        value = num * mult
        if suffix in _BINARY and value > MAX_UNITS:  # ParseQuantity caps a BinarySI amount (`Ki`…`Ei`) at
            value = Fraction(MAX_UNITS)  # 2^63-1, what the API server keeps: "The max is just a simple cap."
        if m.group("sign") == "-":
            value = -value
    if abs(value) * MILLI > MAX_MILLI:
        raise QuantityError(f"quantity `{text}` is out of range")
    return value


_EXPONENT = re.compile(r"[eE][+-]?[0-9]+$")


def go_format(text: str | int | float) -> str:
    """The format Kubernetes' `ParseQuantity` gives a quantity written as `text`, which its `String`
    keeps: "BinarySI" (a `Ki`…`Ei` suffix), "DecimalExponent" (`e3`) or "DecimalSI" (any other,
    a number too). Only what a message in the API server's words needs (`resources.limit_ranger`).

    >>> go_format("2Gi"), go_format("1G"), go_format("1e3"), go_format(2)
    ('BinarySI', 'DecimalSI', 'DecimalExponent', 'DecimalSI')
    """
    if not isinstance(text, str):
        return "DecimalSI"
    s = text.strip()
    if s.endswith("i"):
        return "BinarySI"
    return "DecimalExponent" if ("e" in s or "E" in s) and _EXPONENT.search(s) else "DecimalSI"


_MEMORY_LIKE = ("memory", "ephemeral-storage", "storage", "hugepages-")


def is_memory_like(resource: str) -> bool:
    return resource.startswith(_MEMORY_LIKE)


def format_quantity(milli: int, resource: str = "") -> str:
    """The canonical text for a milli-value of `resource`.

    >>> format_quantity(500, "cpu"), format_quantity(16000, "cpu"), format_quantity(64 * 2**30 * 1000, "memory")
    ('500m', '16', '64Gi')
    """
    if milli % MILLI:
        return f"{milli}m"
    units = milli // MILLI
    if is_memory_like(resource) and units:
        for suffix, size in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
            if units % size == 0:
                return f"{units // size}{suffix}"
    return str(units)


def readable_quantity(milli: float, resource: str = "") -> str:
    """An amount of `resource` for people, rounded: memory in its largest binary unit with one
    decimal (`43.9Ti`, `192Gi`), CPU in cores with one decimal (`0.5`, `3.2`, `19.5`, `96`; under
    a core in millicores), anything else — GPUs, pods — as a whole number (a mean of 703.6 GPUs
    reads `704`). CPU keeps its decimal past 10 cores too: whole cores showed 19.5 cores used of
    a quota of 20 as `20`, beside a utilisation of 97.5%.

    >>> readable_quantity(48 * 2**40 * 1000 // 10, "memory"), readable_quantity(3222, "cpu"), readable_quantity(703600, "nvidia.com/gpu")
    ('4.8Ti', '3.2', '704')
    >>> readable_quantity(19500, "cpu"), readable_quantity(20000, "cpu"), readable_quantity(703640, "cpu")
    ('19.5', '20', '703.6')
    """
    units = milli / MILLI
    if is_memory_like(resource):
        for suffix, size in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
            if abs(units) >= size:
                return f"{units / size:.1f}".removesuffix(".0") + suffix
        return str(round(units))
    if resource == "cpu":
        return f"{units:.1f}".removesuffix(".0") if abs(units) >= 0.95 or units == 0 else f"{round(milli)}m"
    return str(round(units))


def format_count(milli: int) -> str:
    """A plain number of whole units where exact, else milli-units."""
    return str(milli // MILLI) if milli % MILLI == 0 else f"{milli}m"


# --- Kubernetes' own text of a quantity (resource.Quantity.String) ---------------------------------

_DEC_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BIN_SUFFIX = {10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}


def quantity_string(milli: int, fmt: str = "DecimalSI") -> str:
    """`Quantity.String` of a quantity of `milli` milli-units kept in format `fmt` (quantity.go_format):
    `1G` stays `1G`, `1000M` is `1G`, `1.5Gi` is `1536Mi`, `2000m` is `2`."""
    return canonical_quantity(Fraction(milli, 1000), fmt)


def canonical_quantity(value: Fraction, fmt: str) -> str:
    """`Quantity.CanonicalizeBytes`: the number and its suffix."""
    if value == 0:
        return "0"
    if fmt == "BinarySI" and (-1024 < value < 1024 or value.denominator != 1):
        fmt = "DecimalSI"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if fmt == "BinarySI":
        number, times = int(magnitude), 0
        while number >= 1024 and number % 1024 == 0:
            number, times = number // 1024, times + 1
        return f"{sign}{number}{_BIN_SUFFIX.get(times * 10, '')}"
    number, exponent = int(magnitude * 10**9), -9  # exact: parsed values are whole nano-units
    while number >= 10 and number % 10 == 0:
        number, exponent = number // 10, exponent + 1
    while exponent % 3:
        number, exponent = number * 10, exponent - 1
    if fmt == "DecimalExponent":
        suffix = f"e{exponent}" if exponent else ""
    else:
        suffix = _DEC_SUFFIX.get(exponent, "")
    return f"{sign}{number}{suffix}"
