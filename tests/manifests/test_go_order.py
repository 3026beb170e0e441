"""data/go_order.json: Go's field order of every type a PodSpec reaches (manifests/jobs/unstructured.py decodes
an AppWrapper's component pod spec in that order, as Go's unstructured converter does, and names the first value
it can't convert). Each type's fields are core.json's, and `tools/gen_schemas.py goorder` gives the file again
from k8s.io/api and k8s.io/apimachinery v0.35.3 (the API server's and Kueue v0.17.0's)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from kadmit.manifests import schema

ROOT = Path(__file__).resolve().parents[2]
MODULES = Path.home() / "go" / "pkg" / "mod" / "k8s.io"
SOURCES = [MODULES / "api@v0.35.3" / "core" / "v1" / "types.go",
           MODULES / "apimachinery@v0.35.3" / "pkg" / "apis" / "meta" / "v1" / "types.go"]


def _order() -> dict:
    return schema._load("go_order.json")


def test_every_type_a_pod_spec_reaches_is_ordered_with_its_fields() -> None:
    types, order = schema._core()["types"], _order()["types"]
    reached, todo = set(), ["V1PodSpec"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += re.findall(r'"core:(\w+)"', json.dumps(types[name]))
    assert set(order) == reached and len(reached) > 100
    for name in sorted(reached):
        assert sorted(order[name]) == sorted(types[name]), name
    assert order["V1PodSpec"][:3] == ["volumes", "initContainers", "containers"]  # not alphabetical


@pytest.mark.skipif(not all(p.exists() for p in SOURCES), reason="the Go module cache has no k8s.io/api@v0.35.3 "
                    "(tools/kueue-oracle's build fetches it)")
def test_the_order_is_go_s() -> None:
    spec = importlib.util.spec_from_file_location("gen_schemas", ROOT / "tools" / "gen_schemas.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.go_order(schema._core()["types"], [p.read_text() for p in SOURCES]) == _order()["types"]
