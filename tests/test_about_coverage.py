"""Every diagnostic of the manifest reader and the validator (validate/codes.py, manifests/codes.py) that concerns
an object says which (`Diagnostic.about`; `about` in JSON, SARIF's logical locations, the language server's
related information): read from the source, so a new one that does not cannot land. One passes when it
- gives `about=` where it is emitted (the validator's all do, `identity.about`), or
- is reported through the manifest reader's `Fields` (`f.…`, `self.f.…`, or `Fields`' own helpers): those run while
  `Reader.read` reads one object and name it (`Diagnostics.concerning`), or
- has a code about no object: a file's YAML (KAD150–KAD153, KAD173), a document that is no object (KAD154,
  KAD020), a kind not read, counted over its objects (KAD159).
The objects themselves are checked through `check --format json` in tests/cli/test_diagnostics_about.py."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from kadmit.manifests import codes as manifest_codes
from kadmit.validate import codes as validate_codes

SRC = Path(__file__).resolve().parents[1] / "src" / "kadmit"
NOT_ABOUT_AN_OBJECT = {
    "KAD150": "the YAML of a file does not parse", "KAD151": "a mapping repeats a key", "KAD152": "YAML anchors",
    "KAD153": "a YAML value kubectl cannot send", "KAD173": "a key repeated with another value",
    "KAD154": "a document that is not a mapping", "KAD020": "a file or document kadmit does not read as objects",
    "KAD159": "a kind kadmit does not read, reported once for all its objects (each is listed as skipped)"}
# sites let pass without `about=` (each a debt to pay, none now): the scan flags every other, and one listed here
# that gives `about=` fails the test until it is taken off
KNOWN_GAPS: set[tuple[str, str]] = set()
FIELDS_INTERNALS = {"manifests/fields.py", "manifests/configtypes.py"}  # `Fields`' reporting helpers


def _codes() -> dict[str, str]:
    """The validator's and the manifest reader's codes, by the names the source gives them."""
    return {name: value for m in (validate_codes, manifest_codes) for name, value in vars(m).items()
            if name.isupper() and isinstance(value, str) and value.startswith("KAD")}


@functools.cache
def _emits() -> tuple:
    """(file, line, code or None for one passed in a variable, the function it is in, the receiver's text, whether
    `about=` is given) of each
    `….emit(…)` of one of those codes, or of a code in a variable under validate/ or manifests/. Read once for
    both tests (parsing the source's files is most of their time)."""
    return tuple(_scan())


def _scan():
    names = _codes()
    known = set(names.values())
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        source = path.read_text()
        if "emit" not in source:
            continue  # no `….emit(…)` in it (three files of four): not parsed
        tree = ast.parse(source)
        functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit"
                    and node.args):
                continue
            first = node.args[0]
            name = first.id if isinstance(first, ast.Name) else first.attr if isinstance(first, ast.Attribute) else None
            code = first.value if isinstance(first, ast.Constant) and first.value in known else names.get(name)
            if code is None and not (name and name.islower() and rel.startswith(("validate/", "manifests/"))):
                continue
            inside = min((f for f in functions if f.lineno <= node.lineno <= f.end_lineno),
                         key=lambda f: f.end_lineno - f.lineno, default=None)
            yield (rel, node.lineno, code, inside.name if inside else "", ast.unparse(node.func.value),
                   any(k.arg == "about" for k in node.keywords))


def test_every_diagnostic_of_an_object_names_it() -> None:
    missing, gaps = [], set()
    for rel, line, code, function, receiver, about in _emits():
        if about or code in NOT_ABOUT_AN_OBJECT or rel in FIELDS_INTERNALS:
            continue
        if rel.startswith("manifests/") and receiver in ("f.diags", "self.f.diags") and (
                rel != "manifests/reader.py" or function == "_read"):
            continue  # read with `Reader.read`'s object as `Diagnostics.concerning`
        if (rel, code) in KNOWN_GAPS:
            gaps.add((rel, code))
            continue
        missing.append(f"{rel}:{line} {code or 'a code in a variable'}")
    assert missing == [], "give `about=` (identity.about / Subject) to each of:\n" + "\n".join(missing)
    assert gaps == KNOWN_GAPS, f"no longer a gap, take it off KNOWN_GAPS: {KNOWN_GAPS - gaps}"


def test_the_sites_are_read() -> None:
    """The scan finds what it is meant to (a scan finding nothing would pass anything)."""
    found = _emits()
    assert len(found) > 100 and {c for _, _, c, _, _, _ in found} >= {"KAD200", "KAD157", "KAD195", "KAD168", "KAD161"}
