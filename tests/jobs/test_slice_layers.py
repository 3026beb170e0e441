"""The slice layers of a job's annotation `kueue.x-k8s.io/podset-slice-required-topology-constraints` and of a
Workload's own `podsetSliceRequiredTopologyConstraints` as Kueue reads them under either value of feature gate
TASMultiLayerTopology (jobframework's podSetTopologyRequestBuilder.Build; buildSliceSizeAtLevel): the gate off
keeps a Workload's first layer and none of a job's annotation (manifests/layers.py, effective.gated)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kadmit.effective import gated
from kadmit.workspace import load
from tests.jobs.helpers import model_of

LAYERS = '[{"topology": "example.com/rack", "size": 4}, {"topology": "kubernetes.io/hostname", "size": 2}]'


def files(gate: str, mode: str) -> dict[str, str]:
    return {"c__yaml": f"""\
        apiVersion: config.kueue.x-k8s.io/v1beta2
        kind: Configuration
        featureGates: {{TASMultiLayerTopology: {gate}}}
        ---
        apiVersion: batch/v1
        kind: Job
        metadata: {{name: j, namespace: ns, uid: 0b7c4f2e-1111-4d4d-9c9c-000000000001, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
        spec:
          parallelism: 4
          template:
            metadata:
              annotations:
                {mode}kueue.x-k8s.io/podset-slice-required-topology-constraints: '{LAYERS}'
            spec:
              restartPolicy: Never
              containers: [{{name: c, image: busybox}}]
        ---
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: Workload
        metadata: {{name: w, namespace: ns}}
        spec:
          queueName: lq
          podSets:
          - name: main
            count: 4
            topologyRequest: {{required: example.com/block, podsetSliceRequiredTopologyConstraints: {LAYERS}}}
            template: {{spec: {{containers: [{{name: c, image: busybox}}]}}}}
        """}


def topologies(tmp: Path, gate: str, mode: str = "") -> dict[str, object]:
    model = gated(model_of(tmp, **files(gate, mode)))
    return {w.name: w.pod_sets[0].topology for w in model.workloads}


def test_the_gate_on_reads_every_layer(tmp_path):
    got = topologies(tmp_path, "true", "kueue.x-k8s.io/podset-required-topology: example.com/block\n                ")
    layers = (("example.com/rack", 4), ("kubernetes.io/hostname", 2))
    assert {n: (t.mode, t.level, t.slice_level, t.slice_size, t.layers) for n, t in got.items()} == {
        "w": ("required", "example.com/block", "example.com/rack", 4, layers),
        next(n for n in got if n != "w"): ("required", "example.com/block", "example.com/rack", 4, layers)}


def test_the_gate_off_keeps_a_workloads_first_layer_and_none_of_a_jobs(tmp_path):
    got = topologies(tmp_path, "false", "kueue.x-k8s.io/podset-required-topology: example.com/block\n                ")
    job = next(t for n, t in got.items() if n != "w")
    assert (job.mode, job.level, job.slice_level, job.layers) == ("required", "example.com/block", None, ())
    assert (got["w"].slice_level, got["w"].slice_size, got["w"].layers) == ("example.com/rack", 4, (("example.com/rack", 4),))
    # the annotation alone made the job's request: with the gate off, Build makes none that asks for topology
    got = topologies(tmp_path, "false")
    assert next(t for n, t in got.items() if n != "w") is None


def test_a_workload_the_crd_refuses_for_its_layers_is_an_input_error(tmp_path):
    # the Workload CRD: a layer's size has minimum 1, the list at most 3 items (the oracle's API server refuses both)
    for layers, words in ((LAYERS.replace('"size": 2', '"size": 0'), "must be at least 1"),
                          (LAYERS[:-1] + ', {"topology": "a", "size": 1}, {"topology": "b", "size": 1}]', "at most 3")):
        text = files("true", "")["c__yaml"].replace(f"podsetSliceRequiredTopologyConstraints: {LAYERS}",
                                                   f"podsetSliceRequiredTopologyConstraints: {layers}")
        (tmp_path / "c.yaml").write_text(textwrap.dedent(text))
        ws = load([str(tmp_path / "c.yaml")])
        assert [d.code for d in ws.diagnostics if d.severity == "error"] == ["KAD157"], [str(d) for d in ws.diagnostics]
        assert words in next(d.message for d in ws.diagnostics if d.code == "KAD157")


PLAIN = ("kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname\n                "
         "kueue.x-k8s.io/podset-slice-size: \"2\"\n                ")


def test_the_gate_off_reads_a_stored_jobs_plain_slice_annotations_beside_the_layers(tmp_path):
    # Build's `else if`: with the gate off the layers annotation is skipped and the slice level and size are read
    # (oracle: tests/oracle/features/feature-gate-tas-multi-layer-topology-off-existing-job-plain-slices.yaml)
    for mode, want in (("kueue.x-k8s.io/podset-required-topology: example.com/block\n                ", "required"),
                       ("", "unconstrained")):
        off = next(t for n, t in topologies(tmp_path, "false", mode + PLAIN).items() if n != "w")
        assert (off.mode, off.slice_level, off.slice_size, off.layers) == (want, "kubernetes.io/hostname", 2, ())
        on = next(t for n, t in topologies(tmp_path, "true", mode + PLAIN).items() if n != "w")
        assert (on.slice_level, on.slice_size, len(on.layers)) == ("example.com/rack", 4, 2)


def test_export_writes_the_request_kueue_builds_under_the_gate(tmp_path):
    from kadmit.export import export_model
    for gate, want in (("false", {"required": "example.com/block", "podSetSliceRequiredTopology": "kubernetes.io/hostname",
                                  "podSetSliceSize": 2}),
                       ("true", {"required": "example.com/block", "podsetSliceRequiredTopologyConstraints": [
                           {"topology": "example.com/rack", "size": 4}, {"topology": "kubernetes.io/hostname", "size": 2}]})):
        model = model_of(tmp_path, **files(gate, "kueue.x-k8s.io/podset-required-topology: example.com/block\n"
                                                 "                " + PLAIN))
        docs = [d.obj for d in export_model(model, workloads=True).files["workloads"]]
        job = next(d for d in docs if d["metadata"]["name"] != "w")
        assert job["spec"]["podSets"][0]["topologyRequest"] == want
