"""Loading the grammar and the one LALR parser built from it; human names for its tokens."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Tree

# Statements that may start a line at column 1; recovery re-syncs at them.
TOP_KEYWORDS = ("topology", "flavor", "cohort", "cluster_queue", "local_queue", "priority",
                "namespace", "node", "workload", "scheduler", "require", "forbid", "prefer", "rule",
                "import", "admission_check", "provisioning_config", "multikueue_config", "multikueue_cluster")

_KINDS = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "CMP": "a comparison (`==`, `<`, …)",
    "$END": "end of file",
}


def grammar_text() -> str:
    """The grammar: packaged beside the module in a wheel, else from the source tree."""
    try:
        packaged = resources.files("kadmit").joinpath("grammar/kadmit.lark")
        if packaged.is_file():
            return packaged.read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        pass
    return (Path(__file__).resolve().parents[3] / "grammar" / "kadmit.lark").read_text(encoding="utf-8")


class _Comments:
    """Collects comment tokens during one parse (the parser is shared; parses don't overlap)."""

    def __init__(self) -> None:
        self.tokens: list[Token] = []

    def __call__(self, token: Token) -> Token:
        self.tokens.append(token)
        return token


COMMENTS = _Comments()


class _Meta:
    """Lark's `Meta` (where a rule's text starts and ends) in slots: a parse tree has one per node,
    and Lark's own keeps a dict of up to 13 entries each (~40 % of a parsed file's tree)."""

    __slots__ = ("empty", "line", "column", "start_pos", "end_line", "end_column", "end_pos",
                 "container_line", "container_column", "container_start_pos", "container_end_line",
                 "container_end_column", "container_end_pos", "orig_expansion", "match_tree")

    def __init__(self) -> None:
        self.empty = True


class _Tree(Tree):
    """Lark's `Tree`, its positions kept in a `_Meta`."""

    @property
    def meta(self) -> _Meta:  # type: ignore[override]
        if self._meta is None:
            self._meta = _Meta()
        return self._meta


@lru_cache(maxsize=1)
def parser() -> Lark:
    return Lark(grammar_text(), parser="lalr", lexer="contextual", propagate_positions=True,
                maybe_placeholders=False, lexer_callbacks={"COMMENT": COMMENTS}, tree_class=_Tree)


@lru_cache(maxsize=None)
def _patterns() -> dict[str, str]:
    out = {}
    for term in parser().terminals:
        if term.pattern.type == "str":
            out[term.name] = term.pattern.value
    return out


def describe_terminal(name: str) -> str:
    """`=` for punctuation and keywords, "a name" for classes of tokens, never Lark's own names."""
    if name in _KINDS:
        return _KINDS[name]
    value = _patterns().get(name)
    if value is not None:
        return f"`{value}`"
    return name.lower().replace("_", " ")


def describe_token(token: Token) -> str:
    """What was found: "`}`", "name `foo`", "end of file"."""
    if token.type == "$END":
        return "end of file"
    text = str(token)
    if len(text) > 40:
        text = text[:37] + "…"
    if token.type == "NAME":
        return f"name `{text}`"
    if token.type == "STRING":
        return f"string `{text}`"
    if token.type == "NUMBER":
        return f"number `{text}`"
    return f"`{text}`"


def expected_list(names: set[str] | frozenset[str], limit: int = 10) -> str:
    """A short, stable "one of" list: classes of tokens ("a name"), then punctuation, then words."""
    described = sorted({describe_terminal(n) for n in names},
                       key=lambda s: (s.startswith("`"), s[1:2].isalpha(), s))
    if len(described) > limit:
        described = described[:limit] + ["…"]
    return ", ".join(described)
