"""Same input, same answer within one process: `why` asked again (after other questions) gives the
blame sets and fixes a new process gives, as the language server and API users ask it."""

from __future__ import annotations

import re
from pathlib import Path

import z3

from kadmit import api
from kadmit.engine.solver.z3backend import fresh_context
from kadmit.render.why import why_json

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "ml-platform-kueue")
# Its blame enumerates several minimal cores: which ones a bounded search meets first followed Z3's
# numbering of terms, which the first question's leftovers changed for the second
WORKLOAD = "team-vision/llm-pretrain"


def _answer(workload: str) -> str:
    out = api.why(workload, [EXAMPLE], fixes=1)
    assert out.result is not None, out.diagnostics
    return re.sub(r'"(solve_)?seconds": [0-9.e-]+', "", why_json(out.result))  # the only timing in it


def test_why_twice_in_one_process_says_the_same():
    first = _answer(WORKLOAD)
    api.admit([EXAMPLE])  # other questions between: their terms stay behind in Z3's default context
    api.why("team-nlp/bert-finetune", [EXAMPLE], fixes=0)
    again = _answer(WORKLOAD)
    assert again == first


def test_each_question_has_a_context_of_its_own_and_gives_it_back():
    before = z3.main_ctx()
    with fresh_context():
        inside = z3.main_ctx()
        assert inside is not before
        with fresh_context():  # a question inside a question (why's proofs) shares it
            assert z3.main_ctx() is inside
        x = z3.Int("x")
        assert z3.Solver().check(x > 1) == z3.sat  # built in the question's context, solved there
    assert z3.main_ctx() is before
