"""Whatever the input, reading manifests never raises, every diagnostic is located, and work is bounded."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opcount import calls

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text, yamltree

EXAMPLES = Path(__file__).parents[2] / "examples" / "ml-platform-kueue"


LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


def check(text: str) -> None:
    """Read with libyaml's parser and with PyYAML's pure-Python one: no exception, located diagnostics."""
    default = yamltree._LOADER
    try:
        for loader in LOADERS:
            yamltree._LOADER = loader
            diags = Diagnostics()
            read_manifest_text(text, "fuzz.yaml", diags)
            for d in diags:
                assert d.span is not None and d.span.file == "fuzz.yaml" and d.span.line >= 1
    finally:
        yamltree._LOADER = default


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abc:-[]{}&*!|>'\"#%@`?,\t\n 0123456789.~<")), max_size=200))
def test_arbitrary_yamlish_text_never_raises(text):
    check(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_unicode_never_raises(text):
    check(text)


def _objects() -> list[dict]:
    out = []
    for path in sorted(p for p in EXAMPLES.glob("*.yaml") if not p.name.endswith(".kadtest.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            out.extend(doc["items"] if doc.get("kind") == "List" else [doc])
    return out


OBJECTS = _objects()

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(["8", "64Gi", "-1", "1e400", "500m", "Never", "True", "2026-11-20T08:00:00Z", ""]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _replace(node, path, value):
    if not path:
        return value
    node = json.loads(json.dumps(node))
    target = node
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return node


@st.composite
def mutated_objects(draw):
    obj = draw(st.sampled_from(OBJECTS))
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(obj))
        obj = _replace(obj, draw(st.sampled_from(paths)), draw(values))
    return obj


def _dump(obj) -> str:
    return yaml.safe_dump(obj, allow_unicode=True) if not _has_nonfinite(obj) else yaml.safe_dump(obj)


def _has_nonfinite(obj) -> bool:
    if isinstance(obj, float):
        return not math.isfinite(obj)
    if isinstance(obj, dict):
        return any(_has_nonfinite(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_has_nonfinite(v) for v in obj)
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_objects())
def test_wrong_types_anywhere_never_raise(obj):
    check(_dump(obj))
    if not _has_nonfinite(obj):
        check(json.dumps(obj))


def test_the_examples_cover_every_kind_we_fuzz():
    assert {o["kind"] for o in OBJECTS} >= {"Workload", "ClusterQueue", "Cohort", "Node", "Namespace",
                                            "LocalQueue", "ResourceFlavor", "WorkloadPriorityClass", "Topology"}


def _big_file(size: int) -> tuple[str, int]:
    """Copies of the example's workloads and jobs, and of its nodes, renamed, to `size` characters;
    the text and the number of copies."""
    workloads = (EXAMPLES / "workloads-team-nlp.yaml").read_text() + "---\n" + (EXAMPLES / "jobs-team-nlp.yaml").read_text()
    nodes = (EXAMPLES / "nodes.yaml").read_text()
    parts, total, i = [], 0, 0
    while total < size:
        part = "---\n" + (workloads.replace("name: bert-finetune", f"name: bert-finetune-{i}") if i % 2
                          else nodes.replace("name: cpu-0", f"name: cpu-x{i}"))
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts), i


def test_a_big_file_reads_every_object_in_linear_work():
    # counted, not timed: 10x the text costs ~10x the calls (9.6x when written); bench/scale_bench.py
    # and bench/check_bench.py (one 25 MiB file) print the times
    small, _ = _big_file(100_000)
    text, i = _big_file(1_000_000)
    diags, got = Diagnostics(), []
    work = calls(lambda: got.append(read_manifest_text(text, "big.yaml", diags)))
    frag = got[0]
    assert not diags.items
    assert len(frag.nodes) == 20 * ((i + 1) // 2) and len(frag.workloads) == i // 2
    assert len(frag.jobs) == 6 * (i // 2)
    assert work < 20 * calls(lambda: read_manifest_text(small, "small.yaml", Diagnostics())), work


@pytest.mark.parametrize("number", [".inf", "-.inf", ".nan", "1e400"])
def test_a_non_finite_quantity_in_a_typed_pod_template_is_refused_not_raised(number: str) -> None:
    # a Workload's template is its CRD's (a quantity int-or-string): `int(inf)` once raised OverflowError;
    # .inf and .nan can't be sent (JSON has none: KAD153); 1e400 is text to go-yaml, out of a quantity's range (KAD158)
    text = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: ns}\n"
            "spec:\n  queueName: q\n  podSets:\n  - name: main\n    count: 1\n    template:\n      spec:\n"
            f"        containers: [{{name: c, image: x, resources: {{requests: {{cpu: {number}}}}}}}]\n")
    diags = Diagnostics()
    read_manifest_text(text, "w.yaml", diags)
    assert {"KAD153", "KAD156", "KAD158"} & {d.code for d in diags}, [f"{d.code} {d.message}" for d in diags]
