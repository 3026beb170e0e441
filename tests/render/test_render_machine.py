"""The machine formats: JSON, SARIF 2.1.0 (structure checked by hand) and GitHub annotations."""

from __future__ import annotations

import json

import pytest

from kadmit.diagnostics import KAD001, KAD002, Diagnostic, Label, Severity, Subject, code_info
from kadmit.render import render
from kadmit.render.codes import KAD005, KAD006
from kadmit.render.github import annotation, escape_data, escape_property, render_github
from kadmit.render.json_report import render_json
from kadmit.render.sarif import sarif_log
from kadmit.source import SourceMap, Span


def sp(file="policies/ml.kad", line=3, col=5, end_line=3, end_col=9) -> Span:
    return Span(file=file, line=line, column=col, end_line=end_line, end_column=end_col)


def sample() -> tuple[list[Diagnostic], SourceMap]:
    sm = SourceMap()
    sm.add("policies/ml.kad", "a\nb\n    lend 12\n")
    diags = [
        Diagnostic(KAD002, Severity.ERROR, "bad bytes", sp(), help="save as UTF-8",
                   notes=("n1",), labels=(Label(sp(line=1, col=1, end_line=1, end_col=2), "here"),)),
        Diagnostic(KAD005, Severity.WARNING, "careful, 50%", sp(file="x y/z.kad", end_line=None,
                                                              end_col=None)),
        Diagnostic(KAD001, Severity.NOTE, "no place", None),
    ]
    return diags, sm


# --- json -------------------------------------------------------------------------------------

def test_json_keys_values_and_order():
    diags, _ = sample()
    doc = json.loads(render_json(diags, files_checked=2))
    assert list(doc) == ["diagnostics", "summary"]
    first = doc["diagnostics"][0]
    assert list(first) == ["code", "severity", "message", "file", "line", "column", "end_line",
                           "end_column", "help", "notes", "labels", "about"]
    assert first == {"code": "KAD002", "severity": "error", "message": "bad bytes",
                     "file": "policies/ml.kad", "line": 3, "column": 5, "end_line": 3,
                     "end_column": 9, "help": "save as UTF-8", "notes": ["n1"],
                     "labels": [{"file": "policies/ml.kad", "line": 1, "column": 1, "end_line": 1,
                                 "end_column": 2, "message": "here"}], "about": []}
    assert doc["diagnostics"][2]["file"] is None and doc["diagnostics"][2]["line"] is None
    assert doc["summary"] == {"files": 2, "errors": 1, "warnings": 1, "notes": 1}


def test_json_is_deterministic_and_empty_is_valid():
    diags, sm = sample()
    assert render(diags, sm, "json", files_checked=2) == render(diags, sm, "json", files_checked=2)
    assert json.loads(render([], sm, "json", files_checked=0))["diagnostics"] == []


# --- sarif ------------------------------------------------------------------------------------

LEVELS = {"none", "note", "warning", "error"}


def _text(obj) -> None:
    assert isinstance(obj, dict) and isinstance(obj["text"], str) and obj["text"]


def _physical(loc: dict) -> None:
    art = loc["artifactLocation"]
    assert isinstance(art["uri"], str) and "\\" not in art["uri"]
    if "uriBaseId" in art:
        assert art["uriBaseId"] == "%SRCROOT%" and not art["uri"].startswith("/")
    else:
        assert art["uri"].startswith("file:///")
    region = loc["region"]
    assert set(region) <= {"startLine", "startColumn", "endLine", "endColumn"}
    assert all(isinstance(v, int) and v >= 1 for v in region.values())
    assert "startLine" in region
    if "endLine" in region:
        assert region["endLine"] >= region["startLine"]


def assert_valid_sarif(log: dict) -> None:
    """The parts of the SARIF 2.1.0 schema (and GitHub's upload rules) kadmit's output touches."""
    assert set(log) == {"$schema", "version", "runs"}
    assert log["version"] == "2.1.0" and "sarif" in log["$schema"]
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "kadmit" and isinstance(driver["version"], str)
    assert driver["informationUri"].startswith("https://")
    ids = []
    for rule in driver["rules"]:
        assert set(rule) == {"id", "name", "shortDescription", "fullDescription", "help",
                             "defaultConfiguration"}
        assert rule["name"].isidentifier()
        for key in ("shortDescription", "fullDescription", "help"):
            _text(rule[key])
        assert rule["defaultConfiguration"]["level"] in LEVELS
        ids.append(rule["id"])
    assert len(ids) == len(set(ids))
    assert run.get("columnKind") in (None, "utf16CodeUnits", "unicodeCodePoints")
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in LEVELS
        _text(result["message"])
        for loc in result.get("locations", []):
            _physical(loc["physicalLocation"])
        for rel in result.get("relatedLocations", []):
            assert isinstance(rel["id"], int)
            _physical(rel["physicalLocation"])
            _text(rel["message"])
        fp = result["partialFingerprints"]
        assert isinstance(fp["primaryLocationLineHash"], str)


def test_sarif_structure_rules_and_results():
    diags, sm = sample()
    log = sarif_log(diags, sm)
    assert_valid_sarif(log)
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["KAD001", "KAD002", "KAD005"]
    rule = run["tool"]["driver"]["rules"][1]
    info = code_info("KAD002")
    assert rule["name"] == "NotUTF8Text"
    assert rule["shortDescription"]["text"] == info.title
    assert rule["fullDescription"]["text"] == info.description
    assert rule["defaultConfiguration"]["level"] == "error"
    first, second, third = run["results"]
    assert first["ruleId"] == "KAD002" and first["ruleIndex"] == 1 and first["level"] == "error"
    assert first["message"]["text"] == "bad bytes\nhelp: save as UTF-8\nnote: n1"
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "policies/ml.kad", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 9}}
    assert first["relatedLocations"][0]["message"]["text"] == "here"
    assert second["level"] == "warning"
    assert second["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "x%20y/z.kad"
    assert second["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 5}
    assert third["level"] == "note" and "locations" not in third


def test_the_objects_a_diagnostic_is_about_are_data_in_json_and_sarif():
    """`Diagnostic.about`: JSON's `about`, SARIF's logical locations (beside a span only); the message's
    line break escaped on SARIF's first line as on the human header, JSON's message as it is."""
    about = (Subject("Workload", "ns", "wl"), Subject("Job", "ns", "j"))
    diags = [Diagnostic("KAD175", Severity.WARNING, "a\nb", sp(), about=about),
             Diagnostic("KAD175", Severity.WARNING, "c", None, about=about[1:])]
    doc = json.loads(render_json(diags, files_checked=1))
    assert [d["about"] for d in doc["diagnostics"]] == [
        [{"kind": "Workload", "namespace": "ns", "name": "wl"}, {"kind": "Job", "namespace": "ns", "name": "j"}],
        [{"kind": "Job", "namespace": "ns", "name": "j"}]]
    assert doc["diagnostics"][0]["message"] == "a\nb"
    log = sarif_log(diags, SourceMap())
    assert_valid_sarif(log)
    first, second = log["runs"][0]["results"]
    assert first["message"]["text"] == "a\\nb"
    assert [loc["fullyQualifiedName"] for loc in first["locations"][0]["logicalLocations"]] == ["Workload/ns/wl", "Job/ns/j"]
    assert "physicalLocation" in first["locations"][0]
    assert first["locations"][0]["logicalLocations"][1] == {"name": "j", "fullyQualifiedName": "Job/ns/j", "kind": "object"}
    assert "locations" not in second


def test_sarif_absolute_paths_become_file_uris():
    d = Diagnostic(KAD001, Severity.ERROR, "x", sp(file="/tmp/a b.kad"))
    log = sarif_log([d], SourceMap())
    assert_valid_sarif(log)
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "file:///tmp/a%20b.kad"}


def test_sarif_fingerprints_follow_the_line_text_not_its_number():
    def fp(text: str, line: int, message: str = "m", code: str = KAD001) -> str:
        sm = SourceMap()
        sm.add("a.kad", text)
        d = Diagnostic(code, Severity.ERROR, message, sp(file="a.kad", line=line))
        return sarif_log([d], sm)["runs"][0]["results"][0]["partialFingerprints"][
            "primaryLocationLineHash"]

    base = fp("lend 12\n", 1)
    assert base == fp("\n\n  lend 12\n", 3)  # moved and re-indented
    assert base != fp("lend 13\n", 1)
    assert base != fp("lend 12\n", 1, message="other")
    assert base != fp("lend 12\n", 1, code=KAD002)


def test_sarif_identical_findings_get_distinct_fingerprints():
    sm = SourceMap()
    sm.add("a.kad", "x\nx\n")
    diags = [Diagnostic(KAD001, Severity.ERROR, "m", sp(file="a.kad", line=n)) for n in (1, 2)]
    a, b = (r["partialFingerprints"]["primaryLocationLineHash"]
            for r in sarif_log(diags, sm)["runs"][0]["results"])
    assert a != b and a.split(":")[0] == b.split(":")[0]


def test_sarif_empty_run_is_valid():
    log = json.loads(render([], SourceMap(), "sarif"))
    assert_valid_sarif(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


# --- github -----------------------------------------------------------------------------------

def test_github_escaping():
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert escape_data("a:b,c") == "a:b,c"


def test_github_annotation_lines():
    diags, _ = sample()
    lines = render_github(diags).splitlines()
    assert lines == [
        "::error file=policies/ml.kad,line=3,col=5,endLine=3,endColumn=8,title=KAD002::"
        "bad bytes%0Ahelp: save as UTF-8%0Anote: n1",
        "::warning file=x y/z.kad,line=3,col=5,title=KAD005::careful, 50%25",
        "::notice title=KAD001::no place",
    ]


def test_github_properties_are_escaped_and_multiline_regions_drop_columns():
    d = Diagnostic(KAD006, Severity.ERROR, "x", sp(file="we,ird:name.kad", line=2, col=3,
                                                 end_line=4, end_col=1))
    assert annotation(d) == "::error file=we%2Cird%3Aname.kad,line=2,endLine=4,title=KAD006::x"


def test_github_output_ends_with_the_summary():
    diags, sm = sample()
    out = render(diags, sm, "github", files_checked=1)
    assert out.endswith("\nerror: 1 error, 1 warning, 1 note found\n")


def test_unknown_format_is_a_programming_error():
    with pytest.raises(ValueError):
        render([], SourceMap(), "xml")  # type: ignore[arg-type]
