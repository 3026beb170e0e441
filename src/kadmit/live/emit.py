"""Objects listed as JSON (`kubectl get -o json`, or the API server's through `kubectl proxy`) -> the YAML
text a snapshot holds and, in the same pass, the located trees (`manifests.yamltree.Val`) reading that text
gives, so that `--cluster` never parses it again.

The text is laid out as kubectl's `-o yaml` lays out an object (go-yaml: the keys sorted; two-space
indent; a list at its key's column; `- ` items; `{}` and `[]` when empty; text with line breaks as a
literal block), so a person reads and replays it as before. A
string is written plain when a YAML reader reads it back as that same string, else double-quoted (JSON's
escapes are YAML's, and the few characters YAML would read otherwise are escaped too). Every tree node's
place is where `parse_documents` puts it in that text (tests/live/test_emit.py checks the two agree,
node for node, on real listings and on generated values). A document this layout can't write (a key
longer than YAML allows a plain key to be) is written by PyYAML's dumper and its tree read from that
text: the same result, at the parser's cost.
"""

from __future__ import annotations

import json
import re

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import goyaml
from kadmit.manifests.yamltree import BOOL, FLOAT, MAP, NULL, SEQ, STR, Val, parse_documents
from kadmit.pyyaml import yaml
from yaml.resolver import Resolver

_IMPLICIT = Resolver.yaml_implicit_resolvers  # first character -> [(tag, regexp)]: what YAML 1.1 may read
MAX_KEY = 1000  # YAML reads an implicit (plain or quoted) key of at most 1024 characters
# A plain scalar: no indicator first, no control or line-break characters, no `: ` or ` #`, no `...`
# (a document's end at column 0), no trailing `:` or blank.
_NOT = "\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"  # control, line-break and non-characters
_PLAIN = re.compile(f"[^\\s\\-?:,\\[\\]{{}}#&*!|>'\"%@`.\\\\{_NOT}][^{_NOT}]*")
_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_IN_BLOCK = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"  # _NOT less tab and line feed
_LITERAL = re.compile(f"[^\\s{_IN_BLOCK}][^{_IN_BLOCK}]*", re.S)
_STR_TAG = "tag:yaml.org,2002:str"
_new = object.__new__


def _plain(s: str) -> bool:
    """Whether `s` written plain reads back as the string `s`."""
    if not _PLAIN.fullmatch(s) or ": " in s or " #" in s or s[-1] in ": \t" or "\t" in s:
        return False
    if s[0] in goyaml.FIRST and goyaml.resolve("", s)[0] != goyaml.STR_TAG:  # kubectl's reading (and kadmit's)
        return False
    for tag, regexp in _IMPLICIT.get(s[0], ()):  # and YAML 1.1's other readers (PyYAML): quoted for them too
        if tag != _STR_TAG and regexp.match(s):
            return False
    return True


_TEXT: dict[str, str] = {}  # strings written before -> how (keys and values repeat by the thousand)
_TEXT_MAX = 65_536


def text_of(s: str) -> str:
    """How a string (a key or a value) is written: plain, or double-quoted."""
    got = _TEXT.get(s)
    if got is None:
        got = s if s and _plain(s) else quoted(s)
        if len(_TEXT) >= _TEXT_MAX:
            _TEXT.clear()
        _TEXT[s] = got
    return got


def quoted(s: str) -> str:
    """`s` double-quoted: JSON's escapes, and \\uXXXX for the characters YAML would not read as written."""
    text = json.dumps(s, ensure_ascii=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _UNSAFE.search(text) else text


def scalar(v) -> tuple[str, str, object]:
    """A JSON scalar's text, and the kind and value reading it back gives."""
    t = type(v)
    if t is str:
        return text_of(v), STR, v
    if t is bool:
        return ("true" if v else "false"), BOOL, v
    if t is int:
        kind, value = goyaml.scalar(None, str(v), True)  # past uint64 a float, as go-yaml reads it back
        return str(v), kind, value
    if t is float:
        text = repr(v)
        if "e" in text and "." not in text.split("e")[0]:  # YAML 1.1 reads `1e+20` as a string
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}.0e{exponent}"
        return text, FLOAT, v
    if v is None:
        return "null", NULL, None
    raise TypeError(f"not a JSON value: {t.__name__}")


def _literal(s: str) -> str | None:
    """The literal block header (`|`, `|-`, `|+`) `s` is written with, or None: written quoted."""
    if "\n" not in s or not _LITERAL.fullmatch(s) or "\r" in s:
        return None
    if not s.endswith("\n"):
        return "|-"
    return "|+" if s.endswith("\n\n") else "|"


class TooLong(Exception):
    """A key longer than YAML reads as a plain or quoted key."""


class Emitter:
    """Writes documents' lines, numbering them from `line` (0-based: the first line written)."""

    def __init__(self, line: int = 0) -> None:
        self.lines: list[str] = []
        self.base = line

    def document(self, obj) -> Val:
        """One object as a document (no `---`); its tree."""
        start = len(self.lines)
        try:
            if type(obj) is dict and obj:
                return self._map(obj, 0, "")
            if type(obj) is list and obj:
                return self._seq(obj, 0, "")
        except TooLong:
            del self.lines[start:]
        return self._dumped(obj)

    def _dumped(self, obj) -> Val:
        """PyYAML's dumper writes it; its tree is read back from that text."""
        at = self.base + len(self.lines)
        text = yaml.safe_dump(obj, sort_keys=True, allow_unicode=True, width=1 << 30)
        self.lines.extend(text.rstrip("\n").split("\n"))
        tree = next(parse_documents(text, "", Diagnostics()))
        stack = [tree]
        while stack:
            node = stack.pop()
            node.line += at
            node.end_line += at
            if node.kind == MAP:
                node.keys = {k: (a + at, b, c + at, d) for k, (a, b, c, d) in node.keys.items()}
                stack.extend(node.v.values())
            elif node.kind == SEQ:
                stack.extend(node.v)
        return tree

    def _value(self, head: str, v, indent: int, line: int) -> Val:
        """A value after `head` (a key and `:`, or `- ` items) on line `line`; a collection starts on the next
        line at `indent` (`- ` items of a list at its key's column: `indent` less two)."""
        lines = self.lines
        t = type(v)
        if t is str and "\n" not in v:  # the most common value, inline
            text = _TEXT.get(v) or text_of(v)
            lines.append(f"{head} {text}")
            node = _new(Val)
            col = len(head) + 1
            node.kind, node.v, node.line, node.col, node.end_line, node.end_col = STR, v, line, col, line, col + len(text)
            return node
        if t is dict and v:
            lines.append(head)
            return self._map(v, indent, None)
        if t is list and v:
            lines.append(head)
            return self._seq(v, indent - 2, None)
        col = len(head) + 1
        if t is dict or t is list:
            lines.append(head + (" {}" if t is dict else " []"))
            node = Val(MAP if t is dict else SEQ, {} if t is dict else [], line, col, line, col + 2)
            if t is dict:
                node.keys = {}
            return node
        if t is str and "\n" in v:
            header = _literal(v)
            if header is not None:
                return self._block(head, header, v, indent, line, col)
        text, kind, value = scalar(v)
        lines.append(f"{head} {text}")
        node = _new(Val)
        node.kind, node.v, node.line, node.col, node.end_line, node.end_col = kind, value, line, col, line, col + len(text)
        return node

    def _block(self, head: str, header: str, v: str, indent: int, line: int, col: int) -> Val:
        lines = self.lines
        lines.append(f"{head} {header}")
        body = v.split("\n")
        if v.endswith("\n"):
            body.pop()
        pad = " " * indent
        lines.extend(pad + part if part else "" for part in body)
        end = line + 1 + len(body)
        return Val(STR, v, line, col, end, 0)

    def _map(self, obj: dict, indent: int, lead: str | None) -> Val:
        """A non-empty mapping at column `indent`; its first key after `lead` (`- `, of the same width) when given."""
        lines = self.lines
        pad = " " * indent
        values: dict[str, Val] = {}
        keys: dict[str, tuple[int, int, int, int]] = {}
        start = self.base + len(lines)
        prefix = pad if lead is None else lead
        v = None
        texts, new = _TEXT, _new
        for k in sorted(obj):  # as kubectl writes them (the API server's JSON has them in its types' order)
            item = obj[k]
            text = texts.get(k) or text_of(k)
            if len(text) > MAX_KEY:
                raise TooLong(k)
            line = self.base + len(lines)
            end = indent + len(text)
            keys[k] = (line, indent, line, end)
            if type(item) is str and "\n" not in item:  # the most common value, inline
                written = texts.get(item) or text_of(item)
                lines.append(f"{prefix}{text}: {written}")
                v = values[k] = new(Val)
                v.kind, v.v, v.line, v.col, v.end_line, v.end_col = STR, item, line, end + 2, line, end + 2 + len(written)
            else:
                v = values[k] = self._value(f"{prefix}{text}:", item, indent + 2, line)
            prefix = pad
        node = Val(MAP, values, start, indent, v.end_line, v.end_col)
        node.keys = keys
        return node

    def _seq(self, items: list, indent: int, lead: str | None) -> Val:
        """A non-empty list whose `- ` are at column `indent`; its first item after `lead` when given."""
        lines = self.lines
        pad = " " * indent
        out: list[Val] = []
        start = self.base + len(lines)
        prefix = (pad if lead is None else lead) + "- "
        for item in items:
            line = self.base + len(lines)
            t = type(item)
            if t is dict and item:
                out.append(self._map(item, indent + 2, prefix))
            elif t is list and item:
                out.append(self._seq(item, indent + 2, prefix))
            else:
                out.append(self._value(prefix[:-1], item, indent + 2, line))
            prefix = pad + "- "
        return Val(SEQ, out, start, indent, out[-1].end_line, out[-1].end_col)
