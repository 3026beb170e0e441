"""`simulate --sweep`'s table keeps each variant on its own row: a variant's name or error holding a line break is
escaped (`excerpt.one_line`), and text that looks like rich markup is shown as written."""

from __future__ import annotations

from kadmit.render.simulation import sweep_human


def test_a_line_break_in_a_variant_name_or_error_stays_in_its_row() -> None:
    text = sweep_human({"variants": [
        {"variant": "a\nb", "error": "can't read\n`x.yaml`"},
        {"variant": "[red]c[/red]", "error": "[/x] closes\tnothing"}]})
    rows = [line for line in text.splitlines() if "error" in line]
    assert len(rows) == 2, text
    assert "a\\nb" in rows[0] and "can't read\\n`x.yaml`" in rows[0]
    assert "[red]c[/red]" in rows[1] and "[/x] closes\\tnothing" in rows[1]
