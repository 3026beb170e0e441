"""Any input gives diagnostics, never an exception; deep nesting is refused with a clear error."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.syntax import format_text, parse_text

from .strategies import policy

KEYWORDY = st.sampled_from(["flavor", "cohort", "{", "}", "[", "]", "=", "\n", " ", '"', "#", "->",
                            "require", "x", ":", "1.5", "64Gi", "and", "in", "(", ")", ",", "all",
                            "workload", "a/b", "pod_group", "resources", "match", "-", "\\"])


def check_no_raise(text: str) -> None:
    diags = Diagnostics()
    parse_text(text, "f.kad", diags)
    for d in diags:
        assert d.span is not None and d.span.line >= 1 and d.span.column >= 1
    out, _ = format_text(text, "f.kad")
    if out is not None:
        assert format_text(out, "f.kad")[0] == out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(text: str) -> None:
    check_no_raise(text)


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_decoded_never_raise(data: bytes) -> None:
    check_no_raise(data.decode("utf-8", errors="replace"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(KEYWORDY, max_size=40).map(" ".join))
def test_token_soup_never_raises(text: str) -> None:
    check_no_raise(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy(), st.integers(0, 400))
def test_truncated_policies_never_raise(text: str, cut: int) -> None:
    check_no_raise(text[:cut])


def codes_of(text: str) -> list[str]:
    diags = Diagnostics()
    parse_text(text, "f.kad", diags)
    return [d.code for d in diags.sorted()]


def test_deep_brackets_are_refused_not_recursed() -> None:
    for opener in "([{":
        assert codes_of("require x: " + opener * 50_000) == ["KAD104"]
    assert codes_of("require x: " + "(" * 20_000 + "1" + ")" * 20_000) == ["KAD104"]


def test_long_flat_expressions_are_refused_when_too_deep() -> None:
    assert codes_of("require x: " + " + ".join(["1"] * 5000) + " > 0") == ["KAD104"]
    assert codes_of("require x: " + "not " * 5000 + "true") == ["KAD104"]
    assert codes_of("require x: " + " and ".join(["true"] * 100)) == []


def test_huge_numbers_are_located_errors() -> None:
    text = "workload a/b { queue = q  pod_group p { count = 99999999999999999999  requests = { cpu = 10E } } }"
    diags = Diagnostics()
    parse_text(text, "f.kad", diags)
    assert [(d.code, d.span.column) for d in diags.sorted()] == [("KAD109", 49), ("KAD108", 90)]
    assert codes_of("node n { allocatable = { cpu = 9e99 } }") == ["KAD108"]


def test_too_many_errors_stop() -> None:
    codes = codes_of("flavor = \n" * 200)
    assert codes.count("KAD120") == 1 and codes.count("KAD100") == 50
