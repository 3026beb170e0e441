"""The bundled Kueue scenario reads cleanly and says what examples/SCENARIO.md says."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.index import ModelIndex, admitted_usage
from kadmit.manifests import read_manifest_text
from kadmit.manifests.jobs.manage import apply_jobs
from kadmit.model import Model, Toleration, merge

EXAMPLES = Path(__file__).parents[2] / "examples" / "ml-platform-kueue"
GPU = "nvidia.com/gpu"
GI = 2**30 * 1000


@pytest.fixture(scope="module")
def model() -> Model:
    diags = Diagnostics()
    frags = [read_manifest_text(p.read_text(), p.name, diags) for p in sorted(EXAMPLES.glob("*.yaml"))
             if not p.name.endswith(".kadtest.yaml")]
    assert not diags.items, [str(d) for d in diags.items]
    return apply_jobs(merge(frags))


def test_files_use_both_list_shapes_and_both_api_versions():
    texts = {p.name: p.read_text() for p in EXAMPLES.glob("*.yaml") if not p.name.endswith(".kadtest.yaml")}
    assert any("kind: List" in t for t in texts.values())
    assert any(t.count("\n---\n") >= 2 for t in texts.values())
    assert "kueue.x-k8s.io/v1beta2" in texts["cluster-queues.yaml"]
    assert sum("kueue.x-k8s.io/v1beta1" in t for t in texts.values()) >= 5


def test_counts(model):
    assert (len(model.topologies), len(model.flavors), len(model.cohorts), len(model.cluster_queues),
            len(model.local_queues), len(model.priority_classes), len(model.namespaces),
            len(model.nodes), len(model.workloads)) == (1, 3, 3, 3, 4, 3, 3, 20, 12)


def test_policy(model):
    idx = ModelIndex(model)
    assert idx.topologies["datacenter"].levels == (
        "cloud.example.com/block", "cloud.example.com/rack", "kubernetes.io/hostname")
    assert idx.flavors["spot-cpu"].tolerations == (
        Toleration(key="cloud.example.com/spot", operator="Equal", value="true", effect="NoSchedule"),)
    assert idx.default_priority == 100
    assert idx.cohort_path("research") == ["research", "org"]
    vision = idx.cluster_queues["team-vision"]
    h100_gpu = vision.resource_groups[0].flavors[0].resources[2]
    assert (h100_gpu.nominal, h100_gpu.borrowing_limit, h100_gpu.lending_limit) == (24000, 8000, 8000)
    assert vision.preemption.reclaim_within_cohort == "Any"
    assert idx.cluster_queues["team-nlp"].queueing_strategy == "StrictFIFO"
    assert idx.cluster_queues["team-infra"].flavor_fungibility.when_can_borrow == "TryNextFlavor"
    assert idx.local_queues["team-nlp/vision-share"].cluster_queue == "team-vision"


def test_nodes(model):
    by_name = {n.name: n for n in model.nodes}
    assert by_name["h100-r2-3"].allocatable == {"cpu": 96000, "memory": 1024 * GI, GPU: 8000, "pods": 110000}
    assert by_name["a100-r3-0"].labels["cloud.example.com/block"] == "b2"
    assert by_name["cpu-2"].labels == {"node-role": "general"} and not by_name["cpu-2"].taints


def test_workloads(model):
    idx = ModelIndex(model)
    admitted = sorted(w.key for w in model.workloads if w.admitted)
    assert admitted == ["team-infra/etl-nightly", "team-nlp/bert-finetune", "team-vision/resnet-sweep"]
    assert admitted_usage(idx.workloads["team-vision/resnet-sweep"]) == {
        ("h100", "cpu"): 16000, ("h100", "memory"): 128 * GI, ("h100", GPU): 16000}
    # where they run: Kueue's topologyAssignment (hostname level only), read as pods per node
    placements = {w.key: [psa.placement for psa in w.admission.pod_sets] for w in model.workloads if w.admitted}
    assert placements == {"team-vision/resnet-sweep": [{"h100-r1-0": 1, "h100-r1-1": 1}],
                          "team-nlp/bert-finetune": [{"h100-r1-2": 1}], "team-infra/etl-nightly": [{}]}
    pretrain = idx.workloads["team-vision/llm-pretrain"]
    assert idx.priority(pretrain) == 1000
    assert pretrain.created == datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    workers, launcher = pretrain.pod_sets
    assert (workers.count, workers.min_count, workers.topology.mode) == (32, None, "required")  # a JobSet: all or nothing
    assert workers.requests == {"cpu": 16000, "memory": 128 * GI, GPU: 8000}
    assert launcher.requests == {"cpu": 2000, "memory": 4 * GI} and launcher.tolerations[0].key == "nvidia.com/gpu"
    assert not idx.workloads["team-vision/no-toleration"].pod_sets[0].tolerations
    assert idx.workloads["team-infra/log-compaction"].pod_sets[0].min_count == 8
    gpu_tolerations = {w.key: ps.tolerations for w in model.workloads for ps in w.pod_sets if GPU in ps.requests}
    assert len(gpu_tolerations) == 9
    for key, tolerations in gpu_tolerations.items():
        expected = () if key == "team-vision/no-toleration" else (
            Toleration(key=GPU, operator="Exists", effect="NoSchedule"),)
        assert tolerations == expected, key


def test_jobs_applied_again_only_to_the_very_same_inputs():
    """`applied_again` reuses what turning the jobs into workloads made (and reported) only while
    every field that reads holds the same objects: a proof that edits queues skips it, one that
    edits a namespace, a job or a local queue doesn't."""
    from kadmit.manifests.jobs.manage import applied_again, apply_jobs_kept

    diags = Diagnostics()
    frags = [read_manifest_text(p.read_text(), p.name, diags) for p in sorted(EXAMPLES.glob("*.yaml"))
             if not p.name.endswith(".kadtest.yaml")]
    merged = merge(frags)
    _, before = apply_jobs_kept(merged, Diagnostics())
    queues_edited = merged.model_copy(update={"cluster_queues": merged.cluster_queues[1:]})
    again = applied_again(queues_edited, Diagnostics(), before)
    assert again.workloads is before[1] and again == apply_jobs(queues_edited)
    ns = merged.namespaces[0]
    relabelled = ns.model_copy(update={"labels": {**ns.labels, "team": "elsewhere"}})
    for update in ({"namespaces": (relabelled,) + merged.namespaces[1:]}, {"jobs": merged.jobs[1:]},
                   {"local_queues": merged.local_queues[1:]}):
        edited = merged.model_copy(update=update)
        assert applied_again(edited, Diagnostics(), before) == apply_jobs(edited) != apply_jobs(merged)
