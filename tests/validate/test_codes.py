"""The KAD2xx code table: registered, documented, exercised, and docs/codes.md up to date."""

from __future__ import annotations

from pathlib import Path

from kadmit.diagnostics import Diagnostics, all_codes
from kadmit.validate import render_code_table, typecheck_rule

from .test_checks import CASES, run
from .test_rules import INDEX, REJECTED
from .test_scheduler_config import CASES as SCHEDULER_CASES
from .exprs import B, I, R, T, rule

DOC = Path(__file__).resolve().parents[2] / "docs" / "codes.md"


def _validation_codes():
    return [c for c in all_codes() if c.code.startswith("KAD2")]


def test_codes_are_documented():
    codes = _validation_codes()
    assert codes
    for c in codes:
        assert 200 <= int(c.code[3:]) <= 299
        assert c.title and c.title == c.title.strip() and c.description.endswith((".", ")"))


def test_every_code_is_exercised_by_a_table_case():
    emitted: set[str] = set()
    for _, objects, _, _ in CASES + SCHEDULER_CASES:
        emitted |= {d.code for d in run(*objects)}
    for _, expr, _, _ in REJECTED:
        d = Diagnostics()
        typecheck_rule(rule(expr), INDEX, d)
        emitted |= {x.code for x in d}
    extra = Diagnostics()
    typecheck_rule(rule(T(), kind="prefer"), INDEX, extra)
    typecheck_rule(rule(B(R("pod_group.requests[fpga]"), ">", I(0))), INDEX, extra)
    emitted |= {x.code for x in extra}
    assert {c.code for c in _validation_codes()} - emitted == set()


def test_code_table_lists_every_code_once():
    table = render_code_table()
    for c in all_codes():
        assert table.count(f"| {c.code} |") == 1


def test_docs_codes_md_is_generated():
    assert DOC.read_text(encoding="utf-8") == render_code_table(), (
        "docs/codes.md is stale: run `python -m kadmit.validate > docs/codes.md`")
