"""An AppWrapper's component pod template, decoded as Kueue decodes it (AppWrapper's GetPodTemplateSpec: Go's
unstructured converter, strict; manifests/jobs/unstructured.py): the API server takes the template as written
(the AppWrapper CRD keeps it free-form), and where the converter fails Kueue's reconciler makes no Workload. For
each case the oracle's `convert` (Kueue v0.17's code) and kadmit make a Workload alike, or both skip the
AppWrapper with the converter's own error (kadmit: KAD183)."""

from __future__ import annotations

import pytest

from kadmit.diagnostics import Diagnostics
from kadmit.manifests import read_manifest_text
from oracle.harness import run_each

SETUP = """\
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: '8'}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team}
spec: {clusterQueue: cq}
---
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: aw
  namespace: team
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  components:
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: j}
      spec:
        template:
          spec:
            restartPolicy: Never
"""
C = "containers: [{name: c, image: x%s}]"
# (id, the pod spec's lines after restartPolicy, whether Kueue fails on it)
CASES = [
    ("string-boolean", "containers: [{name: c, image: y}]", True),  # `y`: a boolean to kubectl
    ("string-quoted", 'containers: [{name: c, image: "y"}]', False),
    ("string-integer", "containers: [{name: c, image: 3}]", True),
    ("string-fraction", "containers: [{name: c, image: 3.5}]", True),
    ("string-mapping", "containers: [{name: c, image: {a: b}}]", True),
    ("string-list", "containers: [{name: c, image: [a]}]", True),
    ("string-date", C % "" + "\n" + "schedulerName: 2024-01-01", False),
    ("int64-text", C % "" + '\nterminationGracePeriodSeconds: "3"', True),
    ("int64-boolean", C % "" + "\nterminationGracePeriodSeconds: true", True),
    ("int64-fraction", C % "" + "\nterminationGracePeriodSeconds: 3.5", True),
    ("int64-whole-float", C % "" + "\nterminationGracePeriodSeconds: 3.0", False),
    ("int32-past-range", C % ", ports: [{containerPort: 3000000000}]", False),  # converted without a check
    ("boolean-text", C % "" + '\nhostNetwork: "true"', True),
    ("boolean-number", C % "" + "\nhostNetwork: 1", True),
    ("quantity-boolean", C % ", resources: {requests: {cpu: true}}", True),
    ("quantity-text", C % ", resources: {requests: {cpu: abc}}", True),
    ("quantity-suffix", C % ", resources: {requests: {cpu: 5mm}}", True),
    ("quantity-fraction", C % ", resources: {requests: {cpu: 1.5}}", False),
    ("int-or-string-boolean", C % ", livenessProbe: {httpGet: {port: true}}", True),
    ("int-or-string-fraction", C % ", livenessProbe: {httpGet: {port: 80.5}}", True),
    ("int-or-string-past-int32", C % ", livenessProbe: {httpGet: {port: 3000000000}}", True),
    ("int-or-string-name", C % ", livenessProbe: {httpGet: {port: http}}", False),
    ("object-text", C % "" + "\nsecurityContext: abc", True),
    ("list-text", C % "" + "\ntolerations: abc", True),
    ("list-mapping", C % "" + "\ntolerations: {a: b}", True),
    ("map-number", C % "" + "\nnodeSelector: {a: 1}", True),
    ("map-list", C % "" + "\nnodeSelector: [a]", True),
    ("unknown-fields", C % ", foo: 1" + "\nbar: 2", True),
    ("two-errors-go-order", "containers: [{name: c, image: y}]\nhostNetwork: \"true\"", True),  # containers first
    ("error-before-unknown", C % ", foo: 1" + '\nhostNetwork: "true"', True),
    ("null-string-item", C % ", args: [null]", False),
    ("no-spec", None, True),
]


def _manifest(spec: str | None) -> str:
    if spec is None:  # a Pod component without a spec
        return SETUP.replace("      apiVersion: batch/v1\n      kind: Job\n      metadata: {name: j}\n      spec:\n"
                             "        template:\n          spec:\n            restartPolicy: Never\n",
                             "      apiVersion: v1\n      kind: Pod\n      metadata: {name: p}\n")
    return SETUP + "".join(f"            {line}\n" for line in spec.splitlines())


@pytest.fixture(scope="module")
def kueue_converted(kueue_oracle, tmp_path_factory) -> dict[str, dict]:
    """Kueue's `convert` of every case, in one oracle process (`--each`, each file a cluster of its own):
    case id -> its answer."""
    folder = tmp_path_factory.mktemp("pod-specs")
    paths = {name: folder / f"{name}.yaml" for name, _, _ in CASES}
    for name, spec, _ in CASES:
        paths[name].write_text(_manifest(spec))
    answers = run_each(kueue_oracle, "convert", list(paths.values()))
    return {name: answers[str(path)] for name, path in paths.items()}


def _kueue(out: dict) -> str | None:
    assert "error" not in out, out["error"]
    (obj,) = [o for o in out["objects"] if o["object"]["kind"] == "AppWrapper"]
    if obj.get("skipped"):
        assert obj["skipped"].startswith("Kueue's reconciler failed: "), obj["skipped"]
        return obj["skipped"].removeprefix("Kueue's reconciler failed: ")
    assert obj["workloads"], obj
    return None


@pytest.mark.parametrize("spec, fails", [(s, f) for _, s, f in CASES], ids=[i for i, _, _ in CASES])
def test_kadmit_decodes_a_components_pod_spec_as_kueue_does(kueue_converted, request, spec, fails) -> None:
    text = _manifest(spec)
    kueue = _kueue(kueue_converted[request.node.callspec.id])
    assert (kueue is not None) == fails, kueue
    diags = Diagnostics()
    objects = read_manifest_text(text, "aw.yaml", diags)
    (job,) = [j for j in objects.jobs if j.object.kind == "AppWrapper"]
    assert [d.code for d in diags.sorted() if d.severity.name == "ERROR"] == []
    if kueue is None:
        assert job.workloads and not [d for d in diags.sorted() if d.code == "KAD183"]
        return
    assert job.workloads == () and job.note == f"Kueue's reconciler fails on it and makes no Workload: {kueue}"
    (warning,) = [d.message for d in diags.sorted() if d.code == "KAD183"]
    assert warning.endswith(f"so it makes no Workload of it: `{kueue}`")
