"""KAD300: a requested resource no cluster queue covers and no node has, close to one that is
provided — a misspelling Kueue accepts and leaves pending for ever. Only then: a resource that is
provided, standard, far from every name, or left out of quota by the configuration is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from kadmit import workspace as ws
from kadmit.validate.likely import misspelt_resources

POLICY = """
flavor h100 {}
cluster_queue q {
  namespaces = all
  resources cpu, memory, nvidia.com/gpu { flavor h100 { cpu = 64  memory = 256Gi  nvidia.com/gpu = 8 } }
}
local_queue team/lq -> q
"""


def wl(name: str, requests: str) -> str:
    return f"workload team/{name} {{\n  queue = lq\n  pod_group main {{ count = 1  requests = {{ {requests} }} }}\n}}\n"


def check(tmp_path: Path, *texts: str, files: dict[str, str] | None = None):
    for i, text in enumerate(texts):
        (tmp_path / f"p{i}.kad").write_text(text)
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    loaded = ws.load([str(tmp_path)])
    return [d for d in loaded.diagnostics.sorted() if d.code == "KAD300"], loaded.model


def test_a_misspelt_gpu_is_reported_once_at_its_first_request(tmp_path: Path) -> None:
    got, model = check(tmp_path, POLICY, wl("a", "cpu = 1, nvidia.com/gpus = 1") + wl("b", "nvidia.com/gpus = 2"))
    assert misspelt_resources(model) == {"nvidia.com/gpus": "nvidia.com/gpu"}
    [d] = got
    assert d.message == ("`nvidia.com/gpus` is requested by pod set `main` of workload `team/a`, but no cluster "
                         "queue covers it")
    assert d.help == "did you mean `nvidia.com/gpu`?"
    assert (Path(d.span.file).name, d.span.line) == ("p1.kad", 3)
    assert "requested by 2 pod sets of 2 workloads" in d.notes
    assert [lab.span.line for lab in d.labels] == [7]


@pytest.mark.parametrize("requests", ["memroy = 1Gi", "cpus = 1", "nvidia.com/gpu_ = 1"])
def test_close_to_a_covered_or_standard_name(tmp_path: Path, requests: str) -> None:
    got, _ = check(tmp_path, POLICY, wl("a", requests))
    assert len(got) == 1


@pytest.mark.parametrize("requests", [
    "example.com/fpga = 1",      # far from every name: maybe on nodes the input doesn't hold
    "ephemeral-storage = 1Gi",   # a standard resource, not covered: a real gap, not a misspelling
    "nvidia.com/gpu = 1",        # covered
])
def test_not_a_misspelling(tmp_path: Path, requests: str) -> None:
    assert check(tmp_path, POLICY, wl("a", requests))[0] == []


def test_a_resource_some_node_has_is_no_misspelling(tmp_path: Path) -> None:
    node = "node n1 { allocatable = { cpu = 8, nvidia.com/gpus = 1 } }\n"
    assert check(tmp_path, POLICY, wl("a", "nvidia.com/gpus = 1") + node)[0] == []


def test_with_nodes_the_message_says_none_has_it(tmp_path: Path) -> None:
    node = "node n1 { allocatable = { cpu = 8, nvidia.com/gpu = 1 } }\n"
    [d], _ = check(tmp_path, POLICY, wl("a", "nvidia.com/gpus = 1") + node)
    assert d.message.endswith("but no cluster queue covers it and no node has it")


CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
resources:
  excludeResourcePrefixes: ["nvidia.com/gpus"]
"""


def test_a_resource_the_configuration_leaves_out_of_quota_counts_only_on_nodes(tmp_path: Path) -> None:
    assert check(tmp_path, POLICY, wl("a", "nvidia.com/gpus = 1"), files={"config.yaml": CONFIG})[0] == []
    node = "node n1 { allocatable = { cpu = 8, nvidia.com/gpu = 1 } }\n"
    got, _ = check(tmp_path, POLICY, wl("a", "nvidia.com/gpus = 1") + node, files={"config.yaml": CONFIG})
    assert len(got) == 1


def test_the_job_is_named_as_submitted(tmp_path: Path) -> None:
    job = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        resources:
          limits: {nvidia.com/gpus: "1"}
        image: busybox
"""
    [d], _ = check(tmp_path, POLICY, files={"job.yaml": job})
    assert d.message.startswith("`nvidia.com/gpus` is requested by pod set `main` of workload `team/train`")
    assert d.notes[0] == "`team/train` is the workload Kueue makes of Job `team/train`"
    assert (Path(d.span.file).name, d.span.line) == ("job.yaml", 15)
