"""`kadmit codes`: the table of every registered code, and one code's description."""

from __future__ import annotations

from kadmit.diagnostics import all_codes


def test_table_lists_every_stage_sorted(run):
    result = run("codes")
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.stdout.splitlines()]
    assert listed == sorted(listed)
    assert listed == [c.code for c in all_codes()]
    assert {"KAD001", "KAD005", "KAD006", "KAD007"} <= set(listed)
    assert any(c.startswith("KAD1") for c in listed)  # the syntax stage was imported
    assert any(c.startswith("KAD2") for c in listed)  # and validation
    assert "KAD001  error    unreadable input" in result.stdout


def test_one_code_is_explained(run):
    result = run("codes", "kad006")
    assert result.exit_code == 0
    assert result.stdout.startswith("KAD006: unwritable output (error)\n\n")
    assert "temporary file" in result.stdout


def test_unknown_code_suggests_a_close_one(run):
    result = run("codes", "KAD00")
    assert result.exit_code == 2
    assert "error[KAD007]: unknown diagnostic code `KAD00`" in result.stderr
    assert "did you mean" in result.stderr
