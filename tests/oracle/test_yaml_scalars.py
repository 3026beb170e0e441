"""YAML scalars read as kubectl reads them (manifests/goyaml.py), against the real conversion: `kueue-oracle
yaml2json` runs sigs.k8s.io/yaml.YAMLToJSON (go-yaml v2), what kubectl and Kueue's configuration loader make of
YAML before decoding it. Every form, as a value, as a key and under each of YAML's tags, must give the JSON
kubectl sends, or be refused where kubectl refuses it."""

from __future__ import annotations

import json
import random
import subprocess
from decimal import Decimal

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests.gojson import go_float
from kadmit.manifests.yamltree import BOOL, FLOAT, INT, MAP, NULL, SEQ, STR, Val, parse_documents

FORMS = [
    # numbers: exponents without a dot, bases, underscores, signs, no sexagesimal, ranges
    "1e3", "1.0e3", "1.5e+3", "1E3", "12e1", "0e0", ".5", ".5e3", "1.", "+.5", "-.5", "3.0", "-0.0", "0.1_0",
    ".5_0", "1e400", "1e-400", "1e21", "1e20", "0o17", "017", "08", "09.5", "0x1F", "-0x1F", "0X1f", "0b101",
    "-0b101", "0b-101", "+12", "1_000", "1__0", "1_", "_1", "0x", "0b", "0o", "0xG", "1:30", "1:30.5", "190:20:30",
    "99999999999999999999", "18446744073709551615", "18446744073709551616", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
    "0", "-0", "+0", "1e3e4", "0x1p-2", "1.2.3", "1,000", "Infinity", "nan", "NaN", "inf",
    # booleans and nulls: YAML 1.1's words, y/n, cases
    "y", "Y", "n", "N", "yes", "Yes", "YES", "yEs", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
    "true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "~", "null", "Null", "NULL", "nULL",
    # not finite
    ".inf", ".Inf", ".INF", "+.inf", "-.inf", "-.Inf", ".nan", ".NaN", ".NAN", "-.nan", "+.nan",
    # dates and times: go-yaml's layouts, kept as text
    "2026-01-01", "2026-1-1", "2026-13-45", "2026-02-30", "2026-01-01T10:00:00Z", "2026-01-01t10:00:00Z",
    "2026-01-01T10:00:00.5+02:00", "2026-01-01 10:00:00", "2026-01-01T25:00:00Z", "20260-01-01",
    # other text a resolver might claim
    "=", "<<", "-", "--1", "+-1", "0.", "-.", "._", "e3", "x1e3", "1e3x", "0777", "0888", "1_000.5", "5m", "64Gi",
]
TAGS = ["", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ", "!custom ", "! "]
_ALPHABET = "0123456789+-._eExXoObByYnN~:"


def generated(n: int = 300, seed: int = 18) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 6)))
        if text.endswith(":") or text.startswith("-") and text[1:2] in ("", " "):
            continue
        out.append(text)
    return out


def documents() -> list[str]:
    """One small document per case: the form as a value (under each tag), as a key, in a flow list."""
    out = []
    for form in FORMS + generated():
        out += [f"v: {tag}{form}\n" for tag in TAGS]
        out += [f"{form}: v\n", f"v: [{form}]\n", f"v: '{form}'\n"]
    out += ["v: !!binary aGVsbG8=\n", "v: !!binary '!!'\n", "v:\n", "yes: a\ntrue: b\n", "? [a]\n: b\n"]
    return out


def to_json(v: Val | None):
    """kadmit's value as the JSON text kubectl would send, parsed back (numbers exact)."""
    if v is None or v.kind == NULL:
        return None
    if v.kind == MAP:
        return {k: to_json(x) for k, x in v.v.items()}
    if v.kind == SEQ:
        return [to_json(x) for x in v.v]
    if v.kind == FLOAT:
        return json.loads(go_float(v.v), parse_float=Decimal)
    if v.kind in (INT, BOOL, STR):
        return v.v
    raise AssertionError(f"a YAML value of kind {v.kind}")


def test_kadmit_reads_every_scalar_as_kubectl_does(kueue_oracle, tmp_path):
    docs = [d for d in documents() if _parses(d)]
    path = tmp_path / "forms.yaml"
    path.write_text("".join(f"---\n{d}" for d in docs))
    proc = subprocess.run([kueue_oracle, "yaml2json", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    go = [json.loads(line) for line in proc.stdout.splitlines()]
    go = [g for g in go if g.get("json") is not None or g.get("error")]  # the empty first document
    assert len(go) == len(docs)
    differ = []
    for text, g in zip(docs, go):
        diags = Diagnostics()
        (root,) = list(parse_documents(text, "f.yaml", diags))
        problems = [d.message for d in diags if d.severity.value == "error"]
        if "error" in g:
            error = g["error"].split(", value:")[0]  # sigs.k8s.io/yaml names the value, kadmit says …
            if not problems or (not error.startswith("yaml: invalid map key") and not any(error in p for p in problems)):
                differ.append(f"{text!r}: kubectl: {g['error']}; kadmit: {problems or to_json(root)}")
            continue
        want = json.loads(json.dumps(g["json"]), parse_float=Decimal)
        got = to_json(root)
        if problems or got != want:
            differ.append(f"{text!r}: kubectl sends {json.dumps(g['json'])}; kadmit: {problems or got}")
    assert not differ, f"{len(differ)} of {len(docs)} differ:\n" + "\n".join(differ[:30])


def _parses(text: str) -> bool:
    """Whether the text is YAML at all (PyYAML's parser; go-yaml's is the same libyaml)."""
    diags = Diagnostics()
    list(parse_documents(text, "f.yaml", diags))
    return not any(d.message.startswith("malformed YAML") for d in diags)


@pytest.mark.parametrize("text, value", [
    ("v: 1e3\n", 1000.0), ("v: y\n", True), ("v: n\n", False), ("v: 0o17\n", 15), ("v: 1:30\n", "1:30"),
    ("v: 2026-01-01\n", "2026-01-01"), ("v: 08\n", 8.0), ("v: '1e3'\n", "1e3"), ("v: !!float 5\n", 5.0),
])
def test_the_forms_that_differ_from_pyyaml(text, value):
    """What PyYAML's YAML 1.1 resolver reads otherwise (kubectl's reading: the test above checks it)."""
    (root,) = list(parse_documents(text, "f.yaml", Diagnostics()))
    assert root.v["v"].v == value and type(root.v["v"].v) is type(value)
