"""Pods from a `kubectl get -o yaml` export: labels, and a TAS workload's pods counted once: the pods
Kueue v0.17 tells by their `podset-*-topology` annotation (pkg/util/tas `IsTAS`), not by v0.19's
`kueue.x-k8s.io/tas` label."""

from __future__ import annotations

import textwrap

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from kadmit.model import Model
from kadmit.placement.inventory import is_tas_pod, model_inventory
from placement.builders import admitted_usage

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-0
  labels: {kubernetes.io/hostname: gpu-0}
status:
  allocatable: {cpu: "16", nvidia.com/gpu: "12", pods: "110"}
  conditions: [{type: Ready, status: "True"}]
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: team
  labels:
    batch.kubernetes.io/job-name: train
{extra}spec:
  nodeName: gpu-0
  containers:
  - name: c
    image: busybox
    resources:
      requests: {{cpu: "2", nvidia.com/gpu: "4"}}
status:
  phase: Running
"""

TAS = "  annotations:\n    kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname\n"
V19_LABEL = "    kueue.x-k8s.io/tas: \"true\"\n"

WORKLOAD = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata:
  name: train
  namespace: team
spec:
  queueName: q
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers:
        - name: c
          resources:
            requests: {cpu: "2", nvidia.com/gpu: "4"}
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 2
      flavors: {cpu: gpu, nvidia.com/gpu: gpu}
      resourceUsage: {cpu: "4", nvidia.com/gpu: "8"}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        domains:
        - values: [gpu-0]
          count: 2
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-11-20T08:00:00Z"}
"""


def read(*docs: str):
    diags = Diagnostics()
    frag = read_manifest_text("---\n".join(textwrap.dedent(d) for d in docs), "m.yaml", diags)
    return frag, diags


def test_pod_labels_are_read_with_spans():
    frag, diags = read(POD.format(name="train-0", extra=V19_LABEL))
    assert not diags.items  # a key Kueue v0.19 writes: no KAD301
    (p,) = frag.pods
    assert p.labels == {"batch.kubernetes.io/job-name": "train", "kueue.x-k8s.io/tas": "true"}
    assert not is_tas_pod(p)  # Kueue v0.17 doesn't read the label: IsTAS looks at annotations only
    span = p.field_span("labels.kueue.x-k8s.io/tas")
    assert (span.line, span.column) == (8, 25)


@pytest.mark.parametrize("mode", ["required", "preferred", "unconstrained"])
def test_a_pod_with_a_topology_annotation_is_a_tas_pod(mode: str):
    key = f"kueue.x-k8s.io/podset-{mode}-topology"
    frag, diags = read(POD.format(name="train-0", extra=f"  annotations:\n    {key}: \"true\"\n"))
    assert not diags.items
    (p,) = frag.pods
    assert is_tas_pod(p) and p.tas_annotation == key
    span = p.field_span("tas_annotation")
    assert (span.line, span.column) == (9, len(key) + 7)


def test_other_kueue_annotations_make_no_tas_pod():
    frag, _ = read(POD.format(name="p", extra="  annotations:\n    kueue.x-k8s.io/podset-slice-size: \"2\"\n"
                                              "    kueue.x-k8s.io/workload: w\n"))
    (p,) = frag.pods
    assert not is_tas_pod(p) and p.tas_annotation is None


def test_pod_without_labels_is_no_tas_pod():
    frag, _ = read("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n1, containers: [{name: c, image: busybox}]}\n")
    (p,) = frag.pods
    assert p.labels == {} and not is_tas_pod(p)


def test_a_pod_labelled_only_as_kueue_v019_does_counts_as_kueue_v017_counts_it():
    """Kueue v0.17's TAS cache counts it as a non-TAS pod on its node (non_tas_usage_controller
    `filterPod`), beside the workload's topology assignment: kadmit follows v0.17."""
    frag, _ = read(NODE, WORKLOAD, POD.format(name="train-0", extra=V19_LABEL))
    model = Model(nodes=frag.nodes, pods=frag.pods, workloads=frag.workloads)
    node = model_inventory(model, admitted_usage(model), skip_tas_pods=True).get("gpu-0")
    assert node.holders == ("team/train-0",)
    assert node.free["nvidia.com/gpu"] == 12_000 - 2 * 4000 - 4000


def test_an_export_of_a_tas_workload_and_its_pods_counts_them_once():
    frag, diags = read(NODE, WORKLOAD, POD.format(name="train-0", extra=TAS),
                       POD.format(name="train-1", extra=TAS), POD.format(name="side", extra=""))
    assert not diags.items
    model = Model(nodes=frag.nodes, pods=frag.pods, workloads=frag.workloads)
    assert model.workloads[0].admission.pod_sets[0].placement == {"gpu-0": 2}
    node = model_inventory(model, admitted_usage(model), skip_tas_pods=True).get("gpu-0")
    # the workload's 2 pods (via its placement) and the unlabelled `side` pod
    assert node.free == {"cpu": 10_000, "nvidia.com/gpu": 0, "pods": 107_000}
    assert node.holders == ("team/side",)
    counted_twice = model_inventory(model, admitted_usage(model)).get("gpu-0")
    assert counted_twice.free["nvidia.com/gpu"] == -8000
