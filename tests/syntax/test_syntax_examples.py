"""The bundled example and the policy library: they load cleanly, say what SCENARIO.md says,
and are already in `fmt`'s canonical layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.index import ModelIndex
from kadmit.model import merge
from kadmit.syntax import format_text, read_kad

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "ml-platform"
KAD_FILES = sorted(EXAMPLE.glob("*.kad")) + sorted((REPO / "policies").glob("*.kad"))
GI = 2**30 * 1000


def load(paths: list[Path]):
    diags = Diagnostics()
    frags = read_kad(paths, REPO, lambda p, at: p.read_text(), lambda p: p.relative_to(REPO).as_posix(), diags)
    return merge(frags), diags


def test_example_follows_the_scenario() -> None:
    model, diags = load([EXAMPLE / "policy.kad"])  # imports the other files
    assert not diags.items, [d.message for d in diags.items]
    idx = ModelIndex(model)
    assert len(model.nodes) == 20 and len(model.workloads) == 12
    assert [p.name for p in model.priority_classes] == ["production", "research", "scavenger"]
    assert idx.default_priority == 100
    vision = idx.cluster_queues["team-vision"]
    h100 = vision.resource_groups[0].flavors[0].resources[2]
    assert (h100.nominal, h100.borrowing_limit, h100.lending_limit) == (24000, 8000, 8000)
    assert idx.cohorts["research"].resource_groups[0].flavors[0].resources[2].lending_limit == 0
    assert idx.cluster_queues["team-nlp"].queueing_strategy == "StrictFIFO"
    assert idx.local_queues["team-nlp/vision-share"].cluster_queue == "team-vision"
    admitted = sorted(w.key for w in model.workloads if w.admitted)
    assert admitted == ["team-infra/etl-nightly", "team-nlp/bert-finetune", "team-vision/resnet-sweep"]
    pretrain = idx.workloads["team-vision/llm-pretrain"]
    assert pretrain.pod_sets[0].requests["memory"] == 128 * GI
    assert (pretrain.pod_sets[0].count, pretrain.pod_sets[0].min_count) == (32, 32)
    assert not idx.workloads["team-vision/no-toleration"].pod_sets[0].tolerations
    assert sum(n.allocatable.get("nvidia.com/gpu", 0) for n in model.nodes) == 12 * 8 * 1000


def test_policies_and_example_load_together_without_duplicates() -> None:
    model, diags = load(KAD_FILES)
    assert not diags.items
    names = [r.name for r in model.rules]
    assert len(names) == len(set(names)) >= 8


@pytest.mark.parametrize("path", KAD_FILES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_shipped_files_are_formatted(path: Path) -> None:
    out, diags = format_text(path.read_text(), path.name)
    assert out == path.read_text(), [d.message for d in diags]
