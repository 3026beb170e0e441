"""Kubernetes' own limits as located diagnostics, excerpts that stay small, and admissions that must
say where their quota is charged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit import api
from kadmit.render import render
from kadmit.render.excerpt import MAX_LINE_WIDTH, window

from . import hostile


def _codes(tmp_path: Path, items: list[dict]) -> list:
    hostile.write(tmp_path, "in.json", items)
    return api.check([str(tmp_path)]).diagnostics


def _base() -> list[dict]:
    return [hostile.flavor("f"), hostile.namespace("t"), hostile.cluster_queue("q"),
            hostile.local_queue("lq", "t", "q"), hostile.workload("w", "t", "lq")]


@pytest.mark.parametrize("index, name, ok", [
    (0, "a" * 253, True), (0, "a" * 254, False), (0, "Upper", False), (0, "a.b-c", True), (0, "-a", False),
    (1, "a" * 63, True), (1, "a" * 64, False), (1, "a.b", False),  # a Namespace's name is a DNS label
    (2, "team_a", False), (3, "a" * 254, False),
])
def test_object_names_follow_kubernetes(tmp_path: Path, index: int, name: str, ok: bool) -> None:
    items = _base()
    items[index]["metadata"]["name"] = name
    got = [d for d in _codes(tmp_path, items) if d.code == "KAD195"]
    assert (got == []) == ok
    if not ok:
        assert got[0].span is not None and got[0].span.line > 1


@pytest.mark.parametrize("key, value, ok", [
    ("app", "x" * 63, True), ("app", "x" * 64, False), ("app", "x" * 1_000_000, False),
    ("example.com/app", "v", True), ("e" * 254 + "/app", "v", False), ("a" * 64, "v", False),
    ("/app", "v", False), ("app", "-v", False), ("app", "", True),
])
def test_label_keys_and_values_follow_kubernetes(tmp_path: Path, key: str, value: str, ok: bool) -> None:
    items = _base()
    items[0]["metadata"]["labels"] = {key: value}
    got = [d for d in _codes(tmp_path, items) if d.code == "KAD196"]
    assert (got == []) == ok
    if not ok:  # at the label, in the flavor's metadata
        text = (tmp_path / "in.json").read_text().splitlines()
        assert json.dumps(key)[:20] in text[got[0].span.line - 1]


def test_node_selectors_and_node_labels_are_labels_too(tmp_path: Path) -> None:
    items = _base()
    items[0]["spec"]["nodeLabels"] = {"pool": "x" * 64}
    items.append({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "t"},
                  "spec": {"template": {"spec": {"nodeSelector": {"bad key!": "v"}, "restartPolicy": "Never",
                                                 "containers": [{"name": "c", "image": "x"}]}}}})
    assert sorted(d.code for d in _codes(tmp_path, items) if d.code == "KAD196") == ["KAD196", "KAD196"]


def test_a_custom_resources_node_selector_is_not_validated(tmp_path: Path) -> None:
    """The API server validates the pod template of a Pod and of the built-in kinds, not the one a custom
    resource embeds: a Workload (or a RayCluster: GKE's verl-on-gke ray-cluster-standard.yaml, whose
    `cloud.google.com/gke-accelerator: ${GPU_TYPE}` kubectl creates, and Kueue admits) with a node selector
    of a bad key and value is created (`kubectl create --dry-run=server`: created), and decided."""
    items = _base()
    items[4]["spec"]["podSets"][0]["template"]["spec"]["nodeSelector"] = {"bad key!": "v", "k": "${GPU_TYPE}"}
    assert not [d for d in _codes(tmp_path, items) if d.code == "KAD196"]


@pytest.mark.parametrize("value, placeholder", [
    ("${DWS_NODEPOOL}", "${DWS_NODEPOOL}"), ("pool-$ZONE", "$ZONE"), ("<your-pool>", "<your-pool>"),
    ("-pool", None), ("x" * 64, None),
])
def test_a_placeholder_left_in_a_name_or_label_is_said_to_be_one(tmp_path: Path, value: str,
                                                                 placeholder: str | None) -> None:
    """GKE's DWS sample (kubernetes-engine-samples ai-ml/gke-ray/tpu/dws) leaves `${DWS_NODEPOOL}` and
    `rayjob-tpu-v6e-dws-${JOB_ID}` for envsubst: the help says so, and only there."""
    items = _base()
    items[0]["spec"]["nodeLabels"] = {"cloud.google.com/gke-nodepool": value}
    items[4]["metadata"]["name"] = f"W{value}"  # never a DNS subdomain (upper case)
    got = {d.code: d.help for d in _codes(tmp_path, items) if d.code in ("KAD195", "KAD196")}
    assert set(got) == {"KAD195", "KAD196"}
    for text in got.values():
        assert ("looks like a placeholder" in text) == (placeholder is not None)
        if placeholder is not None:
            assert f"`{placeholder}`" in text


def test_annotations_are_bounded_at_256_kib(tmp_path: Path) -> None:
    items = _base()
    items[4]["metadata"]["annotations"] = {"a": "x" * 200_000}
    assert not [d for d in _codes(tmp_path / "ok", items) if d.code == "KAD197"]
    items[4]["metadata"]["annotations"] = {"a": "x" * 200_000, "b": "y" * 100_000}
    assert [d.code for d in _codes(tmp_path / "big", items) if d.code == "KAD197"] == ["KAD197"]


@pytest.mark.parametrize("flavors, error", [({"cpu": "f"}, False), ({}, True), (None, True)])
def test_an_admitted_workload_without_flavors_is_an_error_at_its_assignment(
        tmp_path: Path, flavors: dict | None, error: bool) -> None:
    items = _base()
    hostile.admitted(items[4], "q", flavors)
    got = [d for d in _codes(tmp_path, items) if d.code == "KAD296"]
    assert bool(got) == error
    if error:
        line = (tmp_path / "in.json").read_text().splitlines()[got[0].span.line - 1]
        assert "{" in line  # the pod set's assignment


def test_a_span_over_a_huge_one_line_value_prints_a_bounded_excerpt(tmp_path: Path) -> None:
    items = _base()
    items[4] = hostile.workload("w", "t", "lq", pod_sets=3000)  # KAD253 spans the whole podSets list
    hostile.write(tmp_path, "in.json", items, one_line=True)
    got = api.check([str(tmp_path)])
    text = render(got.diagnostics, got.sources, "human")
    assert "KAD253" in text
    assert max(len(line) for line in text.splitlines()) < 2 * MAX_LINE_WIDTH


@settings(max_examples=60, deadline=None)
@given(line=st.text(alphabet=st.sampled_from(list("ab \t{}\"界\u0301\x07")), max_size=3000),
       start=st.integers(0, 3100), length=st.integers(0, 5000))
def test_an_excerpt_is_a_window_with_carets_under_it(line: str, start: int, length: int) -> None:
    start = min(start, len(line))
    end = min(start + max(length, 1), len(line) + 1)
    win = window(line, start)
    column, width = win.marks(start, end)
    assert win.end - win.start <= 4 * MAX_LINE_WIDTH
    shown = win.offsets[-1] + (1 if win.end < len(line) else 0)
    assert 0 <= column <= shown and 1 <= width and column + width <= shown + 1
