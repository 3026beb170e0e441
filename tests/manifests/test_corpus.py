"""The manifest corpus: one file per case, expectations in its leading comment block.

A case's header is YAML behind `# `: a few lines saying what the case is about, then
`expect:` (a subset of the fragment, as `model_dump(mode="json")` gives it; a string stands for a
quantity where the model holds milli-units) and `diagnostics:` (every diagnostic, `CODE line:col`,
in sorted order; none when absent). JSON cases can't hold comments: theirs are in `JSON_CASES`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text, yamltree
from kadmit.manifests.jobs.external import say_unread
from kadmit.quantity import parse_quantity

CORPUS = Path(__file__).parent.parent / "corpus" / "manifests"

JSON_CASES = {
    "good-cluster-queue-list.json": {
        "expect": {"cluster_queues": [
            {"name": "team-a", "cohort": "research", "namespace_selector": {"match_labels": {}},
             "resource_groups": [{"covered_resources": ["cpu"], "flavors": [
                 {"flavor": "default", "resources": [{"resource": "cpu", "nominal": "10"}]}]}]},
            {"name": "team-b", "cohort": None, "namespace_selector": None}]},
        "diagnostics": []},
    "good-workload.json": {
        "expect": {"workloads": [
            {"namespace": "default", "name": "sample", "queue": "main", "priority_class": None,
             "priority": 5, "created": "2026-11-20T10:00:00Z",
             "pod_sets": [{"name": "main", "count": 3, "requests": {"cpu": "1500m", "memory": "2Gi"}}],
             "admission": None}]},
        "diagnostics": []},
    "good-tab-indented.json": {"expect": {"namespaces": [{"name": "tabs", "labels": {"team": "a"}}]},
                               "diagnostics": []},
    "bad-unclosed.json": {"expect": {}, "diagnostics": ["KAD150 6:1"]},
}


def _header(text: str) -> dict:
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[2:] if line.startswith("# ") else line[1:])
    start = next((i for i, line in enumerate(lines) if line.startswith(("expect:", "diagnostics:"))), len(lines))
    return yaml.safe_load("\n".join(lines[start:])) or {}


def _cases() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".yaml", ".json"))


def _check(expected, actual, path: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected a mapping, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}: no field `{key}` in {sorted(actual)}"
            _check(value, actual[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), \
            f"{path}: expected {len(expected)} items, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            _check(e, a, f"{path}[{i}]")
    elif isinstance(expected, str) and isinstance(actual, int) and not isinstance(actual, bool):
        assert parse_quantity(expected) == actual, f"{path}: expected {expected} ({parse_quantity(expected)}), got {actual}"
    else:
        assert expected == actual, f"{path}: expected {expected!r}, got {actual!r}"


def test_corpus_is_not_empty():
    names = [p.name for p in _cases()]
    assert sum(n.startswith("good-") for n in names) >= 10
    assert sum(n.startswith("bad-") for n in names) >= 15
    assert set(JSON_CASES) <= set(names)


LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


@pytest.fixture(params=LOADERS, ids=lambda loader: loader.__name__)
def loader(request, monkeypatch):
    """Every case passes with libyaml's parser and with PyYAML's pure-Python fallback."""
    monkeypatch.setattr(yamltree, "_LOADER", request.param)


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_case(case: Path, loader):
    text = case.read_text()
    spec = JSON_CASES[case.name] if case.suffix == ".json" else _header(text)
    diags = Diagnostics()
    fragment = read_manifest_text(text, case.name, diags)
    say_unread(fragment.unread_kinds, fragment.scheduler_configs[0] if fragment.scheduler_configs else None, diags)
    got = [f"{d.code} {d.span.line}:{d.span.column}" for d in diags.sorted()]
    assert got == spec.get("diagnostics", []), "\n".join(f"{d.code} {d.span}: {d.message}" for d in diags.sorted())
    for d in diags:
        assert d.span is not None and d.span.file == case.name
    _check(spec.get("expect", {}), fragment.model_dump(mode="json"), "fragment")
    if case.name.startswith("good-"):
        assert not diags.has_errors
    else:
        assert diags.items, "a bad case must report something"
