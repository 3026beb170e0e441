"""The fast `.kad` reader (`syntax.descent`) against the reference, Lark's parse of grammar/kadmit.lark:
whenever the fast reader accepts a text, Lark reads it without a diagnostic into the same syntax tree
(every span, every comment); whatever it doesn't accept goes to Lark, which reports it."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit.diagnostics import Diagnostics
from kadmit.source import Span
from kadmit.syntax import descent, parse_text
from kadmit.syntax.grammar import parser
from kadmit.syntax.lower import parse_file, parse_file_lark

from .strategies import policy

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(p for d in ("examples", "tests") for p in (ROOT / d).rglob("*.kad"))
GOOD = [p for p in CORPUS if "/bad/" not in p.as_posix()]


def dump(x):
    """A syntax tree as plain data, spans included (spans alone compare equal to any span)."""
    if isinstance(x, Span):
        return ("span", x.file, x.line, x.column, x.end_line, x.end_column)
    if dataclasses.is_dataclass(x):
        return (type(x).__name__,) + tuple(dump(getattr(x, f.name)) for f in dataclasses.fields(x))
    if isinstance(x, list):
        return [dump(i) for i in x]
    return x


def comments(tokens) -> list:
    return [(str(t), t.line, t.column, t.end_line, t.end_column) for t in tokens]


def agree(text: str) -> bool:
    """Check the fast reader against Lark on `text`; whether the fast reader accepted it."""
    diags = Diagnostics()
    ref_tree, ref_comments = parse_file_lark(text, "t.kad", diags)
    try:
        tree, toks = descent.parse(text, "t.kad")
    except descent.Fallback:
        return False
    assert not len(diags), (text, [d.message for d in diags])
    assert dump(tree) == dump(ref_tree), text
    assert comments(toks) == comments(ref_comments), text
    return True


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_corpus_same_as_lark(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    accepted = agree(text)
    crlf = agree(text.replace("\n", "\r\n"))
    if path in GOOD:
        assert accepted and crlf, "the fast reader should read every clean file of the corpus"


@settings(max_examples=60, deadline=None)
@given(policy())
def test_generated_policies_same_as_lark(text: str) -> None:
    assert agree(text)


# --- random sentences of the grammar itself, with every keyword also drawn as a name ---------

_KEYWORDS = sorted({t.pattern.value for t in parser().terminals
                    if t.pattern.type == "str" and t.pattern.value.isidentifier()})
_SAMPLES = {
    "NAME": ["a", "x1", "spot-cpu", "nvidia.com/gpu", "team-a/train", "workload.requests", "_u"] + _KEYWORDS,
    "STRING": ['"s"', '""', '"a b"', '"q\\"x"', '"\\u00e9"', '"\\n"', '"bad\\q"'],
    "NUMBER": ["0", "7", "16", "1.5", "500m", "64Gi", "2e3", "1E", "300"],
    "CMP": ["==", "!=", "<", "<=", ">", ">="],
}
_SEPS = [" ", " ", " ", "\n", "  ", "\n\n  ", " # c\n", " // d\n", "\t", ""]


def _min_depths() -> dict[str, int]:
    rules = parser().rules
    depth: dict[str, int] = {}
    changed = True
    while changed:
        changed = False
        for r in rules:
            if all(s.is_term or s.name in depth for s in r.expansion):
                d = 1 + max([depth[s.name] for s in r.expansion if not s.is_term], default=0)
                if d < depth.get(r.origin.name, 10**9):
                    depth[r.origin.name] = d
                    changed = True
    return depth


def sentence(rnd: random.Random, budget: int = 12) -> str:
    """A random derivation from `start`, shallow expansions once `budget` levels are used; names
    include every keyword, and separators are sometimes empty (so tokens may run together)."""
    rules: dict[str, list] = {}
    for r in parser().rules:
        rules.setdefault(r.origin.name, []).append(r.expansion)
    depths = _min_depths()
    literal = {t.name: t.pattern.value for t in parser().terminals if t.pattern.type == "str"}
    out: list[str] = []

    def walk(sym: str, level: int) -> None:
        options = [e for e in rules[sym] if e] if sym == "start" else rules[sym]
        if level > budget:
            best = min(1 + max([depths[s.name] for s in e if not s.is_term], default=0) for e in options)
            options = [e for e in options
                       if 1 + max([depths[s.name] for s in e if not s.is_term], default=0) == best]
        for s in rnd.choice(options):
            if s.is_term:
                out.append(literal.get(s.name) or rnd.choice(_SAMPLES[s.name]))
                out.append(rnd.choice(_SEPS))
            else:
                walk(s.name, level + 1)

    walk("start", 0)
    return "".join(out)


def test_grammar_sentences_same_as_lark() -> None:
    rnd = random.Random(11)
    accepted = sum(agree(sentence(rnd)) for _ in range(400))
    assert accepted >= 100  # the comparison isn't vacuous: the fast reader takes most clean sentences


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_mutated_sentences_same_as_lark(seed: int, cut: int) -> None:
    """Cut, doubled or swapped pieces: the fast reader accepts only what Lark reads the same."""
    rnd = random.Random(seed)
    text = sentence(rnd, budget=8)
    if not text:
        return
    i, j = sorted((cut % len(text), rnd.randrange(len(text))))
    for variant in (text[:i] + text[j:], text[:j] + text[i:j] + text[j:], text[:i] + text[j:] + text[i:j],
                    text[:i] + rnd.choice(["{", "}", "(", "-", "\"", "=", "->", ","]) + text[i:]):
        agree(variant)


def test_fallback_keeps_every_diagnostic() -> None:
    """A file the fast reader gives up on is Lark's: its errors, recovery and all."""
    text = "flavor a {\n  x = \n}\nflavor b { y = [1, }\nflavor c { z = 1 }\n"
    with pytest.raises(descent.Fallback):
        descent.parse(text, "t.kad")
    diags = Diagnostics()
    tree, _ = parse_file(text, "t.kad", diags)
    assert [(d.message, str(d.span)) for d in diags] == [("unexpected `}`", "t.kad:3:1"),
                                                         ("unexpected `}`", "t.kad:4:20")]
    assert [s.label.value for s in tree.stmts] == ["c"]


def test_deep_statements_go_to_lark() -> None:
    deep = "require r: " + "(" * 160 + "x" + ")" * 160 + "\nflavor f {}\n"
    with pytest.raises(descent.Fallback):
        descent.parse(deep, "t.kad")
    diags = Diagnostics()
    frag = parse_text(deep, "t.kad", diags)
    assert [d.message for d in diags] == ["nested too deeply: this statement's expression is more than "
                                          "150 levels deep"]
    assert [f.name for f in frag.flavors] == ["f"]
